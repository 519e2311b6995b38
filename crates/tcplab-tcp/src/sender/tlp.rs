//! The sender's side of the RFC 8985 §7 Tail Loss Probe: arming the PTO timer, deciding the
//! probe when it expires, sending it, and applying the end of a TLP episode. The state and the
//! decisions live in [`crate::loss::tlp`]; this file only applies them. Nothing here runs
//! unless `TcpConfig::tlp` (every entry point checks `self.tlp.enabled` first), so the RFC
//! sender is unchanged without TLP.

use super::{DataOut, Sender};
use crate::cc::{CcLossEvent, RecoveryStyle};
use crate::conn::ConnStats;
use crate::event::{RetransCause, TcpEvent};
use crate::loss::tlp::{PtoInputs, TlpAckEvent, TlpAckVerdict, TlpProbe};
use crate::loss::RecoveryPhase;
use crate::segment::Segment;
use crate::seq::SeqNum;
use crate::timer::{TimerKind, Timers};
use crate::trace::Trace;
use tcplab_time::SimTime;

impl Sender {
    /// RFC 8985 §7.2: may a PTO be armed now? Not in fast recovery or RTO recovery, and not
    /// with SACKed data on the scoreboard (RACK/RFC 6675 is already on the loss); only with
    /// data outstanding.
    fn tlp_may_arm(&self) -> bool {
        matches!(self.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. })
            && self.snd_una != self.snd_nxt
            && self.sb.sacked_bytes() == 0
    }

    /// (Re)arms the PTO, or cancels it when §7.2 does not allow one. Called after new data
    /// that was not itself a probe left (`new_data`) and after an ACK of new data (`on_ack`).
    ///
    /// Inlined into its two callers and split from [`Sender::tlp_arm`] so that the common
    /// case, a restart that would arm the deadline already armed, costs no call
    /// (`linux_today cost 7`, docs/benchmarks.md "Engine alone").
    #[inline]
    pub(super) fn tlp_schedule(&mut self, now: SimTime, timers: &mut Timers) {
        // RFC 8985 §7.2 (paraphrase): "The sender SHOULD start or restart a loss probe PTO
        // timer after transmitting new data (that was not itself a loss probe) or upon
        // receiving an ACK that cumulatively acknowledges new data, unless it is already in
        // fast recovery, RTO recovery, or the sender has segments delivered but not yet
        // acknowledged [SACKed]".
        if !self.tlp_may_arm() {
            timers.cancel(TimerKind::Pto);
            return;
        }
        self.tlp_restart(now, timers);
    }

    /// [`Sender::tlp_schedule`] once §7.2 allowed a PTO (`tlp_after_ack` tested it already).
    #[inline]
    fn tlp_restart(&mut self, now: SimTime, timers: &mut Timers) {
        let rto_at = timers.get(TimerKind::Rto);
        let srtt = self.rtt.srtt();
        let flight = self.flight_size();
        let inputs = PtoInputs { now, srtt, rto_at, flight_class: if flight == 0 { 0 } else if flight <= self.smss { 1 } else { 2 } };
        // The PTO is restarted after every new segment and every ACK of new data; the
        // segments an ACK releases leave at the ACK's instant with the same SRTT and RTO, so
        // those restarts would arm the deadline already armed. Skipping them changes no
        // deadline (checked in debug builds below); `linux_today cost 7`: tlp_schedule 54.7 M
        // -> 48.1 M instructions (docs/design.md, "Today's Linux", per-packet cost).
        if self.tlp.pto_memo.is_some_and(|(k, at)| k == inputs && timers.get(TimerKind::Pto) == Some(at)) {
            #[cfg(debug_assertions)]
            {
                // Debug builds (every test) check the skip against the computation it saves.
                let mut t = timers.clone();
                let rto_remaining = rto_at.map(|r| r.saturating_since(now));
                t.arm(TimerKind::Pto, now, super::rules::probe_timeout(self.tlp.pto_rule, srtt, flight, self.smss, rto_remaining));
                debug_assert_eq!(t.get(TimerKind::Pto), timers.get(TimerKind::Pto), "tlp_schedule: a skipped re-arm would have moved the PTO");
            }
            return;
        }
        self.tlp_arm(inputs, flight, timers);
    }

    /// Computes and arms the PTO from `inputs` (RFC 8985 §7.2 `calc_PTO`, or Linux's rule) and
    /// remembers them for [`Sender::tlp_schedule`]'s skip.
    #[inline(never)]
    fn tlp_arm(&mut self, inputs: PtoInputs, flight: u64, timers: &mut Timers) {
        let rto_remaining = inputs.rto_at.map(|t| t.saturating_since(inputs.now));
        let pto = super::rules::probe_timeout(self.tlp.pto_rule, inputs.srtt, flight, self.smss, rto_remaining);
        timers.arm(TimerKind::Pto, inputs.now, pto);
        self.tlp.pto_memo = timers.get(TimerKind::Pto).map(|at| (inputs, at));
    }

    /// The end of `on_ack` (after RFC 6298 (5.2)/(5.3) handled the RTO): all data acknowledged
    /// turns the PTO off; an ACK of new data restarts it (§7.2); in recovery it is cancelled.
    pub(super) fn tlp_after_ack(&mut self, now: SimTime, bytes_acked: u64, timers: &mut Timers) {
        if self.snd_una == self.snd_nxt || !self.tlp_may_arm() {
            timers.cancel(TimerKind::Pto);
        } else if bytes_acked > 0 {
            self.tlp_restart(now, timers);
        }
    }

    /// RFC 8985 §7.4 TLP_process_ack(), called on every ACK (RFC sender, after the loss
    /// detector) while TLP is on. When the ACK shows that the probe repaired a loss, and no
    /// fast recovery or RTO recovery already responded, applies the congestion response.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tlp_on_ack(
        &mut self,
        seg: &Segment,
        prior_flight: u64,
        bytes_acked: u64,
        newly_sacked: u64,
        dsack: bool,
        window_changed: bool,
    ) {
        // `dsack` is the scoreboard's RFC 2883 decision against SEG.ACK (`scoreboard::is_dsack`),
        // so it also holds on an ACK that advances SND.UNA (the probe's duplicate answered
        // after the original's ACK was lost).
        let first = seg.options.sack.as_slice().first().map(|b| (b.left, b.right));
        let ev = TlpAckEvent {
            ack: seg.ack,
            snd_una_advanced: bytes_acked > 0,
            pure_dupack: bytes_acked == 0 && seg.len == 0 && !window_changed && newly_sacked == 0,
            dsack: if dsack { first } else { None },
        };
        if self.tlp.process_ack(&ev) != TlpAckVerdict::Loss {
            return;
        }
        // RFC 8985 §7.4.1: a fast recovery (or RTO recovery) started by this ACK is already
        // the congestion response.
        if !matches!(self.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) {
            return;
        }
        // RFC 8985 §7.4.2 (paraphrase): "invoke a congestion control response equivalent to
        // fast recovery" — enter and leave it at once: ssthresh from the FlightSize the loss
        // was in (before this ACK), cwnd = ssthresh (RFC 6675 style; see loss/tlp.rs).
        let enter = CcLossEvent { flight_size: prior_flight, smss: self.smss, style: RecoveryStyle::Sack };
        self.cc = self.ccalg.on_enter_recovery(self.cc, &enter);
        let exit = CcLossEvent { flight_size: self.flight_size(), smss: self.smss, style: RecoveryStyle::Sack };
        self.cc = self.ccalg.on_exit_recovery(self.cc, &exit);
    }

    /// Can the lowest-sequence unsent segment go out as a probe (it exists and the receive
    /// window and send buffer allow it)? Mirrors `new_data`'s window test.
    fn tlp_new_data_possible(&self) -> bool {
        let unsent = self.unsent();
        let fin_pending = self.fin_queued && !self.fin_sent && !self.unlimited;
        if unsent == 0 {
            return fin_pending;
        }
        let len = unsent.min(self.smss);
        let room = self.snd_wnd.min(self.send_buffer).saturating_sub(self.flight_size());
        len <= room
    }

    /// The PTO expired (called from `Connection::handle_timeout` before the RTO is looked
    /// at). Decides the probe (RFC 8985 §7.3), re-arms the RTO, and leaves the probe for the
    /// next `next_segment`.
    pub fn on_pto(&mut self, now: SimTime, timers: &mut Timers, trace: &mut Trace) {
        if !self.tlp.enabled || self.snd_una == self.snd_nxt || !self.tlp_may_arm() {
            return;
        }
        let probe = self.tlp.on_pto(self.tlp_new_data_possible());
        let seq = match probe {
            TlpProbe::NewData => Some((self.snd_nxt, true)),
            TlpProbe::Retransmit => self.sb.get(self.sb.len().wrapping_sub(1)).map(|g| (g.start, false)),
            TlpProbe::Idle | TlpProbe::SendingNewData => None,
        };
        if let Some((seq, new_data)) = seq {
            trace.push(TcpEvent::TlpProbe { at: now, seq, new_data });
        }
        // RFC 8985 §7.3: "After attempting to send a loss probe, regardless of whether a loss
        // probe was sent, the sender MUST re-arm the RTO timer, not the PTO timer, if
        // FlightSize is not zero." The probe leaves at this same instant (poll_transmit).
        timers.arm(TimerKind::Rto, now, self.rtt.rto());
    }

    /// Sends the probe the PTO decided on, if any (first thing `next_segment` does).
    pub(super) fn tlp_send_probe(&mut self, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        match self.tlp.probe {
            TlpProbe::Idle | TlpProbe::SendingNewData => None,
            TlpProbe::NewData => {
                // RFC 8985 §7.3: "Transmit the lowest-sequence unsent segment of up to SMSS
                // [...] The cwnd remains unchanged" — past cwnd (FlightSize may exceed it by
                // one segment until the next ACK), within the receive window.
                self.tlp.probe = TlpProbe::SendingNewData;
                let d = self.new_data(now, timers, stats);
                match d {
                    Some(d) => {
                        self.tlp.on_probe_sent(false, d.seq, self.snd_nxt);
                        Some(d)
                    }
                    None => {
                        // The window closed since the PTO decided: fall back to the
                        // retransmission, as TLP_send_probe()'s "Else" branch.
                        self.tlp.probe = TlpProbe::Retransmit;
                        self.tlp_send_probe(now, timers, stats)
                    }
                }
            }
            TlpProbe::Retransmit => {
                // RFC 8985 §7.3: "Retransmit the highest-sequence segment sent so far;
                // TLPRxtOut = true; TLPHighRxt = SND.NXT".
                let last = self.sb.len().checked_sub(1);
                let Some(i) = last.filter(|&i| self.sb.get(i).is_some_and(|g| g.flags & super::scoreboard::SACKED == 0)) else {
                    self.tlp.probe = TlpProbe::Idle;
                    return None;
                };
                // Like RFC 6675's rescue retransmission, the probe does not move the NextSeg()
                // cursor HighRxt; it counts in pipe until acknowledged.
                let g = self.sb.on_rescue_retransmit(i, now);
                let probe_start: SeqNum = g.start;
                self.tlp.on_probe_sent(true, probe_start, self.snd_nxt);
                Some(self.count_retransmit(g, now, RetransCause::Tlp, timers, stats))
            }
        }
    }
}

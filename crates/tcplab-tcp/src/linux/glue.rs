//! The Linux engine's hooks into the shared sender plumbing (`sender::Sender`): the ACK path
//! (002 L1412–1472 state machine), the transmission rule (002 L1474–1481) and the RTO
//! (002 L1461–1472). Called by the [`super::Linux24`] engine (`engine.rs`) with its state.

use super::undo::{undo_cwr, undo_cwr_keep_ssthresh, Undo};
use super::{ecn, rate_halving, CaState, Counters, LinuxCa};
use crate::config::RecoveryAlgorithm;
use crate::conn::ConnStats;
use crate::event::{RecoveryKind, RetransCause, TcpEvent};
use crate::loss::RecoveryPhase;
use crate::cc::{CcState, RecoveryStyle};
use crate::segment::TcpFlags;
use crate::sender::recovery::AckInput;
use crate::sender::{DataOut, Sender};
use crate::timer::{ts_now, TimerKind, Timers};
use crate::trace::Trace;
use tcplab_time::SimTime;

impl Sender {
    /// SACK-based scoreboard (RFC 3517-like conservative SACK, 002 L1406–1408) when SACK is
    /// negotiated and `recovery = sack`; otherwise the NewReno mode (002 L1373–1379, L1399–1403).
    pub(crate) fn linux_sack(&self) -> bool {
        self.sack_ok && self.recovery_cfg == RecoveryAlgorithm::Sack
    }

    /// The packet counters now (002 L1349–1410).
    pub fn linux_counters(&self) -> Counters {
        let l = self.recovery.as_deref().and_then(|r| r.linux24());
        Counters::count(&self.sb, l.map_or(0, |l| l.reno_sacked))
    }

    fn linux_kind(&self) -> RecoveryKind {
        if self.linux_sack() {
            RecoveryKind::SackRecovery
        } else {
            RecoveryKind::FastRecovery
        }
    }

    /// Mirrors the packet-counted state into `cc` (bytes) and `phase` (for `Connection`).
    pub(crate) fn linux_sync(&mut self, l: &mut LinuxCa) {
        l.last = Counters::count(&self.sb, l.reno_sacked);
        let smss = self.smss;
        self.cc = CcState {
            cwnd: u64::from(l.snd_cwnd) * smss,
            ssthresh: if l.snd_ssthresh == u32::MAX { u64::MAX } else { u64::from(l.snd_ssthresh) * smss },
        };
        let style = if self.sack_ok && self.recovery_cfg == RecoveryAlgorithm::Sack { RecoveryStyle::Sack } else { RecoveryStyle::NewReno };
        self.phase = match l.ca_state {
            CaState::Open | CaState::Cwr { .. } => RecoveryPhase::Open,
            CaState::Disorder => RecoveryPhase::Disorder { dupacks: l.last.sacked_out },
            CaState::Recovery { high_seq } => {
                RecoveryPhase::Recovery { recover: high_seq, style, first_rtx_done: !l.fast_rtx_pending }
            }
            CaState::Loss { high_seq } => RecoveryPhase::Loss { recover: high_seq },
        };
    }

    /// The handshake completed: cwnd/ssthresh in packets from the startup policy's bytes.
    pub(crate) fn linux_established(&mut self, l: &mut LinuxCa) {
        let smss = self.smss;
        let cc = self.cc;
        l.snd_cwnd = (cc.cwnd / smss).max(1) as u32;
        l.initial_cwnd = l.snd_cwnd;
        l.snd_ssthresh = if cc.ssthresh == u64::MAX {
            u32::MAX
        } else {
            (cc.ssthresh / smss).clamp(u64::from(super::MIN_SSTHRESH), u64::from(u32::MAX - 1)) as u32
        };
        self.linux_sync(l);
    }

    /// Can one more new segment go (002 L1474–1481: at most cwnd − in_flight segments)?
    pub(crate) fn linux_can_send_new(&self, l: &LinuxCa) -> bool {
        Counters::count(&self.sb, l.reno_sacked).in_flight() < l.snd_cwnd
    }

    /// The ACK path, after the shared plumbing applied the window, the SACK blocks, the
    /// cumulative ACK and the RTT sample.
    pub(crate) fn linux_on_ack(&mut self, l: &mut LinuxCa, a: &AckInput<'_>, trace: &mut Trace) {
        let AckInput { now, seg, bytes_acked, newly_sacked, dsack, had_outstanding, window_changed, .. } = *a;
        let acked_originals = a.newest_sent.is_some();
        // Counters after the previous ACK or transmission (before this ACK).
        let prior = l.last;
        let smss = self.smss.max(1);
        let sack = self.linux_sack();
        let acked_pkts = bytes_acked.div_ceil(smss) as u32;
        let newly_sacked_pkts = newly_sacked.div_ceil(smss) as u32;
        let kind = self.linux_kind();
        if !sack {
            // 002 L1373–1379: without SACK each duplicate ACK counts as one SACKed segment.
            // [EXTERNAL] Linux `tcp_fastretrans_alert`: in Recovery a partial ACK of n segments
            // removes n − 1 (`tcp_remove_reno_sacks`); in Open/Disorder an ACK that advances
            // SND.UNA resets the count (`tcp_reset_reno_sack`); in Loss duplicate ACKs are not
            // counted (the Loss entry reset it).
            match l.ca_state {
                CaState::Recovery { .. } => {
                    if acked_pkts > 0 {
                        l.reno_sacked -= (acked_pkts - 1).min(l.reno_sacked);
                    }
                }
                CaState::Loss { .. } => l.reno_sacked = 0,
                _ => {
                    if acked_pkts > 0 {
                        l.reno_sacked = 0;
                    }
                }
            }
            let dupack = bytes_acked == 0
                && had_outstanding
                && seg.len == 0
                && !seg.flags.contains(TcpFlags::SYN)
                && !seg.flags.contains(TcpFlags::FIN)
                && !window_changed;
            if dupack && !matches!(l.ca_state, CaState::Loss { .. }) {
                l.reno_sacked += 1;
            }
        }
        // 002 L1688–1692: one D-SACK block, one unnecessary retransmission.
        if dsack {
            if let Some(b) = seg.options.sack.as_slice().first() {
                l.undo.on_dsack(b.left);
            }
        }
        // 002 L1406–1408 conservative SACK: holes are lost only by the RFC 3517 rule, with
        // DupThresh = `reordering` (002 L1795–1798).
        if sack && !l.fack && (newly_sacked > 0 || bytes_acked > 0) {
            self.sb.update_lost(l.reordering, smss);
        }
        if sack && l.fack {
            if let CaState::Recovery { high_seq } = l.ca_state {
                self.linux_fack_mark(l, high_seq);
            }
        }
        let mut c = Counters::count(&self.sb, l.reno_sacked);
        let prior_in_flight = c.in_flight() + acked_pkts + newly_sacked_pkts;
        let tsecr = if self.ts_ok { seg.options.timestamps.map(|t| t.1) } else { None };
        // RFC 3168 §6.1.2 once per window of data (`crate::ecn::EcnState::should_react`) on a
        // negotiated connection; un-negotiated (hand-made ACKs) keeps the CWR state as the only
        // guard, as before.
        let ece = seg.flags.contains(TcpFlags::ECE) && (!self.ecn.negotiated || self.ecn.should_react(seg));
        // Late D-SACKs may undo one more window after the episode (module `undo`).
        if let Some(h) = l.undo.horizon {
            if self.snd_una.gt(h) && matches!(l.ca_state, CaState::Open | CaState::Disorder) {
                l.undo = Undo::default();
            }
        }
        // 002 L1697–1709 (b): a cumulative ACK for a hole below SACKed data, whose segments were
        // never retransmitted, shows reordering: `reordering` becomes the distance to the
        // forward-most SACKed segment (prior fackets_out), and FACK falls back to conservative
        // SACK (L1707–1709, L1826–1830). [EXTERNAL] capped at Linux `TCP_MAX_REORDERING`.
        if sack
            && acked_originals
            && prior.sacked_out > 0
            && matches!(l.ca_state, CaState::Open | CaState::Disorder)
        {
            super::update_reordering(l, prior.fackets_out);
        }
        let mut grown = false;
        match l.ca_state {
            CaState::Loss { high_seq } => {
                if bytes_acked > 0 {
                    if l.undo.may_undo_ts(tsecr) || l.undo.may_undo_dsack() {
                        // 002 L1669–1678: timestamp undo in Loss: clear every lost mark (new data
                        // instead of retransmissions), cwnd <- max(cwnd, 2 ssthresh),
                        // ssthresh <- prior_ssthresh; continue in the Open state.
                        self.sb.clear_lost();
                        undo_cwr(&mut l.snd_cwnd, &mut l.snd_ssthresh, l.undo.prior_ssthresh);
                        l.undo = Undo::default();
                        l.ca_state = CaState::Open;
                        trace.push(TcpEvent::RecoveryExited { at: now, kind: RecoveryKind::Timeout });
                    } else {
                        // 002 L1461–1467: slow start from one segment; cwnd may grow in Loss.
                        l.cong_avoid();
                        grown = true;
                        // 002 L1468–1472: Open only after all data outstanding at entry is ACKed.
                        if self.snd_una.ge(high_seq) {
                            l.ca_state = CaState::Open;
                            l.undo.horizon = Some(self.snd_nxt);
                            trace.push(TcpEvent::RecoveryExited { at: now, kind: RecoveryKind::Timeout });
                        }
                    }
                }
            }
            CaState::Recovery { high_seq } => {
                if self.snd_una.ge(high_seq) {
                    // 002 L1456–1459: Recovery ends when every segment outstanding at entry is
                    // acknowledged. 002 L1680–1686: with a timestamp (or D-SACK) proof the end
                    // undoes the reduction; otherwise [EXTERNAL] `tcp_complete_cwr`:
                    // cwnd <- min(cwnd, ssthresh).
                    if l.undo.may_undo_ts(tsecr) || l.undo.may_undo_dsack() {
                        undo_cwr(&mut l.snd_cwnd, &mut l.snd_ssthresh, l.undo.prior_ssthresh);
                        l.undo = Undo::default();
                        // 002 L1697–1701 (a): the retransmission was unnecessary: reordering.
                        super::update_reordering(l, prior.fackets_out);
                    } else {
                        l.snd_cwnd = l.snd_cwnd.min(l.snd_ssthresh).max(1);
                        l.undo.horizon = Some(self.snd_nxt);
                    }
                    l.ca_state = CaState::Open;
                    l.fast_rtx_pending = false;
                    // [EXTERNAL] `tcp_reset_reno_sack` when Recovery ends.
                    l.reno_sacked = 0;
                    trace.push(TcpEvent::RecoveryExited { at: now, kind });
                } else {
                    if bytes_acked > 0 {
                        if l.undo.retrans_made > 0 && l.undo.may_undo_ts(tsecr) {
                            // 002 L1683–1686: "when a partial ACK for the unnecessary
                            // retransmission arrives, the sender does not mark the next
                            // unacknowledged segment lost, but continues according to present
                            // scoreboard markings". [EXTERNAL] Linux 2.4 `tcp_try_undo_partial`:
                            // - "if (tp->retrans_out == 0) tp->retrans_stamp = 0;" — with no
                            //   retransmission left outstanding, later partial ACKs pass
                            //   `tcp_packet_delayed` whatever they echo;
                            // - `tcp_update_reordering(tp, tcp_fackets_out(tp)+acked, 1)`, where
                            //   `tcp_fackets_out` is sacked_out + 1 without SACK (the dupACK
                            //   count after `tcp_remove_reno_sacks`), fackets_out with SACK
                            //   (002 L1697–1706: reordering detected by timestamps in Recovery);
                            // - `tcp_undo_cwr(tp, 0)`: cwnd only, ssthresh is kept;
                            // - `undo_marker` is NOT cleared ("If the first packet was delayed,
                            //   the rest ones are most probably delayed as well"), so every
                            //   later partial ACK of an original is judged the same way, and
                            //   the end of Recovery can still undo in full (L1680–1683).
                            if c.retrans_out == 0 {
                                l.undo.retrans_stamp = None;
                            }
                            let fackets = if sack { c.fackets_out } else { c.sacked_out + 1 };
                            super::update_reordering(l, fackets + acked_pkts);
                            undo_cwr_keep_ssthresh(&mut l.snd_cwnd, l.snd_ssthresh, l.undo.prior_ssthresh);
                        } else if !sack {
                            // 002 L1399–1403 (NewReno): a partial ACK marks the new first
                            // unacknowledged segment lost (its retransmission follows).
                            self.sb.mark_front_lost();
                        }
                    }
                    if l.undo.may_undo_dsack() {
                        undo_cwr(&mut l.snd_cwnd, &mut l.snd_ssthresh, l.undo.prior_ssthresh);
                        l.undo.undo_marker = None;
                    }
                    // 002 L1636–1641: the timer is not reset for the rest of Recovery; instead
                    // a segment not yet retransmitted is lost when "more than an RTO's worth of
                    // time has passed from the first transmission".
                    self.sb.mark_timed_out(now, self.rtt.rto());
                    c = Counters::count(&self.sb, l.reno_sacked);
                    if l.rate_halving {
                        // 002 L1449–1454: −1 segment per two ACKs down to ssthresh; never up.
                        rate_halving::cwnd_down(&mut l.snd_cwnd, &mut l.snd_cwnd_cnt, l.snd_ssthresh, c.in_flight());
                    }
                }
            }
            CaState::Cwr { high_seq } => {
                if self.snd_una.ge(high_seq) {
                    // [EXTERNAL] `tcp_complete_cwr`.
                    l.snd_cwnd = l.snd_cwnd.min(l.snd_ssthresh).max(1);
                    l.ca_state = CaState::Open;
                } else {
                    // 002 L1437–1439: one segment per second ACK until halved.
                    rate_halving::cwnd_down(&mut l.snd_cwnd, &mut l.snd_cwnd_cnt, l.snd_ssthresh, c.in_flight());
                }
            }
            CaState::Open | CaState::Disorder => {}
        }
        if matches!(l.ca_state, CaState::Open | CaState::Disorder | CaState::Cwr { .. }) {
            if ece && !matches!(l.ca_state, CaState::Cwr { .. }) {
                // 002 L1761–1764: ECN echo -> CWR.
                let (ssthresh, cwnd) = ecn::enter_cwr(l.snd_cwnd, c.in_flight());
                l.snd_ssthresh = ssthresh;
                l.snd_cwnd = cwnd;
                l.snd_cwnd_cnt = 0;
                l.undo = Undo::default();
                l.ca_state = CaState::Cwr { high_seq: self.snd_nxt };
                self.ecn.on_window_reduced(self.snd_nxt);
            }
            if bytes_acked > 0 && l.ca_state == CaState::Open && !grown && prior_in_flight >= l.snd_cwnd {
                // 002 L1415–1420; [EXTERNAL] growth only when the window was in use.
                l.cong_avoid();
            }
            c = Counters::count(&self.sb, l.reno_sacked);
            if !matches!(l.ca_state, CaState::Cwr { .. }) {
                // 002 L1422–1424: Disorder while SACKed/dupACKed/lost data is outstanding.
                l.ca_state = if c.left_out() > 0 || c.retrans_out > 0 { CaState::Disorder } else { CaState::Open };
            }
            // 002 L1445–1449, L1795–1798: Recovery once `reordering` segments are SACKed (or
            // dupACKed), or a hole is deemed lost; Recovery pre-empts CWR (L1442–1443).
            let time_to_recover = (sack && c.lost_out > 0)
                || c.sacked_out >= l.reordering
                || (sack && l.fack && c.fackets_out > l.reordering);
            if time_to_recover {
                self.linux_enter_recovery(now, l, trace);
            } else if l.undo.may_undo_dsack() {
                // 002 L1688–1695: every retransmission of the last episode was D-SACKed.
                undo_cwr(&mut l.snd_cwnd, &mut l.snd_ssthresh, l.undo.prior_ssthresh);
                l.undo = Undo::default();
            }
        }
        c = Counters::count(&self.sb, l.reno_sacked);
        if l.ca_state == CaState::Open {
            // 002 L1740–1754 congestion window validation.
            let rto = self.rtt.rto();
            let floor = l.initial_cwnd;
            l.cwv.validate(now, rto, &mut l.snd_cwnd, &mut l.snd_ssthresh, floor);
        }
        if matches!(l.ca_state, CaState::Open | CaState::Disorder | CaState::Loss { .. }) {
            // 002 L1483–1495: when this ACK would release many segments, allow at most three.
            let pending = self.unsent() > u64::from(super::TCP_MAX_BURST) * smss || c.lost_out > 0;
            if pending {
                l.moderate_cwnd(c.in_flight());
            }
        }
        self.linux_sync(l);
    }

    fn linux_enter_recovery(&mut self, now: SimTime, l: &mut LinuxCa, trace: &mut Trace) {
        // 002 L1652–1653: keep the old ssthresh for undo ([EXTERNAL] tcp_current_ssthresh).
        let prior = l.current_ssthresh();
        l.undo.start(self.snd_una, prior);
        // 002 L1451–1452: ssthresh = half of the window at entry.
        l.snd_ssthresh = l.recalc_ssthresh();
        l.snd_cwnd_cnt = 0;
        if !l.rate_halving {
            // 002 L1907–1909 (conventional, rate-halving off): cwnd <- ssthresh at once; the
            // in_flight rule then holds new data until half the window has left.
            l.snd_cwnd = l.snd_ssthresh;
        }
        // 002 L1449 / L1399–1401: retransmit the first unacknowledged segment on entry.
        if !self.sb.front_is_lost() {
            self.sb.mark_front_lost();
        }
        let high_seq = self.snd_nxt;
        if self.linux_sack() && l.fack {
            self.linux_fack_mark(l, high_seq);
        }
        l.ca_state = CaState::Recovery { high_seq };
        l.fast_rtx_pending = true;
        // RFC 3168 §6.1.2: CWR on the next new data (`crate::ecn`).
        self.ecn.on_window_reduced(high_seq);
        trace.push(TcpEvent::RecoveryEntered { at: now, kind: self.linux_kind(), recovery_point: high_seq });
        if l.rate_halving {
            let c = Counters::count(&self.sb, l.reno_sacked);
            rate_halving::cwnd_down(&mut l.snd_cwnd, &mut l.snd_cwnd_cnt, l.snd_ssthresh, c.in_flight());
        }
    }

    /// FACK (002 L1368–1370): [EXTERNAL] Linux 2.4 `tcp_update_scoreboard` marks the first
    /// max(fackets_out − reordering, 1) segments lost (untagged ones, below high_seq).
    fn linux_fack_mark(&mut self, l: &LinuxCa, high_seq: crate::seq::SeqNum) {
        let c = Counters::count(&self.sb, 0);
        let lost = c.fackets_out.saturating_sub(l.reordering).max(1);
        self.sb.mark_head_lost(lost, high_seq);
    }

    /// 002 L1474–1481: retransmit lost, not yet retransmitted segments first, then new data,
    /// while in_flight < cwnd.
    pub(crate) fn linux_next_segment(&mut self, l: &mut LinuxCa, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        let (state, fast_pending, reno) = (l.ca_state, l.fast_rtx_pending, l.reno_sacked);
        if state == CaState::Open {
            // 002 L1740–1754 after an idle period.
            let rto = self.rtt.rto();
            let floor = l.initial_cwnd;
            if l.cwv.validate(now, rto, &mut l.snd_cwnd, &mut l.snd_ssthresh, floor) {
                self.linux_sync(l);
            }
        }
        let out = if matches!(state, CaState::Recovery { .. }) && fast_pending {
            // 002 L1449: the fast retransmission leaves on entry (sent even when the
            // conventional variant has cut cwnd to ssthresh).
            l.fast_rtx_pending = false;
            self.sb.next_retransmit(false).map(|i| self.retransmit(i, now, RetransCause::FastRetransmit, timers, stats))
        } else {
            None
        };
        let out = out.or_else(|| {
            let c = Counters::count(&self.sb, reno);
            if c.in_flight() >= l.snd_cwnd {
                return None;
            }
            if let Some(i) = self.sb.next_retransmit(false) {
                let cause = if matches!(state, CaState::Loss { .. }) { RetransCause::Rto } else { RetransCause::SackRecovery };
                return Some(self.retransmit(i, now, cause, timers, stats));
            }
            let ca: &LinuxCa = l;
            self.new_data_gated(now, timers, stats, &|s: &Sender, _len| s.linux_can_send_new(ca))
        });
        if let Some(d) = out {
            let c = Counters::count(&self.sb, reno);
            if d.cause.is_some() {
                l.undo.on_retransmit(Some(ts_now(now)));
            }
            l.cwv.on_send(now, c.in_flight(), l.snd_cwnd);
            self.linux_sync(l);
        }
        out
    }

    /// 002 L1461–1472: the RTO moves to Loss: every outstanding segment is lost, cwnd <- 1.
    pub(crate) fn linux_on_rto(&mut self, l: &mut LinuxCa, now: SimTime, timers: &mut Timers, stats: &mut ConnStats, trace: &mut Trace) {
        if self.snd_una == self.snd_nxt {
            return;
        }
        stats.timeouts += 1;
        self.consecutive_rtos += 1;
        let prev = l.ca_state;
        match prev {
            CaState::Open | CaState::Disorder | CaState::Cwr { .. } => {
                // 002 L1652–1653: prior_ssthresh; [EXTERNAL] tcp_enter_loss recalculates
                // ssthresh only when not already in Recovery/Loss.
                let prior = l.current_ssthresh();
                l.undo.start(self.snd_una, prior);
                l.snd_ssthresh = l.recalc_ssthresh();
            }
            // [EXTERNAL] tcp_enter_loss: undo_marker is cleared when outstanding data was
            // already retransmitted (fast recovery, or an earlier RTO of this episode).
            CaState::Recovery { .. } | CaState::Loss { .. } => l.undo.undo_marker = None,
        }
        l.snd_cwnd = 1;
        l.snd_cwnd_cnt = 0;
        l.reno_sacked = 0;
        self.ecn.on_window_reduced(self.snd_nxt);
        l.fast_rtx_pending = false;
        // 002 L1463–1465: all outstanding segments are marked lost.
        self.sb.mark_all_lost(self.snd_una, self.snd_nxt);
        if matches!(prev, CaState::Recovery { .. }) {
            trace.push(TcpEvent::RecoveryExited { at: now, kind: self.linux_kind() });
        }
        let high_seq = match prev {
            // 002 L1468–1472: a repeated RTO continues the same Loss episode.
            CaState::Loss { high_seq } => high_seq.max(self.snd_nxt),
            _ => self.snd_nxt,
        };
        l.ca_state = CaState::Loss { high_seq };
        self.rtt.on_timeout();
        self.rtt_timing = None;
        trace.push(TcpEvent::RtoFired { at: now, backoff: self.rtt.backoff() });
        if !matches!(prev, CaState::Loss { .. }) {
            trace.push(TcpEvent::RecoveryEntered { at: now, kind: RecoveryKind::Timeout, recovery_point: high_seq });
        }
        timers.arm(TimerKind::Rto, now, self.rtt.rto());
        self.linux_sync(l);
    }
}

//! The sender's side of Quick-Start (seed 002 §6.2.2, §6.5.3, §7.3): applies the decisions of
//! [`crate::startup::quickstart::host::QsHost`] to cwnd, ssthresh and the pacing timer.
//!
//! RFC 4782 is sender-agnostic, and so is this: it runs in the RFC sender whatever its
//! congestion controller, recovery and loss detection (`profile = "linux"`: CUBIC + HyStart,
//! PRR, RACK-TLP, IW10). The hand-over to them:
//! - the QS window and `qsthresh` set `cc.cwnd` / `cc.ssthresh`, which every controller reads
//!   afresh on the next ACK (CUBIC starts its epoch from the cwnd it finds, `cc/cubic.rs`);
//! - a Quick-Start failure ends PRR for that recovery (`qs_on_congestion`): the failure
//!   response replaces the reduction PRR would pace;
//! - QS packets are paced on exact deadlines, not on the profile's timer clock (`qs_may_send`).
//!
//! The Linux 2.4 engine (`sender = "linux"`) has its own window arithmetic in packets and
//! takes no part: the scenario loader rejects `quick_start` with it (one-line error).
//!
//! Hooks, each called from one place:
//! - [`Sender::qs_take_request`]: a segment is about to leave (SYN or new data): the Request
//!   option it carries, if one is pending (`conn.rs`);
//! - [`Sender::qs_on_response`]: an ACK (or the SYN-ACK) acknowledged the carrier: judge the
//!   Response (TTL check, eq. 6.1) and, if approved, raise cwnd and start pacing;
//! - [`Sender::qs_may_send`] / [`Sender::qs_on_sent`]: the pacing gate in `new_data`;
//! - [`Sender::qs_on_ack`]: SND.UNA advanced: end of the QS phase at the first ACK of a QS
//!   packet (cwnd back to ACK clocking; `qsthresh` sets ssthresh), end of the watch;
//! - [`Sender::qs_on_congestion`]: fast retransmit, RTO or ECN echo: a Quick-Start failure if
//!   it concerns a QS packet (cwnd = IW, thesis L4145–4147);
//! - [`Sender::qs_on_path_change`]: an explicit hand-off notification (Ch. 7).
//!
//! The QS phase shares the pacing timer ([`TimerKind::Pacing`]) with 000 §4.2.2 pacing; the
//! two never run together (Quick-Start replaces the initial slow start that pacing shapes).

use super::Sender;
use crate::startup::quickstart::host::{QsApproval, QsReject, QsResponseEvent};
use crate::startup::quickstart::{HandoffResponse, QsFailureResponse, QsHost, QsIpOption};
use crate::loss::{LossDecision, RecoveryPhase};
use crate::segment::Segment;
use crate::seq::SeqNum;
use crate::timer::{TimerKind, Timers};
use tcplab_time::SimTime;

/// How the last Quick-Start exchange ended (for tracing and per-connection results).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QsOutcome {
    Approved(QsApproval),
    Rejected(QsReject),
}

impl Sender {
    /// Data still to send (`None`: unlimited).
    fn qs_to_send(&self) -> Option<u64> {
        (!self.unlimited).then(|| self.unsent())
    }

    /// Arms a Request sized for the data still to send (thesis §6.5.2).
    fn qs_arm(&mut self) {
        let (to_send, iw, smss, srtt) = (self.qs_to_send(), self.initial_cwnd.max(self.smss), self.smss, self.rtt.srtt());
        if let Some(q) = self.qs.as_mut() {
            if let Some(rate) = q.request_rate(to_send, iw, smss, srtt) {
                q.arm(rate);
            }
        }
    }

    /// Connection start (the client's first SYN): arm the Request if configured. `iw` is the
    /// initial window the handshake will give (RFC 3390 for the configured MSS).
    pub(crate) fn qs_on_syn(&mut self, iw: u64) {
        if !self.qs.as_ref().is_some_and(|q| q.cfg.request_at_start) {
            return;
        }
        self.initial_cwnd = iw;
        self.qs_arm();
    }

    /// The Request to put on the segment ending at `end` about to leave at `now`.
    pub(crate) fn qs_take_request(&mut self, now: SimTime, end: SeqNum) -> Option<QsIpOption> {
        self.qs.as_mut()?.take_request(now, end)
    }

    /// Thesis L3663–3684: the ACK `seg` carries the Response to our Request or acknowledges
    /// its carrier. Returns the outcome when an exchange was judged.
    pub(crate) fn qs_on_response(&mut self, now: SimTime, seg: &Segment, carrier_retransmitted: bool, timers: &mut Timers) -> Option<QsOutcome> {
        let q = self.qs.as_mut()?;
        if !q.response_due(seg.ack, seg.options.quick_start.is_some()) {
            return None;
        }
        let ev = QsResponseEvent {
            now,
            ack: seg.ack,
            response: seg.options.quick_start,
            carrier_retransmitted,
            smss: self.smss,
            cwnd: self.cc.cwnd,
        };
        match q.on_response(&ev) {
            Ok(a) => {
                // Eq. 6.1: cwnd from the approved rate; §7.1 qsthresh: ssthresh too.
                self.cc.cwnd = a.qs_cwnd;
                if q.cfg.qsthresh {
                    self.cc.ssthresh = a.qs_cwnd;
                }
                // The first QS packet may leave at once; the timer paces the rest.
                timers.cancel(TimerKind::Pacing);
                Some(QsOutcome::Approved(a))
            }
            Err(r) => Some(QsOutcome::Rejected(r)),
        }
    }

    /// The pacing gate of the QS phase: false (and the pacing timer armed) until the next QS
    /// packet's time. The deadline is exact whatever the profile's timer clock (`Timers::arm_at`):
    /// §9 item 10 spaces QS packets `(MSS + H) / Rate` apart, as ns-2 does and as Linux's
    /// hrtimer pacing would; on the `linux` profile's 4 ms jiffies a 4.7 ms spacing would
    /// otherwise become 8 ms and the QS window would take 1.7 RTTs to leave.
    pub(crate) fn qs_may_send(&mut self, now: SimTime, timers: &mut Timers) -> bool {
        let Some(at) = self.qs.as_ref().and_then(|q| q.paced_until()) else { return true };
        if now >= at {
            return true;
        }
        if !timers.is_armed(TimerKind::Pacing) {
            timers.arm_at(TimerKind::Pacing, at);
        }
        false
    }

    /// A new segment starting at `seq` of `len` payload bytes left at `now`.
    pub(crate) fn qs_on_sent(&mut self, now: SimTime, seq: SeqNum, len: u32) {
        if let Some(q) = self.qs.as_mut() {
            q.last_send = Some(now);
            q.on_paced_send(now, seq, len);
        }
    }

    /// Thesis L3583–3586: a request after an idle period, checked before new data leaves with
    /// nothing outstanding.
    pub(crate) fn qs_check_idle(&mut self, now: SimTime) {
        let Some(q) = self.qs.as_ref() else { return };
        let (Some(idle), Some(last)) = (q.cfg.request_after_idle, q.last_send) else { return };
        if self.flight_size() == 0 && now.saturating_since(last) >= idle && q.phase == Default::default() {
            self.qs_arm();
        }
    }

    /// SND.UNA advanced from `prior_una`. Thesis L3683–3684 / ns-2 `endQuickStart`: the first
    /// ACK of a QS packet ends the QS phase: cwnd = what was actually sent in it if that is
    /// less than the QS window (never below the IW); `qsthresh`: ssthresh = the QS window.
    pub(crate) fn qs_on_ack(&mut self, prior_una: SeqNum, timers: &mut Timers) {
        let (una, nxt, iw) = (self.snd_una, self.snd_nxt, self.initial_cwnd);
        let Some(q) = self.qs.as_mut() else { return };
        if let Some(a) = q.end_if_first_acked(una, nxt) {
            let sent = u64::from(nxt - prior_una);
            self.cc.cwnd = sent.min(a.qs_cwnd).max(iw);
            if q.cfg.qsthresh {
                self.cc.ssthresh = a.qs_cwnd;
            }
            timers.cancel(TimerKind::Pacing);
        }
        q.on_snd_una(una);
    }

    /// A loss was detected at `seq` (fast retransmit or RTO), or an ECN echo acknowledged
    /// data at `seq`. §3.6 / §9 item 11: on a QS packet this is a Quick-Start failure: cwnd =
    /// the default initial window and slow start (not halving). `rto`: the timeout's own loss
    /// window (1 SMSS) is kept. Returns whether it was a failure.
    pub(crate) fn qs_on_congestion(&mut self, seq: SeqNum, rto: bool, timers: &mut Timers) -> bool {
        let iw = self.initial_cwnd;
        let Some(q) = self.qs.as_mut() else { return false };
        let was_pacing = q.paced_until().is_some();
        if !q.on_congestion(seq) {
            return false;
        }
        if was_pacing {
            timers.cancel(TimerKind::Pacing);
        }
        if !rto && q.cfg.failure == QsFailureResponse::InitialWindow {
            self.cc.cwnd = iw;
            q.slow_start_recovery = true;
            // RFC 6937 PRR would pace this recovery's reduction from RecoverFS (the QS window)
            // down to ssthresh: the multiplicative decrease that the failure response replaces
            // (the thesis L4131-4140: "not halve"). The recovery's window is the slow start of
            // `qs_after_ack` instead, for every congestion controller (CUBIC's loss response
            // has set ssthresh and W_max as usual).
            self.prr.on_exit();
        }
        true
    }

    /// After an ACK was processed (`cwnd_before`: cwnd before its loss decision). §3.6 / RFC
    /// 4782 §4.5: after a Quick-Start failure the sender "should revert to ... the default
    /// initial window and slow start" (thesis L4145–4147: "return to slow start using the
    /// default initial window"). A failure detected by duplicate ACKs starts an RFC 6675
    /// recovery, which holds cwnd fixed; left at the IW there, it would retransmit about one
    /// IW of holes per RTT (Fig 6.6 would then cost a dozen RTTs, not the thesis's two). So
    /// while that recovery lasts cwnd grows as in slow start (RFC 5681 §3.1: by at most SMSS
    /// per ACK that advances SND.UNA, not by SACKs of the QS packets that survived) up to
    /// ssthresh (set by the loss response), and at its end cwnd stays where slow start took
    /// it rather than jumping to ssthresh.
    pub(crate) fn qs_after_ack(&mut self, cwnd_before: u64, bytes_acked: u64, decision: LossDecision) {
        let in_recovery = matches!(self.phase, RecoveryPhase::Recovery { .. });
        let (smss, ssthresh) = (self.smss, self.cc.ssthresh);
        let Some(q) = self.qs.as_mut() else { return };
        if !q.slow_start_recovery {
            return;
        }
        let grown = |cwnd: u64| if bytes_acked > 0 { (cwnd + bytes_acked.min(smss)).min(ssthresh.max(cwnd)) } else { cwnd };
        if decision == LossDecision::ExitRecovery {
            self.cc.cwnd = grown(cwnd_before).min(self.cc.cwnd);
            q.slow_start_recovery = false;
        } else if in_recovery {
            self.cc.cwnd = grown(self.cc.cwnd);
        } else {
            // Left otherwise (a timeout took over): the ordinary rules again.
            q.slow_start_recovery = false;
        }
    }

    /// Ch. 7 §7.4 (L5043–5058): the explicit hand-off notification. `slowstart`: cwnd = 1 MSS;
    /// `qs`/`qsthresh`: a new Request on the next segment.
    pub fn qs_on_path_change(&mut self) {
        let Some(q) = self.qs.as_ref() else { return };
        match q.cfg.on_handoff {
            HandoffResponse::Ignore => {}
            HandoffResponse::SlowStart => self.cc.cwnd = self.smss,
            HandoffResponse::QuickStart => self.qs_arm(),
        }
    }

    /// The pacing timer fired during the QS phase (true: handled here).
    pub(crate) fn qs_on_pacing_timer(&mut self) -> bool {
        self.qs.as_ref().is_some_and(|q| q.paced_until().is_some())
    }

    /// The Quick-Start state, if this endpoint requests.
    pub fn quick_start(&self) -> Option<&QsHost> {
        self.qs.as_ref()
    }
}

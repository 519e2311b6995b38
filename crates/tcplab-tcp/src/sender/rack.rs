//! The sender's side of RACK (RFC 8985 §6, `crate::loss::rack`): feeding each ACK to RACK,
//! marking losses with it instead of RFC 6675 IsLost, and the reordering timer. Nothing here
//! runs unless `TcpConfig::rack` with SACK negotiated (every entry point checks
//! `self.rack.enabled`), so the RFC sender is unchanged without RACK.

use super::Sender;
use crate::loss::rack::{RackAckEvent, TCP_TIMEOUT_MIN};
use crate::loss::RecoveryPhase;
use crate::timer::{TimerKind, Timers};
use crate::trace::Trace;
use tcplab_time::{SimDuration, SimTime};

impl Sender {
    /// RFC 8985 §6.2 steps 1–4, after the scoreboard applied the ACK's SACK blocks and
    /// cumulative acknowledgment. `acked_newest`: the send time of the newest segment the
    /// ACK newly acknowledged when none of them was retransmitted.
    pub(super) fn rack_on_ack(&mut self, now: SimTime, dsack: bool, seg: &crate::segment::Segment, acked: bool, acked_newest: Option<SimTime>) {
        // Step 1's sample: Linux's ca_rtt_us (SACK, then cumulative, then the TS echo). The
        // echo is read only when `rack_min_rtt_sample` can use it (no send-time sample and the
        // ACK advanced SND.UNA): the sender's clock costs a division per ACK otherwise.
        let sacked_newest = self.sb.delivered.newest_sacked_original;
        let echo_used = acked && sacked_newest.is_none() && acked_newest.is_none();
        let rtt_sample = super::rules::rack_min_rtt_sample(&super::rules::CaRttInputs {
            now,
            acked_newest,
            sacked_newest,
            acked,
            ts: seg.options.timestamps.filter(|_| echo_used && self.ts_ok).map(|(_, tsecr)| (crate::timer::ts_now(now), tsecr)),
        });
        let ev = RackAckEvent {
            now,
            delivered: self.sb.delivered,
            rtt_sample,
            dsack,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
        };
        self.rack.on_ack(&ev);
    }

    /// Linux `tcp_try_undo_partial` (net/ipv4/tcp_input.c), called on a partial ACK in fast
    /// recovery:
    ///
    /// ```c
    /// if (tp->undo_marker && tcp_packet_delayed(tp)) {
    ///     /* Plain luck! Hole if filled with delayed
    ///      * packet, rather than with a retransmit. Check reordering.
    ///      */
    ///     tcp_check_sack_reordering(sk, prior_snd_una, 1);
    /// ```
    ///
    /// `tcp_packet_delayed`: "tp->retrans_stamp && tcp_tsopt_ecr_before(tp, tp->retrans_stamp)"
    /// — the ACK echoes a TSval older than the recovery's first retransmission, so the original
    /// filled the hole; `tcp_check_sack_reordering` then counts `reord_seen++` (RACK's
    /// RACK.reordering_seen: `tcp_rack_reo_wnd` keeps its min_RTT/4 window from then on,
    /// real kernel `reorder`: one spurious retransmission of three delayed segments, not
    /// three). Only the reordering evidence is taken here; the hold and the undo of the window
    /// (`tcp_undo_cwnd_reduction`) are `cwnd_undo`'s (`undo.rs`, decided earlier on the same
    /// ACK, with `partial` computed before either). `prior_snd_una` is below RACK.fack on a
    /// partial ACK, as `tcp_check_sack_reordering` requires.
    pub(super) fn rack_on_partial_ack(&mut self, seg: &crate::segment::Segment) {
        if !self.rack.enabled || !self.ts_ok {
            return;
        }
        let (Some((_, tsecr)), Some(first_rtx)) = (seg.options.timestamps, self.recovery_started_at) else { return };
        self.rack.on_partial_ack_echo(tsecr, crate::timer::ts_now(first_rtx));
    }

    /// RFC 8985 §6.2 step 4 RACK.reo_wnd for the sender's state now.
    fn rack_reo_wnd(&self) -> SimDuration {
        super::rules::rack_reo_wnd(&self.rack, self.phase, self.sb.sacked_bytes(), self.smss, self.dupack_threshold(), self.rtt.srtt())
    }

    /// RFC 8985 §6.2 step 5 and §6.3 (Linux `tcp_rack_mark_lost`): marks what RACK deems lost
    /// and (re)arms or cancels the reordering timer. Returns the bytes newly marked lost.
    pub(super) fn rack_detect(&mut self, now: SimTime, timers: &mut Timers) -> u64 {
        if self.rack.nothing_to_mark(&self.sb) {
            // detect_loss's own fast path, taken before RACK.reo_wnd is computed: no loss, no
            // timeout (the reordering timer is cancelled, as below).
            self.rack.advanced = false;
            timers.cancel(TimerKind::RackReo);
            return 0;
        }
        let reo_wnd = self.rack_reo_wnd();
        let out = self.rack.detect_loss(&mut self.sb, now, reo_wnd);
        match out.timeout {
            // tcp_rack_mark_lost: "timeout = usecs_to_jiffies(timeout) + TCP_TIMEOUT_MIN"
            Some(t) => timers.arm(TimerKind::RackReo, now, t + TCP_TIMEOUT_MIN),
            None => timers.cancel(TimerKind::RackReo),
        }
        out.newly_lost
    }

    /// The reordering timer expired (RFC 8985 §6.3; Linux `tcp_rack_reo_timeout`: detect
    /// loss; if something was newly marked and the sender is not in recovery, enter fast
    /// recovery — with PRR, `tcp_cwnd_reduction(sk, 1, ...)` — and retransmit).
    pub fn on_rack_timer(&mut self, now: SimTime, timers: &mut Timers, trace: &mut Trace) {
        if !self.rack.enabled || self.snd_una == self.snd_nxt {
            return;
        }
        if self.rack_detect(now, timers) == 0 {
            return;
        }
        if matches!(self.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) {
            self.enter_recovery(now, trace);
            if self.prr.active {
                self.prr_on_ack(self.smss, false, true);
            }
        }
    }
}

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
    /// cumulative acknowledgment.
    pub(super) fn rack_on_ack(&mut self, now: SimTime, dsack: bool) {
        let ev = RackAckEvent {
            now,
            delivered: self.sb.delivered,
            rtt_sample: self.ca_rtt,
            dsack,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
        };
        self.rack.on_ack(&ev);
    }

    /// RFC 8985 §6.2 step 4 RACK.reo_wnd for the sender's state now.
    fn rack_reo_wnd(&self) -> SimDuration {
        super::rules::rack_reo_wnd(&self.rack, self.phase, self.sb.sacked_bytes(), self.smss, self.dupack_threshold(), self.rtt.srtt())
    }

    /// RFC 8985 §6.2 step 5 and §6.3 (Linux `tcp_rack_mark_lost`): marks what RACK deems lost
    /// and (re)arms or cancels the reordering timer. Returns the bytes newly marked lost.
    pub(super) fn rack_detect(&mut self, now: SimTime, timers: &mut Timers) -> u64 {
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

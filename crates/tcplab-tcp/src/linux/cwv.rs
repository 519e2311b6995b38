//! Congestion Window Validation, RFC 2861-like (002 §2.10, L1740–1754).
//!
//! 002 L1745–1754: when the congestion window "has not been fully used for one RTO estimate's
//! worth of time", `ssthresh <- max(ssthresh, 3/4 cwnd)`, then `cwnd <- (used + cwnd) / 2`.
//! [GAP resolved] `used` is the largest in_flight seen at a transmission since the window
//! was last fully used; idle and application-limited periods are treated the same; one
//! reduction per elapsed RTO (as Linux `tcp_cwnd_restart` halves once per idle RTO), never
//! below the initial window when nothing was used (Linux `restart_cwnd`, [EXTERNAL]).

use tcplab_time::{SimDuration, SimTime};

/// Cap on reductions applied at once (after a very long idle period cwnd is at its floor).
pub const CWV_MAX_STEPS: u32 = 32;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cwv {
    /// Largest in_flight since `snd_cwnd_stamp` (Linux `snd_cwnd_used`).
    pub snd_cwnd_used: u32,
    /// Last time the window was fully used or validated (Linux `snd_cwnd_stamp`).
    pub snd_cwnd_stamp: SimTime,
}

impl Cwv {
    pub fn new(now: SimTime) -> Self {
        Cwv { snd_cwnd_used: 0, snd_cwnd_stamp: now }
    }

    /// A segment left with `in_flight` packets outstanding (including it).
    pub fn on_send(&mut self, now: SimTime, in_flight: u32, snd_cwnd: u32) {
        if in_flight >= snd_cwnd {
            self.snd_cwnd_used = 0;
            self.snd_cwnd_stamp = now;
        } else {
            self.snd_cwnd_used = self.snd_cwnd_used.max(in_flight);
        }
    }

    /// Applies 002 L1750–1754 for every full RTO the window went unused. Returns true if cwnd
    /// was reduced.
    pub fn validate(&mut self, now: SimTime, rto: SimDuration, snd_cwnd: &mut u32, snd_ssthresh: &mut u32, floor: u32) -> bool {
        let mut steps = 0;
        while rto.as_nanos() > 0 && now.saturating_since(self.snd_cwnd_stamp) >= rto && steps < CWV_MAX_STEPS {
            steps += 1;
            let cwnd = *snd_cwnd;
            // 002 L1751: ssthresh <- max(ssthresh, 3/4 cwnd).
            *snd_ssthresh = (*snd_ssthresh).max(cwnd - cwnd / 4);
            // 002 L1752–1754: cwnd <- (used + cwnd) / 2.
            let used = self.snd_cwnd_used;
            let lower = if used == 0 { floor.min(cwnd) } else { 1 };
            *snd_cwnd = ((used + cwnd) / 2).max(lower).max(1);
            self.snd_cwnd_used = 0;
            self.snd_cwnd_stamp += rto;
        }
        if steps == CWV_MAX_STEPS {
            self.snd_cwnd_stamp = now;
        }
        steps > 0
    }
}

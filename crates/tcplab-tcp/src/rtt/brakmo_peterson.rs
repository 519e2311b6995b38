//! Brakmo & Peterson's fix to the 4.4BSD-Lite estimator: larger scaling factors, so that the
//! mean deviation decays under repeated equal samples.
//!
//! 000 §4.1: "Brakmo and Peterson \[5\] have shown that due to limited precision of the C
//! implementation, the mean deviation estimator does not decay even when repeated RTT
//! measurements with the same value are made ... \[they\] also propose a fix for the second
//! problem described above by using larger scaling factors ... the estimated RTO frequently
//! is 3 ticks while sometimes it does get as low as 2 ticks".
//!
//! The fix as it entered the BSDs (FreeBSD `tcp_xmit_timer` / `TCP_REXMTVAL`, tcp_var.h):
//! t_srtt scaled by 32 (`TCP_RTT_SHIFT` 5), t_rttvar by 16 (`TCP_RTTVAR_SHIFT` 4), and the
//! update done with `TCP_DELTA_SHIFT` 2 extra fraction bits:
//!
//! ```text
//! delta   = ((rtt - 1) << TCP_DELTA_SHIFT) - (t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT))
//! t_srtt += delta                                   (>= 1)
//! t_rttvar += |delta| - (t_rttvar >> (TCP_RTTVAR_SHIFT - TCP_DELTA_SHIFT))   (>= 1)
//! TCP_REXMTVAL = max(t_rttmin, ((t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT)) + t_rttvar)
//!                               >> TCP_DELTA_SHIFT)
//! first sample: t_srtt = rtt << TCP_RTT_SHIFT, t_rttvar = rtt << (TCP_RTTVAR_SHIFT - 1)
//! ```
//!
//! Everything else (the +1 tick, `TCPT_RANGESET` with `TCPTV_MIN` = 2 ticks, the backoff
//! table, discarding srtt after `TCP_MAXRXTSHIFT / 4` backoffs) is 4.4BSD-Lite's; see
//! [`super::bsd_lite`]. Started fresh, this reproduces the RTO_B column of 000 Fig. 6
//! exactly (test `fig6` in [`super::decoupled`]).
//!
//! Ambiguities resolved:
//! - **Which version of the fix.** Brakmo & Peterson's paper is not among the sources; the
//!   constants are those the BSDs adopted (above). The later FreeBSD lower bound
//!   `max(t_rttmin, rtt + 2)` in `TCPT_RANGESET` is *not* included: it is not part of the
//!   1995 fix and would give 3 instead of 2 ticks in rows 10–11 of Fig. 6.
//! - **Initial state.** `t_rttvar` starts so that `TCP_REXMTVAL` equals 4.4BSD-Lite's
//!   (24 ticks with BSD values), i.e. the fix changes the estimator, not the SYN timeouts.
//! - **Discarding srtt after many backoffs.** The rttvar increment keeps `TCP_REXMTVAL`
//!   unchanged (t_rttvar += t_srtt >> (TCP_RTT_SHIFT − TCP_DELTA_SHIFT)), which is what the
//!   4.4BSD-Lite statement achieves at its own scaling.

use super::bsd_lite::{tcp_backoff, tcpt_rangeset, TickBounds, RTT_TICKS_MAX, TCP_MAXRXTSHIFT, T_RTT_START};
use super::{RttEstimator, RttSampleEvent};
use crate::clock::MeasurementClock;
use crate::config::RtoConfig;
use tcplab_time::SimDuration;

/// t_srtt is scaled by 32.
pub const TCP_RTT_SHIFT: u32 = 5;
/// t_rttvar is scaled by 16.
pub const TCP_RTTVAR_SHIFT: u32 = 4;
/// Extra fraction bits of `delta`.
pub const TCP_DELTA_SHIFT: u32 = 2;

/// The 4.4BSD-Lite estimator with Brakmo & Peterson's scaling.
#[derive(Clone, Debug)]
pub struct BrakmoPeterson {
    clock: MeasurementClock,
    bounds: TickBounds,
    /// `t_srtt`: ticks × 32; 0 = no estimate.
    t_srtt: i64,
    /// `t_rttvar`: ticks × 16.
    t_rttvar: i64,
    t_rxtshift: u32,
    /// `t_rxtcur` in ticks.
    t_rxtcur: i64,
}

impl BrakmoPeterson {
    pub fn new(cfg: &RtoConfig, clock: MeasurementClock) -> Self {
        let bounds = TickBounds::new(cfg, clock.tick);
        // REXMTVAL with t_srtt = 0 is t_rttvar >> TCP_DELTA_SHIFT: make it 2 * initial, as in
        // 4.4BSD-Lite.
        let t_rttvar = bounds.initial.saturating_mul(2) << TCP_DELTA_SHIFT;
        BrakmoPeterson { clock, bounds, t_srtt: 0, t_rttvar, t_rxtshift: 0, t_rxtcur: bounds.initial }
    }

    /// `TCP_REXMTVAL(tp)` in ticks (including its max with t_rttmin).
    #[inline]
    pub fn rexmtval(&self) -> i64 {
        let v = (self.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT)).saturating_add(self.t_rttvar) >> TCP_DELTA_SHIFT;
        v.max(self.bounds.t_rttmin)
    }

    /// `tcp_xmit_timer(tp, rtt)`, `rtt` including the +1 tick.
    pub fn tcp_xmit_timer(&mut self, rtt: i64) {
        let rtt = rtt.clamp(T_RTT_START, RTT_TICKS_MAX + T_RTT_START);
        if self.t_srtt != 0 {
            let mut delta = ((rtt - 1) << TCP_DELTA_SHIFT) - (self.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT));
            self.t_srtt = self.t_srtt.saturating_add(delta);
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs();
            delta -= self.t_rttvar >> (TCP_RTTVAR_SHIFT - TCP_DELTA_SHIFT);
            self.t_rttvar = self.t_rttvar.saturating_add(delta);
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = rtt << TCP_RTT_SHIFT;
            self.t_rttvar = rtt << (TCP_RTTVAR_SHIFT - 1);
        }
        self.t_rxtshift = 0;
        self.t_rxtcur = tcpt_rangeset(self.rexmtval(), self.bounds.t_rttmin, self.bounds.rexmtmax);
    }

    pub fn t_rxtcur(&self) -> i64 {
        self.t_rxtcur
    }
    pub fn scaled_state(&self) -> (i64, i64) {
        (self.t_srtt, self.t_rttvar)
    }

    fn scaled_duration(&self, v: i64, shift: u32) -> SimDuration {
        let ns = (u128::from(v.max(0).unsigned_abs()) * u128::from(self.clock.tick.as_nanos().max(1))) >> shift;
        SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

impl RttEstimator for BrakmoPeterson {
    fn on_sample(&mut self, ev: &RttSampleEvent) {
        let ticks = i64::try_from(self.clock.sample_ticks(ev.now, ev.rtt)).unwrap_or(RTT_TICKS_MAX).min(RTT_TICKS_MAX);
        self.tcp_xmit_timer(ticks + T_RTT_START);
    }
    fn on_timeout(&mut self) {
        if self.t_rxtshift < TCP_MAXRXTSHIFT {
            self.t_rxtshift += 1;
        }
        let rexmt = self.rexmtval().saturating_mul(tcp_backoff(self.t_rxtshift));
        self.t_rxtcur = tcpt_rangeset(rexmt, self.bounds.t_rttmin, self.bounds.rexmtmax);
        if self.t_rxtshift > TCP_MAXRXTSHIFT / 4 {
            self.t_rttvar = self.t_rttvar.saturating_add(self.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT));
            self.t_srtt = 0;
        }
    }
    fn on_handshake_retransmitted(&mut self) {}
    fn rto(&self) -> SimDuration {
        self.clock.duration(self.t_rxtcur.max(0).unsigned_abs())
    }
    fn srtt(&self) -> Option<SimDuration> {
        (self.t_srtt != 0).then(|| self.scaled_duration(self.t_srtt, TCP_RTT_SHIFT))
    }
    fn rttvar(&self) -> Option<SimDuration> {
        (self.t_srtt != 0).then(|| self.scaled_duration(self.t_rttvar, TCP_RTTVAR_SHIFT))
    }
    fn backoff(&self) -> u32 {
        self.t_rxtshift
    }
    fn clone_box(&self) -> Box<dyn RttEstimator> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bp() -> BrakmoPeterson {
        let cfg = RtoConfig {
            initial: SimDuration::from_secs(6),
            min: SimDuration::from_secs(1),
            max: SimDuration::from_secs(64),
            ..RtoConfig::default()
        };
        BrakmoPeterson::new(&cfg, MeasurementClock::every(SimDuration::from_millis(500)))
    }

    // 000 §4.1: with the larger scaling the deviation decays and the RTO reaches 2 ticks for
    // repeated sub-tick samples (where 4.4BSD-Lite stays at 3).
    #[test]
    fn repeated_equal_samples_let_the_timeout_decay_to_two_ticks() {
        let mut e = bp();
        for _ in 0..50 {
            e.tcp_xmit_timer(1);
        }
        assert_eq!(e.t_rxtcur(), 2);
    }

    #[test]
    fn the_first_sample_gives_three_times_the_rtt() {
        let mut e = bp();
        e.tcp_xmit_timer(2);
        assert_eq!(e.scaled_state(), (64, 16));
        assert_eq!(e.t_rxtcur(), 6);
    }

    #[test]
    fn backoff_follows_tcp_backoff_and_stops_at_64_seconds() {
        let mut e = bp();
        e.tcp_xmit_timer(2); // t_rxtcur 6
        e.on_timeout();
        assert_eq!((e.backoff(), e.t_rxtcur()), (1, 12));
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(64));
        e.tcp_xmit_timer(1);
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn the_syn_timeouts_are_those_of_bsd_lite() {
        let mut e = bp();
        assert_eq!(e.rto(), SimDuration::from_secs(6));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_secs(24));
    }
}

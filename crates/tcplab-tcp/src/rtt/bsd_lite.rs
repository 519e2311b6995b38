//! 4.4BSD-Lite ("TCP Lite") retransmission-timer estimator, in ticks of the measurement
//! clock (BSD: the 500 ms slow timer, `PR_SLOWHZ` = 2).
//!
//! Sources: 000 §4.1 eq. 1 and TCP/IP Illustrated Vol. 2 ch. 25 (`tcp_xmit_timer`,
//! `tcp_timers`, `tcp_newtcpcb`, `TCPT_RANGESET`, `TCP_REXMTVAL`).
//!
//! 000 eq. 1: "Err ≡ m − (sa >> 3); sa ← sa + Err; sd ← sd + (|Err| − (sd >> 2));
//! rto ← (sa >> 3) + sd", with sa = t_srtt (scaled by 8, `TCP_RTT_SHIFT` 3) and sd = t_rttvar
//! (scaled by 4, `TCP_RTTVAR_SHIFT` 2). In the BSD code:
//! - timing starts with `t_rtt = 1` and `tcp_slowtimo` increments it on every tick, so the
//!   sample handed to `tcp_xmit_timer` is 1 + the ticks that passed (the "+1 tick"; with
//!   timestamps `tcp_now − ts_ecr + 1`); the update then uses `rtt − 1` ("adjust rtt to
//!   origin 0");
//! - the first sample sets `t_srtt = rtt << 3` and `t_rttvar = rtt << 1` (so the first
//!   retransmit happens at 3·rtt) — note: `rtt`, not `rtt − 1`;
//! - `t_srtt` and `t_rttvar` are kept ≥ 1 after an update;
//! - `TCPT_RANGESET(t_rxtcur, TCP_REXMTVAL(tp), t_rttmin, TCPTV_REXMTMAX)` with
//!   `TCP_REXMTVAL = (t_srtt >> 3) + t_rttvar` and `t_rttmin = TCPTV_MIN` = 2 ticks;
//! - on a timeout `t_rxtshift` grows (at most `TCP_MAXRXTSHIFT` = 12) and
//!   `t_rxtcur = RANGESET(REXMTVAL · tcp_backoff[t_rxtshift])`; past `TCP_MAXRXTSHIFT / 4`
//!   backoffs the estimate is discarded (`t_rttvar += t_srtt >> 3; t_srtt = 0`);
//! - `tcp_newtcpcb` starts with `t_srtt = 0`, `t_rttvar = TCPTV_SRTTDFLT << 2` (24) and
//!   `t_rxtcur = ((0 >> 2) + (TCPTV_SRTTDFLT << 2)) >> 1` = 12 ticks = 6 s, which gives the
//!   classic SYN timeouts of 6, 24 and 48 s.
//!
//! Ambiguities resolved:
//! - **Configured bounds.** `t_rttmin` = ⌈min RTO / tick⌉ (1 s → 2 ticks), `TCPTV_REXMTMAX` =
//!   ⌊max RTO / tick⌋ (64 s → 128 ticks) and the initial `t_rxtcur` = ⌈initial RTO / tick⌉
//!   (6 s → 12 ticks); the initial `t_rttvar` is twice the initial `t_rxtcur`, which is
//!   `TCPTV_SRTTDFLT << 2` for BSD's own values.
//! - **No drop.** BSD drops the connection after `TCP_MAXRXTSHIFT` backoffs; tcplab keeps the
//!   last backoff (64) and goes on retransmitting (the engine never aborts).
//! - **Overflow.** BSD keeps these values in `short`s; a sample is capped at
//!   [`RTT_TICKS_MAX`] ticks and all arithmetic saturates.
//! - **No RFC 6298 (5.7).** BSD does not reset the RTO after a retransmitted SYN.
//! - `srtt()` / `rttvar()` report t_srtt/8 and t_rttvar/4 ticks as durations.

use super::{RttEstimator, RttSampleEvent};
use crate::clock::MeasurementClock;
use crate::config::RtoConfig;
use tcplab_time::SimDuration;

/// `TCP_RTT_SHIFT`: t_srtt is scaled by 8 (tcp_var.h).
pub const TCP_RTT_SHIFT: u32 = 3;
/// `TCP_RTTVAR_SHIFT`: t_rttvar is scaled by 4 (tcp_var.h).
pub const TCP_RTTVAR_SHIFT: u32 = 2;
/// `TCPTV_MIN`: the minimum retransmit timeout, 2 slow ticks = 1 s (tcp_timer.h).
pub const TCPTV_MIN: i64 = 2;
/// `TCPTV_SRTTDFLT`: the assumed RTT without data, 3 s = 6 slow ticks (tcp_timer.h).
pub const TCPTV_SRTTDFLT: i64 = 6;
/// `TCPTV_REXMTMAX`: the maximum retransmit timeout, 64 s = 128 slow ticks (tcp_timer.h).
pub const TCPTV_REXMTMAX: i64 = 128;
/// `TCP_MAXRXTSHIFT`: at most 12 backoffs (tcp_timer.h).
pub const TCP_MAXRXTSHIFT: u32 = 12;
/// `tcp_backoff[]` (tcp_timer.c).
pub const TCP_BACKOFF: [i64; TCP_MAXRXTSHIFT as usize + 1] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];
/// The "+1 tick": `t_rtt` is 1 when timing starts (tcp_output.c), so a sample is ticks + 1.
pub const T_RTT_START: i64 = 1;
/// tcplab cap on one sample, in ticks (BSD's `short` would overflow long before).
pub const RTT_TICKS_MAX: i64 = 1 << 24;

/// `TCPT_RANGESET(tv, value, tvmin, tvmax)`: min first, then max, exactly as the macro.
#[inline]
pub fn tcpt_rangeset(value: i64, tvmin: i64, tvmax: i64) -> i64 {
    if value < tvmin {
        tvmin
    } else if value > tvmax {
        tvmax
    } else {
        value
    }
}

/// `tcp_backoff[shift]` (shift capped at `TCP_MAXRXTSHIFT`).
#[inline]
pub fn tcp_backoff(shift: u32) -> i64 {
    TCP_BACKOFF[shift.min(TCP_MAXRXTSHIFT) as usize]
}

/// Bounds shared by the tick-based BSD estimators, from the configured RTO bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TickBounds {
    /// `t_rttmin` in ticks.
    pub t_rttmin: i64,
    /// `TCPTV_REXMTMAX` in ticks.
    pub rexmtmax: i64,
    /// Initial `t_rxtcur` in ticks.
    pub initial: i64,
}

impl TickBounds {
    /// ⌈min / tick⌉, ⌊max / tick⌋, ⌈initial / tick⌉ (module docs).
    pub fn new(cfg: &RtoConfig, tick: SimDuration) -> TickBounds {
        let t = tick.as_nanos().max(1);
        let cap = |v: u64| i64::try_from(v).unwrap_or(i64::MAX).min(RTT_TICKS_MAX << 8);
        let t_rttmin = cap(cfg.min.as_nanos().div_ceil(t)).max(1);
        let rexmtmax = cap(cfg.max.as_nanos() / t).max(t_rttmin);
        let initial = tcpt_rangeset(cap(cfg.initial.as_nanos().div_ceil(t)), t_rttmin, rexmtmax);
        TickBounds { t_rttmin, rexmtmax, initial }
    }
}

/// The integer scaling of a BSD tick estimator: how many fraction bits `t_srtt` and
/// `t_rttvar` keep, and how many extra bits the update's `delta` carries. 4.4BSD-Lite and
/// Brakmo & Peterson's fix are the same algorithm (000 eq. 1) at different scalings.
pub trait BsdScaling: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// `TCP_RTT_SHIFT`: t_srtt is kept in ticks × 2^RTT_SHIFT.
    const RTT_SHIFT: u32;
    /// `TCP_RTTVAR_SHIFT`: t_rttvar is kept in ticks × 2^RTTVAR_SHIFT.
    const RTTVAR_SHIFT: u32;
    /// `TCP_DELTA_SHIFT`: extra fraction bits of `delta` (0 in 4.4BSD-Lite).
    const DELTA_SHIFT: u32;
    /// Whether `TCP_REXMTVAL` itself is floored at `t_rttmin` (it is in the Brakmo-Peterson
    /// form, so a backed-off timeout starts from at least `t_rttmin`; 4.4BSD-Lite floors only
    /// in `TCPT_RANGESET`, after the backoff multiplication).
    const REXMTVAL_FLOOR: bool;
}

/// 4.4BSD-Lite's scaling (tcp_var.h): t_srtt × 8, t_rttvar × 4, no extra delta bits.
#[derive(Clone, Copy, Debug)]
pub struct LiteScaling;

impl BsdScaling for LiteScaling {
    const RTT_SHIFT: u32 = TCP_RTT_SHIFT;
    const RTTVAR_SHIFT: u32 = TCP_RTTVAR_SHIFT;
    const DELTA_SHIFT: u32 = 0;
    const REXMTVAL_FLOOR: bool = false;
}

/// The 4.4BSD-Lite estimator.
pub type BsdLite = BsdTickEstimator<LiteScaling>;

/// A BSD scaled-integer estimator in ticks of the measurement clock (`tcp_xmit_timer`,
/// `TCP_REXMTVAL`, `tcp_timers`), at the scaling `S`.
#[derive(Clone, Debug)]
pub struct BsdTickEstimator<S: BsdScaling> {
    clock: MeasurementClock,
    bounds: TickBounds,
    /// `t_srtt`: smoothed RTT in ticks × 2^RTT_SHIFT; 0 = no estimate.
    t_srtt: i64,
    /// `t_rttvar`: smoothed mean deviation in ticks × 2^RTTVAR_SHIFT.
    t_rttvar: i64,
    /// `t_rxtshift`: backoffs in effect.
    t_rxtshift: u32,
    /// `t_rxtcur`: the current retransmit timeout in ticks.
    t_rxtcur: i64,
    scaling: std::marker::PhantomData<S>,
}

impl<S: BsdScaling> BsdTickEstimator<S> {
    pub fn new(cfg: &RtoConfig, clock: MeasurementClock) -> Self {
        let bounds = TickBounds::new(cfg, clock.tick);
        // tcp_newtcpcb: t_rttvar = TCPTV_SRTTDFLT << 2, t_rxtcur = (TCPTV_SRTTDFLT << 2) >> 1,
        // i.e. TCP_REXMTVAL with t_srtt = 0 is twice the initial timeout (at any scaling).
        let t_rttvar = bounds.initial.saturating_mul(2) << S::DELTA_SHIFT;
        Self {
            clock,
            bounds,
            t_srtt: 0,
            t_rttvar,
            t_rxtshift: 0,
            t_rxtcur: bounds.initial,
            scaling: std::marker::PhantomData,
        }
    }

    /// `TCP_REXMTVAL(tp)` in ticks: ((t_srtt >> (RTT_SHIFT − DELTA_SHIFT)) + t_rttvar) >>
    /// DELTA_SHIFT, i.e. (t_srtt >> 3) + t_rttvar in 4.4BSD-Lite.
    #[inline]
    pub fn rexmtval(&self) -> i64 {
        let v = (self.t_srtt >> (S::RTT_SHIFT - S::DELTA_SHIFT)).saturating_add(self.t_rttvar) >> S::DELTA_SHIFT;
        if S::REXMTVAL_FLOOR {
            v.max(self.bounds.t_rttmin)
        } else {
            v
        }
    }

    /// `tcp_xmit_timer(tp, rtt)` with `rtt` already including the +1 tick.
    pub fn tcp_xmit_timer(&mut self, rtt: i64) {
        let rtt = rtt.clamp(T_RTT_START, RTT_TICKS_MAX + T_RTT_START);
        if self.t_srtt != 0 {
            // 000 eq. 1, "adjust rtt to origin 0": Err = m − (sa >> 3); sa ← sa + Err.
            let mut delta = ((rtt - 1) << S::DELTA_SHIFT) - (self.t_srtt >> (S::RTT_SHIFT - S::DELTA_SHIFT));
            self.t_srtt = self.t_srtt.saturating_add(delta);
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            // 000 eq. 1: sd ← sd + (|Err| − (sd >> 2)).
            delta = delta.abs();
            delta -= self.t_rttvar >> (S::RTTVAR_SHIFT - S::DELTA_SHIFT);
            self.t_rttvar = self.t_rttvar.saturating_add(delta);
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            // No estimate yet: srtt = rtt, rttvar = rtt/2 (first retransmit at 3*rtt).
            self.t_srtt = rtt << S::RTT_SHIFT;
            self.t_rttvar = rtt << (S::RTTVAR_SHIFT - 1);
        }
        self.t_rxtshift = 0;
        self.t_rxtcur = tcpt_rangeset(self.rexmtval(), self.bounds.t_rttmin, self.bounds.rexmtmax);
    }

    /// `t_rxtcur` in ticks.
    pub fn t_rxtcur(&self) -> i64 {
        self.t_rxtcur
    }
    /// (`t_srtt`, `t_rttvar`) as stored (scaled).
    pub fn scaled_state(&self) -> (i64, i64) {
        (self.t_srtt, self.t_rttvar)
    }
    /// The (t_srtt, t_rttvar) state, for scripted vectors that start mid-connection.
    pub fn set_scaled_state(&mut self, t_srtt: i64, t_rttvar: i64) {
        self.t_srtt = t_srtt.max(0);
        self.t_rttvar = t_rttvar.max(1);
        self.t_rxtcur = tcpt_rangeset(self.rexmtval(), self.bounds.t_rttmin, self.bounds.rexmtmax);
    }

    fn ticks_to_duration(&self, scaled: i64, shift: u32) -> SimDuration {
        let ns = (u128::from(scaled.max(0).unsigned_abs()) * u128::from(self.clock.tick.as_nanos().max(1))) >> shift;
        SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

impl<S: BsdScaling> RttEstimator for BsdTickEstimator<S> {
    fn on_sample(&mut self, ev: &RttSampleEvent) {
        let ticks = i64::try_from(self.clock.sample_ticks(ev.now, ev.rtt)).unwrap_or(RTT_TICKS_MAX).min(RTT_TICKS_MAX);
        self.tcp_xmit_timer(ticks + T_RTT_START);
    }

    fn on_timeout(&mut self) {
        // tcp_timers, TCPT_REXMT.
        if self.t_rxtshift < TCP_MAXRXTSHIFT {
            self.t_rxtshift += 1;
        }
        let rexmt = self.rexmtval().saturating_mul(tcp_backoff(self.t_rxtshift));
        self.t_rxtcur = tcpt_rangeset(rexmt, self.bounds.t_rttmin, self.bounds.rexmtmax);
        if self.t_rxtshift > TCP_MAXRXTSHIFT / 4 {
            // "If we backed off this far, our srtt estimate is probably bogus": fold srtt into
            // rttvar (keeping TCP_REXMTVAL unchanged) and start over.
            self.t_rttvar = self.t_rttvar.saturating_add(self.t_srtt >> (S::RTT_SHIFT - S::DELTA_SHIFT));
            self.t_srtt = 0;
        }
    }

    fn on_handshake_retransmitted(&mut self) {}

    fn rto(&self) -> SimDuration {
        self.clock.duration(self.t_rxtcur.max(0).unsigned_abs())
    }
    fn srtt(&self) -> Option<SimDuration> {
        (self.t_srtt != 0).then(|| self.ticks_to_duration(self.t_srtt, S::RTT_SHIFT))
    }
    fn rttvar(&self) -> Option<SimDuration> {
        (self.t_srtt != 0).then(|| self.ticks_to_duration(self.t_rttvar, S::RTTVAR_SHIFT))
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
    use tcplab_time::SimTime;

    fn bsd() -> BsdLite {
        let cfg = RtoConfig {
            initial: SimDuration::from_secs(6),
            min: SimDuration::from_secs(1),
            max: SimDuration::from_secs(64),
            ..RtoConfig::default()
        };
        BsdLite::new(&cfg, MeasurementClock::every(SimDuration::from_millis(500)))
    }

    // tcp_newtcpcb: t_rxtcur = 12 ticks (6 s); tcp_timers: 24 ticks * 2, then * 4 (SYN
    // timeouts of 6, 24 and 48 s).
    #[test]
    fn a_fresh_connection_times_out_after_6_then_24_then_48_seconds() {
        let mut e = bsd();
        assert_eq!(e.rto(), SimDuration::from_secs(6));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_secs(24));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_secs(48));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_secs(64));
    }

    // tcp_xmit_timer first sample: t_srtt = rtt << 3, t_rttvar = rtt << 1, rtt including the
    // +1 tick.
    #[test]
    fn the_first_sample_of_zero_ticks_counts_as_one_and_gives_three_ticks() {
        let mut e = bsd();
        e.on_sample(&RttSampleEvent::at(SimTime(100_000_000), SimDuration::from_millis(60)));
        assert_eq!(e.scaled_state(), (8, 2));
        assert_eq!(e.t_rxtcur(), 3);
        assert_eq!(e.rto(), SimDuration::from_millis(1500));
    }

    // Brakmo & Peterson: with a constant sample t_rttvar stops decaying once t_rttvar >> 2 is
    // 0 — the estimate stays at 3 ticks for a sub-tick RTT.
    #[test]
    fn the_deviation_does_not_decay_below_three_for_constant_samples() {
        let mut e = bsd();
        for _ in 0..100 {
            e.tcp_xmit_timer(1);
        }
        assert_eq!(e.scaled_state(), (7, 3));
        assert_eq!(e.t_rxtcur(), 3);
    }

    // TCPT_RANGESET(.., t_rttmin = TCPTV_MIN, ..): never below 2 ticks.
    #[test]
    fn the_timeout_is_never_below_two_ticks() {
        let mut e = bsd();
        e.set_scaled_state(1, 1);
        e.tcp_xmit_timer(1);
        assert!(e.t_rxtcur() >= TCPTV_MIN);
    }

    // tcp_timers: backoff table, RANGESET to TCPTV_REXMTMAX; a sample resets t_rxtshift.
    #[test]
    fn backoff_follows_tcp_backoff_and_stops_at_64_seconds() {
        let mut e = bsd();
        e.tcp_xmit_timer(1); // t_rxtcur 3, REXMTVAL 3
        e.on_timeout();
        assert_eq!((e.backoff(), e.t_rxtcur()), (1, 6));
        e.on_timeout();
        assert_eq!(e.t_rxtcur(), 12);
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.backoff(), TCP_MAXRXTSHIFT);
        assert_eq!(e.rto(), SimDuration::from_secs(64));
        e.tcp_xmit_timer(1);
        assert_eq!(e.backoff(), 0);
    }

    // tcp_timers: after more than TCP_MAXRXTSHIFT/4 backoffs the srtt is discarded and the
    // next sample is taken as the first.
    #[test]
    fn after_four_backoffs_the_smoothed_rtt_is_discarded() {
        let mut e = bsd();
        e.tcp_xmit_timer(3);
        for _ in 0..4 {
            e.on_timeout();
        }
        assert_eq!(e.scaled_state().0, 0);
        assert_eq!(e.srtt(), None);
        e.tcp_xmit_timer(2);
        assert_eq!(e.scaled_state(), (16, 4));
    }

    #[test]
    fn extreme_samples_do_not_overflow() {
        let mut e = bsd();
        e.on_sample(&RttSampleEvent::at(SimTime(u64::MAX), SimDuration(u64::MAX)));
        e.on_sample(&RttSampleEvent::at(SimTime(u64::MAX), SimDuration(0)));
        for _ in 0..40 {
            e.on_timeout();
        }
        assert!(e.rto() <= SimDuration::from_secs(64));
    }
}

//! Aron & Druschel's decoupled estimator: measure with a fine clock, schedule with the event
//! clock (000 §4.1).
//!
//! 000 §4.1: "After measuring time in ticks corresponding to the f_rtt clock, Equation 1 is
//! used to compute rto. ... The actual timeout rto_ev value is computed using the following
//! equation: rto_ev ← MAX(2, ⌈rto · f_ev / f_rtt⌉ + 1) (2) ... The increment by one accounts
//! for the fact that packet transmissions may not coincide with any clock tick in BSD
//! implementations."
//!
//! 000 §4.1, last paragraph: "even if a fine-grained clock is provided by the OS to schedule
//! events, a lower bound of at least 200ms should be observed ... we set this lower bound to
//! (200ms + rtt) where rtt gives the average round-trip time and is obtained from sa".
//!
//! Eq. 1 is run exactly as 4.4BSD-Lite runs it (the +1 tick, first sample sa = rtt << 3 and
//! sd = rtt << 1 — 000 footnote 9: "BSD implementations set the initial values of sa and sd so
//! as to give a value of rto that is three times as large as the measured RTT"), but on f_rtt
//! ticks; see [`super::bsd_lite`]. With f_rtt = 1000 Hz and f_ev = 2 Hz this reproduces the
//! RTO_Nf and RTO_Nc columns of 000 Fig. 6 exactly (test `tests::fig6`).
//!
//! Ambiguities resolved:
//! - **Where the lower bound applies.** Always: RTO = max(rto_ev / f_ev, 200 ms + srtt).
//!   With an event clock of 200 ms or coarser it never binds (rto_ev / f_ev ≥ rto + 1/f_ev ≥
//!   srtt + 200 ms), so it only matters "with a finer event scheduling clock", as the paper
//!   says.
//! - **Eq. 1 without a minimum.** The fine rto is not clamped to 2 f_rtt ticks (eq. 2's MAX(2,
//!   ..) is the minimum; Fig. 6's RTO_Nf values are unclamped).
//! - **Backoff** is 4.4BSD-Lite's, applied to rto_ev: `rto_ev · tcp_backoff[shift]`, bounded
//!   by 2 event ticks and the maximum RTO; srtt is discarded after `TCP_MAXRXTSHIFT / 4`
//!   backoffs as in `tcp_timers`.
//! - **Before the first sample** the timeout is the configured initial RTO rounded up to
//!   event ticks; sd starts at twice the initial RTO (in f_rtt ticks), so that, as in BSD, a
//!   timeout without any sample backs off from 2 × initial.
//! - **Event tick of a fine clock** is 1 ns: eq. 2 then adds 1 ns, i.e. RTO ≈ rto.
//! - **min/max RTO.** The result is kept within the configured [min RTO, max RTO] like every
//!   other estimator's. The `bsd-decoupled` profile's 1 s minimum is eq. 2's 2 ticks of the
//!   500 ms clock, so it never binds there; with a finer event clock set `min_rto` lower (the
//!   paper's own floor is then 200 ms + srtt).

use super::bsd_lite::{tcp_backoff, RTT_TICKS_MAX, TCP_MAXRXTSHIFT, TCP_RTTVAR_SHIFT, TCP_RTT_SHIFT, T_RTT_START};
use super::{RttEstimator, RttSampleEvent};
use crate::clock::MeasurementClock;
use crate::config::RtoConfig;
use tcplab_time::SimDuration;

/// 000 eq. 2: rto_ev is at least 2 event ticks.
pub const EQ2_MIN_TICKS: u64 = 2;
/// 000 eq. 2: "+1" event tick because transmissions do not coincide with clock ticks.
pub const EQ2_EXTRA_TICKS: u64 = 1;
/// 000 §4.1: "BSD TCP receivers can delay ACKs by 200ms" — the base of the lower bound
/// 200 ms + srtt.
pub const DELAYED_ACK_ALLOWANCE: SimDuration = SimDuration::from_millis(200);

/// 000 eq. 2 for an rto of `rto_rtt_ticks` f_rtt ticks: event ticks.
pub fn eq2(rto_rtt_ticks: u64, f_rtt_tick: SimDuration, f_ev_tick: SimDuration) -> u64 {
    let num = u128::from(rto_rtt_ticks) * u128::from(f_rtt_tick.as_nanos().max(1));
    let ev = u128::from(f_ev_tick.as_nanos().max(1));
    let ticks = u64::try_from(num.div_ceil(ev)).unwrap_or(u64::MAX);
    ticks.saturating_add(EQ2_EXTRA_TICKS).max(EQ2_MIN_TICKS)
}

/// The decoupled estimator.
#[derive(Clone, Debug)]
pub struct Decoupled {
    /// f_rtt.
    clock: MeasurementClock,
    /// 1 / f_ev of the clock the retransmission timer runs on.
    ev_tick: SimDuration,
    /// sa: smoothed RTT in f_rtt ticks × 8; 0 = no estimate.
    sa: i64,
    /// sd: mean deviation in f_rtt ticks × 4.
    sd: i64,
    t_rxtshift: u32,
    /// rto_ev after backoff, in event ticks.
    rto_ev: u64,
    /// Maximum RTO in event ticks.
    max_ev: u64,
    min: SimDuration,
    max: SimDuration,
}

impl Decoupled {
    pub fn new(cfg: &RtoConfig, clock: MeasurementClock, ev_tick: SimDuration) -> Self {
        let ev = ev_tick.as_nanos().max(1);
        let max_ev = (cfg.max.as_nanos() / ev).max(EQ2_MIN_TICKS);
        let initial_ev = cfg.initial.as_nanos().div_ceil(ev).clamp(1, max_ev);
        let initial_rtt_ticks = cfg.initial.as_nanos().div_ceil(clock.tick.as_nanos().max(1));
        let sd = i64::try_from(initial_rtt_ticks.saturating_mul(2)).unwrap_or(i64::MAX).min(RTT_TICKS_MAX << 8);
        Decoupled { clock, ev_tick: SimDuration(ev), sa: 0, sd, t_rxtshift: 0, rto_ev: initial_ev, max_ev, min: cfg.min, max: cfg.max }
    }

    /// 000 eq. 1: rto = (sa >> 3) + sd, in f_rtt ticks.
    pub fn rto_fine(&self) -> u64 {
        ((self.sa >> TCP_RTT_SHIFT).saturating_add(self.sd)).max(0).unsigned_abs()
    }
    /// rto_ev in event ticks (including backoff).
    pub fn rto_ev(&self) -> u64 {
        self.rto_ev
    }

    /// 000 eq. 1 for a sample of `rtt` f_rtt ticks (including the +1 tick).
    pub fn update(&mut self, rtt: i64) {
        let m = rtt.clamp(T_RTT_START, RTT_TICKS_MAX + T_RTT_START);
        if self.sa != 0 {
            // Err ≡ m − (sa >> 3) (origin 0: m − 1); sa ← sa + Err; sd ← sd + (|Err| − (sd >> 2))
            let err = m - 1 - (self.sa >> TCP_RTT_SHIFT);
            self.sa = self.sa.saturating_add(err);
            if self.sa <= 0 {
                self.sa = 1;
            }
            self.sd = self.sd.saturating_add(err.abs() - (self.sd >> TCP_RTTVAR_SHIFT));
            if self.sd <= 0 {
                self.sd = 1;
            }
        } else {
            self.sa = m << TCP_RTT_SHIFT;
            self.sd = m << (TCP_RTTVAR_SHIFT - 1);
        }
        self.t_rxtshift = 0;
        self.rto_ev = eq2(self.rto_fine(), self.clock.tick, self.ev_tick).min(self.max_ev);
    }

    fn lower_bound(&self) -> SimDuration {
        match self.srtt() {
            Some(s) => DELAYED_ACK_ALLOWANCE + s,
            None => SimDuration::ZERO,
        }
    }
}

impl RttEstimator for Decoupled {
    fn on_sample(&mut self, ev: &RttSampleEvent) {
        let ticks = i64::try_from(self.clock.sample_ticks(ev.now, ev.rtt)).unwrap_or(RTT_TICKS_MAX).min(RTT_TICKS_MAX);
        self.update(ticks + T_RTT_START);
    }
    fn on_timeout(&mut self) {
        if self.t_rxtshift < TCP_MAXRXTSHIFT {
            self.t_rxtshift += 1;
        }
        let base = eq2(self.rto_fine(), self.clock.tick, self.ev_tick);
        let b = tcp_backoff(self.t_rxtshift).max(1).unsigned_abs();
        self.rto_ev = base.saturating_mul(b).clamp(EQ2_MIN_TICKS, self.max_ev);
        if self.t_rxtshift > TCP_MAXRXTSHIFT / 4 {
            self.sd = self.sd.saturating_add(self.sa >> TCP_RTT_SHIFT);
            self.sa = 0;
        }
    }
    fn on_handshake_retransmitted(&mut self) {}
    fn rto(&self) -> SimDuration {
        let ev = SimDuration(self.rto_ev.saturating_mul(self.ev_tick.as_nanos()));
        ev.max(self.lower_bound()).max(self.min).min(self.max)
    }
    fn srtt(&self) -> Option<SimDuration> {
        (self.sa != 0).then(|| {
            let ns = (u128::from(self.sa.unsigned_abs()) * u128::from(self.clock.tick.as_nanos().max(1))) >> TCP_RTT_SHIFT;
            SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
        })
    }
    fn rttvar(&self) -> Option<SimDuration> {
        (self.sa != 0).then(|| {
            let ns = (u128::from(self.sd.max(0).unsigned_abs()) * u128::from(self.clock.tick.as_nanos().max(1))) >> TCP_RTTVAR_SHIFT;
            SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
        })
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
    use super::super::{BrakmoPeterson, BsdLite};
    use super::*;
    use tcplab_time::SimTime;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }
    fn bsd_cfg() -> RtoConfig {
        RtoConfig { initial: SimDuration::from_secs(6), min: SimDuration::from_secs(1), max: SimDuration::from_secs(64), ..RtoConfig::default() }
    }

    /// 000 Fig. 6 "Sample RTO computation": RTT_c (500 ms ticks), RTO_O, RTO_B (500 ms
    /// ticks), RTT_f (1 ms), RTO_Nf (1 ms), RTO_Nc (500 ms ticks).
    const FIG6: [(i64, i64, i64, i64, u64, u64); 12] = [
        (0, 3, 3, 60, 183, 2),
        (0, 3, 3, 150, 253, 2),
        (1, 5, 3, 60, 218, 2),
        (0, 4, 3, 60, 190, 2),
        (0, 3, 3, 61, 167, 2),
        (0, 3, 3, 60, 150, 2),
        (0, 3, 3, 61, 135, 2),
        (0, 3, 3, 60, 123, 2),
        (0, 3, 3, 60, 114, 2),
        (0, 3, 2, 61, 105, 2),
        (0, 3, 2, 60, 99, 2),
        (1, 5, 3, 61, 93, 2),
    ];

    /// Every column of 000 Fig. 6 from fresh estimators.
    ///
    /// Initialisation: the figure is the connection's *first* twelve samples. Row 1 is the
    /// first sample (RTO_Nf = 183 = 3 × 61 is footnote 9's "three times as large as the
    /// measured RTT", with the +1 tick: 60 ms measured → rtt = 61); the same start gives
    /// RTO_O and RTO_B. Each sample is fed as the count of clock ticks plus BSD's +1 tick
    /// (`t_rtt` starts at 1), which is what `tcp_xmit_timer` receives.
    ///
    /// Why this start and no other: RTO_Nf = 183 in row 1 can only be a first sample (a later
    /// sample of 60 ms would move sa by at most (60 − sa/8)/8). For RTO_O the state reached
    /// after the first two rows (t_srtt = 7, t_rttvar = 3) is the fixed point of 0-tick
    /// samples, so any history of 0-tick samples would also give 3, 3 in rows 1–2; the fresh
    /// start is the one consistent with all columns being one connection's samples.
    ///
    /// Result: RTO_O (4.4BSD-Lite), RTO_B (Brakmo–Peterson scaling as adopted by the BSDs,
    /// ×32/×16 with TCP_DELTA_SHIFT 2), RTO_Nf (eq. 1 on 1 ms ticks) and RTO_Nc (eq. 2 with
    /// f_rtt = 1000 Hz, f_ev = 2 Hz) all match exactly.
    #[test]
    fn fig6() {
        let mut o = BsdLite::new(&bsd_cfg(), MeasurementClock::every(ms(500)));
        let mut b = BrakmoPeterson::new(&bsd_cfg(), MeasurementClock::every(ms(500)));
        let mut n = Decoupled::new(&bsd_cfg(), MeasurementClock::every(ms(1)), ms(500));
        for (row, &(rtt_c, rto_o, rto_b, rtt_f, rto_nf, rto_nc)) in FIG6.iter().enumerate() {
            o.tcp_xmit_timer(rtt_c + 1);
            b.tcp_xmit_timer(rtt_c + 1);
            n.update(rtt_f + 1);
            assert_eq!(o.t_rxtcur(), rto_o, "RTO_O row {}", row + 1);
            assert_eq!(b.t_rxtcur(), rto_b, "RTO_B row {}", row + 1);
            assert_eq!(n.rto_fine(), rto_nf, "RTO_Nf row {}", row + 1);
            assert_eq!(n.rto_ev(), rto_nc, "RTO_Nc row {}", row + 1);
        }
    }

    /// Fig. 6 again, through the `RttEstimator` API with measured intervals: RTT_c = 0 is an
    /// interval that crosses no 500 ms boundary, 1 one that crosses one.
    #[test]
    fn fig6_through_measured_intervals() {
        let mut o = BsdLite::new(&bsd_cfg(), MeasurementClock::every(ms(500)));
        let mut n = Decoupled::new(&bsd_cfg(), MeasurementClock::every(ms(1)), ms(500));
        for &(rtt_c, rto_o, _, rtt_f, rto_nf, rto_nc) in FIG6.iter() {
            // Send at 10 ms past a boundary (1010 ms), or 10 ms before one (990 ms).
            let sent = if rtt_c == 0 { 1010 } else { 490 };
            let now = SimTime((sent + rtt_f as u64) * 1_000_000);
            o.on_sample(&RttSampleEvent::at(now, ms(rtt_f as u64)));
            n.on_sample(&RttSampleEvent::at(now, ms(rtt_f as u64)));
            assert_eq!(o.rto(), ms(500 * rto_o as u64));
            assert_eq!(n.rto_fine(), rto_nf);
            assert_eq!(n.rto(), ms(500 * rto_nc));
        }
    }

    // 000 eq. 2 examples: 183 ms on a 500 ms clock is 1 tick + 1; never below 2.
    #[test]
    fn eq2_rounds_up_and_adds_one_tick_with_a_minimum_of_two() {
        assert_eq!(eq2(183, ms(1), ms(500)), 2);
        assert_eq!(eq2(0, ms(1), ms(500)), 2);
        assert_eq!(eq2(501, ms(1), ms(500)), 3);
        assert_eq!(eq2(1000, ms(1), ms(500)), 3);
        assert_eq!(eq2(183, ms(1), ms(10)), 20);
    }

    // 000 §4.1 last paragraph: with a fine event clock the timeout is at least 200 ms + srtt.
    #[test]
    fn with_a_10ms_event_clock_the_timeout_is_200ms_plus_srtt() {
        let cfg = RtoConfig { min: SimDuration::ZERO, ..bsd_cfg() };
        let mut e = Decoupled::new(&cfg, MeasurementClock::every(ms(1)), ms(10));
        for _ in 0..50 {
            e.update(61);
        }
        let srtt = e.srtt().unwrap_or_default();
        // sa settles at 487 (60.875 ms): eq. 1 truncates.
        assert_eq!(srtt, SimDuration::from_micros(60_875));
        // eq. 1 converges to about 60 + 4 * small; eq. 2 gives a few 10 ms ticks; the bound
        // 200 ms + srtt dominates.
        assert!(e.rto_ev() * 10 < 260, "rto_ev {}", e.rto_ev());
        assert_eq!(e.rto(), ms(200) + srtt);
    }

    #[test]
    fn backoff_multiplies_the_event_ticks_and_stops_at_the_maximum() {
        let mut e = Decoupled::new(&bsd_cfg(), MeasurementClock::every(ms(1)), ms(500));
        e.update(61);
        assert_eq!(e.rto_ev(), 2);
        e.on_timeout();
        assert_eq!(e.rto(), ms(2000));
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(64));
    }

    #[test]
    fn before_any_sample_the_initial_rto_is_used() {
        let e = Decoupled::new(&bsd_cfg(), MeasurementClock::every(ms(1)), ms(500));
        assert_eq!(e.rto(), SimDuration::from_secs(6));
        assert_eq!(e.srtt(), None);
    }
}

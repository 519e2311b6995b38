//! RFC 6298 "Computing TCP's Retransmission Timer", with every parameter of 003 §II exposed.
//!
//! 003 §II: "RTO = m * srtt + k * rttvar, where srtt = (1 - b) * srtt + b * rtt;
//! rttvar = (1 - a) * rttvar + a * |srtt - rtt| ... set to minRTO if the value computed above
//! is smaller". RFC 6298 is a = beta = 1/4, b = alpha = 1/8, m = 1, k = K = 4, with the clock
//! granularity G in RTO = SRTT + max(G, K*RTTVAR).
//!
//! Arithmetic is in integer nanoseconds with exact fractions ([`Ratio`]): with the defaults the
//! updates are `(7*SRTT + R)/8` and `(3*RTTVAR + |SRTT-R|)/4` (RTTVAR first, with the old SRTT,
//! as (2.3) requires) — the same integers as before a, b, m, k were exposed.
//!
//! Ambiguities resolved:
//! - RFC 7323 Appendix G suggests scaling alpha/beta by the number of samples per RTT when
//!   timestamps give a sample per ACK; tcplab does not (as Linux and the BSDs do not) — every
//!   sample is weighted b.
//! - m multiplies SRTT only: RTO = m·SRTT + max(G, k·RTTVAR) (003's formula plus RFC 6298's
//!   G term).
//! - With a coarse measurement clock (OS variants of 003 Table I), a sample is the number of
//!   clock ticks that passed, times the tick (truncation like a tick counter); with the
//!   default exact clock the sample is used as measured.
//! - The first sample initialises SRTT = R and RTTVAR = R/2 whatever a and b are (RFC 6298
//!   (2.2)).

use crate::clock::{MeasurementClock, FINE_TICK};
use crate::config::Ratio;

use super::{RttEstimator, RttSampleEvent};
use crate::config::RtoConfig;
use tcplab_time::SimDuration;

/// RFC 6298 §2: alpha = 1/8 as the divisor of the SRTT update.
pub const ALPHA_DIV: u64 = 8;
/// RFC 6298 §2: beta = 1/4 as the divisor of the RTTVAR update.
pub const BETA_DIV: u64 = 4;
/// RFC 6298 §2: K = 4.
pub const K: u64 = 4;
/// 003 §II notation for the defaults above.
pub const DEFAULT_GAINS: (Ratio, Ratio, Ratio, Ratio) = (
    Ratio::new(1, BETA_DIV as u32),
    Ratio::new(1, ALPHA_DIV as u32),
    Ratio::new(1, 1),
    Ratio::new(K as u32, 1),
);
/// RFC 6298 (5.7): RTO when data transfer begins after a retransmitted SYN.
pub const RTO_AFTER_SYN_RETRANSMIT: SimDuration = SimDuration::from_secs(3);
/// Upper bound on the backoff exponent (the max clamp makes larger values meaningless).
pub const MAX_BACKOFF_SHIFT: u32 = 30;

/// The RFC 6298 estimator.
#[derive(Clone, Debug)]
pub struct Rfc6298 {
    cfg: RtoConfig,
    /// Clock the samples are counted with (exact by default).
    clock: MeasurementClock,
    srtt: Option<u64>,
    rttvar: u64,
    /// RTO before backoff, clamped to [min, max].
    base_rto: u64,
    backoff: u32,
}

impl Rfc6298 {
    pub fn new(cfg: RtoConfig) -> Self {
        Rfc6298::with_clock(cfg, MeasurementClock::FINE)
    }

    /// RFC 6298 whose samples are counted in ticks of `clock`.
    pub fn with_clock(cfg: RtoConfig, clock: MeasurementClock) -> Self {
        // RFC 6298 (2.1): until a measurement is made, RTO <- 1 second (configurable).
        let base_rto = cfg.initial.as_nanos();
        Rfc6298 { cfg, clock, srtt: None, rttvar: 0, base_rto, backoff: 0 }
    }

    /// The estimator [`super::build`] gives a configuration that selects RFC 6298: `cfg.rto`
    /// with samples counted by the configured measurement clock.
    pub fn for_config(cfg: &crate::config::TcpConfig) -> Self {
        Rfc6298::with_clock(cfg.rto, cfg.timers.rtt_clock)
    }

    fn clamp(&self, rto: u64) -> u64 {
        // RFC 6298 (2.4) round up to min; (2.5) cap at max.
        rto.max(self.cfg.min.as_nanos()).min(self.cfg.max.as_nanos())
    }
}

impl RttEstimator for Rfc6298 {
    fn on_sample(&mut self, ev: &RttSampleEvent) {
        let r = if self.clock.tick <= FINE_TICK {
            ev.rtt.as_nanos()
        } else {
            self.clock.duration(self.clock.sample_ticks(ev.now, ev.rtt)).as_nanos()
        };
        let g = self.cfg.granularity.as_nanos();
        match self.srtt {
            None => {
                // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2, RTO <- SRTT + max(G, K*RTTVAR)
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'|
                //                 SRTT <- (1 - alpha) * SRTT + alpha * R'
                // 003 §II: rttvar = (1 - a) * rttvar + a * |srtt - rtt|
                //          srtt = (1 - b) * srtt + b * rtt
                let delta = srtt.abs_diff(r);
                self.rttvar = self.cfg.gain_a.ewma(self.rttvar, delta);
                self.srtt = Some(self.cfg.gain_b.ewma(srtt, r));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        // 003 §II: RTO = m * srtt + k * rttvar (with RFC 6298's max(G, .) on the variance term).
        let var = g.max(self.cfg.k.of(self.rttvar));
        self.base_rto = self.clamp(self.cfg.m.of(srtt).saturating_add(var));
        // RFC 6298 §5 note after (5.7): a new sample collapses the backoff.
        self.backoff = 0;
    }

    fn on_timeout(&mut self) {
        // RFC 6298 (5.5): RTO <- RTO * 2 (the max of (2.5) applies when reading it).
        if self.backoff < MAX_BACKOFF_SHIFT {
            self.backoff += 1;
        }
    }

    fn on_handshake_retransmitted(&mut self) {
        // RFC 6298 (5.7): if the timer expired awaiting the SYN-ACK and RTO < 3 s, RTO is
        // re-initialised to 3 s when data transmission begins (no sample has been taken, by
        // Karn's rule the SYN gave none).
        if self.srtt.is_none() {
            self.base_rto = self.base_rto.max(RTO_AFTER_SYN_RETRANSMIT.as_nanos());
        }
        self.backoff = 0;
    }

    fn rto(&self) -> SimDuration {
        let max = self.cfg.max.as_nanos();
        let v = self.base_rto.checked_shl(self.backoff).filter(|v| v >> self.backoff == self.base_rto);
        SimDuration(v.unwrap_or(max).min(max))
    }
    fn srtt(&self) -> Option<SimDuration> {
        self.srtt.map(SimDuration)
    }
    fn rttvar(&self) -> Option<SimDuration> {
        self.srtt.map(|_| SimDuration(self.rttvar))
    }
    fn backoff(&self) -> u32 {
        self.backoff
    }
    fn clone_box(&self) -> Box<dyn RttEstimator> {
        Box::new(self.clone())
    }
    /// `build` gives this type exactly when `cfg` selects RFC 6298 (`rto_estimator`); the
    /// profiles' estimators that are RFC 6298 with other constants are rebuilt (their own
    /// `rto_estimator`).
    fn reset(&mut self, cfg: &crate::config::TcpConfig) -> bool {
        if cfg.rto_estimator != crate::config::RtoEstimatorKind::Rfc6298 {
            return false;
        }
        *self = Rfc6298::for_config(cfg);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_time::SimTime;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }
    fn sample(e: &mut Rfc6298, r: SimDuration) {
        e.on_sample(&RttSampleEvent::at(SimTime(0), r));
    }
    fn cfg_no_min() -> RtoConfig {
        RtoConfig { min: SimDuration::ZERO, ..RtoConfig::default() }
    }

    // RFC 6298 (2.1): until a RTT measurement has been made, RTO <- 1 second.
    #[test]
    fn initial_rto_is_one_second() {
        let e = Rfc6298::new(RtoConfig::default());
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        assert_eq!(e.srtt(), None);
    }

    // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2, RTO <- SRTT + max(G, K*RTTVAR).
    #[test]
    fn first_sample_sets_srtt_to_r_and_rttvar_to_half_r() {
        let mut e = Rfc6298::new(cfg_no_min());
        sample(&mut e, ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), Some(ms(50)));
        assert_eq!(e.rto(), ms(300));
    }

    // RFC 6298 (2.2): G dominates when K*RTTVAR is smaller than the clock granularity.
    #[test]
    fn granularity_bounds_the_variance_term() {
        let mut e = Rfc6298::new(RtoConfig { granularity: ms(500), ..cfg_no_min() });
        sample(&mut e, ms(100));
        assert_eq!(e.rto(), ms(600));
    }

    // RFC 6298 (2.3): alpha = 1/8, beta = 1/4, RTTVAR updated with the old SRTT.
    #[test]
    fn subsequent_samples_use_alpha_one_eighth_and_beta_one_quarter() {
        let mut e = Rfc6298::new(cfg_no_min());
        sample(&mut e, ms(100));
        sample(&mut e, ms(200));
        // RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5 ms ; SRTT = 7/8*100 + 1/8*200 = 112.5 ms
        assert_eq!(e.rttvar(), Some(SimDuration::from_micros(62_500)));
        assert_eq!(e.srtt(), Some(SimDuration::from_micros(112_500)));
        assert_eq!(e.rto(), SimDuration::from_micros(112_500 + 250_000));
    }

    // RFC 6298 (2.4): whenever RTO is computed, if it is less than 1 second, round it up.
    #[test]
    fn rto_is_rounded_up_to_the_minimum() {
        let mut e = Rfc6298::new(RtoConfig::default());
        sample(&mut e, ms(10));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
    }

    // RFC 6298 (2.5): a maximum value may be placed on RTO.
    #[test]
    fn rto_is_capped_at_the_maximum() {
        let mut e = Rfc6298::new(RtoConfig::default());
        sample(&mut e, SimDuration::from_secs(100));
        assert_eq!(e.rto(), SimDuration::from_secs(60));
    }

    // RFC 6298 (5.5): back off the timer, RTO <- RTO * 2, capped by (2.5).
    #[test]
    fn backoff_doubles_the_rto_and_stops_at_the_cap() {
        let mut e = Rfc6298::new(RtoConfig::default());
        let mut expect = 1;
        for _ in 0..10 {
            assert_eq!(e.rto(), SimDuration::from_secs(expect.min(60)));
            e.on_timeout();
            expect *= 2;
        }
        for _ in 0..100 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(60));
    }

    // RFC 6298 §5 note: a new valid sample collapses the backed-off RTO.
    #[test]
    fn a_new_sample_clears_the_backoff() {
        let mut e = Rfc6298::new(RtoConfig::default());
        e.on_timeout();
        e.on_timeout();
        sample(&mut e, ms(100));
        assert_eq!(e.backoff(), 0);
        assert_eq!(e.rto(), SimDuration::from_secs(1));
    }

    // 003 §II: RTO = m*srtt + k*rttvar; Solaris m = 1.25 (Table I), Smart-Config k = 2 (§V-D).
    #[test]
    fn the_multipliers_m_and_k_scale_srtt_and_rttvar() {
        let cfg = RtoConfig { m: Ratio::new(5, 4), k: Ratio::new(2, 1), ..cfg_no_min() };
        let mut e = Rfc6298::new(cfg);
        sample(&mut e, ms(100));
        // 1.25 * 100 + 2 * 50
        assert_eq!(e.rto(), ms(225));
    }

    // 003 §II: the gains a (rttvar) and b (srtt) are parameters; a = b = 1 follows the sample.
    #[test]
    fn gains_of_one_make_the_estimator_follow_the_last_sample() {
        let cfg = RtoConfig { gain_a: Ratio::new(1, 1), gain_b: Ratio::new(1, 1), ..cfg_no_min() };
        let mut e = Rfc6298::new(cfg);
        sample(&mut e, ms(100));
        sample(&mut e, ms(40));
        assert_eq!(e.srtt(), Some(ms(40)));
        assert_eq!(e.rttvar(), Some(ms(60)));
    }

    // A coarse measurement clock counts tick boundaries (003 Table I timer granularity).
    #[test]
    fn a_coarse_measurement_clock_quantises_samples_to_ticks() {
        let mut e = Rfc6298::with_clock(cfg_no_min(), MeasurementClock::every(ms(100)));
        // 150 ms ending at 1000 ms crosses the boundaries at 900 and 1000 ms: 2 ticks.
        e.on_sample(&RttSampleEvent::at(SimTime(1_000_000_000), ms(150)));
        assert_eq!(e.srtt(), Some(ms(200)));
    }

    // RFC 6298 (5.7): 3 s after a retransmitted SYN.
    #[test]
    fn rto_becomes_three_seconds_after_a_retransmitted_syn() {
        let mut e = Rfc6298::new(RtoConfig::default());
        e.on_timeout();
        e.on_handshake_retransmitted();
        assert_eq!(e.rto(), SimDuration::from_secs(3));
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;
    use tcplab_time::SimTime;

    proptest! {
        #[test]
        fn rto_stays_within_min_and_max_for_any_samples_and_backoffs(
            ops in prop::collection::vec((any::<bool>(), 0u64..200_000_000_000), 1..200),
        ) {
            let cfg = RtoConfig::default();
            let mut e = Rfc6298::new(cfg);
            for (timeout, r) in ops {
                if timeout {
                    e.on_timeout();
                } else {
                    e.on_sample(&RttSampleEvent::at(SimTime(0), SimDuration(r)));
                }
                prop_assert!(e.rto() >= cfg.min && e.rto() <= cfg.max);
            }
        }
    }
}

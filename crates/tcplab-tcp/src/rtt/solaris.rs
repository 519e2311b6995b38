//! Solaris 10 retransmission timer per 003 Table I: RFC 6298 with m = 1.25.
//!
//! 003 Table I (Solaris column): timer granularity 10 ms, initial RTO 3.375 s, minRTO 400 ms,
//! a = 0.25, b = 0.125, m = 1.25, k = 4, D = 3, RTO = 1.25·srtt + 4·rttvar. 003 §V-A: "The
//! Solaris RTO-estimator uses a minimum RTO of 400 ms and an srtt multiplier of 1.25".
//!
//! A thin parameterisation of [`super::Rfc6298`] (which implements m), faithful to Table I.

use super::Rfc6298;
use crate::clock::MeasurementClock;
use crate::config::{Ratio, RtoConfig};
use tcplab_time::SimDuration;

/// 003 Table I: Solaris timer granularity 10 ms.
pub const SOLARIS_GRANULARITY: SimDuration = SimDuration::from_millis(10);
/// 003 Table I: Solaris initial RTO 3.375 s.
pub const SOLARIS_INITIAL_RTO: SimDuration = SimDuration::from_millis(3375);
/// 003 Table I: Solaris minRTO 400 ms.
pub const SOLARIS_MIN_RTO: SimDuration = SimDuration::from_millis(400);
/// Not in Table I: RFC 6298 (2.5)'s 60 s upper bound.
pub const SOLARIS_MAX_RTO: SimDuration = SimDuration::from_secs(60);
/// 003 Table I: Solaris m = 1.25.
pub const SOLARIS_M: Ratio = Ratio::new(5, 4);
/// 003 Table I: Solaris D = 3.
pub const SOLARIS_DUPACK_THRESHOLD: u32 = 3;

/// Table I's Solaris parameters.
pub const fn table_i() -> RtoConfig {
    RtoConfig {
        initial: SOLARIS_INITIAL_RTO,
        min: SOLARIS_MIN_RTO,
        max: SOLARIS_MAX_RTO,
        granularity: SOLARIS_GRANULARITY,
        m: SOLARIS_M,
        ..RtoConfig::RFC6298
    }
}

/// The estimator for `cfg`.
pub fn estimator(cfg: RtoConfig, clock: MeasurementClock) -> Rfc6298 {
    Rfc6298::with_clock(cfg, clock)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtt::{RttEstimator, RttSampleEvent};
    use tcplab_time::SimTime;

    // 003 Table I: RTO = 1.25 * srtt + 4 * rttvar, at least 400 ms.
    #[test]
    fn solaris_rto_is_one_and_a_quarter_srtt_plus_four_rttvar() {
        let mut e = estimator(table_i(), MeasurementClock::every(SOLARIS_GRANULARITY));
        assert_eq!(e.rto(), SOLARIS_INITIAL_RTO);
        e.on_sample(&RttSampleEvent::at(SimTime(1_000_000_000), SimDuration::from_millis(200)));
        // 1.25 * 200 + 4 * 100
        assert_eq!(e.rto(), SimDuration::from_millis(650));
    }
}

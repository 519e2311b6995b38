//! Windows XP/2000 retransmission timer per 003 Table I: an RFC 6298 parameterisation.
//!
//! 003 Table I (Windows column): timer granularity 100 ms, initial RTO 3 s, minRTO 200 ms,
//! a = 0.25, b = 0.125, m = 1, k = 4, D = 2, RTO = srtt + 4·rttvar; 003 §V-A: Windows
//! updates its estimate "once per flight".
//!
//! This is a thin parameterisation of [`super::Rfc6298`], which is faithful to what Table I
//! says (the same formula with different constants). The sampling rule (one timed segment per
//! flight) and D are properties of the sender, set by the `windows-xp` profile
//! ([`crate::profile`]). The 100 ms granularity enters as G, as the measurement clock's tick
//! (samples count 100 ms ticks) and as the event clock of the profile.

use super::Rfc6298;
use crate::clock::MeasurementClock;
use crate::config::RtoConfig;
use tcplab_time::SimDuration;

/// 003 Table I: Windows timer granularity 100 ms.
pub const WINDOWS_GRANULARITY: SimDuration = SimDuration::from_millis(100);
/// 003 Table I: Windows initial RTO 3 s.
pub const WINDOWS_INITIAL_RTO: SimDuration = SimDuration::from_secs(3);
/// 003 Table I: Windows minRTO 200 ms.
pub const WINDOWS_MIN_RTO: SimDuration = SimDuration::from_millis(200);
/// Not in Table I: RFC 6298 (2.5)'s 60 s upper bound.
pub const WINDOWS_MAX_RTO: SimDuration = SimDuration::from_secs(60);
/// 003 Table I: Windows D = 2.
pub const WINDOWS_DUPACK_THRESHOLD: u32 = 2;

/// Table I's Windows parameters.
pub const fn table_i() -> RtoConfig {
    RtoConfig {
        initial: WINDOWS_INITIAL_RTO,
        min: WINDOWS_MIN_RTO,
        max: WINDOWS_MAX_RTO,
        granularity: WINDOWS_GRANULARITY,
        ..RtoConfig::RFC6298
    }
}

/// The estimator for `cfg` (the profile supplies Table I values; explicit keys may change
/// them).
pub fn estimator(cfg: RtoConfig, clock: MeasurementClock) -> Rfc6298 {
    Rfc6298::with_clock(cfg, clock)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtt::{RttEstimator, RttSampleEvent};
    use tcplab_time::SimTime;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    // 003 Table I: initial RTO 3 s; RTO = srtt + 4 rttvar with G = 100 ms; samples count
    // 100 ms ticks (a 60 ms RTT that crosses one boundary is 100 ms).
    #[test]
    fn windows_counts_100ms_ticks_and_starts_at_three_seconds() {
        let mut e = estimator(table_i(), MeasurementClock::every(WINDOWS_GRANULARITY));
        assert_eq!(e.rto(), ms(3000));
        e.on_sample(&RttSampleEvent::at(SimTime(1_030_000_000), ms(60)));
        assert_eq!(e.srtt(), Some(ms(100)));
        // 100 + 4 * 50
        assert_eq!(e.rto(), ms(300));
        // A sample inside one tick is 0 ms: RTTVAR decays, the 200 ms minimum holds.
        for _ in 0..50 {
            e.on_sample(&RttSampleEvent::at(SimTime(1_050_000_000), ms(40)));
        }
        assert_eq!(e.rto(), WINDOWS_MIN_RTO);
    }
}

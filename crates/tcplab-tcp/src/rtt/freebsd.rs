//! FreeBSD 5.2 / MacOS retransmission timer per 003 Table I: an RFC 6298 parameterisation.
//!
//! 003 Table I (FreeBSD column): timer granularity 10 ms, initial RTO 3 s, minRTO 1200 ms,
//! a = 0.25, b = 0.125, m = 1, k = 4, D = 3, RTO = srtt + 4·rttvar. 003 §V: FreeBSD (and the
//! other non-Linux stacks) update the estimate once per flight.
//!
//! A thin parameterisation of [`super::Rfc6298`], faithful to Table I. Not modelled: the real
//! FreeBSD code is the scaled-integer BSD estimator ([`super::brakmo_peterson`]'s arithmetic)
//! plus a retransmit "slop" added in `TCPT_RANGESET`; Table I's 1200 ms minRTO is taken as
//! given (plausibly a 1 s minimum plus the 200 ms slop — not verified against the source).

use super::Rfc6298;
use crate::clock::MeasurementClock;
use crate::config::RtoConfig;
use tcplab_time::SimDuration;

/// 003 Table I: FreeBSD timer granularity 10 ms.
pub const FREEBSD_GRANULARITY: SimDuration = SimDuration::from_millis(10);
/// 003 Table I: FreeBSD initial RTO 3 s.
pub const FREEBSD_INITIAL_RTO: SimDuration = SimDuration::from_secs(3);
/// 003 Table I: FreeBSD minRTO 1200 ms.
pub const FREEBSD_MIN_RTO: SimDuration = SimDuration::from_millis(1200);
/// BSD `TCPTV_REXMTMAX`: 64 s.
pub const FREEBSD_MAX_RTO: SimDuration = SimDuration::from_secs(64);
/// 003 Table I: FreeBSD D = 3.
pub const FREEBSD_DUPACK_THRESHOLD: u32 = 3;

/// Table I's FreeBSD parameters.
pub const fn table_i() -> RtoConfig {
    RtoConfig {
        initial: FREEBSD_INITIAL_RTO,
        min: FREEBSD_MIN_RTO,
        max: FREEBSD_MAX_RTO,
        granularity: FREEBSD_GRANULARITY,
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

    // 003 Table I: minRTO 1200 ms dominates for a LAN-sized RTT; backoff doubles up to 64 s.
    #[test]
    fn freebsd_never_times_out_before_1200ms() {
        let mut e = estimator(table_i(), MeasurementClock::every(FREEBSD_GRANULARITY));
        assert_eq!(e.rto(), FREEBSD_INITIAL_RTO);
        e.on_sample(&RttSampleEvent::at(SimTime(1_000_000_000), SimDuration::from_millis(20)));
        assert_eq!(e.rto(), FREEBSD_MIN_RTO);
        for _ in 0..10 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), FREEBSD_MAX_RTO);
    }
}

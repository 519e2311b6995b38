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
use crate::config::{RtoConfig, RFC6298_GAIN_A, RFC6298_GAIN_B, RFC6298_K, RFC6298_M};
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
        gain_a: RFC6298_GAIN_A,
        gain_b: RFC6298_GAIN_B,
        m: RFC6298_M,
        k: RFC6298_K,
    }
}

/// The estimator for `cfg` (the profile supplies Table I values; explicit keys may change
/// them).
pub fn estimator(cfg: RtoConfig, clock: MeasurementClock) -> Rfc6298 {
    Rfc6298::with_clock(cfg, clock)
}

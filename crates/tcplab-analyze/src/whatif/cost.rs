//! The change in connection duration per loss-detection event, in RTTs (003 §IV-D, eqs.
//! (1)-(3)). `x` is half the flight size in segments: "Assume that the flight size was 2x".
//!
//! Ambiguities resolved:
//! - `log` is base 2: the regrowth it counts is slow start's doubling per RTT ("it would
//!   take the sender log(x) + x − 1 RTTs to recover the flight size" from 1 to 2x, first by
//!   doubling to x, then linearly).
//! - x is at least 1 ([`MIN_HALF_FLIGHT`]): a flight of one or two segments is x = 1 (the
//!   formulas' log x and denominators are meant for x ≥ 1).
//! - The formulas are used as printed, also where they give a small negative number (RF(x)
//!   for x just above 1): 003 calls a negative reduction an increase (footnote 13).

/// Smallest x the formulas are evaluated at (see the module doc).
pub const MIN_HALF_FLIGHT: f64 = 1.0;

/// x = half the flight size in segments, at least [`MIN_HALF_FLIGHT`].
pub fn half_flight(flight_segments: u64) -> f64 {
    (flight_segments as f64 / 2.0).max(MIN_HALF_FLIGHT)
}

/// 003 eq. (1): the reduction when a spurious FR/R-based loss detection is avoided,
/// F(x) = x + 1 − (3x² − x) / (5x + 1).
pub fn f(x: f64) -> f64 {
    x + 1.0 - (3.0 * x * x - x) / (5.0 * x + 1.0)
}

/// 003 eq. (2): the reduction when a spurious RTO-based loss detection is avoided,
/// R(x) = x + log x − 1 − (3x² + x − 4) / (5x + log x − 1).
pub fn r(x: f64) -> f64 {
    let l = x.log2();
    x + l - 1.0 - (3.0 * x * x + x - 4.0) / (5.0 * x + l - 1.0)
}

/// 003 eq. (3): the reduction after recovery when a loss is detected by FR/R instead of an
/// RTO, RF(x) = log x − 1 − (2x − 4) / (2x + log x − 1).
pub fn rf(x: f64) -> f64 {
    let l = x.log2();
    l - 1.0 - (2.0 * x - 4.0) / (2.0 * x + l - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    // Hand-evaluated: x = 4 (a flight of 8): F = 5 − 44/21; R = 5 − 48/21;
    // RF = 1 − 4/9. x = 1: F = 2 − 2/6, R = 0, RF = 1.
    #[test]
    fn equations_1_to_3_at_hand_computed_points() {
        assert!(close(f(4.0), 5.0 - 44.0 / 21.0));
        assert!(close(r(4.0), 4.0 + 2.0 - 1.0 - 48.0 / 21.0));
        assert!(close(rf(4.0), 2.0 - 1.0 - 4.0 / 9.0));
        assert!(close(f(1.0), 2.0 - 2.0 / 6.0));
        assert!(close(r(1.0), 0.0));
        assert!(close(rf(1.0), 1.0));
    }

    #[test]
    fn avoiding_a_spurious_rto_saves_more_than_a_spurious_fr_for_large_flights() {
        for x in [8.0, 16.0, 64.0] {
            assert!(r(x) > f(x), "x={x}");
            assert!(rf(x) > 0.0);
        }
        assert_eq!(half_flight(1), 1.0);
        assert_eq!(half_flight(9), 4.5);
    }
}

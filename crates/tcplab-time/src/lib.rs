//! Quantities with units for tcplab: simulated time, durations, bandwidth and byte counts.
//!
//! Every quantity is an integer (nanoseconds, bits per second, bytes) so that a simulation is a
//! pure function of its inputs: no floating-point time ever accumulates rounding error.
//!
//! | type | unit | example string |
//! |---|---|---|
//! | [`SimTime`] | ns since simulation start | — |
//! | [`SimDuration`] | ns | `"30ms"`, `"1.5s"`, `"200us"` |
//! | [`Bandwidth`] | bit/s | `"155Mbps"`, `"1.5Mbit/s"`, `"10Gbps"` |
//! | [`Bytes`] | bytes | `"64KB"`, `"1500B"`, `"512KiB"` |
//!
//! Parsing rules live in [`units`]; they reject bare numbers and ambiguous spellings.

pub mod units;

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds per second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// A point in simulated time: nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`, saturating at zero.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
    pub fn saturating_add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NANOS_PER_SEC)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn saturating_mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0 + d.0)
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 += d.0;
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    /// Panics in debug builds if `rhs` is later than `self`; use
    /// [`SimTime::saturating_since`] where that can happen.
    fn sub(self, rhs: SimTime) -> SimDuration {
        SimDuration(self.0 - rhs.0)
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0 + d.0)
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0 - d.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        units::fmt_duration(*self, f)
    }
}

/// A link or sending rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bandwidth(pub u64);

impl Bandwidth {
    pub const fn bps(b: u64) -> Self {
        Bandwidth(b)
    }
    pub const fn mbps(m: u64) -> Self {
        Bandwidth(m * 1_000_000)
    }
    pub const fn gbps(g: u64) -> Self {
        Bandwidth(g * 1_000_000_000)
    }
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    /// Serialization time of `bytes` at this rate, rounded up to the next nanosecond so that
    /// a link never transmits faster than its nominal rate.
    pub fn tx_time(self, bytes: u64) -> SimDuration {
        debug_assert!(self.0 > 0, "zero bandwidth");
        let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
        SimDuration(bits.div_ceil(self.0 as u128) as u64)
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        units::fmt_bandwidth(*self, f)
    }
}

/// A byte count (buffer sizes, windows, transfer sizes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_of_a_1500_byte_packet_at_10mbps_is_1200_us() {
        assert_eq!(Bandwidth::mbps(10).tx_time(1500), SimDuration::from_micros(1200));
    }

    #[test]
    fn transmission_time_rounds_up_to_the_next_nanosecond() {
        // 1 byte at 3 bit/s = 8/3 s = 2.666...s
        assert_eq!(Bandwidth::bps(3).tx_time(1).as_nanos(), 2_666_666_667);
    }

    #[test]
    fn saturating_since_never_goes_negative() {
        assert_eq!(SimTime(5).saturating_since(SimTime(9)), SimDuration::ZERO);
    }
}

//! 32-bit TCP sequence numbers with wrap-around arithmetic (RFC 9293 §3.4, RFC 1982 style
//! serial-number comparison): `a < b` iff `(b - a) mod 2^32` is in `(0, 2^31)`.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A TCP sequence (or acknowledgment) number.
///
/// Ordering compares within a half-window of 2^31 as TCP does; `Ord` is deliberately not
/// implemented because the relation is not transitive across the whole space.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct SeqNum(pub u32);

impl SeqNum {
    /// Signed distance from `other` to `self`: positive when `self` is after `other`.
    #[inline]
    pub fn diff(self, other: SeqNum) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
    #[inline]
    pub fn lt(self, other: SeqNum) -> bool {
        self.diff(other) < 0
    }
    #[inline]
    pub fn le(self, other: SeqNum) -> bool {
        self.diff(other) <= 0
    }
    #[inline]
    pub fn gt(self, other: SeqNum) -> bool {
        self.diff(other) > 0
    }
    #[inline]
    pub fn ge(self, other: SeqNum) -> bool {
        self.diff(other) >= 0
    }
    #[inline]
    pub fn max(self, other: SeqNum) -> SeqNum {
        if self.ge(other) {
            self
        } else {
            other
        }
    }
    #[inline]
    pub fn min(self, other: SeqNum) -> SeqNum {
        if self.le(other) {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for SeqNum {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.diff(*other).cmp(&0))
    }
}

impl Add<u32> for SeqNum {
    type Output = SeqNum;
    #[inline]
    fn add(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_add(n))
    }
}
impl AddAssign<u32> for SeqNum {
    #[inline]
    fn add_assign(&mut self, n: u32) {
        self.0 = self.0.wrapping_add(n);
    }
}
impl Sub<SeqNum> for SeqNum {
    type Output = u32;
    /// Bytes from `rhs` up to `self` (modulo 2^32). Callers ensure `rhs <= self`.
    #[inline]
    fn sub(self, rhs: SeqNum) -> u32 {
        self.0.wrapping_sub(rhs.0)
    }
}

impl fmt::Debug for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seq({})", self.0)
    }
}
impl fmt::Display for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_survives_wrap_around() {
        let a = SeqNum(u32::MAX - 10);
        let b = a + 20;
        assert_eq!(b.0, 9);
        assert!(a.lt(b) && b.gt(a));
        assert_eq!(b - a, 20);
    }
}

//! Out-of-order reassembly queue: sorted, disjoint `[left, right)` ranges above RCV.NXT.
//!
//! Payload is modelled by length only, so the queue stores ranges, not bytes. Ranges are kept
//! in a `Vec` sorted by sequence number (relative to RCV.NXT, which makes the order wrap-safe);
//! lookups are binary searches and inserting merges only the ranges it touches.

use crate::seq::SeqNum;

/// One contiguous run of received out-of-order data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub left: SeqNum,
    pub right: SeqNum,
}

/// Result of adding a segment's data.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Inserted {
    /// Bytes that were not in the queue before.
    pub new_bytes: u64,
    /// The first part of the segment that was already queued (for D-SACK, RFC 2883).
    pub duplicate: Option<(SeqNum, SeqNum)>,
}

/// The reassembly queue.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    ranges: Vec<Range>,
}

impl Reassembly {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
    pub fn len(&self) -> usize {
        self.ranges.len()
    }
    pub fn ranges(&self) -> &[Range] {
        &self.ranges
    }

    /// Index of the first range whose right edge is at or beyond `s` (`base` = RCV.NXT).
    fn first_reaching(&self, base: SeqNum, s: SeqNum) -> usize {
        let off = s - base;
        self.ranges.partition_point(|r| (r.right - base) < off)
    }

    /// The range containing sequence number `s`, if any.
    pub fn find(&self, base: SeqNum, s: SeqNum) -> Option<Range> {
        let i = self.ranges.partition_point(|r| (r.right - base) <= (s - base));
        self.ranges.get(i).copied().filter(|r| r.left.le(s))
    }

    /// Adds `[left, right)`; callers guarantee `base <= left < right` (base = RCV.NXT).
    pub fn insert(&mut self, base: SeqNum, left: SeqNum, right: SeqNum) -> Inserted {
        let mut out = Inserted::default();
        let i = self.first_reaching(base, left);
        let mut j = i;
        let mut covered: u64 = 0;
        let (mut nl, mut nr) = (left, right);
        while j < self.ranges.len() && self.ranges[j].left.le(right) {
            let r = self.ranges[j];
            let ol = r.left.max(left);
            let or = r.right.min(right);
            if ol.lt(or) {
                covered += u64::from(or - ol);
                if out.duplicate.is_none() {
                    out.duplicate = Some((ol, or));
                }
            }
            nl = nl.min(r.left);
            nr = nr.max(r.right);
            j += 1;
        }
        out.new_bytes = u64::from(right - left) - covered;
        let merged = Range { left: nl, right: nr };
        if j == i {
            self.ranges.insert(i, merged);
        } else {
            self.ranges[i] = merged;
            self.ranges.drain(i + 1..j);
        }
        out
    }

    /// If the first range starts at or below `rcv_nxt`, removes it and returns its right edge
    /// (the new RCV.NXT).
    pub fn pop_contiguous(&mut self, rcv_nxt: SeqNum) -> Option<SeqNum> {
        match self.ranges.first() {
            Some(r) if r.left.le(rcv_nxt) => {
                let right = r.right;
                self.ranges.remove(0);
                Some(right)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserting_adjacent_and_overlapping_ranges_merges_them_and_reports_the_duplicate() {
        let b = SeqNum(0);
        let mut q = Reassembly::default();
        assert_eq!(q.insert(b, SeqNum(100), SeqNum(200)).new_bytes, 100);
        assert_eq!(q.insert(b, SeqNum(300), SeqNum(400)).new_bytes, 100);
        let r = q.insert(b, SeqNum(150), SeqNum(300));
        assert_eq!(r.new_bytes, 100);
        assert_eq!(r.duplicate, Some((SeqNum(150), SeqNum(200))));
        assert_eq!(q.ranges(), &[Range { left: SeqNum(100), right: SeqNum(400) }]);
        assert_eq!(q.pop_contiguous(SeqNum(50)), None);
        assert_eq!(q.pop_contiguous(SeqNum(100)), Some(SeqNum(400)));
        assert!(q.is_empty());
    }

    #[test]
    fn ranges_straddling_the_sequence_wrap_stay_ordered() {
        let b = SeqNum(u32::MAX - 1000);
        let mut q = Reassembly::default();
        q.insert(b, SeqNum(500), SeqNum(600));
        q.insert(b, SeqNum(u32::MAX - 500), SeqNum(100));
        assert_eq!(q.ranges()[0].left, SeqNum(u32::MAX - 500));
        assert_eq!(q.find(b, SeqNum(550)).map(|r| r.left), Some(SeqNum(500)));
        assert_eq!(q.find(b, SeqNum(300)), None);
    }
}

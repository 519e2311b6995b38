//! Ground truth for spurious retransmissions.
//!
//! Definition: a retransmission is *spurious* if every byte of it reached the receiver in an
//! earlier copy (one the sender emitted before this retransmission), whenever that copy
//! arrives — before or after the retransmission itself.
//!
//! Bookkeeping per flow: a `BTreeMap` keyed by (first byte, copy id) of pending
//! retransmissions, each with the byte intervals not yet covered by an earlier copy. On every
//! data arrival at the receiver, the entries overlapping the arriving copy's range and emitted
//! *after* it (larger copy id) have that range subtracted; an entry left empty is spurious.
//! Entries never covered stay pending and are genuine at the end of the run.
//!
//! Copies that arrived *before* the retransmission was sent are accounted for by a
//! [`ReceivedSet`] (every byte range that has reached the receiver so far): it is subtracted
//! when the retransmission is registered, so a retransmission of bytes already received is
//! spurious at once (any copy that has arrived was necessarily sent earlier).
//!
//! Sequence numbers here are relative to the sender's ISS and unwrapped to `u64`
//! ([`SeqUnwrap`]), so ranges never wrap.

use std::collections::BTreeMap;
use tcplab_tcp::SeqNum;

/// Turns 32-bit sequence numbers into offsets from the ISS that never wrap, assuming each is
/// within 2^31 of the largest seen so far.
#[derive(Copy, Clone, Debug)]
pub struct SeqUnwrap {
    iss: SeqNum,
    last: u64,
}

impl SeqUnwrap {
    pub fn new(iss: SeqNum) -> Self {
        SeqUnwrap { iss, last: 0 }
    }

    /// Offset of `seq` from the ISS, without moving the unwrapping reference (for a
    /// segment already sent, e.g. one being dropped).
    #[inline]
    pub fn peek(&self, seq: SeqNum) -> u64 {
        let reference = self.iss + self.last as u32;
        (self.last as i64 + i64::from(seq.diff(reference))).max(0) as u64
    }

    /// Offset of `seq` from the ISS.
    #[inline]
    pub fn rel(&mut self, seq: SeqNum) -> u64 {
        let reference = self.iss + self.last as u32;
        let r = (self.last as i64 + i64::from(seq.diff(reference))).max(0) as u64;
        if r > self.last {
            self.last = r;
        }
        r
    }
}

/// Byte intervals `[start, end)` of a retransmission not yet covered by an earlier copy.
/// Usually one interval; splitting (an earlier copy covering only the middle) is rare and only
/// then allocates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Uncovered {
    Empty,
    One(u64, u64),
    Many(Vec<(u64, u64)>),
}

impl Uncovered {
    /// Removes `[a, b)`.
    pub fn subtract(&mut self, a: u64, b: u64) {
        match self {
            Uncovered::Empty => {}
            Uncovered::One(s, e) => {
                let (s, e) = (*s, *e);
                if b <= s || a >= e {
                    return;
                }
                let left = (s < a).then_some((s, a));
                let right = (b < e).then_some((b, e));
                *self = match (left, right) {
                    (None, None) => Uncovered::Empty,
                    (Some((x, y)), None) | (None, Some((x, y))) => Uncovered::One(x, y),
                    (Some(l), Some(r)) => Uncovered::Many(vec![l, r]),
                };
            }
            Uncovered::Many(v) => {
                let mut out = Vec::with_capacity(v.len() + 1);
                for &(s, e) in v.iter() {
                    if b <= s || a >= e {
                        out.push((s, e));
                        continue;
                    }
                    if s < a {
                        out.push((s, a));
                    }
                    if b < e {
                        out.push((b, e));
                    }
                }
                *self = match out.len() {
                    0 => Uncovered::Empty,
                    1 => Uncovered::One(out[0].0, out[0].1),
                    _ => Uncovered::Many(out),
                };
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, Uncovered::Empty)
    }
}

/// Byte ranges that have reached the receiver: a contiguous prefix `[0, prefix)` plus
/// disjoint, non-adjacent intervals above it (keyed by start).
#[derive(Clone, Debug, Default)]
pub struct ReceivedSet {
    prefix: u64,
    above: BTreeMap<u64, u64>,
}

impl ReceivedSet {
    /// Adds `[a, b)`.
    #[inline]
    pub fn insert(&mut self, a: u64, b: u64) {
        if b <= self.prefix {
            return;
        }
        if a <= self.prefix {
            self.prefix = b;
        } else {
            // Merge with overlapping or adjacent intervals.
            let (mut a, mut b) = (a, b);
            if let Some((&s, &e)) = self.above.range(..=a).next_back() {
                if e >= a {
                    a = s;
                    b = b.max(e);
                    self.above.remove(&s);
                }
            }
            while let Some((&s, &e)) = self.above.range(a..).next() {
                if s > b {
                    break;
                }
                b = b.max(e);
                self.above.remove(&s);
            }
            self.above.insert(a, b);
        }
        // Absorb intervals the prefix now reaches.
        while let Some((&s, &e)) = self.above.iter().next() {
            if s > self.prefix {
                break;
            }
            self.prefix = self.prefix.max(e);
            self.above.remove(&s);
        }
    }

    /// Removes from `u` every byte received so far.
    pub fn subtract_from(&self, u: &mut Uncovered, a: u64, b: u64) {
        u.subtract(0, self.prefix);
        let lo = self.above.range(..=a).next_back().map_or(a, |(&s, _)| s);
        for (&s, &e) in self.above.range(lo..b) {
            u.subtract(s, e);
        }
    }

    /// Length of the contiguous received prefix.
    pub fn prefix(&self) -> u64 {
        self.prefix
    }
}

/// A retransmission waiting to be judged.
#[derive(Clone, Debug)]
struct Pending {
    end: u64,
    uncovered: Uncovered,
    /// Row of its `segment_retransmitted` event, if tracing.
    row: Option<u64>,
}

/// Spurious-retransmission bookkeeping of one flow's data direction.
#[derive(Clone, Debug, Default)]
pub struct SpuriousTracker {
    /// Keyed by (first byte, copy id of the retransmission).
    pending: BTreeMap<(u64, u64), Pending>,
    /// Longest pending range: bounds how far left an overlapping entry can start.
    max_len: u64,
    /// Largest `end` of any range ever pending (never lowered): an arrival starting at or
    /// after it overlaps no pending entry, which is the common case of new data arriving
    /// above old, genuine (forever pending) retransmissions.
    max_end: u64,
    /// Event rows of retransmissions found spurious.
    spurious_rows: Vec<u64>,
    spurious: u64,
    received: ReceivedSet,
    /// Reused list of keys resolved by one arrival.
    done: Vec<(u64, u64)>,
}

impl SpuriousTracker {
    pub fn new() -> Self {
        Self::default()
    }

    /// A tracker whose byte offsets below `first` are never data (in the simulator, offset
    /// 0 is the SYN's sequence number, the ISS: RFC 9293 §3.4, "the first data octet is
    /// ISN+1"). They count as received from the start, so in-order data extends the
    /// contiguous prefix instead of being kept, and merged on every arrival, as an interval
    /// above it (a `BTreeMap` remove and insert per data packet).
    pub fn with_data_from(first: u64) -> Self {
        SpuriousTracker { received: ReceivedSet { prefix: first, above: BTreeMap::new() }, ..Self::default() }
    }

    /// The sender emitted copy `copy_id` retransmitting bytes `[start, end)`.
    pub fn on_retransmit(&mut self, start: u64, end: u64, copy_id: u64, row: Option<u64>) {
        if end <= start {
            return;
        }
        let mut uncovered = Uncovered::One(start, end);
        self.received.subtract_from(&mut uncovered, start, end);
        if uncovered.is_empty() {
            self.mark_spurious(row);
            return;
        }
        self.max_len = self.max_len.max(end - start);
        self.max_end = self.max_end.max(end);
        self.pending.insert((start, copy_id), Pending { end, uncovered, row });
    }

    fn mark_spurious(&mut self, row: Option<u64>) {
        self.spurious += 1;
        if let Some(r) = row {
            self.spurious_rows.push(r);
        }
    }

    /// Copy `copy_id` carrying bytes `[start, end)` reached the receiver.
    #[inline]
    pub fn on_arrival(&mut self, start: u64, end: u64, copy_id: u64) {
        if end <= start {
            return;
        }
        self.received.insert(start, end);
        if self.pending.is_empty() || start >= self.max_end {
            return;
        }
        let lo = start.saturating_sub(self.max_len);
        for (&key, p) in self.pending.range_mut((lo, 0)..(end, 0)) {
            if key.1 <= copy_id || p.end <= start {
                continue; // not later than the arriving copy, or no overlap
            }
            p.uncovered.subtract(start, end);
            if p.uncovered.is_empty() {
                self.done.push(key);
            }
        }
        for key in self.done.drain(..) {
            if let Some(p) = self.pending.remove(&key) {
                self.spurious += 1;
                if let Some(r) = p.row {
                    self.spurious_rows.push(r);
                }
            }
        }
    }

    /// Retransmissions found spurious so far.
    pub fn spurious(&self) -> u64 {
        self.spurious
    }

    /// Event rows of the spurious retransmissions found since the last
    /// [`SpuriousTracker::take_spurious_rows`].
    pub fn spurious_rows(&self) -> &[u64] {
        &self.spurious_rows
    }

    /// Takes the event rows of the spurious retransmissions found so far.
    pub fn take_spurious_rows(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.spurious_rows)
    }

    /// Retires the pending retransmissions whose verdict is final, given that every copy
    /// numbered below `oldest_live` has left the network (arrived or been dropped), and
    /// returns the smallest event row among those still open.
    ///
    /// Only a copy emitted *before* a retransmission can cover it (module doc), so once no
    /// copy older than retransmission `R` is left in flight, nothing can cover `R` any more:
    /// it is genuine (as every entry still pending at the end of a run is) and its entry is
    /// dropped. This bounds the map by the retransmissions of the last round trip or so
    /// instead of letting it grow with the run, and tells the recorder which rows it may
    /// hand over (`run_control`).
    pub fn settle(&mut self, oldest_live: u64) -> Option<u64> {
        self.pending.retain(|&(_, copy_id), _| copy_id > oldest_live);
        self.pending.values().filter_map(|p| p.row).min()
    }

    /// Retransmissions not (yet) covered.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retransmission_is_spurious_when_the_original_arrives_after_it() {
        let mut t = SpuriousTracker::new();
        // Original copy 1 of [1000, 2448) sent, delayed; retransmission copy 5 sent.
        t.on_retransmit(1000, 2448, 5, Some(17));
        t.on_arrival(1000, 2448, 5); // the retransmission itself arrives: not earlier
        assert_eq!(t.spurious(), 0);
        t.on_arrival(1000, 2448, 1); // the original arrives late
        assert_eq!(t.spurious(), 1);
        assert_eq!(t.spurious_rows(), &[17]);
        assert_eq!(t.pending(), 0);
    }

    #[test]
    fn a_retransmission_of_bytes_that_already_arrived_is_spurious_at_once() {
        let mut t = SpuriousTracker::new();
        t.on_arrival(0, 1448, 1);
        t.on_arrival(2896, 4344, 3); // out of order; [1448, 2896) is missing
        t.on_retransmit(0, 1448, 9, Some(4));
        assert_eq!((t.spurious(), t.spurious_rows()), (1, &[4u64][..]));
        t.on_retransmit(1448, 2896, 10, None);
        t.on_retransmit(2896, 4344, 11, None);
        assert_eq!((t.spurious(), t.pending()), (2, 1));
        t.on_retransmit(1000, 3000, 12, None); // only [1448, 2896) is new to the receiver
        assert_eq!(t.pending(), 2);
    }

    #[test]
    fn in_order_data_after_the_syn_extends_the_prefix_and_keeps_no_interval() {
        let mut t = SpuriousTracker::with_data_from(1);
        for k in 0..100u64 {
            t.on_arrival(1 + 1448 * k, 1 + 1448 * (k + 1), k);
        }
        assert_eq!(t.received.prefix(), 1 + 1448 * 100);
        assert!(t.received.above.is_empty());
        // A retransmission of received bytes is spurious at once, as with `new`.
        t.on_retransmit(1, 1449, 200, None);
        assert_eq!(t.spurious(), 1);
    }

    #[test]
    fn the_received_set_merges_out_of_order_ranges_into_the_prefix() {
        let mut r = ReceivedSet::default();
        r.insert(0, 10);
        r.insert(20, 30);
        r.insert(40, 50);
        r.insert(25, 45);
        assert_eq!(r.prefix(), 10);
        r.insert(10, 20);
        assert_eq!(r.prefix(), 50);
        assert!(r.above.is_empty());
    }

    #[test]
    fn a_retransmission_covered_only_partly_is_genuine() {
        let mut t = SpuriousTracker::new();
        t.on_retransmit(0, 3000, 10, None);
        t.on_arrival(0, 1000, 3);
        t.on_arrival(2000, 3000, 4);
        assert_eq!(t.spurious(), 0);
        assert_eq!(t.pending(), 1);
        t.on_arrival(1000, 2000, 11); // a later copy does not count
        assert_eq!(t.spurious(), 0);
        t.on_arrival(500, 2500, 6); // an earlier copy covers the middle
        assert_eq!(t.spurious(), 1);
    }

    #[test]
    fn subtracting_the_middle_splits_an_interval_and_both_halves_must_be_covered() {
        let mut u = Uncovered::One(0, 100);
        u.subtract(40, 60);
        assert_eq!(u, Uncovered::Many(vec![(0, 40), (60, 100)]));
        u.subtract(0, 40);
        assert_eq!(u, Uncovered::One(60, 100));
        u.subtract(50, 200);
        assert!(u.is_empty());
    }

    #[test]
    fn overlapping_arrivals_find_retransmissions_that_start_before_them() {
        let mut t = SpuriousTracker::new();
        t.on_retransmit(1000, 2448, 8, None);
        t.on_retransmit(2448, 3896, 9, None);
        t.on_arrival(1500, 3000, 2); // covers the tail of one and the head of the other
        t.on_arrival(1000, 1500, 1);
        assert_eq!(t.spurious(), 1);
        t.on_arrival(3000, 3896, 3);
        assert_eq!(t.spurious(), 2);
    }

    #[test]
    fn sequence_numbers_unwrap_across_the_32_bit_boundary() {
        let iss = SeqNum(u32::MAX - 99);
        let mut u = SeqUnwrap::new(iss);
        assert_eq!(u.rel(iss), 0);
        assert_eq!(u.rel(iss + 100), 100);
        assert_eq!(u.rel(iss + 50), 50);
        let mut x = 100u64;
        for _ in 0..5 {
            x += 1 << 30;
            assert_eq!(u.rel(iss + x as u32), x);
        }
        assert!(x > u64::from(u32::MAX));
    }
}

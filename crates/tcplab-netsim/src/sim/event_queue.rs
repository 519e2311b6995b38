//! The event queue: a calendar queue (timing wheel) ordered by (time, insertion counter).
//!
//! Events scheduled for the same nanosecond come out in the order they were pushed (FIFO), so
//! a run never depends on the queue's internal layout. Time never goes backwards: pushing an
//! event before the last popped time is a programming error caught by a debug assertion.
//!
//! # Layout
//!
//! Time is cut into slots of [`SLOT_NS`] nanoseconds. The next [`WHEEL_SLOTS`] slots (the
//! *horizon*, 134 ms) form a wheel: one singly linked list of entries per slot, the nodes in a
//! slab with a free list, plus a bit map of non-empty slots. Events beyond the horizon — in a
//! simulation, mostly retransmission timers (≥ 200 ms away) — wait in a coarser *outer wheel*
//! of [`OUTER_BUCKETS`] buckets, each one horizon wide (137 s in all; lists in the same slab,
//! with their own bit map), and events beyond that in a binary heap (`far`). The entries of
//! the current slot are kept sorted in `ready`, the next one to pop at the end.
//!
//! * push: into `ready` (binary search, a handful of entries) if the event falls in the
//!   current slot, onto its slot's list if it falls within the horizon, onto its bucket's list
//!   if it falls within the outer wheel, else into `far`.
//! * pop: from `ready`; when it runs out, jump to the earlier of the next non-empty wheel slot
//!   (bit map scan) and the slot of `far`'s minimum, move that slot's entries (from the wheel
//!   and from `far`) into `ready` and sort them by (time, insertion counter). Before that, if
//!   the first non-empty outer bucket begins no later than both, its entries are moved onto
//!   the wheel's slot lists (*cascade*: the current slot becomes the one just before the
//!   bucket, so every entry of the bucket lies within the horizon).
//!
//! Every entry has a unique key (time, insertion counter), and the pop order is the total
//! order of those keys — the same order the binary heap this replaced produced, so every
//! run's output is unchanged (the tests check it against a `BinaryHeap` on random sequences).
//!
//! # Why a calendar queue (measured)
//!
//! The heap holds one wake-up per endpoint plus one arrival per busy link direction (about
//! 6,000 entries at 1,000 flows), and a binary heap paid `log2(n)` cache-missing sift-down
//! steps per pop: 27 % of the 1000 × 1 Gb/s profile. Thread CPU time of the benchmark cases
//! (medians of 3, bottleneck packets per CPU-second, on a shared 2-core machine):
//!
//! | queue | 1x100M | 10x1G | 100x1G | 1000x1G |
//! |---|---|---|---|---|
//! | binary heap (before this work) | 3.9 M | 2.7 M | 2.6 M | 1.2 M |
//! | radix heap on (time, seq) | 3.85 M | 2.9 M | 3.0 M | 1.7 M |
//! | calendar queue | 4.35 M | 3.6 M | 3.6 M | 2.0 M |
//!
//! (The last two rows also include the routing and ground-truth changes made at the same
//! time, which matter at 1,000 flows only; the run-to-run spread is about ±3 %.) Slot width
//! and wheel size were chosen the same way: 4.096 µs × 32,768 slots measured the same as
//! 8.192 µs × 16,384, and 16.384 µs × 8,192 was 5–8 % slower at 1 Gb/s (more entries to
//! sort per slot).
//!
//! A monotone radix heap (buckets by the highest bit in which a key differs from the last
//! popped one) removed the dependence on far-future timers, but its entries are moved between
//! buckets several times before they pop (the events of a run spread over ~2^26 ns), which
//! still cost 20 % of the 1,000-flow run. In the calendar queue an entry is written once into
//! the wheel and once into `ready`; the far-future timers cost a heap operation only when
//! they are (re)armed, about once per RTO per endpoint.
//!
//! # Why an outer wheel (measured, issue 12)
//!
//! With thousands of short connections the far-future entries are mostly *stale*: each
//! connection arms a retransmission timer ≥ 200 ms away at its SYN and SYN-ACK, ends within a
//! few round trips, and leaves the wake-up queued (the simulator cancels wake-ups lazily,
//! `host.rs`). In the `web` benchmark case the heap popped 25,728 such entries (2.45 per
//! connection) at 271 instructions each (a sift-down to the bottom and a sift-up over `log2 n`
//! levels), plus the pushes. In the outer wheel a push is a list insertion (69 instructions
//! measured) and a pop a relink onto the wheel (27) and the usual move into `ready`, whatever
//! the number of entries. Timer semantics are untouched: the queue's pop order is the same
//! total order of (time, insertion counter) keys (the tests check it against a `BinaryHeap`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use tcplab_time::SimTime;

/// log2 of the slot width.
const SLOT_BITS: u32 = 13;
/// Width of one wheel slot: 8.192 µs, a few events per slot at 1 Gb/s.
pub const SLOT_NS: u64 = 1 << SLOT_BITS;
/// log2 of the slots in the wheel.
const WHEEL_BITS: u32 = 14;
/// Slots in the wheel (a power of two): the horizon is 16,384 × 8.192 µs ≈ 134 ms, longer
/// than a packet's path through the benchmark dumbbell (44 ms RTT plus a full 44 ms buffer),
/// shorter than the minimum retransmission timeout (200 ms).
pub const WHEEL_SLOTS: usize = 1 << WHEEL_BITS;
/// Buckets in the outer wheel, each [`WHEEL_SLOTS`] slots (one horizon, 134 ms) wide: 1,024
/// buckets reach 137 s, beyond RFC 6298's 60 s maximum RTO (2.5: "a maximum value MAY be
/// placed on RTO provided it is at least 60 seconds"), so only far-off events such as a
/// flow's start or a scenario's end wait in the heap.
pub const OUTER_BUCKETS: usize = 1 << 10;
/// Bits per word of the occupancy bit map.
const WORD_BITS: usize = u64::BITS as usize;
/// End of a slot list / of the free list.
const NIL: u32 = u32::MAX;

/// One queued event.
#[derive(Copy, Clone, Debug)]
pub struct Entry<E> {
    time: SimTime,
    seq: u64,
    ev: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(&self) -> (SimTime, u64) {
        (self.time, self.seq)
    }
}

/// An entry beyond the horizon; ordered so that `BinaryHeap` (a max-heap) pops the earliest.
#[derive(Copy, Clone, Debug)]
struct Far<E>(Entry<E>);

impl<E> PartialEq for Far<E> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
    }
}
impl<E> Eq for Far<E> {}
impl<E> PartialOrd for Far<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Far<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.key().cmp(&self.0.key())
    }
}

/// A wheel entry in the slab, linked into its slot's list (or the free list).
#[derive(Copy, Clone, Debug)]
struct Node<E> {
    entry: Entry<E>,
    next: u32,
}

/// Min-queue of events by (time, insertion order).
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    /// Entries of slot `cur`, sorted by decreasing key (the next to pop is last).
    ready: Vec<Entry<E>>,
    /// Absolute slot number (`time >> SLOT_BITS`) of `ready`; the wheel holds slots
    /// `cur + 1 .. cur + WHEEL_SLOTS`.
    cur: u64,
    /// First node of each wheel slot's list, indexed by `slot % WHEEL_SLOTS`.
    heads: Vec<u32>,
    /// Bit `i` set ⇔ `heads[i] != NIL`.
    occupied: Vec<u64>,
    nodes: Vec<Node<E>>,
    free: u32,
    /// Entries in the wheel.
    wheel_len: usize,
    /// First node of each outer bucket's list, indexed by `bucket % OUTER_BUCKETS` (bucket =
    /// `slot >> WHEEL_BITS`); the outer wheel holds buckets `(cur >> WHEEL_BITS) + 1 ..
    /// (cur >> WHEEL_BITS) + OUTER_BUCKETS`.
    outer_heads: Vec<u32>,
    /// Bit `i` set ⇔ `outer_heads[i] != NIL`.
    outer_occupied: Vec<u64>,
    /// Entries in the outer wheel.
    outer_len: usize,
    /// First slot of the first non-empty outer bucket (`u64::MAX` when the outer wheel is
    /// empty): one comparison per `advance` decides whether to cascade.
    outer_next: u64,
    /// Entries that were beyond the outer wheel when pushed.
    far: BinaryHeap<Far<E>>,
    len: usize,
    next_seq: u64,
    /// Time of the last popped event.
    now: SimTime,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Absolute slot number of `time`.
#[inline]
fn slot_of(time: SimTime) -> u64 {
    time.0 >> SLOT_BITS
}

/// The first set bit of the ring `bits` (`WORDS` words) at or after index `start` (wrapping),
/// as a distance from `start`: the first word from bit `start % 64`, then whole words,
/// wrapping, then the first word's bits below it. `WORDS` is a constant (a power of two) so
/// that the wrapping is a mask.
#[inline]
fn first_set_from<const WORDS: usize>(bits: &[u64], start: usize) -> Option<usize> {
    debug_assert!(bits.len() == WORDS && WORDS.is_power_of_two());
    let words = WORDS;
    let n = words * WORD_BITS;
    let (w0, b0) = (start / WORD_BITS, start % WORD_BITS);
    let first = bits[w0] & (u64::MAX << b0);
    let found = if first != 0 {
        Some(w0 * WORD_BITS + first.trailing_zeros() as usize)
    } else {
        (1..=words).find_map(|k| {
            let w = (w0 + k) % words;
            let bits = if k == words { bits[w] & !(u64::MAX << b0) } else { bits[w] };
            (bits != 0).then(|| w * WORD_BITS + bits.trailing_zeros() as usize)
        })
    };
    found.map(|i| i.wrapping_sub(start) & (n - 1))
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// A queue with room for `n` pending events before it allocates.
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            ready: Vec::new(),
            cur: 0,
            heads: vec![NIL; WHEEL_SLOTS],
            occupied: vec![0; WHEEL_SLOTS / WORD_BITS],
            nodes: Vec::with_capacity(n),
            free: NIL,
            wheel_len: 0,
            outer_heads: vec![NIL; OUTER_BUCKETS],
            outer_occupied: vec![0; OUTER_BUCKETS / WORD_BITS],
            outer_len: 0,
            outer_next: u64::MAX,
            far: BinaryHeap::new(),
            len: 0,
            next_seq: 0,
            now: SimTime::ZERO,
        }
    }

    /// Schedules `ev` at `time` (not earlier than the last popped event).
    #[inline]
    pub fn push(&mut self, time: SimTime, ev: E) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time:?} < {:?}", self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        let entry = Entry { time, seq, ev };
        let s = slot_of(time);
        if s <= self.cur {
            // The current slot (`s < cur` only before the first pop, when `cur` is 0).
            let key = entry.key();
            let at = self.ready.partition_point(|e| e.key() > key);
            self.ready.insert(at, entry);
        } else if s - self.cur < WHEEL_SLOTS as u64 {
            let i = (s as usize) & (WHEEL_SLOTS - 1);
            let id = self.alloc(Node { entry, next: self.heads[i] });
            self.heads[i] = id;
            self.occupied[i / WORD_BITS] |= 1 << (i % WORD_BITS);
            self.wheel_len += 1;
        } else {
            self.push_outer(entry);
        }
    }

    /// A slab node for `node`, from the free list if it has one.
    #[inline]
    fn alloc(&mut self, node: Node<E>) -> u32 {
        if self.free != NIL {
            let id = self.free;
            self.free = self.nodes[id as usize].next;
            self.nodes[id as usize] = node;
            id
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    /// Queues an entry beyond the horizon (`slot - cur >= WHEEL_SLOTS`, so its bucket is
    /// after the current slot's): onto its outer bucket's list if the bucket is within the
    /// outer wheel, else into `far`. Out of line: once per far-future timer, not per packet.
    #[inline(never)]
    fn push_outer(&mut self, entry: Entry<E>) {
        let bucket = slot_of(entry.time) >> WHEEL_BITS;
        if bucket - (self.cur >> WHEEL_BITS) < OUTER_BUCKETS as u64 {
            let i = (bucket as usize) & (OUTER_BUCKETS - 1);
            let id = self.alloc(Node { entry, next: self.outer_heads[i] });
            self.outer_heads[i] = id;
            self.outer_occupied[i / WORD_BITS] |= 1 << (i % WORD_BITS);
            self.outer_len += 1;
            self.outer_next = self.outer_next.min(bucket << WHEEL_BITS);
        } else {
            self.far.push(Far(entry));
        }
    }

    /// The first non-empty wheel slot after `cur`, as an absolute slot number; `u64::MAX` if
    /// the wheel is empty (no slot number reaches it: times are `u64` nanoseconds).
    #[inline]
    fn next_wheel_slot(&self) -> u64 {
        if self.wheel_len == 0 {
            return u64::MAX;
        }
        let start = ((self.cur + 1) as usize) & (WHEEL_SLOTS - 1);
        first_set_from::<{ WHEEL_SLOTS / WORD_BITS }>(&self.occupied, start).map_or(u64::MAX, |d| self.cur + 1 + d as u64)
    }

    /// Moves the first non-empty outer bucket (it begins at `outer_next`, after every pending
    /// wheel slot and heap entry's slot) onto the wheel. The current slot becomes the one just
    /// before the bucket (nothing is pending up to there, and `ready` is empty): the bucket's
    /// slots are then 1 to `WHEEL_SLOTS` ahead of it, and the wheel entries already queued
    /// (before the bucket's end, as they were pushed within a horizon of an earlier slot) stay
    /// within that too. A slot exactly `WHEEL_SLOTS` ahead uses the list of the current slot's
    /// index, which is otherwise empty (its entries are in `ready`); `next_wheel_slot` scans it
    /// last, as that slot. Out of line: once per outer bucket that holds anything.
    #[inline(never)]
    fn cascade(&mut self) {
        let start = self.outer_next;
        debug_assert!(self.ready.is_empty() && self.cur < start && self.outer_len > 0);
        let bucket = start >> WHEEL_BITS;
        self.cur = start - 1;
        let b = (bucket as usize) & (OUTER_BUCKETS - 1);
        let mut id = std::mem::replace(&mut self.outer_heads[b], NIL);
        self.outer_occupied[b / WORD_BITS] &= !(1 << (b % WORD_BITS));
        while id != NIL {
            let node = &mut self.nodes[id as usize];
            let next = node.next;
            let s = slot_of(node.entry.time);
            debug_assert!(s > self.cur && s - self.cur <= WHEEL_SLOTS as u64, "outer entry outside its bucket");
            let i = (s as usize) & (WHEEL_SLOTS - 1);
            node.next = self.heads[i];
            self.heads[i] = id;
            self.occupied[i / WORD_BITS] |= 1 << (i % WORD_BITS);
            self.wheel_len += 1;
            self.outer_len -= 1;
            id = next;
        }
        self.outer_next = if self.outer_len == 0 {
            u64::MAX
        } else {
            let from = ((bucket + 1) as usize) & (OUTER_BUCKETS - 1);
            let d = first_set_from::<{ OUTER_BUCKETS / WORD_BITS }>(&self.outer_occupied, from)
                .expect("outer_len counts the outer lists' entries");
            (bucket + 1 + d as u64) << WHEEL_BITS
        };
    }

    /// Moves to the next non-empty slot and fills `ready` with its entries, sorted. `#[inline]`:
    /// it has one caller (`pop`), and without the hint LLVM stopped inlining it into the run
    /// loop when the loop grew by the reordering branch (+1.3 % instructions on `1x100M`).
    #[inline]
    fn advance(&mut self) {
        // Slot numbers, `u64::MAX` for none (`outer_next` too).
        let mut wheel = self.next_wheel_slot();
        let far = self.far.peek().map_or(u64::MAX, |f| slot_of(f.0.time));
        if self.outer_next <= wheel.min(far) {
            if self.outer_len == 0 {
                return; // the queue is empty
            }
            self.cascade();
            wheel = self.next_wheel_slot();
        }
        let s = wheel.min(far);
        if s == u64::MAX {
            return;
        }
        self.cur = s;
        if wheel == s {
            let i = (s as usize) & (WHEEL_SLOTS - 1);
            let mut id = std::mem::replace(&mut self.heads[i], NIL);
            self.occupied[i / WORD_BITS] &= !(1 << (i % WORD_BITS));
            while id != NIL {
                let node = self.nodes[id as usize];
                self.ready.push(node.entry);
                self.nodes[id as usize].next = self.free;
                self.free = id;
                self.wheel_len -= 1;
                id = node.next;
            }
        }
        while let Some(f) = self.far.peek() {
            if slot_of(f.0.time) != s {
                break;
            }
            self.ready.push(f.0);
            self.far.pop();
        }
        self.ready.sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.ready.is_empty() {
            self.advance();
        }
        let e = self.ready.pop()?;
        debug_assert!(e.time >= self.now, "time went backwards");
        self.len -= 1;
        self.now = e.time;
        Some((e.time, e.ev))
    }

    /// Time of the earliest event without removing it (a walk of one slot's list when the
    /// current slot is exhausted: loops should `pop` and look at the time instead).
    pub fn peek_time(&self) -> Option<SimTime> {
        if let Some(e) = self.ready.last() {
            return Some(e.time);
        }
        let far = self.far.peek().map(|f| f.0.time);
        let s = self.next_wheel_slot();
        let wheel = if s == u64::MAX { None } else { self.list_min(self.heads[(s as usize) & (WHEEL_SLOTS - 1)]) };
        // The first outer bucket holds the outer wheel's earliest entry (which may come before
        // the wheel's: it was pushed from an earlier slot).
        let outer = if self.outer_len > 0 {
            let b = ((self.outer_next >> WHEEL_BITS) as usize) & (OUTER_BUCKETS - 1);
            self.list_min(self.outer_heads[b])
        } else {
            None
        };
        [wheel, far, outer].into_iter().flatten().min()
    }

    /// The earliest time in the slab list starting at `id`.
    fn list_min(&self, mut id: u32) -> Option<SimTime> {
        let mut min = None::<SimTime>;
        while id != NIL {
            let n = &self.nodes[id as usize];
            min = Some(min.map_or(n.entry.time, |m| m.min(n.entry.time)));
            id = n.next;
        }
        min
    }

    /// Time of the last popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn a_queued_entry_with_a_packed_event_takes_24_bytes() {
        assert!(std::mem::size_of::<Entry<u64>>() <= 24);
    }

    #[test]
    fn events_come_out_in_time_order() {
        let mut q = EventQueue::new();
        for (t, e) in [(30u64, 'c'), (10, 'a'), (20, 'b'), (5, 'z')] {
            q.push(SimTime(t), e);
        }
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.0, e)).collect();
        assert_eq!(out, vec![(5, 'z'), (10, 'a'), (20, 'b'), (30, 'c')]);
    }

    #[test]
    fn events_at_the_same_time_come_out_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..1000u32 {
            q.push(SimTime(7 + u64::from(i % 3)), i);
        }
        let mut last = (0u64, None::<u32>);
        while let Some((t, e)) = q.pop() {
            if t.0 == last.0 {
                assert!(last.1.is_none_or(|p| p < e), "FIFO broken at {t:?}");
            }
            last = (t.0, Some(e));
        }
    }

    #[test]
    fn pushing_at_the_current_time_after_a_pop_is_allowed() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), 1u8);
        assert_eq!(q.pop(), Some((SimTime(5), 1)));
        q.push(SimTime(5), 2);
        assert_eq!(q.peek_time(), Some(SimTime(5)));
        assert_eq!(q.pop(), Some((SimTime(5), 2)));
        assert!(q.is_empty());
    }

    #[test]
    fn peeking_does_not_change_what_may_be_pushed_or_what_pops_next() {
        let mut q = EventQueue::new();
        q.push(SimTime(10), 'a');
        q.push(SimTime(30), 'c');
        assert_eq!(q.pop(), Some((SimTime(10), 'a')));
        assert_eq!(q.peek_time(), Some(SimTime(30)));
        q.push(SimTime(20), 'b'); // earlier than the peeked event, later than the last pop
        assert_eq!(q.peek_time(), Some(SimTime(20)));
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.0, e)).collect();
        assert_eq!(out, vec![(20, 'b'), (30, 'c')]);
        assert_eq!((q.len(), q.peek_time(), q.now()), (0, None, SimTime(30)));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "event scheduled in the past")]
    fn scheduling_before_the_last_popped_time_is_caught_in_debug_builds() {
        let mut q = EventQueue::new();
        q.push(SimTime(10), ());
        q.pop();
        q.push(SimTime(9), ());
    }

    #[test]
    fn the_largest_times_and_far_future_timers_keep_their_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(u64::MAX), 3u8);
        q.push(SimTime(1 << 40), 2);
        q.push(SimTime(1), 1);
        q.push(SimTime(u64::MAX), 4);
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(out, vec![1, 2, 3, 4]);
    }

    #[test]
    fn events_beyond_the_horizon_and_in_the_wheel_interleave_in_time_order() {
        let horizon = SLOT_NS * WHEEL_SLOTS as u64;
        let mut q = EventQueue::new();
        q.push(SimTime(horizon + 5), 'd'); // far
        q.push(SimTime(3), 'a'); // current slot
        q.push(SimTime(horizon - 1), 'c'); // last wheel slot
        q.push(SimTime(SLOT_NS), 'b'); // next slot
        assert_eq!(q.pop(), Some((SimTime(3), 'a')));
        assert_eq!(q.pop(), Some((SimTime(SLOT_NS), 'b')));
        q.push(SimTime(horizon + 5), 'e'); // now within the horizon: wheel, after the far 'd'
        q.push(SimTime(3 * horizon), 'f');
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(out, vec!['c', 'd', 'e', 'f']);
    }

    /// One wheel horizon (one outer bucket) in nanoseconds.
    const HORIZON: u64 = SLOT_NS * WHEEL_SLOTS as u64;

    #[test]
    fn entries_at_the_edges_of_outer_buckets_cascade_in_time_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(1), 'a');
        assert_eq!(q.pop(), Some((SimTime(1), 'a')));
        // From slot 0: the last slot of outer bucket 2 and the first of bucket 3, pushed in
        // reverse order; bucket 1's first slot; one beyond the outer wheel (the heap).
        q.push(SimTime(3 * HORIZON), 'e');
        q.push(SimTime(3 * HORIZON - 1), 'd');
        q.push(SimTime(HORIZON), 'b');
        q.push(SimTime(HORIZON * (OUTER_BUCKETS as u64 + 2)), 'g');
        assert_eq!(q.pop(), Some((SimTime(HORIZON), 'b')));
        // Now the wheel reaches into bucket 2: a wheel entry before the outer ones in bucket 2,
        // and one at the very time of an outer entry (after it: pushed later).
        q.push(SimTime(2 * HORIZON + 7), 'c');
        q.push(SimTime(3 * HORIZON - 1), 'd');
        q.push(SimTime(3 * HORIZON + 1), 'f');
        assert_eq!(q.peek_time(), Some(SimTime(2 * HORIZON + 7)));
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(out, vec!['c', 'd', 'd', 'e', 'f', 'g']);
    }

    /// The cost the outer wheel is for: deadlines up to 137 s ahead never enter the heap, and
    /// a wake-up that is never popped early costs no heap operation when it comes out.
    #[test]
    fn retransmission_timer_deadlines_wait_in_the_outer_wheel_not_the_heap() {
        let mut q = EventQueue::new();
        for i in 0..1000u64 {
            q.push(SimTime(200_000_000 + i * 60_000_000), i); // 200 ms .. 60 s
        }
        assert!(q.far.is_empty());
        assert_eq!((q.outer_len, q.wheel_len), (1000, 0));
        assert_eq!(q.peek_time(), Some(SimTime(200_000_000)));
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(out, (0..1000).collect::<Vec<_>>());
        assert_eq!((q.outer_len, q.wheel_len, q.outer_next), (0, 0, u64::MAX));
    }

    /// One step of a random workload: pop, push at `last popped time + delay`, or push within
    /// `SLOT_NS` either side of the start of the `k`-th outer bucket from the current one.
    #[derive(Clone, Debug)]
    enum Op {
        Pop,
        Push(u64),
        PushAtBucketEdge(u64, u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => Just(Op::Pop),
            1 => Just(Op::Push(0)),
            2 => (0u64..50).prop_map(Op::Push),
            2 => (0u64..4 * SLOT_NS).prop_map(Op::Push),
            2 => (0u64..2 * HORIZON).prop_map(Op::Push),
            2 => (0u64..6 * HORIZON).prop_map(Op::Push),
            1 => (0u64..(OUTER_BUCKETS as u64 + 2) * HORIZON).prop_map(Op::Push),
            1 => (1u64..4, 0u64..2 * SLOT_NS).prop_map(|(k, d)| Op::PushAtBucketEdge(k, d)),
            1 => (OUTER_BUCKETS as u64 - 2..OUTER_BUCKETS as u64 + 2, 0u64..2 * SLOT_NS)
                .prop_map(|(k, d)| Op::PushAtBucketEdge(k, d)),
            1 => (0u64..1 << 40).prop_map(Op::Push),
            1 => (0u64..=u64::MAX / 2).prop_map(Op::Push),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn random_push_and_pop_sequences_match_a_binary_heap_by_time_and_insertion_order(
            ops in proptest::collection::vec(op(), 1..2000),
        ) {
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let (mut now, mut seq) = (0u64, 0u32);
            for o in ops {
                let at = match o {
                    Op::Push(d) => Some(now.saturating_add(d)),
                    Op::PushAtBucketEdge(k, d) => {
                        Some((now / HORIZON + k).saturating_mul(HORIZON).saturating_add(d).saturating_sub(SLOT_NS).max(now))
                    }
                    Op::Pop => None,
                };
                match at {
                    Some(t) => {
                        q.push(SimTime(t), seq);
                        reference.push(Reverse((t, seq)));
                        seq += 1;
                    }
                    None => {
                        prop_assert_eq!(q.peek_time().map(|t| t.0), reference.peek().map(|r| r.0 .0));
                        let got = q.pop().map(|(t, e)| (t.0, e));
                        prop_assert_eq!(got, reference.pop().map(|r| r.0));
                        if let Some((t, _)) = got {
                            now = t;
                        }
                    }
                }
                prop_assert_eq!(q.len(), reference.len());
            }
            while let Some(Reverse(want)) = reference.pop() {
                prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(want));
            }
            prop_assert!(q.is_empty());
        }
    }
}

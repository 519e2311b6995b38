//! The event queue: a binary heap ordered by (time, insertion counter).
//!
//! Events scheduled for the same nanosecond come out in the order they were pushed (FIFO), so
//! a run never depends on the heap's internal layout. Entries are small (`time`, `seq`, a
//! payload `E`); the simulator packs its events into a `u64`, giving 24-byte heap entries.
//! Time never goes backwards: pushing an event before the last popped time, or popping one,
//! is a programming error caught by a debug assertion.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use tcplab_time::SimTime;

/// One heap entry. Ordering is reversed so that `BinaryHeap` (a max-heap) pops the earliest.
#[derive(Copy, Clone, Debug)]
pub struct Entry<E> {
    time: SimTime,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

/// Min-queue of events by (time, insertion order).
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::new(), next_seq: 0, now: SimTime::ZERO }
    }

    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(n), next_seq: 0, now: SimTime::ZERO }
    }

    /// Schedules `ev` at `time` (not earlier than the last popped event).
    #[inline]
    pub fn push(&mut self, time: SimTime, ev: E) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time:?} < {:?}", self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, ev });
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        debug_assert!(e.time >= self.now, "time went backwards");
        self.now = e.time;
        Some((e.time, e.ev))
    }

    /// Time of the earliest event without removing it.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Time of the last popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heap_entry_with_a_packed_event_takes_24_bytes() {
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
}

//! DropTail queues as plain structs.
//!
//! The queue holds the packets *waiting* for the transmitter; the packet being serialised is
//! not counted (as in ns-3's `DropTailQueue` in front of a `PointToPointNetDevice`). A packet
//! that finds the transmitter idle starts at once and never occupies the queue, so a limit of
//! 0 packets still passes traffic when the link is idle.
//!
//! Because a link transmits FIFO at a fixed rate, the time each waiting packet will start
//! transmission is known when it is enqueued; the link computes it and the queue stores it.
//! The queue then needs no dequeue event: at each `enqueue` it first releases the packets
//! whose start time has come (`start <= now`). This halves the simulator's events per hop.

use std::collections::VecDeque;
use tcplab_time::units::QueueLimit;
use tcplab_time::SimTime;

/// Why a packet was dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The DropTail queue was full.
    QueueFull,
    /// The link's loss model discarded it.
    LossModel,
    /// TTL reached zero at a router (explicit routes that form a loop).
    TtlExpired,
    /// RED dropped it (early or forced; see `red`).
    Red,
}

impl DropReason {
    pub const ALL: [DropReason; 4] =
        [DropReason::QueueFull, DropReason::LossModel, DropReason::TtlExpired, DropReason::Red];
    /// How many of [`DropReason::ALL`] every `events` table lists in its `reason` dictionary;
    /// later reasons are listed only by runs that record them, so the tables of runs without
    /// RED are unchanged.
    pub const BASE: usize = 3;
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::LossModel => "loss_model",
            DropReason::TtlExpired => "ttl_expired",
            DropReason::Red => "red",
        }
    }
}

/// Result of offering a packet to a queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Enqueue {
    Accepted,
    Dropped(DropReason),
}

/// A waiting packet: when it will start transmission and its wire length.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Waiting {
    start: SimTime,
    len: u32,
}

/// A DropTail (tail-drop FIFO) queue limited in packets or bytes.
#[derive(Clone, Debug)]
pub struct DropTail {
    limit: QueueLimit,
    waiting: VecDeque<Waiting>,
    bytes: u64,
    max_packets: u64,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit, waiting: VecDeque::new(), bytes: 0, max_packets: 0 }
    }

    /// Forgets the packets that have started transmission by `now`.
    #[inline]
    fn release(&mut self, now: SimTime) {
        while let Some(w) = self.waiting.front() {
            if w.start > now {
                break;
            }
            self.bytes -= u64::from(w.len);
            self.waiting.pop_front();
        }
    }

    /// Offers a packet of `len` bytes that will start transmission at `start` (> `now`).
    #[inline]
    pub fn enqueue(&mut self, len: u32, start: SimTime, now: SimTime) -> Enqueue {
        self.release(now);
        let fits = match self.limit {
            QueueLimit::Packets(n) => (self.waiting.len() as u64) < n,
            QueueLimit::Bytes(b) => self.bytes + u64::from(len) <= b,
        };
        if !fits {
            return Enqueue::Dropped(DropReason::QueueFull);
        }
        debug_assert!(self.waiting.back().is_none_or(|w| w.start <= start));
        self.waiting.push_back(Waiting { start, len });
        self.bytes += u64::from(len);
        self.max_packets = self.max_packets.max(self.waiting.len() as u64);
        Enqueue::Accepted
    }

    /// Packets waiting at `now`.
    pub fn len_at(&mut self, now: SimTime) -> usize {
        self.release(now);
        self.waiting.len()
    }

    /// Bytes waiting at `now`.
    pub fn bytes_at(&mut self, now: SimTime) -> u64 {
        self.release(now);
        self.bytes
    }

    /// Largest number of waiting packets seen.
    pub fn max_packets(&self) -> u64 {
        self.max_packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: SimTime = SimTime(0);

    #[test]
    fn droptail_in_packets_drops_the_packet_beyond_the_limit() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert_eq!(q.enqueue(1500, SimTime(10), T0), Enqueue::Accepted);
        assert_eq!(q.enqueue(1500, SimTime(20), T0), Enqueue::Accepted);
        assert_eq!(q.enqueue(40, SimTime(30), T0), Enqueue::Dropped(DropReason::QueueFull));
        assert_eq!(q.len_at(T0), 2);
        assert_eq!(q.max_packets(), 2);
    }

    #[test]
    fn droptail_in_bytes_admits_small_packets_that_still_fit() {
        let mut q = DropTail::new(QueueLimit::Bytes(3000));
        assert_eq!(q.enqueue(1500, SimTime(10), T0), Enqueue::Accepted);
        assert_eq!(q.enqueue(1460, SimTime(20), T0), Enqueue::Accepted);
        assert_eq!(q.enqueue(100, SimTime(30), T0), Enqueue::Dropped(DropReason::QueueFull));
        assert_eq!(q.enqueue(40, SimTime(30), T0), Enqueue::Accepted);
        assert_eq!(q.bytes_at(T0), 3000);
    }

    #[test]
    fn packets_leave_the_queue_when_their_transmission_starts() {
        let mut q = DropTail::new(QueueLimit::Packets(1));
        assert_eq!(q.enqueue(1500, SimTime(10), T0), Enqueue::Accepted);
        assert_eq!(q.enqueue(1500, SimTime(20), SimTime(9)), Enqueue::Dropped(DropReason::QueueFull));
        // At t = 10 the first packet is on the wire, so there is room again.
        assert_eq!(q.enqueue(1500, SimTime(20), SimTime(10)), Enqueue::Accepted);
        assert_eq!(q.len_at(SimTime(20)), 0);
    }
}

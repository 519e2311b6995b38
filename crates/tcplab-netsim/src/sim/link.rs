//! One direction of a full-duplex point-to-point link: transmitter, DropTail queue, loss
//! model, propagation delay and counters.
//!
//! Link directions are numbered `2 * link + dir`, `dir` 0 for a → b and 1 for b → a.
//!
//! The transmitter is modelled by the time it becomes free (`busy_until`). A packet offered
//! at `now` starts at `max(now, busy_until)`; if that is later than `now` it must fit in the
//! queue. It then occupies the transmitter for `Bandwidth::tx_time(wire_len)` and arrives at
//! the far node `delay` after its last bit left. Loss applies when it starts (see `loss`).
//!
//! Arrival times on one direction strictly increase (FIFO transmitter, every packet takes at
//! least 1 ns, constant delay), so the packets in flight wait in a FIFO and the simulator keeps
//! only the head's arrival in its event heap. The FIFO is a list threaded through the packet
//! arena (each packet holds the id and arrival time of the one behind it, `Packet::next` and
//! `Packet::next_at`), not a ring buffer per direction: at 1000 flows there are 4004
//! directions, and writing into and reading from 4004 separately allocated rings cost a cache
//! miss on most pushes and pops, while the packets themselves are touched anyway (the head is
//! read when it arrives, and the tail is usually the packet sent just before, still in cache).
//!
//! Wireless dynamics (`LinkSpec::dynamics`, all optional and boxed so a plain link pays one
//! branch per packet): a bandwidth schedule (`bandwidth_schedule`: the rate is the one in
//! force when a packet starts) and delay spikes (`delay_spike`: packets that would arrive
//! during a spike arrive at its end, in order; a full link buffer makes the transmitter wait
//! for the end). Held packets share an arrival time, so arrival times then only *not
//! decrease*; the FIFO still holds.
//!
//! Reordering (`LinkDynamics::reorder_ab`/`reorder_ba`, see `reorder`) breaks that order on
//! purpose: a reordering direction adds the model's extra delay to each arrival and keeps its
//! packets in flight in `reorder::ReorderFlight` (a heap) instead of the FIFO. A direction
//! without reordering never touches that state (one flag on the transmit line, in padding).

use super::bandwidth_schedule::BandwidthSchedule;
use super::delay_spike::{self, SpikeState};
use super::loss::LossModel;
use super::packet::{PacketArena, PacketId};
use super::queue::{DropReason, DropTail, Enqueue};
use super::red::{Red, RedArrival, RedVerdict};
use super::reorder::Reorder;
use crate::spec::{LinkSpec, QueueSpec};
use tcplab_time::{Bandwidth, SimDuration, SimTime};

/// Index of a link direction: `2 * link + dir`.
pub type LinkDir = u32;

/// `2 * link + dir`.
#[inline]
pub const fn link_dir(link: usize, dir: usize) -> LinkDir {
    (2 * link + dir) as LinkDir
}

/// Counters of one direction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    /// Packets that started transmission (including those the loss model then dropped).
    pub packets: u64,
    pub bytes: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
}

/// A packet offered to a link direction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    /// Bytes on the wire.
    pub wire_len: u32,
    pub flow: u32,
    /// Bytes of TCP payload.
    pub payload: u32,
    /// The packet is ECN-capable (ECT(0) or ECT(1)): an AQM may mark it instead of dropping.
    pub ect: bool,
}

/// What happened to an offered packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Transmission starts at `start`; the last bit arrives at `arrive` unless `lost`;
    /// `marked`: the queue set CE (RFC 3168 §5).
    Transmit { start: SimTime, arrive: SimTime, lost: bool, marked: bool },
    Dropped(DropReason),
}

/// State of one link direction.
///
/// Field order is the memory layout (`repr(C)`, 64-byte aligned, one cache line per group):
/// with 1000 flows there are 4004 directions and most of them are touched once per packet,
/// cold. An arrival (`pop_arrival`, `next_arrival`, `to`) touches only line 0 (plus the
/// arriving packet, which the simulator reads anyway); a transmission (`admit`,
/// `push_arrival`, `captured`) lines 0 and 1, plus the queue when packets wait.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct LinkDirState {
    // Line 0: arrival and transmission.
    /// The first packet in flight and its arrival time (`NO_PACKET`: none).
    head_at: SimTime,
    head_id: PacketId,
    /// The last packet in flight (valid while `head_id` is): `push_arrival` links behind it.
    tail_id: PacketId,
    pub to: u32,
    /// The wire length `memo_tx` is for (0: none; see `memo_tx`).
    memo_len: u32,
    busy_until: SimTime,
    pub delay: SimDuration,
    /// The last serialisation time computed, for `memo_len` bytes: a direction carries mostly
    /// one packet size (full data segments one way, ACKs the other), and `Bandwidth::tx_time`
    /// is a 128-bit division (`__udivti3`, ~4 % of a 10 × 1 Gb/s run).
    memo_tx: SimDuration,
    /// Delay spikes and bandwidth changes; `None` for a plain link.
    pub dynamics: Option<Box<Dynamics>>,
    /// The loss model, out of line; `None` for `LossModel::None` (never drops, no state).
    pub loss: Option<Box<LossModel>>,
    // Line 1: transmission.
    /// `capture.is_some()`, here for the transmit path.
    captured: bool,
    /// `reorder.is_some()`, here for the transmit path (in the padding after `captured`).
    reordered: bool,
    pub stats: DirStats,
    // Cold: rarely read.
    /// Index of the pcap writer capturing this link, if any (set with `set_capture`).
    capture: Option<u32>,
    pub from: u32,
    pub bandwidth: Bandwidth,
    pub queue: DropTail,
    /// RED in front of `queue` (`QueueSpec::Red`); `None`: drop-tail only.
    pub red: Option<Box<Red>>,
    /// Reordering model and the packets in flight out of order; `None`: FIFO delivery.
    pub reorder: Option<Box<Reorder>>,
}

/// `LinkDirState::head_id` when no packet is in flight (arena ids are far below).
const NO_PACKET: PacketId = PacketId::MAX;

/// The time-varying parts of one link direction.
#[derive(Clone, Debug)]
pub struct Dynamics {
    pub spikes: Option<SpikeState>,
    pub schedule: Option<BandwidthSchedule>,
}

impl Dynamics {
    /// Start time and serialisation time of a packet of `len` bytes that could start at
    /// `start`: the rate in force then, and a wait for the end of a spike whose link buffer is
    /// full.
    #[inline]
    fn start_and_tx(&self, mut start: SimTime, len: u64, delay: SimDuration, bw: Bandwidth) -> (SimTime, SimDuration) {
        loop {
            let rate = self.schedule.as_ref().map_or(bw, |s| s.rate_at(start));
            let tx = rate.tx_time(len);
            match self.spikes.as_ref().and_then(|sp| sp.defer(start, start + tx + delay, len)) {
                Some(end) if end > start => start = end,
                _ => return (start, tx),
            }
        }
    }

    /// The packet starts at `start`; returns when it is delivered.
    #[inline]
    fn commit(&mut self, start: SimTime, arrive: SimTime, len: u64, lost: bool) -> SimTime {
        if let Some(s) = &mut self.schedule {
            s.commit(start);
        }
        match &mut self.spikes {
            Some(sp) => sp.commit(arrive, len, lost),
            None => arrive,
        }
    }
}


impl LinkDirState {
    /// Direction `dir` of `spec` (link number `link`).
    pub fn new(spec: &LinkSpec, link: usize, dir: usize, seed: u64) -> Self {
        let (from, to, loss, reorder, nth) = if dir == 0 {
            (spec.a, spec.b, &spec.loss_ab, &spec.dynamics.reorder_ab, &spec.dynamics.reorder_nth_ab)
        } else {
            (spec.b, spec.a, &spec.loss_ba, &spec.dynamics.reorder_ba, &spec.dynamics.reorder_nth_ba)
        };
        let reorder = (reorder.is_some() || nth.is_some())
            .then(|| Box::new(Reorder::new(reorder.as_ref(), nth.as_ref(), seed, link, dir)));
        let red = match spec.queue {
            QueueSpec::DropTail { .. } => None,
            QueueSpec::Red { red, .. } => Some(Box::new(Red::new(red, spec.bandwidth, seed, link, dir))),
        };
        let limit = spec.queue.limit();
        LinkDirState {
            from: from as u32,
            to: to as u32,
            bandwidth: spec.bandwidth,
            delay: spec.delay,
            busy_until: SimTime::ZERO,
            queue: DropTail::new(limit),
            red,
            loss: match LossModel::new(loss, seed, link, dir) {
                LossModel::None => None,
                m => Some(Box::new(m)),
            },
            stats: DirStats::default(),
            capture: None,
            head_at: SimTime::ZERO,
            head_id: NO_PACKET,
            tail_id: NO_PACKET,
            dynamics: None,
            memo_tx: SimDuration::ZERO,
            memo_len: 0,
            captured: false,
            reordered: reorder.is_some(),
            reorder,
        }
    }

    /// Adds the link's wireless dynamics (spikes and bandwidth changes generated for a run of
    /// length `end` with `seed`); a plain link stays plain.
    pub fn with_dynamics(mut self, spec: &LinkSpec, link: usize, dir: usize, seed: u64, end: SimDuration) -> Self {
        let d = &spec.dynamics;
        if d.is_static() {
            return self;
        }
        let (spikes, bw_steps) = delay_spike::generate(d, seed, link, end);
        let spikes = if d.spike_direction.hits(dir) { spikes } else { Vec::new() };
        let mut changes: Vec<(SimTime, Bandwidth)> =
            d.bandwidth_schedule.iter().map(|&(t, bw)| (SimTime::ZERO + t, bw)).collect();
        changes.extend(bw_steps);
        changes.sort_by_key(|c| c.0);
        let dynamics = Dynamics {
            spikes: SpikeState::new(d, spikes, seed, link, dir),
            schedule: BandwidthSchedule::new(spec.bandwidth, &changes),
        };
        if dynamics.spikes.is_some() || dynamics.schedule.is_some() {
            self.dynamics = Some(Box::new(dynamics));
        }
        self
    }

    /// Offers packet `o` at `now`.
    #[inline]
    pub fn admit(&mut self, o: Offer, now: SimTime) -> Admit {
        let Offer { wire_len, flow, payload, ect } = o;
        let start = if self.busy_until > now { self.busy_until } else { now };
        let len = u64::from(wire_len);
        let (start, tx) = match self.dynamics.as_deref() {
            None => (start, self.tx_time(wire_len)),
            Some(d) => d.start_and_tx(start, len, self.delay, self.bandwidth),
        };
        let mut marked = false;
        if self.red.is_some() {
            match self.red_verdict(wire_len, ect, now) {
                RedVerdict::Pass => {}
                RedVerdict::Mark => marked = true,
                RedVerdict::Drop { .. } => {
                    self.stats.drops_queue += 1;
                    return Admit::Dropped(DropReason::Red);
                }
            }
        }
        if start > now {
            if let Enqueue::Dropped(r) = self.queue.enqueue(wire_len, start, now) {
                self.stats.drops_queue += 1;
                return Admit::Dropped(r);
            }
        }
        if marked {
            if let Some(red) = self.red.as_deref_mut() {
                red.stats.marks += 1;
            }
        }
        let done = start + tx;
        self.busy_until = done;
        self.stats.packets += 1;
        self.stats.bytes += len;
        let lost = self.loss.as_deref_mut().is_some_and(|m| m.should_drop(flow, payload, start));
        if lost {
            self.stats.drops_loss += 1;
        }
        let mut arrive = match self.dynamics.as_deref_mut() {
            None => done + self.delay,
            Some(d) => d.commit(start, done + self.delay, len, lost),
        };
        if self.reordered {
            if let Some(r) = self.reorder.as_deref_mut() {
                arrive += r.extra_delay(flow, payload);
            }
        }
        Admit::Transmit { start, arrive, lost, marked }
    }

    /// RED's decision on a packet arriving at `now` (the link has RED).
    #[inline(never)]
    fn red_verdict(&mut self, wire_len: u32, ect: bool, now: SimTime) -> RedVerdict {
        let Some(red) = self.red.as_deref_mut() else { return RedVerdict::Pass };
        let q = if red.bytes_mode() { self.queue.bytes_at(now) } else { self.queue.len_at(now) as u64 };
        // Idle: nothing waits and the transmitter finished its last packet at `busy_until`.
        let idle_since = (q == 0 && self.busy_until <= now).then_some(self.busy_until);
        red.on_arrival(&RedArrival { now, q, idle_since, len: wire_len, ect })
    }

    /// Serialisation time of `wire_len` bytes (memoised for the last size).
    #[inline]
    fn tx_time(&mut self, wire_len: u32) -> SimDuration {
        // wire_len ≥ the IPv4 header, so 0 never matches.
        if self.memo_len == wire_len {
            self.memo_tx
        } else {
            let t = self.bandwidth.tx_time(u64::from(wire_len));
            (self.memo_len, self.memo_tx) = (wire_len, t);
            t
        }
    }

    /// Whether this direction reorders (its arrivals are `ArriveReordered` events, see `reorder`).
    #[inline]
    pub fn reordered(&self) -> bool {
        self.reordered
    }

    /// Adds a packet arriving at `arrive` to a reordering direction; returns the generation of
    /// the `ArriveReordered` event to schedule at `arrive` if it now arrives first.
    #[inline(never)]
    pub fn push_reordered(&mut self, arrive: SimTime, id: PacketId) -> Option<u32> {
        self.reorder.as_deref_mut().and_then(|r| r.flight.push(arrive, id))
    }

    /// The `ArriveReordered` event of generation `gen` fired: the packet (`None`: a stale
    /// event) and the (time, generation) of the next event to schedule, if any.
    #[inline(never)]
    pub fn pop_reordered(&mut self, gen: u32) -> Option<(PacketId, Option<(SimTime, u32)>)> {
        self.reorder.as_deref_mut().and_then(|r| r.flight.pop(gen))
    }

    /// Appends packet `id` (in `packets`), arriving at `arrive`, to the FIFO of a direction
    /// without reordering; returns true if it is now the head (the caller must schedule the
    /// arrival event).
    #[inline]
    pub fn push_arrival(&mut self, arrive: SimTime, id: PacketId, packets: &mut PacketArena) -> bool {
        if self.head_id == NO_PACKET {
            (self.head_at, self.head_id, self.tail_id) = (arrive, id, id);
            return true;
        }
        debug_assert!(self.head_at <= arrive, "arrivals out of order");
        let tail = packets.get_mut(self.tail_id);
        (tail.next_at, tail.next) = (arrive, id);
        self.tail_id = id;
        false
    }

    /// Removes the head packet (its arrival time has come); the next one, if any, is read from
    /// the head's `next` link in `packets`.
    #[inline]
    pub fn pop_arrival(&mut self, packets: &PacketArena) -> PacketId {
        let id = self.head_id;
        assert!(id != NO_PACKET, "an arrival event without a packet in flight");
        if id == self.tail_id {
            (self.head_at, self.head_id) = (SimTime::ZERO, NO_PACKET);
        } else {
            let p = packets.get(id);
            (self.head_at, self.head_id) = (p.next_at, p.next);
        }
        id
    }

    /// Arrival time of the next packet, if any.
    #[inline]
    pub fn next_arrival(&self) -> Option<SimTime> {
        (self.head_id != NO_PACKET).then_some(self.head_at)
    }

    /// Index of the pcap writer capturing this link, if any.
    #[inline]
    pub fn capture(&self) -> Option<u32> {
        self.capture
    }

    /// Captures this direction with pcap writer `idx`.
    pub fn set_capture(&mut self, idx: u32) {
        self.capture = Some(idx);
        self.captured = true;
    }

    /// Whether this direction is captured (`capture().is_some()`, on the transmit line).
    #[inline]
    pub fn captured(&self) -> bool {
        self.captured
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::LossSpec;
    use tcplab_time::units::QueueLimit;

    /// A full-sized data segment, not ECN-capable.
    const DATA: Offer = Offer { wire_len: 1500, flow: 0, payload: 1448, ect: false };

    fn spec(limit: QueueLimit) -> LinkSpec {
        LinkSpec {
            name: "l".into(),
            a: 0,
            b: 1,
            bandwidth: Bandwidth::mbps(10),
            delay: SimDuration::from_millis(5),
            queue: QueueSpec::DropTail { limit },
            loss_ab: LossSpec::None,
            loss_ba: LossSpec::None,
            dynamics: Default::default(),
        }
    }

    #[test]
    fn reordering_moves_arrivals_but_not_the_transmitter() {
        use crate::spec::ReorderSpec;
        let mut s = spec(QueueLimit::Packets(10));
        // p = 1: every packet held back 3 ms.
        s.dynamics.reorder_ab =
            Some(ReorderSpec { p: 1.0, extra: SimDuration::from_millis(3), jitter: SimDuration::ZERO });
        let mut d = LinkDirState::new(&s, 0, 0, 1);
        let mut plain = LinkDirState::new(&spec(QueueLimit::Packets(10)), 0, 0, 1);
        assert!(d.reordered() && !plain.reordered());
        for _ in 0..3 {
            let (Admit::Transmit { start: s1, arrive: a1, .. }, Admit::Transmit { start: s2, arrive: a2, .. }) =
                (d.admit(DATA, SimTime::ZERO), plain.admit(DATA, SimTime::ZERO))
            else {
                panic!("dropped")
            };
            assert_eq!(s1, s2, "serialisation at line rate is unchanged");
            assert_eq!(a1, a2 + SimDuration::from_millis(3));
        }
        assert_eq!(d.reorder.as_ref().map(|r| r.model.picked), Some(3));
        // The other direction has no model.
        assert!(!LinkDirState::new(&s, 0, 1, 1).reordered());
    }

    #[test]
    fn back_to_back_packets_are_serialised_one_after_the_other() {
        let mut d = LinkDirState::new(&spec(QueueLimit::Packets(10)), 0, 0, 1);
        let t0 = SimTime(1_000);
        // 1500 B at 10 Mb/s = 1.2 ms; + 5 ms propagation.
        assert_eq!(
            d.admit(DATA, t0),
            Admit::Transmit { start: t0, arrive: SimTime(1_000 + 6_200_000), lost: false, marked: false }
        );
        assert_eq!(
            d.admit(DATA, t0),
            Admit::Transmit {
                start: SimTime(1_000 + 1_200_000),
                arrive: SimTime(1_000 + 7_400_000),
                lost: false,
                marked: false
            }
        );
        assert_eq!(d.stats.packets, 2);
        assert_eq!(d.queue.max_packets(), 1);
    }

    #[test]
    fn the_memoised_serialisation_time_follows_the_packet_size() {
        let mut d = LinkDirState::new(&spec(QueueLimit::Packets(10)), 0, 0, 1);
        for len in [1500, 1500, 52, 1500, 64, 64] {
            assert_eq!(d.tx_time(len), d.bandwidth.tx_time(u64::from(len)), "{len} B");
        }
    }

    #[test]
    fn the_layout_keeps_arrival_and_transmit_fields_in_two_lines() {
        assert_eq!(std::mem::align_of::<LinkDirState>(), 64);
        assert_eq!(std::mem::offset_of!(LinkDirState, memo_tx), 40);
        assert_eq!(std::mem::offset_of!(LinkDirState, loss), 56);
        assert_eq!(std::mem::offset_of!(LinkDirState, captured), 64);
    }

    #[test]
    fn in_flight_packets_arrive_in_order_through_the_inline_head() {
        let mut d = LinkDirState::new(&spec(QueueLimit::Packets(10)), 0, 0, 1);
        let mut a = PacketArena::new();
        let ids: Vec<PacketId> = (0..6).map(|_| a.alloc(&Default::default(), Default::default())).collect();
        assert_eq!(d.next_arrival(), None);
        assert!(d.push_arrival(SimTime(10), ids[1], &mut a));
        assert!(!d.push_arrival(SimTime(20), ids[2], &mut a));
        assert!(!d.push_arrival(SimTime(30), ids[3], &mut a));
        assert_eq!(d.next_arrival(), Some(SimTime(10)));
        assert_eq!(d.pop_arrival(&a), ids[1]);
        assert_eq!(d.next_arrival(), Some(SimTime(20)));
        assert_eq!(d.pop_arrival(&a), ids[2]);
        assert!(!d.push_arrival(SimTime(40), ids[4], &mut a));
        assert_eq!(d.pop_arrival(&a), ids[3]);
        assert_eq!(d.next_arrival(), Some(SimTime(40)));
        assert_eq!(d.pop_arrival(&a), ids[4]);
        assert_eq!(d.next_arrival(), None);
        assert!(d.push_arrival(SimTime(50), ids[5], &mut a));
        assert_eq!(d.pop_arrival(&a), ids[5]);
        assert_eq!(d.next_arrival(), None);
    }

    #[test]
    fn a_full_queue_drops_and_counts_the_packet() {
        let mut d = LinkDirState::new(&spec(QueueLimit::Packets(1)), 0, 0, 1);
        let t0 = SimTime::ZERO;
        assert!(matches!(d.admit(DATA, t0), Admit::Transmit { .. })); // on the wire
        assert!(matches!(d.admit(DATA, t0), Admit::Transmit { .. })); // waits
        assert_eq!(d.admit(DATA, t0), Admit::Dropped(DropReason::QueueFull));
        assert_eq!(d.stats.drops_queue, 1);
        assert_eq!(d.stats.packets, 2);
    }
}

//! Packet reordering on one link direction: a packet is held back in propagation, so packets
//! sent after it overtake it.
//!
//! **What it follows.** Linux netem (tc-netem(8), iproute2) reorders by delay: with
//! `delay 10ms reorder 25%`, "25% of packets are sent immediately ... while the other are
//! delayed by 10 ms", and with `delay D JITTER` every packet gets its own delay, so with the
//! time-sorted queue of current kernels a packet drawn a longer delay is overtaken. Here the
//! link's own `delay` plays the part of netem's "immediately", and
//!
//! * **`p`, `extra`**: each packet, with probability `p`, arrives `extra` later than it would
//!   otherwise. This is netem's `delay extra reorder (1 − p)` stacked on the link delay, with
//!   the picked share inverted so that `p` is the share of packets that are *displaced* (the
//!   share the analyzer sees as reordered), not the share sent early.
//! * **`jitter`**: each packet arrives a further `U[0, jitter)` later (integer nanoseconds,
//!   the multiply-high of one 64-bit draw). netem's default jitter is `U[delay − jitter,
//!   delay + jitter)`; a jitter of `2j` here is netem's `delay j j` on top of the link delay.
//!
//! Not modelled: netem's correlation (each draw is independent) and `gap` (every gap-th packet).
//!
//! **Deterministic picks** (`reorder_ab = { flow = 0, nth = [150, 350], extra = "8ms" }`,
//! `ReorderNthSpec`, [`NthPick`]): the listed 1-based data packets of one flow arrive `extra`
//! later, nothing random. Packets are counted exactly as `drop_nth` counts them (payload > 0,
//! retransmissions included, every packet of the flow that starts transmission on this
//! direction, lost or not), so a scenario can name the same occurrence for both. This is the
//! real-kernel harness's "delay the original of segment i by d" (`validation/linux/`), which
//! the random model cannot express. A direction has either the random model or the picks
//! (the scenario loader rejects `nth` together with `p` or `jitter`).
//!
//! **Ambiguities, resolved:**
//! * *Propagation, not transmission.* The transmitter still serialises back to back at line
//!   rate (`busy_until` is not moved), the queue is unchanged, and the pcap record is still
//!   written when a packet *starts* transmission: only the arrival at the far end moves.
//! * *Which packets draw.* Every packet that starts transmission draws, lost or not, in FIFO
//!   transmission order (as loss draws do), so the picks are the same whatever the loss model
//!   decides. Draw order per packet: the pick (if `p > 0`), then the jitter (if `jitter > 0`).
//! * *Delay spikes.* The extra delay is added after a spike's hold (`delay_spike`): a picked
//!   packet released at a spike's end arrives `extra` after the release.
//! * *Ties.* Packets with the same arrival time arrive in the order they were sent.
//! * *RNG.* A stream of its own per (seed, link, direction) (`seed::reorder_rng`, domain
//!   `DOMAIN_REORDER`): turning reordering on changes no other random stream, and
//!   `p = 0` (the model present, never picking) gives exactly the run without the model.
//!
//! **In flight.** A FIFO direction keeps its packets in `LinkDirState`'s inline-head FIFO and
//! one `Arrive` event for the head. A reordering direction keeps them here in a binary heap by
//! (arrival time, send sequence), and also has one live arrival event, for the heap's
//! minimum (`Event::ArriveReordered`). When a new packet becomes the minimum (it overtakes
//! every packet in flight) a new event is scheduled and the old one goes stale: events carry a
//! generation (`gen`, from 1) and an event whose generation is not the direction's current
//! one is skipped. The heap keeps its capacity, so steady state allocates nothing.

use super::packet::PacketId;
use super::seed::{reorder_rng, unit_f64};
use crate::spec::{ReorderNthSpec, ReorderSpec};
use rand::RngCore;
use rand_pcg::Pcg64Mcg;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tcplab_time::{SimDuration, SimTime};

/// Largest arrival generation: `Event::ArriveReordered` packs it into the 28 bits between the link
/// direction (low 32 bits) and the event tag (top 4 bits). Generations wrap to 1; a stale
/// event is at most `extra + jitter` old, far fewer re-arms than 2^28.
pub const MAX_GEN: u32 = (1 << 28) - 1;

/// The random part: which packets are held back, and by how much.
#[derive(Clone, Debug)]
pub struct ReorderModel {
    p: f64,
    extra: SimDuration,
    /// Jitter bound in ns (0: no jitter draw).
    jitter: u64,
    rng: Pcg64Mcg,
    /// Packets picked with probability `p` so far.
    pub picked: u64,
}

impl ReorderModel {
    /// The model of link `link`, direction `dir` (0 = a→b, 1 = b→a), for run seed `seed`.
    pub fn new(spec: &ReorderSpec, seed: u64, link: usize, dir: usize) -> Self {
        ReorderModel { p: spec.p, extra: spec.extra, jitter: spec.jitter.0, rng: reorder_rng(seed, link, dir), picked: 0 }
    }

    /// The extra propagation delay of the next packet that starts transmission. Out of line, so
    /// that `LinkDirState::admit` stays small for links without reordering.
    #[inline(never)]
    pub fn extra_delay(&mut self) -> SimDuration {
        let mut d = SimDuration::ZERO;
        if self.p > 0.0 && unit_f64(self.rng.next_u64()) < self.p {
            self.picked += 1;
            d = self.extra;
        }
        if self.jitter > 0 {
            // Multiply-high: ⌊x · jitter / 2^64⌋ is in [0, jitter).
            d = d + SimDuration(((u128::from(self.rng.next_u64()) * u128::from(self.jitter)) >> 64) as u64);
        }
        d
    }
}

/// The deterministic part: which listed occurrences of one flow's data packets are held back
/// (see the module doc, "Deterministic picks").
#[derive(Clone, Debug)]
pub struct NthPick {
    flow: u32,
    /// Sorted, deduplicated, 1-based occurrences.
    nth: Vec<u64>,
    /// Index in `nth` of the next occurrence to hold back.
    next: usize,
    /// Data packets of `flow` seen so far.
    seen: u64,
    extra: SimDuration,
    /// Packets held back so far.
    pub picked: u64,
}

impl NthPick {
    pub fn new(spec: &ReorderNthSpec) -> Self {
        let mut nth = spec.nth.clone();
        nth.sort_unstable();
        nth.dedup();
        NthPick { flow: spec.flow as u32, nth, next: 0, seen: 0, extra: spec.extra, picked: 0 }
    }

    /// The extra propagation delay of a packet of `flow` with `payload` bytes that starts
    /// transmission now (counted as `LossModel::DropNth` counts).
    pub fn extra_delay(&mut self, flow: u32, payload: u32) -> SimDuration {
        if flow != self.flow || payload == 0 {
            return SimDuration::ZERO;
        }
        self.seen += 1;
        if self.nth.get(self.next) == Some(&self.seen) {
            self.next += 1;
            self.picked += 1;
            self.extra
        } else {
            SimDuration::ZERO
        }
    }
}

/// Packets in flight on a reordering direction, earliest arrival first.
#[derive(Clone, Debug, Default)]
pub struct ReorderFlight {
    /// (arrival, send sequence, packet): the sequence breaks ties in send order.
    heap: BinaryHeap<Reverse<(SimTime, u64, PacketId)>>,
    seq: u64,
    /// Generation of the live `ArriveReordered` event (0: none scheduled yet).
    gen: u32,
}

impl ReorderFlight {
    fn next_gen(&mut self) -> u32 {
        self.gen = if self.gen >= MAX_GEN { 1 } else { self.gen + 1 };
        self.gen
    }

    /// Adds a packet arriving at `arrive`; if it arrives before every packet in flight, returns
    /// the generation of the `ArriveReordered` event the caller must schedule at `arrive`.
    pub fn push(&mut self, arrive: SimTime, id: PacketId) -> Option<u32> {
        let first = self.heap.peek().is_none_or(|Reverse((t, _, _))| arrive < *t);
        self.heap.push(Reverse((arrive, self.seq, id)));
        self.seq += 1;
        first.then(|| self.next_gen())
    }

    /// The `ArriveReordered` event of generation `gen` fired: `None` if it is stale, else the arriving
    /// packet and, if packets remain, the (time, generation) of the event to schedule next.
    pub fn pop(&mut self, gen: u32) -> Option<(PacketId, Option<(SimTime, u32)>)> {
        if gen != self.gen {
            return None;
        }
        let Reverse((_, _, id)) = self.heap.pop()?;
        let next = self.heap.peek().map(|&Reverse((t, _, _))| t).map(|t| (t, self.next_gen()));
        Some((id, next))
    }

    /// Packets in flight.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// The reordering state of one link direction (boxed, out of line in `LinkDirState`).
#[derive(Clone, Debug)]
pub struct Reorder {
    /// The random model (`p`, `extra`, `jitter`); all zero with deterministic picks (then it
    /// never draws).
    pub model: ReorderModel,
    /// Deterministic picks (`nth`), if configured.
    pub nth: Option<NthPick>,
    pub flight: ReorderFlight,
}

impl Reorder {
    /// The state of a direction with the random model `spec` and/or the picks `nth`.
    pub fn new(spec: Option<&ReorderSpec>, nth: Option<&ReorderNthSpec>, seed: u64, link: usize, dir: usize) -> Self {
        let random = spec.copied().unwrap_or_default();
        Reorder { model: ReorderModel::new(&random, seed, link, dir), nth: nth.map(NthPick::new), flight: ReorderFlight::default() }
    }

    /// The extra propagation delay of the next packet (of `flow`, `payload` bytes) that starts
    /// transmission: the random model's draw plus a deterministic pick's delay.
    #[inline(never)]
    pub fn extra_delay(&mut self, flow: u32, payload: u32) -> SimDuration {
        let d = self.model.extra_delay();
        match self.nth.as_mut() {
            Some(n) => d + n.extra_delay(flow, payload),
            None => d,
        }
    }
}

/// Checks a deterministic reordering spec against the run's flow count; returns (field,
/// message) naming the bad key.
pub fn validate_nth(spec: &ReorderNthSpec, n_flows: usize) -> Result<(), (&'static str, String)> {
    if spec.flow >= n_flows {
        return Err(("flow", format!("no flow {}: the run has {n_flows} flow(s), numbered from 0", spec.flow)));
    }
    if spec.nth.is_empty() || spec.nth.contains(&0) {
        return Err(("nth", "must list occurrences counted from 1, like [150]".into()));
    }
    if spec.extra == SimDuration::ZERO {
        return Err(("extra", "must be greater than zero (the delay of a listed packet)".into()));
    }
    Ok(())
}

/// Checks a reordering spec; returns (field, message) naming the bad key.
pub fn validate(spec: &ReorderSpec) -> Result<(), (&'static str, String)> {
    if !(0.0..=1.0).contains(&spec.p) {
        return Err(("p", format!("reorder probability must be in [0,1], not {}", spec.p)));
    }
    if spec.p > 0.0 && spec.extra == SimDuration::ZERO {
        return Err(("extra", "must be greater than zero when p > 0 (the delay that reorders a picked packet)".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(p: f64, extra_ms: u64, jitter_ms: u64) -> ReorderSpec {
        ReorderSpec { p, extra: SimDuration::from_millis(extra_ms), jitter: SimDuration::from_millis(jitter_ms) }
    }

    /// Draws for `n` packets.
    fn draws(s: &ReorderSpec, seed: u64, n: usize) -> Vec<SimDuration> {
        let mut m = ReorderModel::new(s, seed, 3, 0);
        (0..n).map(|_| m.extra_delay()).collect()
    }

    #[test]
    fn the_picked_share_is_p_and_picked_packets_get_exactly_extra() {
        let n = 200_000;
        let d = draws(&spec(0.01, 5, 0), 42, n);
        let picked = d.iter().filter(|&&x| x == SimDuration::from_millis(5)).count();
        assert_eq!(picked + d.iter().filter(|&&x| x == SimDuration::ZERO).count(), n, "only 0 or extra");
        // sd = sqrt(p(1-p)/n) ≈ 0.00022; allow 5 sd.
        let rate = picked as f64 / n as f64;
        assert!((rate - 0.01).abs() < 0.0011, "rate {rate}");
    }

    #[test]
    fn jitter_is_uniform_below_its_bound() {
        let n = 100_000;
        let j = SimDuration::from_millis(2);
        let d = draws(&spec(0.0, 0, 2), 7, n);
        assert!(d.iter().all(|&x| x < j));
        let mean = d.iter().map(|x| x.0 as f64).sum::<f64>() / n as f64;
        // U[0, 2 ms): mean 1 ms, sd of the mean 2/sqrt(12 n) ms ≈ 0.0018 ms.
        assert!((mean - 1e6).abs() < 1e4, "mean {mean}");
    }

    #[test]
    fn same_seed_same_draws_other_seed_or_direction_other_draws() {
        let s = spec(0.1, 5, 1);
        assert_eq!(draws(&s, 1, 1000), draws(&s, 1, 1000));
        assert_ne!(draws(&s, 1, 1000), draws(&s, 2, 1000));
        let mut b = ReorderModel::new(&s, 1, 3, 1);
        assert_ne!(draws(&s, 1, 1000), (0..1000).map(|_| b.extra_delay()).collect::<Vec<_>>());
    }

    #[test]
    fn p_zero_without_jitter_never_delays() {
        assert!(draws(&spec(0.0, 5, 0), 1, 10_000).iter().all(|&x| x == SimDuration::ZERO));
    }

    #[test]
    fn the_heap_releases_in_arrival_order_ties_in_send_order_and_stale_events_are_skipped() {
        let mut f = ReorderFlight::default();
        let g1 = f.push(SimTime(100), 1).unwrap(); // first in flight: schedule
        assert_eq!(f.push(SimTime(50), 2), Some(g1 + 1)); // overtakes: new event, g1 stale
        assert_eq!(f.push(SimTime(70), 3), None);
        assert_eq!(f.push(SimTime(70), 4), None); // tie with 3: after it
        assert_eq!(f.pop(g1), None, "stale");
        let (id, next) = f.pop(g1 + 1).unwrap();
        assert_eq!(id, 2);
        let (t, g) = next.unwrap();
        assert_eq!(t, SimTime(70));
        let (id, next) = f.pop(g).unwrap();
        assert_eq!((id, next.map(|n| n.0)), (3, Some(SimTime(70))));
        let (id, next) = f.pop(next.unwrap().1).unwrap();
        assert_eq!((id, next.map(|n| n.0)), (4, Some(SimTime(100))));
        let (id, next) = f.pop(next.unwrap().1).unwrap();
        assert_eq!((id, next), (1, None));
        assert!(f.is_empty());
    }

    // Module doc "Deterministic picks": exactly the listed data packets of the flow, counted as
    // drop_nth counts (other flows and pure ACKs do not count), get exactly `extra`.
    #[test]
    fn nth_picks_delay_exactly_the_listed_data_packets_of_their_flow() {
        let spec = ReorderNthSpec { flow: 1, nth: vec![4, 2, 2], extra: SimDuration::from_millis(8) };
        let mut r = Reorder::new(None, Some(&spec), 1, 0, 0);
        let pkts = [(1, 100), (0, 100), (1, 0), (1, 100), (1, 100), (1, 100), (1, 100)];
        let got: Vec<u64> = pkts.iter().map(|&(f, p)| r.extra_delay(f, p).as_nanos()).collect();
        // flow-1 data packets are the 1st, 4th, 5th, 6th, 7th offers: occurrences 1, 2, 3, 4, 5.
        assert_eq!(got, vec![0, 0, 0, 8_000_000, 0, 8_000_000, 0]);
        assert_eq!(r.nth.as_ref().map(|n| n.picked), Some(2));
        assert_eq!(r.model.picked, 0, "the random model never picks with picks configured");
    }

    #[test]
    fn nth_specs_are_checked_naming_the_key() {
        let ok = ReorderNthSpec { flow: 0, nth: vec![3], extra: SimDuration::from_millis(1) };
        assert!(validate_nth(&ok, 1).is_ok());
        assert_eq!(validate_nth(&ReorderNthSpec { flow: 1, ..ok.clone() }, 1).unwrap_err().0, "flow");
        assert_eq!(validate_nth(&ReorderNthSpec { nth: vec![0], ..ok.clone() }, 1).unwrap_err().0, "nth");
        assert_eq!(validate_nth(&ReorderNthSpec { extra: SimDuration::ZERO, ..ok }, 1).unwrap_err().0, "extra");
    }

    #[test]
    fn generations_wrap_and_skip_zero() {
        let mut f = ReorderFlight { gen: MAX_GEN, ..Default::default() };
        assert_eq!(f.push(SimTime(1), 9), Some(1));
    }

    #[test]
    fn a_probability_outside_zero_to_one_is_rejected_naming_p() {
        let (field, msg) = validate(&spec(1.5, 5, 0)).unwrap_err();
        assert_eq!(field, "p");
        assert!(msg.contains("reorder probability must be in [0,1]"), "{msg}");
        assert_eq!(validate(&spec(0.5, 0, 0)).unwrap_err().0, "extra");
        assert!(validate(&spec(0.0, 0, 1)).is_ok());
    }
}

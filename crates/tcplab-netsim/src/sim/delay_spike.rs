//! Delay spikes on one link direction: the link stops delivering for a while, then releases
//! what it held, in order.
//!
//! Sources (Sarolahti, dissertation, seed 002):
//! - Ch. 4, "Sudden delays" (L2433–2448): "During the delay the wireless link receiver does not
//!   deliver any packets forward. In this scenario a packet is delayed with a probability of
//!   0.02. The random delay lengths are exponentially distributed with a mean delay length of
//!   3.5 seconds."
//! - Ch. 3, footnote 4 (L1940–1942): "The link receive buffer holds the successfully received
//!   packets until the period of retransmissions is over to be able to deliver them in order to
//!   the receiver."
//! - Ch. 4 (L2416–2423): "the emulated wireless link uses a link send buffer and a link receive
//!   buffer ... The link buffers have a size of 1776 bytes"; and (L2538–2545) Eifel suffers
//!   because "the last-hop router queue could not drain during the delay".
//! - Ch. 5 (L3093–3109): type I "momentary outage on the wireless link with a link level ARQ
//!   ... The probability of a delay event is 1 % per packet, and the length of a link outage is
//!   exponentially distributed with a mean length of 3500 ms"; type II hand-over, see
//!   [`DelaySpikeSpec::Handover`].
//!
//! # Semantics (resolved ambiguities)
//!
//! A spike is an interval `[t0, t1)` of *delivery* time on one link direction:
//!
//! 1. **Hold and release in order.** Every packet whose last bit would reach the far end in
//!    `[t0, t1)` is delivered at exactly `t1`, in its original order (several packets then
//!    arrive at the same nanosecond, FIFO). Packets arriving at or after `t1` are unaffected.
//!    Because the hold maps arrival times monotonically, arrivals on a direction stay in order
//!    and the simulator's per-direction in-flight FIFO still works.
//! 2. **The transmitter keeps sending while the link layer has room.** Packets that *start*
//!    serialisation at or after `t0` and would be held count against `link_buffer` (bytes
//!    held by this spike, including those sent before `t0` that are caught by it). The first
//!    packet that does not fit waits in the queue and starts at `t1`; everything behind it
//!    waits too (FIFO), so the router queue fills and tail-drops — the thesis' "router queue
//!    could not drain during the delay". With `link_buffer = None` (the default) the queue
//!    keeps draining into the link during the spike; with `Some(0)` nothing starts during a
//!    spike except packets that would arrive after it.
//! 3. **Per-packet onset** ([`DelaySpikeSpec::PerPacket`]): each packet that starts
//!    serialisation draws once (also when the loss model then drops it, so the draws do not
//!    depend on losses); on success a spike starts at the instant that packet would have
//!    arrived, so that packet and every later one arriving before `t0 + D` is held: "a packet is
//!    delayed" with head-of-line blocking behind it. A spike started inside another extends
//!    it to the later end. Each direction draws from its own stream; with `direction = both`
//!    both directions run independent processes (the thesis does not say which direction its
//!    delays hit: [GAP] in the spec extract).
//! 4. **Time-driven processes** (fixed, periodic, random, hand-over) are generated for the
//!    whole run when the simulation starts, from a stream that depends on the run seed and
//!    the link only, so with `direction = both` both directions see the *same* outages (a
//!    link outage), and the realisation does not depend on traffic. Overlapping spikes merge.
//! 5. **Hand-over** (type II): at the end of every `period` (2 s), with probability `p` (0.3),
//!    a spike of random length starts, and when it ends the link bandwidth is redrawn
//!    uniformly from the list (28.8, 64, 128 kb/s), possibly the current value (the thesis
//!    says only "randomly selected to either 28.8 Kbps, 64 Kbps, or 128 Kbps"). A hand-over
//!    drawn while the previous hand-over's spike lasts is ignored (the draw is still made).
//!    The bandwidth change applies to both directions even when the spike hits only one.

use super::seed::{derive, splitmix64, unit_f64};
use crate::spec::{DelaySpikeSpec, DurationDist, LinkDynamics};
use rand::RngCore;
use rand_pcg::Pcg64Mcg;
use tcplab_time::{Bandwidth, SimDuration, SimTime};

/// Domain separator for delay-spike and hand-over streams ("spik").
pub const DOMAIN_SPIKE: u64 = 0x7370_696b;
/// Stream id of a link's time-driven processes (shared by both directions); 0 and 1 are the
/// per-direction per-packet streams.
const LINK_STREAM: u64 = 2;
/// Most spikes (or hand-overs) generated per link for one run: a guard against parameters such
/// as a 1 ns period (checked by `validate` on expected counts; this caps the realisation).
pub const MAX_GENERATED: usize = 4_000_000;

/// A PCG stream for delay spikes of link `link`, stream `stream`.
pub fn spike_rng(seed: u64, link: usize, stream: u64) -> Pcg64Mcg {
    let hi = derive(seed, DOMAIN_SPIKE, link as u64, stream);
    let lo = splitmix64(hi);
    Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo))
}

impl DurationDist {
    /// One draw (in ns, rounded to the nearest nanosecond).
    pub fn sample(&self, rng: &mut Pcg64Mcg) -> SimDuration {
        match *self {
            DurationDist::Fixed(d) => d,
            DurationDist::Exponential { mean } => {
                let u = unit_f64(rng.next_u64());
                // Inverse CDF; 1 - u is in (0, 1], so the log is finite.
                SimDuration((-(1.0 - u).ln() * mean.0 as f64).round() as u64)
            }
            DurationDist::Uniform { lo, hi } => {
                let u = unit_f64(rng.next_u64());
                SimDuration(lo.0 + ((hi.0 - lo.0) as f64 * u).round() as u64)
            }
        }
    }

    /// The mean (for validation of expected counts).
    pub fn mean(&self) -> SimDuration {
        match *self {
            DurationDist::Fixed(d) => d,
            DurationDist::Exponential { mean } => mean,
            DurationDist::Uniform { lo, hi } => SimDuration(lo.0 / 2 + hi.0 / 2),
        }
    }
}

/// Spike ends are capped here (2^62 ns, about 146 years) so that a huge drawn or configured
/// length cannot make later time arithmetic overflow.
pub const HORIZON: SimTime = SimTime(1 << 62);

/// Merges `[t0, t1)` into a sorted list of disjoint spikes whose last start is `<= t0`.
fn push_merged(spikes: &mut Vec<(SimTime, SimTime)>, t0: SimTime, t1: SimTime) {
    let t1 = t1.min(HORIZON);
    if t1 <= t0 {
        return;
    }
    match spikes.last_mut() {
        Some(last) if t0 <= last.1 => last.1 = last.1.max(t1),
        _ => spikes.push((t0, t1)),
    }
}

/// Spikes `[t0, t1)`, sorted and disjoint.
pub type Spikes = Vec<(SimTime, SimTime)>;
/// Bandwidth changes `(from, rate)`, sorted by time.
pub type BandwidthSteps = Vec<(SimTime, Bandwidth)>;

/// Spikes and bandwidth steps of the time-driven processes of one link, for `[0, end)`.
/// Identical for both directions (same stream).
pub fn generate(dynamics: &LinkDynamics, seed: u64, link: usize, end: SimDuration) -> (Spikes, BandwidthSteps) {
    let mut spikes = Vec::new();
    let mut steps = Vec::new();
    let at = |d: SimDuration| SimTime::ZERO + d;
    match &dynamics.delay_spikes {
        DelaySpikeSpec::None | DelaySpikeSpec::PerPacket { .. } => {}
        DelaySpikeSpec::Fixed(list) => {
            let mut v: Vec<(SimTime, SimTime)> =
                list.iter().map(|&(s, d)| (at(s), at(s).saturating_add(d))).collect();
            v.sort_unstable();
            for (t0, t1) in v {
                push_merged(&mut spikes, t0, t1);
            }
        }
        &DelaySpikeSpec::Periodic { first, period, duration, count } => {
            let n = count.unwrap_or(u64::MAX);
            let mut t = at(first);
            let mut k = 0;
            while k < n && t < at(end) && spikes.len() < MAX_GENERATED {
                push_merged(&mut spikes, t, t.saturating_add(duration));
                t = t.saturating_add(period);
                k += 1;
            }
        }
        DelaySpikeSpec::Random { interval, duration } => {
            let mut rng = spike_rng(seed, link, LINK_STREAM);
            let mut t = SimTime::ZERO;
            while spikes.len() < MAX_GENERATED {
                t = t.saturating_add(interval.sample(&mut rng));
                if t >= at(end) {
                    break;
                }
                let t1 = t.saturating_add(duration.sample(&mut rng));
                push_merged(&mut spikes, t, t1);
                t = t1;
            }
        }
        DelaySpikeSpec::Handover { period, p, duration, bandwidths } => {
            let mut rng = spike_rng(seed, link, LINK_STREAM);
            let mut t = at(*period);
            let mut busy_until = SimTime::ZERO;
            while t < at(end) && spikes.len() < MAX_GENERATED && period.0 > 0 {
                let handover = unit_f64(rng.next_u64()) < *p;
                if handover {
                    let d = duration.sample(&mut rng);
                    let pick = (unit_f64(rng.next_u64()) * bandwidths.len() as f64) as usize;
                    if t >= busy_until {
                        let t1 = t.saturating_add(d);
                        push_merged(&mut spikes, t, t1);
                        if let Some(&bw) = bandwidths.get(pick.min(bandwidths.len().saturating_sub(1))) {
                            steps.push((t1, bw));
                        }
                        busy_until = t1;
                    }
                }
                t = t.saturating_add(*period);
            }
        }
    }
    (spikes, steps)
}

/// Most spikes a time-driven process may be *expected* to generate in one run (a guard against
/// parameters like a 1 ns period; the realisation is capped at [`MAX_GENERATED`]).
pub const MAX_EXPECTED: u64 = 1_000_000;

/// Checks a link's dynamics for a run of length `end`; on error returns (field below the link,
/// message), e.g. `("delay_spikes.period", "must be greater than zero")`.
pub fn validate(d: &LinkDynamics, end: SimDuration) -> Result<(), (String, String)> {
    let bad = |f: &str, m: String| Err((f.to_string(), m));
    let dist = |f: &str, x: &DurationDist| -> Result<(), (String, String)> {
        match *x {
            DurationDist::Exponential { mean } if mean.0 == 0 => bad(f, "the mean must be greater than zero".into()),
            DurationDist::Uniform { lo, hi } if lo > hi => bad(f, format!("uniform bounds are reversed ({lo} > {hi})")),
            _ => Ok(()),
        }
    };
    let prob = |f: &str, p: f64| {
        if (0.0..=1.0).contains(&p) { Ok(()) } else { bad(f, format!("probability {p} is outside [0, 1]")) }
    };
    let expected = |f: &str, gap: u64| {
        if gap == 0 || end.0 / gap > MAX_EXPECTED {
            bad(f, format!("would give more than {MAX_EXPECTED} spikes in {end}"))
        } else {
            Ok(())
        }
    };
    match &d.delay_spikes {
        DelaySpikeSpec::None => {}
        DelaySpikeSpec::Fixed(list) => {
            if list.len() as u64 > MAX_EXPECTED {
                return bad("delay_spikes", format!("more than {MAX_EXPECTED} spikes"));
            }
        }
        &DelaySpikeSpec::Periodic { period, count, .. } => {
            if period.0 == 0 {
                return bad("delay_spikes.period", "must be greater than zero".into());
            }
            if count.is_none_or(|c| c > MAX_EXPECTED) {
                expected("delay_spikes.period", period.0)?;
            }
        }
        DelaySpikeSpec::Random { interval, duration } => {
            dist("delay_spikes.interval", interval)?;
            dist("delay_spikes.duration", duration)?;
            expected("delay_spikes.interval", interval.mean().0.saturating_add(duration.mean().0))?;
        }
        DelaySpikeSpec::PerPacket { p, duration } => {
            prob("delay_spikes.p", *p)?;
            dist("delay_spikes.duration", duration)?;
        }
        DelaySpikeSpec::Handover { period, p, duration, bandwidths } => {
            prob("delay_spikes.p", *p)?;
            dist("delay_spikes.duration", duration)?;
            expected("delay_spikes.period", period.0)?;
            if bandwidths.is_empty() || bandwidths.iter().any(|b| b.as_bps() == 0) {
                return bad("delay_spikes.bandwidths", "must list bandwidths greater than zero".into());
            }
        }
    }
    for (i, w) in d.bandwidth_schedule.iter().enumerate() {
        if w.1.as_bps() == 0 {
            return bad(&format!("bandwidth_schedule[{i}].bandwidth"), "must be greater than zero".into());
        }
        if i > 0 && d.bandwidth_schedule[i - 1].0 >= w.0 {
            return bad(&format!("bandwidth_schedule[{i}].at"), format!("{} is not after the previous step ({})", w.0, d.bandwidth_schedule[i - 1].0));
        }
    }
    if matches!(d.delay_spikes, DelaySpikeSpec::Handover { .. }) && !d.bandwidth_schedule.is_empty() {
        return bad("bandwidth_schedule", "cannot be combined with hand-over delay spikes, which redraw the bandwidth".into());
    }
    Ok(())
}

/// Per-packet onset: probability and duration, with the direction's own stream.
#[derive(Clone, Debug)]
struct PerPacket {
    p: f64,
    duration: DurationDist,
    rng: Pcg64Mcg,
}

/// Delay-spike state of one link direction.
#[derive(Clone, Debug)]
pub struct SpikeState {
    /// Every spike realised so far (pre-generated, then per-packet), sorted, disjoint.
    spikes: Vec<(SimTime, SimTime)>,
    /// First spike that can still hold a future arrival (committed arrivals only move it).
    cursor: usize,
    per_packet: Option<PerPacket>,
    /// `u64::MAX` for unlimited.
    link_buffer: u64,
    /// Spike index the held bytes belong to.
    held_spike: usize,
    held_bytes: u64,
    /// Packets delivered late because of a spike.
    pub held_packets: u64,
}

impl SpikeState {
    /// State of direction `dir` of link `link`; `pregenerated` from [`generate`] (already
    /// filtered by direction by the caller). `None` when this direction has no spikes.
    pub fn new(
        dynamics: &LinkDynamics,
        pregenerated: Vec<(SimTime, SimTime)>,
        seed: u64,
        link: usize,
        dir: usize,
    ) -> Option<SpikeState> {
        let per_packet = match &dynamics.delay_spikes {
            DelaySpikeSpec::PerPacket { p, duration } if dynamics.spike_direction.hits(dir) => Some(PerPacket {
                p: *p,
                duration: duration.clone(),
                rng: spike_rng(seed, link, dir as u64),
            }),
            _ => None,
        };
        if per_packet.is_none() && pregenerated.is_empty() {
            return None;
        }
        Some(SpikeState {
            spikes: pregenerated,
            cursor: 0,
            per_packet,
            link_buffer: dynamics.link_buffer.unwrap_or(u64::MAX),
            held_spike: usize::MAX,
            held_bytes: 0,
            held_packets: 0,
        })
    }

    /// Index of the spike containing arrival time `a`, without moving the cursor.
    #[inline]
    fn containing(&self, a: SimTime) -> Option<usize> {
        let mut i = self.cursor;
        while let Some(&(t0, t1)) = self.spikes.get(i) {
            if t1 > a {
                return (t0 <= a).then_some(i);
            }
            i += 1;
        }
        None
    }

    /// A packet of `len` bytes would start at `start` and arrive (last bit) at `arrive`. If a
    /// spike holds it and the link buffer has no room for it, returns the spike's end: the
    /// packet must wait until then.
    #[inline]
    pub fn defer(&self, start: SimTime, arrive: SimTime, len: u64) -> Option<SimTime> {
        let k = self.containing(arrive)?;
        let (t0, t1) = self.spikes[k];
        let held = if self.held_spike == k { self.held_bytes } else { 0 };
        (start >= t0 && held.saturating_add(len) > self.link_buffer).then_some(t1)
    }

    /// The packet of `len` bytes whose last bit would arrive at `arrive` starts now; returns
    /// when it is delivered. `lost` packets draw (per-packet onset) but are not held.
    #[inline]
    pub fn commit(&mut self, arrive: SimTime, len: u64, lost: bool) -> SimTime {
        if let Some(pp) = &mut self.per_packet {
            if unit_f64(pp.rng.next_u64()) < pp.p {
                let d = pp.duration.sample(&mut pp.rng);
                push_merged(&mut self.spikes, arrive, arrive.saturating_add(d));
            }
        }
        while let Some(&(_, t1)) = self.spikes.get(self.cursor) {
            if t1 > arrive {
                break;
            }
            self.cursor += 1;
        }
        if lost {
            return arrive;
        }
        match self.spikes.get(self.cursor) {
            Some(&(t0, t1)) if t0 <= arrive => {
                if self.held_spike != self.cursor {
                    self.held_spike = self.cursor;
                    self.held_bytes = 0;
                }
                self.held_bytes = self.held_bytes.saturating_add(len);
                self.held_packets += 1;
                t1
            }
            _ => arrive,
        }
    }

    /// Every spike realised so far, sorted.
    pub fn spikes(&self) -> &[(SimTime, SimTime)] {
        &self.spikes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SpikeDirection;

    fn dyn_(spikes: DelaySpikeSpec) -> LinkDynamics {
        LinkDynamics { delay_spikes: spikes, ..LinkDynamics::default() }
    }
    const S: u64 = 1_000_000_000;

    #[test]
    fn fixed_spikes_are_sorted_and_overlapping_ones_merge() {
        let d = dyn_(DelaySpikeSpec::Fixed(vec![
            (SimDuration::from_secs(10), SimDuration::from_secs(3)),
            (SimDuration::from_secs(2), SimDuration::from_secs(1)),
            (SimDuration::from_secs(12), SimDuration::from_secs(2)),
        ]));
        let (s, b) = generate(&d, 1, 0, SimDuration::from_secs(100));
        assert_eq!(s, vec![(SimTime(2 * S), SimTime(3 * S)), (SimTime(10 * S), SimTime(14 * S))]);
        assert!(b.is_empty());
    }

    #[test]
    fn periodic_spikes_stop_after_count_or_at_the_end_of_the_run() {
        let p = |count| {
            dyn_(DelaySpikeSpec::Periodic {
                first: SimDuration::from_secs(5),
                period: SimDuration::from_secs(20),
                duration: SimDuration::from_secs(2),
                count,
            })
        };
        let (s, _) = generate(&p(Some(2)), 1, 0, SimDuration::from_secs(100));
        assert_eq!(s, vec![(SimTime(5 * S), SimTime(7 * S)), (SimTime(25 * S), SimTime(27 * S))]);
        let (s, _) = generate(&p(None), 1, 0, SimDuration::from_secs(100));
        assert_eq!(s.len(), 5, "5, 25, 45, 65, 85 s");
    }

    fn random() -> LinkDynamics {
        dyn_(DelaySpikeSpec::Random {
            interval: DurationDist::Exponential { mean: SimDuration::from_secs(30) },
            duration: DurationDist::Uniform { lo: SimDuration::from_secs(1), hi: SimDuration::from_secs(4) },
        })
    }

    #[test]
    fn random_spikes_are_a_pure_function_of_seed_and_link() {
        let end = SimDuration::from_secs(10_000);
        let (a, _) = generate(&random(), 7, 3, end);
        assert_eq!(a, generate(&random(), 7, 3, end).0, "same seed, same spikes");
        assert_ne!(a, generate(&random(), 8, 3, end).0, "another seed, other spikes");
        assert_ne!(a, generate(&random(), 7, 4, end).0, "another link, other spikes");
        // Mean gap 30 s + mean spike 2.5 s: about 10000 / 32.5 ≈ 308 spikes.
        assert!((250..370).contains(&a.len()), "{}", a.len());
        for w in a.windows(2) {
            assert!(w[0].1 <= w[1].0, "disjoint and sorted");
        }
        for &(t0, t1) in &a {
            let d = t1.0 - t0.0;
            assert!((S..=4 * S).contains(&d), "{d}");
        }
    }

    #[test]
    fn exponential_draws_have_the_requested_mean() {
        let mut rng = spike_rng(1, 0, 0);
        let dist = DurationDist::Exponential { mean: SimDuration::from_millis(3500) };
        let n = 100_000;
        let sum: u64 = (0..n).map(|_| dist.sample(&mut rng).0).sum();
        let mean = sum as f64 / n as f64 / 1e9;
        // sd of the mean = 3.5 / sqrt(1e5) ≈ 0.011 s; allow 5 sd.
        assert!((mean - 3.5).abs() < 0.055, "{mean}");
    }

    #[test]
    fn handovers_redraw_the_bandwidth_when_their_spike_ends() {
        let kb = |x| Bandwidth::bps(x);
        let d = dyn_(DelaySpikeSpec::Handover {
            period: SimDuration::from_secs(2),
            p: 0.3,
            duration: DurationDist::Exponential { mean: SimDuration::from_millis(3500) },
            bandwidths: vec![kb(28_800), kb(64_000), kb(128_000)],
        });
        let (s, b) = generate(&d, 5, 0, SimDuration::from_secs(2000));
        assert_eq!(s.len(), b.len(), "one bandwidth step per hand-over");
        for (sp, st) in s.iter().zip(&b) {
            assert_eq!(sp.1, st.0, "the bandwidth changes when the delay ends");
            assert_eq!(sp.0.0 % (2 * S), 0, "hand-overs happen at period ends");
        }
        // 1000 periods, p = 0.3, a hand-over blocks the periods its spike covers: fewer than 300.
        assert!((100..300).contains(&s.len()), "{}", s.len());
        assert_eq!(generate(&d, 5, 0, SimDuration::from_secs(2000)), (s.clone(), b.clone()));
        assert_ne!(generate(&d, 6, 0, SimDuration::from_secs(2000)).0, s);
    }

    #[test]
    fn a_spike_of_absurd_length_is_capped_at_the_horizon() {
        let d = dyn_(DelaySpikeSpec::Fixed(vec![(SimDuration::from_secs(1), SimDuration(u64::MAX))]));
        assert_eq!(generate(&d, 1, 0, SimDuration::from_secs(10)).0, vec![(SimTime(S), HORIZON)]);
    }

    #[test]
    fn a_held_packet_is_released_at_the_spike_end_and_later_ones_are_untouched() {
        let d = dyn_(DelaySpikeSpec::Fixed(vec![]));
        let mut st = SpikeState::new(&d, vec![(SimTime(100), SimTime(200))], 1, 0, 0).unwrap();
        assert_eq!(st.commit(SimTime(99), 10, false), SimTime(99));
        assert_eq!(st.commit(SimTime(100), 10, false), SimTime(200));
        assert_eq!(st.commit(SimTime(199), 10, false), SimTime(200));
        assert_eq!(st.commit(SimTime(200), 10, false), SimTime(200));
        assert_eq!(st.commit(SimTime(201), 10, false), SimTime(201));
        assert_eq!(st.held_packets, 2);
    }

    #[test]
    fn the_link_buffer_defers_only_packets_that_start_during_the_spike_and_do_not_fit() {
        let d = LinkDynamics { link_buffer: Some(100), ..dyn_(DelaySpikeSpec::Fixed(vec![])) };
        let mut st = SpikeState::new(&d, vec![(SimTime(1000), SimTime(5000))], 1, 0, 0).unwrap();
        // Sent before t0, arriving inside: held, counts, never deferred.
        assert_eq!(st.defer(SimTime(900), SimTime(1100), 80), None);
        assert_eq!(st.commit(SimTime(1100), 80, false), SimTime(5000));
        // Starts inside, 80 + 20 = 100 fits.
        assert_eq!(st.defer(SimTime(1200), SimTime(1300), 20), None);
        assert_eq!(st.commit(SimTime(1300), 20, false), SimTime(5000));
        // One more byte does not fit: wait for the end.
        assert_eq!(st.defer(SimTime(1400), SimTime(1500), 1), Some(SimTime(5000)));
        // Starting inside but arriving after the spike needs no buffer.
        assert_eq!(st.defer(SimTime(4900), SimTime(5000), 1000), None);
    }

    #[test]
    fn per_packet_onset_is_deterministic_per_seed_and_direction() {
        let d = LinkDynamics {
            spike_direction: SpikeDirection::Both,
            ..dyn_(DelaySpikeSpec::PerPacket {
                p: 0.02,
                duration: DurationDist::Exponential { mean: SimDuration::from_millis(3500) },
            })
        };
        let realise = |seed, dir| {
            let mut st = SpikeState::new(&d, vec![], seed, 0, dir).unwrap();
            let arrivals: Vec<SimTime> = (1..5000u64).map(|i| st.commit(SimTime(i * 82_000_000), 296, false)).collect();
            (st.spikes().to_vec(), arrivals)
        };
        let a = realise(1, 0);
        assert_eq!(a, realise(1, 0));
        assert_ne!(a.0, realise(2, 0).0);
        assert_ne!(a.0, realise(1, 1).0, "each direction has its own stream");
        // 5000 packets at p = 0.02: about 100 onsets, fewer spikes after merging.
        assert!((30..130).contains(&a.0.len()), "{}", a.0.len());
        assert!(a.1.windows(2).all(|w| w[0] <= w[1]), "deliveries stay in order");
        assert!(SpikeState::new(&LinkDynamics { spike_direction: SpikeDirection::AtoB, ..d.clone() }, vec![], 1, 0, 1).is_none());
    }
}

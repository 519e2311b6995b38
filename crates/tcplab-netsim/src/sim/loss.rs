//! Per-direction loss models: Bernoulli, Gilbert-Elliott, DropNth and time-driven outages.
//!
//! Bursty loss: Sarolahti's dissertation (Ch. 4, L2460–2468) uses a *time-driven* two-state
//! link — "In a good state no packets are dropped at the link. When the link is in bad state,
//! all packets in both directions are lost. ... The good state length is uniformly distributed
//! between 0.1 seconds and 20 seconds. The bad state duration is exponentially distributed with
//! a mean of 3.5 seconds." — which is [`LossSpec::Outages`] (initial state Good: the thesis does
//! not say). A *per-packet* burst model is Gilbert-Elliott with `loss_good = 0, loss_bad = 1`:
//! for a mean burst of `b` packets and a long-run loss rate `r`, `p_bg = 1 / b` and
//! `p_gb = r · p_bg / (1 − r)`.
//!
//! **Where loss applies:** a packet meets the loss model as it *enters the link*, i.e. when it
//! leaves the queue and starts serialisation. A lost packet still occupies the transmitter for
//! its serialisation time (it was sent and corrupted on the wire) but never arrives. Loss
//! decisions are drawn in FIFO transmission order, so they do not depend on event timing.
//!
//! Each model owns its RNG stream (see `seed::link_rng`); there is no global RNG.

use super::seed::{link_rng, unit_f64};
use crate::spec::{DurationDist, LossSpec};
use tcplab_time::SimTime;
use rand::RngCore;
use rand_pcg::Pcg64Mcg;

/// The loss model state of one link direction.
#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    Bernoulli { p: f64, rng: Pcg64Mcg },
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, bad: bool, rng: Pcg64Mcg },
    /// `nth` is sorted and deduplicated; `next` indexes the next occurrence to drop.
    DropNth { flow: u32, nth: Vec<u64>, next: usize, seen: u64 },
    /// `until`: end of the current period; periods are drawn lazily in time order.
    Outages { good: DurationDist, bad: DurationDist, bad_now: bool, until: SimTime, rng: Pcg64Mcg },
}

/// Stream id of a link's shared loss processes (0 and 1 are the directions' own streams).
const LINK_STREAM: usize = 2;

impl LossModel {
    /// Builds the model for link `link`, direction `dir` (0 = a→b, 1 = b→a). The spec must
    /// have been validated (probabilities in [0, 1]).
    pub fn new(spec: &LossSpec, seed: u64, link: usize, dir: usize) -> LossModel {
        match *spec {
            LossSpec::None => LossModel::None,
            LossSpec::Bernoulli { p } => LossModel::Bernoulli { p, rng: link_rng(seed, link, dir) },
            LossSpec::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad: false,
                rng: link_rng(seed, link, dir),
            },
            LossSpec::DropNth { flow, ref nth } => {
                let mut nth = nth.clone();
                nth.sort_unstable();
                nth.dedup();
                LossModel::DropNth { flow: flow as u32, nth, next: 0, seen: 0 }
            }
            LossSpec::Outages { ref good, ref bad } => {
                let mut rng = link_rng(seed, link, LINK_STREAM);
                let until = SimTime::ZERO + good.sample(&mut rng);
                LossModel::Outages { good: good.clone(), bad: bad.clone(), bad_now: false, until, rng }
            }
        }
    }

    /// Decides the fate of one packet of flow `flow` with `payload` bytes entering the link at
    /// `start` (start times of one direction never decrease).
    #[inline]
    pub fn should_drop(&mut self, flow: u32, payload: u32, start: SimTime) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => unit_f64(rng.next_u64()) < *p,
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad, bad, rng } => {
                let flip = if *bad { *p_bg } else { *p_gb };
                if unit_f64(rng.next_u64()) < flip {
                    *bad = !*bad;
                }
                let p = if *bad { *loss_bad } else { *loss_good };
                unit_f64(rng.next_u64()) < p
            }
            LossModel::DropNth { flow: f, nth, next, seen } => {
                if *f != flow || payload == 0 {
                    return false;
                }
                *seen += 1;
                if nth.get(*next) == Some(seen) {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
            LossModel::Outages { good, bad, bad_now, until, rng } => {
                while start >= *until {
                    *bad_now = !*bad_now;
                    let d = if *bad_now { bad.sample(rng) } else { good.sample(rng) };
                    // A zero-length draw still moves on (at least 1 ns) so the loop ends.
                    *until = until.saturating_add(d.max(tcplab_time::SimDuration(1)));
                }
                *bad_now
            }
        }
    }
}

/// Checks that a loss spec's probabilities are in [0, 1]; returns a message naming the bad one.
pub fn validate(spec: &LossSpec, n_flows: usize) -> Result<(), String> {
    let check = |name: &str, p: f64| {
        if (0.0..=1.0).contains(&p) {
            Ok(())
        } else {
            Err(format!("probability {name} = {p} is outside [0, 1]"))
        }
    };
    match *spec {
        LossSpec::None => Ok(()),
        LossSpec::Bernoulli { p } => check("p", p),
        LossSpec::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
            check("p_gb", p_gb)?;
            check("p_bg", p_bg)?;
            check("loss_good", loss_good)?;
            check("loss_bad", loss_bad)
        }
        LossSpec::DropNth { flow, ref nth } => {
            if flow >= n_flows {
                return Err(format!("drop_nth names flow {flow} but there are {n_flows} flows"));
            }
            if nth.contains(&0) {
                return Err("drop_nth occurrences are 1-based; 0 is not valid".to_string());
            }
            Ok(())
        }
        LossSpec::Outages { ref good, ref bad } => {
            for (name, d) in [("good", good), ("bad", bad)] {
                match *d {
                    DurationDist::Exponential { mean } if mean.0 == 0 => {
                        return Err(format!("{name}: the mean must be greater than zero"))
                    }
                    DurationDist::Uniform { lo, hi } if lo > hi => {
                        return Err(format!("{name}: uniform bounds are reversed ({lo} > {hi})"))
                    }
                    DurationDist::Fixed(x) if x.0 == 0 => return Err(format!("{name}: must be greater than zero")),
                    _ => {}
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 200_000;

    fn pattern(spec: &LossSpec, seed: u64) -> Vec<bool> {
        let mut m = LossModel::new(spec, seed, 3, 0);
        (0..N).map(|_| m.should_drop(0, 1448, SimTime::ZERO)).collect()
    }

    fn rate(v: &[bool]) -> f64 {
        v.iter().filter(|&&x| x).count() as f64 / v.len() as f64
    }

    #[test]
    fn bernoulli_loss_rate_is_within_tolerance_and_reproducible() {
        let spec = LossSpec::Bernoulli { p: 0.01 };
        let a = pattern(&spec, 42);
        // 200k trials at p = 0.01: sd = sqrt(p(1-p)/n) ≈ 0.00022; allow 5 sd.
        assert!((rate(&a) - 0.01).abs() < 0.0011, "rate {}", rate(&a));
        assert_eq!(a, pattern(&spec, 42), "same seed, same losses");
        assert_ne!(a, pattern(&spec, 43), "another seed, other losses");
    }

    #[test]
    fn gilbert_elliott_loss_rate_matches_the_stationary_distribution() {
        let (p_gb, p_bg, lg, lb) = (0.01, 0.1, 0.0, 0.5);
        let spec = LossSpec::GilbertElliott { p_gb, p_bg, loss_good: lg, loss_bad: lb };
        let a = pattern(&spec, 7);
        // Stationary P(bad) = p_gb / (p_gb + p_bg) = 1/11; loss = lb/11 ≈ 0.04545.
        let expect = lb * p_gb / (p_gb + p_bg);
        assert!((rate(&a) - expect).abs() < 0.006, "rate {} vs {expect}", rate(&a));
        assert_eq!(a, pattern(&spec, 7));
        assert_ne!(a, pattern(&spec, 8));
    }

    #[test]
    fn drop_nth_drops_exactly_the_listed_data_segments_of_its_flow() {
        let mut m = LossModel::new(&LossSpec::DropNth { flow: 1, nth: vec![5, 2] }, 0, 0, 0);
        let mut dropped = Vec::new();
        let mut data_seen = 0;
        for i in 0..30 {
            // Interleave: an ACK of flow 1, a data segment of flow 0, a data segment of flow 1.
            assert!(!m.should_drop(1, 0, SimTime::ZERO));
            assert!(!m.should_drop(0, 1448, SimTime::ZERO));
            data_seen += 1;
            if m.should_drop(1, 1448, SimTime::ZERO) {
                dropped.push(data_seen);
            }
            let _ = i;
        }
        assert_eq!(dropped, vec![2, 5]);
    }

    /// Sarolahti Ch. 4 (L2460–2468): Good ~ U(0.1 s, 20 s), Bad ~ Exp(3.5 s), all lost in Bad.
    fn thesis_outages() -> LossSpec {
        LossSpec::Outages {
            good: DurationDist::Uniform {
                lo: tcplab_time::SimDuration::from_millis(100),
                hi: tcplab_time::SimDuration::from_secs(20),
            },
            bad: DurationDist::Exponential { mean: tcplab_time::SimDuration::from_millis(3500) },
        }
    }

    #[test]
    fn outages_lose_everything_in_bad_periods_with_the_expected_share_and_both_directions_agree() {
        let ms = 1_000_000u64;
        let sample = |seed, dir| {
            let mut m = LossModel::new(&thesis_outages(), seed, 3, dir);
            (0..2_000_000u64).map(|i| m.should_drop(0, 1448, SimTime(i * ms))).collect::<Vec<_>>()
        };
        let a = sample(9, 0);
        // Mean Good 10.05 s, mean Bad 3.5 s: share of time in Bad ≈ 0.258; 2000 s is ~150 cycles.
        assert!((rate(&a) - 0.258).abs() < 0.08, "rate {}", rate(&a));
        assert_eq!(a, sample(9, 1), "both directions see the same outages");
        assert_ne!(a, sample(10, 0), "another seed, other outages");
        assert!(!a[0], "the link starts Good");
        // Losses come in runs: far fewer runs than lost packets.
        let runs = a.windows(2).filter(|w| !w[0] && w[1]).count();
        assert!(runs * 100 < a.iter().filter(|&&x| x).count(), "{runs}");
    }

    #[test]
    fn probabilities_outside_zero_to_one_are_rejected_by_name() {
        let e = validate(&LossSpec::GilbertElliott { p_gb: 0.1, p_bg: 1.5, loss_good: 0.0, loss_bad: 1.0 }, 1)
            .unwrap_err();
        assert!(e.contains("p_bg = 1.5"), "{e}");
    }
}

//! Poisson arrivals of finite flows with heavy-tailed sizes (004 §IV: "Flows arrive in the
//! network based on Poisson distribution"; traffic profile 1 "Pareto mean 40 KB, shape 1.5",
//! profile 2 "Pareto mean 200 KB, shape 1.5"; "the flows are between a few sources and many
//! receivers that share the same bottleneck links").
//!
//! - Inter-arrival times are exponential with mean `mean_interarrival`: `-mean · ln(1 - U)`,
//!   U uniform on [0, 1), rounded down to the nanosecond; the first arrival is one draw after
//!   `start`.
//! - Sizes are Pareto (type I) given by mean and shape α > 1: scale x_m = mean (α − 1)/α,
//!   size = x_m / (1 − U)^(1/α), rounded up to a whole byte (inverse-CDF sampling).
//! - Each arrival picks its sender and its receiver uniformly at random from the lists.
//! - Draw order per arrival: inter-arrival, size, sender, receiver (all from one stream).
//!
//! Ambiguity settled: 004 gives neither how senders and receivers pair up nor whether the
//! Pareto is type I or Lomax; uniform picks and type I (the usual "Pareto with mean and
//! shape" of ns-2's `Application/Traffic/Pareto` and `RandomVariable/Pareto`) are used.

use super::{at, Arrival, TrafficSource};
use crate::sim::seed::{derive, splitmix64, unit_f64};
use crate::spec::{NodeId, PoissonSpec, SizeDist};
use rand::RngCore;
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;
use tcplab_tcp::TcpConfig;
use tcplab_time::{SimDuration, SimTime};

/// Domain separator of traffic-source streams.
pub const DOMAIN_TRAFFIC: u64 = 0x7472_6166; // "traf"

/// The state of one Poisson source.
#[derive(Debug)]
pub struct Poisson {
    spec: PoissonSpec,
    /// `spec.tcp`, shared by every arrival.
    tcp: Arc<TcpConfig>,
    rng: Pcg64Mcg,
    /// Time of the last arrival drawn.
    last: SimTime,
    /// Arrivals drawn so far.
    drawn: u64,
    /// No arrival after this.
    stop: SimTime,
}

impl Poisson {
    /// Source number `index` of a run with `seed`, ending at `end` unless the spec stops
    /// earlier.
    pub fn new(spec: PoissonSpec, seed: u64, index: usize, end: SimDuration) -> Poisson {
        let hi = derive(seed, DOMAIN_TRAFFIC, index as u64, 0);
        let stop = at(spec.stop.map_or(end, |s| s.min(end)));
        Poisson {
            tcp: Arc::new(spec.tcp.clone()),
            last: at(spec.start),
            rng: Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(splitmix64(hi))),
            drawn: 0,
            stop,
            spec,
        }
    }

    fn unit(&mut self) -> f64 {
        unit_f64(self.rng.next_u64())
    }

    /// An exponential draw of mean `mean`.
    fn exponential(&mut self, mean: SimDuration) -> SimDuration {
        let u = self.unit();
        SimDuration((-(mean.as_nanos() as f64) * (1.0 - u).ln()) as u64)
    }

    /// A size from `d`.
    fn size(&mut self, d: SizeDist) -> u64 {
        match d {
            SizeDist::Fixed(n) => n,
            SizeDist::Pareto { mean, shape } => {
                let x_m = mean * (shape - 1.0) / shape;
                let u = self.unit();
                (x_m / (1.0 - u).powf(1.0 / shape)).ceil().max(1.0) as u64
            }
        }
    }

    /// One of `from`, uniformly (the node lists are the spec's, not copied per arrival).
    fn pick(rng: &mut Pcg64Mcg, from: &[NodeId]) -> NodeId {
        from[(rng.next_u64() % from.len() as u64) as usize]
    }
}

impl TrafficSource for Poisson {
    fn next_arrival(&mut self) -> Option<Arrival> {
        if self.spec.max_flows.is_some_and(|m| self.drawn >= m) {
            return None;
        }
        let t = self.last + self.exponential(self.spec.mean_interarrival);
        if t > self.stop {
            return None;
        }
        self.last = t;
        self.drawn += 1;
        let size = self.size(self.spec.size);
        let src = Poisson::pick(&mut self.rng, &self.spec.senders);
        let dst = Poisson::pick(&mut self.rng, &self.spec.receivers);
        Some(Arrival { at: t, src, dst, size: Some(size), tcp: Arc::clone(&self.tcp) })
    }

    fn pairs(&self) -> Vec<(NodeId, NodeId)> {
        let s = &self.spec;
        s.senders.iter().flat_map(|&a| s.receivers.iter().map(move |&b| (a, b))).collect()
    }

    fn name(&self) -> String {
        format!("workload {:?}", self.spec.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::TcpConfig;

    fn spec(size: SizeDist) -> PoissonSpec {
        PoissonSpec {
            name: "w".into(),
            senders: vec![0, 1],
            receivers: vec![5, 6, 7],
            mean_interarrival: SimDuration::from_millis(10),
            size,
            start: SimDuration::ZERO,
            stop: None,
            max_flows: None,
            tcp: TcpConfig::default(),
        }
    }

    fn draw(s: PoissonSpec, n: usize) -> Vec<Arrival> {
        let mut p = Poisson::new(s, 7, 0, SimDuration::from_secs(1_000_000));
        (0..n).map_while(|_| p.next_arrival()).collect()
    }

    #[test]
    fn inter_arrival_times_are_exponential_with_the_given_mean() {
        let a = draw(spec(SizeDist::Fixed(1000)), 20_000);
        assert_eq!(a.len(), 20_000);
        let gaps: Vec<f64> = a.windows(2).map(|w| (w[1].at.0 - w[0].at.0) as f64).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!((mean / 10e6 - 1.0).abs() < 0.03, "mean gap {mean} ns");
        // Exponential: P(gap > mean) = 1/e.
        let above = gaps.iter().filter(|&&g| g > 10e6).count() as f64 / gaps.len() as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.015, "{above}");
        assert!(a.windows(2).all(|w| w[0].at <= w[1].at));
    }

    #[test]
    fn pareto_sizes_have_the_given_mean_and_scale() {
        // 004 traffic profile 1: mean 40 KB, shape 1.5 -> x_m = 40 000 / 3.
        let a = draw(spec(SizeDist::Pareto { mean: 40_000.0, shape: 1.5 }), 200_000);
        let min = a.iter().map(|x| x.size.unwrap_or(0)).min().unwrap_or(0);
        assert_eq!(min, 13_334, "the smallest size is x_m rounded up");
        // Median x_m · 2^(1/α) = 21 165.
        let mut s: Vec<u64> = a.iter().filter_map(|x| x.size).collect();
        s.sort_unstable();
        let median = s[s.len() / 2] as f64;
        assert!((median / 21_165.0 - 1.0).abs() < 0.02, "median {median}");
        // The sample mean of a shape-1.5 Pareto converges slowly (infinite variance): within 10 %.
        let mean = s.iter().sum::<u64>() as f64 / s.len() as f64;
        assert!((mean / 40_000.0 - 1.0).abs() < 0.1, "mean {mean}");
    }

    #[test]
    fn senders_and_receivers_are_picked_from_the_lists_and_max_flows_and_stop_end_the_source() {
        let a = draw(PoissonSpec { max_flows: Some(500), ..spec(SizeDist::Fixed(1)) }, 1000);
        assert_eq!(a.len(), 500);
        assert!(a.iter().all(|x| [0, 1].contains(&x.src) && [5, 6, 7].contains(&x.dst)));
        for r in [5, 6, 7] {
            assert!(a.iter().filter(|x| x.dst == r).count() > 120);
        }
        let b = draw(PoissonSpec { stop: Some(SimDuration::from_millis(100)), ..spec(SizeDist::Fixed(1)) }, 1000);
        assert!(b.len() < 30 && b.iter().all(|x| x.at <= SimTime(100_000_000)));
    }
}

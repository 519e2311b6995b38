//! The what-if grid: which values of D, a, b, m, k and minRTO a connection is replayed under
//! (Rewaskar, Kaur & Smith (003) §V-B, §V-C, §V-D).
//!
//! A [`GridPoint`] changes some of the sender model's six loss-detection parameters and
//! keeps the model's own value for the others (`None`). [`default_grid`] is 003's study:
//! every combination of §V-B's k, minRTO, a and b (4 × 5 × 6 × 6 = 720 points, D the
//! model's own), §V-C's D = 2, 3, 4 and the adaptive rule (RTO parameters the model's own),
//! and §V-D's Smart-Config. `m` is not varied by default: "the current default setting for
//! parameter m = 1 was observed to be optimal in our evaluations" (003 §V-B footnote 12);
//! a grid file may vary it.

use tcplab_tcp::config::{DupAckThreshold, Ratio};
use tcplab_tcp::TcpConfig;
use tcplab_time::SimDuration;

/// 003 §V-B: "k in {2, 4, 6, 8}".
pub const K_VALUES: [Ratio; 4] = [Ratio::new(2, 1), Ratio::new(4, 1), Ratio::new(6, 1), Ratio::new(8, 1)];
/// 003 §V-B: "minRTO in {100ms, 200ms, 400ms, 800ms, 1000ms}".
pub const MIN_RTO_VALUES: [SimDuration; 5] = [
    SimDuration::from_millis(100),
    SimDuration::from_millis(200),
    SimDuration::from_millis(400),
    SimDuration::from_millis(800),
    SimDuration::from_millis(1000),
];
/// 003 §V-B: "a in {1, 1/2, 1/4, 1/8, 1/16, 1/32}" (b takes the same values).
pub const GAIN_VALUES: [Ratio; 6] =
    [Ratio::new(1, 1), Ratio::new(1, 2), Ratio::new(1, 4), Ratio::new(1, 8), Ratio::new(1, 16), Ratio::new(1, 32)];
/// 003 §V-C Table V: D = 2, 3, 4; §V-D: the adaptive D = max(1, min(3, F − 2)).
pub const D_VALUES: [DupAckThreshold; 4] =
    [DupAckThreshold::Fixed(2), DupAckThreshold::Fixed(3), DupAckThreshold::Fixed(4), DupAckThreshold::Adaptive];
/// 003 §V-D Smart-Config: "k = 2".
pub const SMART_K: Ratio = Ratio::new(2, 1);
/// 003 §V-D Smart-Config: "minRTO = 100ms".
pub const SMART_MIN_RTO: SimDuration = SimDuration::from_millis(100);
/// 003 §V-D Smart-Config: "a = 1/4".
pub const SMART_A: Ratio = Ratio::new(1, 4);
/// 003 §V-D Smart-Config: "b = 1/8".
pub const SMART_B: Ratio = Ratio::new(1, 8);

/// Which part of the study a point belongs to (column `grid_set`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GridSet {
    /// 003 §V-B: the RTO estimator's parameters.
    Rto,
    /// 003 §V-C: the duplicate-ACK threshold.
    DupThresh,
    /// 003 §V-D: Smart-Config.
    Smart,
    /// A point from a grid file or `--only`.
    Custom,
}

impl GridSet {
    pub const fn name(self) -> &'static str {
        match self {
            GridSet::Rto => "rto",
            GridSet::DupThresh => "dupthresh",
            GridSet::Smart => "smart",
            GridSet::Custom => "custom",
        }
    }
}

/// One configuration to replay; `None` keeps the sender model's value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GridPoint {
    pub set: GridSet,
    pub d: Option<DupAckThreshold>,
    pub a: Option<Ratio>,
    pub b: Option<Ratio>,
    pub m: Option<Ratio>,
    pub k: Option<Ratio>,
    pub min_rto: Option<SimDuration>,
}

impl GridPoint {
    /// The model itself (every parameter its own).
    pub const BASELINE: GridPoint = GridPoint { set: GridSet::Custom, d: None, a: None, b: None, m: None, k: None, min_rto: None };

    /// 003 §V-D Smart-Config.
    pub const SMART: GridPoint = GridPoint {
        set: GridSet::Smart,
        d: Some(DupAckThreshold::Adaptive),
        a: Some(SMART_A),
        b: Some(SMART_B),
        m: None,
        k: Some(SMART_K),
        min_rto: Some(SMART_MIN_RTO),
    };

    /// The model's configuration with this point's parameters.
    pub fn apply(&self, base: &TcpConfig) -> TcpConfig {
        let mut c = base.clone();
        if let Some(d) = self.d {
            c.dupack_threshold = d;
        }
        if let Some(a) = self.a {
            c.rto.gain_a = a;
        }
        if let Some(b) = self.b {
            c.rto.gain_b = b;
        }
        if let Some(m) = self.m {
            c.rto.m = m;
        }
        if let Some(k) = self.k {
            c.rto.k = k;
        }
        if let Some(min) = self.min_rto {
            c.rto.min = min;
        }
        c
    }
}

/// 003's study: the 720 RTO points, the four D points and Smart-Config (725 points).
pub fn default_grid() -> Vec<GridPoint> {
    let mut g = Vec::with_capacity(K_VALUES.len() * MIN_RTO_VALUES.len() * GAIN_VALUES.len() * GAIN_VALUES.len() + D_VALUES.len() + 1);
    for k in K_VALUES {
        for min_rto in MIN_RTO_VALUES {
            for a in GAIN_VALUES {
                for b in GAIN_VALUES {
                    g.push(GridPoint { set: GridSet::Rto, k: Some(k), min_rto: Some(min_rto), a: Some(a), b: Some(b), ..GridPoint::BASELINE });
                }
            }
        }
    }
    for d in D_VALUES {
        g.push(GridPoint { set: GridSet::DupThresh, d: Some(d), ..GridPoint::BASELINE });
    }
    g.push(GridPoint::SMART);
    g
}

/// A parameter a grid can vary (`--only D,k`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Param {
    D,
    A,
    B,
    M,
    K,
    MinRto,
}

impl Param {
    pub fn parse(s: &str) -> Option<Param> {
        match s {
            "D" | "d" => Some(Param::D),
            "a" => Some(Param::A),
            "b" => Some(Param::B),
            "m" => Some(Param::M),
            "k" => Some(Param::K),
            "minRTO" | "min_rto" | "minrto" => Some(Param::MinRto),
            _ => None,
        }
    }
}

/// Every combination of 003's values of the parameters named, the others the model's own
/// (`m`, which 003 does not vary, takes 1/2, 1, 5/4 and 2: its value for most stacks, for
/// Solaris (003 Table I) and one either side).
pub fn only_grid(params: &[Param]) -> Vec<GridPoint> {
    let mut g = vec![GridPoint { set: GridSet::Custom, ..GridPoint::BASELINE }];
    for p in params {
        let mut next = Vec::new();
        for base in &g {
            match p {
                Param::D => next.extend(D_VALUES.iter().map(|&d| GridPoint { d: Some(d), ..*base })),
                Param::A => next.extend(GAIN_VALUES.iter().map(|&a| GridPoint { a: Some(a), ..*base })),
                Param::B => next.extend(GAIN_VALUES.iter().map(|&b| GridPoint { b: Some(b), ..*base })),
                Param::M => next.extend(M_VALUES.iter().map(|&m| GridPoint { m: Some(m), ..*base })),
                Param::K => next.extend(K_VALUES.iter().map(|&k| GridPoint { k: Some(k), ..*base })),
                Param::MinRto => next.extend(MIN_RTO_VALUES.iter().map(|&v| GridPoint { min_rto: Some(v), ..*base })),
            }
        }
        g = next;
    }
    g
}

/// Values of m for `--only m`: 1 (003 Table I, most stacks), 5/4 (Solaris), 1/2 and 2 around
/// them (003 does not vary m; these are ours).
pub const M_VALUES: [Ratio; 4] = [Ratio::new(1, 2), Ratio::new(1, 1), Ratio::new(5, 4), Ratio::new(2, 1)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_grid_is_003s_study() {
        let g = default_grid();
        assert_eq!(g.iter().filter(|p| p.set == GridSet::Rto).count(), 720);
        assert_eq!(g.iter().filter(|p| p.set == GridSet::DupThresh).count(), 4);
        assert_eq!(g.last().copied(), Some(GridPoint::SMART));
        // Every RTO point distinct.
        for (i, p) in g.iter().enumerate() {
            assert!(!g[..i].contains(p));
        }
    }

    #[test]
    fn only_crosses_the_named_parameters() {
        let g = only_grid(&[Param::D, Param::K]);
        assert_eq!(g.len(), 16);
        assert!(g.iter().all(|p| p.a.is_none() && p.min_rto.is_none() && p.d.is_some() && p.k.is_some()));
    }

    #[test]
    fn apply_changes_only_what_the_point_names() {
        let base = tcplab_tcp::Profile::WINDOWS_XP.config();
        let c = GridPoint { k: Some(Ratio::new(2, 1)), ..GridPoint::BASELINE }.apply(&base);
        assert_eq!(c.rto.k, Ratio::new(2, 1));
        assert_eq!(c.rto.min, base.rto.min);
        assert_eq!(c.dupack_threshold, base.dupack_threshold);
    }
}

//! What a PTA sender does with its pathlet table (seed 004 §III-B, §III-D, §V-A, §V-C): the
//! pathlets of a discovered path, which pathlet a Congested Pathlet field names, the initial
//! window of a new connection and its sharing, the initial RTO.
//!
//! 004 §III-D: "1) Set ICW to MAX_INT. 2) For each pathlet P that this flow passes based on the
//! pathlet discovery algorithm, check the SAFE_CWND_P state in the pathlet table. a) Set the ICW
//! to MIN(ICW, SAFE_CWND_P). 3) If ICW is still equal to MAX_INT at the end of this process ...
//! the congestion window could either be initialized to a fixed values in a traditional way"
//! ([`choose_initial_window`]; the fallback is the connection's configured initial window).
//! "The initial congestion window is shared between all flows started over the bottleneck
//! pathlet within a round-trip time. The sender can distribute the initial window evenly, or
//! prioritize between flows." ([`IwShare`]).
//!
//! Ambiguities settled here (switchable where a choice matters; `docs/design.md`):
//! - **Pathlets of a path**: with routers r1..rk discovered, the pathlets are (source, r1),
//!   (r1, r2), ..., (rk, End-of-Path): the last pathlet is shared by every receiver behind rk (the
//!   header names no receiver). With no pathlet router the path is one pathlet keyed by the
//!   destination address — 004 §II-A: then "similar to a standard control block sharing
//!   mechanism that maintains a separate state to each host".
//! - **Congested Pathlet → pathlet**: router rj names the pathlet ending at rj ("the Congested
//!   Pathlet field indicates the pathlet router at the end of the first pathlet where congestion
//!   was detected"); End-of-Path names (rk, End-of-Path). An ID not on the discovered path is a
//!   route-change hint (004 §V-A: "take congestion indications from unknown pathlet routers as
//!   an indication for a route change"): [`Congested::Unknown`], the caller rediscovers and
//!   counts the indication on every pathlet of the path.
//! - **"Shared ... within a round-trip time" and "distribute the initial window evenly"**:
//!   [`IwShare::Even`] (default) — a flow starting at t shares ICW evenly with the flows
//!   started over the same bottleneck pathlet in (t − RTT, t] (RTT = the pathlet's AVG_RTT,
//!   i.e. T): it gets ICW/k, k the number of those flows itself included. At a steady arrival
//!   rate the windows given within any RTT then add up to about ICW, which is what "shared"
//!   says (the sender cannot know how many flows will follow, so it counts those of the last
//!   RTT). The other readings, kept switchable: [`IwShare::Split`] — the RTT windows are
//!   fixed, opened by the first flow, and the k-th flow of one gets ICW/k (the windows given in
//!   one add up to ICW·(1 + 1/2 + … + 1/k), and each new window's first flow gets all of ICW
//!   again; the default until the PTA reproduction's third round); [`IwShare::Budget`] — each
//!   flow of a fixed window gets what the earlier ones left of ICW (first come first served, at
//!   least one segment); [`IwShare::None`] gives every flow ICW.
//! - **Segments**: SAFE_CWND is kept in bytes; the initial window is whole segments, at least
//!   one (`IW_MIN_SEGMENTS` of this module).
//! - **Initial RTO** (004 §II-C: the pathlet with "the largest value for MIN_RTT" sets "the
//!   retransmission timeout estimate"): RFC 6298 (2.2) as if that pathlet's AVG_RTT R were the
//!   first sample: SRTT = R, RTTVAR = R/2, RTO = R + max(G, 4·RTTVAR) = 3R (G below R/2).

use super::pathlet_header::END_OF_PATH;
use super::pathlet_table::{PathletId, PathletTable, SOURCE_EDGE};
use tcplab_time::{SimDuration, SimTime};

/// At most this many pathlets: one more than discovery slots (`pathlet_header::MAX_SLOTS`).
pub const MAX_PATHLETS: usize = super::pathlet_header::MAX_SLOTS + 1;
/// The smallest initial window PTA chooses: one segment (004 §IV-A: "PTA-based method ended
/// up starting from initial window of 1 or 2").
pub const IW_MIN_SEGMENTS: u64 = 1;
/// RFC 6298 (2.2): RTO = SRTT + max(G, K·RTTVAR) with K = 4 ...
pub const RTO_K: u64 = 4;
/// ... and RTTVAR = R/2 after the first sample R.
pub const RTTVAR_DIV: u64 = 2;

/// The pathlets of one discovered path, in path order (no allocation).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Path {
    routers: [u32; MAX_PATHLETS - 1],
    n_routers: u8,
    pathlets: [PathletId; MAX_PATHLETS],
    n: u8,
}

impl Path {
    /// The path through `routers` (the discovered IDs) to the host with address `dst`.
    pub fn new(routers: &[u32], dst: u32) -> Path {
        let mut p = Path::default();
        let routers = &routers[..routers.len().min(MAX_PATHLETS - 1)];
        p.routers[..routers.len()].copy_from_slice(routers);
        p.n_routers = routers.len() as u8;
        if routers.is_empty() {
            p.pathlets[0] = PathletId { from: SOURCE_EDGE, to: dst };
            p.n = 1;
            return p;
        }
        let mut from = SOURCE_EDGE;
        for (i, &r) in routers.iter().enumerate() {
            p.pathlets[i] = PathletId { from, to: r };
            from = r;
        }
        p.pathlets[routers.len()] = PathletId { from, to: END_OF_PATH };
        p.n = routers.len() as u8 + 1;
        p
    }

    pub fn pathlets(&self) -> &[PathletId] {
        &self.pathlets[..usize::from(self.n)]
    }

    pub fn routers(&self) -> &[u32] {
        &self.routers[..usize::from(self.n_routers)]
    }

    /// Which pathlet the Congested Pathlet field `field` names (module doc).
    pub fn congested(&self, field: u32) -> Congested {
        if field == super::pathlet_header::EMPTY_ID {
            return Congested::None;
        }
        if field == END_OF_PATH {
            return Congested::Pathlet(self.pathlets()[self.pathlets().len() - 1]);
        }
        match self.routers().iter().position(|&r| r == field) {
            Some(i) => Congested::Pathlet(self.pathlets[i]),
            None => Congested::Unknown,
        }
    }
}

/// What a Congested Pathlet field says about a path.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Congested {
    None,
    Pathlet(PathletId),
    /// A router not on the discovered path (route change).
    Unknown,
}

/// How the initial window is shared among flows started over the bottleneck pathlet within an
/// RTT (module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum IwShare {
    #[default]
    Even,
    Split,
    Budget,
    None,
}

impl IwShare {
    pub const ALL: [IwShare; 4] = [IwShare::Even, IwShare::Split, IwShare::Budget, IwShare::None];
    pub const fn name(self) -> &'static str {
        match self {
            IwShare::Even => "even",
            IwShare::Split => "split",
            IwShare::Budget => "budget",
            IwShare::None => "none",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// The sharing window of one bottleneck pathlet.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ShareWindow {
    start: Option<SimTime>,
    /// Flows started in the window.
    count: u64,
    /// Segments given in the window.
    given: u64,
}

/// Per-pathlet sharing windows (host state beside the table).
#[derive(Clone, Debug, Default)]
pub struct IwSharing {
    windows: std::collections::BTreeMap<PathletId, ShareWindow>,
    /// [`IwShare::Even`]: start times of the flows of the last RTT per bottleneck pathlet,
    /// oldest first (a queue reused across flows: no allocation once it has grown).
    recent: std::collections::BTreeMap<PathletId, std::collections::VecDeque<SimTime>>,
}

/// 004 §III-D: the initial window (in segments of `smss` bytes) of a connection starting at
/// `now` over `path`, or `None` when the table knows none of its pathlets (fallback).
pub fn choose_initial_window(
    table: &mut PathletTable,
    sharing: &mut IwSharing,
    share: IwShare,
    now: SimTime,
    path: &Path,
    smss: u64,
) -> Option<u64> {
    // Steps 1-2: ICW = MIN over the pathlets of SAFE_CWND_P (MAX_INT = unknown).
    let mut icw = u64::MAX;
    let mut bottleneck = None;
    for &p in path.pathlets() {
        if let Some(s) = table.entry(now, p).safe_cwnd {
            if s < icw {
                icw = s;
                bottleneck = Some(p);
            }
        }
    }
    // Step 3: nothing known.
    let bottleneck = bottleneck?;
    let segs = (icw / smss.max(1)).max(IW_MIN_SEGMENTS);
    let cfg = *table.cfg();
    let rtt = table.entry(now, bottleneck).period(&cfg);
    if share == IwShare::Even {
        let q = sharing.recent.entry(bottleneck).or_default();
        while q.front().is_some_and(|&t| t + rtt <= now) {
            q.pop_front();
        }
        q.push_back(now);
        let k = q.len() as u64;
        let iw = (segs / k).max(IW_MIN_SEGMENTS);
        count_choice(table, now, bottleneck, segs, k, iw);
        return Some(iw);
    }
    let w = sharing.windows.entry(bottleneck).or_default();
    if w.start.is_none_or(|s| now >= s + rtt) {
        *w = ShareWindow { start: Some(now), count: 0, given: 0 };
    }
    w.count += 1;
    let iw = match share {
        IwShare::Split => (segs / w.count).max(IW_MIN_SEGMENTS),
        IwShare::Budget => segs.saturating_sub(w.given).max(IW_MIN_SEGMENTS),
        IwShare::None | IwShare::Even => segs,
    };
    w.given += iw;
    let k = if share == IwShare::None { 1 } else { w.count };
    count_choice(table, now, bottleneck, segs, k, iw);
    Some(iw)
}

/// Reporting: the choice's SAFE_CWND (segments), the flows it was shared among and the window
/// given, on the bottleneck pathlet's stats (`PathletStats`).
fn count_choice(table: &mut PathletTable, now: SimTime, bottleneck: PathletId, segs: u64, k: u64, iw: u64) {
    let st = &mut table.entry(now, bottleneck).stats;
    st.iw_choices += 1;
    st.iw_safe_segments_sum += segs;
    st.iw_share_k_sum += k;
    st.iw_given_sum += iw;
}

/// 004 §II-C: the initial RTO from the pathlet with the largest MIN_RTT (module doc), or
/// `None` when no pathlet of `path` has an RTT.
pub fn initial_rto(table: &PathletTable, path: &Path, granularity: SimDuration) -> Option<SimDuration> {
    let e = path
        .pathlets()
        .iter()
        .filter_map(|p| table.get(p))
        .filter(|e| e.min_rtt.is_some() && e.avg_rtt.is_some())
        .max_by_key(|e| e.min_rtt)?;
    let r = e.avg_rtt?.as_nanos();
    Some(SimDuration::from_nanos(r + (RTO_K * r / RTTVAR_DIV).max(granularity.as_nanos())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::startup::pathlet_table::PathletTableConfig;

    fn at(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn a_path_of_three_routers_has_four_pathlets_and_no_router_means_per_host() {
        let p = Path::new(&[10, 20, 30], 99);
        assert_eq!(
            p.pathlets(),
            &[
                PathletId { from: 0, to: 10 },
                PathletId { from: 10, to: 20 },
                PathletId { from: 20, to: 30 },
                PathletId { from: 30, to: END_OF_PATH }
            ]
        );
        assert_eq!(Path::new(&[], 99).pathlets(), &[PathletId { from: 0, to: 99 }]);
    }

    #[test]
    fn the_congested_field_names_the_pathlet_ending_at_that_router() {
        let p = Path::new(&[10, 20, 30], 99);
        assert_eq!(p.congested(0), Congested::None);
        assert_eq!(p.congested(30), Congested::Pathlet(PathletId { from: 20, to: 30 }));
        assert_eq!(p.congested(END_OF_PATH), Congested::Pathlet(PathletId { from: 30, to: END_OF_PATH }));
        assert_eq!(p.congested(77), Congested::Unknown);
    }

    fn table_with(values: &[(PathletId, u64)]) -> PathletTable {
        let mut t = PathletTable::new(PathletTableConfig {
            periods: 1,
            default_period: SimDuration::from_millis(100),
            ..PathletTableConfig::default()
        });
        for &(p, v) in values {
            t.observe_flight(at(0), &[p], v);
        }
        t
    }

    #[test]
    fn the_initial_window_is_the_smallest_safe_cwnd_and_unknown_falls_back() {
        let path = Path::new(&[10, 20], 99);
        let [a, b, c] = [path.pathlets()[0], path.pathlets()[1], path.pathlets()[2]];
        let mut t = table_with(&[(a, 100 * 1000), (b, 4 * 1000), (c, 50 * 1000)]);
        let mut s = IwSharing::default();
        assert_eq!(choose_initial_window(&mut t, &mut s, IwShare::None, at(200), &path, 1000), Some(4));
        let other = Path::new(&[11], 98);
        assert_eq!(choose_initial_window(&mut t, &mut s, IwShare::None, at(200), &other, 1000), None);
        // Less than a segment: one segment.
        let mut t = table_with(&[(a, 300)]);
        assert_eq!(choose_initial_window(&mut t, &mut s, IwShare::None, at(200), &path, 1000), Some(1));
    }

    #[test]
    fn flows_started_within_an_rtt_share_the_window() {
        let path = Path::new(&[10], 99);
        let p = path.pathlets()[0];
        for (share, want) in [
            // Even: the flows of (t − 100 ms, t]: {200}, {200, 250}, {200, 250, 299}, {250, 299,
            // 300} (the flow of 200 is an RTT old at 300), {299, 300, 360}, {360, 460}.
            (IwShare::Even, [12, 6, 4, 4, 4, 6]),
            // Split / budget: fixed windows [200, 300), [300, 400), [400, 500).
            (IwShare::Split, [12, 6, 4, 12, 6, 12]),
            (IwShare::Budget, [12, 1, 1, 12, 1, 12]),
            (IwShare::None, [12; 6]),
        ] {
            let mut t = table_with(&[(p, 12_000)]);
            let mut s = IwSharing::default();
            // T = 100 ms (no RTT sample).
            let got: Vec<u64> = [200, 250, 299, 300, 360, 459]
                .iter()
                .map(|&ms| choose_initial_window(&mut t, &mut s, share, at(ms), &path, 1000).unwrap_or(0))
                .collect();
            assert_eq!(got, want, "{share:?}");
            // The bottleneck's stats decompose each window: SAFE_CWND / k.
            let st = t.get(&p).map(|e| e.stats).unwrap_or_default();
            let k_sum = match share {
                IwShare::Even => 1 + 2 + 3 + 3 + 3 + 2,
                IwShare::Split | IwShare::Budget => 1 + 2 + 3 + 1 + 2 + 1,
                IwShare::None => 6,
            };
            assert_eq!((st.iw_choices, st.iw_safe_segments_sum, st.iw_share_k_sum), (6, 72, k_sum), "{share:?}");
            assert_eq!(st.iw_given_sum, want.iter().sum::<u64>(), "{share:?}");
        }
    }

    #[test]
    fn initial_rto_is_three_average_rtts_of_the_slowest_pathlet() {
        let path = Path::new(&[10], 99);
        let (a, b) = (path.pathlets()[0], path.pathlets()[1]);
        let mut t = PathletTable::new(PathletTableConfig::default());
        assert_eq!(initial_rto(&t, &path, SimDuration::from_millis(1)), None);
        t.on_rtt(at(0), &[a], SimDuration::from_millis(20), 1500);
        t.on_rtt(at(0), &[b], SimDuration::from_millis(200), 1500);
        assert_eq!(initial_rto(&t, &path, SimDuration::from_millis(1)), Some(SimDuration::from_millis(600)));
    }
}

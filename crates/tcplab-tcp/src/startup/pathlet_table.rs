//! The host's pathlet table and its update algorithm (seed 004 §II-B, §III-C).
//!
//! 004 §II-B: "The pathlet table contains at least the following parameters per pathlet":
//! SAFE_CWND, SAFE_SSTHRESH, MIN_RTT and AVG_RTT, MAX_MTU ([`PathletEntry`]). The table
//! belongs to the sending host and outlives connections ("the pathlet table collects
//! information of the different pathlets for longer term purposes").
//!
//! 004 §III-C, the update algorithm, as implemented here:
//! 1. per pathlet a SAFE_CWND estimate and a count of congestion indications per period;
//! 2. "The source updates the SAFE_CWND_P value once per time period T ... we simply take the
//!    average RTT for the flows using pathlet P, and use that for time period T. The sender
//!    also remembers the congestion control values for the past N periods" — `T` is the
//!    pathlet's AVG_RTT ([`PathletTableConfig::default_period`] until a sample exists), the
//!    history a ring of [`PathletTableConfig::periods`] closed periods;
//! 3. "When a Pathlet Echo header contains a "Congested Pathlet" indication, the sender
//!    increments the congestion indication counter for the current period" ([`PathletTable::on_congestion`]);
//! 4. "At the end of each period": (a) "If there were no congestion signs during the last N
//!    periods ... SAFE_CWND_P is ... MAX_{F,i}(FlightSize_F, SAFE_CWND_P^i)"; (b) "If a
//!    congestion sign is observed, SAFE_CWND_P is set to MIN(SAFE_CWND_P,
//!    MIN_F(FlightSize_F/2)) for all F ∈ [recent congested flows using P]" ([`PathletEntry::close_period`]).
//!
//! Ambiguities settled here (all in `docs/design.md` § Pathlet Transport Architecture):
//! - **"the last N periods"** and "i ∈ [0..N]": the N most recent closed periods, the one just
//!   closed included (N values, not N + 1).
//! - **FlightSize_F**: "For each update the host uses its information of per flow flight
//!   size": one value per flow and period, the largest of the flow's bytes in flight seen at
//!   its ACKs in the period (before each ACK is processed; the SYN's sequence number is not
//!   data and is not counted). Rule (a) takes the largest over the period's flows
//!   ([`PathletTable::observe_flight`]); rule (b) halves, for each congested flow, the same
//!   per-flow value ([`FlowFlight`], [`CongestedFlight::PeriodMax`], default). The
//!   alternative [`CongestedFlight::AtSignal`] halves the flight at the ACK that carried the
//!   indication: it lets a flow that is ending (one small last segment in flight, e.g. 266
//!   bytes) set SAFE_CWND to a fraction of a segment for every later connection, a flight
//!   limited by the flow's data, not by the path (measured on the Fig 6 topology,
//!   `docs/reproductions/pta.md`).
//! - **"recent congested flows"**: those with an indication in the period being closed; rule
//!   (b) applies at the end of every period that had one, rule (a) only when none of the last N
//!   had one, otherwise SAFE_CWND is left as it is.
//! - **An unknown SAFE_CWND** (a new pathlet): rule (b) sets it to the congested minimum, rule
//!   (a) to the largest flight size; with neither it stays unknown and the connection falls
//!   back (004 §III-D step 3).
//! - **SAFE_SSTHRESH**: the paper says only that it "should be set to be large enough". Here: at
//!   the end of a congested period, the largest FlightSize/2 among the congested flows (the
//!   largest window a Reno reduction left); cleared (infinite) after N congestion-free
//!   periods. Used only when switched on.
//! - **Idle pathlets**: periods without flows close as empty periods (no flight, no
//!   congestion), so SAFE_CWND stays as it was (no decay: 004 §III-D leaves heuristics for
//!   idle periods to future work). At most N + 1 periods are closed one by one; a longer gap
//!   skips ahead.
//! - **AVG_RTT**: the RFC 6298 SRTT rule (gain 1/8) over the RTT samples of all flows on the
//!   pathlet; MIN_RTT the smallest sample.

use std::collections::BTreeMap;
use tcplab_time::{SimDuration, SimTime};

/// RFC 6298 (2.3) alpha = 1/8: the gain of the AVG_RTT average (module doc).
pub const AVG_RTT_GAIN_DEN: u64 = 8;
/// The period T before the pathlet has an RTT sample: RFC 6298 (2.1)'s initial RTO of one
/// second (the only RTT-scale constant TCP has before a measurement).
pub const DEFAULT_PERIOD: SimDuration = SimDuration::from_secs(1);
/// 004 §III-C leaves N open; four periods are the default here (a few RTTs of memory).
pub const DEFAULT_PERIODS: u32 = 4;

/// A pathlet: "uniquely identified by the ID pair of the pathlet routers at its edges" (004
/// §II-A). The end pathlets have a host end: [`SOURCE_EDGE`] for the sender, the receiver side
/// is `pathlet_header::END_OF_PATH`; a path without pathlet routers is one pathlet keyed by the
/// destination address (see `startup::pathlet::Path`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PathletId {
    pub from: u32,
    pub to: u32,
}

/// Up to this many rows a pathlet's row is found by a scan of the table's compact ID list
/// rather than by the ordered index: a table behind pathlet routers holds a few rows (one per
/// pathlet of its paths; four on the Fig 6 topology), where a scan of 8-byte IDs is cheaper
/// than a B-tree search. Either finds the same row (performance only).
pub const SCAN_ROWS: usize = 16;

/// The sender's own end of its first pathlet (no router has ID 0: it means "empty slot").
pub const SOURCE_EDGE: u32 = 0;

/// Which FlightSize_F rule (b) halves for a congested flow (module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum CongestedFlight {
    /// The flow's largest flight in the pathlet's current period (the FlightSize_F of rule (a)).
    #[default]
    PeriodMax,
    /// The flow's flight at the ACK that carried the indication.
    AtSignal,
}

impl CongestedFlight {
    pub const ALL: [CongestedFlight; 2] = [CongestedFlight::PeriodMax, CongestedFlight::AtSignal];
    pub const fn name(self) -> &'static str {
        match self {
            CongestedFlight::PeriodMax => "period_max",
            CongestedFlight::AtSignal => "at_signal",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Parameters of the update algorithm (scenario `[pathlet]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PathletTableConfig {
    /// N: the number of periods remembered.
    pub periods: u32,
    /// T before the pathlet has an RTT sample.
    pub default_period: SimDuration,
    /// FlightSize_F of a congested flow in rule (b).
    pub congested_flight: CongestedFlight,
}

impl Default for PathletTableConfig {
    fn default() -> Self {
        PathletTableConfig {
            periods: DEFAULT_PERIODS,
            default_period: DEFAULT_PERIOD,
            congested_flight: CongestedFlight::PeriodMax,
        }
    }
}

/// One flow's FlightSize_F per pathlet of its path (index = position on the path): its largest
/// flight in that pathlet's current period. Kept by the connection (fixed size, no allocation).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowFlight {
    /// By position on the path: what the ACK updates for one pathlet kept together (one
    /// cache line covers the first pathlets of a path).
    at: [PathletFlight; super::pathlet::MAX_PATHLETS],
}

/// One pathlet's entry in a [`FlowFlight`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct PathletFlight {
    /// Start of the period `max` belongs to.
    period: SimTime,
    max: u64,
    /// The table row of the pathlet (an index into the table, checked before use).
    row: u32,
}

/// What one period saw on one pathlet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Period {
    /// Largest FlightSize_F of any flow in the period (bytes; 0: no flow).
    max_flight: u64,
    /// Congestion indications counted in the period.
    congestion: u32,
    /// Smallest and largest FlightSize_F/2 among the congested flows (bytes).
    min_congested_half: u64,
    max_congested_half: u64,
    /// SAFE_CWND_P^i: the value after this period closed.
    safe_cwnd: Option<u64>,
}

impl Period {
    const EMPTY: Period =
        Period { max_flight: 0, congestion: 0, min_congested_half: u64::MAX, max_congested_half: 0, safe_cwnd: None };
}

/// What 004 §III-C's update and §III-D's choice did on one pathlet over a run: the numbers
/// that explain a SAFE_CWND (reporting only; `pathlet_tables` in docs/outputs.md).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PathletStats {
    /// Periods closed with at least one flow or indication (idle periods are not counted).
    pub periods: u64,
    /// Of those, periods with a congestion indication (rule (b) applied) ...
    pub congested_periods: u64,
    /// ... and among them those where rule (b) lowered SAFE_CWND (or set an unknown one).
    pub cuts: u64,
    /// Clean periods where rule (a) raised SAFE_CWND (or set an unknown one).
    pub raises: u64,
    /// Clean periods where rule (a) could not apply: an indication within the last N periods.
    pub held: u64,
    /// Sum of the SAFE_CWND values (bytes) left by the counted periods that had one, and
    /// how many had one (mean SAFE_CWND per period = sum / count).
    pub safe_cwnd_sum: u64,
    pub safe_cwnd_known: u64,
    /// Sum over congested periods of MIN_F(FlightSize_F / 2), the value rule (b) cuts to
    /// (bytes; mean = sum / `congested_periods`).
    pub cut_to_sum: u64,
    /// 004 §III-D choices where this pathlet was the bottleneck (smallest SAFE_CWND): how
    /// many, the sum of SAFE_CWND in whole segments at the choice (before sharing), the sum of
    /// the number of flows it was shared among (itself included; 1 without sharing), and the
    /// sum of the initial windows given (segments).
    pub iw_choices: u64,
    pub iw_safe_segments_sum: u64,
    pub iw_share_k_sum: u64,
    pub iw_given_sum: u64,
}

/// One pathlet's row (004 §II-B) and its period state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathletEntry {
    /// SAFE_CWND in bytes (`None`: not known yet).
    pub safe_cwnd: Option<u64>,
    /// SAFE_SSTHRESH in bytes (`None`: infinite).
    pub safe_ssthresh: Option<u64>,
    /// MIN_RTT, AVG_RTT over the flows using the pathlet.
    pub min_rtt: Option<SimDuration>,
    pub avg_rtt: Option<SimDuration>,
    /// MAX_MTU: the largest MTU (IP packet size) seen on the pathlet.
    pub max_mtu: u32,
    /// Congestion indications ever counted (reporting).
    pub congestion_total: u64,
    /// What the update algorithm did over the run (reporting only: nothing reads it).
    pub stats: PathletStats,
    /// Start of the current period ...
    period_start: SimTime,
    /// ... and its end, `period_start` + T (T = [`Self::period`]): kept by every method that
    /// moves either (a new row, [`Self::roll`], [`PathletTable::on_rtt`]), so that the check
    /// made at every ACK of every flow over the pathlet, "has the period ended?", is one
    /// comparison.
    period_end: SimTime,
    current: Period,
    /// Closed periods, most recent last; at most N.
    history: std::collections::VecDeque<Period>,
}

impl PathletEntry {
    fn new(now: SimTime, cfg: &PathletTableConfig) -> Self {
        PathletEntry {
            safe_cwnd: None,
            safe_ssthresh: None,
            min_rtt: None,
            avg_rtt: None,
            max_mtu: 0,
            congestion_total: 0,
            stats: PathletStats::default(),
            period_start: now,
            period_end: now + cfg.default_period,
            current: Period::EMPTY,
            history: std::collections::VecDeque::new(),
        }
    }

    /// The period T: 004 §III-C "the average RTT for the flows using pathlet P".
    pub fn period(&self, cfg: &PathletTableConfig) -> SimDuration {
        match self.avg_rtt {
            Some(r) if r.as_nanos() > 0 => r,
            _ => cfg.default_period,
        }
    }

    /// Closes every period that has ended by `now` (module doc: at most N + 1 one by one).
    #[inline]
    fn roll(&mut self, now: SimTime, cfg: &PathletTableConfig) {
        if now < self.period_end {
            return;
        }
        self.roll_periods(now, cfg);
    }

    /// [`Self::roll`] when the current period has ended.
    #[cold]
    #[inline(never)]
    fn roll_periods(&mut self, now: SimTime, cfg: &PathletTableConfig) {
        let t = self.period(cfg);
        let mut closed = 0u32;
        while now >= self.period_start + t {
            if closed > cfg.periods {
                // Only empty periods are left to close: they change nothing but the history,
                // which is all empty by now. Skip to the period containing `now`.
                let k = now.saturating_since(self.period_start).as_nanos() / t.as_nanos().max(1);
                self.period_start = self.period_start + SimDuration::from_nanos(k * t.as_nanos());
                break;
            }
            self.close_period(cfg);
            self.period_start = self.period_start + t;
            closed += 1;
        }
        self.period_end = self.period_start + t;
    }

    /// 004 §III-C step 4, at the end of the current period.
    fn close_period(&mut self, cfg: &PathletTableConfig) {
        let mut p = self.current;
        let before = self.safe_cwnd;
        let counted = p.congestion > 0 || p.max_flight > 0;
        let mut held = false;
        self.history.push_back(p);
        while self.history.len() > cfg.periods.max(1) as usize {
            self.history.pop_front();
        }
        if p.congestion > 0 {
            // (b) "SAFE_CWND_P is set to MIN(SAFE_CWND_P, MIN_F((FlightSize_F)/2))".
            self.safe_cwnd = Some(self.safe_cwnd.unwrap_or(u64::MAX).min(p.min_congested_half));
            self.safe_ssthresh = Some(p.max_congested_half);
        } else if self.history.iter().all(|h| h.congestion == 0) {
            // (a) "MAX_{F,i}(FlightSize_F, SAFE_CWND_P^i) for all i ∈ [0..N]".
            let flights = self.history.iter().map(|h| h.max_flight).max().unwrap_or(0);
            let past = self.history.iter().filter_map(|h| h.safe_cwnd).max();
            let raised = past.unwrap_or(0).max(flights).max(self.safe_cwnd.unwrap_or(0));
            if raised > 0 {
                self.safe_cwnd = Some(raised);
            }
            if self.history.len() >= cfg.periods.max(1) as usize {
                self.safe_ssthresh = None;
            }
        } else {
            held = true;
        }
        if counted {
            let st = &mut self.stats;
            st.periods += 1;
            if p.congestion > 0 {
                st.congested_periods += 1;
                st.cut_to_sum = st.cut_to_sum.saturating_add(p.min_congested_half);
                st.cuts += u64::from(self.safe_cwnd != before);
            } else if held {
                st.held += 1;
            } else {
                st.raises += u64::from(self.safe_cwnd != before);
            }
            if let Some(v) = self.safe_cwnd {
                st.safe_cwnd_sum = st.safe_cwnd_sum.saturating_add(v);
                st.safe_cwnd_known += 1;
            }
        }
        p.safe_cwnd = self.safe_cwnd;
        if let Some(last) = self.history.back_mut() {
            last.safe_cwnd = p.safe_cwnd;
        }
        self.current = Period::EMPTY;
    }
}

/// The table: one entry per pathlet the host has used.
#[derive(Clone, Debug, Default)]
pub struct PathletTable {
    /// Private: T's default is cached in every row's period end ([`PathletEntry`]).
    cfg: PathletTableConfig,
    /// Rows in creation order (never removed: a row's index is stable, so a flow can keep it,
    /// [`FlowFlight`]) ...
    rows: Vec<(PathletId, PathletEntry)>,
    /// ... their pathlets, in the same order (scanned in small tables, [`SCAN_ROWS`]) ...
    ids: Vec<PathletId>,
    /// ... and the ordered index: iteration (reports) is deterministic.
    index: BTreeMap<PathletId, u32>,
}

impl PathletTable {
    pub fn new(cfg: PathletTableConfig) -> Self {
        PathletTable { cfg, rows: Vec::new(), ids: Vec::new(), index: BTreeMap::new() }
    }

    /// The update algorithm's parameters.
    pub fn cfg(&self) -> &PathletTableConfig {
        &self.cfg
    }

    /// The index of pathlet `p`'s row, created (first period starting at `now`) if new.
    fn row_of(&mut self, now: SimTime, p: PathletId) -> usize {
        if let Some(k) = self.find(&p) {
            return k;
        }
        self.rows.push((p, PathletEntry::new(now, &self.cfg)));
        self.ids.push(p);
        let k = self.rows.len() - 1;
        self.index.insert(p, k as u32);
        k
    }

    /// The index of pathlet `p`'s row, if it has one ([`SCAN_ROWS`]).
    #[inline]
    fn find(&self, p: &PathletId) -> Option<usize> {
        if self.ids.len() <= SCAN_ROWS {
            self.ids.iter().position(|q| q == p)
        } else {
            self.index.get(p).map(|&k| k as usize)
        }
    }

    /// Pathlet `p`'s row, its periods brought up to `now`.
    pub fn entry(&mut self, now: SimTime, p: PathletId) -> &mut PathletEntry {
        let cfg = self.cfg;
        let k = self.row_of(now, p);
        let e = &mut self.rows[k].1;
        e.roll(now, &cfg);
        e
    }

    /// Pathlet `p`'s row as it is (no period closed), if known.
    pub fn get(&self, p: &PathletId) -> Option<&PathletEntry> {
        self.find(p).map(|k| &self.rows[k].1)
    }

    /// Every known pathlet, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&PathletId, &PathletEntry)> {
        self.index.iter().map(|(p, &k)| (p, &self.rows[k as usize].1))
    }

    /// A flow over `pathlets` has `flight` bytes in flight (at an ACK): FlightSize_F.
    pub fn observe_flight(&mut self, now: SimTime, pathlets: &[PathletId], flight: u64) {
        for &p in pathlets {
            let e = self.entry(now, p);
            e.current.max_flight = e.current.max_flight.max(flight);
        }
    }

    /// [`Self::observe_flight`] for the flow whose per-pathlet FlightSize_F is `flow`.
    /// Called at every ACK of a PTA flow: the row is found through the index the flow kept
    /// ([`FlowFlight`]; checked against the pathlet, looked up again after a rediscovery), not
    /// by a search of the table.
    pub fn observe_flow_flight(&mut self, now: SimTime, pathlets: &[PathletId], flight: u64, flow: &mut FlowFlight) {
        let cfg = self.cfg;
        for (f, &p) in flow.at.iter_mut().zip(pathlets) {
            let k = match self.ids.get(f.row as usize) {
                Some(id) if *id == p => f.row as usize,
                _ => {
                    let k = self.row_of(now, p);
                    f.row = k as u32;
                    k
                }
            };
            let e = &mut self.rows[k].1;
            e.roll(now, &cfg);
            e.current.max_flight = e.current.max_flight.max(flight);
            if f.period != e.period_start {
                f.period = e.period_start;
                f.max = 0;
            }
            f.max = f.max.max(flight);
        }
    }

    /// The FlightSize_F rule (b) halves for the flow `flow` congested on the `i`-th pathlet `p`
    /// of its path with `flight` bytes in flight at the indication ([`CongestedFlight`]).
    pub fn congested_flight(&mut self, now: SimTime, i: usize, p: PathletId, flight: u64, flow: &FlowFlight) -> u64 {
        match self.cfg.congested_flight {
            CongestedFlight::AtSignal => flight,
            CongestedFlight::PeriodMax => {
                let start = self.entry(now, p).period_start;
                match flow.at.get(i) {
                    Some(f) if f.period == start => f.max.max(flight),
                    _ => flight,
                }
            }
        }
    }

    /// 004 §III-C step 3: a congestion indication for pathlet `p` from a flow with `flight`
    /// bytes in flight.
    pub fn on_congestion(&mut self, now: SimTime, p: PathletId, flight: u64) {
        let e = self.entry(now, p);
        e.current.congestion += 1;
        e.congestion_total += 1;
        e.current.min_congested_half = e.current.min_congested_half.min(flight / 2);
        e.current.max_congested_half = e.current.max_congested_half.max(flight / 2);
    }

    /// An RTT sample of a flow over `pathlets` (MIN_RTT, AVG_RTT), and its packet size
    /// (MAX_MTU).
    pub fn on_rtt(&mut self, now: SimTime, pathlets: &[PathletId], rtt: SimDuration, mtu: u32) {
        let cfg = self.cfg;
        for &p in pathlets {
            let e = self.entry(now, p);
            e.min_rtt = Some(e.min_rtt.map_or(rtt, |m| m.min(rtt)));
            // RFC 6298 (2.3): SRTT <- (1 - alpha) * SRTT + alpha * R'.
            e.avg_rtt = Some(match e.avg_rtt {
                None => rtt,
                Some(a) => SimDuration::from_nanos(
                    (a.as_nanos() * (AVG_RTT_GAIN_DEN - 1) + rtt.as_nanos()) / AVG_RTT_GAIN_DEN,
                ),
            });
            e.max_mtu = e.max_mtu.max(mtu);
            // T changed with AVG_RTT: the current period now ends T after its start.
            e.period_end = e.period_start + e.period(&cfg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: PathletId = PathletId { from: 1, to: 2 };
    const MS: u64 = 1_000_000;

    fn at(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * MS)
    }

    /// A table whose pathlets `P` and `(2, 3)` were first used at 0 (periods end at 100 ms,
    /// 200 ms, ...).
    fn table(n: u32) -> PathletTable {
        let mut t = PathletTable::new(PathletTableConfig {
            periods: n,
            default_period: SimDuration::from_millis(100),
            ..PathletTableConfig::default()
        });
        t.entry(at(0), P);
        t.entry(at(0), PathletId { from: 2, to: 3 });
        t
    }

    #[test]
    fn the_period_is_the_average_rtt_of_the_flows() {
        let mut t = table(2);
        let cfg = t.cfg;
        assert_eq!(t.entry(at(0), P).period(&cfg), SimDuration::from_millis(100));
        t.on_rtt(at(0), &[P], SimDuration::from_millis(80), 1500);
        t.on_rtt(at(0), &[P], SimDuration::from_millis(160), 1500);
        let e = t.get(&P).unwrap();
        // 7/8 * 80 + 1/8 * 160 = 90 ms.
        assert_eq!(e.avg_rtt, Some(SimDuration::from_millis(90)));
        assert_eq!(e.min_rtt, Some(SimDuration::from_millis(80)));
        assert_eq!(e.max_mtu, 1500);
        assert_eq!(e.period(&t.cfg), SimDuration::from_millis(90));
    }

    #[test]
    fn a_new_average_rtt_moves_the_end_of_the_current_period() {
        // T = 100 ms (no sample) until an RTT sample of 40 ms at 10 ms: the first period then
        // ends at 40 ms, not 100 ms (the period end is cached per row and must follow T).
        let mut t = table(2);
        t.observe_flight(at(20), &[P], 7_000);
        t.on_rtt(at(30), &[P], SimDuration::from_millis(40), 1500);
        assert_eq!(t.entry(at(39), P).safe_cwnd, None, "the period [0, 40 ms) is still open");
        assert_eq!(t.entry(at(40), P).safe_cwnd, Some(7_000), "closed at 40 ms");
        // A longer sample makes T = 7/8·40 + 1/8·360 = 80 ms: the current period [40, 80 ms)
        // becomes [40, 120 ms).
        t.observe_flight(at(50), &[P], 9_000);
        t.on_rtt(at(60), &[P], SimDuration::from_millis(360), 1500);
        assert_eq!(t.get(&P).unwrap().avg_rtt, Some(SimDuration::from_millis(80)));
        assert_eq!(t.entry(at(119), P).safe_cwnd, Some(7_000), "not closed at the old end, 80 ms");
        assert_eq!(t.entry(at(120), P).safe_cwnd, Some(9_000));
    }

    #[test]
    fn safe_cwnd_rises_to_the_largest_flight_after_a_congestion_free_period() {
        let mut t = table(2);
        t.observe_flight(at(10), &[P], 10_000);
        t.observe_flight(at(20), &[P], 30_000);
        assert_eq!(t.get(&P).unwrap().safe_cwnd, None, "still in the first period");
        // The period (100 ms) ends: rule (a), no congestion in the last N periods.
        assert_eq!(t.entry(at(100), P).safe_cwnd, Some(30_000));
        // A smaller flight later does not lower it: the max includes SAFE_CWND^i.
        t.observe_flight(at(150), &[P], 5_000);
        assert_eq!(t.entry(at(200), P).safe_cwnd, Some(30_000));
    }

    #[test]
    fn congestion_cuts_to_half_the_smallest_congested_flight_and_blocks_raises_for_n_periods() {
        let mut t = table(2);
        t.observe_flight(at(10), &[P], 40_000);
        assert_eq!(t.entry(at(100), P).safe_cwnd, Some(40_000));
        t.on_congestion(at(110), P, 30_000);
        t.on_congestion(at(120), P, 50_000);
        t.observe_flight(at(130), &[P], 60_000);
        // Rule (b): min(40000, min(15000, 25000)).
        assert_eq!(t.entry(at(200), P).safe_cwnd, Some(15_000));
        assert_eq!(t.get(&P).unwrap().safe_ssthresh, Some(25_000));
        // Next period is clean but the one before (within N = 2) was congested: unchanged.
        t.observe_flight(at(210), &[P], 60_000);
        assert_eq!(t.entry(at(300), P).safe_cwnd, Some(15_000));
        // Two clean periods: raised to the largest flight in them.
        t.observe_flight(at(310), &[P], 20_000);
        assert_eq!(t.entry(at(400), P).safe_cwnd, Some(60_000));
        assert_eq!(t.get(&P).unwrap().safe_ssthresh, None, "N clean periods clear SAFE_SSTHRESH");
    }

    #[test]
    fn the_stats_count_what_each_period_did() {
        let mut t = table(2);
        t.observe_flight(at(10), &[P], 40_000); // period 1: raise to 40 000
        t.on_congestion(at(110), P, 30_000); // period 2: cut to 15 000
        t.on_congestion(at(210), P, 50_000); // period 3: congested, 25 000 > 15 000: no cut
        t.observe_flight(at(310), &[P], 60_000); // period 4: clean, period 3 within N: held
        t.observe_flight(at(410), &[P], 10_000); // period 5: clean twice: raise to 60 000
        // Period 6 is idle: not counted.
        let s = t.entry(at(600), P).stats;
        assert_eq!((s.periods, s.congested_periods, s.cuts, s.raises, s.held), (5, 2, 1, 2, 1));
        assert_eq!(s.cut_to_sum, 15_000 + 25_000);
        assert_eq!((s.safe_cwnd_known, s.safe_cwnd_sum), (5, 40_000 + 15_000 + 15_000 + 15_000 + 60_000));
    }

    #[test]
    fn a_first_congestion_on_an_unknown_pathlet_sets_the_halved_flight() {
        let mut t = table(4);
        t.on_congestion(at(5), P, 9_000);
        assert_eq!(t.entry(at(100), P).safe_cwnd, Some(4_500));
        assert_eq!(t.get(&P).unwrap().congestion_total, 1);
    }

    #[test]
    fn an_idle_pathlet_keeps_its_value_and_a_long_gap_skips_ahead() {
        let mut t = table(3);
        t.observe_flight(at(10), &[P], 12_000);
        assert_eq!(t.entry(at(100), P).safe_cwnd, Some(12_000));
        // 1000 s later: 10 000 empty periods, closed in bounded work.
        let e = t.entry(at(1_000_000), P);
        assert_eq!(e.safe_cwnd, Some(12_000));
        assert_eq!(e.period_start, at(1_000_000));
        assert_eq!(e.history.len(), 3);
    }

    #[test]
    fn a_congested_flow_is_halved_at_its_largest_flight_of_the_period_not_its_last_segment() {
        // A flow had 20 000 bytes in flight in the period, then only its last 266-byte segment
        // when the indication came.
        for (mode, want) in [(CongestedFlight::PeriodMax, 10_000), (CongestedFlight::AtSignal, 133)] {
            let mut t = table(2);
            t.cfg.congested_flight = mode;
            let mut f = FlowFlight::default();
            t.observe_flow_flight(at(10), &[P], 20_000, &mut f);
            t.observe_flow_flight(at(30), &[P], 266, &mut f);
            let fl = t.congested_flight(at(40), 0, P, 266, &f);
            t.on_congestion(at(40), P, fl);
            assert_eq!(t.entry(at(100), P).safe_cwnd, Some(want), "{mode:?}");
        }
        // The flow's maximum is per period: in the next period it starts again.
        let mut t = table(2);
        let mut f = FlowFlight::default();
        t.observe_flow_flight(at(10), &[P], 20_000, &mut f);
        t.observe_flow_flight(at(110), &[P], 4_000, &mut f);
        assert_eq!(t.congested_flight(at(120), 0, P, 3_000, &f), 4_000);
        // A flow that saw no ACK in the current period: its flight at the signal.
        assert_eq!(t.congested_flight(at(250), 0, P, 3_000, &f), 3_000);
    }

    #[test]
    fn a_flows_kept_rows_follow_a_changed_path() {
        // The flow keeps its rows' indices; after a rediscovery its path is (Q, P), not (P):
        // the flights land on the right pathlets all the same (q's first period ends at 120 ms).
        let q = PathletId { from: 7, to: 8 };
        let mut t = table(1);
        let mut f = FlowFlight::default();
        t.observe_flow_flight(at(10), &[P], 5_000, &mut f);
        t.observe_flow_flight(at(20), &[q, P], 9_000, &mut f);
        t.observe_flow_flight(at(30), &[q, P], 7_000, &mut f);
        assert_eq!(t.entry(at(100), P).safe_cwnd, Some(9_000));
        assert_eq!(t.entry(at(200), q).safe_cwnd, Some(9_000));
        let order: Vec<PathletId> = t.iter().map(|(p, _)| *p).collect();
        assert_eq!(order, [P, PathletId { from: 2, to: 3 }, q], "reports stay in pathlet order");
    }

    #[test]
    fn rows_are_found_by_scan_in_a_small_table_and_by_the_index_in_a_large_one() {
        // 3 · SCAN_ROWS pathlets, each given its own flight: every row is found again (by the
        // scan while the table is small, by the index once it is not), and reports stay in
        // pathlet order.
        let mut t = table(1);
        let n = 3 * SCAN_ROWS as u32;
        let id = |i: u32| PathletId { from: 100 + (n - i), to: i };
        for i in 0..n {
            t.observe_flight(at(0), &[id(i)], u64::from(i + 1) * 1000);
            assert_eq!(t.get(&id(i)).map(|e| e.current.max_flight), Some(u64::from(i + 1) * 1000));
        }
        for i in 0..n {
            assert_eq!(t.entry(at(100), id(i)).safe_cwnd, Some(u64::from(i + 1) * 1000), "pathlet {i}");
        }
        assert_eq!(t.get(&PathletId { from: 1, to: 99 }), None);
        let order: Vec<PathletId> = t.iter().map(|(p, _)| *p).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
        assert_eq!(order.len(), n as usize + 2);
    }

    #[test]
    fn pathlets_are_independent() {
        let q = PathletId { from: 2, to: 3 };
        let mut t = table(1);
        t.observe_flight(at(10), &[P, q], 20_000);
        t.on_congestion(at(20), q, 20_000);
        assert_eq!(t.entry(at(100), P).safe_cwnd, Some(20_000));
        assert_eq!(t.entry(at(100), q).safe_cwnd, Some(10_000));
    }
}

//! Run summary (serialisable to JSON) and the `flows` table.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::collections::HashMap;
use std::sync::Arc;
use tcplab_record::{ColumnData, Table};
use tcplab_tcp::RetransCause;

/// Whole-run summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    /// Time of the last event processed (≤ the spec's duration).
    pub sim_time_s: f64,
    /// Events processed. Stale (cancelled) wake-ups and early wake-ups that only re-queue
    /// themselves for a later deadline are not counted.
    pub events: u64,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    /// Quick-Start capable router interfaces (absent from the JSON when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quick_start_routers: Vec<crate::sim::quickstart::net::QsRouterSummary>,
    /// Pathlet routers' counters (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pathlet_routers: Vec<crate::sim::pathlet::PathletRouterSummary>,
    /// The hosts' pathlet tables at the end of the run (absent when no host kept one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pathlet_tables: Vec<crate::sim::pathlet::PathletRowSummary>,
}

/// One flow's Quick-Start exchange (sender side); absent when the sender never requests.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowQsSummary {
    pub requests: u32,
    pub approvals: u32,
    /// Quick-Start failures (a QS packet lost or ECN-marked).
    pub failures: u32,
    /// Last requested / approved rate, bytes/s (0: none).
    pub requested_bps: u64,
    pub approved_bps: u64,
    /// Payload bytes sent as QS packets (in the paced Quick-Start phase).
    pub qs_bytes: u64,
}

/// One flow's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSummary {
    pub id: u32,
    /// Node names: shared with every other flow of the node (one `Arc<str>` per node per
    /// run, cloned per flow: the web workload's thousands of short flows paid two `String`s
    /// each).
    #[serde(serialize_with = "ser_name")]
    pub src: Arc<str>,
    #[serde(serialize_with = "ser_name")]
    pub dst: Arc<str>,
    /// `None` for bulk flows.
    pub bytes_requested: Option<u64>,
    /// Bytes the receiving application got, in order.
    pub bytes_delivered: u64,
    pub start_s: f64,
    /// Flow completion time: last byte delivered to the receiving application − start.
    pub fct_s: Option<f64>,
    /// `bytes_delivered * 8 / (fct or (end of run − start))`; 0 if that span is 0.
    pub goodput_bps: f64,
    /// Data segments sent by the client, retransmissions included.
    pub data_segments_sent: u64,
    pub retransmissions: u64,
    /// Always has the keys rto, fast_retransmit, sack_recovery, probe, tlp.
    /// Keys are the causes' static names (`RetransCause::name`); a fixed array, no allocation
    /// per flow ([`ByCause`]).
    pub retransmissions_by_cause: ByCause,
    /// Ground truth from the simulator (see `ground_truth`).
    pub spurious_retransmissions: u64,
    pub timeouts: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quick_start: Option<FlowQsSummary>,
    /// The initial window the sender started with, in segments: only for connections that
    /// share state (`TcpConfig::sharing`: PTA's or the destination cache's choice, or the
    /// fallback), absent otherwise (and while the handshake is not complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window_segments: Option<u64>,
    /// The `[[workloads]]` entry that opened the connection (absent for `[[flows]]`): the
    /// Python API's `flow_name` of a workload's flows.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "ser_opt_name")]
    pub workload: Option<Arc<str>>,
}

/// A shared name serialised as the plain string.
fn ser_name<S: Serializer>(name: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(name)
}

fn ser_opt_name<S: Serializer>(name: &Option<Arc<str>>, s: S) -> Result<S::Ok, S::Error> {
    match name {
        Some(n) => s.serialize_some(&**n),
        None => s.serialize_none(),
    }
}

/// Retransmission counts of one flow by cause, every cause present: a fixed array indexed
/// by `RetransCause as usize`, which reads, prints (`Debug`) and serialises as the map from
/// the causes' names to counts, in name order, that it replaces (a `BTreeMap` per flow cost
/// the web workload an allocation and a free per connection).
#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct ByCause(pub [u64; tcplab_tcp::RETRANS_CAUSES]);

impl ByCause {
    /// The count of the cause named `name` (`None`: no such cause).
    pub fn get(&self, name: &str) -> Option<&u64> {
        RetransCause::ALL.iter().find(|c| c.name() == name).map(|c| &self.0[*c as usize])
    }

    /// The number of causes (every cause is present).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// (name, count) in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        by_name_order().iter().map(|c| (c.name(), self.0[*c as usize]))
    }
}

/// The causes sorted by name (the order of the map this replaces).
fn by_name_order() -> &'static [RetransCause; tcplab_tcp::RETRANS_CAUSES] {
    static ORDER: std::sync::OnceLock<[RetransCause; tcplab_tcp::RETRANS_CAUSES]> = std::sync::OnceLock::new();
    ORDER.get_or_init(|| {
        let mut o = RetransCause::ALL;
        o.sort_by_key(|c| c.name());
        o
    })
}

impl std::ops::Index<&str> for ByCause {
    type Output = u64;
    /// Panics if no cause has that name, as the map's index did.
    fn index(&self, name: &str) -> &u64 {
        match self.get(name) {
            Some(v) => v,
            None => panic!("no retransmission cause {name:?}"),
        }
    }
}

impl std::fmt::Debug for ByCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for ByCause {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            m.serialize_entry(k, &v)?;
        }
        m.end()
    }
}

/// One link's counters; `ab` is the a → b direction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSummary {
    pub name: String,
    /// Nominal rate of each direction in bit/s.
    pub bandwidth_bps: u64,
    /// One-way propagation delay in ns.
    pub delay_ns: u64,
    /// Packets that started transmission (including those the loss model then dropped).
    pub packets_ab: u64,
    pub packets_ba: u64,
    pub bytes_ab: u64,
    pub bytes_ba: u64,
    /// Queue overflows plus loss-model drops.
    pub drops_ab: u64,
    pub drops_ba: u64,
    /// Largest number of packets waiting in the queue (the one in transmission excluded).
    pub max_queue_ab: u64,
    pub max_queue_ba: u64,
    /// RED's counters per direction; absent (not serialised) on drop-tail links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red_ab: Option<RedSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red_ba: Option<RedSummary>,
}

/// RED's counters of one link direction (`sim::red`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct RedSummary {
    /// Packets marked CE and enqueued.
    pub marks: u64,
    /// Probabilistic drops (non-ECT packets, or ECT without ECN marking).
    pub early_drops: u64,
    /// Drops above max_th (2·max_th gentle).
    pub forced_drops: u64,
    /// Drops because the buffer was full (also in `drops_*`).
    pub overflow_drops: u64,
    /// The average queue (packets or bytes) at the end of the run.
    pub avg_end: f64,
    /// The mean instantaneous queue (packets or bytes waiting) found by the packets that
    /// arrived at the queue over the run (0 without arrivals).
    pub mean_queue: f64,
}

/// Retransmission counts with every cause present.
pub fn by_cause(counts: &[u64; tcplab_tcp::RETRANS_CAUSES]) -> ByCause {
    ByCause(*counts)
}

/// Slots of `flows_table`'s name memo: more than the nodes of any shipped scenario or benchmark
/// case but the 1000-flow dumbbell (a collision only costs the index lookup it replaces).
const NAME_MEMO_SLOTS: usize = 256;

/// The `flows` table: one row per flow with the summary fields (nullable where optional;
/// retransmissions by cause as `retrans_<cause>` columns).
pub fn flows_table<'a>(flows: &'a [FlowSummary]) -> Table {
    // Dictionary codes in order of first appearance (src column first, then dst). The index
    // keeps this linear in the flow count: a linear search per name was quadratic (~3 D1
    // misses per bottleneck packet of the whole 1000-flow benchmark run).
    // In front of the index, a direct-mapped memo keyed by the name's `Arc` allocation: the
    // rows of one node share one `Arc` (`lifecycle::SummaryNames`), so most rows find their
    // code without hashing the string (two SipHash lookups per row were ~580 instructions, a
    // tenth of the `web` benchmark's per-connection overhead). An allocation holds one string
    // while `flows` is borrowed, so the memo only repeats what the index answered; equal
    // names in distinct `Arc`s still meet in the index. Codes are the same either way.
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<&str, u32> = HashMap::new();
    let mut memo = [(std::ptr::null::<u8>(), 0u32); NAME_MEMO_SLOTS];
    let mut codes = |col: &mut Vec<u32>, s: &'a Arc<str>| {
        let p = Arc::as_ptr(s) as *const u8;
        // Allocations are at least 16-byte aligned: the low bits carry no information.
        let m = &mut memo[(p as usize >> 4) % NAME_MEMO_SLOTS];
        if m.0 != p {
            let c = *index.entry(&**s).or_insert_with(|| {
                names.push(s.to_string());
                (names.len() - 1) as u32
            });
            *m = (p, c);
        }
        col.push(m.1);
    };
    let (mut src, mut dst) = (Vec::with_capacity(flows.len()), Vec::with_capacity(flows.len()));
    for f in flows {
        codes(&mut src, &f.src);
    }
    for f in flows {
        codes(&mut dst, &f.dst);
    }
    let u64s = |g: &dyn Fn(&FlowSummary) -> u64| ColumnData::U64(flows.iter().map(g).collect());
    let mut t = Table::new("flows");
    t.push("id", ColumnData::U32(flows.iter().map(|f| f.id).collect()))
        .push("src", ColumnData::Dict { codes: src, values: names.clone() })
        .push("dst", ColumnData::Dict { codes: dst, values: names })
        .push_nullable(
            "bytes_requested",
            u64s(&|f| f.bytes_requested.unwrap_or(0)),
            flows.iter().map(|f| f.bytes_requested.is_some()).collect(),
        )
        .push("bytes_delivered", u64s(&|f| f.bytes_delivered))
        .push("start_s", ColumnData::F64(flows.iter().map(|f| f.start_s).collect()))
        .push_nullable(
            "fct_s",
            ColumnData::F64(flows.iter().map(|f| f.fct_s.unwrap_or(0.0)).collect()),
            flows.iter().map(|f| f.fct_s.is_some()).collect(),
        )
        .push("goodput_bps", ColumnData::F64(flows.iter().map(|f| f.goodput_bps).collect()))
        .push("data_segments_sent", u64s(&|f| f.data_segments_sent))
        .push("retransmissions", u64s(&|f| f.retransmissions));
    for c in RetransCause::ALL {
        let name = c.name();
        t.push(format!("retrans_{name}"), u64s(&|f| f.retransmissions_by_cause.0[c as usize]));
    }
    t.push("spurious_retransmissions", u64s(&|f| f.spurious_retransmissions))
        .push("timeouts", u64s(&|f| f.timeouts));
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: u32, src: &Arc<str>, dst: &Arc<str>) -> FlowSummary {
        FlowSummary {
            id,
            src: src.clone(),
            dst: dst.clone(),
            bytes_requested: None,
            bytes_delivered: 0,
            start_s: 0.0,
            fct_s: None,
            goodput_bps: 0.0,
            data_segments_sent: 0,
            retransmissions: 0,
            retransmissions_by_cause: ByCause([0; tcplab_tcp::RETRANS_CAUSES]),
            spurious_retransmissions: 0,
            timeouts: 0,
            quick_start: None,
            initial_window_segments: None,
            workload: None,
        }
    }

    /// The name columns are dictionaries in order of first appearance (src column, then dst),
    /// whether rows share a node's `Arc` (the memo) or carry equal names in distinct `Arc`s
    /// (the index), and with more distinct names than memo slots.
    #[test]
    fn name_dictionaries_are_in_order_of_first_appearance_whatever_the_arcs() {
        let (a, b, c) = (Arc::<str>::from("a"), Arc::<str>::from("b"), Arc::<str>::from("c"));
        let a2 = Arc::<str>::from("a");
        let mut flows = vec![flow(0, &b, &a), flow(1, &a2, &c), flow(2, &b, &a2), flow(3, &a, &b)];
        let many: Vec<Arc<str>> = (0..2 * NAME_MEMO_SLOTS).map(|i| Arc::from(format!("n{i}").as_str())).collect();
        for (i, n) in many.iter().enumerate() {
            flows.push(flow(4 + i as u32, n, &many[many.len() - 1 - i]));
        }
        flows.push(flow(9999, &many[3], &a2));
        let t = flows_table(&flows);
        let dict = |col: &str| match &t.column(col).unwrap().data {
            ColumnData::Dict { codes, values } => codes.iter().map(|&k| values[k as usize].clone()).collect::<Vec<_>>(),
            _ => panic!("{col} is not a dictionary"),
        };
        let want = |g: fn(&FlowSummary) -> &Arc<str>| flows.iter().map(|f| g(f).to_string()).collect::<Vec<_>>();
        assert_eq!(dict("src"), want(|f| &f.src));
        assert_eq!(dict("dst"), want(|f| &f.dst));
        let ColumnData::Dict { codes, values } = &t.column("src").unwrap().data else { unreachable!() };
        assert_eq!(&values[..4], &["b", "a", "n0", "n1"]);
        assert_eq!(values.len(), 3 + 2 * NAME_MEMO_SLOTS, "one value per distinct name");
        assert_eq!(&codes[..4], &[0, 1, 0, 1]);
    }
}

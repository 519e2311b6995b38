//! `summary.json`: totals in the layout of Rewaskar, Kaur & Smith Table IV (retransmissions
//! by cause × needed / spurious, plus the undecided), the distribution of detection
//! durations in RTT units (Fig. 2, bins of [`crate::timing::RTT_BIN_EDGES`]), the vantage
//! positions assumed, and every anomaly counted (damaged or skipped input, and what the
//! classifier could not decide).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::analyzer::{ConnRow, RetxRow};
use crate::classify::Cause;
use crate::output::detection_rtts;
use crate::timing::{rtt_bin, RTT_BIN_EDGES};

/// One capture file's facts.
#[derive(Clone, Debug, Serialize)]
pub struct CaptureInfo {
    pub file: String,
    pub path: String,
    /// "pcap", "pcap-ns", "pcapng"; absent when the file could not be read.
    pub format: Option<String>,
    /// "gzip", "zstd", "xz" when the file was decompressed while reading.
    pub compression: Option<String>,
    pub frames: u64,
    pub connections: u64,
    pub peak_concurrent_connections: u64,
    /// Why the file could not be read at all (then it contributes nothing).
    pub error: Option<String>,
    pub anomalies: tcplab_pcap::Anomalies,
}

/// One Table IV row.
#[derive(Copy, Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Row {
    pub total: u64,
    pub needed: u64,
    pub spurious: u64,
    pub unknown: u64,
}

impl Row {
    fn add(&mut self, s: Option<bool>) {
        self.total += 1;
        match s {
            Some(true) => self.spurious += 1,
            Some(false) => self.needed += 1,
            None => self.unknown += 1,
        }
    }
}

/// Fig. 2 histogram.
#[derive(Clone, Debug, Serialize)]
pub struct DetectionHistogram {
    /// Upper bin edges in RTTs; the last bin is open.
    pub bin_edges_rtt: Vec<f64>,
    pub all: Vec<u64>,
    pub by_cause: BTreeMap<String, Vec<u64>>,
    /// Retransmissions without a detection duration or RTT (original not seen, no handshake).
    pub without_rtt: u64,
}

/// The whole summary.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub model: String,
    pub vantage_requested: String,
    pub captures: Vec<CaptureInfo>,
    pub connections: u64,
    /// Data directions analysed, by assumed capture position and how it was obtained.
    pub positions: BTreeMap<String, u64>,
    pub retransmissions: u64,
    pub table_iv: BTreeMap<String, Row>,
    pub detection_rtt: DetectionHistogram,
    pub anomalies: Map<String, Value>,
}

/// Adds one file's reader counters: counts are summed, sets (e.g. `unknown_link_types`)
/// merged as sorted sets, never summed.
fn add_counters(into: &mut Map<String, Value>, v: &Value) {
    if let Value::Object(m) = v {
        for (k, x) in m {
            if let Some(n) = x.as_u64() {
                let cur = into.get(k).and_then(|c| c.as_u64()).unwrap_or(0);
                into.insert(k.clone(), Value::from(cur + n));
            } else if let Some(items) = x.as_array() {
                let mut set: Vec<i64> = into.get(k).and_then(|c| c.as_array()).map_or_else(Vec::new, |a| a.iter().filter_map(Value::as_i64).collect());
                set.extend(items.iter().filter_map(Value::as_i64));
                set.sort_unstable();
                set.dedup();
                into.insert(k.clone(), Value::from(set));
            }
        }
    }
}

pub fn build(model: &str, vantage: &str, captures: Vec<CaptureInfo>, retx: &[RetxRow], conns: &[ConnRow]) -> Summary {
    let mut table: BTreeMap<String, Row> = BTreeMap::new();
    for c in Cause::ALL {
        table.insert(c.name().to_string(), Row::default());
    }
    let nbins = RTT_BIN_EDGES.len() + 1;
    let mut hist = DetectionHistogram {
        bin_edges_rtt: RTT_BIN_EDGES.to_vec(),
        all: vec![0; nbins],
        by_cause: Cause::ALL.iter().map(|c| (c.name().to_string(), vec![0; nbins])).collect(),
        without_rtt: 0,
    };
    let mut total = Row::default();
    for r in retx {
        total.add(r.r.spurious);
        if let Some(row) = table.get_mut(r.r.cause.name()) {
            row.add(r.r.spurious);
        }
        match detection_rtts(r) {
            Some(x) => {
                let b = rtt_bin(x);
                if let Some(v) = hist.all.get_mut(b) {
                    *v += 1;
                }
                if let Some(v) = hist.by_cause.get_mut(r.r.cause.name()).and_then(|h| h.get_mut(b)) {
                    *v += 1;
                }
            }
            None => hist.without_rtt += 1,
        }
    }
    table.insert("total".to_string(), total);
    let mut positions: BTreeMap<String, u64> = BTreeMap::new();
    for c in conns {
        for p in c.positions.iter().flatten() {
            *positions.entry(format!("{}/{}", p.0.name(), p.1.name())).or_insert(0) += 1;
        }
    }
    let mut anomalies = Map::new();
    for cap in &captures {
        if let Ok(v) = serde_json::to_value(&cap.anomalies) {
            add_counters(&mut anomalies, &v);
        }
    }
    let unreadable = captures.iter().filter(|c| c.error.is_some()).count() as u64;
    anomalies.insert("unreadable_files".into(), Value::from(unreadable));
    let sum = |f: &dyn Fn(&ConnRow) -> u64| -> u64 { conns.iter().map(f).sum() };
    anomalies.insert("connections_without_handshake".into(), Value::from(sum(&|c| u64::from(!c.record.handshake_seen))));
    anomalies.insert("stray_syns".into(), Value::from(sum(&|c| c.record.stray_syns)));
    anomalies.insert("oversized_segments".into(), Value::from(sum(&|c| c.record.dirs[0].oversized_segments + c.record.dirs[1].oversized_segments)));
    anomalies.insert("reordered_segments".into(), Value::from(sum(&|c| c.counters[0].reordered + c.counters[1].reordered)));
    anomalies.insert("state_truncated".into(), Value::from(sum(&|c| c.counters[0].state_truncated + c.counters[1].state_truncated)));
    anomalies.insert("unknown_cause".into(), Value::from(table.get("unknown").map_or(0, |r| r.total)));
    anomalies.insert("undecided_spurious".into(), Value::from(total.unknown));
    Summary {
        model: model.to_string(),
        vantage_requested: vantage.to_string(),
        connections: conns.len() as u64,
        captures,
        positions,
        retransmissions: total.total,
        table_iv: table,
        detection_rtt: hist,
        anomalies,
    }
}

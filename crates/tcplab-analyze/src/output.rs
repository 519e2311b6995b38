//! The output tables (docs/outputs.md): `retransmissions` and `connections`, built as
//! [`tcplab_record::Table`]s in long format so the Python side receives numpy buffers and
//! writes Parquet/CSV exactly as for simulation results.

use rustc_hash::FxHashMap;
use tcplab_pcap::Dir;
use tcplab_record::{ColumnData, Table};

use crate::analyzer::{ConnRow, RetxRow};
use crate::classify::Cause;

/// Dictionary-encoded string column with a hash map (endpoint strings have high
/// cardinality; `tcplab_record::DictBuilder` is linear per value).
#[derive(Debug, Default)]
struct Interner {
    codes: Vec<u32>,
    values: Vec<String>,
    index: FxHashMap<String, u32>,
    /// The code of the last value pushed: consecutive rows mostly repeat it (the same capture,
    /// direction, cause, ...), and comparing with it is cheaper than hashing (the table is
    /// built after the last segment, on the command's critical path). Codes are the same
    /// either way.
    last: Option<u32>,
}

impl Interner {
    fn push(&mut self, s: &str) {
        if let Some(c) = self.last {
            if self.values.get(c as usize).is_some_and(|v| v == s) {
                self.codes.push(c);
                return;
            }
        }
        let code = match self.index.get(s) {
            Some(&c) => c,
            None => {
                let c = self.values.len() as u32;
                self.values.push(s.to_string());
                self.index.insert(s.to_string(), c);
                c
            }
        };
        self.last = Some(code);
        self.codes.push(code);
    }
    fn finish(self) -> ColumnData {
        ColumnData::Dict { codes: self.codes, values: self.values }
    }
}

fn nullable_u64(t: &mut Table, name: &str, v: impl Iterator<Item = Option<u64>>) {
    let (data, valid): (Vec<u64>, Vec<bool>) = v.map(|x| (x.unwrap_or(0), x.is_some())).unzip();
    t.push_nullable(name, ColumnData::U64(data), valid);
}

/// How an input capture is named in the tables: `capture` is the path as given (unique per
/// input, escaped by `tcplab_pcap::show_path`), `capture_name` its file name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureNames {
    pub path: String,
    pub name: String,
}

/// Pushes the `capture` and `capture_name` columns for rows of capture indices.
fn push_capture_columns(t: &mut Table, captures: &[CaptureNames], idx: impl Iterator<Item = u32>) {
    let mut path = Interner::default();
    let mut name = Interner::default();
    for i in idx {
        let c = captures.get(i as usize);
        path.push(c.map_or("", |c| c.path.as_str()));
        name.push(c.map_or("", |c| c.name.as_str()));
    }
    t.push("capture", path.finish());
    t.push("capture_name", name.finish());
}

pub fn dir_name(d: Dir) -> &'static str {
    match d {
        Dir::ClientToServer => "c2s",
        Dir::ServerToClient => "s2c",
    }
}

/// `retransmissions`: one row per retransmission, ordered by (capture, frame).
pub fn retransmissions_table(rows: &[RetxRow], captures: &[CaptureNames]) -> Table {
    let mut t = Table::new("retransmissions");
    let mut dir = Interner::default();
    let mut vantage = Interner::default();
    let mut cause = Interner::default();
    let mut trigger = Interner::default();
    let mut evidence = Interner::default();
    for r in rows {
        dir.push(dir_name(r.dir));
        vantage.push(r.vantage.name());
        cause.push(r.r.cause.name());
        trigger.push(r.r.trigger.name());
        evidence.push(r.r.evidence.name());
    }
    push_capture_columns(&mut t, captures, rows.iter().map(|r| r.capture));
    t.push("conn_id", ColumnData::U64(rows.iter().map(|r| r.conn_id).collect()));
    t.push("dir", dir.finish());
    t.push("frame", ColumnData::U64(rows.iter().map(|r| r.r.frame).collect()));
    t.push("ts_ns", ColumnData::U64(rows.iter().map(|r| r.r.ts_ns).collect()));
    t.push("seq", ColumnData::I64(rows.iter().map(|r| r.r.seq).collect()));
    t.push("len", ColumnData::U32(rows.iter().map(|r| r.r.len).collect()));
    t.push("cause", cause.finish());
    t.push("trigger", trigger.finish());
    t.push_nullable(
        "spurious",
        ColumnData::Bool(rows.iter().map(|r| r.r.spurious.unwrap_or(false)).collect()),
        rows.iter().map(|r| r.r.spurious.is_some()).collect(),
    );
    t.push("evidence", evidence.finish());
    nullable_u64(&mut t, "detection_ns", rows.iter().map(|r| r.r.detection_ns));
    nullable_u64(&mut t, "recovery_ns", rows.iter().map(|r| r.r.recovery_ns));
    nullable_u64(&mut t, "rtt_ns", rows.iter().map(|r| r.rtt_ns));
    let rtts: Vec<Option<f64>> = rows.iter().map(detection_rtts).collect();
    t.push_nullable(
        "detection_rtts",
        ColumnData::F64(rtts.iter().map(|x| x.unwrap_or(0.0)).collect()),
        rtts.iter().map(|x| x.is_some()).collect(),
    );
    t.push("vantage", vantage.finish());
    t
}

/// Detection duration in RTT units (Fig. 2), when both are known.
pub fn detection_rtts(r: &RetxRow) -> Option<f64> {
    match (r.r.detection_ns, r.rtt_ns) {
        (Some(d), Some(rtt)) if rtt > 0 => Some(d as f64 / rtt as f64),
        _ => None,
    }
}

/// Per-connection anomalies as `key=count` pairs (empty when clean).
pub fn conn_anomalies(c: &ConnRow) -> String {
    let r = &c.record;
    let mut parts: Vec<String> = Vec::new();
    let mut add = |k: &str, v: u64| {
        if v > 0 {
            parts.push(format!("{k}={v}"));
        }
    };
    add("no_handshake", u64::from(!r.handshake_seen));
    add("stray_syns", r.stray_syns);
    add("oversized_segments", r.dirs[0].oversized_segments + r.dirs[1].oversized_segments);
    add("tso_segments", r.dirs[0].tso_segments + r.dirs[1].tso_segments);
    add("reordered_segments", c.counters[0].reordered + c.counters[1].reordered);
    add("unknown_cause", c.counters[0].by_cause[Cause::Unknown.index()] + c.counters[1].by_cause[Cause::Unknown.index()]);
    add("undecided_spurious", c.counters[0].undecided + c.counters[1].undecided);
    add("state_truncated", c.counters[0].state_truncated + c.counters[1].state_truncated);
    parts.join(";")
}

/// The main data direction: client→server unless the server sent more.
fn main_dir(c: &ConnRow) -> usize {
    usize::from(c.record.dirs[1].payload_bytes > c.record.dirs[0].payload_bytes)
}

fn nullable_f64(t: &mut Table, name: &str, v: impl Iterator<Item = Option<f64>>) {
    let (data, valid): (Vec<f64>, Vec<bool>) = v.map(|x| (x.unwrap_or(0.0), x.is_some())).unzip();
    t.push_nullable(name, ColumnData::F64(data), valid);
}

/// The sender-inference and passive-hint columns (docs/outputs.md): the main data
/// direction's inference (`infer::infer_connection`); with a forced model (`forced`) the
/// model column names it and the inference columns are null.
fn push_inference_columns(t: &mut Table, rows: &[ConnRow], forced: Option<&str>) {
    let inf: Vec<Option<&crate::infer::Inference>> = rows.iter().map(crate::infer::infer_connection).collect();
    let mut model = Interner::default();
    let mut runner = Interner::default();
    let mut cands = Interner::default();
    let mut basis = Interner::default();
    let mut replayed = Interner::default();
    let mut sampling = Interner::default();
    for (i, row) in inf.iter().zip(rows) {
        // A model picked for this connection's sender (`AnalyzeConfig::picker`) names it.
        let main = main_dir(row);
        let picked = row.picked[main].as_deref().or(row.picked[1 - main].as_deref());
        match (i, picked.or(forced)) {
            (_, Some(f)) => {
                model.push(f);
                basis.push("forced");
                replayed.push(f);
            }
            (Some(i), None) => {
                model.push(i.model_name());
                basis.push(i.basis.name());
                replayed.push(&i.replayed);
            }
            (None, None) => {
                model.push("unknown");
                basis.push("none");
                replayed.push("");
            }
        }
        runner.push(i.and_then(|i| i.runner_up.as_deref()).unwrap_or(""));
        cands.push(&i.map_or(String::new(), |i| i.candidates.join("|")));
        sampling.push(i.and_then(|i| i.params.rtt_sampling).unwrap_or("unknown"));
    }
    t.push("model", model.finish());
    nullable_f64(t, "model_confidence", inf.iter().map(|i| i.and_then(|i| i.confidence)));
    t.push("model_runner_up", runner.finish());
    t.push("model_candidates", cands.finish());
    t.push("model_basis", basis.finish());
    t.push("model_replayed", replayed.finish());
    t.push("model_events", ColumnData::U64(inf.iter().map(|i| i.map_or(0, |i| u64::from(i.events))).collect()));
    nullable_u64(t, "inferred_dupthresh", inf.iter().map(|i| i.and_then(|i| i.params.dupthresh).map(u64::from)));
    nullable_u64(t, "inferred_min_rto_ns", inf.iter().map(|i| i.and_then(|i| i.params.min_rto_ns)));
    nullable_f64(t, "inferred_k", inf.iter().map(|i| i.and_then(|i| i.params.k)));
    t.push("inferred_rtt_sampling", sampling.finish());
    // Passive hints of the main sender (its SYN or SYN-ACK), apart from the replay evidence.
    let hints: Vec<Option<&crate::infer::PassiveHints>> = rows.iter().map(|c| c.hints[main_dir(c)].as_ref()).collect();
    let mut layout = Interner::default();
    let mut family = Interner::default();
    let mut hint_model = Interner::default();
    let mut hint_os = Interner::default();
    for (h, i) in hints.iter().zip(&inf) {
        layout.push(h.map_or("", |h| h.layout.as_str()));
        family.push(h.map_or("unknown", |h| h.family_name()));
        hint_os.push(h.and_then(|h| h.os_match()).map_or("", |s| s.os));
        let tied = i.filter(|i| i.model.is_none()).map_or(&[][..], |i| i.candidates.as_slice());
        hint_model.push(h.and_then(|h| h.tie_break(tied)).unwrap_or(""));
    }
    nullable_u64(t, "os_hint_ttl", hints.iter().map(|h| h.map(|h| u64::from(h.ttl))));
    nullable_u64(t, "os_hint_initial_ttl", hints.iter().map(|h| h.map(|h| u64::from(h.initial_ttl))));
    nullable_u64(t, "os_hint_window", hints.iter().map(|h| h.map(|h| u64::from(h.window))));
    t.push("os_hint_options", layout.finish());
    t.push("os_hint_family", family.finish());
    t.push("os_hint_os", hint_os.finish());
    t.push("os_hint_model", hint_model.finish());
}

/// `connections`: one row per connection, ordered by (capture, conn_id). `forced`: the
/// model named with `--model NAME` (`None` for `--model auto`).
pub fn connections_table(rows: &[ConnRow], captures: &[CaptureNames], forced: Option<&str>) -> Table {
    let mut t = Table::new("connections");
    let mut client = Interner::default();
    let mut server = Interner::default();
    let mut end = Interner::default();
    let mut vantage = Interner::default();
    let mut vsource = Interner::default();
    let mut anomalies = Interner::default();
    for c in rows {
        client.push(&c.record.client.to_string());
        server.push(&c.record.server.to_string());
        end.push(c.record.observed_end().name());
        // The position of the main data direction (client→server unless the server sent more).
        let main = usize::from(c.record.dirs[1].payload_bytes > c.record.dirs[0].payload_bytes);
        let p = c.positions[main].or(c.positions[1 - main]);
        vantage.push(p.map_or("none", |p| p.0.name()));
        vsource.push(p.map_or("none", |p| p.1.name()));
        anomalies.push(&conn_anomalies(c));
    }
    let r = |f: &dyn Fn(&ConnRow) -> u64| -> ColumnData { ColumnData::U64(rows.iter().map(f).collect()) };
    push_capture_columns(&mut t, captures, rows.iter().map(|c| c.capture));
    t.push("conn_id", r(&|c| c.record.conn_id));
    t.push("client", client.finish());
    t.push("server", server.finish());
    t.push("start_ns", r(&|c| c.record.first_ns));
    t.push("end_ns", r(&|c| c.record.last_ns));
    t.push("duration_ns", r(&|c| c.record.last_ns.saturating_sub(c.record.first_ns)));
    t.push("c2s_bytes", r(&|c| c.record.dirs[0].payload_bytes));
    t.push("c2s_unique_bytes", r(&|c| c.record.dirs[0].unique_bytes));
    t.push("c2s_data_segments", r(&|c| c.record.dirs[0].data_segments));
    t.push("s2c_bytes", r(&|c| c.record.dirs[1].payload_bytes));
    t.push("s2c_unique_bytes", r(&|c| c.record.dirs[1].unique_bytes));
    t.push("s2c_data_segments", r(&|c| c.record.dirs[1].data_segments));
    t.push("retransmissions", r(&|c| c.counters[0].retransmissions + c.counters[1].retransmissions));
    for cause in Cause::ALL {
        let i = cause.index();
        t.push(format!("rexmit_{}", cause.name()), r(&|c| c.counters[0].by_cause[i] + c.counters[1].by_cause[i]));
    }
    t.push("spurious", r(&|c| c.counters[0].spurious + c.counters[1].spurious));
    t.push("needed", r(&|c| c.counters[0].needed + c.counters[1].needed));
    t.push("spurious_unknown", r(&|c| c.counters[0].undecided + c.counters[1].undecided));
    nullable_u64(&mut t, "rtt_handshake_ns", rows.iter().map(|c| c.rtt_handshake_ns));
    nullable_u64(&mut t, "rtt_min_ns", rows.iter().map(|c| c.rtt_min_ns));
    nullable_u64(&mut t, "rtt_mean_ns", rows.iter().map(|c| c.rtt_mean_ns));
    nullable_u64(&mut t, "rtt_max_ns", rows.iter().map(|c| c.rtt_max_ns));
    t.push("rtt_samples", r(&|c| c.rtt_samples));
    nullable_u64(&mut t, "srtt_ns", rows.iter().map(|c| c.srtt_ns));
    nullable_u64(&mut t, "mss_client", rows.iter().map(|c| c.record.negotiated.mss[0].map(u64::from)));
    nullable_u64(&mut t, "mss_server", rows.iter().map(|c| c.record.negotiated.mss[1].map(u64::from)));
    t.push("sack", ColumnData::Bool(rows.iter().map(|c| c.record.negotiated.sack).collect()));
    t.push("timestamps", ColumnData::Bool(rows.iter().map(|c| c.record.negotiated.timestamps).collect()));
    nullable_u64(&mut t, "wscale_client", rows.iter().map(|c| c.record.negotiated.window_scale.map(|w| u64::from(w.0))));
    nullable_u64(&mut t, "wscale_server", rows.iter().map(|c| c.record.negotiated.window_scale.map(|w| u64::from(w.1))));
    t.push("handshake_seen", ColumnData::Bool(rows.iter().map(|c| c.record.handshake_seen).collect()));
    nullable_u64(&mut t, "qs_requested_Bps", rows.iter().map(|c| c.qs.requested));
    nullable_u64(&mut t, "qs_approved_Bps", rows.iter().map(|c| c.qs.approved));
    t.push("vantage", vantage.finish());
    t.push("vantage_source", vsource.finish());
    t.push("end_reason", end.finish());
    t.push("anomalies", anomalies.finish());
    push_inference_columns(&mut t, rows, forced);
    t
}

//! The `whatif` table: one row per connection and grid point, ordered by (capture, conn_id,
//! point). Columns: docs/outputs.md ("whatif").

use tcplab_record::{ColumnData, DictBuilder, Table};
use tcplab_tcp::config::{DupAckThreshold, Ratio};

use super::{ConnFacts, ConnOut, Events, ModelSource, RowBatch, TableMeta};

fn ratio(r: Ratio) -> f64 {
    f64::from(r.num) / f64::from(r.den.max(1))
}

fn d_name(d: DupAckThreshold) -> String {
    match d {
        DupAckThreshold::Fixed(n) => n.to_string(),
        DupAckThreshold::Adaptive => "adaptive".to_string(),
    }
}

/// A (model, point)'s column values.
struct PointLabels {
    set: &'static str,
    d: String,
    estimator: String,
    a: f64,
    b: f64,
    m: f64,
    k: f64,
    min_rto_ms: f64,
    is_model: bool,
}

/// Each connection's value repeated over its rows (the connections in table order).
fn per_conn<T: Copy>(conns: &[ConnOut], n: usize, f: impl Fn(&ConnOut) -> T) -> Vec<T> {
    let mut v = Vec::with_capacity(conns.len() * n);
    for c in conns {
        v.extend(std::iter::repeat(f(c)).take(n));
    }
    v
}

/// A per-(model, point) label over the rows: connection `c`'s block is the model's labels.
fn per_point<T: Copy>(conns: &[ConnOut], n: usize, labels: &[T]) -> Vec<T> {
    let mut v = Vec::with_capacity(conns.len() * n);
    for c in conns {
        let m = c.model as usize * n;
        v.extend_from_slice(&labels[m..m + n]);
    }
    v
}

/// Per row, from the connection's facts and the row's `delta_s` (`delta_rtts`, `delta_pct`).
fn derived(conns: &[ConnOut], n: usize, delta_s: &[f64], f: impl Fn(&ConnFacts, f64) -> Option<f64>) -> (Vec<f64>, Vec<bool>) {
    let mut data = Vec::with_capacity(conns.len() * n);
    let mut valid = Vec::with_capacity(conns.len() * n);
    for (i, c) in conns.iter().enumerate() {
        for &d in &delta_s[i * n..(i + 1) * n] {
            let x = f(&c.facts, d);
            data.push(x.unwrap_or(0.0));
            valid.push(x.is_some());
        }
    }
    (data, valid)
}

fn nullable_per_conn(t: &mut Table, name: &str, conns: &[ConnOut], n: usize, f: impl Fn(&ConnFacts) -> Option<f64>) {
    let data = per_conn(conns, n, |c| f(&c.facts).unwrap_or(0.0));
    let valid = per_conn(conns, n, |c| f(&c.facts).is_some());
    t.push_nullable(name, ColumnData::F64(data), valid);
}

/// The table of a batch of rows (or of all of them), column by column: each row column read
/// off the rows' [`Events`], the connection's facts repeated over its block, the point's
/// labels copied from the model's label vector.
pub fn whatif_table(w: &TableMeta<'_>, rows: &RowBatch) -> Table {
    let conns = &rows.conns[..];
    let n = w.grid.len();
    let mut t = Table::new("whatif");
    // Per (model, point): the effective configuration's labels, computed once.
    let labels: Vec<PointLabels> = w
        .models
        .iter()
        .flat_map(|(_, mcfg)| {
            w.grid.iter().map(move |p| {
                let cfg = p.apply(mcfg);
                PointLabels {
                    set: p.set.name(),
                    d: d_name(cfg.dupack_threshold),
                    estimator: format!("{:?}", cfg.rto_estimator).to_lowercase(),
                    a: ratio(cfg.rto.gain_a),
                    b: ratio(cfg.rto.gain_b),
                    m: ratio(cfg.rto.m),
                    k: ratio(cfg.rto.k),
                    min_rto_ms: cfg.rto.min.as_secs_f64() * 1e3,
                    is_model: cfg.dupack_threshold == mcfg.dupack_threshold && cfg.rto == mcfg.rto,
                }
            })
        })
        .collect();
    // Dictionary codes straight from the (model, point) index (no per-row string hashing).
    let (mut set_b, mut d_b, mut est_b) = (DictBuilder::new(), DictBuilder::new(), DictBuilder::new());
    for l in &labels {
        set_b.push(l.set);
        d_b.push(&l.d);
        est_b.push(&l.estimator);
    }
    let codes_of = |c: ColumnData| match c {
        ColumnData::Dict { codes, values } => (codes, values),
        _ => (Vec::new(), Vec::new()),
    };
    let dict = |b: DictBuilder| {
        let (codes, values) = codes_of(b.finish());
        ColumnData::Dict { codes: per_point(conns, n, &codes), values }
    };
    let label_col = |f: &dyn Fn(&PointLabels) -> f64| ColumnData::F64(per_point(conns, n, &labels.iter().map(f).collect::<Vec<_>>()));
    // Per input capture, interned (the same path or file name given twice is one value).
    let (mut cp, mut cn) = (DictBuilder::new(), DictBuilder::new());
    for c in w.captures {
        cp.push(&c.path);
        cn.push(&c.name);
    }
    let ((cp_codes, cp_values), (cn_codes, cn_values)) = (codes_of(cp.finish()), codes_of(cn.finish()));
    let code = |codes: &[u32], i: u32| codes.get(i as usize).copied().unwrap_or(0);
    let capture = ColumnData::Dict { codes: per_conn(conns, n, |c| code(&cp_codes, c.capture)), values: cp_values };
    let capture_name = ColumnData::Dict { codes: per_conn(conns, n, |c| code(&cn_codes, c.capture)), values: cn_values };
    let model = ColumnData::Dict { codes: per_conn(conns, n, |c| c.model), values: w.models.iter().map(|m| m.0.clone()).collect() };
    let sources = [ModelSource::Forced, ModelSource::Inferred, ModelSource::BestCandidate];
    let source = ColumnData::Dict {
        codes: per_conn(conns, n, |c| sources.iter().position(|s| *s == c.facts.model_source).unwrap_or(0) as u32),
        values: sources.iter().map(|s| s.name().to_string()).collect(),
    };
    let ev = |f: fn(&Events) -> u32| ColumnData::U32(rows.events.iter().map(f).collect());
    let ns_s = |f: fn(&Events) -> i64| ColumnData::F64(rows.events.iter().map(|e| f(e) as f64 * 1e-9).collect());
    let fact_u32 = |f: &dyn Fn(&ConnFacts) -> u32| ColumnData::U32(per_conn(conns, n, |c| f(&c.facts)));
    let fact_f64 = |f: &dyn Fn(&ConnFacts) -> f64| ColumnData::F64(per_conn(conns, n, |c| f(&c.facts)));
    t.push("capture", capture);
    t.push("capture_name", capture_name);
    t.push("conn_id", ColumnData::U64(per_conn(conns, n, |c| c.conn_id)));
    t.push("model", model);
    t.push("model_source", source);
    t.push("rto_estimator", dict(est_b));
    t.push("point", ColumnData::U32(per_point(conns, n, &(0..n as u32).cycle().take(n * w.models.len()).collect::<Vec<_>>())));
    t.push("grid_set", dict(set_b));
    t.push("D", dict(d_b));
    t.push("a", label_col(&|l| l.a));
    t.push("b", label_col(&|l| l.b));
    t.push("m", label_col(&|l| l.m));
    t.push("k", label_col(&|l| l.k));
    t.push("min_rto_ms", label_col(&|l| l.min_rto_ms));
    t.push("is_model", ColumnData::Bool(per_point(conns, n, &labels.iter().map(|l| l.is_model).collect::<Vec<_>>())));
    t.push("rto_to_fr", ev(|e| e.rto_to_fr));
    t.push("fr_to_rto", ev(|e| e.fr_to_rto));
    t.push("spurious_rto_avoided", ev(|e| e.spurious_rto_avoided));
    t.push("spurious_rto_caused", ev(|e| e.spurious_rto_caused));
    t.push("spurious_fr_avoided", ev(|e| e.spurious_fr_avoided));
    t.push("spurious_fr_caused", ev(|e| e.spurious_fr_caused));
    t.push("rto_detection_delta_s", ns_s(|e| e.rto_detection_delta_ns));
    t.push("fr_detection_delta_s", ns_s(|e| e.fr_detection_delta_ns));
    t.push("delta_duration_s", ColumnData::F64(rows.delta_s.clone()));
    let (d, v) = derived(conns, n, &rows.delta_s, ConnFacts::in_rtts);
    t.push_nullable("delta_rtts", ColumnData::F64(d), v);
    let (d, v) = derived(conns, n, &rows.delta_s, ConnFacts::in_pct);
    t.push_nullable("delta_pct", ColumnData::F64(d), v);
    t.push("best_case_s", fact_f64(&|f| f.best_case_s));
    nullable_per_conn(&mut t, "best_case_rtts", conns, n, |f| f.best_case_rtts);
    nullable_per_conn(&mut t, "best_case_pct", conns, n, |f| f.best_case_pct);
    t.push("duration_s", fact_f64(&|f| f.duration_s));
    nullable_per_conn(&mut t, "rtt_mean_s", conns, n, |f| f.rtt_mean_s);
    nullable_per_conn(&mut t, "rtt_max_s", conns, n, |f| f.rtt_max_s);
    t.push("data_bytes", ColumnData::U64(per_conn(conns, n, |c| c.facts.data_bytes)));
    t.push("detections", fact_u32(&|f| f.detections));
    t.push("detections_needed", fact_u32(&|f| f.lost));
    t.push("model_rto_detections", fact_u32(&|f| f.base_rto));
    t.push("model_fr_detections", fact_u32(&|f| f.base_fr));
    t
}

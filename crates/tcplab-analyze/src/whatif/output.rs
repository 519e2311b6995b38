//! The `whatif` table: one row per connection and grid point, ordered by (capture, conn_id,
//! point). Columns: docs/outputs.md ("whatif").

use tcplab_record::{ColumnData, DictBuilder, Table};
use tcplab_tcp::config::{DupAckThreshold, Ratio};

use super::{ModelSource, WhatIf, WhatIfRow};

fn ratio(r: Ratio) -> f64 {
    f64::from(r.num) / f64::from(r.den.max(1))
}

fn d_name(d: DupAckThreshold) -> String {
    match d {
        DupAckThreshold::Fixed(n) => n.to_string(),
        DupAckThreshold::Adaptive => "adaptive".to_string(),
    }
}

fn nullable_f64(t: &mut Table, name: &str, v: impl Iterator<Item = Option<f64>>) {
    let (data, valid): (Vec<f64>, Vec<bool>) = v.map(|x| (x.unwrap_or(0.0), x.is_some())).unzip();
    t.push_nullable(name, ColumnData::F64(data), valid);
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

pub fn whatif_table(w: &WhatIf) -> Table {
    let rows = &w.rows;
    let mut t = Table::new("whatif");
    // Effective parameters: the point's, or the model's where the point keeps it.
    let mut a = Vec::with_capacity(rows.len());
    let mut b = Vec::with_capacity(rows.len());
    let mut m = Vec::with_capacity(rows.len());
    let mut k = Vec::with_capacity(rows.len());
    let mut min_rto = Vec::with_capacity(rows.len());
    let mut baseline = Vec::with_capacity(rows.len());
    // Per (model, point): the effective configuration's labels, computed once.
    let n_points = w.grid.len();
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
    // Dictionary codes straight from the row's indices (no per-row string hashing): the
    // label of (model, point) interned once.
    let mut set_b = DictBuilder::new();
    let mut d_b = DictBuilder::new();
    let mut est_b = DictBuilder::new();
    for l in &labels {
        set_b.push(l.set);
        d_b.push(&l.d);
        est_b.push(&l.estimator);
    }
    let codes_of = |c: ColumnData| match c {
        ColumnData::Dict { codes, values } => (codes, values),
        _ => (Vec::new(), Vec::new()),
    };
    let (set_codes, set_values) = codes_of(set_b.finish());
    let (d_codes, d_values) = codes_of(d_b.finish());
    let (est_codes, est_values) = codes_of(est_b.finish());
    let (mut set_c, mut d_c, mut est_c) = (Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()));
    for r in rows {
        let li = r.model as usize * n_points + r.point as usize;
        let l = &labels[li];
        set_c.push(set_codes[li]);
        d_c.push(d_codes[li]);
        est_c.push(est_codes[li]);
        a.push(l.a);
        b.push(l.b);
        m.push(l.m);
        k.push(l.k);
        min_rto.push(l.min_rto_ms);
        baseline.push(l.is_model);
    }
    // Per input capture, interned (the same path or file name given twice is one value).
    let (mut cp, mut cn) = (DictBuilder::new(), DictBuilder::new());
    for c in &w.captures {
        cp.push(&c.path);
        cn.push(&c.name);
    }
    let ((cp_codes, cp_values), (cn_codes, cn_values)) = (codes_of(cp.finish()), codes_of(cn.finish()));
    let code = |codes: &[u32], i: u32| codes.get(i as usize).copied().unwrap_or(0);
    let capture = ColumnData::Dict { codes: rows.iter().map(|r| code(&cp_codes, r.capture)).collect(), values: cp_values };
    let capture_name = ColumnData::Dict { codes: rows.iter().map(|r| code(&cn_codes, r.capture)).collect(), values: cn_values };
    let model = ColumnData::Dict { codes: rows.iter().map(|r| r.model).collect(), values: w.models.iter().map(|m| m.0.clone()).collect() };
    let sources = [ModelSource::Forced, ModelSource::Inferred, ModelSource::BestCandidate];
    let source = ColumnData::Dict {
        codes: rows.iter().map(|r| sources.iter().position(|s| *s == r.conn.model_source).unwrap_or(0) as u32).collect(),
        values: sources.iter().map(|s| s.name().to_string()).collect(),
    };
    let set = ColumnData::Dict { codes: set_c, values: set_values };
    let d = ColumnData::Dict { codes: d_c, values: d_values };
    let estimator = ColumnData::Dict { codes: est_c, values: est_values };
    let u = |f: &dyn Fn(&WhatIfRow) -> u32| ColumnData::U32(rows.iter().map(f).collect());
    let fl = |f: &dyn Fn(&WhatIfRow) -> f64| ColumnData::F64(rows.iter().map(f).collect());
    t.push("capture", capture);
    t.push("capture_name", capture_name);
    t.push("conn_id", ColumnData::U64(rows.iter().map(|r| r.conn_id).collect()));
    t.push("model", model);
    t.push("model_source", source);
    t.push("rto_estimator", estimator);
    t.push("point", u(&|r| r.point));
    t.push("grid_set", set);
    t.push("D", d);
    t.push("a", ColumnData::F64(a));
    t.push("b", ColumnData::F64(b));
    t.push("m", ColumnData::F64(m));
    t.push("k", ColumnData::F64(k));
    t.push("min_rto_ms", ColumnData::F64(min_rto));
    t.push("is_model", ColumnData::Bool(baseline));
    t.push("rto_to_fr", u(&|r| r.effects.rto_to_fr));
    t.push("fr_to_rto", u(&|r| r.effects.fr_to_rto));
    t.push("spurious_rto_avoided", u(&|r| r.effects.spurious_rto_avoided));
    t.push("spurious_rto_caused", u(&|r| r.effects.spurious_rto_caused));
    t.push("spurious_fr_avoided", u(&|r| r.effects.spurious_fr_avoided));
    t.push("spurious_fr_caused", u(&|r| r.effects.spurious_fr_caused));
    t.push("rto_detection_delta_s", fl(&|r| r.effects.rto_detection_delta_ns as f64 * 1e-9));
    t.push("fr_detection_delta_s", fl(&|r| r.effects.fr_detection_delta_ns as f64 * 1e-9));
    t.push("delta_duration_s", fl(&|r| r.delta_s));
    nullable_f64(&mut t, "delta_rtts", rows.iter().map(|r| r.delta_rtts));
    nullable_f64(&mut t, "delta_pct", rows.iter().map(|r| r.delta_pct));
    t.push("best_case_s", fl(&|r| r.conn.best_case_s));
    nullable_f64(&mut t, "best_case_rtts", rows.iter().map(|r| r.conn.best_case_rtts));
    nullable_f64(&mut t, "best_case_pct", rows.iter().map(|r| r.conn.best_case_pct));
    t.push("duration_s", fl(&|r| r.conn.duration_s));
    nullable_f64(&mut t, "rtt_mean_s", rows.iter().map(|r| r.conn.rtt_mean_s));
    nullable_f64(&mut t, "rtt_max_s", rows.iter().map(|r| r.conn.rtt_max_s));
    t.push("data_bytes", ColumnData::U64(rows.iter().map(|r| r.conn.data_bytes).collect()));
    t.push("detections", u(&|r| r.conn.detections));
    t.push("detections_needed", u(&|r| r.conn.lost));
    t.push("model_rto_detections", u(&|r| r.conn.base_rto));
    t.push("model_fr_detections", u(&|r| r.conn.base_fr));
    t
}

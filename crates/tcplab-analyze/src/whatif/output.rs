//! The `whatif` table: one row per connection and grid point, ordered by (capture, conn_id,
//! point). Columns: docs/outputs.md ("whatif").

use tcplab_record::{ColumnData, DictBuilder, Table};
use tcplab_tcp::config::{DupAckThreshold, Ratio};

use super::{WhatIf, WhatIfRow};

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
    let mut capture = DictBuilder::new();
    let mut capture_name = DictBuilder::new();
    let mut model = DictBuilder::new();
    let mut source = DictBuilder::new();
    let mut set = DictBuilder::new();
    let mut d = DictBuilder::new();
    let mut estimator = DictBuilder::new();
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
    for r in rows {
        let c = w.captures.get(r.capture as usize);
        capture.push(c.map_or("", |c| c.path.as_str()));
        capture_name.push(c.map_or("", |c| c.name.as_str()));
        model.push(&w.models[r.model as usize].0);
        source.push(r.conn.model_source.name());
        let l = &labels[r.model as usize * n_points + r.point as usize];
        set.push(l.set);
        d.push(&l.d);
        estimator.push(&l.estimator);
        a.push(l.a);
        b.push(l.b);
        m.push(l.m);
        k.push(l.k);
        min_rto.push(l.min_rto_ms);
        baseline.push(l.is_model);
    }
    let u = |f: &dyn Fn(&WhatIfRow) -> u32| ColumnData::U32(rows.iter().map(f).collect());
    let fl = |f: &dyn Fn(&WhatIfRow) -> f64| ColumnData::F64(rows.iter().map(f).collect());
    t.push("capture", capture.finish());
    t.push("capture_name", capture_name.finish());
    t.push("conn_id", ColumnData::U64(rows.iter().map(|r| r.conn_id).collect()));
    t.push("model", model.finish());
    t.push("model_source", source.finish());
    t.push("rto_estimator", estimator.finish());
    t.push("point", u(&|r| r.point));
    t.push("grid_set", set.finish());
    t.push("D", d.finish());
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

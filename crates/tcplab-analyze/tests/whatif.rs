//! What-if replay (003 §IV-C/D) on simulated captures with known losses.
#![allow(clippy::unwrap_used)]

#[path = "common/corpus.rs"]
mod corpus;

use std::sync::Arc;

use tcplab_analyze::whatif::grid::{default_grid, GridPoint, GridSet};
use tcplab_analyze::whatif::{whatif_paths, WhatIf, WhatIfConfig};
use tcplab_analyze::{AnalyzeConfig, ConfigModel, VantageChoice};
use tcplab_time::SimDuration;

fn run(name: &str, grid: Vec<GridPoint>) -> WhatIf {
    let case = corpus::cases().into_iter().find(|c| c.name == name).unwrap();
    let dir = std::env::temp_dir().join(format!("tcplab-whatif-{}-{}", std::process::id(), name.replace(['/', '%', '+'], "_")));
    std::fs::create_dir_all(&dir).unwrap();
    let _ = corpus::simulate(&case, &dir, 1);
    let analyze = AnalyzeConfig { vantage: VantageChoice::Sender, model: Arc::new(ConfigModel::new("sim", case.tcp.clone())), ..Default::default() };
    let w = whatif_paths(&[dir.join("sender.pcap")], &WhatIfConfig { analyze, grid }).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    w
}

fn custom(min_rto_ms: u64) -> GridPoint {
    GridPoint { set: GridSet::Custom, min_rto: Some(SimDuration::from_millis(min_rto_ms)), ..GridPoint::BASELINE }
}

/// The model replayed against itself changes nothing; every connection gets one row per
/// point of 003's 725-point grid; a lossy connection has detections the model's replay
/// explains by timer or FR/R.
#[test]
fn the_model_itself_changes_nothing_and_every_point_has_a_row() {
    let mut grid = default_grid();
    grid.push(GridPoint::BASELINE);
    let n = grid.len() as u32;
    let w = run("random-1%/sack+ts", grid);
    let conns: std::collections::BTreeSet<u64> = w.rows().map(|r| r.conn_id).collect();
    assert_eq!(w.num_rows(), conns.len() * n as usize);
    let base: Vec<_> = w.rows().filter(|r| r.point == n - 1).collect();
    assert!(base.iter().any(|r| r.conn.lost > 0), "no needed retransmission in a 1 % loss run");
    for r in &base {
        assert_eq!(r.events, Default::default());
        assert_eq!(r.delta_s, 0.0);
        assert!(r.conn.base_rto + r.conn.base_fr >= r.conn.lost);
        assert!(r.conn.best_case_s <= 0.0);
    }
}

/// A tail loss is detected by the timer; RFC 6298's 1 s minimum RTO dominates a 40 ms path: with 200 ms the timer detects the
/// same losses sooner (a negative detection change), with a larger minimum later.
#[test]
fn a_smaller_min_rto_detects_timeouts_sooner() {
    let w = run("tail-loss/sack+ts", vec![custom(200), custom(3000)]);
    let rto_base: u32 = w.rows().filter(|r| r.point == 0).map(|r| r.conn.base_rto).sum();
    assert!(rto_base > 0, "no timeout in the model's replay");
    let sooner: f64 = w.rows().filter(|r| r.point == 0).map(|r| r.events.rto_detection_delta_ns as f64).sum();
    let later: f64 = w.rows().filter(|r| r.point == 1).map(|r| r.events.rto_detection_delta_ns as f64).sum();
    assert!(sooner < 0.0, "min RTO 200 ms: {sooner}");
    assert!(later > 0.0, "min RTO 3 s: {later}");
    assert!(w.rows().filter(|r| r.point == 0).map(|r| r.delta_s).sum::<f64>() < 0.0);
    // Best-Case: the needed timeouts waited ~1 s on a path whose RTT is ~45 ms.
    assert!(w.rows().filter(|r| r.point == 0).map(|r| r.conn.best_case_s).sum::<f64>() < -0.5);
}

/// 3 s delay spikes make the 1 s-minimum timer fire spuriously; a 5 s minimum RTO outlasts
/// the spikes and avoids those spurious timeouts, and causes none.
#[test]
fn a_timer_longer_than_the_delay_spikes_avoids_their_spurious_timeouts() {
    let w = run("spikes-3s-both/sack+ts", vec![custom(5000)]);
    let avoided: u32 = w.rows().map(|r| r.events.spurious_rto_avoided).sum();
    let caused: u32 = w.rows().map(|r| r.events.spurious_rto_caused).sum();
    assert!(avoided > 0, "no spurious timeout avoided");
    assert_eq!(caused, 0);
    // Best-Case: each spurious timeout avoided saves R(x) RTTs.
    assert!(w.rows().map(|r| r.conn.best_case_s).sum::<f64>() < 0.0);
}

/// `--model auto`: each connection is replayed with the model its inference picked (named,
/// or the best-scoring candidate when the evidence is not decisive); a simulated FreeBSD 5
/// sender's timeout (1.2 s minimum RTO) scores best as `freebsd-5`, fourth in tie order.
#[test]
fn with_auto_each_connection_uses_its_inferred_model() {
    let case = corpus::cases().into_iter().find(|c| c.name == "tail-loss/sack+ts").unwrap();
    let dir = std::env::temp_dir().join(format!("tcplab-whatif-{}-auto", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut case = case;
    let tcp = tcplab_tcp::Profile::FREEBSD_5.config();
    for f in case.spec.flows.iter_mut() {
        f.tcp = tcplab_tcp::TcpConfig { mss: f.tcp.mss, sack: true, timestamps: true, recv_buffer: f.tcp.recv_buffer, window_scale: true, trace: true, ..tcp.clone() };
    }
    let _ = corpus::simulate(&case, &dir, 1);
    let analyze = AnalyzeConfig { vantage: VantageChoice::Sender, ..AnalyzeConfig::auto() };
    let w = whatif_paths(&[dir.join("sender.pcap")], &WhatIfConfig { analyze, grid: vec![custom(200)] }).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(w.auto && w.models.len() > 1);
    let lossy: Vec<_> = w.rows().filter(|r| r.conn.detections > 0).collect();
    assert!(!lossy.is_empty());
    for r in lossy {
        assert_eq!(w.models[r.model as usize].0, "freebsd-5", "{:?}", r.conn.model_source);
        assert_ne!(r.conn.model_source, tcplab_analyze::whatif::ModelSource::Forced);
    }
}

/// Rows `a..b` of a column as text (a dictionary's values, not its codes).
fn values(d: &tcplab_record::ColumnData, a: usize, b: usize) -> Vec<String> {
    use tcplab_record::ColumnData as C;
    match d {
        C::U64(v) => v[a..b].iter().map(|x| x.to_string()).collect(),
        C::I64(v) => v[a..b].iter().map(|x| x.to_string()).collect(),
        C::U32(v) => v[a..b].iter().map(|x| x.to_string()).collect(),
        C::F64(v) => v[a..b].iter().map(|x| x.to_bits().to_string()).collect(),
        C::Bool(v) => v[a..b].iter().map(|x| x.to_string()).collect(),
        C::Dict { codes, values } => codes[a..b].iter().map(|&c| values[c as usize].clone()).collect(),
    }
}

/// Streamed in batches (here one connection at a time), the rows are the same rows in the
/// same order as kept whole, and each batch's table is that batch's slice of the whole table.
#[test]
fn streamed_rows_are_the_kept_rows_in_the_same_order() {
    use std::ops::ControlFlow;
    use tcplab_analyze::whatif::{output, whatif_stream, RowBatch, TableMeta};
    let case = corpus::cases().into_iter().find(|c| c.name == "sudden-queue-rto200ms/sack+ts").unwrap();
    let dir = std::env::temp_dir().join(format!("tcplab-whatif-{}-stream", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _ = corpus::simulate(&case, &dir, 1);
    let analyze = AnalyzeConfig { vantage: VantageChoice::Middle, model: Arc::new(ConfigModel::new("sim", case.tcp.clone())), ..Default::default() };
    let cfg = WhatIfConfig { analyze, grid: vec![custom(200), custom(400), GridPoint::BASELINE] };
    let kept = whatif_paths(&[dir.join("middle.pcap")], &cfg).unwrap();
    let whole = kept.whatif_table();
    let (mut batches, mut ids, mut deltas, mut rows) = (0, Vec::new(), Vec::new(), 0);
    let mut sink = |meta: &TableMeta<'_>, b: &RowBatch| {
        batches += 1;
        ids.extend(b.conns.iter().map(|c| c.conn_id));
        deltas.extend_from_slice(&b.delta_s);
        let t = output::whatif_table(meta, b);
        for col in &t.columns {
            let w = whole.column(&col.name).unwrap();
            let n = t.num_rows();
            assert_eq!(values(&col.data, 0, n), values(&w.data, rows, rows + n), "{}", col.name);
            assert_eq!(col.valid.as_ref().map(|v| v.to_vec()), w.valid.as_ref().map(|v| v[rows..rows + n].to_vec()), "{}", col.name);
        }
        rows += t.num_rows();
        ControlFlow::Continue(())
    };
    let streamed = whatif_stream(&[dir.join("middle.pcap")], &cfg, 1, &mut sink).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(kept.rows.conns.len() > 1);
    assert_eq!(batches, kept.rows.conns.len(), "one batch per connection at batch_rows = 1");
    assert_eq!(ids, kept.rows.conns.iter().map(|c| c.conn_id).collect::<Vec<_>>());
    assert_eq!(deltas, kept.rows.delta_s);
    assert_eq!(rows, whole.num_rows());
    assert!(streamed.rows.conns.is_empty());
    assert_eq!(streamed.connections.len(), kept.connections.len());
}

//! RFC 8985 §7 Tail Loss Probe through the simulator: the probe's cause reaches the events
//! table (the ground truth of every retransmission) and the flow summary, and a tail loss is
//! repaired sooner than by the retransmission timer.

mod common;

use tcplab_netsim::spec::{LossSpec, SimSpec};
use tcplab_netsim::{run, scenario, RunOptions, RunOutput};
use tcplab_record::ColumnData;
use tcplab_tcp::TcpConfig;

const MSS: u64 = 1448;
const SEGMENTS: u64 = 40;

/// One 40-segment flow over 1 Gb/s / 1 ms access links and a 10 Mb/s, 10 ms bottleneck whose
/// last original data segment is dropped (DropNth counts data segments of the flow).
fn tail_loss(tlp: bool) -> SimSpec {
    let mut spec = common::one_flow(TcpConfig { tlp, ..TcpConfig::default() }, 100, SEGMENTS * MSS);
    spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![SEGMENTS] };
    spec
}

fn traced(spec: &SimSpec) -> RunOutput {
    run(spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }).expect("run")
}

/// (kind, cause, spurious) of every events row; null cells as "" / None.
fn rows(out: &RunOutput) -> Vec<(String, String, Option<bool>)> {
    let dict = |col: &str| common::strings(out, col);
    let sp = out.events.column("spurious").expect("spurious column");
    let ColumnData::Bool(s) = &sp.data else { panic!("spurious is not boolean") };
    let spurious: Vec<Option<bool>> =
        s.iter().enumerate().map(|(i, &b)| sp.valid.as_ref().is_none_or(|v| v[i]).then_some(b)).collect();
    dict("kind").into_iter().zip(dict("cause")).zip(spurious).map(|((k, c), s)| (k, c, s)).collect()
}

#[test]
fn a_tail_loss_is_repaired_by_a_tlp_retransmission_recorded_with_cause_tlp_and_finishes_sooner() {
    let with = traced(&tail_loss(true));
    let without = traced(&tail_loss(false));
    for out in [&with, &without] {
        assert_eq!(out.summary.flows[0].bytes_delivered, SEGMENTS * MSS);
    }
    let retrans = |out: &RunOutput| -> Vec<(String, Option<bool>)> {
        rows(out).into_iter().filter(|(k, _, _)| k == "segment_retransmitted").map(|(_, c, s)| (c, s)).collect()
    };
    // Ground truth: one retransmission, by the probe, of a segment that was really lost.
    assert_eq!(retrans(&with), vec![("tlp".to_string(), Some(false))]);
    assert_eq!(retrans(&without), vec![("rto".to_string(), Some(false))]);
    let f = &with.summary.flows[0];
    assert_eq!(f.retransmissions_by_cause["tlp"], 1);
    assert_eq!(f.retransmissions_by_cause["rto"], 0);
    assert_eq!(f.timeouts, 0);
    assert_eq!(without.summary.flows[0].retransmissions_by_cause["tlp"], 0);
    // The probe's own trace row (a retransmission: value 0).
    assert_eq!(rows(&with).iter().filter(|(k, _, _)| k == "tlp_probe").count(), 1);
    assert_eq!(rows(&without).iter().filter(|(k, _, _)| k == "tlp_probe").count(), 0);
    // PTO = 2*SRTT + 200 ms (one segment in flight) instead of the 1 s minimum RTO.
    let (fct_with, fct_without) = (f.fct_s.expect("finishes"), without.summary.flows[0].fct_s.expect("finishes"));
    assert!(fct_without - fct_with > 0.5, "with tlp {fct_with} s, without {fct_without} s");
}

#[test]
fn the_scenario_key_turns_tlp_on_for_every_flow() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dumbbell.toml");
    let spec = scenario::load_path(&path, &["tcp.tlp=true".to_string()]).expect("loads");
    assert!(spec.flows.iter().all(|f| f.tcp.tlp));
    let spec = scenario::load_path(&path, &[]).expect("loads");
    assert!(spec.flows.iter().all(|f| !f.tcp.tlp), "off by default");
}

//! End-to-end runs of the simulator driving the real TCP engine.

mod common;

use tcplab_netsim::bench::bench_case;
use tcplab_netsim::spec::{LossSpec, SimSpec};
use tcplab_netsim::{run, RunOptions, RunOutput};
use tcplab_record::ColumnData;
use tcplab_tcp::{RtoConfig, TcpConfig};
use tcplab_time::SimDuration;

const SIZE: u64 = 1_000_000;

/// One 1 MB flow over 1 Gb/s / 1 ms access links and a 10 Mb/s, 10 ms bottleneck.
fn one_flow() -> SimSpec {
    common::one_flow(TcpConfig::default(), 50, SIZE)
}

fn traced(spec: &SimSpec, seed: u64) -> RunOutput {
    run(spec, &RunOptions { seed, trace: true, pcap: vec![] }).expect("run")
}

use common::strings;

#[test]
fn a_single_flow_over_a_dumbbell_delivers_exactly_its_size() {
    let out = traced(&one_flow(), 1);
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, SIZE, "{f:?}");
    let fct = f.fct_s.expect("the flow completes");
    // 1 MB at 10 Mb/s is 0.8 s at least.
    assert!(fct > 0.8 && fct < 10.0, "fct {fct}");
    assert!(out.summary.links[0].packets_ab >= SIZE / 1448);
    assert!(strings(&out, "kind").iter().any(|k| k == "established"));
}

#[test]
fn dropping_one_data_segment_on_the_bottleneck_causes_a_fast_retransmit() {
    let mut spec = one_flow();
    spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![30] };
    let out = traced(&spec, 1);
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, SIZE);
    assert_eq!(out.summary.links[0].drops_ab, 1);
    assert!(f.retransmissions_by_cause["fast_retransmit"] >= 1, "{f:?}");
    assert_eq!(f.spurious_retransmissions, 0, "the dropped segment never arrived");
    let kinds = strings(&out, "kind");
    let causes = strings(&out, "cause");
    assert!(kinds.iter().zip(&causes).any(|(k, c)| k == "segment_retransmitted" && c == "fast_retransmit"));
    assert!(kinds.iter().any(|k| k == "packet_dropped"));
}

#[test]
fn lossy_runs_are_identical_with_the_same_seed_and_differ_with_another() {
    let mut spec = one_flow();
    spec.links[0].loss_ab = LossSpec::Bernoulli { p: 0.01 };
    let a = traced(&spec, 7);
    let b = traced(&spec, 7);
    let c = traced(&spec, 8);
    assert_eq!(a.events, b.events);
    assert_eq!(a.summary, b.summary);
    assert!(a.summary.links[0].drops_ab > 0);
    assert_ne!(a.events, c.events);
}

#[test]
fn a_short_benchmark_run_moves_packets_across_the_bottleneck() {
    let mut spec = bench_case("10x1G").expect("case");
    spec.duration = SimDuration::from_millis(500);
    let out = run(&spec, &RunOptions { seed: 1, trace: false, pcap: vec![] }).expect("run");
    assert!(out.summary.links[0].packets_ab > 10_000, "{:?}", out.summary.links[0]);
    assert!(out.summary.flows.iter().all(|f| f.bytes_delivered > 0));
    assert_eq!(out.events.num_rows(), 0, "trace off records nothing");
}

#[test]
fn a_capture_of_the_bottleneck_holds_every_packet_that_crossed_it() {
    let spec = one_flow();
    let path = std::env::temp_dir().join(format!("tcplab-e2e-{}.pcap", std::process::id()));
    let out = run(&spec, &RunOptions { seed: 1, trace: false, pcap: vec![("bottleneck".into(), path.clone())] })
        .expect("run");
    let len = std::fs::metadata(&path).expect("pcap").len();
    std::fs::remove_file(&path).ok();
    let l = &out.summary.links[0];
    assert!(l.packets_ab + l.packets_ba > 0);
    assert!(len > 24, "pcap has records");
}

#[test]
fn an_rto_far_below_the_path_rtt_yields_retransmissions_the_ground_truth_calls_spurious() {
    // Base RTT 24 ms, RTO clamped to 5 ms: the timer fires while the original is in flight.
    let mut spec = one_flow();
    let rto = RtoConfig { initial: SimDuration::from_millis(5), min: SimDuration::from_millis(5), ..RtoConfig::default() };
    spec.flows[0].tcp.rto = rto;
    let out = traced(&spec, 1);
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, SIZE);
    assert!(f.spurious_retransmissions >= 1, "{f:?}");
    assert!(f.spurious_retransmissions <= f.retransmissions);
    let kinds = strings(&out, "kind");
    let sp = out.events.column("spurious").expect("spurious column");
    let (ColumnData::Bool(v), Some(valid)) = (&sp.data, &sp.valid) else { panic!("spurious is a nullable bool") };
    let flagged = (0..v.len()).filter(|&i| valid[i] && v[i]).count() as u64;
    assert_eq!(flagged, f.spurious_retransmissions);
    assert!((0..v.len()).all(|i| !(valid[i] && v[i]) || kinds[i] == "segment_retransmitted"));
}

/// The timer framework in the simulator: with the `bsd-lite` profile the retransmission timer
/// runs on the 500 ms slow timer (phase 0), so a timeout retransmission leaves exactly on a
/// 500 ms boundary — and with a phase of 120 ms on a boundary of that phase.
#[test]
fn bsd_lite_timeouts_fire_on_slow_timer_ticks() {
    for phase_ms in [0u64, 120] {
        let mut spec = one_flow();
        let tcp = &mut spec.flows[0].tcp;
        tcplab_tcp::Profile::BSD_LITE.apply(tcp);
        tcp.timers.slow = tcplab_tcp::EventClock::bsd_slow(SimDuration::from_millis(phase_ms));
        tcp.sack = false;
        tcp.recovery = tcplab_tcp::RecoveryAlgorithm::NewReno;
        // Lose the first data segment and its first retransmission: only timeouts repair it.
        spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![1, 2] };
        let out = traced(&spec, 1);
        assert_eq!(out.summary.flows[0].bytes_delivered, SIZE);
        let kinds = strings(&out, "kind");
        let causes = strings(&out, "cause");
        let t = out.events.column("t_ns").expect("t_ns");
        let tcplab_record::ColumnData::U64(t) = &t.data else { panic!("t_ns is not u64") };
        let rto_times: Vec<u64> = (0..kinds.len())
            .filter(|&i| kinds[i] == "segment_retransmitted" && causes[i] == "rto")
            .map(|i| t[i])
            .collect();
        assert!(rto_times.len() >= 2, "{rto_times:?}");
        for ts in rto_times {
            assert_eq!((ts + 500_000_000 - phase_ms * 1_000_000) % 500_000_000, 0, "phase {phase_ms}: {ts}");
        }
    }
}

/// A `packet_dropped` row names the segment that was dropped: its relative sequence number,
/// payload length and ACK number, as the `segment_sent` row of the same copy does.
#[test]
fn a_drop_row_names_the_dropped_segment() {
    let mut spec = one_flow();
    // The 5th data segment crossing the first link of the flow is dropped.
    spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![5] };
    let out = traced(&spec, 1);
    let kinds = strings(&out, "kind");
    let col = |n: &str| out.events.column(n).expect("column");
    let (ColumnData::U64(seq), ColumnData::U32(len)) = (&col("seq").data, &col("len").data) else { panic!("layout") };
    let seq_valid = col("seq").valid.clone().unwrap_or_else(|| vec![true; seq.len()]);
    let drops: Vec<usize> = (0..kinds.len()).filter(|&i| kinds[i] == "packet_dropped").collect();
    assert_eq!(drops.len(), 1);
    let d = drops[0];
    assert!(seq_valid[d]);
    assert_eq!((seq[d], len[d]), (1 + 4 * 1448, 1448));
    let sent = (0..kinds.len()).find(|&i| kinds[i] == "segment_sent" && seq_valid[i] && seq[i] == seq[d]).expect("sent row");
    assert_eq!(len[sent], len[d]);
}

//! RED with ECN end to end: bulk flows over a RED bottleneck, with and without ECN.

mod common;

use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::{QueueSpec, RedSpec, SimSpec};
use tcplab_netsim::{run, RunOptions, RunOutput};
use tcplab_tcp::TcpConfig;
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

/// Four bulk flows over 100 Mb/s / 1 ms access links and a 10 Mb/s, 20 ms RED bottleneck
/// (100-packet buffer, RED's defaults — thresholds 5 and 15 packets — in gentle mode), 5 s.
///
/// Gentle mode matters: with the default hard drop above max_th, the slow-start overshoot of
/// four flows takes the (slow, w_q = 0.002) average past 15 while the queue is far above it,
/// and every packet is then dropped, ECT or not (seed 1: 170 forced drops with ECN, 131
/// without).
fn red_dumbbell(ecn: bool) -> SimSpec {
    let tcp = TcpConfig { mss: 1448, recv_buffer: 1 << 20, ecn, ..TcpConfig::default() };
    let mut spec = dumbbell(
        4,
        Bandwidth::mbps(100),
        SimDuration::from_millis(1),
        Bandwidth::mbps(10),
        SimDuration::from_millis(20),
        QueueLimit::Packets(100),
        tcp,
        SimDuration::from_secs(5),
    );
    spec.links[0].queue = QueueSpec::Red { limit: QueueLimit::Packets(100), red: RedSpec { gentle: true, ..RedSpec::default() } };
    spec
}

fn go(spec: &SimSpec) -> RunOutput {
    run(spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }).expect("run")
}

#[test]
fn with_ecn_red_marks_instead_of_dropping_and_the_senders_back_off_without_retransmitting() {
    let out = go(&red_dumbbell(true));
    let red = out.summary.links[0].red_ab.expect("RED counters");
    let rexmits: u64 = out.summary.flows.iter().map(|f| f.retransmissions).sum();
    // Seed 1: 171 marks, not one drop or retransmission.
    assert!(red.marks > 100, "{red:?}");
    assert_eq!(out.summary.links[0].drops_ab, 0, "{red:?}");
    assert_eq!(rexmits, 0);
    assert!(red.avg_end < 15.0, "{red:?}");
    // The queue arriving packets found: above zero (the flows fill it), below the buffer and
    // no higher than the largest queue seen.
    assert!(red.mean_queue > 0.0 && red.mean_queue <= out.summary.links[0].max_queue_ab as f64, "{red:?}");
    let q = out.queues.expect("queues table");
    assert!(q.num_rows() as u64 >= out.summary.links[0].packets_ab);
}

#[test]
fn without_ecn_the_same_red_queue_drops_early_and_the_senders_retransmit() {
    let out = go(&red_dumbbell(false));
    let red = out.summary.links[0].red_ab.expect("RED counters");
    let rexmits: u64 = out.summary.flows.iter().map(|f| f.retransmissions).sum();
    assert_eq!(red.marks, 0);
    // Seed 1: 458 early drops, 417 retransmissions, 12 timeouts.
    assert!(red.early_drops > 100, "{red:?}");
    assert_eq!(out.summary.links[0].drops_ab, red.early_drops + red.forced_drops + red.overflow_drops);
    assert!(rexmits > 100, "{rexmits} retransmissions, {red:?}");
}

#[test]
fn ecn_runs_are_deterministic() {
    let spec = red_dumbbell(true);
    let (a, b) = (go(&spec), go(&spec));
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.events, b.events);
    assert_eq!(a.queues, b.queues);
}

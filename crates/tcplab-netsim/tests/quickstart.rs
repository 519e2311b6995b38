//! Quick-Start through simulated routers (seed 002 §6.5.1, Fig 6.2; seed-002-part2 §9 items
//! 3, 4): a 30-packet transfer over a 384 kb/s bottleneck with a 1 s RTT.

use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::sim::quickstart::QsRouterConfig;
use tcplab_netsim::spec::{QsRouterSpec, SimSpec};
use tcplab_netsim::{run, RunOptions};
use tcplab_tcp::startup::quickstart::QuickStartConfig;
use tcplab_tcp::{AckPolicy, TcpConfig};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

const MSS: u64 = 1460;

/// Fig 6.2: 384 kb/s, 1 s RTT (2 × (1 + 498 + 1) ms), unlimited buffer, 30 packets.
fn fig_6_2(request: bool, qs_nodes: &[&str]) -> SimSpec {
    let tcp = TcpConfig {
        mss: MSS as u16,
        recv_buffer: 1 << 20,
        ack: AckPolicy { delayed_ack: None, ack_every: 1, quickack: false },
        quick_start: QuickStartConfig { request_at_start: request, ..QuickStartConfig::default() },
        // RFC 2988's 3 s initial RTO, as in the thesis's ns-2 runs (L3800–3801): with RFC
        // 6298's 1 s the SYN of a 1 s path is retransmitted and Karn leaves no RTT for eq. 6.1.
        rto: tcplab_tcp::RtoConfig { initial: SimDuration::from_secs(3), ..Default::default() },
        ..TcpConfig::default()
    };
    let mut spec = dumbbell(
        1,
        Bandwidth::gbps(1),
        SimDuration::from_millis(1),
        Bandwidth::bps(384_000),
        SimDuration::from_millis(498),
        QueueLimit::Packets(1000),
        tcp,
        SimDuration::from_secs(30),
    );
    spec.flows[0].size = Some(30 * MSS);
    for name in qs_nodes {
        let node = spec.nodes.iter().position(|n| &n.name == name).expect("node");
        spec.quick_start.routers.push(QsRouterSpec { node, links: vec![], config: QsRouterConfig::default() });
    }
    spec
}

fn fct(spec: &SimSpec) -> (f64, tcplab_netsim::Summary) {
    let out = run(spec, &RunOptions { seed: 1, trace: false, pcap: vec![] }).expect("run");
    (out.summary.flows[0].fct_s.expect("finished"), out.summary)
}

/// Fig 6.2: "QS finishes in just over half the time". Both routers approve (Target 0.9 of
/// 48,000 B/s → N = 3, 40,000 B/s; eq. 6.1 with the SYN's ~1 s RTT → 26 segments).
#[test]
fn quick_start_roughly_halves_a_30_packet_transfer_at_384kbps_and_1s_rtt() {
    let (plain, _) = fct(&fig_6_2(false, &[]));
    let (qs, sum) = fct(&fig_6_2(true, &["left", "right"]));
    let q = sum.flows[0].quick_start.as_ref().expect("qs summary");
    assert_eq!((q.requests, q.approvals, q.failures), (1, 1, 0));
    assert_eq!(q.requested_bps, 1_280_000);
    assert_eq!(q.approved_bps, 40_000);
    // The QS window's 26 segments are the QS packets (paced, then the phase ends).
    assert_eq!(q.qs_bytes, 26 * 1460);
    assert_eq!(sum.quick_start_routers.iter().map(|r| r.approved).sum::<u64>(), 2);
    assert!(qs < 0.65 * plain, "QS {qs:.3} s vs slow start {plain:.3} s");
    assert!(qs > 0.4 * plain, "QS {qs:.3} s vs slow start {plain:.3} s");
}

/// The same through the simulator with today's Linux sender (`profile = "linux"`: CUBIC,
/// PRR, RACK-TLP, IW10 and 4 ms timer ticks): the request is approved exactly as for the RFC
/// defaults (RFC 4782 is sender-agnostic), and the 26 QS packets are paced on exact deadlines:
/// the transfer ends when the RFC sender's does (on the profile's 4 ms clock the 37.5 ms
/// spacing, (1460 + 40) B at 40,000 B/s, would round up to 40 ms, 62 ms more over the 26 QS
/// packets), before slow start from IW10.
#[test]
fn the_linux_profile_quick_starts_through_the_routers_too() {
    let linux = |request: bool, nodes: &[&str]| {
        let mut spec = fig_6_2(request, nodes);
        for f in &mut spec.flows {
            tcplab_tcp::Profile::LINUX.apply(&mut f.tcp);
            f.tcp.ack = AckPolicy { delayed_ack: None, ack_every: 1, quickack: false };
            f.tcp.rto.initial = SimDuration::from_secs(3);
        }
        spec
    };
    let (plain, _) = fct(&linux(false, &[]));
    let (qs, sum) = fct(&linux(true, &["left", "right"]));
    let q = sum.flows[0].quick_start.as_ref().expect("qs summary");
    assert_eq!((q.requests, q.approvals, q.failures), (1, 1, 0));
    assert_eq!(q.approved_bps, 40_000);
    assert_eq!(q.qs_bytes, 26 * 1460, "26 QS packets, above IW10");
    let (rfc, _) = fct(&fig_6_2(true, &["left", "right"]));
    assert!((qs - rfc).abs() < 0.005, "linux QS {qs:.4} s vs RFC QS {rfc:.4} s");
    assert!(qs < 0.9 * plain, "QS {qs:.3} s vs slow start from IW10 {plain:.3} s");
}

/// §9 item 3: with a plain router on the path the TTL check fails and the transfer is plain
/// slow start (the 8 option bytes on the SYN aside).
#[test]
fn a_plain_router_on_the_path_means_no_quick_start() {
    let (plain, _) = fct(&fig_6_2(false, &[]));
    let (qs, sum) = fct(&fig_6_2(true, &["left"]));
    let q = sum.flows[0].quick_start.as_ref().expect("qs summary");
    assert_eq!((q.requests, q.approvals), (1, 0));
    assert!((qs - plain).abs() < 0.001, "{qs} vs {plain}");
}

/// Ch. 7 §7.4 (shipped `quickstart-handoff`): a request at start over WLAN and a new one on
/// the hand-off notification over EGPRS. Idle Target routers at 95 % approve 0.95 · 625,000
/// → N = 6 (WLAN) and 0.95 · 25,000 → N = 2 (EGPRS) (seed-002-part2 §7.3 [INTERP]).
#[test]
fn a_break_before_make_handoff_triggers_a_second_request_sized_for_egprs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/quickstart-handoff.toml");
    let spec = tcplab_netsim::scenario::load_path(std::path::Path::new(path), &[]).expect("loads");
    assert_eq!(spec.quick_start.handoffs.len(), 1);
    let out = run(&spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }).expect("run");
    let f = &out.summary.flows[0];
    let q = f.quick_start.as_ref().expect("qs");
    assert_eq!((q.requests, q.approvals), (2, 2), "{q:?}");
    assert_eq!(q.approved_bps, 20_000, "EGPRS: N = 2");
    // Everything queued on or sent into the WLAN link during the 500 ms gap is lost.
    // qsthresh keeps the WLAN queue from overflowing before the hand-off, so nearly all of
    // these drops are the window in flight on WLAN when it broke (about 30 packets).
    let wlan = out.summary.links.iter().find(|l| l.name == "wlan").expect("wlan");
    assert!(wlan.drops_ab >= 20, "{wlan:?}");
    assert!(f.bytes_delivered > 1_000_000, "{}", f.bytes_delivered);
}

/// Fig 6.6: 5 Mb/s, 50 ms one-way, a 20-packet queue, two "broken" routers approving the
/// 2 MB/s request (1.28 MB/s quantised: about 88 segments paced at twice the bottleneck), 300
/// packets. `failure`: the response to the QS failure; `None`: no Quick-Start.
fn fig_6_6(failure: Option<tcplab_tcp::startup::quickstart::QsFailureResponse>) -> SimSpec {
    use tcplab_netsim::sim::quickstart::algorithm::QsAlgorithm;
    let mut spec = fig_6_2(failure.is_some(), &[]);
    let l = &mut spec.links[0];
    l.bandwidth = Bandwidth::mbps(5);
    l.delay = SimDuration::from_millis(50);
    l.queue = tcplab_netsim::spec::QueueSpec::DropTail { limit: QueueLimit::Packets(20) };
    spec.flows[0].size = Some(300 * MSS);
    if let Some(f) = failure {
        spec.flows[0].tcp.quick_start.failure = f;
        for name in ["left", "right"] {
            let node = spec.nodes.iter().position(|n| n.name == name).expect("node");
            let config = QsRouterConfig { algorithm: QsAlgorithm::Broken, ..QsRouterConfig::default() };
            spec.quick_start.routers.push(QsRouterSpec { node, links: vec![], config });
        }
    }
    spec
}

/// §3.6 / thesis L4145–4165: after a QS failure, "slow start using the default initial window"
/// costs about 2 RTTs against not using Quick-Start: cwnd restarts at the IW and grows as in
/// slow start while the QS packets' losses are repaired (not one IW of holes per RTT).
#[test]
fn a_quick_start_failure_restarts_slow_start_from_the_initial_window() {
    use tcplab_tcp::startup::quickstart::QsFailureResponse;
    let (plain, _) = fct(&fig_6_6(None));
    let (iw, sum) = fct(&fig_6_6(Some(QsFailureResponse::InitialWindow)));
    let q = sum.flows[0].quick_start.as_ref().expect("qs summary");
    assert_eq!((q.approvals, q.failures), (1, 1), "{q:?}");
    assert_eq!(sum.flows[0].timeouts, 0);
    let rtt = 0.104;
    assert!(iw < plain + 4.0 * rtt, "initial-window response {iw:.3} s vs no Quick-Start {plain:.3} s");
    let (halve, _) = fct(&fig_6_6(Some(QsFailureResponse::Halve)));
    assert!(halve < iw, "halving keeps more of the window here: {halve:.3} vs {iw:.3}");
}

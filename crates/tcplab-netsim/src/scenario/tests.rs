use super::*;
use crate::spec::{LossSpec, NodeKind, QueueSpec};
use tcplab_tcp::{InitialWindow, RecoveryAlgorithm};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

const SCENARIO_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");

/// A small valid scenario; tests append to it or replace lines of it.
const BASE: &str = r#"[simulation]
duration = "10s"

[[nodes]]
name = "s1"
kind = "host"
[[nodes]]
name = "s2"
kind = "host"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "r2"
kind = "router"
[[nodes]]
name = "d1"
kind = "host"
[[nodes]]
name = "d2"
kind = "host"

[[links]]
name = "access"
a = "s1"
b = "r1"
bandwidth = "100Mbps"
delay = "1ms"

[[links]]
name = "bottleneck"
a = "r1"
b = "r2"
bandwidth = "10Mbps"
delay = "20ms"

[[flows]]
src = "s1"
dst = "d1"
size = "1MB"
"#;

fn load(text: &str) -> Result<SimSpec, ScenarioError> {
    load_str(text, "t", &[])
}

fn err(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn err_set(text: &str, sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match load_str(text, "t", &sets) {
        Ok(_) => panic!("expected an error for {sets:?}"),
        Err(e) => e.to_string(),
    }
}

fn with(old: &str, new: &str) -> String {
    assert!(BASE.contains(old), "{old}");
    BASE.replacen(old, new, 1)
}

// ---------------------------------------------------------------------------------------------
// Shipped scenarios

fn shipped() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(SCENARIO_DIR)
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_shipped_scenario_loads() {
    let files = shipped();
    assert!(files.len() >= 3, "{files:?}");
    for f in files {
        let spec = load_path(&f, &[]).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(
            spec.name,
            f.file_stem().unwrap().to_string_lossy(),
            "name key matches file stem"
        );
        assert!(!spec.flows.is_empty());
    }
}

#[test]
fn the_dumbbell_has_a_10mbps_20ms_bottleneck_and_a_bulk_flow() {
    let spec = load_path(&std::path::Path::new(SCENARIO_DIR).join("dumbbell.toml"), &[]).unwrap();
    let b = spec.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(b.bandwidth, Bandwidth::mbps(10));
    assert_eq!(b.delay, SimDuration::from_millis(20));
    assert!(spec.flows.iter().any(|f| f.size.is_none()));
    assert!(spec.flows.iter().filter(|f| f.size.is_some()).count() >= 3);
    assert!(
        spec.duration >= SimDuration::from_secs(10) && spec.duration <= SimDuration::from_secs(20)
    );
    assert_eq!(spec.default_seed, 1);
    // Per-flow override of [tcp]: only the last flow uses the RFC 6928 window.
    assert_eq!(spec.flows.last().unwrap().tcp.initial_window, InitialWindow::Rfc6928);
    assert_eq!(spec.flows[0].tcp.initial_window, InitialWindow::Rfc3390);
    assert_eq!(spec.flows[0].tcp.recv_buffer, 256 * 1024);
    // Unnamed links get "a-b".
    assert!(spec.links.iter().any(|l| l.name == "s1-r1"));
}

/// Aron & Druschel TR98-318 §2: "eight senders ... The routers were configured to have a
/// buffer size of 200 packets. The round-trip propagation delay is 60ms. The links connecting
/// the end-hosts to the routers have a bandwidth of 100Mbps while the bottleneck link has a
/// bandwidth of 155Mbps." "we use a TCP advertised window size of 512KB".
#[test]
fn aron98_fig1_matches_the_paper() {
    let spec =
        load_path(&std::path::Path::new(SCENARIO_DIR).join("aron98-fig1.toml"), &[]).unwrap();
    assert_eq!(spec.flows.len(), 8);
    let b = spec.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(b.bandwidth, Bandwidth::mbps(155));
    let rtt: u64 = spec.links.iter().map(|l| l.delay.0).max().unwrap() * 2;
    assert_eq!(rtt, SimDuration::from_millis(60).0);
    assert!(spec
        .links
        .iter()
        .all(|l| l.queue == QueueSpec::DropTail { limit: QueueLimit::Packets(200) }));
    assert_eq!(spec.links.iter().filter(|l| l.bandwidth == Bandwidth::mbps(100)).count(), 16);
    for f in &spec.flows {
        assert_eq!(f.size, Some(100_000_000));
        assert_eq!(f.tcp.mss, 1460);
        assert!(!f.tcp.sack && !f.tcp.timestamps && f.tcp.window_scale);
        assert_eq!(f.tcp.recv_buffer, 512 * 1024);
        assert_eq!(f.tcp.recovery, RecoveryAlgorithm::NewReno);
        assert_eq!(f.tcp.initial_window, InitialWindow::Segments(1));
    }
    assert_eq!(spec.duration, SimDuration::from_secs(30));
}

/// TR98-318 §2: "the bottleneck link that connects R1 and R2 has a bandwidth of 1.5Mbps" ...
/// "round-trip propagation delay of 100ms and the buffer sizes at the routers were set to 20
/// packets" ... "For the low speed WAN, an advertised window of 64KB was used."
#[test]
fn aron98_fig2_matches_the_paper() {
    let spec =
        load_path(&std::path::Path::new(SCENARIO_DIR).join("aron98-fig2.toml"), &[]).unwrap();
    let b = spec.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(b.bandwidth, Bandwidth::bps(1_500_000));
    assert_eq!(b.delay, SimDuration::from_millis(50));
    assert_eq!(b.queue, QueueSpec::DropTail { limit: QueueLimit::Packets(20) });
    assert_eq!(spec.flows.len(), 2);
    assert_eq!(spec.flows[1].start, SimDuration::from_secs(15));
    assert!(spec.flows.iter().all(|f| f.tcp.recv_buffer == 65_535 && !f.tcp.window_scale));
}

#[test]
fn the_base_scenario_resolves_names_to_indices_with_defaults() {
    let spec = load(BASE).unwrap();
    assert_eq!(spec.name, "t");
    assert_eq!(spec.nodes[2].kind, NodeKind::Router);
    assert_eq!((spec.links[1].a, spec.links[1].b), (2, 3));
    assert_eq!(spec.links[0].queue, QueueSpec::DropTail { limit: QueueLimit::Packets(100) });
    assert_eq!(spec.links[0].loss_ab, LossSpec::None);
    assert_eq!((spec.flows[0].src, spec.flows[0].dst), (0, 4));
    assert_eq!(spec.flows[0].start, SimDuration::ZERO);
    assert_eq!(spec.flows[0].tcp, tcplab_tcp::TcpConfig::default());
    assert_eq!(spec.default_seed, DEFAULT_SEED);
    assert_eq!(spec.timeseries_interval, None);
}

#[test]
fn every_tcp_key_reaches_tcp_config() {
    let text = format!(
        "{BASE}\n[tcp]\nmss = \"536B\"\ninitial_window = 4\ninitial_ssthresh = \"64KB\"\nsack = false\n\
         timestamps = false\nwindow_scale = false\nrecv_buffer = \"32KB\"\nsend_buffer = \"1MB\"\n\
         min_rto = \"200ms\"\ninitial_rto = \"3s\"\nmax_rto = \"120s\"\nclock_granularity = \"500ms\"\n\
         delayed_ack = false\nack_every = 1\ndupack_threshold = 2\nlimited_transmit = false\n\
         recovery = \"newreno\"\n"
    );
    let c = &load(&text).unwrap().flows[0].tcp;
    assert_eq!(c.mss, 536);
    assert_eq!(c.initial_window, InitialWindow::Segments(4));
    assert_eq!(c.initial_ssthresh, 64_000);
    assert!(!c.sack && !c.timestamps && !c.window_scale && !c.limited_transmit);
    assert_eq!((c.recv_buffer, c.send_buffer), (32_000, 1_000_000));
    assert_eq!(c.rto.min, SimDuration::from_millis(200));
    assert_eq!(c.rto.initial, SimDuration::from_secs(3));
    assert_eq!(c.rto.max, SimDuration::from_secs(120));
    assert_eq!(c.rto.granularity, SimDuration::from_millis(500));
    assert_eq!(c.ack.delayed_ack, None);
    assert_eq!((c.ack.ack_every, c.dupack_threshold), (1, tcplab_tcp::DupAckThreshold::Fixed(2)));
    assert_eq!(c.recovery, RecoveryAlgorithm::NewReno);
}

#[test]
fn flow_tcp_overrides_the_tcp_table_key_by_key() {
    let text = with("size = \"1MB\"", "size = \"1MB\"\ntcp = { mss = \"1000B\" }")
        + "\n[tcp]\nsack = false\nmss = \"536B\"\n";
    let c = &load(&text).unwrap().flows[0].tcp;
    assert_eq!(c.mss, 1000);
    assert!(!c.sack);
}

#[test]
fn count_expands_into_identical_flows() {
    let spec = load(&with("size = \"1MB\"", "size = \"unlimited\"\ncount = 3")).unwrap();
    assert_eq!(spec.flows.len(), 3);
    assert!(spec.flows.iter().all(|f| f.size.is_none() && f.src == 0));
}

#[test]
fn loss_models_convert_per_direction() {
    let text = with(
        "delay = \"20ms\"",
        "delay = \"20ms\"\nloss_ab = { model = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.5 }\n\
         loss_ba = { model = \"drop_nth\", flow = 0, nth = [5, 3, 3] }",
    );
    let l = &load(&text).unwrap().links[1];
    assert_eq!(
        l.loss_ab,
        LossSpec::GilbertElliott { p_gb: 0.01, p_bg: 0.5, loss_good: 0.0, loss_bad: 1.0 }
    );
    assert_eq!(l.loss_ba, LossSpec::DropNth { flow: 0, nth: vec![3, 5] });
    let both =
        with("delay = \"20ms\"", "delay = \"20ms\"\nloss = { model = \"bernoulli\", p = 0 }");
    let l = &load(&both).unwrap().links[1];
    assert_eq!(l.loss_ab, LossSpec::Bernoulli { p: 0.0 });
    assert_eq!(l.loss_ba, l.loss_ab);
}

#[test]
fn queue_takes_the_short_or_the_table_form() {
    let short = load(&with("delay = \"20ms\"", "delay = \"20ms\"\nqueue = \"64KB\"")).unwrap();
    assert_eq!(short.links[1].queue, QueueSpec::DropTail { limit: QueueLimit::Bytes(64_000) });
    let table = load(&with(
        "delay = \"20ms\"",
        "delay = \"20ms\"\nqueue = { kind = \"droptail\", limit = \"20pkt\" }",
    ))
    .unwrap();
    assert_eq!(table.links[1].queue, QueueSpec::DropTail { limit: QueueLimit::Packets(20) });
}

// ---------------------------------------------------------------------------------------------
// Error messages: one line each, exact.

#[test]
fn an_unknown_key_suggests_the_closest_one_with_its_location() {
    assert_eq!(
        err(&with("bandwidth = \"10Mbps\"", "bandwdith = \"10Mbps\"")),
        "links[1].bandwdith: unknown field; did you mean \"bandwidth\"? (line 34, column 1)"
    );
}

#[test]
fn an_unknown_key_far_from_every_expected_one_lists_them() {
    assert_eq!(
        err(&format!("{BASE}\n[tcp]\nzzzzzz = 1\n")),
        "tcp.zzzzzz: unknown field; expected one of: mss, initial_window, initial_ssthresh, sack, \
         timestamps, window_scale, recv_buffer, send_buffer, min_rto, initial_rto, max_rto, \
         clock_granularity, delayed_ack, ack_every, dupack_threshold, limited_transmit, recovery, \
         profile, rto_estimator, rtt_sampling, rtt_clock, timer_clock, fast_timer, rto_gain_a, \
         rto_gain_b, rto_m, rto_k, spurious_detection, spurious_response, frto_require_full_ack, \
         ssthresh_estimation, pacing, sender, quickack, rate_halving, fack, tlp, tlp_pto, cc, \
         hystart, abc, prr, rack, ack_ato, sack_covers_fin, linux_rcv_window, cwnd_undo, handshake_ack, ecn, sharing, quick_start (line 43, column \
         1)"
    );
}

#[test]
fn a_quantity_without_unit_is_rejected_with_an_example() {
    assert_eq!(
        err(&with("delay = \"1ms\"", "delay = \"30\"")),
        "links[0].delay: \"30\" has no unit; write a duration with its unit, like \"30ms\" (line 28, column 1)"
    );
    assert_eq!(
        err(&with("delay = \"1ms\"", "delay = 30")),
        "links[0].delay: 30 has no unit; write a duration with its unit, like \"30ms\" (line 28, column 1)"
    );
}

#[test]
fn lower_case_mbps_is_ambiguous() {
    assert_eq!(
        err(&with("bandwidth = \"10Mbps\"", "bandwidth = \"10mbps\"")),
        "links[1].bandwidth: ambiguous bandwidth unit \"mbps\" in \"10mbps\": write Mbps/Gbps for \
         bits per second or MB/s/GB/s for bytes per second (line 34, column 1)"
    );
}

#[test]
fn an_unknown_node_lists_the_nodes() {
    assert_eq!(
        err(&with("dst = \"d1\"", "dst = \"d9\"")),
        "flows[0].dst: unknown node \"d9\" (nodes are: s1, s2, r1, r2, d1, d2) (line 39, column 1)"
    );
    assert_eq!(
        err(&with("dst = \"d1\"", "dst = \"dd1\"")),
        "flows[0].dst: unknown node \"dd1\"; did you mean \"d1\"? (nodes are: s1, s2, r1, r2, d1, d2) (line 39, column 1)"
    );
}

#[test]
fn a_zero_duration_is_rejected() {
    assert_eq!(
        err(&with("duration = \"10s\"", "duration = \"0s\"")),
        "simulation.duration: must be greater than zero (line 2, column 1)"
    );
}

#[test]
fn malformed_toml_gives_the_parser_message_on_one_line() {
    assert_eq!(
        err("[simulation\nduration = \"1s\"\n"),
        "invalid TOML: invalid table header; expected \".\", \"]\" (line 1, column 12)"
    );
}

#[test]
fn a_missing_required_key_points_at_its_table() {
    assert_eq!(
        err(&with("bandwidth = \"10Mbps\"", "")),
        "links[1].bandwidth: required key is missing (line 30, column 1)"
    );
    assert_eq!(err("name = \"x\"\n"), "simulation: required key is missing");
}

#[test]
fn unknown_enum_values_suggest_the_closest() {
    assert_eq!(
        err(&format!("{BASE}\n[tcp]\nrecovery = \"newrno\"\n")),
        "tcp.recovery: unknown value \"newrno\"; did you mean \"newreno\"? (expected one of \"sack\", \"newreno\", \"reno\") (line 43, column 1)"
    );
    assert_eq!(
        err(&with("delay = \"20ms\"", "delay = \"20ms\"\nloss = { model = \"bernouli\", p = 0.1 }")),
        "links[1].loss.model: unknown value \"bernouli\"; did you mean \"bernoulli\"? (expected one of \
         \"none\", \"bernoulli\", \"gilbert_elliott\", \"drop_nth\", \"outages\") (line 36, column 10)"
    );
}

#[test]
fn unknown_keys_inside_inline_tables_are_located() {
    assert_eq!(
        err(&with(
            "delay = \"20ms\"",
            "delay = \"20ms\"\nloss = { model = \"bernoulli\", pp = 0.1 }"
        )),
        "links[1].loss.pp: unknown field; did you mean \"p\"? (line 36, column 31)"
    );
    assert_eq!(
        err(&with(
            "delay = \"20ms\"",
            "delay = \"20ms\"\nqueue = { kind = \"droptail\", limt = \"3pkt\" }"
        )),
        "links[1].queue.limt: unknown field; did you mean \"limit\"? (line 36, column 30)"
    );
}

#[test]
fn range_checks_name_the_field() {
    let cases: &[(&str, &str)] = &[
        (
            "[tcp]\nmss = \"10B\"",
            "tcp.mss: 10B is out of range (64B to 65495B) (line 43, column 1)",
        ),
        (
            "[tcp]\nmss = \"65496B\"",
            "tcp.mss: 65496B is out of range (64B to 65495B) (line 43, column 1)",
        ),
        (
            "[tcp]\ninitial_window = 0",
            "tcp.initial_window: 0 segments: must be at least 1 (line 43, column 1)",
        ),
        (
            "[tcp]\ndupack_threshold = 0",
            "tcp.dupack_threshold: must be at least 1 (or \"adaptive\") (line 43, column 1)",
        ),
        (
            "[tcp]\nack_every = -1",
            "tcp.ack_every: expected a non-negative integer, found -1 (line 43, column 1)",
        ),
        (
            "[tcp]\nsack = \"yes\"",
            "tcp.sack: expected true or false, found string \"yes\" (line 43, column 1)",
        ),
        (
            "[tcp]\nmin_rto = \"2s\"\nmax_rto = \"1s\"",
            "tcp.min_rto: min_rto (2s) is larger than max_rto (1s) (line 43, column 1)",
        ),
    ];
    for (tail, want) in cases {
        assert_eq!(err(&format!("{BASE}\n{tail}\n")), *want);
    }
}

#[test]
fn probabilities_must_be_between_zero_and_one() {
    assert_eq!(
        err(&with(
            "delay = \"20ms\"",
            "delay = \"20ms\"\nloss = { model = \"bernoulli\", p = 1.5 }"
        )),
        "links[1].loss.p: 1.5 is not a probability (must be between 0 and 1) (line 36, column 31)"
    );
}

#[test]
fn structural_errors_are_caught() {
    assert_eq!(
        err(&with("b = \"r2\"", "b = \"r1\"")),
        "links[1].b: a link cannot connect \"r1\" to itself (line 33, column 1)"
    );
    assert_eq!(
        err(&with("dst = \"d1\"", "dst = \"r2\"")),
        "flows[0].dst: \"r2\" is a router; flows run between hosts (line 39, column 1)"
    );
    assert_eq!(
        err(&with("dst = \"d1\"", "dst = \"s1\"")),
        "flows[0].dst: same node as src (\"s1\") (line 39, column 1)"
    );
    assert_eq!(
        err(&with("name = \"d2\"", "name = \"d1\"")),
        "nodes[5].name: node \"d1\" is defined twice (line 20, column 1)"
    );
    assert_eq!(
        err(&with("name = \"access\"", "name = \"bottleneck\"")),
        "links[1].name: link \"bottleneck\" is defined twice (line 31, column 1)"
    );
    assert_eq!(
        err(&with("delay = \"20ms\"", "delay = \"20ms\"\nloss = { model = \"drop_nth\", flow = 1, nth = [3] }")),
        "links[1].loss.flow: no flow 1: the scenario has 1 flow (numbered from 0, after count expansion) (line 36, column 30)"
    );
    assert_eq!(
        err(&with("size = \"1MB\"", "size = \"1MB\"\nstart = \"10s\"")),
        "flows[0].start: 10s is not before the end of the run (simulation.duration = 10s) (line 41, column 1)"
    );
}

#[test]
fn routes_must_use_a_link_attached_to_their_node() {
    let ok = format!("{BASE}\n[[routes]]\nnode = \"r1\"\ndst = \"d1\"\nlink = \"bottleneck\"\n");
    assert_eq!(load(&ok).unwrap().routes[0], crate::spec::RouteSpec { node: 2, dst: 4, link: 1 });
    let bad = format!("{BASE}\n[[routes]]\nnode = \"s2\"\ndst = \"d1\"\nlink = \"bottleneck\"\n");
    assert_eq!(
        err(&bad),
        "routes[0].link: link \"bottleneck\" connects r1 and r2, not \"s2\" (line 45, column 1)"
    );
    let typo = format!("{BASE}\n[[routes]]\nnode = \"r1\"\ndst = \"d1\"\nlink = \"botleneck\"\n");
    assert_eq!(
        err(&typo),
        "routes[0].link: unknown link \"botleneck\"; did you mean \"bottleneck\"? (links are: access, bottleneck) (line 45, column 1)"
    );
}

#[test]
fn every_error_is_one_line() {
    let texts = [
        "[simulation\nduration = 1\n\n\n".to_string(),
        "a = [\n1,\n".to_string(),
        "[simulation]\nduration = \"1s\"\n[simulation]\n".to_string(),
        with("delay = \"1ms\"", "delay = { x = 1 }"),
    ];
    for t in texts {
        let e = err(&t);
        assert!(!e.contains('\n'), "{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// [topology]

const GENERATED_DUMBBELL: &str = r#"name = "dumbbell"
[simulation]
duration = "15s"
timeseries_interval = "10ms"
[tcp]
recv_buffer = "256KiB"
[topology]
kind = "dumbbell"
senders = 3
bottleneck = { bandwidth = "10Mbps", delay = "20ms", queue = "40pkt" }
access = { bandwidth = "100Mbps", delay = "1ms" }
[[flows]]
src = "s1"
dst = "d1"
size = "unlimited"
[[flows]]
src = "s2"
dst = "d2"
start = "3s"
size = "2MB"
[[flows]]
src = "s3"
dst = "d3"
start = "6s"
size = "100KB"
count = 3
[[flows]]
src = "s3"
dst = "d3"
start = "9s"
size = "100KB"
tcp = { initial_window = "rfc6928" }
"#;

#[test]
fn the_dumbbell_generator_builds_the_same_spec_as_the_listed_dumbbell() {
    let listed = load_path(&std::path::Path::new(SCENARIO_DIR).join("dumbbell.toml"), &[]).unwrap();
    let generated = load(GENERATED_DUMBBELL).unwrap();
    assert_eq!(generated, listed);
}

#[test]
fn generated_topologies_take_overrides_and_extra_nodes() {
    let spec = set(
        GENERATED_DUMBBELL,
        &["topology.senders=5", "topology.receivers=4", "topology.bottleneck.bandwidth=1Mbps"],
    );
    assert_eq!(spec.nodes.len(), 5 + 2 + 4);
    assert_eq!(spec.links.len(), 1 + 5 + 4);
    assert_eq!(spec.links[0].bandwidth, Bandwidth::mbps(1));
    let extra = format!("{GENERATED_DUMBBELL}\n[[nodes]]\nname = \"x\"\nkind = \"host\"\n[[links]]\na = \"x\"\nb = \"r1\"\nbandwidth = \"1Mbps\"\ndelay = \"1ms\"\n");
    let spec = load(&extra).unwrap();
    assert_eq!(spec.nodes.last().unwrap().name, "x");
    assert_eq!(spec.links.last().unwrap().name, "x-r1");
}

#[test]
fn generated_topology_errors_name_the_topology_keys() {
    assert_eq!(
        err(&format!("{GENERATED_DUMBBELL}\n[[nodes]]\nname = \"s1\"\nkind = \"host\"\n")),
        "nodes[0].name: node \"s1\" is defined twice (line 35, column 1)"
    );
    assert_eq!(
        err_set(GENERATED_DUMBBELL, &["topology.senders=0"]),
        "topology.senders: must be between 1 and 10000 (from --set topology.senders=0)"
    );
    assert_eq!(
        err_set(GENERATED_DUMBBELL, &["topology.bottleneck.loss={ model = \"bernoulli\", p = 2 }"]),
        "topology.bottleneck.loss.p: 2 is not a probability (must be between 0 and 1) (from --set topology.bottleneck.loss={ model = \"bernoulli\", p = 2 })"
    );
    assert_eq!(
        err(&GENERATED_DUMBBELL.replace("kind = \"dumbbell\"", "kind = \"dumbell\"")),
        "topology.kind: unknown value \"dumbell\"; did you mean \"dumbbell\"? (expected one of \"dumbbell\") (line 8, column 1)"
    );
}

// ---------------------------------------------------------------------------------------------
// Overrides

fn set(text: &str, sets: &[&str]) -> SimSpec {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, "t", &sets).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn overrides_address_tables_indices_and_names() {
    let spec = set(
        BASE,
        &[
            "simulation.duration=3s",
            "links.bottleneck.bandwidth=1.5Mbps",
            "links.0.delay=5ms",
            "flows.0.size=2MB",
            "tcp.sack=false",
            "tcp.initial_window=10",
            "simulation.seed=42",
            "links.bottleneck.loss={ model = \"bernoulli\", p = 0.5 }",
        ],
    );
    assert_eq!(spec.duration, SimDuration::from_secs(3));
    assert_eq!(spec.links[1].bandwidth, Bandwidth::bps(1_500_000));
    assert_eq!(spec.links[0].delay, SimDuration::from_millis(5));
    assert_eq!(spec.flows[0].size, Some(2_000_000));
    assert!(!spec.flows[0].tcp.sack);
    assert_eq!(spec.flows[0].tcp.initial_window, InitialWindow::Segments(10));
    assert_eq!(spec.default_seed, 42);
    assert_eq!(spec.links[1].loss_ab, LossSpec::Bernoulli { p: 0.5 });
}

#[test]
fn override_values_parse_as_toml_or_fall_back_to_strings() {
    use overrides::parse_value;
    assert_eq!(parse_value("true"), toml::Value::Boolean(true));
    assert_eq!(parse_value("3"), toml::Value::Integer(3));
    assert_eq!(parse_value("0.5"), toml::Value::Float(0.5));
    assert_eq!(parse_value("\"x\""), toml::Value::String("x".into()));
    assert_eq!(parse_value("10s"), toml::Value::String("10s".into()));
    assert_eq!(parse_value("1.5Mbps"), toml::Value::String("1.5Mbps".into()));
}

#[test]
fn unknown_override_paths_are_named() {
    assert_eq!(
        err_set(BASE, &["links.bottlneck.bandwidth=1Mbps"]),
        "--set links.bottlneck.bandwidth=1Mbps: links has no item named \"bottlneck\"; did you mean \"bottleneck\"?"
    );
    assert_eq!(
        err_set(BASE, &["simulation.duraton=1s"]),
        "simulation.duraton: unknown field; did you mean \"duration\"? (from --set simulation.duraton=1s)"
    );
    // A top-level key no file has: the error is at `nosuch`, which only the override wrote.
    let e = err_set(BASE, &["nosuch.key=1"]);
    assert!(e.starts_with("nosuch: unknown field") && e.ends_with("(from --set nosuch.key=1)"), "{e}");
    assert_eq!(
        err_set(BASE, &["flows.3.size=1MB"]),
        "--set flows.3.size=1MB: flows has 1 item, so there is no index 3"
    );
    assert_eq!(
        err_set(BASE, &["simulation.duration.x=1"]),
        "--set simulation.duration.x=1: simulation.duration is the string \"10s\", not a table, so it has no key \"x\""
    );
    assert_eq!(err_set(BASE, &["nonsense"]), "--set nonsense: expected path.to.key=value");
}

#[test]
fn an_invalid_override_value_names_the_override() {
    assert_eq!(
        err_set(BASE, &["links.bottleneck.delay=30"]),
        "links[1].delay: 30 has no unit; write a duration with its unit, like \"30ms\" (from --set links.bottleneck.delay=30)"
    );
}

// ---------------------------------------------------------------------------------------------
// Edit distance, schema

#[test]
fn edit_distance_counts_a_transposition_as_one() {
    assert_eq!(edit_distance("bandwdith", "bandwidth"), 1);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
}

#[test]
fn the_json_schema_is_generated_from_the_loader_types() {
    let s: serde_json::Value = serde_json::from_str(&json_schema()).unwrap();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    let tcp = s["$defs"][schema::TCP_DEF]["properties"].as_object().unwrap();
    for key in ["mss", "initial_window", "recovery", "delayed_ack", "clock_granularity"] {
        assert!(tcp.contains_key(key), "{key}");
    }
    // The engine's own name lists reach the schema.
    assert_eq!(tcp["profile"]["enum"].as_array().unwrap().len(), tcplab_tcp::Profile::ALL.len());
    // No null alternatives (TOML has none).
    assert!(!json_schema().contains("\"null\""));
}

/// Every object property in the schema, as (dotted path, schema), following `$ref`s once.
fn schema_properties(s: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    let mut objects: Vec<(String, &serde_json::Value)> = vec![("".into(), s)];
    if let Some(defs) = s["$defs"].as_object() {
        objects.extend(defs.iter().map(|(k, v)| (format!("$defs.{k}"), v)));
    }
    // Objects nested in hand-written value schemas (anyOf alternatives).
    fn nested<'a>(at: String, v: &'a serde_json::Value, out: &mut Vec<(String, &'a serde_json::Value)>) {
        for key in ["anyOf", "oneOf"] {
            if let Some(alts) = v[key].as_array() {
                for (i, a) in alts.iter().enumerate() {
                    out.push((format!("{at}.{key}[{i}]"), a));
                    nested(format!("{at}.{key}[{i}]"), a, out);
                }
            }
        }
    }
    let mut all = objects.clone();
    for (at, v) in &objects {
        nested(at.clone(), v, &mut all);
    }
    for (at, v) in all {
        if let Some(props) = v["properties"].as_object() {
            // An externally tagged enum variant ({ periodic = {...} }) is described on the
            // variant, not on its single key.
            let variant = props.len() == 1 && v.get("description").is_some();
            for (k, p) in props {
                let mut p = p.clone();
                if variant && p.get("description").is_none() {
                    p["description"] = v["description"].clone();
                }
                out.push((format!("{at}.{k}"), p));
            }
        }
    }
    out
}

#[test]
fn every_key_in_the_schema_has_a_description() {
    let s = schema_value();
    let props = schema_properties(&s);
    assert!(props.len() > 100, "{}", props.len());
    let missing: Vec<&String> = props
        .iter()
        // Keys inside the hand-written value schemas (clock tables, queue and distribution
        // tables, the loss model's tag) are documented by the value's own description.
        .filter(|(at, _)| !at.contains("anyOf") && !at.ends_with(".model"))
        .filter(|(_, p)| match p["description"].as_str() {
            Some(d) => d.trim().is_empty(),
            None => true,
        })
        .map(|(at, _)| at)
        .collect();
    assert!(missing.is_empty(), "keys without a doc comment: {missing:?}");
}

#[test]
fn every_unit_the_schema_lists_is_accepted_by_its_parser() {
    use tcplab_time::units::{parse_bandwidth, parse_bytes, parse_duration, parse_queue_limit};
    for u in values::DURATION_UNITS {
        parse_duration(&format!("1{u}")).unwrap();
    }
    for u in values::BANDWIDTH_UNITS {
        parse_bandwidth(&format!("1 {u}")).unwrap();
    }
    for u in values::BYTE_UNITS {
        parse_bytes(&format!("1.0{u}")).unwrap();
    }
    for u in values::PACKET_UNITS {
        parse_queue_limit(&format!("1{u}")).unwrap();
    }
}

/// The `[tcp]` table that renders `c`, as TOML text.
fn tcp_table_text(t: &toml::Table) -> String {
    let mut doc = toml::Table::new();
    doc.insert("tcp".into(), toml::Value::Table(t.clone()));
    toml::to_string(&doc).unwrap()
}

#[test]
fn tcp_values_round_trip_through_the_loader_for_the_default_and_every_profile() {
    let defaults = tcp_values(&tcplab_tcp::TcpConfig::default());
    // Every [tcp] key has a rendered default but `profile` (a name, not a value); the
    // Linux-only keys come from the Linux sender's rendering.
    let linux = tcp_values(&tcplab_tcp::TcpConfig {
        sender: tcplab_tcp::SenderModel::Linux,
        ..tcplab_tcp::TcpConfig::default()
    });
    let schema = schema_value();
    let keys: Vec<&String> =
        schema["$defs"][schema::TCP_DEF]["properties"].as_object().unwrap().keys().collect();
    for k in &keys {
        let has = defaults.contains_key(*k) || linux.contains_key(*k);
        assert_eq!(has, *k != "profile", "tcp_values and key {k}");
        assert_eq!(schema["$defs"][schema::TCP_DEF]["properties"][*k].get("default").is_some(), has, "{k}");
    }
    let linux_spec = load(&format!("{BASE}\n{}", tcp_table_text(&linux))).unwrap();
    assert_eq!(linux_spec.flows[0].tcp.sender, tcplab_tcp::SenderModel::Linux);
    let base = load(BASE).unwrap().flows[0].tcp.clone();
    let rendered = load(&format!("{BASE}\n{}", tcp_table_text(&defaults))).unwrap();
    assert_eq!(rendered.flows[0].tcp, base);
    for p in tcplab_tcp::Profile::ALL.iter() {
        let by_name = load(&format!("{BASE}\n[tcp]\nprofile = \"{}\"\n", p.name)).unwrap();
        let by_values =
            load(&format!("{BASE}\n{}", tcp_table_text(&profile_values(p)))).unwrap();
        assert_eq!(by_values.flows[0].tcp, by_name.flows[0].tcp, "profile {}", p.name);
        // A profile changes no key outside PROFILE_KEYS.
        assert_eq!(by_name.flows[0].tcp, p.config(), "profile {}", p.name);
    }
}

#[test]
fn schema_defaults_are_the_loaders_defaults() {
    let schema = schema_value();
    let spiky = set(BASE, &["links.0.delay_spikes=[{ at = \"1s\", duration = \"1s\" }]"]);
    let mut checked = 0;
    for (def, path) in [("RawSimulation", "simulation"), ("RawFlow", "flows.0"), ("RawLink", "links.0")] {
        for (key, p) in schema["$defs"][def]["properties"].as_object().unwrap() {
            let Some(d) = p.get("default") else { continue };
            let value = toml::Value::try_from(d).unwrap().to_string();
            let base = if def == "RawLink" { &spiky } else { &load(BASE).unwrap() };
            let mut sets = vec![format!("{path}.{key}={value}")];
            if def == "RawLink" {
                sets.insert(0, "links.0.delay_spikes=[{ at = \"1s\", duration = \"1s\" }]".into());
            }
            let refs: Vec<&str> = sets.iter().map(String::as_str).collect();
            assert_eq!(&set(BASE, &refs), base, "{path}.{key} = {value}");
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked}");
}

#[test]
fn docs_key_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenarios.md");
    let text = std::fs::read_to_string(path).unwrap();
    let updated = update_docs(&text).unwrap();
    if std::env::var_os("TCPLAB_UPDATE_DOCS").is_some() {
        std::fs::write(path, &updated).unwrap();
        return;
    }
    assert!(
        updated == text,
        "docs/scenarios.md key tables differ from the scenario types' doc comments; run \
         TCPLAB_UPDATE_DOCS=1 cargo test -p tcplab-netsim docs_key_tables"
    );
}

// ---------------------------------------------------------------------------------------------
// Property: whatever names and kinds a scenario uses, a loaded spec's flows join two distinct
// existing hosts, and links and routes refer to existing nodes and links.

mod prop {
    use super::*;
    use proptest::prelude::*;

    const NAMES: &[&str] = &["a", "b", "c", "d", "e"];

    fn scenario(
        kinds: Vec<bool>,
        links: Vec<(usize, usize)>,
        flows: Vec<(usize, usize)>,
    ) -> String {
        let mut t = String::from("[simulation]\nduration = \"1s\"\n");
        for (i, host) in kinds.iter().enumerate() {
            t += &format!(
                "[[nodes]]\nname = \"{}\"\nkind = \"{}\"\n",
                NAMES[i],
                if *host { "host" } else { "router" }
            );
        }
        for (a, b) in links {
            t += &format!(
                "[[links]]\na = \"{}\"\nb = \"{}\"\nbandwidth = \"1Mbps\"\ndelay = \"1ms\"\n",
                NAMES[a], NAMES[b]
            );
        }
        for (s, d) in flows {
            t += &format!(
                "[[flows]]\nsrc = \"{}\"\ndst = \"{}\"\nsize = \"1KB\"\n",
                NAMES[s], NAMES[d]
            );
        }
        t
    }

    proptest! {
        #[test]
        fn loaded_flows_join_two_distinct_existing_hosts(
            kinds in proptest::collection::vec(any::<bool>(), 1..=4),
            links in proptest::collection::vec((0..5usize, 0..5usize), 0..4),
            flows in proptest::collection::vec((0..5usize, 0..5usize), 0..4),
        ) {
            let text = scenario(kinds, links, flows);
            match load(&text) {
                Ok(spec) => {
                    for f in &spec.flows {
                        prop_assert!(f.src < spec.nodes.len() && f.dst < spec.nodes.len());
                        prop_assert_eq!(spec.nodes[f.src].kind, NodeKind::Host);
                        prop_assert_eq!(spec.nodes[f.dst].kind, NodeKind::Host);
                        prop_assert_ne!(f.src, f.dst);
                    }
                    for l in &spec.links {
                        prop_assert!(l.a < spec.nodes.len() && l.b < spec.nodes.len() && l.a != l.b);
                    }
                }
                Err(e) => prop_assert!(!e.to_string().contains('\n')),
            }
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = load(&text);
        }

        #[test]
        fn arbitrary_overrides_never_panic(path in "[a-z0-9.]{0,20}", value in "\\PC{0,10}") {
            let _ = load_str(BASE, "t", &[format!("{path}={value}")]);
        }
    }
}

#[test]
fn misspelt_tables_and_flow_tcp_keys_get_suggestions() {
    assert_eq!(
        err(&BASE.replace("[simulation]", "[simulaton]")),
        "simulaton: unknown field; did you mean \"simulation\"? (line 1, column 2)"
    );
    assert_eq!(
        err(&format!("{BASE}\n[[link]]\na = \"s2\"\n")),
        "link: unknown field; did you mean \"links\"? (line 42, column 3)"
    );
    assert_eq!(
        err(&with("size = \"1MB\"", "size = \"1MB\"\ntcp = { sak = false }")),
        "flows[0].tcp.sak: unknown field; did you mean \"sack\"? (line 41, column 9)"
    );
}

#[test]
fn a_scenario_without_flows_is_rejected() {
    let e = err("[simulation]\nduration = \"1s\"\n");
    assert_eq!(
        e,
        "flows: the scenario defines no flows; add at least one [[flows]] table with src, dst and size"
    );
}

/// The second link of `BASE` with `extra` keys added (the link-level keys of the wireless
/// and reordering tests).
fn link1(extra: &str) -> crate::spec::LinkSpec {
    let text = with("delay = \"20ms\"", &format!("delay = \"20ms\"\n{extra}"));
    load(&text).unwrap_or_else(|e| panic!("{e}")).links[1].clone()
}
/// The one-line error of `BASE` with `extra` keys added to its second link.
fn bad(extra: &str) -> String {
    err(&with("delay = \"20ms\"", &format!("delay = \"20ms\"\n{extra}")))
}
const MS: fn(u64) -> SimDuration = SimDuration::from_millis;

// ---------------------------------------------------------------------------------------------
// Wireless link dynamics: delay_spikes, spike_direction, link_buffer, bandwidth_schedule,
// outage loss.

mod wireless {
    use super::*;
    use crate::spec::{DelaySpikeSpec, DurationDist, SpikeDirection};


    #[test]
    fn a_link_without_wireless_keys_is_static() {
        let spec = load(BASE).unwrap();
        assert!(spec.links.iter().all(|l| l.dynamics.is_static() && l.dynamics.link_buffer.is_none()));
    }

    #[test]
    fn the_list_form_gives_spikes_at_fixed_times() {
        let l = link1(
            "delay_spikes = [{ at = \"3s\", duration = \"1.5s\" }, { at = \"1s\", duration = \"200ms\" }]\n\
             spike_direction = \"b->a\"\nlink_buffer = \"1776B\"",
        );
        assert_eq!(
            l.dynamics.delay_spikes,
            DelaySpikeSpec::Fixed(vec![(MS(3000), MS(1500)), (MS(1000), MS(200))])
        );
        assert_eq!(l.dynamics.spike_direction, SpikeDirection::BtoA);
        assert_eq!(l.dynamics.link_buffer, Some(1776));
        assert_eq!(link1("delay_spikes = [{ at = \"1s\", duration = \"1s\" }]\nlink_buffer = \"inf\"").dynamics.link_buffer, None);
    }

    #[test]
    fn periodic_random_and_per_packet_processes_convert() {
        let l = link1("delay_spikes = { periodic = { first = \"5s\", period = \"20s\", duration = \"2s\", count = 3 } }");
        assert_eq!(
            l.dynamics.delay_spikes,
            DelaySpikeSpec::Periodic { first: MS(5000), period: MS(20_000), duration: MS(2000), count: Some(3) }
        );
        let l = link1("delay_spikes = { random = { mean_interval = \"30s\", duration = { uniform = [\"1s\", \"4s\"] } } }");
        assert_eq!(
            l.dynamics.delay_spikes,
            DelaySpikeSpec::Random {
                interval: DurationDist::Exponential { mean: MS(30_000) },
                duration: DurationDist::Uniform { lo: MS(1000), hi: MS(4000) },
            }
        );
        let l = link1("delay_spikes = { random = { interval = \"10s\", duration = { exponential = \"3.5s\" } } }");
        assert_eq!(
            l.dynamics.delay_spikes,
            DelaySpikeSpec::Random {
                interval: DurationDist::Fixed(MS(10_000)),
                duration: DurationDist::Exponential { mean: MS(3500) },
            }
        );
        let l = link1("delay_spikes = { per_packet = { p = 0.02, duration = { exponential = \"3.5s\" } } }\nspike_direction = \"a->b\"");
        assert_eq!(
            l.dynamics.delay_spikes,
            DelaySpikeSpec::PerPacket { p: 0.02, duration: DurationDist::Exponential { mean: MS(3500) } }
        );
        assert_eq!(l.dynamics.spike_direction, SpikeDirection::AtoB);
        let l = link1("delay_spikes = { handover = { period = \"2s\", p = 0.3, duration = \"1s\", bandwidths = [\"64kbps\"] } }");
        assert!(matches!(l.dynamics.delay_spikes, DelaySpikeSpec::Handover { p, .. } if p == 0.3));
    }

    /// Sarolahti Ch. 4 (L2443–2447) and Ch. 5 (L3093–3109), see `dynamics::spike_preset`.
    #[test]
    fn presets_carry_the_dissertations_numbers() {
        let exp = DurationDist::Exponential { mean: MS(3500) };
        assert_eq!(
            link1("delay_spikes = { preset = \"sudden_delays\" }").dynamics.delay_spikes,
            DelaySpikeSpec::PerPacket { p: 0.02, duration: exp.clone() }
        );
        assert_eq!(
            link1("delay_spikes = { preset = \"type1\" }").dynamics.delay_spikes,
            DelaySpikeSpec::PerPacket { p: 0.01, duration: exp.clone() }
        );
        assert_eq!(
            link1("delay_spikes = { preset = \"type2\" }").dynamics.delay_spikes,
            DelaySpikeSpec::Handover {
                period: MS(2000),
                p: 0.3,
                duration: exp,
                bandwidths: vec![Bandwidth::bps(28_800), Bandwidth::bps(64_000), Bandwidth::bps(128_000)],
            }
        );
    }

    #[test]
    fn a_bandwidth_schedule_converts_in_order() {
        let l = link1("bandwidth_schedule = [{ at = \"0s\", bandwidth = \"384kbps\" }, { at = \"5s\", bandwidth = \"128kbps\" }]");
        assert_eq!(
            l.dynamics.bandwidth_schedule,
            vec![(SimDuration::ZERO, Bandwidth::bps(384_000)), (MS(5000), Bandwidth::bps(128_000))]
        );
    }

    /// Sarolahti Ch. 4 (L2460–2468): Good ~ U(0.1 s, 20 s), Bad ~ Exp(3.5 s).
    #[test]
    fn outage_loss_defaults_to_the_dissertations_bursty_losses() {
        let l = link1("loss = { model = \"outages\" }");
        assert_eq!(
            l.loss_ab,
            LossSpec::Outages {
                good: DurationDist::Uniform { lo: MS(100), hi: MS(20_000) },
                bad: DurationDist::Exponential { mean: MS(3500) },
            }
        );
        assert_eq!(l.loss_ba, l.loss_ab);
        let l = link1("loss_ab = { model = \"outages\", good = \"5s\", bad = { exponential = \"1s\" } }");
        assert_eq!(
            l.loss_ab,
            LossSpec::Outages { good: DurationDist::Fixed(MS(5000)), bad: DurationDist::Exponential { mean: MS(1000) } }
        );
    }

    #[test]
    fn generated_links_take_the_wireless_keys_too() {
        let text = GENERATED_DUMBBELL.replace(
            "bottleneck = { bandwidth = \"10Mbps\", delay = \"20ms\", queue = \"40pkt\" }",
            "bottleneck = { bandwidth = \"10Mbps\", delay = \"20ms\", queue = \"40pkt\", delay_spikes = { preset = \"type1\" } }",
        );
        let spec = load(&text).unwrap();
        assert!(matches!(spec.links[0].dynamics.delay_spikes, DelaySpikeSpec::PerPacket { .. }));
        assert!(spec.links[1].dynamics.is_static());
    }

    #[test]
    fn overrides_reach_the_wireless_keys() {
        let text = with("delay = \"20ms\"", "delay = \"20ms\"\ndelay_spikes = [{ at = \"1s\", duration = \"1s\" }]");
        let spec = set(&text, &["links.bottleneck.delay_spikes={ preset = \"type1\" }", "links.bottleneck.link_buffer=7KB"]);
        assert!(matches!(spec.links[1].dynamics.delay_spikes, DelaySpikeSpec::PerPacket { p, .. } if p == 0.01));
        assert_eq!(spec.links[1].dynamics.link_buffer, Some(7000));
    }

    #[test]
    fn the_json_schema_describes_the_wireless_keys_of_listed_and_generated_links() {
        let s: serde_json::Value = serde_json::from_str(&json_schema()).unwrap();
        let listed = &s["$defs"]["RawLink"]["properties"];
        let generated = &s["$defs"]["RawLinkParams"]["properties"];
        assert_eq!(s["properties"]["links"]["items"]["$ref"], "#/$defs/RawLink");
        assert_eq!(s["$defs"]["RawTopology"]["properties"]["bottleneck"]["$ref"], "#/$defs/RawLinkParams");
        for key in ["delay_spikes", "spike_direction", "link_buffer", "bandwidth_schedule"] {
            assert!(listed.get(key).is_some() && generated.get(key).is_some(), "{key}");
        }
        // Every key of every shipped [[links]] entry is described.
        for f in shipped() {
            let t: toml::Table = std::fs::read_to_string(&f).unwrap().parse().unwrap();
            for l in t.get("links").and_then(|v| v.as_array()).into_iter().flatten() {
                for k in l.as_table().unwrap().keys() {
                    assert!(listed.get(k).is_some(), "{}: links.{k}", f.display());
                }
            }
        }
        let loss = s["$defs"]["RawLoss"]["oneOf"].as_array().unwrap();
        assert!(loss.iter().any(|m| m["properties"]["model"]["const"] == "outages"));
    }

    #[test]
    fn wireless_errors_are_one_line_naming_the_field() {
        let cases: &[(&str, &str)] = &[
            (
                "delay_spikes = [{ at = \"1s\", duration = 3 }]",
                "links[1].delay_spikes[0].duration: 3 has no unit; write a duration with its unit, like \"30ms\" (line 36, column 30)",
            ),
            (
                "delay_spikes = [{ at = \"1s\", duration = \"0s\" }]",
                "links[1].delay_spikes[0].duration: must be greater than zero (line 36, column 30)",
            ),
            (
                "delay_spikes = [{ at = \"10s\", duration = \"1s\" }]",
                "links[1].delay_spikes[0].at: 10s is not before the end of the run (simulation.duration = 10s) (line 36, column 19)",
            ),
            (
                "delay_spikes = [{ at = \"1s\", lenght = \"1s\" }]",
                "links[1].delay_spikes[0].lenght: unknown field; expected one of: at, duration (line 36, column 30)",
            ),
            (
                "delay_spikes = []",
                "links[1].delay_spikes: must list at least one spike, like [{ at = \"10s\", duration = \"3s\" }] (line 36, column 1)",
            ),
            (
                "delay_spikes = { periodc = { first = \"1s\", period = \"2s\", duration = \"1s\" } }",
                "links[1].delay_spikes: unknown value \"periodc\"; did you mean \"periodic\"? (expected one of \"periodic\", \"random\", \"per_packet\", \"handover\", \"preset\") (line 36, column 1)",
            ),
            (
                "delay_spikes = { periodic = { first = \"1s\", period = \"0s\", duration = \"1s\" } }",
                "links[1].delay_spikes.periodic.period: must be greater than zero (line 36, column 45)",
            ),
            (
                "delay_spikes = { periodic = { first = \"1s\", perod = \"2s\", duration = \"1s\" } }",
                "links[1].delay_spikes.periodic.perod: unknown field; did you mean \"period\"? (line 36, column 45)",
            ),
            (
                "delay_spikes = { preset = \"typ1\" }",
                "links[1].delay_spikes.preset: unknown value \"typ1\"; did you mean \"type1\"? (expected one of \"sudden_delays\", \"type1\", \"type2\") (line 36, column 18)",
            ),
            (
                "delay_spikes = { per_packet = { p = 2.0, duration = \"1s\" } }",
                "links[1].delay_spikes.per_packet.p: 2 is not a probability (must be between 0 and 1) (line 36, column 33)",
            ),
            (
                "delay_spikes = { random = { duration = \"1s\" } }",
                "links[1].delay_spikes.random.interval: required key is missing (or give mean_interval) (line 36, column 18)",
            ),
            (
                "delay_spikes = { random = { interval = \"1s\", mean_interval = \"1s\", duration = \"1s\" } }",
                "links[1].delay_spikes.random.mean_interval: use either interval or mean_interval, not both (line 36, column 46)",
            ),
            (
                "delay_spikes = { random = { interval = { uniform = [\"4s\", \"1s\"] }, duration = \"1s\" } }",
                "links[1].delay_spikes.random.interval: uniform bounds are reversed (4s > 1s) (line 36, column 29)",
            ),
            (
                "delay_spikes = { random = { interval = { normal = \"1s\" }, duration = \"1s\" } }",
                "links[1].delay_spikes.random.interval: unknown variant \"normal\", expected \"exponential\" or \"uniform\" (write \"3s\", { exponential = \"3.5s\" } or { uniform = [\"1s\", \"4s\"] }) (line 36, column 29)",
            ),
            (
                "delay_spikes = \"type1\"",
                "links[1].delay_spikes: expected a list like [{ at = \"10s\", duration = \"3s\" }] or a table like { preset = \"type1\" }, found the string \"type1\" (line 36, column 1)",
            ),
            ("spike_direction = \"both\"", "links[1].spike_direction: has no effect without delay_spikes (line 36, column 1)"),
            ("link_buffer = \"1776B\"", "links[1].link_buffer: has no effect without delay_spikes (line 36, column 1)"),
            (
                "delay_spikes = { preset = \"type1\" }\nspike_direction = \"a-b\"",
                "links[1].spike_direction: unknown value \"a-b\"; did you mean \"a->b\"? (expected one of \"a->b\", \"b->a\", \"both\") (line 37, column 1)",
            ),
            (
                "delay_spikes = { preset = \"type1\" }\nlink_buffer = 1776",
                "links[1].link_buffer: 1776 has no unit; write a size with its unit, like \"64KB\" (or \"inf\" for no limit) (line 37, column 1)",
            ),
            (
                "bandwidth_schedule = [{ at = \"2s\", bandwidth = \"1Mbps\" }, { at = \"1s\", bandwidth = \"2Mbps\" }]",
                "links[1].bandwidth_schedule[1].at: 1s is not after the previous step (2s) (line 36, column 61)",
            ),
            (
                "bandwidth_schedule = [{ at = \"2s\", bandwidth = \"1mbps\" }]",
                "links[1].bandwidth_schedule[0].bandwidth: ambiguous bandwidth unit \"mbps\" in \"1mbps\": write Mbps/Gbps for bits per second or MB/s/GB/s for bytes per second (line 36, column 36)",
            ),
            (
                "bandwidth_schedule = [{ at = \"2s\", bandwidth = \"0bps\" }]",
                "links[1].bandwidth_schedule[0].bandwidth: bandwidth \"0bps\" must be greater than zero (line 36, column 36)",
            ),
            (
                "delay_spikes = { preset = \"type2\" }\nbandwidth_schedule = [{ at = \"2s\", bandwidth = \"1Mbps\" }]",
                "links[1].bandwidth_schedule: cannot be combined with hand-over delay spikes (type2), which redraw the bandwidth (line 37, column 1)",
            ),
            (
                "loss = { model = \"outages\", bad = { exponential = \"0s\" } }",
                "links[1].loss.bad: the mean of an exponential must be greater than zero (line 36, column 29)",
            ),
        ];
        let mut wrong = Vec::new();
        for (extra, want) in cases {
            let got = bad(extra);
            if got != *want {
                wrong.push(format!("{extra}\n  got:  {got}\n  want: {want}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

// ---- OS profiles and the timer framework (issue 3) ----

#[test]
fn a_profile_sets_its_fields_and_explicit_keys_override_it() {
    use tcplab_tcp::{EventClock, Profile, RtoEstimatorKind};
    let text = format!("{BASE}\n[tcp]\nprofile = \"bsd-lite\"\nmin_rto = \"1500ms\"\n");
    let c = &load(&text).unwrap().flows[0].tcp;
    let mut expect = tcplab_tcp::TcpConfig::default();
    Profile::BSD_LITE.apply(&mut expect);
    expect.rto.min = SimDuration::from_millis(1500);
    assert_eq!(c, &expect);
    assert_eq!(c.rto_estimator, RtoEstimatorKind::BsdLite);
    assert_eq!(c.timers.slow, EventClock::bsd_slow(SimDuration::ZERO));
}

#[test]
fn a_flow_profile_replaces_the_global_one() {
    use tcplab_tcp::RtoEstimatorKind;
    let text = with("size = \"1MB\"", "size = \"1MB\"\ntcp = { profile = \"linux-2.4\" }")
        + "\n[tcp]\nprofile = \"bsd-lite\"\nsack = false\n";
    let c = &load(&text).unwrap().flows[0].tcp;
    assert_eq!(c.rto_estimator, RtoEstimatorKind::Linux);
    assert_eq!(c.rto.min, SimDuration::from_millis(200));
    // Not a profile field: kept from [tcp].
    assert!(!c.sack);
}

#[test]
fn every_timer_key_reaches_tcp_config() {
    use tcplab_tcp::{DupAckThreshold, EventClock, MeasurementClock, Ratio, RtoEstimatorKind, RttSampling};
    let text = format!(
        "{BASE}\n[tcp]\nrto_estimator = \"decoupled\"\nrtt_sampling = \"per-flight\"\n\
         rtt_clock = {{ tick = \"1ms\", phase = \"3ms\" }}\n\
         timer_clock = {{ kind = \"periodic\", period = \"500ms\", phase = \"120ms\" }}\n\
         fast_timer = \"10ms\"\nrto_gain_a = \"1/2\"\nrto_gain_b = 0.125\nrto_m = 1.25\nrto_k = \"2\"\n\
         dupack_threshold = \"adaptive\"\n"
    );
    let c = &load(&text).unwrap().flows[0].tcp;
    assert_eq!(c.rto_estimator, RtoEstimatorKind::Decoupled);
    assert_eq!(c.rtt_sampling, RttSampling::PerFlight);
    assert_eq!(c.timers.rtt_clock, MeasurementClock { tick: SimDuration::from_millis(1), phase: SimDuration::from_millis(3) });
    assert_eq!(c.timers.slow, EventClock::Periodic { period: SimDuration::from_millis(500), phase: SimDuration::from_millis(120) });
    assert_eq!(c.timers.fast, EventClock::OneShot { granularity: SimDuration::from_millis(10) });
    assert_eq!(c.rto.gain_a, Ratio::new(1, 2));
    assert_eq!(c.rto.gain_b, Ratio::new(1, 8));
    assert_eq!(c.rto.m, Ratio::new(5, 4));
    assert_eq!(c.rto.k, Ratio::new(2, 1));
    assert_eq!(c.dupack_threshold, DupAckThreshold::Adaptive);
    let fine = format!("{BASE}\n[tcp]\nrtt_clock = \"fine\"\ntimer_clock = \"fine\"\nfast_timer = {{ kind = \"oneshot\", granularity = \"200ms\" }}\n");
    let c = &load(&fine).unwrap().flows[0].tcp;
    assert_eq!(c.timers.rtt_clock, MeasurementClock::FINE);
    assert_eq!(c.timers.slow, EventClock::Fine);
    assert_eq!(c.timers.fast, EventClock::OneShot { granularity: SimDuration::from_millis(200) });
}

#[test]
fn timer_key_errors_name_the_field_on_one_line() {
    let cases = [
        ("profile = \"bsd-lit\"", "tcp.profile: unknown profile \"bsd-lit\"; did you mean \"bsd-lite\"?"),
        ("rto_estimator = \"linx\"", "tcp.rto_estimator: unknown estimator \"linx\"; did you mean \"linux\"?"),
        ("rtt_sampling = \"sometimes\"", "tcp.rtt_sampling: unknown sampling rule \"sometimes\""),
        ("dupack_threshold = 0", "tcp.dupack_threshold: must be at least 1 (or \"adaptive\")"),
        ("dupack_threshold = \"auto\"", "tcp.dupack_threshold: expected a count like 3 or \"adaptive\""),
        ("rto_gain_a = 2", "tcp.rto_gain_a: 2/1 is not a gain in (0, 1]"),
        ("rto_m = 0", "tcp.rto_m: must be greater than zero"),
        ("rto_k = \"x\"", "tcp.rto_k: \"x\" is not a fraction like \"1/4\""),
        ("rtt_clock = \"0ms\"", "tcp.rtt_clock: tick must be greater than zero"),
        ("timer_clock = 500", "tcp.timer_clock: 500 has no unit"),
        ("timer_clock = { kind = \"periodic\" }", "tcp.timer_clock.period: required key is missing"),
        ("timer_clock = { kind = \"periodic\", period = \"0s\" }", "tcp.timer_clock: period must be greater than zero"),
        ("fast_timer = { kind = \"weekly\" }", "tcp.fast_timer: unknown value \"weekly\""),
        ("fast_timer = { kind = \"oneshot\", granularity = \"1ms\", phase = \"1ms\" }", "tcp.fast_timer.phase: unknown field; expected one of: kind, granularity"),
    ];
    for (line, want) in cases {
        let e = err(&format!("{BASE}\n[tcp]\n{line}\n"));
        assert!(e.starts_with(want), "{line}: got {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn the_aron98_scenarios_use_the_bsd_lite_profile() {
    for f in ["aron98-fig1.toml", "aron98-fig2.toml"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(f);
        let spec = super::load_path(&path, &[]).unwrap();
        for fl in &spec.flows {
            assert_eq!(fl.tcp.rto_estimator, tcplab_tcp::RtoEstimatorKind::BsdLite, "{f}");
            assert_eq!(fl.tcp.timers.slow, tcplab_tcp::EventClock::bsd_slow(SimDuration::ZERO), "{f}");
        }
    }
}

// ---- Spurious-timeout detection (issue 4) ----

#[test]
fn spurious_detection_keys_reach_the_tcp_config() {
    use tcplab_tcp::{SpuriousDetection, SpuriousResponse};
    let text = format!(
        "{BASE}\n[tcp]\nspurious_detection = \"frto-sack\"\nspurious_response = \"cc3\"\nfrto_require_full_ack = true\n"
    );
    let spec = load(&text).unwrap();
    let c = &spec.flows[0].tcp;
    assert_eq!(c.spurious.detection, SpuriousDetection::FrtoSack);
    assert_eq!(c.spurious.response, SpuriousResponse::Cc3);
    assert!(c.spurious.frto_require_full_ack);
}

#[test]
fn spurious_detection_errors_name_the_field_on_one_line() {
    for (line, want) in [
        ("spurious_detection = \"frt0\"", "tcp.spurious_detection: unknown detector \"frt0\"; did you mean \"frto\"?"),
        ("spurious_response = \"cc4\"", "tcp.spurious_response: unknown response \"cc4\""),
        ("spurious_detection = \"eifel\"\ntimestamps = false", "tcp.spurious_detection: \"eifel\" detects by timestamps (RFC 3522) and needs timestamps = true"),
    ] {
        let e = err(&format!("{BASE}\n[tcp]\n{line}\n"));
        assert!(e.starts_with(want), "{e}");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn the_sender_key_selects_the_linux_sender_and_rejects_unknown_models_and_detectors() {
    let c = &load(&format!("{BASE}\n[tcp]\nsender = \"linux\"\nquickack = true\n")).unwrap().flows[0].tcp;
    assert_eq!(c.sender, tcplab_tcp::SenderModel::Linux);
    assert!(c.ack.quickack);
    assert!(c.linux_rate_halving && !c.linux_fack);
    let c = &load(&format!("{BASE}\n[tcp]\nsender = \"linux\"\nrate_halving = false\nfack = true\n")).unwrap().flows[0].tcp;
    assert!(!c.linux_rate_halving && c.linux_fack);
    assert_eq!(
        err(&format!("{BASE}\n[tcp]\nrate_halving = false\n")),
        "tcp.rate_halving: applies to the Linux sender only; set sender = \"linux\" (line 43, column 1)"
    );
    let c = &load(&format!("{BASE}\n")).unwrap().flows[0].tcp;
    assert_eq!(c.sender, tcplab_tcp::SenderModel::Rfc);
    assert_eq!(
        err(&format!("{BASE}\n[tcp]\nsender = \"linx\"\n")),
        "tcp.sender: unknown sender \"linx\"; did you mean \"linux\"? (senders are: rfc, linux) (line 43, column 1)"
    );
    let e = err(&format!("{BASE}\n[tcp]\nsender = \"linux\"\nspurious_detection = \"frto\"\n"));
    assert!(e.starts_with("tcp.sender: \"linux\" cannot be combined with spurious_detection"), "{e}");
    assert!(!e.contains('\n'));
}

#[test]
fn the_tlp_key_reaches_the_tcp_config_and_is_rejected_with_the_linux_sender() {
    assert!(!load(&format!("{BASE}\n")).unwrap().flows[0].tcp.tlp, "off by default");
    assert!(load(&format!("{BASE}\n[tcp]\ntlp = true\n")).unwrap().flows[0].tcp.tlp);
    let e = err(&format!("{BASE}\n[tcp]\nsender = \"linux\"\ntlp = true\n"));
    assert!(e.starts_with("tcp.sender: \"linux\" cannot be combined with tlp"), "{e}");
    assert!(!e.contains('\n'));
}

// ---- Packet reordering (sim::reorder) ----

mod reordering {
    use super::*;
    use crate::spec::ReorderSpec;


    #[test]
    fn reorder_sets_both_directions_and_the_directional_keys_one_each() {
        let l = link1("reorder = { p = 0.01, extra = \"5ms\" }");
        let r = ReorderSpec { p: 0.01, extra: MS(5), jitter: SimDuration::ZERO };
        assert_eq!((l.dynamics.reorder_ab, l.dynamics.reorder_ba), (Some(r), Some(r)));
        let l = link1("reorder_ba = { jitter = \"2ms\" }");
        assert_eq!(l.dynamics.reorder_ab, None);
        assert_eq!(l.dynamics.reorder_ba, Some(ReorderSpec { p: 0.0, extra: SimDuration::ZERO, jitter: MS(2) }));
        let l = link1("reorder_ab = { p = 0, extra = \"5ms\", jitter = \"1ms\" }");
        assert_eq!(l.dynamics.reorder_ab, Some(ReorderSpec { p: 0.0, extra: MS(5), jitter: MS(1) }));
        assert!(load(BASE).unwrap().links.iter().all(|l| l.dynamics.reorder_ab.is_none() && l.dynamics.reorder_ba.is_none()));
    }

    // sim::reorder "Deterministic picks": nth/flow/extra build a ReorderNthSpec (sorted,
    // deduplicated), not the random model.
    #[test]
    fn reorder_nth_picks_listed_packets_of_one_flow() {
        use crate::spec::ReorderNthSpec;
        let l = link1("reorder_ab = { nth = [350, 150, 150], extra = \"8ms\" }");
        assert_eq!(l.dynamics.reorder_ab, None);
        assert_eq!(l.dynamics.reorder_nth_ab, Some(ReorderNthSpec { flow: 0, nth: vec![150, 350], extra: MS(8) }));
        assert_eq!(l.dynamics.reorder_nth_ba, None);
        let e = bad("reorder_ab = { nth = [3], extra = \"8ms\", p = 0.1 }");
        assert!(e.starts_with("links[1].reorder_ab.p: cannot be combined with nth"), "{e}");
        let e = bad("reorder_ab = { nth = [0], extra = \"8ms\" }");
        assert!(e.starts_with("links[1].reorder_ab.nth[0]: occurrences count from 1"), "{e}");
        let e = bad("reorder_ab = { nth = [3] }");
        assert!(e.starts_with("links[1].reorder_ab.extra: required with nth"), "{e}");
        let e = bad("reorder_ab = { nth = [3], extra = \"8ms\", flow = 7 }");
        assert!(e.contains("reorder_ab.flow") && e.contains("no flow 7") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn generated_links_and_overrides_take_the_reorder_keys() {
        let text = GENERATED_DUMBBELL.replace(
            "bottleneck = { bandwidth = \"10Mbps\", delay = \"20ms\", queue = \"40pkt\" }",
            "bottleneck = { bandwidth = \"10Mbps\", delay = \"20ms\", queue = \"40pkt\", reorder_ab = { p = 0.01, extra = \"5ms\" } }",
        );
        let spec = load(&text).unwrap();
        assert_eq!(spec.links[0].dynamics.reorder_ab.map(|r| r.extra), Some(MS(5)));
        assert!(spec.links[1].dynamics.reorder_ab.is_none());
        let spec = set(BASE, &["links.bottleneck.reorder={ p = 0.5, extra = \"1ms\" }"]);
        assert_eq!(spec.links[1].dynamics.reorder_ba.map(|r| r.p), Some(0.5));
    }

    #[test]
    fn the_json_schema_describes_the_reorder_keys() {
        let s: serde_json::Value = serde_json::from_str(&json_schema()).unwrap();
        let listed = &s["$defs"]["RawLink"]["properties"];
        let generated = &s["$defs"]["RawLinkParams"]["properties"];
        for key in ["reorder", "reorder_ab", "reorder_ba"] {
            for t in [listed, generated] {
                assert_eq!(t[key]["$ref"], "#/$defs/RawReorder");
                let props = &s["$defs"]["RawReorder"]["properties"];
                assert!(["p", "extra", "jitter"].iter().all(|k| props.get(k).is_some()), "{key}");
            }
        }
    }

    #[test]
    fn reorder_errors_are_one_line_naming_the_field() {
        let cases: &[(&str, &str)] = &[
            (
                "reorder = { p = 1.5, extra = \"5ms\" }",
                "links[1].reorder.p: reorder probability must be in [0,1], not 1.5 (line 36, column 13)",
            ),
            (
                "reorder_ab = { p = 0.01, extra = 5 }",
                "links[1].reorder_ab.extra: 5 has no unit; write a duration with its unit, like \"30ms\" (line 36, column 26)",
            ),
            (
                "reorder_ab = { p = 0.01, extar = \"5ms\" }",
                "links[1].reorder_ab.extar: unknown field; did you mean \"extra\"? (line 36, column 26)",
            ),
            (
                "reorder_ab = { p = 0.01 }",
                "links[1].reorder_ab.extra: required with p: the extra delay of a reordered packet, like \"5ms\" (line 36, column 1)",
            ),
            (
                "reorder_ab = { extra = \"5ms\" }",
                "links[1].reorder_ab.p: required with extra: the share of packets delayed by extra, like 0.01 (line 36, column 1)",
            ),
            ("reorder_ab = { p = 0.1, extra = \"0ms\" }", "links[1].reorder_ab.extra: must be greater than zero (line 36, column 25)"),
            (
                "reorder_ba = {}",
                "links[1].reorder_ba: set p and extra (like { p = 0.01, extra = \"5ms\" }) and/or a jitter greater than zero (line 36, column 1)",
            ),
            (
                "reorder = { jitter = \"1ms\" }\nreorder_ab = { jitter = \"1ms\" }",
                "links[1].reorder: sets both directions; use either reorder or reorder_ab/reorder_ba, not both (line 36, column 1)",
            ),
            ("reordr = { jitter = \"1ms\" }", "links[1].reordr: unknown field; did you mean \"reorder\"?"),
        ];
        let mut wrong = Vec::new();
        for (extra, want) in cases {
            let got = bad(extra);
            if !got.starts_with(want) || got.contains('\n') {
                wrong.push(format!("{extra}\n  got:  {got}\n  want: {want}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

#[test]
fn a_set_into_a_topology_the_scenario_does_not_have_says_so() {
    let e = err_set(BASE, &["topology.bottleneck.bandwidth=5Mbps"]);
    assert!(e.contains("no [topology] table") && !e.contains('\n'), "{e}");
}

#[test]
fn handshake_ack_reaches_tcp_config_and_the_linux_profiles_set_it() {
    use tcplab_tcp::HandshakeAck;
    assert_eq!(load(BASE).unwrap().flows[0].tcp.handshake_ack, HandshakeAck::Piggyback);
    let c = &load(&format!("{BASE}\n[tcp]\nhandshake_ack = \"immediate\"\n")).unwrap().flows[0].tcp;
    assert_eq!(c.handshake_ack, HandshakeAck::Immediate);
    let c = &load(&format!("{BASE}\n[tcp]\nprofile = \"linux\"\n")).unwrap().flows[0].tcp;
    assert_eq!(c.handshake_ack, HandshakeAck::Immediate);
    // The table's own key overrides its profile.
    let c = &load(&format!("{BASE}\n[tcp]\nprofile = \"linux-2.4\"\nhandshake_ack = \"piggyback\"\n")).unwrap().flows[0].tcp;
    assert_eq!(c.handshake_ack, HandshakeAck::Piggyback);
    let c = &load_str(BASE, "t", &["tcp.handshake_ack=immediate".to_string()]).unwrap().flows[0].tcp;
    assert_eq!(c.handshake_ack, HandshakeAck::Immediate);
}

#[test]
fn handshake_ack_errors_name_the_field_on_one_line() {
    let cases = [
        (
            "handshake_ack = \"immediat\"",
            "tcp.handshake_ack: unknown handshake ACK \"immediat\"; did you mean \"immediate\"? (handshake ACKs are: piggyback, immediate)",
        ),
        ("handshake_ack = true", "tcp.handshake_ack: expected a string, found boolean true"),
        ("handshake_ak = \"immediate\"", "tcp.handshake_ak: unknown field; did you mean \"handshake_ack\"?"),
    ];
    for (line, want) in cases {
        let e = err(&format!("{BASE}\n[tcp]\n{line}\n"));
        assert!(e.starts_with(want), "{line}: got {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

// Today's Linux (issue 10 part 2): each feature is a key of its own, off by default, set by
// profile = "linux", overridable, named on one line when misspelled, and refused with the
// Linux 2.4 engine.
#[test]
fn the_todays_linux_keys_reach_tcp_config_one_by_one() {
    use tcplab_tcp::cc::hystart::HystartMode;
    use tcplab_tcp::loss::tlp::PtoRule;
    use tcplab_tcp::CongestionControl;
    let d = &load(BASE).unwrap().flows[0].tcp;
    assert_eq!((d.cc, d.hystart, d.abc, d.prr, d.rack, d.tlp_pto), (CongestionControl::Reno, HystartMode::Off, false, false, false, PtoRule::Rfc8985));
    let one = |k: &str| load(&format!("{BASE}\n[tcp]\n{k}\n")).unwrap().flows[0].tcp.clone();
    assert_eq!(one("cc = \"cubic\"").cc, CongestionControl::Cubic);
    assert_eq!(one("hystart = \"hystart++\"").hystart, HystartMode::HystartPlusPlus);
    assert_eq!(one("hystart = \"linux\"").hystart, HystartMode::Linux);
    assert!(one("abc = true").abc);
    assert!(one("prr = true").prr);
    let r = one("rack = true");
    assert!(r.rack && !r.prr && r.cc == CongestionControl::Reno);
    assert_eq!(one("tlp_pto = \"linux\"").tlp_pto, PtoRule::Linux);
    assert!(one("ack_ato = true").ack_ato);
    let l = one("profile = \"linux\"");
    assert!(l.rack && l.prr && l.abc && l.tlp && l.cc == CongestionControl::Cubic && l.hystart == HystartMode::Linux);
    let l = one("profile = \"linux\"\nrack = false\ncc = \"reno\"");
    assert!(!l.rack && l.prr && l.cc == CongestionControl::Reno);
    let e = err(&format!("{BASE}\n[tcp]\ncc = \"bbr\"\n"));
    assert!(e.starts_with("tcp.cc: ") && e.contains("cubic") && !e.contains('\n'), "{e}");
    let e = err(&format!("{BASE}\n[tcp]\nsender = \"linux\"\nrack = true\n"));
    assert!(e.starts_with("tcp.sender: \"linux\" (the Linux 2.4 engine) cannot be combined"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Quick-Start keys (scenario/quickstart.rs)

#[test]
fn quick_start_keys_build_the_host_and_router_settings() {
    use crate::sim::quickstart::algorithm::QsAlgorithm;
    use tcplab_tcp::startup::quickstart::{HandoffResponse, QsRequestSize};
    let text = format!(
        "{BASE}\n[tcp]\nquick_start = {{ request = true, rate = \"16Mbps\", size = \"data\", on_handoff = \"quickstart\", qsthresh = true }}\n\
         [[quick_start.routers]]\nnode = \"r1\"\nlinks = [\"bottleneck\"]\nalgorithm = \"share\"\nalloc_rate = 0.25\n"
    );
    let spec = load_str(&text, "t", &[]).expect("loads");
    let q = spec.flows[0].tcp.quick_start;
    assert!(q.request_at_start && q.qsthresh);
    assert_eq!(q.on_handoff, HandoffResponse::QuickStart);
    assert!(matches!(q.size, QsRequestSize::SizedToData { max_bytes_per_sec: 2_000_000, .. }));
    let r = &spec.quick_start.routers[0];
    assert_eq!(r.config.algorithm, QsAlgorithm::Share { alloc_rate: 0.25 });
    assert_eq!(r.links.len(), 1);
}

#[test]
fn bad_quick_start_values_are_one_line_errors() {
    let e = err(&format!("{BASE}\n[tcp]\nquick_start = {{ on_handoff = \"jump\" }}\n"));
    assert!(e.starts_with("tcp.quick_start.on_handoff: unknown hand-off response \"jump\""), "{e}");
    let e = err(&format!("{BASE}\n[[quick_start.routers]]\nnode = \"r1\"\nqs_thresh = 1.5\n"));
    assert!(e.starts_with("quick_start.routers[0].qs_thresh: 1.5 must be above 0 and at most 1"), "{e}");
    let e = err(&format!("{BASE}\n[[quick_start.routers]]\nnode = \"r9\"\n"));
    assert!(e.starts_with("quick_start.routers[0].node: unknown node \"r9\""), "{e}");
    let e = err(&format!("{BASE}\n[[quick_start.handoffs]]\nat = \"1s\"\nmobile = \"d1\"\nroutes = [{{ node = \"r2\", dst = \"d1\", link = \"access\" }}]\n"));
    assert!(e.contains("is not attached to \"r2\""), "{e}");
    assert!(!e.contains('\n'));
}

#[test]
fn quick_start_works_with_the_linux_profile_and_is_rejected_with_the_linux_2_4_engine() {
    // Today's Linux (the RFC sender with CUBIC, PRR, RACK-TLP) requests like any RFC sender.
    let spec = load_str(&format!("{BASE}\n[tcp]\nprofile = \"linux\"\nquick_start = {{ request = true }}\n"), "t", &[]).expect("loads");
    assert!(spec.flows[0].tcp.quick_start.request_at_start);
    assert_eq!(spec.flows[0].tcp.cc, tcplab_tcp::CongestionControl::Cubic);
    let e = err(&format!("{BASE}\n[tcp]\nsender = \"linux\"\nquick_start = {{ request = true }}\n"));
    assert!(e.starts_with("tcp.sender: \"linux\" (the Linux 2.4 engine) cannot be combined with quick_start"), "{e}");
    assert!(!e.contains('\n'));
    // A receiver that only echoes is fine with either sender.
    assert!(load_str(&format!("{BASE}\n[tcp]\nsender = \"linux\"\nquick_start = {{ echo = true }}\n"), "t", &[]).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Provenance: the resolved document reproduces the spec; overrides are validated one by one.

#[test]
fn the_resolved_document_of_every_shipped_scenario_loads_to_the_same_spec() {
    for f in shipped() {
        let text = std::fs::read_to_string(&f).unwrap();
        let sets = ["tcp.min_rto=300ms".to_string()];
        let r = resolve_str(&text, "stem", &sets).unwrap();
        assert_eq!(r.spec, load_str(&text, "stem", &sets).unwrap());
        let again = load_str(&r.document, "other", &[]).unwrap();
        assert_eq!(again, r.spec, "{}", f.display());
        assert!(!r.document.contains("profile"), "{}", f.display());
        assert_eq!(r.flow_names.len(), r.spec.flows.len());
        assert!(r.spec.flows.iter().all(|fl| fl.tcp.rto.min == SimDuration::from_millis(300)));
    }
}

#[test]
fn resolved_flow_names_follow_count_expansion() {
    let text = with("size = \"1MB\"", "size = \"1MB\"\nname = \"bulk\"\ncount = 2")
        + "\n[[flows]]\nsrc = \"s2\"\ndst = \"d2\"\nsize = \"1KB\"\n";
    let r = resolve_str(&text, "t", &[]).unwrap();
    assert_eq!(r.flow_names, vec![Some("bulk".to_string()), Some("bulk".to_string()), None]);
}

#[test]
fn validate_overrides_names_the_bad_override_then_checks_the_combination() {
    let ok = validate_overrides(BASE, "t", &["tcp.min_rto=1s".into(), "tcp.sack=false".into()]);
    assert_eq!(ok.unwrap().flows[0].tcp.rto.min, SimDuration::from_secs(1));
    let e = validate_overrides(BASE, "t", &["tcp.sack=false".into(), "tcp.min_rto=1x".into()])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("tcp.min_rto: ") && e.ends_with("(from --set tcp.min_rto=1x)"), "{e}");
    let e = validate_overrides(BASE, "t", &["tcp.min_rot=1s".into()]).unwrap_err().to_string();
    assert!(e.contains("did you mean \"min_rto\"") && e.contains("(from --set tcp.min_rot=1s)"), "{e}");
    // Each valid alone, invalid together.
    let e = validate_overrides(BASE, "t", &["tcp.sender=linux".into(), "tcp.tlp=true".into()])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("tcp.sender: \"linux\" cannot be combined with tlp"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// RED queues, tcp.ecn, [[workloads]] (issue 13)

#[test]
fn a_red_queue_takes_percentages_of_its_limit_and_defaults_for_the_rest() {
    let spec = load(&with(
        "delay = \"20ms\"",
        "delay = \"20ms\"\nqueue = { kind = \"red\", limit = \"200pkt\", min_th = \"10%\", max_th = \"30%\", gentle = true }",
    ))
    .unwrap();
    let QueueSpec::Red { limit, red } = spec.links[1].queue else { panic!("{:?}", spec.links[1].queue) };
    assert_eq!(limit, QueueLimit::Packets(200));
    assert_eq!((red.min_th, red.max_th, red.gentle), (20.0, 60.0, true));
    assert_eq!((red.max_p, red.w_q, red.ecn, red.hard_drop), (0.1, 0.002, true, true));
    assert_eq!(red.mode, crate::spec::RedMode::Packets);
    // A byte limit makes a byte-mode RED.
    let b = load(&with("delay = \"20ms\"", "delay = \"20ms\"\nqueue = { kind = \"red\", limit = \"100KB\", min_th = \"10%\", max_th = 60000 }")).unwrap();
    let QueueSpec::Red { red, .. } = b.links[1].queue else { panic!() };
    assert_eq!((red.mode, red.min_th, red.max_th), (crate::spec::RedMode::Bytes, 10_000.0, 60_000.0));
}

#[test]
fn bad_red_parameters_are_one_line_naming_the_queue() {
    let q = |s: &str| err(&with("delay = \"20ms\"", &format!("delay = \"20ms\"\nqueue = {{ kind = \"red\", limit = \"100pkt\", {s} }}")));
    assert!(q("min_th = 20, max_th = 10").starts_with("links[1].queue: min_th (20) must be at least 0 and below max_th (10)"), "{}", q("min_th = 20, max_th = 10"));
    assert!(q("max_p = 1.5").contains("max_p: 1.5 is not a probability"));
    assert!(q("mode = \"bytes\", min_th = \"10%\"").contains("a percentage of limit needs mode = \"packets\""));
    assert!(q("min_tH = 3").starts_with("links[1].queue.min_tH: unknown field; did you mean \"min_th\"?"));
    let dt = err(&with("delay = \"20ms\"", "delay = \"20ms\"\nqueue = { limit = \"100pkt\", max_p = 0.1 }"));
    assert!(dt.starts_with("links[1].queue.max_p: unknown field"), "{dt}");
}

#[test]
fn tcp_ecn_is_a_tcp_key_off_by_default() {
    assert!(!load(BASE).unwrap().flows[0].tcp.ecn);
    assert!(set(BASE, &["tcp.ecn=true"]).flows[0].tcp.ecn);
}

const WORKLOAD: &str = r#"
[[workloads]]
name = "short"
kind = "poisson"
senders = ["s1", "s2"]
receivers = ["d1", "d2"]
mean_interarrival = "50ms"
size = { dist = "pareto", mean = "40KB", shape = 1.5 }
max_flows = 100
tcp = { initial_window = 10 }
"#;

#[test]
fn a_poisson_workload_names_its_hosts_and_sizes() {
    let spec = load(&format!("{BASE}{WORKLOAD}")).unwrap();
    let crate::spec::WorkloadSpec::Poisson(w) = &spec.workloads[0] else { panic!("a poisson workload") };
    assert_eq!(w.name, "short");
    let names = |v: &[usize]| v.iter().map(|&i| spec.nodes[i].name.clone()).collect::<Vec<_>>();
    assert_eq!((names(&w.senders), names(&w.receivers)), (vec!["s1".to_string(), "s2".into()], vec!["d1".to_string(), "d2".into()]));
    assert_eq!(w.mean_interarrival, SimDuration::from_millis(50));
    assert_eq!(w.size, crate::spec::SizeDist::Pareto { mean: 40_000.0, shape: 1.5 });
    assert_eq!((w.max_flows, w.stop), (Some(100), None));
    assert_eq!(w.tcp.initial_window, InitialWindow::Segments(10));
    // A scenario may have workloads and no [[flows]].
    let only = format!("{}{WORKLOAD}", BASE.replace("[[flows]]\nsrc = \"s1\"\ndst = \"d1\"\nsize = \"1MB\"\n", ""));
    assert!(load(&only).unwrap().flows.is_empty());
}

#[test]
fn bad_workloads_are_one_line_naming_the_field() {
    let w = |old: &str, new: &str| err(&format!("{BASE}{}", WORKLOAD.replacen(old, new, 1)));
    assert!(w("receivers = [\"d1\", \"d2\"]", "receivers = [\"d1\", \"r1\"]").starts_with("workloads[0].receivers[1]: \"r1\" is a router"));
    assert!(w("receivers = [\"d1\", \"d2\"]", "receivers = [\"s1\"]").starts_with("workloads[0].receivers[0]: \"s1\" is also a sender"));
    assert!(w("shape = 1.5", "shape = 1").starts_with("workloads[0].size.shape: must be greater than 1"));
    assert!(w("\"50ms\"", "\"0s\"").starts_with("workloads[0].mean_interarrival: must be greater than zero"));
    assert!(w("kind = \"poisson\"", "kind = \"fluid\"").starts_with("workloads[0].kind: unknown value \"fluid\"; expected one of \"poisson\", \"web\""));
    assert!(w("receivers = [\"d1\", \"d2\"]", "receivers = [\"dx\"]").contains("unknown node \"dx\""));
}

const WEB: &str = r#"
[[workloads]]
name = "web"
kind = "web"
senders = ["s1", "s2"]
receivers = ["d1", "d2"]
sessions = 3
inter_page = "1s"
object_size = { mean = 60, max = 1000 }
tcp = { initial_window = 3 }
"#;

#[test]
fn a_web_workload_takes_the_thesis_defaults_for_what_it_leaves_out() {
    use crate::scenario::workloads::*;
    let spec = load(&format!("{BASE}{WEB}")).unwrap();
    let crate::spec::WorkloadSpec::Web(w) = &spec.workloads[0] else { panic!("a web workload") };
    assert_eq!((w.name.as_str(), w.sessions, w.inter_page), ("web", 3, SimDuration::from_secs(1)));
    assert_eq!((w.pages_per_session, w.objects_per_page, w.inter_object), (30, 10, SimDuration::from_millis(10)));
    assert_eq!((w.pages_per_session, w.objects_per_page), (WEB_PAGES_PER_SESSION, WEB_OBJECTS_PER_PAGE));
    assert_eq!((w.object_mean_packets, w.object_shape, w.object_max_packets), (60.0, 1.002, Some(1000)));
    assert_eq!(w.tcp.initial_window, InitialWindow::Segments(3));
    assert_eq!(spec.workloads[0].senders().len(), 2);
}

#[test]
fn bad_web_workloads_are_one_line_naming_the_field() {
    let w = |old: &str, new: &str| err(&format!("{BASE}{}", WEB.replacen(old, new, 1)));
    assert!(w("sessions = 3\n", "").starts_with("workloads[0]: missing key `sessions` (kind = \"web\")"), "{}", w("sessions = 3\n", ""));
    assert!(w("sessions = 3", "sessions = 0").starts_with("workloads[0].sessions: must be at least 1"));
    assert!(w("sessions = 3", "sessions = 3\nsize = \"1KB\"").starts_with("workloads[0].size: not a key of kind = \"web\""));
    assert!(w("mean = 60", "mean = 0").starts_with("workloads[0].object_size.mean: must be greater than zero"));
    assert!(w("mean = 60", "mean = 60, shape = 0.9").starts_with("workloads[0].object_size.shape: must be greater than 1"));
    assert!(w("max = 1000", "maxx = 1000").starts_with("workloads[0].object_size.maxx: unknown field"), "{}", w("max = 1000", "maxx = 1000"));
    let p = err(&format!("{BASE}{}", WORKLOAD.replacen("max_flows = 100", "max_flows = 100\nsessions = 2", 1)));
    assert!(p.starts_with("workloads[0].sessions: not a key of kind = \"poisson\""), "{p}");
    let p = err(&format!("{BASE}{}", WORKLOAD.replacen("mean_interarrival = \"50ms\"\n", "", 1)));
    assert!(p.starts_with("workloads[0]: missing key `mean_interarrival`"), "{p}");
}

// ---------------------------------------------------------------------------------------------
// qa findings on the loader's messages (issue 15)

#[test]
fn an_integer_too_large_for_its_key_says_so_with_the_maximum() {
    // `sessions` is a u32: 2^32 and more is not "negative", it is too large.
    let e = err_set(&format!("{BASE}{WEB}"), &["workloads.web.sessions=99999999999"]);
    assert_eq!(
        e,
        "workloads[0].sessions: 99999999999 is too large (at most 4294967295) (from --set workloads.web.sessions=99999999999)"
    );
    let e = err(&format!("{BASE}{}", WEB.replace("sessions = 3", "sessions = 4294967296")));
    assert!(e.starts_with("workloads[0].sessions: 4294967296 is too large (at most 4294967295) (line "), "{e}");
    // Beyond 64 bits the override value is kept as a string: still a number too large.
    let e = err_set(&format!("{BASE}{WEB}"), &["workloads.web.sessions=99999999999999999999"]);
    assert!(e.starts_with("workloads[0].sessions: 99999999999999999999 is too large (at most 4294967295) (from --set"), "{e}");
    // A quoted number that fits is a string where a number belongs, not "too large".
    let e = err_set(&format!("{BASE}{WEB}"), &["workloads.web.sessions=\"5\""]);
    assert!(e.starts_with("workloads[0].sessions: expected a non-negative integer, found string \"5\""), "{e}");
    let e = err_set(&format!("{BASE}{WEB}"), &["workloads.web.sessions=-1"]);
    assert!(e.starts_with("workloads[0].sessions: expected a non-negative integer, found -1 (from --set"), "{e}");
}

#[test]
fn a_cross_field_error_an_override_caused_names_the_override() {
    // The file's receivers are d1, d2; the override makes d1 a sender too. The check fails at
    // `receivers[0]` (written by the file), but the override is what made it fail.
    let e = err_set(&format!("{BASE}{WEB}"), &["workloads.web.senders=[\"d1\"]"]);
    assert_eq!(e, "workloads[0].receivers[0]: \"d1\" is also a sender (from --set workloads.web.senders=[\"d1\"])");
    // Among several overrides, the one that causes it is named, not the last one.
    let e = err_set(
        &format!("{BASE}{WEB}"),
        &["workloads.web.senders=[\"d1\"]", "simulation.duration=3s"],
    );
    assert!(e.ends_with("(from --set workloads.web.senders=[\"d1\"])"), "{e}");
    // An error the file has anyway keeps its line, whatever the overrides.
    let bad = format!("{BASE}{}", WEB.replace("receivers = [\"d1\", \"d2\"]", "receivers = [\"s1\"]"));
    let e = err_set(&bad, &["simulation.duration=3s"]);
    assert!(e.starts_with("workloads[0].receivers[0]: \"s1\" is also a sender (line "), "{e}");
}

#[test]
fn a_key_with_a_newline_in_its_name_is_named_on_one_line() {
    // A quoted key may hold a newline, and the field path is part of the message: it was
    // printed raw (two lines), and named twice (as written and with the newline collapsed).
    // Seen when the scenario_loader fuzz target gained the invariant "errors are one line".
    let e = err(&format!("\"a\\nb\" = 1\n{BASE}"));
    assert!(!e.contains('\n'), "{e:?}");
    assert!(e.starts_with("a\\x0ab: unknown field"), "{e}");
}

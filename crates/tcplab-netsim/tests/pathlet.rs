//! The Pathlet Transport Architecture (seed 004) end to end: discovery on the SYN, the header
//! bytes on the wire, Congested Pathlet from the first pathlet router after a marking queue,
//! End-of-Path from the receiver, the host's table and the initial window it gives the next
//! connections; and the RFC 9040 destination cache.
//!
//! Topology (four pathlets, as 004 Fig. 6):
//!
//! ```text
//!   s ── p1 ── p2 ══ bottleneck ══ p3 ── d1
//!                                      └─ d2
//! ```

use tcplab_netsim::scenario::load_str;
use tcplab_netsim::sim::pathlet::node_id;
use tcplab_netsim::{run, RunOptions, RunOutput};
use tcplab_tcp::startup::pathlet_header::END_OF_PATH;

/// The chain above with a RED queue of `bottleneck` bandwidth on p2 → p3, or (`last_red`) on
/// the p3 → d links instead (congestion on the last pathlet); flows as TOML.
fn scenario(sharing: &str, bottleneck: &str, last_red: bool, flows: &str, extra: &str) -> String {
    let red = r#"queue = { kind = "red", limit = "50pkt", min_th = "10%", max_th = "30%", gentle = true }"#;
    let (mid_q, last_q) = if last_red { ("", red) } else { (red, "") };
    format!(
        r#"
name = "pathlet-test"
[simulation]
duration = "30s"
seed = 1
[tcp]
ecn = true
sharing = "{sharing}"
recv_buffer = "256KiB"
[[nodes]]
name = "s"
kind = "host"
[[nodes]]
name = "p1"
kind = "router"
[[nodes]]
name = "p2"
kind = "router"
[[nodes]]
name = "p3"
kind = "router"
[[nodes]]
name = "d1"
kind = "host"
[[nodes]]
name = "d2"
kind = "host"
[[links]]
name = "first"
a = "s"
b = "p1"
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
a = "p1"
b = "p2"
bandwidth = "1Gbps"
delay = "5ms"
[[links]]
name = "bottleneck"
a = "p2"
b = "p3"
bandwidth = "{mid}"
delay = "10ms"
{mid_q}
[[links]]
a = "p3"
b = "d1"
bandwidth = "{last}"
delay = "1ms"
{last_q}
[[links]]
a = "p3"
b = "d2"
bandwidth = "{last}"
delay = "1ms"
{last_q}
[pathlet]
routers = ["p1", "p2", "p3"]
{extra}
{flows}
"#,
        last = if last_red { bottleneck } else { "1Gbps" },
        mid = if last_red { "1Gbps" } else { bottleneck },
    )
}

fn go(toml: &str) -> RunOutput {
    let spec = load_str(toml, "pathlet-test", &[]).expect("scenario");
    run(&spec, &RunOptions { seed: 1, trace: false, pcap: vec![] }).expect("run")
}

fn flow(dst: &str, at: &str, size: &str) -> String {
    format!("[[flows]]\nsrc = \"s\"\ndst = \"{dst}\"\nstart = \"{at}\"\nsize = \"{size}\"\n")
}

#[test]
fn discovery_fills_the_three_router_ids_and_the_sender_knows_four_pathlets() {
    let out = go(&scenario("pathlet", "100Mbps", false, &flow("d1", "0s", "30KB"), ""));
    let routers = &out.summary.pathlet_routers;
    assert_eq!(routers.iter().map(|r| (r.node.as_str(), r.discoveries, r.full)).collect::<Vec<_>>(),
        vec![("p1", 1, 0), ("p2", 1, 0), ("p3", 1, 0)], "one SYN, one slot each");
    let ids: Vec<u32> = ["p1", "p2", "p3"].iter().map(|n| routers.iter().find(|r| r.node == *n).map_or(0, |r| r.id)).collect();
    assert_eq!(ids, vec![node_id(1), node_id(2), node_id(3)]);
    let pathlets: Vec<(u32, u32)> = out.summary.pathlet_tables.iter().map(|r| (r.from, r.to)).collect();
    assert_eq!(pathlets, vec![(0, ids[0]), (ids[0], ids[1]), (ids[1], ids[2]), (ids[2], END_OF_PATH)]);
    assert!(out.summary.pathlet_tables.iter().all(|r| r.host == "s" && r.min_rtt_s.is_some()));
    // The table was empty: the first connection falls back to the configured RFC 3390 window.
    assert_eq!(out.summary.flows[0].initial_window_segments, Some(3));
}

/// 004 §V-B: 32 bytes on the discovery SYN, 8 on every later packet of the sender; the
/// receiver's echo likewise (32 on the SYN-ACK). Same packets as without PTA.
#[test]
fn the_header_bytes_are_counted_on_the_wire() {
    let f = flow("d1", "0s", "30KB");
    let (pta, plain) = (go(&scenario("pathlet", "100Mbps", false, &f, "")), go(&scenario("none", "100Mbps", false, &f, "")));
    let (a, b) = (&pta.summary.links[0], &plain.summary.links[0]);
    assert_eq!((a.packets_ab, a.packets_ba), (b.packets_ab, b.packets_ba));
    assert_eq!(a.bytes_ab - b.bytes_ab, 32 + 8 * (a.packets_ab - 1));
    let echo = a.bytes_ba - b.bytes_ba;
    assert!(echo >= 32 + 8 * (a.packets_ba - 2) && echo <= 32 + 8 * (a.packets_ba - 1), "{echo} for {} packets", a.packets_ba);
    assert!(plain.summary.pathlet_tables.is_empty(), "no host kept a table without PTA connections");
}

/// Later connections over the same uncongested pathlets start from SAFE_CWND: the largest
/// flight size an earlier one reached (004 §III-C (a)), above the fallback of 3.
#[test]
fn later_connections_start_from_the_learned_safe_cwnd() {
    let flows: String = (0..6).map(|i| flow(if i % 2 == 0 { "d1" } else { "d2" }, &format!("{}s", 2 * i), "100KB")).collect();
    let out = go(&scenario("pathlet", "100Mbps", false, &flows, ""));
    let iws: Vec<u64> = out.summary.flows.iter().filter_map(|f| f.initial_window_segments).collect();
    assert_eq!(iws.len(), 6);
    assert_eq!(iws[0], 3);
    assert!(iws[1..].iter().all(|&w| w > 10), "{iws:?}");
    // d1 and d2 share the last pathlet (p3, End-of-Path): the d2 connection learnt from d1's.
    let row = out.summary.pathlet_tables.iter().find(|r| r.to == END_OF_PATH).expect("last pathlet");
    assert!(row.safe_cwnd.is_some_and(|c| c >= iws[1] * 1460), "{row:?}");
}

/// CE from the RED queue on p2 → p3: p3 is the first pathlet router to see it, so the
/// (p2, p3) pathlet alone gets the indications (losses not counted here), and its SAFE_CWND
/// ends below the others'.
#[test]
fn the_router_after_the_marking_queue_names_the_congested_pathlet() {
    let flows: String = (0..8).map(|i| flow("d1", &format!("{}ms", 300 * i), "60KB")).collect();
    let out = go(&scenario("pathlet", "2Mbps", false, &flows, "loss_is_congestion = false"));
    let marks: Vec<u64> = out.summary.pathlet_routers.iter().map(|r| r.congested_marks).collect();
    assert_eq!(marks[0..2], [0, 0]);
    assert!(marks[2] > 0, "{marks:?}");
    let t = &out.summary.pathlet_tables;
    let congested: Vec<(u32, u64)> = t.iter().filter(|r| r.congestion_indications > 0).map(|r| (r.to, r.congestion_indications)).collect();
    assert_eq!(congested.len(), 1, "{t:?}");
    assert_eq!(congested[0].0, node_id(3));
    let bottleneck = t.iter().find(|r| r.to == node_id(3)).and_then(|r| r.safe_cwnd);
    let first = t.iter().find(|r| r.from == 0).and_then(|r| r.safe_cwnd);
    assert!(bottleneck < first, "{t:?}");
}

/// Marks on the last link (after the last pathlet router): the receiver writes End-of-Path.
#[test]
fn marks_after_the_last_router_come_back_as_end_of_path() {
    let flows: String = (0..8).map(|i| flow("d1", &format!("{}ms", 300 * i), "60KB")).collect();
    let out = go(&scenario("pathlet", "2Mbps", true, &flows, "loss_is_congestion = false"));
    assert!(out.summary.pathlet_routers.iter().all(|r| r.congested_marks == 0));
    let t = &out.summary.pathlet_tables;
    let congested: Vec<u32> = t.iter().filter(|r| r.congestion_indications > 0).map(|r| r.to).collect();
    assert_eq!(congested, vec![END_OF_PATH], "{t:?}");
}

/// RFC 9040: the second connection to d1 starts from the first one's cwnd; the first to d2
/// knows nothing (per destination host).
#[test]
fn host_sharing_is_per_destination() {
    let flows = [flow("d1", "0s", "100KB"), flow("d1", "2s", "30KB"), flow("d2", "4s", "30KB")].concat();
    let out = go(&scenario("host", "100Mbps", false, &flows, ""));
    let iws: Vec<Option<u64>> = out.summary.flows.iter().map(|f| f.initial_window_segments).collect();
    assert_eq!(iws[0], Some(3));
    assert!(iws[1].is_some_and(|w| w > 3), "{iws:?}");
    assert_eq!(iws[2], Some(3));
    assert!(out.summary.pathlet_routers.iter().all(|r| r.discoveries == 0), "no discovery without PTA connections");
}

#[test]
fn pathlet_runs_are_deterministic() {
    let flows: String = (0..4).map(|i| flow("d1", &format!("{}ms", 300 * i), "60KB")).collect();
    let s = scenario("pathlet", "2Mbps", false, &flows, "");
    assert_eq!(go(&s).summary, go(&s).summary);
}

#[test]
fn bad_pathlet_keys_are_one_line_errors() {
    let err = |extra: &str| -> String {
        let s = scenario("pathlet", "100Mbps", false, &flow("d1", "0s", "1KB"), "").replace("routers = [\"p1\", \"p2\", \"p3\"]", extra);
        load_str(&s, "t", &[]).map(|_| String::new()).unwrap_or_else(|e| e.to_string())
    };
    assert!(err("routers = [\"s\"]").contains("pathlet.routers[0]: \"s\" is a host"), "{}", err("routers = [\"s\"]"));
    assert!(err("routers = [\"p9\"]").starts_with("pathlet.routers[0]"), "{}", err("routers = [\"p9\"]"));
    assert!(err("slots = 9").contains("pathlet.slots: 9 is out of range (1 to 8"), "{}", err("slots = 9"));
    assert!(err("share = \"evenly\"").contains("pathlet.share"), "{}", err("share = \"evenly\""));
    assert!(!err("slots = 9").contains('\n'));
}

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
use tcplab_record::ColumnData;
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

/// The table's run statistics explain its values: every initial window chosen from the table
/// is counted once, on its bottleneck pathlet, and the windows given there are the flows'; the
/// congested pathlet's periods with indications are counted, and rule (b) cut at least once.
#[test]
fn the_table_statistics_decompose_the_initial_windows_and_count_the_cuts() {
    let flows: String = (0..8).map(|i| flow("d1", &format!("{}ms", 300 * i), "60KB")).collect();
    let out = go(&scenario("pathlet", "2Mbps", false, &flows, "loss_is_congestion = false"));
    let t = &out.summary.pathlet_tables;
    let chosen: Vec<u64> = out.summary.flows.iter().filter_map(|f| f.initial_window_segments).collect();
    // The first connection knew nothing (fallback): not a choice from the table.
    let from_table = &chosen[1..];
    let choices: u64 = t.iter().map(|r| r.iw_choices).sum();
    assert_eq!(choices, from_table.len() as u64, "{t:?}");
    let given: f64 = t.iter().filter_map(|r| r.iw_given_mean.map(|m| m * r.iw_choices as f64)).sum();
    assert_eq!(given.round() as u64, from_table.iter().sum::<u64>(), "{t:?}");
    let row = t.iter().find(|r| r.to == node_id(3)).expect("congested pathlet");
    assert!(row.congested_periods > 0 && row.cuts > 0 && row.cuts <= row.congested_periods, "{row:?}");
    assert!(row.periods >= row.congested_periods + row.raises + row.held, "{row:?}");
    assert!(row.cut_to_mean.is_some_and(|c| c > 0.0), "{row:?}");
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
    let e = err("congested_flight = \"max\"");
    assert!(e.contains("pathlet.congested_flight") && e.contains("period_max"), "{e}");
    assert!(!err("slots = 9").contains('\n'));
}

/// 004 §V-A: "If a discovery yielded a full pathlet router section a host should consider
/// initiating a rediscovery with a larger number of pathlet ID slots": two slots for three
/// routers fill up, the next packet rediscovers with four and finds all three.
#[test]
fn a_full_discovery_section_is_followed_by_a_rediscovery_with_more_slots() {
    let out = go(&scenario("pathlet", "100Mbps", false, &flow("d1", "0s", "30KB"), "slots = 2"));
    let r: Vec<(&str, u64, u64)> = out.summary.pathlet_routers.iter().map(|r| (r.node.as_str(), r.discoveries, r.full)).collect();
    assert_eq!(r, vec![("p1", 2, 0), ("p2", 2, 0), ("p3", 1, 1)]);
    let (p1, p2, p3) = (node_id(1), node_id(2), node_id(3));
    let pathlets: Vec<(u32, u32)> = out.summary.pathlet_tables.iter().map(|r| (r.from, r.to)).collect();
    // The first path (p1, p2 | black box) and the full one, in the table's order.
    assert_eq!(pathlets, vec![(0, p1), (p1, p2), (p2, p3), (p2, END_OF_PATH), (p3, END_OF_PATH)]);
}

fn traced(toml: &str) -> RunOutput {
    let spec = load_str(toml, "pathlet-test", &[]).expect("scenario");
    run(&spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }).expect("run")
}

/// `(t_ns, flow)` of the events of kind `kind`.
fn events_of(out: &RunOutput, kind: &str) -> Vec<(u64, u32)> {
    let col = |n: &str| &out.events.column(n).unwrap_or_else(|| panic!("events.{n}")).data;
    let (ColumnData::U64(t), ColumnData::U32(f), ColumnData::Dict { codes, values }) = (col("t_ns"), col("flow"), col("kind")) else {
        panic!("events column types")
    };
    (0..t.len()).filter(|&i| values[codes[i] as usize] == kind).map(|i| (t[i], f[i])).collect()
}

/// The chain with a 400 ms bottleneck (an RTT of about 0.8 s, the slow path of 004 §II-C) and,
/// from 10 s for 5 s, a delay spike on s → p1 that holds whatever s sends.
fn slow_path(extra: &str, flows: &str) -> String {
    scenario("pathlet", "10Mbps", false, flows, extra)
        .replace("delay = \"10ms\"", "delay = \"400ms\"")
        .replace("name = \"first\"\n", "name = \"first\"\ndelay_spikes = [{ at = \"10s\", duration = \"5s\" }]\nspike_direction = \"a->b\"\n")
}

/// 004 §II-C: the sender "uses the information from pathlet BJ to set the initial congestion
/// window and retransmission timeout estimate ... the RTO estimate is long enough to avoid
/// spurious timeouts". With `initial_rto`, the second connection's SYN (held by the spike)
/// times out exactly 3 × AVG_RTT after it was sent (RFC 6298 (2.2) with AVG_RTT as the first
/// sample; AVG_RTT as the table had it when the first connection closed), not after RFC 6298's
/// 1 s.
#[test]
fn with_initial_rto_the_first_syn_timeout_is_three_average_rtts_after_the_syn() {
    let first = flow("d1", "0s", "30KB");
    let learnt = go(&slow_path("initial_rto = true", &first));
    let row = learnt.summary.pathlet_tables.iter().max_by(|a, b| a.min_rtt_s.partial_cmp(&b.min_rtt_s).expect("rtt")).expect("rows");
    let avg_ns = (row.avg_rtt_s.expect("AVG_RTT") * 1e9).round() as u64;
    assert!(3 * avg_ns > 2_000_000_000, "an RTO well above 1 s: {avg_ns} ns");
    let both = [first, flow("d1", "10s", "3KB")].concat();
    for (switch, want) in [("initial_rto = true", 10_000_000_000 + 3 * avg_ns), ("initial_rto = false", 11_000_000_000)] {
        let out = traced(&slow_path(switch, &both));
        assert_eq!(out.summary.flows[1].start_s, 10.0);
        let rto: Vec<u64> = events_of(&out, "rto_fired").iter().filter(|e| e.1 == 1).map(|e| e.0).collect();
        assert_eq!(rto.first(), Some(&want), "{switch}: {rto:?}");
        assert_eq!(out.summary.flows[1].bytes_delivered, 3000, "{switch}");
    }
}

/// 004 §II-B SAFE_SSTHRESH, with `ssthresh = true`: a connection opened after congestion starts
/// with the path's smallest SAFE_SSTHRESH as its ssthresh (its `timeseries` row at the SYN-ACK); without the
/// switch it starts with an infinite one. N = 1000 periods keeps SAFE_SSTHRESH until the second
/// connection opens (N clean periods clear it), and that short connection cannot change it (no
/// congestion), so the table at the end holds what it saw.
#[test]
fn with_ssthresh_a_new_connection_starts_from_safe_ssthresh() {
    let flows = [flow("d1", "0s", "300KB"), flow("d1", "3s", "3KB")].concat();
    let first_ssthresh = |out: &RunOutput| -> u64 {
        let col = |n: &str| &out.timeseries.column(n).unwrap_or_else(|| panic!("timeseries.{n}")).data;
        let (ColumnData::U32(f), ColumnData::U64(s)) = (col("flow"), col("ssthresh")) else { panic!("column types") };
        // Rows of the second flow: the SYN's (before the table is consulted), then the SYN-ACK's.
        let rows: Vec<u64> = (0..f.len()).filter(|&i| f[i] == 1).map(|i| s[i]).collect();
        assert!(rows.len() >= 2 && rows[0] == u64::MAX, "{rows:?}");
        rows[1]
    };
    let on = traced(&scenario("pathlet", "2Mbps", false, &flows, "ssthresh = true\nloss_is_congestion = false\nperiods = 1000"));
    assert!(on.summary.flows[0].fct_s.is_some_and(|t| t < 3.0), "the first flow ends before the second starts");
    let safe = on.summary.pathlet_tables.iter().filter_map(|r| r.safe_ssthresh).min().expect("a SAFE_SSTHRESH after the marks");
    assert_eq!(first_ssthresh(&on), safe);
    assert!(safe < 300_000, "{safe}");
    let off = traced(&scenario("pathlet", "2Mbps", false, &flows, "loss_is_congestion = false\nperiods = 1000"));
    assert!(first_ssthresh(&off) > 1 << 40, "{}", first_ssthresh(&off));
}

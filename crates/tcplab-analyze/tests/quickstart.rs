//! Quick-Start options in a capture reach the connection table (issue 12): a simulated
//! transfer through two Quick-Start routers, captured next to the sender, analysed.

const SCENARIO: &str = r#"
[simulation]
duration = "10s"
[tcp]
quick_start = { request = true, rate = "2MB/s" }
[[nodes]]
name = "s"
kind = "host"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "r2"
kind = "router"
[[nodes]]
name = "d"
kind = "host"
[[links]]
name = "a"
a = "s"
b = "r1"
bandwidth = "100Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
a = "r1"
b = "r2"
bandwidth = "10Mbps"
delay = "20ms"
[[links]]
name = "b"
a = "r2"
b = "d"
bandwidth = "100Mbps"
delay = "1ms"
[[flows]]
src = "s"
dst = "d"
size = "100KB"
[[quick_start.routers]]
node = "r1"
[[quick_start.routers]]
node = "r2"
"#;

#[test]
fn the_connection_table_shows_the_requested_and_approved_rates() {
    let spec = tcplab_netsim::scenario::load_str(SCENARIO, "qs", &[]).expect("scenario");
    let dir = std::env::temp_dir().join(format!("tcplab-analyze-qs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    // Captured next to the sender (link "a"): the Request as sent, before r1 lowers it.
    let pcap = dir.join("a.pcap");
    let out = tcplab_netsim::run(&spec, &tcplab_netsim::RunOptions { seed: 1, trace: false, pcap: vec![("a".into(), pcap.clone())] })
        .expect("run");
    let q = out.summary.flows[0].quick_start.as_ref().expect("qs");
    // Idle 10 Mb/s: 0.9 · 1,250,000 → N = 7 (640,000 B/s) at both routers.
    assert_eq!((q.approvals, q.approved_bps), (1, 640_000));
    let a = tcplab_analyze::analyze_paths(&[&pcap], &Default::default()).expect("analyze");
    assert_eq!(a.connections.len(), 1);
    let c = &a.connections[0];
    assert_eq!(c.qs.requested, Some(1_280_000), "the SYN's Request (N = 8)");
    assert_eq!(c.qs.approved, Some(640_000), "the SYN-ACK's Response");
    let t = a.connections_table();
    assert!(t.column("qs_requested_Bps").is_some() && t.column("qs_approved_Bps").is_some());
}

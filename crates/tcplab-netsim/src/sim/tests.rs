//! Simulator tests that need its internals (injecting segments without the engine).

use super::*;
use crate::spec::{FlowSpec, LinkSpec, LossSpec, NodeKind, NodeSpec, QueueSpec};
use tcplab_tcp::{RetransCause, Segment};
use tcplab_time::units::QueueLimit;
use tcplab_time::Bandwidth;

/// h0 —(10 Mb/s, 1 ms)— r1 —(100 Mb/s, 2 ms)— h2, one flow h0 → h2 that never starts (it
/// only makes the routes exist), so packets can be injected by hand.
fn line() -> SimSpec {
    let node = |name: &str, kind| NodeSpec { name: name.into(), kind };
    let link = |name: &str, a, b, bw, ms| LinkSpec {
        name: name.into(),
        a,
        b,
        bandwidth: bw,
        delay: SimDuration::from_millis(ms),
        queue: QueueSpec::DropTail { limit: QueueLimit::Packets(100) },
        loss_ab: LossSpec::None,
        loss_ba: LossSpec::None,
    };
    SimSpec {
        name: "line".into(),
        duration: SimDuration::from_secs(1),
        nodes: vec![node("h0", NodeKind::Host), node("r1", NodeKind::Router), node("h2", NodeKind::Host)],
        links: vec![link("first", 0, 1, Bandwidth::mbps(10), 1), link("second", 1, 2, Bandwidth::mbps(100), 2)],
        routes: vec![],
        flows: vec![FlowSpec {
            src: 0,
            dst: 2,
            start: SimDuration::from_secs(10),
            size: Some(1_000_000),
            tcp: Default::default(),
        }],
        timeseries_interval: None,
        default_seed: crate::scenario::DEFAULT_SEED,
    }
}

/// A data segment of `len` bytes at offset `rel` from the client's ISS.
fn data(sim: &Sim<'_>, rel: u32, len: u32) -> Segment {
    Segment { seq: sim.endpoints[0].iss + rel, len, flags: TcpFlags::ACK, ..Segment::default() }
}

fn opts(trace: bool) -> RunOptions {
    RunOptions { seed: 1, trace, pcap: vec![] }
}

#[test]
fn events_pack_into_a_u64_and_back() {
    for ev in [
        Event::Arrive(7),
        Event::CaptureTx(u32::MAX),
        Event::Wake { ep: (1 << 28) - 1, gen: u32::MAX },
        Event::Wake { ep: 3, gen: 0 },
        Event::FlowStart(12),
        Event::Sample,
    ] {
        assert_eq!(Event::unpack(ev.pack()), ev);
    }
}

#[test]
fn one_packet_crosses_two_links_after_serialisation_and_propagation_at_exact_nanoseconds() {
    let spec = line();
    let mut sim = Sim::new(&spec, &opts(false)).unwrap();
    let seg = data(&sim, 1, 1000); // 20 + 20 + 1000 = 1040 bytes on the wire
    sim.emit(0, Transmit { segment: seg, retransmission: None });
    sim.emit(0, Transmit { segment: seg, retransmission: None });
    sim.run_loop().unwrap();
    // First hop: 1040 B at 10 Mb/s = 832 µs, + 1 ms; second: 83.2 µs + 2 ms.
    let first = 832_000 + 1_000_000 + 83_200 + 2_000_000;
    // The second packet waits 832 µs behind the first on the slow link.
    assert_eq!(sim.delivered, vec![(SimTime(first), 0), (SimTime(first + 832_000), 1)]);
    assert_eq!(sim.links[0].stats.packets, 2);
    assert_eq!(sim.links[2].stats.bytes, 2080);
}

#[test]
fn a_full_queue_drops_packets_and_records_why() {
    let mut spec = line();
    spec.links[0].queue = QueueSpec::DropTail { limit: QueueLimit::Packets(1) };
    let mut sim = Sim::new(&spec, &opts(true)).unwrap();
    for i in 0..5 {
        let seg = data(&sim, 1 + 1000 * i, 1000);
        sim.emit(0, Transmit { segment: seg, retransmission: None });
    }
    sim.run_loop().unwrap();
    assert_eq!(sim.delivered.iter().map(|d| d.1).collect::<Vec<_>>(), vec![0, 1]);
    let out = sim.finish(&opts(true)).unwrap();
    assert_eq!(out.summary.links[0].drops_ab, 3);
    assert_eq!(out.summary.links[0].max_queue_ab, 1);
    let ColumnData::Dict { codes, values } = &out.events.column("reason").unwrap().data else { panic!() };
    let valid = out.events.column("reason").unwrap().valid.clone().unwrap();
    let reasons: Vec<&str> =
        codes.iter().zip(valid).filter(|(_, v)| *v).map(|(c, _)| values[*c as usize].as_str()).collect();
    assert_eq!(reasons, vec!["queue_full"; 3]);
}

#[test]
fn drop_nth_on_a_link_drops_exactly_the_listed_data_segments_in_the_simulator() {
    let mut spec = line();
    spec.links[1].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![2, 4] };
    let mut sim = Sim::new(&spec, &opts(false)).unwrap();
    for i in 0..5 {
        let seg = data(&sim, 1 + 1000 * i, 1000);
        sim.emit(0, Transmit { segment: seg, retransmission: None });
    }
    sim.run_loop().unwrap();
    assert_eq!(sim.delivered.iter().map(|d| d.1).collect::<Vec<_>>(), vec![0, 2, 4]);
    assert_eq!(sim.links[2].stats.drops_loss, 2);
}

#[test]
fn a_retransmission_overtaken_by_its_late_original_is_counted_spurious_and_flagged_in_events() {
    let spec = line();
    let mut sim = Sim::new(&spec, &opts(true)).unwrap();
    let seg = data(&sim, 1, 1000);
    sim.emit(0, Transmit { segment: seg, retransmission: None });
    sim.emit(0, Transmit { segment: seg, retransmission: Some(RetransCause::Rto) });
    let other = data(&sim, 1001, 1000);
    sim.emit(0, Transmit { segment: other, retransmission: Some(RetransCause::FastRetransmit) });
    sim.run_loop().unwrap();
    let out = sim.finish(&opts(true)).unwrap();
    assert_eq!(out.summary.flows[0].spurious_retransmissions, 1);
    let sp = out.events.column("spurious").unwrap();
    assert_eq!(sp.data, ColumnData::Bool(vec![false, true, false]));
    assert_eq!(sp.valid, Some(vec![false, true, true]));
    assert_eq!(out.events.column("seq").unwrap().data, ColumnData::U64(vec![1, 1, 1001]));
}

#[test]
fn a_captured_link_writes_one_pcap_record_per_transmitted_packet() {
    let spec = line();
    let path = std::env::temp_dir().join(format!("tcplab-netsim-{}-capture.pcap", std::process::id()));
    let o = RunOptions { seed: 1, trace: false, pcap: vec![("second".into(), path.clone())] };
    let mut sim = Sim::new(&spec, &o).unwrap();
    for i in 0..3 {
        let seg = data(&sim, 1 + 1000 * i, 1000);
        sim.emit(0, Transmit { segment: seg, retransmission: None });
    }
    sim.run_loop().unwrap();
    sim.finish(&o).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(bytes.len(), 24 + 3 * (16 + 40));
}

#[test]
fn an_unknown_pcap_link_is_an_error_listing_the_links() {
    let o = RunOptions { seed: 1, trace: false, pcap: vec![("x".into(), "/nonexistent/x.pcap".into())] };
    let e = run(&line(), &o).unwrap_err().to_string();
    assert_eq!(e, "pcap: no link named \"x\"; links are: first, second");
}

#[test]
fn a_pcap_file_that_cannot_be_created_is_an_error_naming_it() {
    let o = RunOptions { seed: 1, trace: false, pcap: vec![("first".into(), "/nonexistent/dir/x.pcap".into())] };
    let e = run(&line(), &o).unwrap_err().to_string();
    assert!(e.starts_with("pcap: cannot create \"/nonexistent/dir/x.pcap\""), "{e}");
}

#[test]
fn a_flow_to_an_unreachable_host_is_a_no_route_error_naming_the_field() {
    let mut spec = line();
    spec.nodes.push(NodeSpec { name: "d9".into(), kind: NodeKind::Host });
    spec.flows.push(FlowSpec { dst: 3, ..spec.flows[0].clone() });
    let e = run(&spec, &opts(false)).unwrap_err().to_string();
    assert_eq!(e, "flows[1].dst: no route from \"h0\" to \"d9\"");
}

#[test]
fn invalid_specs_are_rejected_with_one_line_naming_the_field() {
    let mut spec = line();
    spec.flows[0].dst = 1;
    assert_eq!(
        run(&spec, &opts(false)).unwrap_err().to_string(),
        "flows[0].dst: node \"r1\" is a router; flows run between hosts"
    );
    let mut spec = line();
    spec.links[1].loss_ba = LossSpec::Bernoulli { p: -0.5 };
    assert_eq!(
        run(&spec, &opts(false)).unwrap_err().to_string(),
        "links[1].loss_ba: probability p = -0.5 is outside [0, 1]"
    );
    let mut spec = line();
    spec.links[1].b = 7;
    assert_eq!(run(&spec, &opts(false)).unwrap_err().to_string(), "links[1].b: node index 7 out of range (3 nodes)");
}

#[test]
fn two_runs_of_the_same_spec_and_seed_give_identical_summaries_and_tables() {
    let mut spec = crate::bench::dumbbell(
        3,
        Bandwidth::gbps(1),
        SimDuration::from_millis(1),
        Bandwidth::mbps(10),
        SimDuration::from_millis(10),
        QueueLimit::Packets(20),
        Default::default(),
        SimDuration::from_secs(2),
    );
    spec.links[0].loss_ab = LossSpec::Bernoulli { p: 0.02 };
    spec.flows[1].size = Some(200_000);
    let a = run(&spec, &opts(true)).unwrap();
    let b = run(&spec, &opts(true)).unwrap();
    assert_eq!(serde_json::to_string(&a.summary).unwrap(), serde_json::to_string(&b.summary).unwrap());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.events, b.events);
    assert_eq!(a.timeseries, b.timeseries);
}

#[test]
fn the_run_ends_at_the_duration_or_when_nothing_is_left_to_do() {
    let spec = line(); // the only flow starts after the end
    let out = run(&spec, &opts(false)).unwrap();
    assert_eq!(out.summary.events, 0);
    assert_eq!(out.summary.sim_time_s, 0.0);
    assert_eq!(out.summary.flows[0].retransmissions_by_cause.len(), 4);
    assert_eq!(out.events.num_rows(), 0);
    assert!(out.events.column("spurious").is_some(), "empty tables keep their columns");
}

use tcplab_record::ColumnData;

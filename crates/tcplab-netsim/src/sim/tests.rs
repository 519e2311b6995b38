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
        dynamics: Default::default(),
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
        workloads: Vec::new(),
        timeseries_interval: None,
        default_seed: crate::scenario::DEFAULT_SEED,
        quick_start: Default::default(),
        pathlet: Default::default(),
        host_cache: Default::default(),
    }
}

/// The simulator for `spec` with flow 0's endpoints open (its data not written), so that
/// tests can inject segments from endpoint 0 before (or without) its start.
fn open_sim<'a>(spec: &'a SimSpec, o: &RunOptions) -> Sim<'a> {
    let mut sim = Sim::new(spec, o).unwrap();
    sim.draw_initial();
    sim.open(0);
    sim
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
        Event::ArriveReordered { dir: u32::MAX, gen: reorder::MAX_GEN },
        Event::ArriveReordered { dir: 0, gen: 1 },
        Event::CaptureTx { cap: (1 << 28) - 1, id: u32::MAX },
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
    let mut sim = open_sim(&spec, &opts(false));
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
    let mut sim = open_sim(&spec, &opts(true));
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
    let mut sim = open_sim(&spec, &opts(false));
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
    let mut sim = open_sim(&spec, &opts(true));
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
    let mut sim = open_sim(&spec, &o);
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

/// The TCP option kinds of the pcap record at byte `off` (IPv4 without options), in wire order.
fn syn_option_kinds(bytes: &[u8], off: usize) -> Vec<u8> {
    let tcp = &bytes[off + 16 + 20..];
    let end = usize::from(tcp[12] >> 4) * 4;
    let (mut i, mut kinds) = (20, Vec::new());
    while i < end {
        kinds.push(tcp[i]);
        i += if tcp[i] <= 1 { 1 } else { usize::from(tcp[i + 1]) };
    }
    kinds
}

/// A connection's SYN is captured with its sender's profile's TTL and option layout
/// (`tcplab_tcp::profile::SynOptionLayout`; p0f olayouts in the comments), and so is the
/// SYN-ACK (both endpoints run the flow's settings).
#[test]
fn a_captured_syn_carries_its_sender_profile_s_ttl_and_option_layout() {
    let cases: [(&str, u8, &[u8]); 4] = [
        ("linux", 64, &[2, 4, 8, 1, 3]),                 // mss,sok,ts,nop,ws
        ("freebsd-5", 64, &[2, 1, 1, 4, 1, 3, 1, 1, 8]), // mss,nop,nop,sok,nop,ws,nop,nop,ts
        ("windows-xp", 128, &[2, 1, 3, 1, 1, 8, 1, 1, 4]), // mss,nop,ws,nop,nop,ts,nop,nop,sok
        ("solaris-10", 64, &[1, 1, 8, 2, 1, 3, 1, 1, 4]), // nop,nop,ts,mss,nop,ws,nop,nop,sok
    ];
    for (profile, ttl, kinds) in cases {
        let mut spec = line();
        let mut t = tcplab_tcp::TcpConfig { sack: true, timestamps: true, window_scale: true, ..Default::default() };
        tcplab_tcp::Profile::by_name(profile).unwrap().apply(&mut t);
        spec.flows[0].tcp = t;
        spec.flows[0].start = SimDuration::ZERO;
        spec.flows[0].size = Some(1000);
        let path = std::env::temp_dir().join(format!("tcplab-netsim-{}-syn-{profile}.pcap", std::process::id()));
        let o = RunOptions { seed: 1, trace: false, pcap: vec![("first".into(), path.clone())] };
        run(&spec, &o).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(bytes[24 + 16 + 20 + 13] & 0x12, 0x02, "{profile}: first record is the SYN");
        assert_eq!(bytes[24 + 16 + 8], ttl, "{profile}: TTL");
        assert_eq!(syn_option_kinds(&bytes, 24), kinds, "{profile}");
        // The SYN-ACK (second record on this link, the other way): the receiver's layout.
        let second = 24 + 16 + usize::try_from(u32::from_le_bytes(bytes[24 + 8..24 + 12].try_into().unwrap())).unwrap();
        assert_eq!(bytes[second + 16 + 20 + 13] & 0x12, 0x12, "{profile}: SYN-ACK");
        assert_eq!(syn_option_kinds(&bytes, second), kinds, "{profile}: SYN-ACK");
    }
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
    assert_eq!(out.summary.flows[0].retransmissions_by_cause.len(), tcplab_tcp::RetransCause::ALL.len());
    assert_eq!(out.events.num_rows(), 0);
    assert!(out.events.column("spurious").is_some(), "empty tables keep their columns");
}

use tcplab_record::ColumnData;

// ---------------------------------------------------------------------------------------------
// Wireless dynamics: delay spikes and bandwidth changes (see `delay_spike`, `bandwidth_schedule`).

use crate::spec::{DelaySpikeSpec, LinkDynamics, SpikeDirection};

/// Spikes at fixed times on link `link` of `spec`.
fn spikes(spec: &mut SimSpec, link: usize, list: &[(u64, u64)], direction: SpikeDirection, buffer: Option<u64>) {
    spec.links[link].dynamics = LinkDynamics {
        delay_spikes: DelaySpikeSpec::Fixed(
            list.iter().map(|&(s, d)| (SimDuration::from_nanos(s), SimDuration::from_nanos(d))).collect(),
        ),
        spike_direction: direction,
        link_buffer: buffer,
        ..LinkDynamics::default()
    };
}

/// Emits `n` 1000-byte data segments from the client at time 0 and runs.
fn deliveries(spec: &SimSpec, n: u32) -> Vec<(SimTime, u64)> {
    let mut sim = open_sim(spec, &opts(false));
    for i in 0..n {
        let seg = data(&sim, 1 + 1000 * i, 1000);
        sim.emit(0, Transmit { segment: seg, retransmission: None });
    }
    sim.run_loop().unwrap();
    sim.delivered
}

// Without spikes (see the first test above): 1040 B take 832 µs on "first" (10 Mb/s, 1 ms)
// and 83.2 µs on "second" (100 Mb/s, 2 ms); deliveries at 3 915 200 ns + k · 832 000 ns.
const D0: u64 = 832_000 + 1_000_000 + 83_200 + 2_000_000;

#[test]
fn a_spike_holds_packets_arriving_during_it_and_releases_them_in_order_at_its_end() {
    let mut spec = line();
    // "second", a → b, stalls over [4 ms, 6 ms): packets 1 and 2 (4 747 200, 5 579 200) wait.
    spikes(&mut spec, 1, &[(4_000_000, 2_000_000)], SpikeDirection::AtoB, None);
    assert_eq!(
        deliveries(&spec, 4),
        vec![(SimTime(D0), 0), (SimTime(6_000_000), 1), (SimTime(6_000_000), 2), (SimTime(D0 + 3 * 832_000), 3)]
    );
}

#[test]
fn a_spike_on_the_other_direction_leaves_data_untouched() {
    let mut spec = line();
    spikes(&mut spec, 1, &[(4_000_000, 2_000_000)], SpikeDirection::BtoA, None);
    let want: Vec<(SimTime, u64)> = (0..4).map(|k| (SimTime(D0 + k * 832_000), k)).collect();
    assert_eq!(deliveries(&spec, 4), want);
    let sim = open_sim(&spec, &opts(false));
    assert!(sim.links[2].dynamics.is_none(), "a → b of \"second\" has nothing to do");
    assert!(sim.links[3].dynamics.is_some());
}

#[test]
fn with_a_full_link_buffer_the_next_packet_waits_in_the_queue_until_the_spike_ends() {
    let mut spec = line();
    // "first" stalls over [2 ms, 10 ms) with no link-layer room: packets 1 and 2 (started
    // before 2 ms) are held; packet 3 would start at 2.496 ms, inside the spike, so it waits
    // until 10 ms, then takes 832 µs + 1 ms to r1 and 83.2 µs + 2 ms to h2.
    spikes(&mut spec, 0, &[(2_000_000, 8_000_000)], SpikeDirection::Both, Some(0));
    assert_eq!(
        deliveries(&spec, 4),
        vec![
            (SimTime(D0), 0),
            (SimTime(10_000_000 + 2_083_200), 1),
            (SimTime(10_000_000 + 2_166_400), 2),
            (SimTime(10_000_000 + 832_000 + 1_000_000 + 2_083_200), 3),
        ]
    );
}

#[test]
fn a_bandwidth_change_applies_to_packets_that_start_after_it_and_a_packet_in_progress_finishes_at_the_old_rate() {
    let mut spec = line();
    spec.links[0].dynamics.bandwidth_schedule = vec![(SimDuration::from_millis(1), Bandwidth::mbps(5))];
    // Packet 1 starts at 832 µs (before the change at 1 ms) and straddles it at 10 Mb/s;
    // packet 2 starts at 1 664 µs at 5 Mb/s: 1 664 µs, done at 3 328 µs.
    assert_eq!(
        deliveries(&spec, 3),
        vec![(SimTime(D0), 0), (SimTime(D0 + 832_000), 1), (SimTime(3_328_000 + 1_000_000 + 83_200 + 2_000_000), 2)]
    );
}

#[test]
fn invalid_dynamics_are_rejected_with_one_line_naming_the_field() {
    let mut spec = line();
    spec.links[1].dynamics.bandwidth_schedule =
        vec![(SimDuration::from_secs(2), Bandwidth::mbps(1)), (SimDuration::from_secs(1), Bandwidth::mbps(2))];
    assert_eq!(
        run(&spec, &opts(false)).unwrap_err().to_string(),
        "links[1].bandwidth_schedule[1].at: 1s is not after the previous step (2s)"
    );
    let mut spec = line();
    spec.links[0].dynamics.delay_spikes = DelaySpikeSpec::Periodic {
        first: SimDuration::ZERO,
        period: SimDuration::from_nanos(1),
        duration: SimDuration::from_nanos(1),
        count: None,
    };
    assert_eq!(
        run(&spec, &opts(false)).unwrap_err().to_string(),
        "links[0].delay_spikes.period: would give more than 1000000 spikes in 1s"
    );
}

/// A GPRS-like path after Sarolahti Ch. 4 (L2409–2415, L2440–2441, L2490–2491): "a bandwidth
/// of 28,800 bps and a propagation delay of 200 ms", MTU 296 (MSS 256), fixed side a fast LAN.
/// The router queue is made large here so that nothing is lost: every retransmission is then
/// unnecessary and the ground truth must say so.
fn gprs_like(spike_at_s: u64, spike_s: u64, direction: SpikeDirection) -> SimSpec {
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
        dynamics: LinkDynamics::default(),
    };
    let tcp = tcplab_tcp::TcpConfig { mss: 256, timestamps: false, ..Default::default() };
    let mut spec = SimSpec {
        name: "gprs-like".into(),
        duration: SimDuration::from_secs(120),
        nodes: vec![node("fixed", NodeKind::Host), node("r", NodeKind::Router), node("mobile", NodeKind::Host)],
        links: vec![link("lan", 0, 1, Bandwidth::mbps(100), 1), link("wireless", 1, 2, Bandwidth::bps(28_800), 200)],
        routes: vec![],
        flows: vec![FlowSpec { src: 0, dst: 2, start: SimDuration::ZERO, size: Some(20 * 1024), tcp }],
        workloads: Vec::new(),
        timeseries_interval: None,
        default_seed: crate::scenario::DEFAULT_SEED,
        quick_start: Default::default(),
        pathlet: Default::default(),
        host_cache: Default::default(),
    };
    spikes(&mut spec, 1, &[(spike_at_s * 1_000_000_000, spike_s * 1_000_000_000)], direction, None);
    spec
}

/// Rows of `kind` in the events table: (t_ns, spurious) with spurious as Option.
fn rows(out: &RunOutput, kind: &str) -> Vec<(u64, Option<bool>, String)> {
    let ColumnData::Dict { codes, values } = &out.events.column("kind").unwrap().data else { panic!() };
    let ColumnData::U64(t) = &out.events.column("t_ns").unwrap().data else { panic!() };
    let sp = out.events.column("spurious").unwrap();
    let ColumnData::Bool(spv) = &sp.data else { panic!() };
    let valid = sp.valid.clone().unwrap_or_else(|| vec![true; t.len()]);
    let c = out.events.column("cause").unwrap();
    let ColumnData::Dict { codes: cc, values: cv } = &c.data else { panic!() };
    let cvalid = c.valid.clone().unwrap_or_else(|| vec![true; t.len()]);
    (0..t.len())
        .filter(|&i| values[codes[i] as usize] == kind)
        .map(|i| (t[i], valid[i].then_some(spv[i]), if cvalid[i] { cv[cc[i] as usize].clone() } else { String::new() }))
        .collect()
}

/// Sarolahti L888–918: a delay spike longer than the RTO holds segments "without losing them"
/// and the RTO expires "even though nothing was lost". Here the data direction of the wireless
/// link stalls for 6 s at t = 4 s: the sender times out during the spike, its retransmissions
/// queue behind the held originals, and the originals arrive first, at the end of the spike.
#[test]
fn an_rto_during_a_data_spike_longer_than_the_rto_gives_retransmissions_the_ground_truth_calls_spurious() {
    let spec = gprs_like(4, 6, SpikeDirection::AtoB);
    let out = run(&spec, &opts(true)).unwrap();
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, 20 * 1024, "{f:?}");
    assert_eq!(out.summary.links[1].drops_ab + out.summary.links[0].drops_ab, 0, "nothing is lost");
    assert!(f.timeouts >= 1, "{f:?}");
    assert!(f.retransmissions >= 1, "{f:?}");
    assert_eq!(f.spurious_retransmissions, f.retransmissions, "with no loss every retransmission is spurious: {f:?}");
    let (t0, t1) = (4_000_000_000, 10_000_000_000);
    let rtos = rows(&out, "rto_fired");
    assert!(rtos.iter().any(|r| (t0..t1).contains(&r.0)), "an RTO fires during the spike: {rtos:?}");
    let rexmits = rows(&out, "segment_retransmitted");
    assert!(rexmits.iter().all(|r| r.1 == Some(true)), "{rexmits:?}");
    assert!(rexmits.iter().any(|r| (t0..t1).contains(&r.0) && r.2 == "rto"), "{rexmits:?}");
    let stalls = rows(&out, "link_stall_start");
    assert_eq!(stalls.iter().map(|r| r.0).collect::<Vec<_>>(), vec![t0]);
    assert_eq!(rows(&out, "link_stall_end").iter().map(|r| r.0).collect::<Vec<_>>(), vec![t1]);
    println!(
        "data spike [4 s, 10 s): timeouts {}, retransmissions {}, spurious {}, fct {:?}",
        f.timeouts, f.retransmissions, f.spurious_retransmissions, f.fct_s
    );
}

/// The same spike on the ACK direction only: every data segment arrives in time, the ACKs are
/// held, the sender times out and retransmits data the receiver already has — spurious at once.
#[test]
fn an_rto_during_a_spike_that_holds_only_acks_retransmits_data_already_received_and_is_spurious() {
    let spec = gprs_like(4, 6, SpikeDirection::BtoA);
    let out = run(&spec, &opts(true)).unwrap();
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, 20 * 1024, "{f:?}");
    assert_eq!(out.summary.links[1].drops_ab + out.summary.links[1].drops_ba, 0);
    assert!(f.timeouts >= 1, "{f:?}");
    assert!(f.retransmissions >= 1, "{f:?}");
    assert_eq!(f.spurious_retransmissions, f.retransmissions, "{f:?}");
    let rexmits = rows(&out, "segment_retransmitted");
    assert!(rexmits.iter().any(|r| (4_000_000_000..10_000_000_000).contains(&r.0) && r.2 == "rto"), "{rexmits:?}");
    println!(
        "ACK spike [4 s, 10 s): timeouts {}, retransmissions {}, spurious {}, fct {:?}",
        f.timeouts, f.retransmissions, f.spurious_retransmissions, f.fct_s
    );
}

#[test]
fn without_the_spike_the_same_transfer_needs_no_retransmission() {
    let mut spec = gprs_like(4, 6, SpikeDirection::AtoB);
    spec.links[1].dynamics = LinkDynamics::default();
    let out = run(&spec, &opts(false)).unwrap();
    let f = &out.summary.flows[0];
    assert_eq!((f.timeouts, f.retransmissions, f.spurious_retransmissions), (0, 0, 0), "{f:?}");
}

// ---------------------------------------------------------------------------------------------
// Packet reordering (see `reorder`).

use crate::spec::ReorderSpec;
use reorder::ReorderModel;

/// Reordering of "second", a → b (link 1, direction 0) in `line()`.
fn reordered_line(p: f64, extra_ms: u64) -> SimSpec {
    let mut spec = line();
    spec.links[1].dynamics.reorder_ab =
        Some(ReorderSpec { p, extra: SimDuration::from_millis(extra_ms), jitter: SimDuration::ZERO });
    spec
}

/// The extra delays "second" a → b draws for its first `n` packets with run seed 1 (the link
/// draws once per packet that starts transmission, in order).
fn drawn(spec: &SimSpec, n: usize) -> Vec<SimDuration> {
    let r = spec.links[1].dynamics.reorder_ab.unwrap_or_default();
    let mut m = ReorderModel::new(&r, opts(false).seed, 1, 0);
    (0..n).map(|_| m.extra_delay()).collect()
}

#[test]
fn a_reordered_packet_arrives_extra_late_at_exact_nanoseconds_and_is_overtaken() {
    // Seed 1 picks packets 2 and 3 of 6 (p = 0.3; the model's own draws, checked here).
    let spec = reordered_line(0.3, 2);
    let picks: Vec<bool> = drawn(&spec, 6).iter().map(|d| *d > SimDuration::ZERO).collect();
    assert_eq!(picks, vec![false, false, true, true, false, false]);
    // Packet k would arrive at D0 + k · 832 µs; packets 2 and 3 arrive 2 ms later. Packet 4
    // (sent 832 µs after 3 and 1664 µs after 2) overtakes both; packet 5 (2496 µs after 2,
    // more than 2 ms) does not overtake 2 but overtakes 3 (1664 µs after it).
    assert_eq!(
        deliveries(&spec, 6),
        vec![
            (SimTime(D0), 0),
            (SimTime(D0 + 832_000), 1),
            (SimTime(D0 + 4 * 832_000), 4),
            (SimTime(D0 + 2 * 832_000 + 2_000_000), 2),
            (SimTime(D0 + 5 * 832_000), 5),
            (SimTime(D0 + 3 * 832_000 + 2_000_000), 3),
        ]
    );
}

#[test]
fn every_packet_arrives_once_picked_ones_after_every_packet_sent_up_to_extra_later() {
    let n = 80; // fits the 100-packet queue of "first"
    let extra = 5;
    let spec = reordered_line(0.1, extra);
    let got = deliveries(&spec, n);
    let d = drawn(&spec, n as usize);
    // No packet lost or duplicated.
    let mut ids: Vec<u64> = got.iter().map(|g| g.1).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..u64::from(n)).collect::<Vec<_>>());
    // Each arrives at its FIFO time plus its draw, and deliveries are in time order.
    for &(t, k) in &got {
        assert_eq!(t, SimTime(D0 + k * 832_000) + d[k as usize], "packet {k}");
    }
    assert!(got.windows(2).all(|w| w[0].0 <= w[1].0));
    let pos = |k: u64| got.iter().position(|g| g.1 == k).unwrap_or(usize::MAX);
    let picked: Vec<u64> = (0..u64::from(n)).filter(|&k| d[k as usize] > SimDuration::ZERO).collect();
    assert!(picked.len() >= 3, "seed 1 picks a few packets: {picked:?}");
    for &i in &picked {
        // Every unpicked packet sent less than `extra` after i (its FIFO arrival is earlier
        // than i's delayed one) arrives before i; every packet sent before i arrives before i.
        for j in 0..u64::from(n) {
            let overtakes = j > i && !picked.contains(&j) && (j - i) * 832_000 < extra * 1_000_000;
            if overtakes || (j < i && !picked.contains(&j)) {
                assert!(pos(j) < pos(i), "packet {j} before picked packet {i}");
            }
            if j > i && (j - i) * 832_000 > extra * 1_000_000 {
                assert!(pos(j) > pos(i), "packet {j} after picked packet {i}");
            }
        }
    }
}

// reorder "Deterministic picks": the 2nd and 4th data packets of flow 0 on "second" a → b
// arrive exactly 2 ms late (no draw), packets sent in between overtake them.
#[test]
fn nth_picks_delay_exactly_the_listed_packets_at_exact_nanoseconds() {
    let mut spec = line();
    spec.links[1].dynamics.reorder_nth_ab =
        Some(crate::spec::ReorderNthSpec { flow: 0, nth: vec![2, 4], extra: SimDuration::from_millis(2) });
    // Packet k (0-based) is occurrence k + 1; 1 and 3 are held 2 ms (more than two packet gaps).
    assert_eq!(
        deliveries(&spec, 6),
        vec![
            (SimTime(D0), 0),
            (SimTime(D0 + 2 * 832_000), 2),
            (SimTime(D0 + 832_000 + 2_000_000), 1),
            (SimTime(D0 + 4 * 832_000), 4),
            (SimTime(D0 + 5 * 832_000), 5),
            (SimTime(D0 + 3 * 832_000 + 2_000_000), 3),
        ]
    );
}

/// A dumbbell with a 10 Mb/s bottleneck, one 2 MB and two bulk flows, optional loss.
fn reorder_dumbbell(r: Option<ReorderSpec>, loss: f64) -> SimSpec {
    let mut spec = crate::bench::dumbbell(
        3,
        Bandwidth::mbps(100),
        SimDuration::from_millis(1),
        Bandwidth::mbps(10),
        SimDuration::from_millis(10),
        QueueLimit::Packets(50),
        Default::default(),
        SimDuration::from_secs(3),
    );
    spec.links[0].loss_ab = if loss > 0.0 { LossSpec::Bernoulli { p: loss } } else { LossSpec::None };
    spec.links[0].dynamics.reorder_ab = r;
    spec.flows[1].size = Some(2_000_000);
    spec
}

fn assert_same_outputs(a: &RunOutput, b: &RunOutput) {
    assert_eq!(serde_json::to_string(&a.summary).unwrap(), serde_json::to_string(&b.summary).unwrap());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.events, b.events);
    assert_eq!(a.timeseries, b.timeseries);
}

#[test]
fn a_reordering_model_with_p_zero_gives_exactly_the_run_without_it() {
    // The heap and the generation-tagged events run, but nothing is ever picked.
    let zero = ReorderSpec { p: 0.0, extra: SimDuration::from_millis(5), jitter: SimDuration::ZERO };
    for loss in [0.0, 0.01] {
        let with = run(&reorder_dumbbell(Some(zero), loss), &opts(true)).unwrap();
        let without = run(&reorder_dumbbell(None, loss), &opts(true)).unwrap();
        assert_same_outputs(&with, &without);
    }
}

#[test]
fn two_reordering_runs_with_the_same_seed_are_identical_and_another_seed_differs() {
    let r = ReorderSpec { p: 0.02, extra: SimDuration::from_millis(5), jitter: SimDuration::from_micros(500) };
    let spec = reorder_dumbbell(Some(r), 0.01);
    let a = run(&spec, &opts(true)).unwrap();
    let b = run(&spec, &opts(true)).unwrap();
    assert_same_outputs(&a, &b);
    let c = run(&spec, &RunOptions { seed: 2, ..opts(true) }).unwrap();
    assert_ne!(a.events, c.events);
    // Reordering changed the run (and the loss stream is the same one as without it).
    let plain = run(&reorder_dumbbell(None, 0.01), &opts(true)).unwrap();
    assert_ne!(a.events, plain.events);
}

/// Ground truth with reordering: a retransmission is spurious iff every byte reached the
/// receiver in a copy sent earlier, even when that copy arrives after the retransmission.
#[test]
fn a_retransmission_that_overtakes_its_reordered_original_is_spurious() {
    // p = 0.3, seed 1: packets 2 and 3 are held back 2 ms (see the exact-time test).
    let spec = reordered_line(0.3, 2);
    let mut sim = open_sim(&spec, &opts(true));
    let seg = |sim: &Sim<'_>, k: u32| data(sim, 1 + 1000 * k, 1000);
    for k in 0..4 {
        let s = seg(&sim, k);
        sim.emit(0, Transmit { segment: s, retransmission: None }); // copies 0..=3; 2 is late
    }
    let b = seg(&sim, 2);
    sim.emit(0, Transmit { segment: b, retransmission: Some(RetransCause::FastRetransmit) }); // copy 4
    sim.run_loop().unwrap();
    assert_eq!(
        sim.delivered.iter().map(|d| d.1).collect::<Vec<_>>(),
        vec![0, 1, 4, 2, 3],
        "the retransmission arrives before its original"
    );
    let out = sim.finish(&opts(true)).unwrap();
    assert_eq!(out.summary.flows[0].spurious_retransmissions, 1);
    let sp = out.events.column("spurious").unwrap();
    assert_eq!(sp.data, ColumnData::Bool(vec![false, false, false, false, true]));
    assert_eq!(sp.valid, Some(vec![false, false, false, false, true]));
}

#[test]
fn with_reordering_and_no_loss_every_retransmission_is_spurious() {
    // 1 % of data packets on the bottleneck 5 ms late (about 4 packets at 10 Mb/s): DupThresh 3
    // fires fast retransmits that are all unnecessary. Flows limited so the queue never drops.
    let r = ReorderSpec { p: 0.01, extra: SimDuration::from_millis(5), jitter: SimDuration::ZERO };
    let mut spec = reorder_dumbbell(Some(r), 0.0);
    spec.links[0].queue = QueueSpec::DropTail { limit: QueueLimit::Packets(10_000) };
    spec.duration = SimDuration::from_secs(10);
    let out = run(&spec, &opts(true)).unwrap();
    let drops: u64 = out.summary.links.iter().map(|l| l.drops_ab + l.drops_ba).sum();
    assert_eq!(drops, 0);
    let (re, sp): (u64, u64) =
        out.summary.flows.iter().fold((0, 0), |(r, s), f| (r + f.retransmissions, s + f.spurious_retransmissions));
    assert!(re >= 3, "reordering by ≥ 3 packets triggers fast retransmits: {re}");
    assert_eq!(sp, re, "nothing was lost, so every retransmission is spurious");
    let rexmits = rows(&out, "segment_retransmitted");
    assert!(rexmits.iter().all(|r| r.1 == Some(true)), "{rexmits:?}");
}

#[test]
fn a_captured_reordering_link_records_packets_in_send_order_when_they_start_transmission() {
    // p = 0.3, seed 1: packets 2 and 3 are held back 2 ms on "second" (exact-time test above).
    let spec = reordered_line(0.3, 2);
    let path = std::env::temp_dir().join(format!("tcplab-netsim-{}-reorder-capture.pcap", std::process::id()));
    let o = RunOptions { seed: 1, trace: false, pcap: vec![("second".into(), path.clone())] };
    let mut sim = open_sim(&spec, &o);
    for i in 0..6 {
        let seg = data(&sim, 1 + 1000 * i, 1000);
        sim.emit(0, Transmit { segment: seg, retransmission: None });
    }
    sim.run_loop().unwrap();
    assert_eq!(sim.delivered.iter().map(|d| d.1).collect::<Vec<_>>(), vec![0, 1, 4, 2, 5, 3]);
    sim.finish(&o).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(bytes.len(), 24 + 6 * (16 + 40));
    // Record k: timestamp (s, ns: nanosecond pcap) at offset 24 + 56 k; "second" starts
    // packet k at 832 µs · (k + 1) + 1 ms (after "first"): in send order, not arrival order.
    for k in 0..6usize {
        let at = 24 + 56 * k;
        let ns = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap());
        assert_eq!(u64::from(ns), 832_000 * (k as u64 + 1) + 1_000_000, "record {k}");
    }
}

#[test]
fn with_a_delay_spike_the_extra_delay_of_a_reordered_packet_counts_from_its_release() {
    // "second", a → b: packets 1 and 2 (4 747 200, 5 579 200) are held to 6 ms by the spike;
    // packets 2 and 3 are picked (p = 0.3, seed 1) and arrive 2 ms after they otherwise would.
    let mut spec = reordered_line(0.3, 2);
    let reorder = spec.links[1].dynamics.reorder_ab;
    spikes(&mut spec, 1, &[(4_000_000, 2_000_000)], SpikeDirection::AtoB, None);
    spec.links[1].dynamics.reorder_ab = reorder;
    assert_eq!(
        deliveries(&spec, 6),
        vec![
            (SimTime(D0), 0),
            (SimTime(6_000_000), 1),
            (SimTime(D0 + 4 * 832_000), 4),
            (SimTime(8_000_000), 2),
            (SimTime(D0 + 5 * 832_000), 5),
            (SimTime(D0 + 3 * 832_000 + 2_000_000), 3),
        ]
    );
}

/// RED on the first link with avg = q (w_q = 1), thresholds 1 and 3 packets.
fn red_line(hard_drop: bool) -> SimSpec {
    let mut spec = line();
    let red = crate::spec::RedSpec { min_th: 1.0, max_th: 3.0, w_q: 1.0, hard_drop, ..Default::default() };
    spec.links[0].queue = QueueSpec::Red { limit: QueueLimit::Packets(100), red };
    spec
}

/// Ten back-to-back 1040-byte packets from h0, ECN-capable or not; returns the run's output.
fn burst_through_red(spec: &SimSpec, ecn: Ecn) -> (Vec<(SimTime, u64)>, RunOutput) {
    let mut sim = open_sim(spec, &opts(true));
    for i in 0..10 {
        let seg = Segment { ecn, ..data(&sim, 1 + 1000 * i, 1000) };
        sim.emit(0, Transmit { segment: seg, retransmission: None });
    }
    sim.run_loop().unwrap();
    let delivered = sim.delivered.clone();
    (delivered, sim.finish(&opts(true)).unwrap())
}

#[test]
fn red_marks_ect_packets_above_max_th_instead_of_dropping_them() {
    // Waiting packets at arrival: 0 (idle), 0, 1, 2, 3, ..., 8. With avg = q, q = 1 gives
    // p_b = 0, q = 2 an early mark with p_a = 0.05/(1 - 0.05), q >= 3 the forced region: six
    // forced marks, perhaps one early.
    let (delivered, out) = burst_through_red(&red_line(false), Ecn::Ect0);
    assert_eq!(delivered.len(), 10, "no packet is dropped");
    let red = out.summary.links[0].red_ab.unwrap();
    assert!((6..=7).contains(&red.marks), "{red:?}");
    assert_eq!((red.early_drops, red.forced_drops, red.overflow_drops), (0, 0, 0));
    assert_eq!(out.summary.links[0].red_ba.map(|r| r.marks), Some(0));
    assert!(out.summary.links[1].red_ab.is_none(), "drop-tail links have no RED counters");
    // Without a timeseries interval the queues table has a row per RED arrival.
    let q = out.queues.unwrap();
    assert_eq!(q.num_rows(), 10);
    let ColumnData::U64(marks) = &q.column("marks").unwrap().data else { panic!() };
    assert_eq!(marks.last(), Some(&red.marks));
}

#[test]
fn red_drops_packets_that_are_not_ect_and_says_so_in_the_events() {
    let (delivered, out) = burst_through_red(&red_line(false), Ecn::NotEct);
    let red = out.summary.links[0].red_ab.unwrap();
    assert_eq!(red.marks, 0);
    assert_eq!(red.forced_drops, 6);
    assert_eq!(delivered.len() as u64, 10 - red.forced_drops - red.early_drops);
    assert_eq!(out.summary.links[0].drops_ab, red.forced_drops + red.early_drops);
    let col = out.events.column("reason").unwrap();
    let ColumnData::Dict { codes, values } = &col.data else { panic!() };
    let valid = col.valid.clone().unwrap();
    assert!(codes.iter().zip(valid).filter(|(_, v)| *v).all(|(c, _)| values[*c as usize] == "red"));
    // With hard drop (the default) ECT packets are dropped in the forced region too.
    let (_, hard) = burst_through_red(&red_line(true), Ecn::Ect0);
    let hard = hard.summary.links[0].red_ab.unwrap();
    assert_eq!(hard.forced_drops, 6);
    assert!(hard.marks <= 1, "only the early mark at q = 2 can be a mark: {hard:?}");
}

#[test]
fn runs_without_red_keep_the_three_classic_drop_reasons_and_have_no_queues_table() {
    let mut spec = line();
    spec.links[0].queue = QueueSpec::DropTail { limit: QueueLimit::Packets(1) };
    let (_, out) = burst_through_red(&spec, Ecn::NotEct);
    let ColumnData::Dict { values, .. } = &out.events.column("reason").unwrap().data else { panic!() };
    assert_eq!(values, &["queue_full", "loss_model", "ttl_expired"]);
    assert!(out.queues.is_none());
    assert!(out.summary.links[0].red_ab.is_none());
}

/// A Poisson workload of `n` short flows (Pareto, mean 20 KB) from s0/s1 to d0..d3 over a
/// 10 Mb/s dumbbell; no fixed flows.
fn poisson_dumbbell(n: u64, mean_ms: u64) -> SimSpec {
    use crate::spec::{PoissonSpec, SizeDist, WorkloadSpec};
    let tcp = tcplab_tcp::TcpConfig { mss: 1448, trace: true, ..Default::default() };
    let mut spec = crate::bench::dumbbell(
        4,
        Bandwidth::mbps(100),
        SimDuration::from_millis(1),
        Bandwidth::mbps(10),
        SimDuration::from_millis(10),
        QueueLimit::Packets(50),
        tcp.clone(),
        SimDuration::from_secs(60),
    );
    spec.flows.clear();
    let names = |p: &str| (0..4).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let id = |n: &String| spec.nodes.iter().position(|x| &x.name == n).unwrap();
    let senders = names("s")[..2].iter().map(id).collect();
    let receivers = names("d").iter().map(id).collect();
    spec.workloads.push(WorkloadSpec::Poisson(PoissonSpec {
        name: "short".into(),
        senders,
        receivers,
        mean_interarrival: SimDuration::from_millis(mean_ms),
        size: SizeDist::Pareto { mean: 20_000.0, shape: 1.5 },
        start: SimDuration::ZERO,
        stop: None,
        max_flows: Some(n),
        tcp,
    }));
    spec
}

#[test]
fn connections_of_a_workload_are_opened_at_their_start_and_freed_when_they_end() {
    let spec = poisson_dumbbell(300, 50);
    let o = opts(true);
    let mut sim = Sim::new(&spec, &o).unwrap();
    sim.schedule_initial();
    assert_eq!(sim.flows.len(), 1, "a lazy source is drawn one arrival ahead");
    assert!(sim.endpoints.is_empty(), "nothing is open before the first arrival");
    sim.run_loop().unwrap();
    assert_eq!(sim.flows.len(), 300);
    // Every flow completed and was freed; the pairs were reused, so there are only as many
    // as connections were open at once.
    assert!(sim.flows.iter().all(|f| f.fct.is_some() && f.slot == lifecycle::NO_SLOT && f.in_flight == 0));
    let pairs = sim.endpoints.len() / 2;
    assert!(pairs < 30, "{pairs} endpoint pairs for 300 connections");
    assert_eq!(sim.free_slots.len(), pairs);
    assert_eq!(sim.packets.live(), 0);
    let out = sim.finish(&o).unwrap();
    let f = &out.summary.flows;
    assert_eq!(f.len(), 300);
    assert!(f.iter().all(|x| x.bytes_delivered == x.bytes_requested.unwrap() && x.bytes_requested.unwrap() >= 6_667));
    assert!(f.windows(2).all(|w| w[0].start_s <= w[1].start_s), "ids in arrival order");
    assert!(f.iter().all(|x| ["s0", "s1"].contains(&&*x.src)));
    // The mean inter-arrival is 50 ms: 300 arrivals span about 15 s.
    let span = f[299].start_s - f[0].start_s;
    assert!((12.0..18.0).contains(&span), "{span}");
}

/// The Poisson dumbbell's hosts with a web workload instead: `sessions` sessions of 3 pages
/// of 4 objects (Pareto-II, mean 20 packets) from s0/s1 (servers) to d0..d3 (clients).
fn web_dumbbell(sessions: u32) -> SimSpec {
    use crate::spec::{WebSpec, WorkloadSpec};
    let mut spec = poisson_dumbbell(1, 50);
    let (senders, receivers, tcp) = (spec.workloads[0].senders().to_vec(), spec.workloads[0].receivers().to_vec(), spec.workloads[0].tcp().clone());
    spec.workloads = vec![WorkloadSpec::Web(WebSpec {
        name: "web".into(),
        senders,
        receivers,
        sessions,
        pages_per_session: 3,
        inter_page: SimDuration::from_millis(500),
        objects_per_page: 4,
        inter_object: SimDuration::from_millis(10),
        object_mean_packets: 20.0,
        object_shape: 1.5,
        object_max_packets: Some(200),
        start: SimDuration::ZERO,
        stop: None,
        tcp,
    })];
    spec
}

#[test]
fn a_web_workload_opens_one_connection_per_object_and_frees_each_when_it_ends() {
    let spec = web_dumbbell(10);
    let o = opts(true);
    let mut sim = Sim::new(&spec, &o).unwrap();
    sim.schedule_initial();
    assert_eq!(sim.flows.len(), 1, "drawn one arrival ahead");
    sim.run_loop().unwrap();
    // 10 sessions × 3 pages × 4 objects.
    assert_eq!(sim.flows.len(), 120);
    assert!(sim.flows.iter().all(|f| f.fct.is_some() && f.slot == lifecycle::NO_SLOT));
    let pairs = sim.endpoints.len() / 2;
    assert!(pairs < 60, "{pairs} endpoint pairs for 120 connections");
    assert_eq!(sim.packets.live(), 0);
    let out = sim.finish(&o).unwrap();
    let f = &out.summary.flows;
    assert!(f.iter().all(|x| x.bytes_requested.is_some_and(|b| b % 1448 == 0 && b <= 200 * 1448) && x.bytes_delivered == x.bytes_requested.unwrap()));
    assert!(f.iter().all(|x| ["s0", "s1"].contains(&&*x.src) && x.dst.starts_with('d')));
    // Per session one client: at most 10 distinct (client) groups of 12 objects each.
    for d in ["d0", "d1", "d2", "d3"] {
        assert_eq!(f.iter().filter(|x| &*x.dst == d).count() % 12, 0, "{d}");
    }
    let again = run(&spec, &o).unwrap();
    assert_eq!(again.summary, out.summary, "deterministic");
}

#[test]
fn workload_runs_are_deterministic_and_depend_on_the_seed() {
    let spec = poisson_dumbbell(100, 20);
    let a = run(&spec, &opts(true)).unwrap();
    let b = run(&spec, &opts(true)).unwrap();
    let c = run(&spec, &RunOptions { seed: 2, ..opts(true) }).unwrap();
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.events, b.events);
    assert_ne!(a.summary.flows, c.summary.flows);
}

#[test]
fn a_pcap_of_a_red_link_shows_the_ce_marks_in_the_ip_ecn_field() {
    // RFC 3168 §5: the ECN field is the low two bits of the former TOS octet (byte 1 of the
    // IPv4 header): ECT(0) = 10, CE = 11. The record is written when the packet starts
    // transmission on the captured link, after RED marked it.
    let spec = red_line(false);
    let path = std::env::temp_dir().join(format!("tcplab-netsim-{}-red.pcap", std::process::id()));
    let o = RunOptions { seed: 1, trace: false, pcap: vec![("first".into(), path.clone())] };
    let mut sim = open_sim(&spec, &o);
    for i in 0..10 {
        let seg = Segment { ecn: Ecn::Ect0, ..data(&sim, 1 + 1000 * i, 1000) };
        sim.emit(0, Transmit { segment: seg, retransmission: None });
    }
    sim.run_loop().unwrap();
    let out = sim.finish(&o).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).ok();
    let mut ecn = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let incl = u32::from_le_bytes([bytes[at + 8], bytes[at + 9], bytes[at + 10], bytes[at + 11]]) as usize;
        ecn.push(bytes[at + 16 + 1] & 0b11);
        at += 16 + incl;
    }
    assert_eq!(ecn.len(), 10);
    let marks = out.summary.links[0].red_ab.unwrap().marks;
    assert_eq!(ecn.iter().filter(|&&e| e == 0b11).count() as u64, marks);
    assert_eq!(ecn.iter().filter(|&&e| e == 0b10).count() as u64, 10 - marks);
    assert!(marks >= 6);
}

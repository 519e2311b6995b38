//! Benchmark scenarios and a dumbbell builder for tests.
//!
//! Dumbbell: `n` senders `s{i}` — access link `s{i}-left` — router `left` — link
//! `bottleneck` — router `right` — access link `right-d{i}` — receivers `d{i}`. Flow `i` goes
//! from `s{i}` to `d{i}`. `bottleneck` is link 0 with `a = left`, so the data direction is
//! `ab` (`LinkSummary::packets_ab` counts the bottleneck's data packets).
//!
//! Benchmark cases: 1 ms, 1 Gb/s access links; 20 ms one-way bottleneck delay (base RTT
//! 2 × (1 + 20 + 1) = 44 ms); MSS 1448 with SACK and timestamps (1500-byte packets); bulk
//! flows. The bottleneck buffer is one bandwidth-delay product in 1500-byte packets:
//! `ceil(bandwidth × 44 ms / 8 / 1500)` (367 packets at 100 Mb/s, 3667 at 1 Gb/s), the classic
//! rule of thumb (Villamizar & Song 1994). Flow `i` starts at `i × 10 µs` so SYNs do not all
//! collide at t = 0.
//!
//! Two per-packet denominators ([`PacketCounts`]): *bottleneck data packets* (packets that
//! started transmission on the bottleneck's data direction a→b: the figure every earlier
//! table divides by) and *packet-hops* (every packet that started transmission on any link
//! direction: data, ACKs, SYNs and FINs, both directions, once per hop; a packet that
//! crosses the dumbbell counts three times). The first measures cost per unit of useful
//! transfer, the second per unit of simulator work; a workload of short connections has
//! many more hops per bottleneck data packet (its handshakes and FIN exchanges), so the two
//! can rank cases differently and benchmarks report both (docs/benchmarks.md).

use crate::sim::Summary;
use crate::spec::{FlowSpec, LinkSpec, LossSpec, NodeKind, NodeSpec, PoissonSpec, QueueSpec, SimSpec, SizeDist, WorkloadSpec};
use tcplab_tcp::{InitialWindow, TcpConfig};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

/// Names accepted by [`bench_case`].
pub const BENCH_CASES: &[&str] = &["1x100M", "10x1G", "100x1G", "1000x1G", "10k-short", "web", "10k-short-pta"];

/// `10k-short`: connections of the Poisson workload (issue 13: "thousands of connections in
/// one run cost no more per packet than today's long flows").
pub const SHORT_FLOWS: u64 = 10_000;
/// `10k-short`: mean inter-arrival time; 10 000 arrivals over about 10 s, an offered load of
/// 10 000 × 40 KB × 8 / 10 s = 0.32 Gb/s on the 1 Gb/s bottleneck.
pub const SHORT_MEAN_INTERARRIVAL: SimDuration = SimDuration::from_millis(1);
/// `10k-short`: Pareto sizes of 004's traffic profile 1 (mean 40 KB, shape 1.5).
pub const SHORT_SIZE: SizeDist = SizeDist::Pareto { mean: 40_000.0, shape: 1.5 };

/// `web`: sessions of the web workload (35 × 30 pages × 10 objects = 10 500 connections).
pub const WEB_SESSIONS: u32 = 35;
/// `web`: objects above this many packets are cut to it, so that the run ends (the thesis's
/// Pareto-II of shape 1.002 has no usable upper bound).
pub const WEB_MAX_PACKETS: u64 = 10_000;

/// MSS of the benchmark flows: 1500-byte MTU − 20 (IPv4) − 20 (TCP) − 12 (timestamps).
pub const BENCH_MSS: u16 = 1448;
/// Wire size of a full benchmark segment.
pub const BENCH_PACKET_BYTES: u64 = 1500;
/// Linux's default `txqueuelen`: the access links' buffer (hosts and router ports).
pub const ACCESS_QUEUE_PACKETS: u64 = 1000;
/// Spacing of flow start times in the benchmark cases.
pub const BENCH_START_SPACING: SimDuration = SimDuration::from_micros(10);
/// Receive buffer of the benchmark flows (large enough never to limit the window).
pub const BENCH_RECV_BUFFER: u64 = 64 << 20;

/// The benchmark case `name` (one of [`BENCH_CASES`]).
pub fn bench_case(name: &str) -> Option<SimSpec> {
    if name == "10k-short" {
        return Some(short_flows_case());
    }
    if name == "web" {
        return Some(web_case());
    }
    if name == "10k-short-pta" {
        return Some(short_flows_pta_case());
    }
    let (n, bw, secs) = match name {
        "1x100M" => (1, Bandwidth::mbps(100), 20),
        "10x1G" => (10, Bandwidth::gbps(1), 5),
        "100x1G" => (100, Bandwidth::gbps(1), 5),
        "1000x1G" => (1000, Bandwidth::gbps(1), 5),
        _ => return None,
    };
    let access_delay = SimDuration::from_millis(1);
    let bottleneck_delay = SimDuration::from_millis(20);
    let rtt = SimDuration(2 * (2 * access_delay.as_nanos() + bottleneck_delay.as_nanos()));
    let buffer = QueueLimit::Packets(bdp_packets(bw, rtt, BENCH_PACKET_BYTES));
    let mut spec = dumbbell(
        n,
        Bandwidth::gbps(1),
        access_delay,
        bw,
        bottleneck_delay,
        buffer,
        bench_tcp(),
        SimDuration::from_secs(secs),
    );
    spec.name = format!("bench-{name}");
    for (i, f) in spec.flows.iter_mut().enumerate() {
        f.start = BENCH_START_SPACING.saturating_mul(i as u64);
    }
    Some(spec)
}

/// `10k-short`: the 10x1G dumbbell (same links, buffer and TCP settings) with its ten bulk
/// flows replaced by [`SHORT_FLOWS`] Poisson arrivals of Pareto-sized flows from the ten
/// senders to the ten receivers; 15 s, so that the last arrivals finish.
fn short_flows_case() -> SimSpec {
    let mut spec = bench_case("10x1G").unwrap_or_else(|| unreachable!("a fixed case"));
    spec.name = "bench-10k-short".into();
    spec.duration = SimDuration::from_secs(15);
    let (senders, receivers) = spec.flows.iter().map(|f| (f.src, f.dst)).unzip();
    spec.flows.clear();
    spec.workloads.push(WorkloadSpec::Poisson(PoissonSpec {
        name: "short".into(),
        senders,
        receivers,
        mean_interarrival: SHORT_MEAN_INTERARRIVAL,
        size: SHORT_SIZE,
        start: SimDuration::ZERO,
        stop: None,
        max_flows: Some(SHORT_FLOWS),
        tcp: bench_tcp(),
    }));
    spec
}

/// `web`: the 10x1G dumbbell with its bulk flows replaced by a web workload (002 §6.4's
/// parameters: 30 pages per session 0.8 s apart, 10 objects per page, Pareto-II objects of mean
/// 400 packets and shape 1.002, cut at [`WEB_MAX_PACKETS`]) of [`WEB_SESSIONS`] sessions from
/// the ten senders (servers) to the ten receivers (clients); 40 s. Most objects are one packet:
/// the case with the most connection set-up per data packet.
fn web_case() -> SimSpec {
    use crate::spec::WebSpec;
    let mut spec = bench_case("10x1G").unwrap_or_else(|| unreachable!("a fixed case"));
    spec.name = "bench-web".into();
    spec.duration = SimDuration::from_secs(40);
    let (senders, receivers) = spec.flows.iter().map(|f| (f.src, f.dst)).unzip();
    spec.flows.clear();
    spec.workloads.push(WorkloadSpec::Web(WebSpec {
        name: "web".into(),
        senders,
        receivers,
        sessions: WEB_SESSIONS,
        pages_per_session: crate::sim::traffic::web::WEB_PAGES_PER_SESSION,
        inter_page: crate::sim::traffic::web::WEB_INTER_PAGE,
        objects_per_page: crate::sim::traffic::web::WEB_OBJECTS_PER_PAGE,
        inter_object: crate::sim::traffic::web::WEB_INTER_OBJECT,
        object_mean_packets: crate::sim::traffic::web::WEB_OBJECT_MEAN_PACKETS,
        object_shape: crate::sim::traffic::web::WEB_OBJECT_SHAPE,
        object_max_packets: Some(WEB_MAX_PACKETS),
        start: SimDuration::ZERO,
        stop: None,
        tcp: bench_tcp(),
    }));
    spec
}

/// `10k-short-pta`: `10k-short` with every connection running the Pathlet Transport
/// Architecture (seed 004): both dumbbell routers are pathlet routers, the connections
/// negotiate ECN and share the senders' pathlet tables (`sim/pathlet/`); the bottleneck stays
/// drop-tail, so congestion reaches the tables as losses.
fn short_flows_pta_case() -> SimSpec {
    let mut spec = short_flows_case();
    spec.name = "bench-10k-short-pta".into();
    spec.pathlet.routers = (0..spec.nodes.len()).filter(|&i| spec.nodes[i].kind == NodeKind::Router).collect();
    for w in &mut spec.workloads {
        if let WorkloadSpec::Poisson(p) = w {
            p.tcp.sharing = tcplab_tcp::StateSharing::Pathlet;
            p.tcp.ecn = true;
        }
    }
    spec
}

/// The packet counts a benchmark divides its cost by (module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PacketCounts {
    /// Packets that started transmission on link `bottleneck` from `a` to `b` (0 if the
    /// run has no link of that name).
    pub bottleneck_data: u64,
    /// Packets that started transmission on any link, in either direction, counted once
    /// per link they crossed (`LinkSummary::packets_ab` + `packets_ba` over all links).
    pub hops: u64,
}

impl PacketCounts {
    /// The counts of a finished run.
    pub fn of(summary: &Summary) -> PacketCounts {
        PacketCounts {
            bottleneck_data: summary.links.iter().find(|l| l.name == "bottleneck").map_or(0, |l| l.packets_ab),
            hops: summary.links.iter().map(|l| l.packets_ab + l.packets_ba).sum(),
        }
    }
}

/// `ceil(bw × rtt / 8 / packet_bytes)`, at least 1.
pub fn bdp_packets(bw: Bandwidth, rtt: SimDuration, packet_bytes: u64) -> u64 {
    let bytes = u128::from(bw.as_bps()) * u128::from(rtt.as_nanos()) / 8 / 1_000_000_000;
    (bytes.div_ceil(u128::from(packet_bytes)) as u64).max(1)
}

/// TCP settings of the benchmark flows.
pub fn bench_tcp() -> TcpConfig {
    TcpConfig {
        mss: BENCH_MSS,
        initial_window: InitialWindow::Rfc6928,
        sack: true,
        timestamps: true,
        window_scale: true,
        recv_buffer: BENCH_RECV_BUFFER,
        trace: false,
        ..TcpConfig::default()
    }
}

/// A dumbbell with `n_flows` bulk flows (see the module docs for names and layout). Access
/// links get a [`ACCESS_QUEUE_PACKETS`] buffer, the bottleneck `buffer`; all flows start at 0.
#[allow(clippy::too_many_arguments)]
pub fn dumbbell(
    n_flows: usize,
    access_bw: Bandwidth,
    access_delay: SimDuration,
    bottleneck_bw: Bandwidth,
    bottleneck_delay: SimDuration,
    buffer: QueueLimit,
    tcp: TcpConfig,
    duration: SimDuration,
) -> SimSpec {
    let node = |name: String, kind| NodeSpec { name, kind };
    let link = |name: String, a, b, bandwidth, delay, limit| LinkSpec {
        name,
        a,
        b,
        bandwidth,
        delay,
        queue: QueueSpec::DropTail { limit },
        loss_ab: LossSpec::None,
        loss_ba: LossSpec::None,
        dynamics: Default::default(),
    };
    let (left, right) = (0, 1);
    let src = |i: usize| 2 + i;
    let dst = |i: usize| 2 + n_flows + i;
    let mut nodes = vec![node("left".into(), NodeKind::Router), node("right".into(), NodeKind::Router)];
    nodes.extend((0..n_flows).map(|i| node(format!("s{i}"), NodeKind::Host)));
    nodes.extend((0..n_flows).map(|i| node(format!("d{i}"), NodeKind::Host)));
    let access = QueueLimit::Packets(ACCESS_QUEUE_PACKETS);
    let mut links = vec![link("bottleneck".into(), left, right, bottleneck_bw, bottleneck_delay, buffer)];
    links.extend((0..n_flows).map(|i| link(format!("s{i}-left"), src(i), left, access_bw, access_delay, access)));
    links.extend((0..n_flows).map(|i| link(format!("right-d{i}"), right, dst(i), access_bw, access_delay, access)));
    let flows = (0..n_flows)
        .map(|i| FlowSpec { src: src(i), dst: dst(i), start: SimDuration::ZERO, size: None, tcp: tcp.clone() })
        .collect();
    SimSpec {
        name: format!("dumbbell-{n_flows}"),
        duration,
        nodes,
        links,
        routes: Vec::new(),
        flows,
        workloads: Vec::new(),
        timeseries_interval: None,
        default_seed: crate::scenario::DEFAULT_SEED,
        quick_start: Default::default(),
        pathlet: Default::default(),
        host_cache: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bench_case_builds_and_unknown_names_do_not() {
        for name in BENCH_CASES {
            let s = bench_case(name).unwrap();
            assert_eq!(s.links[0].name, "bottleneck");
        }
        assert!(bench_case("nope").is_none());
    }

    /// On a lossless dumbbell every packet crosses exactly three links (access, bottleneck,
    /// access), whichever direction it goes, so the hops are three times the bottleneck's
    /// packets in both directions; and the data direction carries the data segments.
    #[test]
    fn packet_hops_count_every_packet_on_every_link_in_both_directions() {
        let mut spec = dumbbell(
            2,
            Bandwidth::gbps(1),
            SimDuration::from_millis(1),
            Bandwidth::mbps(100),
            SimDuration::from_millis(5),
            QueueLimit::Packets(1000),
            bench_tcp(),
            SimDuration::from_secs(2),
        );
        for f in &mut spec.flows {
            f.size = Some(50_000);
        }
        let out = crate::run(&spec, &crate::RunOptions { seed: 1, trace: false, pcap: vec![] }).unwrap();
        let n = PacketCounts::of(&out.summary);
        let bn = &out.summary.links[0];
        assert_eq!(bn.drops_ab + bn.drops_ba, 0);
        assert_eq!(n.bottleneck_data, bn.packets_ab);
        assert_eq!(n.hops, 3 * (bn.packets_ab + bn.packets_ba));
        // 2 × 35 data segments of 1448 B, plus the handshakes, ACKs and FINs back and forth.
        let data: u64 = out.summary.flows.iter().map(|f| f.data_segments_sent).sum();
        assert_eq!(data, 2 * 50_000u64.div_ceil(1448));
        assert!(n.bottleneck_data > data, "SYNs and FINs go a→b too");
        assert!(bn.packets_ba > 0, "ACKs go b→a");
    }

    #[test]
    fn the_bottleneck_buffer_is_one_bdp_in_packets() {
        let s = bench_case("1x100M").unwrap();
        let limit = s.links[0].queue.limit();
        assert_eq!(limit, QueueLimit::Packets(367)); // 100 Mb/s × 44 ms = 550 kB
        assert_eq!(bdp_packets(Bandwidth::gbps(1), SimDuration::from_millis(44), 1500), 3667);
    }
}

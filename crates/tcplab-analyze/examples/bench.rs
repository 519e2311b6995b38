//! Speed and memory of the analyzer (a benchmark, not a timed test; docs/benchmarks.md).
//!
//! ```text
//! cargo run --release -p tcplab-analyze --example bench -- sim [FLOWS] [SECONDS] OUT.pcap
//!     writes a simulated capture: FLOWS bulk flows over a 1 Gbit/s dumbbell with 0.5%
//!     random loss, the bottleneck captured (headers only), SECONDS simulated
//! cargo run --release -p tcplab-analyze --example bench -- sack [FLOWS] [EPISODES] OUT.pcap
//!     writes the SACK-heavy capture of issue 10's speed goal: a 100 Mbit/s x 100 ms
//!     dumbbell with a buffer of one bandwidth-delay product, EPISODES times FLOWS flows of
//!     SACK_FLOW_BYTES starting together (slow-start overshoot: hundreds of SACK holes per
//!     window), captured at the senders' side of the bottleneck queue (a `tap` link every
//!     flow crosses before the bottleneck), so every drop is a SACK hole in the capture
//! cargo run --release -p tcplab-analyze --example bench -- shape FILE.pcap
//!     the capture's shape: packets, connections, SACK blocks per ACK, SACK holes seen by
//!     the sender at each SACK-bearing ACK (the sender-side scoreboard's gaps)
//! cargo run --release -p tcplab-analyze --example bench -- synth PACKETS CONNS OUT.pcap
//!     writes tcplab-pcap's synthetic Ethernet capture (no losses)
//! cargo run --release -p tcplab-analyze --example bench -- run FILE.pcap [ROUNDS] [MODEL]
//!     times full analyses (read + track + classify + tables), best of ROUNDS; MODEL `auto`
//!     replays every connection through the inference's candidates (`--model auto`), any
//!     other name forces that model (`linux`, ...); without it the analyzer's default
//!     config (also as `default`); prints a fingerprint of both tables (behaviour-neutral
//!     changes keep it). THREADING: `one` reads, tracks and analyses on one thread,
//!     `pipelined` reads and tracks on a second thread (`tcplab_pcap::pipeline`), `auto`
//!     (the default, as `tcplab analyze`) pipelined when the machine has two cores
//! cargo run --release -p tcplab-analyze --example bench -- read FILE.pcap [ROUNDS]
//!     times the reading half alone (read + decode + track, `for_each_tracked` on one
//!     thread with a callback that does nothing), best of ROUNDS: what the reading thread
//!     of a pipelined analysis costs; the analysing thread's share is `run ... one` minus it
//! ```
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use tcplab_analyze::{analyze_paths, AnalyzeConfig, ConfigModel};
use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::{FlowSpec, LinkSpec, LossSpec, NodeKind, NodeSpec, QueueSpec, SimSpec};
use tcplab_netsim::{run, RunOptions};
use tcplab_pcap::{CaptureReader, Threading};
use tcplab_tcp::{Profile, TcpConfig};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

/// Issue 10's speed capture: bottleneck bandwidth, 100 Mbit/s.
const SACK_BOTTLENECK_BPS: u64 = 100_000_000;
/// One-way delay of the bottleneck; with two 1 ms access links per direction the base RTT is
/// 100 ms (issue 10: "100 Mb/s x 100 ms").
const SACK_BOTTLENECK_DELAY_MS: u64 = 48;
/// Access links (senders, receivers) and the tap: 1 ms, 1 Gbit/s, never the bottleneck.
const SACK_ACCESS_DELAY_MS: u64 = 1;
/// Bottleneck buffer: one bandwidth-delay product (100 Mbit/s x 100 ms / 1500 B = 833
/// packets), deep enough that slow start overshoots by about a window before the first drop.
const SACK_BUFFER_PACKETS: u64 = 833;
/// Bytes each flow sends per episode: enough for slow start, the overshoot and its recovery.
const SACK_FLOW_BYTES: u64 = 4_000_000;
/// Time between episodes: every flow of an episode has finished before the next starts.
const SACK_EPISODE_SECS: u64 = 6;
/// Receive buffer: never the limit (the overshoot window is about 2 x (BDP + buffer)).
const SACK_RECV_BUFFER: u64 = 16 << 20;

/// The SACK-heavy capture's scenario (see the `sack` command above).
fn sack_heavy(flows: usize, episodes: usize) -> SimSpec {
    let tcp = TcpConfig { mss: 1448, recv_buffer: SACK_RECV_BUFFER, trace: false, ..TcpConfig::default() };
    let access = Bandwidth::bps(1_000_000_000);
    let mut spec = dumbbell(
        flows,
        access,
        SimDuration::from_millis(SACK_ACCESS_DELAY_MS),
        Bandwidth::bps(SACK_BOTTLENECK_BPS),
        SimDuration::from_millis(SACK_BOTTLENECK_DELAY_MS),
        QueueLimit::Packets(SACK_BUFFER_PACKETS),
        tcp.clone(),
        SimDuration::from_secs(SACK_EPISODE_SECS * episodes as u64),
    );
    // The senders reach the bottleneck router through one `tap` link (no loss, no queueing
    // to speak of), captured: the capture sees every segment before the bottleneck drops it.
    let left = 0;
    let edge = spec.nodes.len();
    spec.nodes.push(NodeSpec { name: "edge".into(), kind: NodeKind::Router });
    for l in spec.links.iter_mut().filter(|l| l.b == left && l.name.starts_with('s')) {
        l.b = edge;
    }
    spec.links.push(LinkSpec {
        name: "tap".into(),
        a: edge,
        b: left,
        bandwidth: Bandwidth::bps(10_000_000_000),
        delay: SimDuration::ZERO,
        queue: QueueSpec::DropTail { limit: QueueLimit::Packets(100_000) },
        loss_ab: LossSpec::None,
        loss_ba: LossSpec::None,
        dynamics: Default::default(),
    });
    let pairs: Vec<(usize, usize)> = spec.flows.iter().map(|f| (f.src, f.dst)).collect();
    spec.flows = (0..episodes)
        .flat_map(|e| {
            let tcp = tcp.clone();
            pairs.iter().map(move |&(src, dst)| FlowSpec {
                src,
                dst,
                start: SimDuration::from_secs(SACK_EPISODE_SECS * e as u64),
                size: Some(SACK_FLOW_BYTES),
                tcp: tcp.clone(),
            })
        })
        .collect();
    spec.name = format!("sack-heavy-{flows}x{episodes}");
    spec
}

/// One direction's SACK scoreboard as its sender sees it: SACKed ranges above the cumulative
/// ACK, sequence numbers unwrapped to 64 bits.
#[derive(Default)]
struct Holes {
    last: Option<u64>,
    sacked: BTreeMap<u64, u64>,
}

impl Holes {
    fn unwrap(&mut self, s: u32) -> u64 {
        let u = match self.last {
            None => u64::from(s) + (1 << 32),
            Some(l) => l.wrapping_add(i64::from(s.wrapping_sub(l as u32) as i32) as u64),
        };
        self.last = Some(u);
        u
    }

    /// An ACK up to `ack` with SACK blocks: returns the holes below the highest SACKed byte.
    fn on_ack(&mut self, ack: u32, blocks: &[(u32, u32)]) -> usize {
        let ack = self.unwrap(ack);
        for &(l, r) in blocks {
            let (l, r) = (self.unwrap(l), self.unwrap(r));
            let (mut l, mut r) = (l.max(ack), r);
            if l >= r {
                continue;
            }
            // Merge with every range that overlaps or touches [l, r).
            let touching: Vec<(u64, u64)> = self.sacked.range(..=r).rev().take_while(|&(_, &e)| e >= l).map(|(&a, &b)| (a, b)).collect();
            for (a, b) in touching {
                self.sacked.remove(&a);
                l = l.min(a);
                r = r.max(b);
            }
            self.sacked.insert(l, r);
        }
        while let Some((&a, &b)) = self.sacked.first_key_value() {
            if b > ack {
                if a < ack {
                    self.sacked.remove(&a);
                    self.sacked.insert(ack, b);
                }
                break;
            }
            self.sacked.remove(&a);
        }
        let at_ack = self.sacked.first_key_value().is_some_and(|(&a, _)| a == ack);
        self.sacked.len() - usize::from(at_ack)
    }
}

/// Prints the capture's shape (the `shape` command).
fn shape(file: &str) {
    let mut reader = CaptureReader::open(file).unwrap();
    let mut packets = 0u64;
    let mut data = 0u64;
    let mut blocks_hist = [0u64; 5];
    let mut holes: HashMap<(IpAddr, u16, IpAddr, u16), Holes> = HashMap::new();
    let mut per_ack: Vec<u32> = Vec::new();
    let mut conns = std::collections::HashSet::new();
    for s in reader.by_ref() {
        packets += 1;
        data += u64::from(s.segment.len > 0);
        conns.insert(if s.sport < s.dport { (s.src, s.sport, s.dst, s.dport) } else { (s.dst, s.dport, s.src, s.sport) });
        let b = s.segment.options.sack.as_slice();
        if s.segment.len > 0 || !s.segment.flags.contains(tcplab_tcp::segment::TcpFlags::ACK) {
            continue;
        }
        blocks_hist[b.len().min(4)] += 1;
        if b.is_empty() {
            continue;
        }
        let bl: Vec<(u32, u32)> = b.iter().map(|k| (k.left.0, k.right.0)).collect();
        let h = holes.entry((s.dst, s.dport, s.src, s.sport)).or_default().on_ack(s.segment.ack.0, &bl);
        per_ack.push(h as u32);
    }
    let acks: u64 = blocks_hist.iter().sum();
    let sack_acks: u64 = blocks_hist[1..].iter().sum();
    let blocks: u64 = blocks_hist.iter().enumerate().map(|(k, n)| k as u64 * n).sum();
    per_ack.sort_unstable();
    let q = |f: f64| per_ack.get(((per_ack.len() as f64 - 1.0) * f) as usize).copied().unwrap_or(0);
    println!("{file}: {packets} packets ({data} with data), {} connections", conns.len());
    println!(
        "pure ACKs {acks}, with SACK {sack_acks} ({:.1} %); SACK blocks per SACK-bearing ACK: mean {:.2}, histogram 1..4 = {:?}",
        100.0 * sack_acks as f64 / acks.max(1) as f64,
        blocks as f64 / sack_acks.max(1) as f64,
        &blocks_hist[1..]
    );
    println!(
        "holes on the sender's scoreboard at each SACK-bearing ACK: median {}, p90 {}, p99 {}, max {}; ACKs with >= 100 holes: {}",
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
        per_ack.iter().filter(|&&h| h >= 100).count()
    );
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    match a.first().map(String::as_str) {
        Some("sim") => {
            let flows: usize = a.get(1).map_or(100, |s| s.parse().unwrap());
            let secs: u64 = a.get(2).map_or(12, |s| s.parse().unwrap());
            let out = a.get(3).cloned().unwrap_or_else(|| "/tmp/tcplab-bench.pcap".into());
            let tcp = TcpConfig { mss: 1448, recv_buffer: 4 << 20, trace: false, ..TcpConfig::default() };
            let mut spec = dumbbell(
                flows,
                Bandwidth::bps(10_000_000_000),
                SimDuration::from_millis(1),
                Bandwidth::bps(1_000_000_000),
                SimDuration::from_millis(10),
                QueueLimit::Packets(2000),
                tcp,
                SimDuration::from_secs(secs),
            );
            if let Some(l) = spec.links.iter_mut().find(|l| l.name == "bottleneck") {
                l.loss_ab = LossSpec::Bernoulli { p: 0.005 };
            }
            let t = Instant::now();
            let o = run(&spec, &RunOptions { seed: 1, trace: false, pcap: vec![("bottleneck".into(), out.clone().into())] }).unwrap();
            let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
            println!("wrote {out}: {size} bytes in {:.1} s ({} flows)", t.elapsed().as_secs_f64(), o.summary.flows.len());
        }
        Some("sack") => {
            let flows: usize = a.get(1).map_or(4, |s| s.parse().unwrap());
            let episodes: usize = a.get(2).map_or(40, |s| s.parse().unwrap());
            let out = a.get(3).cloned().unwrap_or_else(|| "/tmp/tcplab-sack.pcap".into());
            let spec = sack_heavy(flows, episodes);
            let t = Instant::now();
            let o = run(&spec, &RunOptions { seed: 1, trace: false, pcap: vec![("tap".into(), out.clone().into())] }).unwrap();
            let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
            println!("wrote {out}: {size} bytes in {:.1} s ({} flows)", t.elapsed().as_secs_f64(), o.summary.flows.len());
        }
        Some("shape") => shape(&a.get(1).cloned().unwrap()),
        Some("synth") => {
            let packets: u64 = a.get(1).map_or(1_500_000, |s| s.parse().unwrap());
            let conns: u32 = a.get(2).map_or(100, |s| s.parse().unwrap());
            let out = a.get(3).cloned().unwrap_or_else(|| "/tmp/tcplab-synth.pcap".into());
            let f = std::io::BufWriter::new(std::fs::File::create(&out).unwrap());
            let n = tcplab_pcap::synth::write_synthetic_capture(f, conns, packets).unwrap();
            println!("wrote {out}: {n} packets");
        }
        Some("run") => {
            let file = a.get(1).cloned().unwrap();
            let rounds: u32 = a.get(2).map_or(3, |s| s.parse().unwrap());
            let mut cfg = match a.get(3).map(String::as_str) {
                None | Some("default") => AnalyzeConfig::default(),
                Some("auto") => AnalyzeConfig::auto(),
                Some("rfc") => AnalyzeConfig { model: Arc::new(ConfigModel::new("rfc", TcpConfig::default())), ..Default::default() },
                Some(m) => {
                    let cfg = Profile::by_name(m).unwrap().config();
                    AnalyzeConfig { model: Arc::new(ConfigModel::new(m, cfg)), ..Default::default() }
                }
            };
            cfg.threading = match a.get(4).map(String::as_str) {
                None | Some("auto") => Threading::Auto,
                Some("one") => Threading::OneThread,
                Some("pipelined") => Threading::Pipelined,
                Some(t) => panic!("THREADING: {t:?} is not one of auto, one, pipelined"),
            };
            let mut best = f64::MAX;
            for round in 0..rounds {
                let t = Instant::now();
                let r = analyze_paths(&[&file], &cfg).unwrap();
                let retx = r.retransmissions_table();
                let conns = r.connections_table();
                let secs = t.elapsed().as_secs_f64();
                best = best.min(secs);
                let c = &r.summary.captures[0];
                println!(
                    "round {round}: {} packets in {secs:.3} s = {:.2} M packets/s; {} connections (peak {} concurrent); {} retransmissions ({} rows), {} connection rows",
                    c.frames,
                    c.frames as f64 / secs / 1e6,
                    c.connections,
                    c.peak_concurrent_connections,
                    r.summary.retransmissions,
                    retx.num_rows(),
                    conns.num_rows()
                );
                if round + 1 == rounds {
                    println!("best: {:.2} M packets/s", c.frames as f64 / best / 1e6);
                    println!("fingerprint: retransmissions {:016x}, connections {:016x}", retx.fingerprint(true), conns.fingerprint(true));
                    let t = &r.summary.table_iv;
                    for (k, v) in t {
                        println!("  {k}: {v:?}");
                    }
                }
            }
        }
        Some("read") => {
            let file = a.get(1).cloned().unwrap();
            let rounds: u32 = a.get(2).map_or(3, |s| s.parse().unwrap());
            let mut best = f64::MAX;
            for round in 0..rounds {
                let t = Instant::now();
                let mut reader = CaptureReader::open(&file).unwrap();
                let mut tracker = tcplab_pcap::ConnTracker::default();
                let mut n = 0u64;
                let mut finished = 0usize;
                tcplab_pcap::for_each_tracked(&mut reader, &mut tracker, Threading::OneThread, |t| {
                    n += 1;
                    finished += t.finished.len();
                });
                let recs = tracker.finish().len() + finished;
                let secs = t.elapsed().as_secs_f64();
                best = best.min(secs);
                println!("round {round}: read + decode + track {n} packets, {recs} connections, in {secs:.3} s = {:.2} M packets/s", n as f64 / secs / 1e6);
            }
            println!("best: {best:.3} s");
        }
        _ => eprintln!("usage: bench sim [FLOWS] [SECONDS] OUT | sack [FLOWS] [EPISODES] OUT | shape FILE | synth PACKETS CONNS OUT | run FILE [ROUNDS] [MODEL] [THREADING] | read FILE [ROUNDS]"),
    }
}

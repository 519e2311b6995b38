//! Speed and memory of the analyzer (a benchmark, not a timed test; docs/benchmarks.md).
//!
//! ```text
//! cargo run --release -p tcplab-analyze --example bench -- sim [FLOWS] [SECONDS] OUT.pcap
//!     writes a simulated capture: FLOWS bulk flows over a 1 Gbit/s dumbbell with 0.5%
//!     random loss, the bottleneck captured (headers only), SECONDS simulated
//! cargo run --release -p tcplab-analyze --example bench -- synth PACKETS CONNS OUT.pcap
//!     writes tcplab-pcap's synthetic Ethernet capture (no losses)
//! cargo run --release -p tcplab-analyze --example bench -- run FILE.pcap [ROUNDS] [auto]
//!     times full analyses (read + track + classify + tables), best of ROUNDS; with `auto`
//!     every connection is replayed through the inference's candidates (`--model auto`)
//! ```
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use tcplab_analyze::{analyze_paths, AnalyzeConfig};
use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::LossSpec;
use tcplab_netsim::{run, RunOptions};
use tcplab_tcp::TcpConfig;
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

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
            let cfg = if a.get(3).is_some_and(|m| m == "auto") { AnalyzeConfig::auto() } else { AnalyzeConfig::default() };
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
                    let t = &r.summary.table_iv;
                    for (k, v) in t {
                        println!("  {k}: {v:?}");
                    }
                }
            }
        }
        _ => eprintln!("usage: bench sim [FLOWS] [SECONDS] OUT | synth PACKETS CONNS OUT | run FILE [ROUNDS] [auto]"),
    }
}

//! Times one benchmark case: `cargo run --release -p tcplab-netsim --example bench_run -- 10x1G`.
//! Prints wall time, events, bottleneck packets and packets per wall-second, and on Linux the
//! thread's CPU time (`/proc/thread-self/schedstat`) and packets per CPU-second, which a
//! shared, loaded machine disturbs much less than wall time. The `per packet` line divides
//! that CPU time by both of `bench::PacketCounts`' denominators: bottleneck data packets
//! and packet-hops (every packet on every link direction it crossed).

use std::time::Instant;
use tcplab_netsim::bench::{bench_case, PacketCounts, BENCH_CASES};
use tcplab_netsim::{run, RunOptions};

/// Nanoseconds this thread has spent on a CPU, where the kernel reports it.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "10x1G".to_string());
    let Some(spec) = bench_case(&name) else {
        eprintln!("unknown case {name:?}; cases: {}", BENCH_CASES.join(", "));
        std::process::exit(2);
    };
    let trace = std::env::args().any(|a| a == "--trace");
    let c0 = cpu_ns();
    let t0 = Instant::now();
    let out = match run(&spec, &RunOptions { seed: 1, trace, pcap: vec![] }) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    let cpu = c0.zip(cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e9);
    let counts = PacketCounts::of(&out.summary);
    let bn = counts.bottleneck_data;
    let delivered: u64 = out.summary.flows.iter().map(|f| f.bytes_delivered).sum();
    let retrans: u64 = out.summary.flows.iter().map(|f| f.retransmissions).sum();
    println!(
        "{name}: wall {wall:.3}s  sim {:.3}s  events {}  bottleneck packets {bn}  ({:.0} pkt/s wall, {:.0} events/s)  delivered {delivered} B  retrans {retrans}  drops {}",
        out.summary.sim_time_s,
        out.summary.events,
        bn as f64 / wall,
        out.summary.events as f64 / wall,
        out.summary.links[0].drops_ab,
    );
    if let Some(cpu) = cpu {
        println!("{name}: cpu {cpu:.3}s  ({:.0} pkt/s cpu)", bn as f64 / cpu);
        println!(
            "{name}: per packet: bottleneck data packets {bn}  packet-hops {}  ({:.2} hops per data packet)  cpu ns / data packet {:.0}  cpu ns / hop {:.1}",
            counts.hops,
            counts.hops as f64 / bn.max(1) as f64,
            cpu * 1e9 / bn.max(1) as f64,
            cpu * 1e9 / counts.hops.max(1) as f64,
        );
    } else {
        println!("{name}: bottleneck data packets {bn}  packet-hops {}", counts.hops);
    }
    if trace {
        let spurious: u64 = out.summary.flows.iter().map(|f| f.spurious_retransmissions).sum();
        println!(
            "trace: {} event rows, {} timeseries rows, {spurious} spurious retransmissions",
            out.events.num_rows(),
            out.timeseries.num_rows()
        );
    }
}

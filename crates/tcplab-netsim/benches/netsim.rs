//! Micro-benchmarks without criterion (criterion is not available offline in this workspace;
//! swap in `criterion_group!` when it is): the event queue, and one small dumbbell run.
//!
//! `cargo bench -p tcplab-netsim` measures; under `cargo test --benches` (no `--bench` flag)
//! every case runs once as a smoke test.

use std::hint::black_box;
use std::time::Instant;
use tcplab_netsim::bench::{bench_case, dumbbell};
use tcplab_netsim::sim::event_queue::EventQueue;
use tcplab_netsim::{run, RunOptions};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration, SimTime};

/// Times `f` over `iters` runs and prints the best per-iteration time.
fn bench(name: &str, iters: u32, mut f: impl FnMut()) {
    let mut best = f64::INFINITY;
    for _ in 0..iters {
        let t0 = Instant::now();
        f();
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!("{name:<40} best of {iters}: {:>10.3} ms", best * 1e3);
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let iters = if measuring { 10 } else { 1 };

    // Steady state of a heap holding `n` events: pop one, push one a pseudo-random time later.
    for n in [64u64, 4096, 65_536] {
        const OPS: u64 = 1_000_000;
        bench(&format!("event queue: {n} pending, {OPS} pop+push"), iters, || {
            let mut q = EventQueue::with_capacity(n as usize);
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for i in 0..n {
                q.push(SimTime(i * 1000), i);
            }
            for _ in 0..OPS {
                let Some((t, e)) = q.pop() else { break };
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                q.push(SimTime(t.0 + 1 + x % 100_000), black_box(e));
            }
        });
    }

    let small = dumbbell(
        4,
        Bandwidth::gbps(1),
        SimDuration::from_millis(1),
        Bandwidth::mbps(100),
        SimDuration::from_millis(10),
        QueueLimit::Packets(100),
        tcplab_netsim::bench::bench_tcp(),
        SimDuration::from_secs(2),
    );
    let opts = RunOptions { seed: 1, trace: false, pcap: vec![] };
    bench("dumbbell 4 flows, 100 Mb/s, 2 s", iters, || {
        black_box(run(&small, &opts).ok());
    });
    if measuring {
        let spec = bench_case("10x1G").unwrap_or(small);
        bench("bench case 10x1G (5 s)", 3, || {
            black_box(run(&spec, &opts).ok());
        });
    }
}

//! Prints, per seed, the spurious retransmissions (simulator ground truth) of a scenario run
//! with random loss on the bottleneck: `cargo run --release -p tcplab-netsim --example
//! spurious_scan -- scenarios/dumbbell.toml 0.01 20`. A quick way to see whether a change to
//! loss recovery makes a sender retransmit data that was not lost.

use std::path::Path;
use tcplab_netsim::{run, scenario, RunOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map_or("scenarios/dumbbell.toml", String::as_str);
    let p = args.get(2).map_or("0.01", String::as_str);
    let seeds: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let ov = vec!["links.bottleneck.loss.model=bernoulli".to_string(), format!("links.bottleneck.loss.p={p}")];
    let spec = match scenario::load_path(Path::new(path), &ov) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let (mut rex, mut spur) = (0u64, 0u64);
    for seed in 1..=seeds {
        let out = match run(&spec, &RunOptions { seed, trace: false, pcap: vec![] }) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let r: u64 = out.summary.flows.iter().map(|f| f.retransmissions).sum();
        let s: u64 = out.summary.flows.iter().map(|f| f.spurious_retransmissions).sum();
        println!("seed {seed}: retransmissions {r} spurious {s}");
        rex += r;
        spur += s;
    }
    println!("total: retransmissions {rex} spurious {spur}");
}

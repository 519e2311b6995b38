//! The what-if replay's cost against one analysis of the same capture (docs/benchmarks.md,
//! issue 11: "a 720-point grid over one capture costs at most 20x one analysis of it").
//!
//! ```text
//! cargo build --release -p tcplab-analyze --example whatif_bench
//! hyperfine -N --warmup 1 \
//!   './target/release/examples/whatif_bench analyze FILE.pcap MODEL' \
//!   './target/release/examples/whatif_bench whatif FILE.pcap MODEL'
//! ```
//!
//! `analyze`: one full analysis (read, track, classify, both tables). `whatif`: the same
//! capture through `whatif_paths` with 003's 725-point default grid (the analysis included)
//! and all three tables; `whatif FILE MODEL a,b,k,minRTO` crosses 003's values of the named
//! parameters instead (`--only`: a,b,k,minRTO = 720 points, D,a,b,k,minRTO = 2880), for the
//! memory measurement. Prints the row counts so the work cannot be skipped.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use tcplab_analyze::whatif::grid::{default_grid, only_grid, Param};
use tcplab_analyze::whatif::{whatif_paths, WhatIfConfig};
use tcplab_analyze::{analyze_paths, AnalyzeConfig, ConfigModel};
use tcplab_tcp::{Profile, TcpConfig};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let file = a.get(1).cloned().expect("FILE");
    let model = a.get(2).map_or("rfc", String::as_str);
    let cfg = if model == "rfc" { TcpConfig::default() } else { Profile::by_name(model).expect("profile").config() };
    let analyze = AnalyzeConfig { model: Arc::new(ConfigModel::new(model, cfg)), ..Default::default() };
    match a.first().map(String::as_str) {
        Some("analyze") => {
            let r = analyze_paths(&[&file], &analyze).unwrap();
            let t = (r.retransmissions_table(), r.connections_table());
            println!("{} retransmissions, {} connections", t.0.num_rows(), t.1.num_rows());
        }
        Some("whatif") => {
            let grid = match a.get(3) {
                Some(names) => only_grid(&names.split(',').map(|n| Param::parse(n).expect("a parameter name")).collect::<Vec<_>>()),
                None => default_grid(),
            };
            let w = whatif_paths(&[&file], &WhatIfConfig { analyze, grid }).unwrap();
            let t = (w.whatif_table(), w.retransmissions_table(), w.connections_table());
            println!("{} rows, {} retransmissions, {} connections", t.0.num_rows(), t.1.num_rows(), t.2.num_rows());
        }
        _ => eprintln!("usage: whatif_bench analyze|whatif FILE [MODEL]"),
    }
}

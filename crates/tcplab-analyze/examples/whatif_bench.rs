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
//! memory measurement. `whatif` keeps every row and builds the whole table (as the output
//! path did before it streamed); `stream` hands the rows out in batches of
//! [`BATCH_ROWS`] as connections finish and builds each batch's table, then drops it (what
//! `tcplab whatif` does, writing each as a Parquet row group). Prints the row counts so the
//! work cannot be skipped.
#![allow(clippy::unwrap_used)]

use std::ops::ControlFlow;
use std::sync::Arc;

use tcplab_analyze::whatif::grid::{default_grid, only_grid, Param};
use tcplab_analyze::whatif::{whatif_paths, whatif_stream, WhatIfConfig};
use tcplab_analyze::{analyze_paths, AnalyzeConfig, ConfigModel};
use tcplab_tcp::{Profile, TcpConfig};

/// Rows per batch of `stream` (the binding's row group size, `tcplab-py/src/whatif.rs`).
const BATCH_ROWS: usize = 16_384;

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
        Some(mode @ ("whatif" | "stream")) => {
            let grid = match a.get(3) {
                Some(names) => only_grid(&names.split(',').map(|n| Param::parse(n).expect("a parameter name")).collect::<Vec<_>>()),
                None => default_grid(),
            };
            let cfg = WhatIfConfig { analyze, grid };
            let (rows, w) = if mode == "whatif" {
                let w = whatif_paths(&[&file], &cfg).unwrap();
                (w.whatif_table().num_rows(), w)
            } else {
                let mut rows = 0;
                let mut sink = |meta: &tcplab_analyze::whatif::TableMeta<'_>, b: &tcplab_analyze::whatif::RowBatch| {
                    rows += tcplab_analyze::whatif::output::whatif_table(meta, b).num_rows();
                    ControlFlow::Continue(())
                };
                let w = whatif_stream(&[&file], &cfg, BATCH_ROWS, &mut sink).unwrap();
                (rows, w)
            };
            let t = (w.retransmissions_table(), w.connections_table());
            println!("{} rows, {} retransmissions, {} connections", rows, t.0.num_rows(), t.1.num_rows());
        }
        _ => eprintln!("usage: whatif_bench analyze|whatif|stream FILE [MODEL [PARAMS]]"),
    }
}

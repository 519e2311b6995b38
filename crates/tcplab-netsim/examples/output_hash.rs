//! Prints a hash of everything a run produces (summary, `flows`, `events`, `timeseries`) for
//! scenario files and benchmark cases, traced, so that a change meant to be behaviour-neutral
//! (performance work) can be checked to leave every output byte-identical:
//! `cargo run --release -p tcplab-netsim --example output_hash -- scenarios/dumbbell.toml 10x1G`.

use std::fmt::Write;
use std::path::Path;
use tcplab_netsim::bench::bench_case;
use tcplab_netsim::scenario::load_path;
use tcplab_netsim::{run, RunOptions};

/// FNV-1a 64-bit offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Streams `Debug` output into an FNV-1a hash without building the string.
struct Fnv(u64);

impl Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for b in s.bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
        Ok(())
    }
}

fn main() {
    for arg in std::env::args().skip(1) {
        let spec = match bench_case(&arg) {
            Some(s) => s,
            None => match load_path(Path::new(&arg), &[]) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{arg}: {e:?}");
                    std::process::exit(2);
                }
            },
        };
        let out = match run(&spec, &RunOptions { seed: spec.default_seed, trace: true, pcap: vec![] }) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{arg}: {e}");
                std::process::exit(1);
            }
        };
        let mut h = Fnv(FNV_OFFSET);
        let _ = write!(h, "{:?}{:?}{:?}{:?}", out.summary, out.flows, out.events, out.timeseries);
        // The same without the timeseries (a change to the sampler alone must leave it equal).
        let mut rest = Fnv(FNV_OFFSET);
        let _ = write!(rest, "{:?}{:?}{:?}{:?}", out.summary, out.flows, out.events, out.queues);
        println!(
            "{arg}: {:016x}  without timeseries {:016x}  events {}  event rows {}  timeseries rows {}",
            h.0,
            rest.0,
            out.summary.events,
            out.events.num_rows(),
            out.timeseries.num_rows()
        );
    }
}

//! Throughput of reading + connection tracking on a synthetic capture.
//!
//! `cargo run --release -p tcplab-pcap --example throughput [packets] [connections]`
//! (defaults: 1.5 M packets, 100 concurrent connections; a third argument `--no-track`
//! times the reader alone). Writes the capture to a temp
//! file, then times one pass of `CaptureReader` + `ConnTracker` over it (file in the page
//! cache after writing, so this measures parsing, not the disk).

use std::fs::File;
use std::io::BufWriter;
use std::time::Instant;

use tcplab_pcap::{synth, CaptureReader, ConnTracker};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let packets: u64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1_500_000);
    let conns: u32 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(100);
    let track = args.next().as_deref() != Some("--no-track");
    let path = std::env::temp_dir().join(format!("tcplab-pcap-throughput-{}.pcap", std::process::id()));
    let n = synth::write_synthetic_capture(BufWriter::new(File::create(&path)?), conns, packets)?;
    let size = std::fs::metadata(&path)?.len();

    let mut best = f64::MAX;
    for round in 0..3 {
        let start = Instant::now();
        let reader = CaptureReader::open(&path)?;
        let mut tracker = ConnTracker::default();
        let mut segs = 0u64;
        let mut data = 0u64;
        let mut reader = reader;
        for s in reader.by_ref() {
            segs += 1;
            if track {
                let o = tracker.observe(&s);
                data += (o.kind == tcplab_pcap::SegKind::Data) as u64;
            } else {
                data += (s.segment.len > 0) as u64;
            }
        }
        let records = tracker.finish();
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        println!(
            "round {round}: {segs} segments ({data} data) in {secs:.3} s = {:.2} M packets/s; {} connections; anomalies clean: {}",
            segs as f64 / secs / 1e6,
            records.len(),
            reader.anomalies().is_clean()
        );
    }
    println!(
        "best: {:.2} M packets/s, {:.0} MB/s ({n} packets, {:.1} MB file)",
        n as f64 / best / 1e6,
        size as f64 / best / 1e6,
        size as f64 / 1e6
    );
    std::fs::remove_file(&path)?;
    Ok(())
}

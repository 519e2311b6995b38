//! Any byte string through the whole analyzer (reader, tracker, sender replay, cause and
//! evidence rules, tables): no panic, and every retransmission row is well formed.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use tcplab_analyze::{AnalyzeConfig, FileAnalyzer};
use tcplab_pcap::{CaptureReader, ReaderConfig};

fuzz_target!(|data: &[u8]| {
    let cfg = ReaderConfig { buffer_size: 4096, max_record_len: 1 << 20, ..ReaderConfig::default() };
    if let Ok(mut reader) = CaptureReader::from_reader("fuzz", Cursor::new(data.to_vec()), cfg) {
        let mut fa = FileAnalyzer::new(0, AnalyzeConfig::default());
        fa.run(&mut reader);
        let (retx, conns, _, _) = fa.finish();
        for r in &retx {
            assert!(r.r.frame >= 1);
            assert!(r.r.spurious.is_some() || r.r.evidence == tcplab_analyze::Evidence::None);
        }
        let names = [tcplab_analyze::output::CaptureNames { path: "fuzz".into(), name: "fuzz".into() }];
        let _ = tcplab_analyze::output::retransmissions_table(&retx, &names);
        let _ = tcplab_analyze::output::connections_table(&conns, &names, None);
    }
});

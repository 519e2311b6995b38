//! Any byte string through the capture reader and the connection tracker: no panic, no
//! allocation driven by length fields (libFuzzer's -rss_limit_mb catches that), and the
//! decoded segments keep their invariants.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use tcplab_pcap::{CaptureReader, ConnTracker, ReaderConfig};

fuzz_target!(|data: &[u8]| {
    let cfg = ReaderConfig { buffer_size: 4096, max_record_len: 1 << 20, ..ReaderConfig::default() };
    if let Ok(reader) = CaptureReader::from_reader("fuzz", Cursor::new(data.to_vec()), cfg) {
        let mut tracker = ConnTracker::default();
        for seg in reader {
            assert!(seg.captured_payload <= seg.segment.len);
            assert!(seg.frame >= 1);
            let obs = tracker.observe(&seg);
            assert!(obs.conn_id < u64::MAX);
        }
        let _ = tracker.finish();
    }
});

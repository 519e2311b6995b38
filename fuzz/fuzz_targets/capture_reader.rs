//! Any byte string through the capture reader and the connection tracker: no panic, no
//! allocation driven by length fields (libFuzzer's -rss_limit_mb catches that), the
//! decoded segments keep their invariants, and every byte of an uncompressed input is
//! accounted for (used, or in one of the `*_bytes` anomaly counters).
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use tcplab_pcap::{CaptureReader, ConnTracker, ReaderConfig};

fuzz_target!(|data: &[u8]| {
    let cfg = ReaderConfig { buffer_size: 4096, max_record_len: 1 << 20, ..ReaderConfig::default() };
    if let Ok(mut reader) = CaptureReader::from_reader("fuzz", Cursor::new(data.to_vec()), cfg) {
        let mut tracker = ConnTracker::default();
        for seg in reader.by_ref() {
            assert!(seg.captured_payload <= seg.segment.len);
            assert!(seg.frame >= 1);
            let obs = tracker.observe(&seg);
            assert!(obs.conn_id < u64::MAX);
        }
        let a = reader.anomalies();
        if reader.compression().is_none() && a.read_errors == 0 {
            assert_eq!(reader.bytes_used() + a.skipped_bytes(), data.len() as u64, "{a:?}");
        }
        for r in tracker.finish() {
            let _ = r.observed_end().name();
        }
    }
});

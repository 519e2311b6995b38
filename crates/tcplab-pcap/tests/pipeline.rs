//! `for_each_tracked` (src/pipeline.rs): the reading thread hands the analysing one exactly
//! what one thread observing segment by segment sees, connections finished mid-capture
//! included, across many batches.

use std::io::Cursor;
use std::net::{IpAddr, Ipv4Addr};

use tcplab_pcap::pipeline::BATCH_SEGMENTS;
use tcplab_pcap::synth::{ethernet, ipv4_tcp, PcapFile, TcpSpec};
use tcplab_pcap::{
    for_each_tracked, CaptureReader, CapturedSegment, ConnRecord, ConnTracker, Observation, ReaderConfig, Threading, TrackerConfig,
};

const T0: u64 = 1_700_000_000_000_000_000;
/// Short connections in the capture, each started `START_GAP_NS` after the previous one.
const CONNS: u32 = 600;
const START_GAP_NS: u64 = 300_000;
/// Time between two packets of one connection.
const PKT_GAP_NS: u64 = 1_000_000;
/// Closed connections are evicted 2 ms after they close: records are finished all through
/// the capture, inside batches and at their edges.
const CLOSED_TIMEOUT_NS: u64 = 2_000_000;

/// Many overlapping short connections (handshake, 6 data segments each ACKed, FINs).
fn capture() -> Vec<u8> {
    let mut pkts: Vec<(u64, Vec<u8>)> = Vec::new();
    for c in 0..CONNS {
        let client = IpAddr::V4(Ipv4Addr::from(0x0A00_0000u32 + c));
        let server = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
        let (isn_c, isn_s) = (1000u32.wrapping_mul(c + 1), 7000u32.wrapping_mul(c + 3));
        let mut t = T0 + u64::from(c) * START_GAP_NS;
        let mut push = |from_client: bool, flags: u8, seq: u32, ack: u32, len: u32| {
            let spec = TcpSpec {
                src: if from_client { client } else { server },
                dst: if from_client { server } else { client },
                sport: if from_client { 40000 } else { 443 },
                dport: if from_client { 443 } else { 40000 },
                seq,
                ack,
                flags,
                payload_len: len,
                ..TcpSpec::default()
            };
            pkts.push((t, ethernet(&[], &ipv4_tcp(&spec))));
            t += PKT_GAP_NS;
        };
        push(true, 0x02, isn_c, 0, 0);
        push(false, 0x12, isn_s, isn_c + 1, 0);
        push(true, 0x10, isn_c + 1, isn_s + 1, 0);
        for k in 0..6u32 {
            push(true, 0x18, isn_c + 1 + k * 1000, isn_s + 1, 1000);
            push(false, 0x10, isn_s + 1, isn_c + 1 + (k + 1) * 1000, 0);
        }
        let end = isn_c + 1 + 6000;
        push(true, 0x11, end, isn_s + 1, 0);
        push(false, 0x11, isn_s + 1, end + 1, 0);
        push(true, 0x10, end + 1, isn_s + 2, 0);
    }
    pkts.sort_by_key(|p| p.0);
    let mut f = PcapFile::new(1, 262_144, false, true);
    for (t, p) in &pkts {
        f.record(*t, p, None);
    }
    f.bytes
}

/// Everything the callback is given for one segment: (frame, observation, finished records).
type Seen = (u64, Observation, Vec<ConnRecord>);

/// What the callback was given, segment by segment, and the records `finish` returned.
fn observed(threading: Threading) -> (Vec<Seen>, Vec<ConnRecord>) {
    let mut r = CaptureReader::from_reader("pipeline.pcap", Cursor::new(capture()), ReaderConfig::default()).expect("capture");
    let cfg = TrackerConfig { closed_timeout_ns: CLOSED_TIMEOUT_NS, ..TrackerConfig::default() };
    let mut tracker = ConnTracker::new(cfg);
    let mut seen = Vec::new();
    for_each_tracked(&mut r, &mut tracker, threading, |t| seen.push((t.seg.frame, t.obs, t.finished.to_vec())));
    (seen, tracker.finish())
}

#[test]
fn the_pipelined_reader_hands_out_what_one_thread_sees() {
    let (one, one_rest) = observed(Threading::OneThread);
    let (two, two_rest) = observed(Threading::Pipelined);
    // The capture spans many batches and finishes connections inside them.
    assert_eq!(one.len(), CONNS as usize * 18);
    assert!(one.len() > 5 * BATCH_SEGMENTS);
    let finished: usize = one.iter().map(|s| s.2.len()).sum();
    assert!(finished > CONNS as usize / 2, "only {finished} connections finished before the end");
    assert!(one.windows(2).all(|w| w[0].0 < w[1].0), "frames out of order");
    assert_eq!(one, two);
    assert_eq!(one_rest, two_rest);
    assert_eq!(finished + one_rest.len(), CONNS as usize);
}

#[test]
fn an_empty_capture_and_one_shorter_than_a_batch_work_pipelined() {
    let empty = PcapFile::new(1, 262_144, false, true).bytes;
    let mut r = CaptureReader::from_reader("empty.pcap", Cursor::new(empty), ReaderConfig::default()).expect("capture");
    let mut tracker = ConnTracker::new(TrackerConfig::default());
    let mut n = 0;
    for_each_tracked(&mut r, &mut tracker, Threading::Pipelined, |_| n += 1);
    assert_eq!(n, 0);

    let mut f = PcapFile::new(1, 262_144, false, true);
    let spec = TcpSpec { flags: 0x02, ..TcpSpec::default() };
    f.record(T0, &ethernet(&[], &ipv4_tcp(&spec)), None);
    let mut r = CaptureReader::from_reader("one.pcap", Cursor::new(f.bytes), ReaderConfig::default()).expect("capture");
    let mut frames = Vec::new();
    for_each_tracked(&mut r, &mut tracker, Threading::Pipelined, |t| frames.push(t.seg.frame));
    assert_eq!(frames, vec![1]);
    assert_eq!(r.frames(), 1);
}

/// A panic in the analysing callback reaches the caller: the reading thread stops instead of
/// waiting for batches that will never come back (checked from a watchdog thread, so a
/// regression fails the test instead of hanging it).
#[test]
fn a_panic_in_the_callback_reaches_the_caller_pipelined() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(|| {
            let mut r = CaptureReader::from_reader("p.pcap", Cursor::new(capture()), ReaderConfig::default()).expect("capture");
            let mut tracker = ConnTracker::new(TrackerConfig::default());
            let mut n = 0;
            for_each_tracked(&mut r, &mut tracker, Threading::Pipelined, |_| {
                n += 1;
                assert!(n < 100, "the callback fails at the 100th segment");
            });
        });
        let _ = tx.send(r.is_err());
    });
    let panicked = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("for_each_tracked hung after a panic");
    assert!(panicked);
}

/// `CaptureReader::next_into` (the pipeline's way of filling a batch: boxes swapped, the
/// segment never copied) hands over exactly the segments `next_ref` lends out, and leaves
/// the caller's box alone at the end.
#[test]
fn next_into_hands_over_what_next_ref_lends() {
    let open = || CaptureReader::from_reader("pipeline.pcap", Cursor::new(capture()), ReaderConfig::default()).expect("capture");
    let mut by_ref = open();
    let mut lent = Vec::new();
    while let Some(s) = by_ref.next_ref() {
        lent.push(format!("{s:?}"));
    }
    let mut by_swap = open();
    // Two boxes in turn, as a batch's slots are reused: each is overwritten whole.
    let mut boxes = [Box::new(CapturedSegment::blank()), Box::new(CapturedSegment::blank())];
    let mut handed = Vec::new();
    for k in 0.. {
        let slot = &mut boxes[k % 2];
        if !by_swap.next_into(slot) {
            break;
        }
        handed.push(format!("{:?}", **slot));
    }
    assert_eq!(lent.len(), CONNS as usize * 18);
    assert_eq!(handed, lent);
    let k = lent.len() % 2;
    let before = format!("{:?}", boxes[k]);
    assert!(!by_swap.next_into(&mut boxes[k]));
    assert_eq!(format!("{:?}", boxes[k]), before, "the end leaves the slot untouched");
}

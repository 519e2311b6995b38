//! Structure-aware: arbitrary TCP exchanges written into a *valid* pcap, so that every
//! input reaches the analyzer's state machine (tracker, sender replay, cause and evidence
//! rules) instead of dying in the container parser. Each packet is chosen by the fuzzer:
//! direction, flags, sequence and ACK offsets from the connection's ISNs, payload length,
//! window, timestamps and SACK blocks, and the time step. Invariants: no panic, and every
//! retransmission row is well formed (frame within the file, length > 0, a detection
//! duration never longer than the capture, `seq` within reach of the bytes sent).
#![no_main]

use std::io::Cursor;
use std::net::{IpAddr, Ipv4Addr};

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use tcplab_analyze::{AnalyzeConfig, FileAnalyzer};
use tcplab_pcap::synth::{ipv4_tcp, PcapFile, TcpSpec};
use tcplab_pcap::{CaptureReader, ReaderConfig};

/// LINKTYPE_RAW (raw IPv4).
const LINKTYPE_RAW: u32 = 101;
const CLIENT_ISN: u32 = 0xFFFF_F000; // close to the wrap, so unwrapping is exercised
const SERVER_ISN: u32 = 7_000;
const T0_NS: u64 = 1_700_000_000_000_000_000;

#[derive(Arbitrary, Debug)]
struct Pkt {
    from_server: bool,
    /// Which connection (two share the 5-tuple space: port reuse is exercised).
    conn: bool,
    flags: u8,
    /// Offset of `seq` from the sender's ISN.
    seq_off: u16,
    ack_off: u16,
    len: u16,
    window: u16,
    /// Time since the previous packet, µs.
    dt_us: u16,
    ts: Option<(u16, u16)>,
    sack: Vec<(u16, u16)>,
    mss: bool,
}

fn options(p: &Pkt, base_peer: u32) -> Vec<u8> {
    let mut o = Vec::new();
    if p.mss {
        o.extend_from_slice(&[2, 4, 0x05, 0xb4, 4, 2]); // MSS 1460, SACK permitted
    }
    if let Some((v, e)) = p.ts {
        o.extend_from_slice(&[8, 10]);
        o.extend_from_slice(&u32::from(v).to_be_bytes());
        o.extend_from_slice(&u32::from(e).to_be_bytes());
    }
    let blocks: Vec<_> = p.sack.iter().take(3).collect();
    if !blocks.is_empty() {
        o.extend_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
        for &&(l, r) in &blocks {
            o.extend_from_slice(&base_peer.wrapping_add(u32::from(l) * 8).to_be_bytes());
            o.extend_from_slice(&base_peer.wrapping_add(u32::from(r) * 8).to_be_bytes());
        }
    }
    while o.len() % 4 != 0 {
        o.push(1);
    }
    o
}

fuzz_target!(|pkts: Vec<Pkt>| {
    let mut f = PcapFile::new(LINKTYPE_RAW, 65535, false, true);
    let mut t = T0_NS;
    let mut sent: u64 = 0;
    for p in pkts.iter().take(400) {
        t += u64::from(p.dt_us) * 1_000;
        let (c, s) = (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));
        let cport = if p.conn { 40_001 } else { 40_000 };
        let (src, dst, sport, dport, isn, peer_isn) =
            if p.from_server { (s, c, 80, cport, SERVER_ISN, CLIENT_ISN) } else { (c, s, cport, 80, CLIENT_ISN, SERVER_ISN) };
        // Sequence offsets in units of 8 bytes reach past 2^19; payload at most 1460.
        let seq = isn.wrapping_add(u32::from(p.seq_off) * 8);
        let len = u32::from(p.len % 1461);
        sent += u64::from(len);
        let spec = TcpSpec {
            src,
            dst,
            sport,
            dport,
            seq,
            ack: peer_isn.wrapping_add(u32::from(p.ack_off) * 8),
            flags: p.flags,
            window: p.window,
            options: options(p, peer_isn),
            payload_len: len,
            captured_payload: 0,
            ..TcpSpec::default()
        };
        f.record(t, &ipv4_tcp(&spec), None);
    }
    let frames = pkts.len().min(400) as u64;
    let span_ns = t - T0_NS;
    let cfg = ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() };
    let Ok(mut reader) = CaptureReader::from_reader("fuzz", Cursor::new(f.bytes), cfg) else {
        panic!("a pcap written by synth must open");
    };
    let mut fa = FileAnalyzer::new(0, AnalyzeConfig::default());
    fa.run(&mut reader);
    assert!(reader.anomalies().corrupt_record_length == 0 && reader.anomalies().truncated_file == 0);
    let (retx, conns, _, _) = fa.finish();
    for r in &retx {
        assert!(r.r.frame >= 1 && r.r.frame <= frames, "{r:?}");
        assert!(r.r.len > 0, "{r:?}");
        assert!(r.r.detection_ns.map_or(true, |d| d <= span_ns), "{r:?}");
        assert!(r.r.seq.unsigned_abs() <= (1 << 20) + sent, "{r:?}");
    }
    let names = [tcplab_analyze::output::CaptureNames { path: "fuzz".into(), name: "fuzz".into() }];
    let _ = tcplab_analyze::output::retransmissions_table(&retx, &names);
    let _ = tcplab_analyze::output::connections_table(&conns, &names, Some("rfc"));
});

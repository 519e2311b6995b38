//! Structure-aware, for the OS inference (`tcplab-analyze/src/infer/`): a *plausible* bulk
//! transfer written into a valid pcap and analysed with `--model auto`, so that every
//! candidate's replay (`infer/bank.rs`), the scoring and the decision (`infer/decide.rs`)
//! run on each input. `analyzer_structured` feeds free-form packets through one forced model:
//! its connections rarely have a handshake and new data followed by a retransmission, and it
//! never runs the inference, so `decide.rs` was not reached (line coverage, docs/fuzzing.md).
//!
//! Each input is a handshake (options chosen by the fuzzer: MSS, SACK-permitted, timestamps,
//! window scale) at a chosen RTT, then a script of steps at the sender: send new segments,
//! acknowledge cumulatively, duplicate ACKs with SACK blocks, retransmit a chosen segment
//! after a wait taken from a table of the candidates' timer values (so that timeouts of
//! each profile's RTO, fast retransmits after three duplicates, and spurious timeouts all
//! occur), close with FIN or RST. Invariants: no panic; every connection's inference names
//! a candidate or `unknown`, lists only candidates, has a confidence in [0, 1] and a
//! replayed model among the candidates; retransmission rows are well formed (frame within
//! the file, detection no longer than the capture).
#![no_main]

use std::io::Cursor;
use std::net::{IpAddr, Ipv4Addr};

use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use tcplab_analyze::infer::DEFAULT_CANDIDATES;
use tcplab_analyze::{AnalyzeConfig, FileAnalyzer, VantageChoice};
use tcplab_pcap::synth::{ipv4_tcp, PcapFile, TcpSpec};
use tcplab_pcap::{CaptureReader, ReaderConfig};

/// LINKTYPE_RAW (raw IPv4).
const LINKTYPE_RAW: u32 = 101;
const CLIENT_ISN: u32 = 0xFFFF_F000; // the sequence space wraps within the first segments
const SERVER_ISN: u32 = 7_000;
const T0_NS: u64 = 1_700_000_000_000_000_000;
/// Steps per input (a bound on the run time of one input).
const MAX_STEPS: usize = 300;
/// Segments the script can name (index into the segments sent).
const MAX_SEGMENTS: u32 = 256;
/// TCP flags.
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;
/// Waits before a retransmission, ms: the minimum RTOs and initial RTOs of the candidate
/// profiles (200 ms Linux, 300 ms for some, 1 s RFC 6298, 1.2 s FreeBSD's tick-rounded
/// value, 3 s RFC 1122's initial, 400 ms/500 ms Windows/Solaris) and their doublings, plus
/// short waits that fit no timer (a fast retransmit or an unexplained one).
const WAITS_MS: [u64; 16] = [1, 5, 20, 200, 220, 300, 400, 500, 600, 1_000, 1_200, 2_000, 2_400, 3_000, 6_000, 12_000];

/// The connection's parameters; the rest of the input is the script, one [`Step`] after
/// another until the bytes run out (read by hand: a derived `Vec` spends a "continue" bit
/// before each element, so that half of all random inputs would stop after one step).
#[derive(Arbitrary, Debug)]
struct Input {
    /// Round-trip time at the sender, ms (1..=256).
    rtt_ms: u8,
    mss_class: u8,
    sack_permitted: bool,
    timestamps: bool,
    wscale: Option<u8>,
    /// The capture point: at the sender (times as the sender saw them), or the analyzer
    /// decides (`auto`).
    at_sender: bool,
}

#[derive(Arbitrary, Debug)]
enum Step {
    /// New segments, back to back.
    Send { segments: u8, len_class: u8 },
    /// The receiver acknowledges up to segment `upto` (after one RTT).
    Ack { upto: u8 },
    /// `count` duplicate ACKs, each with one SACK block over segment `sacked` ..= +`extra`.
    DupAcks { count: u8, sacked: Option<(u8, u8)> },
    /// Segment `seg` is sent again after `WAITS_MS[wait]` (times its backoff multiple).
    Retransmit { seg: u8, wait: u8, backoff: u8 },
    /// Time passes.
    Wait { wait: u8 },
    /// The connection ends.
    Close { rst: bool, from_server: bool },
}

/// Writes the packets of one connection.
struct Writer {
    file: PcapFile,
    t_ns: u64,
    frames: u64,
    ts_val: u32,
    timestamps: bool,
    sack: bool,
}

impl Writer {
    fn packet(&mut self, from_server: bool, seq: u32, ack: u32, flags: u8, len: u32, extra_opts: &[u8]) {
        let (c, s) = (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));
        let (src, dst, sport, dport) = if from_server { (s, c, 80, 40_000) } else { (c, s, 40_000, 80) };
        let mut options = extra_opts.to_vec();
        if self.timestamps {
            self.ts_val = self.ts_val.wrapping_add(1);
            options.extend_from_slice(&[1, 1, 8, 10]);
            options.extend_from_slice(&self.ts_val.to_be_bytes());
            options.extend_from_slice(&self.ts_val.wrapping_sub(1).to_be_bytes());
        }
        let spec = TcpSpec {
            src,
            dst,
            sport,
            dport,
            seq,
            ack,
            flags,
            window: 65_535,
            options,
            payload_len: len,
            captured_payload: 0,
            ..TcpSpec::default()
        };
        self.file.record(self.t_ns, &ipv4_tcp(&spec), None);
        self.frames += 1;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(input) = Input::arbitrary(&mut u) else { return };
    let mut steps = Vec::with_capacity(MAX_STEPS);
    while !u.is_empty() && steps.len() < MAX_STEPS {
        match Step::arbitrary(&mut u) {
            Ok(step) => steps.push(step),
            Err(_) => break,
        }
    }
    let rtt_ns = (u64::from(input.rtt_ms) + 1) * 1_000_000;
    let mss: u32 = [536, 1_000, 1_448, 1_460][usize::from(input.mss_class % 4)];
    let mut w = Writer {
        file: PcapFile::new(LINKTYPE_RAW, 65_535, false, true),
        t_ns: T0_NS,
        frames: 0,
        ts_val: 1,
        timestamps: input.timestamps,
        sack: input.sack_permitted,
    };
    // Handshake (RFC 793 §3.4), with the options the fuzzer chose on both SYNs.
    let mut syn_opts = vec![2, 4];
    syn_opts.extend_from_slice(&(mss as u16).to_be_bytes());
    if input.sack_permitted {
        syn_opts.extend_from_slice(&[1, 1, 4, 2]);
    }
    if let Some(shift) = input.wscale {
        syn_opts.extend_from_slice(&[1, 3, 3, shift % 15]);
    }
    w.packet(false, CLIENT_ISN, 0, SYN, 0, &syn_opts);
    w.t_ns += rtt_ns;
    w.packet(true, SERVER_ISN, CLIENT_ISN.wrapping_add(1), SYN | ACK, 0, &syn_opts);
    w.packet(false, CLIENT_ISN.wrapping_add(1), SERVER_ISN.wrapping_add(1), ACK, 0, &[]);
    let srv_ack = SERVER_ISN.wrapping_add(1);
    // Segment i covers [starts[i], starts[i] + lens[i]) relative to the ISN + 1.
    let mut starts: Vec<u32> = Vec::new();
    let mut lens: Vec<u32> = Vec::new();
    let mut next: u32 = 0;
    let mut acked: u32 = 0;
    let mut closed = false;
    let seq_of = |rel: u32| CLIENT_ISN.wrapping_add(1).wrapping_add(rel);
    let sack_block = |l: u32, r: u32| {
        let mut o = vec![1, 1, 5, 10];
        o.extend_from_slice(&seq_of(l).to_be_bytes());
        o.extend_from_slice(&seq_of(r).to_be_bytes());
        o
    };
    for step in &steps {
        if closed {
            break;
        }
        match *step {
            Step::Send { segments, len_class } => {
                for _ in 0..=(segments % 16) {
                    if starts.len() as u32 >= MAX_SEGMENTS {
                        break;
                    }
                    let len = if len_class % 4 == 0 { 1 + u32::from(len_class) % mss } else { mss };
                    w.t_ns += 10_000; // 10 µs apart
                    w.packet(false, seq_of(next), srv_ack, ACK | PSH, len, &[]);
                    starts.push(next);
                    lens.push(len);
                    next += len;
                }
            }
            Step::Ack { upto } => {
                if starts.is_empty() {
                    continue;
                }
                let i = usize::from(upto) % starts.len();
                acked = acked.max(starts[i] + lens[i]);
                w.t_ns += rtt_ns;
                w.packet(true, srv_ack, seq_of(acked), ACK, 0, &[]);
            }
            Step::DupAcks { count, sacked } => {
                let opts = match (sacked, w.sack, starts.is_empty()) {
                    (Some((s, extra)), true, false) => {
                        let a = usize::from(s) % starts.len();
                        let b = (a + usize::from(extra % 4)).min(starts.len() - 1);
                        sack_block(starts[a], starts[b] + lens[b])
                    }
                    _ => Vec::new(),
                };
                for _ in 0..=(count % 6) {
                    w.t_ns += 100_000;
                    w.packet(true, srv_ack, seq_of(acked), ACK, 0, &opts);
                }
            }
            Step::Retransmit { seg, wait, backoff } => {
                if starts.is_empty() {
                    continue;
                }
                let i = usize::from(seg) % starts.len();
                let wait_ms = WAITS_MS[usize::from(wait) % WAITS_MS.len()] << (backoff % 4);
                w.t_ns += wait_ms * 1_000_000;
                w.packet(false, seq_of(starts[i]), srv_ack, ACK, lens[i], &[]);
            }
            Step::Wait { wait } => {
                w.t_ns += WAITS_MS[usize::from(wait) % WAITS_MS.len()] * 1_000_000;
            }
            Step::Close { rst, from_server } => {
                let flags = if rst { RST | ACK } else { FIN | ACK };
                w.t_ns += 1_000_000;
                if from_server {
                    w.packet(true, srv_ack, seq_of(acked), flags, 0, &[]);
                } else {
                    w.packet(false, seq_of(next), srv_ack, flags, 0, &[]);
                }
                closed = true;
            }
        }
    }
    let frames = w.frames;
    let span_ns = w.t_ns - T0_NS;
    let reader_cfg = ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() };
    let Ok(mut reader) = CaptureReader::from_reader("fuzz", Cursor::new(w.file.bytes), reader_cfg) else {
        panic!("a pcap written by synth must open");
    };
    let vantage = if input.at_sender { VantageChoice::Sender } else { VantageChoice::Auto };
    let cfg = AnalyzeConfig { vantage, reader: reader_cfg, ..AnalyzeConfig::auto() };
    let mut fa = FileAnalyzer::new(0, cfg);
    fa.run(&mut reader);
    let (retx, conns, _, _) = fa.finish();
    for r in &retx {
        assert!(r.r.frame >= 1 && r.r.frame <= frames, "{r:?}");
        assert!(r.r.detection_ns.map_or(true, |d| d <= span_ns), "{r:?}");
    }
    for c in &conns {
        for inf in c.inference.iter().flatten() {
            let known = |m: &str| DEFAULT_CANDIDATES.contains(&m);
            assert!(inf.model.as_deref().map_or(true, known), "{inf:?}");
            assert!(inf.candidates.iter().all(|m| known(m)), "{inf:?}");
            assert!(known(&inf.replayed), "{inf:?}");
            assert!(inf.confidence.map_or(true, |p| (0.0..=1.0).contains(&p)), "{inf:?}");
            assert_eq!(inf.scores.len(), DEFAULT_CANDIDATES.len(), "{inf:?}");
        }
    }
    let names = [tcplab_analyze::output::CaptureNames { path: "fuzz".into(), name: "fuzz".into() }];
    let _ = tcplab_analyze::output::retransmissions_table(&retx, &names);
    let _ = tcplab_analyze::output::connections_table(&conns, &names, None);
});

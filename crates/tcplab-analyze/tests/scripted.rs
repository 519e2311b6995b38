//! Scripted captures built byte by byte (tcplab-pcap's `synth` module), one per cause and
//! evidence rule, plus damaged inputs. Times are in milliseconds from the SYN.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use tcplab_analyze::{analyze_paths, AnalyzeConfig, Cause, Evidence, VantageChoice};
use tcplab_analyze::Trigger;
use tcplab_pcap::synth::{ipv4_tcp, PcapFile, TcpSpec};

const MS: u64 = 1_000_000;
const T0: u64 = 1_700_000_000 * 1_000_000_000;
const C_ISN: u32 = 1000;
const S_ISN: u32 = 5000;
const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const SYNACK: u8 = 0x12;
const PSHACK: u8 = 0x18;
const LINKTYPE_RAW: u32 = 101;

#[derive(Clone, Copy)]
enum From {
    Client,
    Server,
}

struct Script {
    f: PcapFile,
    ts: bool,
    sack: bool,
}

fn opts(ts: Option<(u32, u32)>, sack_ok: bool, mss: bool, sack: &[(u32, u32)]) -> Vec<u8> {
    let mut o = Vec::new();
    if mss {
        o.extend_from_slice(&[2, 4, 0x05, 0xb4]);
    }
    if sack_ok {
        o.extend_from_slice(&[4, 2]);
    }
    if let Some((v, e)) = ts {
        o.extend_from_slice(&[8, 10]);
        o.extend_from_slice(&v.to_be_bytes());
        o.extend_from_slice(&e.to_be_bytes());
    }
    if !sack.is_empty() {
        o.extend_from_slice(&[1, 1, 5, 2 + 8 * sack.len() as u8]);
        for (l, r) in sack {
            o.extend_from_slice(&l.to_be_bytes());
            o.extend_from_slice(&r.to_be_bytes());
        }
    }
    o
}

impl Script {
    /// A capture at the client (the data sender): the SYN-ACK comes a full RTT (100 ms) after
    /// the SYN and the handshake ACK leaves at once.
    fn new(ts: bool, sack: bool) -> Script {
        let mut s = Script { f: PcapFile::new(LINKTYPE_RAW, 65535, false, true), ts, sack };
        s.pkt(0, From::Client, SYN, C_ISN, 0, 0, 1, 0, &[]);
        s.pkt(100 * MS, From::Server, SYNACK, S_ISN, C_ISN + 1, 0, 100, 1, &[]);
        s.pkt(100 * MS + 100_000, From::Client, ACK, C_ISN + 1, S_ISN + 1, 0, 101, 100, &[]);
        s
    }

    #[allow(clippy::too_many_arguments)]
    fn pkt(&mut self, t: u64, from: From, flags: u8, seq: u32, ack: u32, len: u32, tsval: u32, tsecr: u32, sack: &[(u32, u32)]) {
        let (src, dst, sport, dport) = match from {
            From::Client => ([10, 0, 0, 1], [10, 0, 0, 2], 40000, 80),
            From::Server => ([10, 0, 0, 2], [10, 0, 0, 1], 80, 40000),
        };
        let syn = flags & SYN != 0;
        let spec = TcpSpec {
            src: std::net::IpAddr::from(src),
            dst: std::net::IpAddr::from(dst),
            sport,
            dport,
            seq,
            ack,
            flags,
            window: 65535,
            options: opts(self.ts.then_some((tsval, tsecr)), syn && self.sack, syn, sack),
            payload_len: len,
            captured_payload: 0,
            ..TcpSpec::default()
        };
        self.f.record(T0 + t, &ipv4_tcp(&spec), None);
    }

    /// Data segment `k` (1000 bytes) from the client.
    fn data(&mut self, t_ms: u64, k: u32, tsval: u32) {
        self.pkt(t_ms * MS, From::Client, PSHACK, C_ISN + 1 + 1000 * k, S_ISN + 1, 1000, tsval, 100, &[]);
    }

    /// ACK from the server for client bytes up to segment `upto` (exclusive), with SACK
    /// blocks given in segment numbers.
    fn ack(&mut self, t_ms: u64, upto: u32, tsval: u32, tsecr: u32, sack: &[(u32, u32)]) {
        let blocks: Vec<(u32, u32)> = sack.iter().map(|&(a, b)| (C_ISN + 1 + 1000 * a, C_ISN + 1 + 1000 * b)).collect();
        self.pkt(t_ms * MS, From::Server, ACK, S_ISN + 1, C_ISN + 1 + 1000 * upto, 0, tsval, tsecr, &blocks);
    }

    fn write(&self, name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("tcplab-analyze-{}-{name}.pcap", std::process::id()));
        std::fs::write(&p, &self.f.bytes).unwrap();
        p
    }
}

fn analyze_one(p: &PathBuf) -> tcplab_analyze::Analysis {
    analyze_paths(&[p], &AnalyzeConfig::default()).unwrap()
}

/// Six segments, segment 1 missing at the receiver, three duplicate ACKs.
fn fast_retransmit_script(ts: bool, sack: bool) -> Script {
    let mut s = Script::new(ts, sack);
    for k in 0..6 {
        s.data(101 + k as u64, k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    s.ack(203, 1, 203, 101, if sack { &[(2, 3)] } else { &[] });
    s.ack(204, 1, 204, 101, if sack { &[(2, 4)] } else { &[] });
    s.ack(205, 1, 205, 101, if sack { &[(2, 5)] } else { &[] });
    s.data(205, 1, 205);
    s
}

#[test]
fn three_duplicate_acks_then_an_ack_echoing_the_retransmission_make_a_needed_fast_retransmit() {
    let mut s = fast_retransmit_script(true, true);
    s.ack(305, 6, 305, 205, &[]);
    let a = analyze_one(&s.write("fr-needed"));
    assert_eq!(a.retransmissions.len(), 1);
    let r = a.retransmissions[0];
    assert_eq!(r.r.cause, Cause::FastRetransmit);
    assert_eq!(r.r.trigger, Trigger::DupThresh);
    assert_eq!(r.r.spurious, Some(false));
    assert_eq!(r.r.evidence, Evidence::TimestampEcho);
    assert_eq!(r.r.seq, 1001);
    assert_eq!(r.r.len, 1000);
    // 003 §IV-B: detection = original (102 ms) → retransmission (205 ms); recovery = loss
    // detection (205 ms) → ACK of the highest segment sent before it (305 ms).
    assert_eq!(r.r.detection_ns, Some(103 * MS));
    assert_eq!(r.r.recovery_ns, Some(100 * MS));
    assert_eq!(r.r.frame, 14);
    assert_eq!(a.summary.table_iv["fast_retransmit"].needed, 1);
}

// RFC 7323 §4.3 / Linux tcp_replace_ts_recent: only a segment at or below the receiver's left
// edge moves TS.Recent. The retransmission (205 ms, TSval 205) shares its TSval with new
// segment 6 sent in the same tick. An ACK up to segment 6 (cumulative point 6000 bytes)
// echoing 205 can only have taken it from the retransmission: segment 6 starts at that point
// and would have moved RCV.NXT past it. An ACK that also covers segment 6 may echo segment 6's
// TSval: undecided, as before (no SACK here, so no D-SACK rule either).
#[test]
fn a_shared_tsval_decides_only_when_the_sharer_lies_above_the_cumulative_ack() {
    let needed = |upto: u32| {
        let mut s = fast_retransmit_script(true, false);
        s.data(205, 6, 205);
        s.ack(305, upto, 305, 205, &[]);
        let a = analyze_one(&s.write(&format!("shared-ts-{upto}")));
        assert_eq!(a.retransmissions.len(), 1);
        let r = a.retransmissions[0];
        assert_eq!(r.r.cause, Cause::FastRetransmit);
        (r.r.spurious, r.r.evidence)
    };
    assert_eq!(needed(6), (Some(false), Evidence::TimestampEcho));
    assert_eq!(needed(7), (None, Evidence::None));
}

#[test]
fn an_echo_of_the_original_timestamp_marks_the_retransmission_spurious_as_in_eifel() {
    let mut s = fast_retransmit_script(true, true);
    // The delayed original arrives after all; the receiver echoes its TSval (102).
    s.ack(290, 6, 290, 102, &[]);
    let a = analyze_one(&s.write("eifel"));
    let r = a.retransmissions[0];
    assert_eq!((r.r.spurious, r.r.evidence), (Some(true), Evidence::TimestampEcho));
}

#[test]
fn a_dsack_for_the_retransmitted_bytes_marks_it_spurious() {
    let mut s = fast_retransmit_script(false, true);
    s.ack(300, 6, 0, 0, &[(1, 2)]);
    let a = analyze_one(&s.write("dsack"));
    let r = a.retransmissions[0];
    assert_eq!(r.r.cause, Cause::FastRetransmit);
    assert_eq!((r.r.spurious, r.r.evidence), (Some(true), Evidence::Dsack));
}

#[test]
fn an_ack_sooner_than_any_round_trip_after_the_retransmission_marks_it_spurious() {
    let mut s = fast_retransmit_script(false, false);
    s.ack(230, 6, 0, 0, &[]);
    let a = analyze_one(&s.write("too-soon"));
    let r = a.retransmissions[0];
    assert_eq!(r.r.cause, Cause::FastRetransmit);
    assert_eq!((r.r.spurious, r.r.evidence), (Some(true), Evidence::AckTooSoon));
}

#[test]
fn without_sack_or_timestamps_a_plausible_ack_decides_nothing() {
    let mut s = fast_retransmit_script(false, false);
    s.ack(305, 6, 0, 0, &[]);
    let a = analyze_one(&s.write("undecided"));
    let r = a.retransmissions[0];
    assert_eq!((r.r.spurious, r.r.evidence), (None, Evidence::None));
    assert_eq!(a.summary.table_iv["total"].unknown, 1);
}

#[test]
fn with_sack_and_no_dsack_after_two_round_trips_the_retransmission_was_needed() {
    // The longest capture→receiver→capture sample is 199 ms (segment 5, SACKed and then
    // cumulatively acknowledged): the wait is 2 × 199 + 10 = 408 ms after the
    // retransmission (205 ms), i.e. until 613 ms. A window update at 612 ms is too early,
    // one at 614 ms ends the wait. Nothing is sent after the retransmission, so no ACK can
    // show that the receiver answered later data (`no_dsack_by_order`).
    let at = |t: u64| {
        let mut s = fast_retransmit_script(false, true);
        s.ack(305, 6, 0, 0, &[]);
        s.ack(t, 6, 0, 0, &[]);
        let a = analyze_one(&s.write(&format!("no-dsack-{t}")));
        let r = a.retransmissions[0];
        (r.r.spurious, r.r.evidence)
    };
    assert_eq!(at(612), (None, Evidence::None));
    assert_eq!(at(614), (Some(false), Evidence::NoDsack));
}

/// RFC 2883 §4: the D-SACK rides on the ACK that the duplicate triggers. New segment 6 is
/// sent after the retransmission of segment 1 (205 ms); the ACK at 406 ms acknowledges it, so
/// the receiver sent it after segment 6 arrived, and (sent first) the retransmission arrived
/// before: without a D-SACK up to that ACK the copy was needed, long before the wait (613 ms).
/// With a D-SACK on that ACK it was spurious.
#[test]
fn an_ack_of_data_sent_after_the_retransmission_without_dsack_shows_it_was_needed() {
    let verdict = |dsack: &[(u32, u32)], upto: u32| {
        let mut s = fast_retransmit_script(false, true);
        s.ack(305, 6, 0, 0, &[]);
        s.data(306, 6, 0);
        s.ack(406, upto, 0, 0, dsack);
        let a = analyze_one(&s.write(&format!("by-order-{}-{upto}", dsack.len())));
        let r = a.retransmissions[0];
        (r.r.spurious, r.r.evidence)
    };
    assert_eq!(verdict(&[], 7), (Some(false), Evidence::NoDsackByOrder));
    assert_eq!(verdict(&[(1, 2)], 7), (Some(true), Evidence::Dsack));
    // An ACK that does not reach the new segment proves nothing (capture ends before the wait).
    assert_eq!(verdict(&[], 6), (None, Evidence::None));
}

/// The real `tail-loss` capture's pattern (tests/fixtures/linux/tail-loss): the last two
/// segments are lost, a loss probe re-sends the last one (400 ms, TSval 400), its SACK lets
/// the sender re-send the hole (500 ms, TSval 500), and the ACK covering everything echoes
/// 500. That echo was taken from a segment sent after the probe, at the left edge: the
/// receiver sent it after the probe arrived, and no D-SACK came (RFC 7323 §4.3 + RFC 2883
/// §4): the probe was needed. The connection ends before the D-SACK wait (610 ms). The hole's
/// copy is decided by its own echo (Eifel's converse).
#[test]
fn a_later_segment_s_echo_without_dsack_shows_a_tail_probe_was_needed() {
    let mut s = Script::new(true, true);
    for k in 0..5 {
        s.data(101 + u64::from(k), k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    s.ack(202, 2, 202, 102, &[]);
    s.ack(203, 3, 203, 103, &[]);
    s.data(400, 4, 400);
    s.ack(500, 3, 500, 103, &[(4, 5)]);
    s.data(500, 3, 500);
    s.ack(600, 5, 600, 500, &[]);
    let a = analyze_one(&s.write("tail-probe"));
    let v: Vec<(i64, Option<bool>, Evidence)> = a.retransmissions.iter().map(|r| (r.r.seq, r.r.spurious, r.r.evidence)).collect();
    assert_eq!(v, vec![(4001, Some(false), Evidence::NoDsackByOrder), (3001, Some(false), Evidence::TimestampEcho)]);
}

/// The real `rto-min-50ms` capture's pattern: two timeout copies sent in one TSval tick
/// (1301), acknowledged together by an ACK echoing 1301. The first copy of the tick is proven
/// to have arrived before that ACK was sent (the echo is its TSval or a later segment's);
/// the second is not (the echo may be the first copy's), and the connection ends before the
/// wait: it stays undecided.
#[test]
fn of_two_copies_in_one_tick_only_the_first_is_placed_before_the_echo() {
    let mut s = Script::new(true, true);
    for k in 0..3 {
        s.data(101 + u64::from(k), k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    s.data(1301, 1, 1301);
    s.data(1301, 2, 1301);
    s.ack(1401, 3, 1401, 1301, &[]);
    let a = analyze_one(&s.write("one-tick"));
    let v: Vec<(i64, Option<bool>, Evidence)> = a.retransmissions.iter().map(|r| (r.r.seq, r.r.spurious, r.r.evidence)).collect();
    assert_eq!(v, vec![(1001, Some(false), Evidence::NoDsackByOrder), (2001, None, Evidence::None)]);
}

#[test]
fn a_retransmission_after_a_silent_minimum_rto_is_a_timeout_and_go_back_n_follows_it() {
    let mut s = Script::new(true, true);
    for k in 0..3 {
        s.data(101 + k as u64, k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    // RFC 6298 (5.3) timer restarted at 201 ms; 1 s later it fires.
    s.data(1202, 1, 1202);
    s.data(1203, 2, 1203);
    s.ack(1302, 2, 1302, 1202, &[]);
    s.ack(1303, 3, 1303, 1203, &[]);
    let a = analyze_one(&s.write("rto"));
    assert_eq!(a.retransmissions.len(), 2);
    assert!(a.retransmissions.iter().all(|r| r.r.cause == Cause::Rto && r.r.trigger == Trigger::Rto));
    assert_eq!(a.retransmissions[0].r.spurious, Some(false));
    // One episode: recovery from 1202 ms to the ACK of segment 2 (1303 ms).
    assert_eq!(a.retransmissions[1].r.recovery_ns, Some(101 * MS));
}

#[test]
fn a_retransmission_with_no_trigger_in_the_replayed_state_is_unknown_not_a_guess() {
    let mut s = Script::new(true, true);
    for k in 0..3 {
        s.data(101 + k as u64, k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    s.data(250, 1, 250);
    let a = analyze_one(&s.write("unknown"));
    assert_eq!(a.retransmissions[0].r.cause, Cause::Unknown);
    assert_eq!(a.retransmissions[0].r.trigger, Trigger::Unknown);
    assert_eq!(a.summary.anomalies["unknown_cause"], 1);
}

#[test]
fn the_vantage_is_reported_as_detected_or_forced() {
    let mut s = fast_retransmit_script(true, true);
    s.ack(305, 6, 305, 205, &[]);
    let p = s.write("vantage");
    let a = analyze_one(&p);
    assert_eq!(a.summary.positions.get("sender/detected"), Some(&1));
    let cfg = AnalyzeConfig { vantage: VantageChoice::Middle, ..Default::default() };
    let a = analyze_paths(&[&p], &cfg).unwrap();
    assert_eq!(a.summary.positions.get("middle/forced"), Some(&1));
}

#[test]
fn a_truncated_capture_is_analysed_up_to_the_cut_and_the_cut_is_counted() {
    let mut s = fast_retransmit_script(true, true);
    s.ack(305, 6, 305, 205, &[]);
    let mut bytes = s.f.bytes.clone();
    bytes.truncate(bytes.len() - 7);
    let p = std::env::temp_dir().join(format!("tcplab-analyze-{}-trunc.pcap", std::process::id()));
    std::fs::write(&p, &bytes).unwrap();
    let a = analyze_one(&p);
    assert_eq!(a.summary.captures[0].anomalies.truncated_file, 1);
    assert_eq!(a.retransmissions.len(), 1);
}

#[test]
fn a_corrupt_record_length_stops_reading_there_without_failing() {
    let mut s = fast_retransmit_script(true, true);
    s.f.raw_record(1_700_000_001, 0, 0x7fff_ffff, 0x7fff_ffff, &[0; 16]);
    let p = s.write("corrupt");
    let a = analyze_one(&p);
    assert_eq!(a.summary.captures[0].anomalies.corrupt_record_length, 1);
    assert_eq!(a.retransmissions.len(), 1);
}

#[test]
fn non_tcp_packets_and_unknown_link_types_are_counted_not_fatal() {
    let mut f = PcapFile::new(LINKTYPE_RAW, 65535, false, true);
    let mut udp = ipv4_tcp(&TcpSpec::default());
    udp[9] = 17;
    f.record(T0, &udp, None);
    let p = std::env::temp_dir().join(format!("tcplab-analyze-{}-udp.pcap", std::process::id()));
    std::fs::write(&p, &f.bytes).unwrap();
    let a = analyze_one(&p);
    assert_eq!(a.summary.anomalies["non_tcp"], 1);
    let mut f = PcapFile::new(147, 65535, false, true);
    f.record(T0, &[1, 2, 3], None);
    std::fs::write(&p, &f.bytes).unwrap();
    let a = analyze_one(&p);
    assert_eq!(a.summary.anomalies["unknown_link_type"], 1);
}

#[test]
fn only_when_nothing_is_readable_is_it_an_error_of_one_line() {
    let garbage = std::env::temp_dir().join(format!("tcplab-analyze-{}-garbage.pcap", std::process::id()));
    std::fs::write(&garbage, b"this is not a capture at all").unwrap();
    let e = analyze_paths(&[&garbage], &AnalyzeConfig::default()).unwrap_err().to_string();
    assert!(e.contains("not a pcap or pcapng capture") && !e.contains('\n'), "{e}");
    let missing = PathBuf::from("/nonexistent/x.pcap");
    let e = analyze_paths(&[&missing, &garbage], &AnalyzeConfig::default()).unwrap_err();
    assert_eq!(e.to_string(), "none of the 2 captures could be analysed");
    let tcplab_analyze::AnalyzeError::NothingAnalysable { errors } = e;
    assert_eq!(errors.len(), 2, "each file named with its reason: {errors:?}");
    assert_eq!(errors[0], "/nonexistent/x.pcap: cannot read: no such file");
    assert!(errors[1].contains("not a pcap or pcapng capture"), "{errors:?}");
    let mut s = fast_retransmit_script(true, true);
    s.ack(305, 6, 305, 205, &[]);
    let good = s.write("good");
    let a = analyze_paths(&[&missing, &good], &AnalyzeConfig::default()).unwrap();
    assert_eq!(a.summary.anomalies["unreadable_files"], 1);
    assert_eq!(a.retransmissions.len(), 1);
}

#[test]
fn random_bytes_after_a_valid_header_never_panic() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..200 {
        let mut f = PcapFile::new(if round % 2 == 0 { LINKTYPE_RAW } else { 1 }, 65535, false, true);
        for _ in 0..50 {
            let n = (x % 120) as usize;
            let mut d = Vec::with_capacity(n);
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                d.push(x as u8);
            }
            if round % 3 == 0 && d.len() > 20 {
                d[0] = 0x45;
                d[9] = 6;
            }
            f.record(T0 + x % 1_000_000_000, &d, None);
        }
        let p = std::env::temp_dir().join(format!("tcplab-analyze-{}-fuzz.pcap", std::process::id()));
        std::fs::write(&p, &f.bytes).unwrap();
        let _ = analyze_paths(&[&p], &AnalyzeConfig::default()).unwrap();
    }
}

#[test]
fn state_is_bounded_by_concurrent_connections_not_by_the_capture_length() {
    // 500 short connections, one per second, each closed with FINs: the tracker ends each
    // 60 s (TIME_WAIT) after its close, and the analyzer drops its state with it.
    let mut f = PcapFile::new(LINKTYPE_RAW, 65535, false, true);
    for k in 0..500u64 {
        let t = T0 + k * 1_000_000_000;
        let port = 10_000 + k as u16;
        let mut p = |dt: u64, client: bool, flags: u8, seq: u32, ack: u32, len: u32| {
            let (src, dst, sport, dport) =
                if client { ([10, 0, 0, 1], [10, 0, 0, 2], port, 80) } else { ([10, 0, 0, 2], [10, 0, 0, 1], 80, port) };
            let spec = TcpSpec {
                src: std::net::IpAddr::from(src),
                dst: std::net::IpAddr::from(dst),
                sport,
                dport,
                seq,
                ack,
                flags,
                payload_len: len,
                captured_payload: 0,
                ..TcpSpec::default()
            };
            f.record(t + dt * MS, &ipv4_tcp(&spec), None);
        };
        p(0, true, SYN, 100, 0, 0);
        p(10, false, SYNACK, 900, 101, 0);
        p(11, true, ACK, 101, 901, 0);
        p(12, true, PSHACK, 101, 901, 500);
        p(22, false, ACK, 901, 601, 0);
        p(23, true, 0x11, 601, 901, 0);
        p(33, false, 0x11, 901, 602, 0);
        p(34, true, ACK, 602, 902, 0);
    }
    let path = std::env::temp_dir().join(format!("tcplab-analyze-{}-many.pcap", std::process::id()));
    std::fs::write(&path, &f.bytes).unwrap();
    let a = analyze_one(&path);
    let c = &a.summary.captures[0];
    assert_eq!(c.connections, 500);
    assert_eq!(a.connections.len(), 500);
    assert!(c.peak_concurrent_connections <= 62, "peak {}", c.peak_concurrent_connections);
}

#[test]
fn a_capture_of_one_direction_only_keeps_bounded_state_and_says_so() {
    // Asymmetric routing: the data direction without a single ACK. The replay cannot
    // release anything; past its bound it forgets the oldest copies and counts it.
    let mut f = PcapFile::new(LINKTYPE_RAW, 65535, false, true);
    let n = tcplab_analyze::sender_replay::MAX_WINDOW_SEGS as u32 + 1000;
    for k in 0..n {
        let spec = TcpSpec { seq: 1 + 1000 * k, flags: PSHACK, payload_len: 1000, captured_payload: 0, ..TcpSpec::default() };
        f.record(T0 + u64::from(k) * 10_000, &ipv4_tcp(&spec), None);
    }
    let p = std::env::temp_dir().join(format!("tcplab-analyze-{}-oneway.pcap", std::process::id()));
    std::fs::write(&p, &f.bytes).unwrap();
    let a = analyze_one(&p);
    assert_eq!(a.summary.anomalies["state_truncated"], 1000);
    assert_eq!(a.summary.anomalies["connections_without_handshake"], 1);
    assert!(a.retransmissions.is_empty());
}

#[test]
fn a_retransmission_of_data_sent_before_the_capture_started_gets_no_verdict_from_the_capture() {
    // No handshake: the capture starts with segment 5; segment 2 (sent before) comes again.
    let mut s = Script { f: PcapFile::new(LINKTYPE_RAW, 65535, false, true), ts: false, sack: false };
    for k in 5..8 {
        s.data(100 + k as u64, k, 0);
    }
    s.data(200, 2, 0);
    let a = analyze_one(&s.write("midstream"));
    assert_eq!(a.retransmissions.len(), 1);
    let r = a.retransmissions[0];
    assert_eq!((r.r.spurious, r.r.evidence), (None, Evidence::None));
    assert_eq!(r.r.detection_ns, None);
    assert_eq!(a.summary.positions.get("middle/assumed"), Some(&1));
}

fn analyze_at(p: &PathBuf, v: VantageChoice) -> tcplab_analyze::Analysis {
    analyze_paths(&[p], &AnalyzeConfig { vantage: v, ..Default::default() }).unwrap()
}

#[test]
fn the_second_hole_of_a_window_is_a_sack_recovery_retransmission_in_the_same_episode() {
    let mut s = Script::new(true, true);
    for k in 0..8 {
        s.data(101 + k as u64, k, 101 + k);
    }
    // Segments 1 and 3 lost.
    s.ack(201, 1, 201, 101, &[]);
    s.ack(203, 1, 203, 101, &[(2, 3)]);
    s.ack(205, 1, 205, 101, &[(4, 5), (2, 3)]);
    s.ack(206, 1, 206, 101, &[(4, 6), (2, 3)]);
    s.data(206, 1, 206);
    s.ack(207, 1, 207, 101, &[(4, 7), (2, 3)]);
    s.ack(208, 1, 208, 101, &[(4, 8), (2, 3)]);
    // Partial ACK up to the second hole, then its retransmission.
    s.ack(306, 3, 306, 206, &[(4, 8)]);
    s.data(306, 3, 306);
    s.ack(406, 8, 406, 306, &[]);
    let a = analyze_one(&s.write("sack-recovery"));
    let causes: Vec<(Cause, Trigger)> = a.retransmissions.iter().map(|r| (r.r.cause, r.r.trigger)).collect();
    // The second hole: three SACKed segments above it (4-7) make it lost (RFC 6675 IsLost).
    assert_eq!(causes, vec![(Cause::FastRetransmit, Trigger::DupThresh), (Cause::SackRecovery, Trigger::IsLost)]);
    // One loss episode: detection at 206 ms, the highest segment sent before it (7) is
    // acknowledged at 406 ms.
    assert!(a.retransmissions.iter().all(|r| r.r.recovery_ns == Some(200 * MS)));
    assert!(a.retransmissions.iter().all(|r| r.r.spurious == Some(false)));
}

#[test]
fn at_the_receiver_an_earlier_copy_in_the_capture_makes_the_retransmission_spurious() {
    let mut s = fast_retransmit_script(true, true);
    s.ack(305, 6, 305, 205, &[]);
    let a = analyze_at(&s.write("at-receiver"), VantageChoice::Receiver);
    let r = a.retransmissions[0];
    assert_eq!((r.r.spurious, r.r.evidence), (Some(true), Evidence::ReceiverCapture));
}

#[test]
fn in_the_middle_a_hole_filler_whose_original_never_passed_was_needed() {
    let mut s = Script::new(true, true);
    for k in [0u32, 2, 3, 4, 5] {
        s.data(101 + u64::from(k), k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    s.ack(203, 1, 203, 101, &[(2, 3)]);
    s.ack(204, 1, 204, 101, &[(2, 4)]);
    s.ack(205, 1, 205, 101, &[(2, 5)]);
    s.data(205, 1, 205);
    s.ack(305, 6, 305, 205, &[]);
    let a = analyze_at(&s.write("middle-hole"), VantageChoice::Middle);
    assert_eq!(a.retransmissions.len(), 1);
    let r = a.retransmissions[0];
    assert_eq!(r.r.cause, Cause::FastRetransmit);
    assert_eq!((r.r.spurious, r.r.evidence), (Some(false), Evidence::OriginalNotSeen));
    assert_eq!(r.r.detection_ns, None);
}

#[test]
fn at_the_sender_a_go_back_n_copy_queued_past_the_ack_that_covers_it_is_still_a_timeout() {
    // A timeout, then a burst of ACKs (held on the path by a delay spike): the TCP answers
    // the first (partial) ACK with go-back-N copies of segments 2 and 3, which wait in the
    // host's interface queue and are captured only after the next ACK has covered them and
    // ended the timeout recovery. A sender never resends what it knows delivered, so they
    // left it before that ACK: timeout retransmissions (found in the corpus, delay spikes
    // on the ACK path: 239 such copies were `unknown` at the sender).
    let mut s = Script::new(true, true);
    for k in 0..6 {
        s.data(101 + k as u64, k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    s.data(1202, 1, 1202);
    s.ack(1300, 2, 1300, 102, &[]);
    s.ack(1301, 6, 1301, 105, &[]);
    s.data(1302, 2, 1300);
    s.data(1303, 3, 1300);
    let a = analyze_one(&s.write("queued-go-back-n"));
    let causes: Vec<Cause> = a.retransmissions.iter().map(|r| r.r.cause).collect();
    assert_eq!(causes, vec![Cause::Rto, Cause::Rto, Cause::Rto]);
    assert!(a.retransmissions[1..].iter().all(|r| r.r.spurious == Some(true)));
}

/// A go-back-N copy that left the TCP before the ACK ending the timeout recovery (it waited
/// in the host's queue and is captured after that ACK) belongs to the timeout; the timeout
/// recovery is still over, so three duplicate ACKs later make a fast retransmit. (The replay
/// once carried the copy's historic phase forward and called the fast retransmit `rto`.)
#[test]
fn a_copy_queued_past_the_end_of_a_timeout_does_not_extend_it() {
    let mut s = Script::new(true, true);
    for k in 0..3 {
        s.data(101 + k as u64, k, 101 + k);
    }
    s.ack(201, 1, 201, 101, &[]);
    // RFC 6298 (5.3): timer restarted at 201 ms, fires at 1201 ms.
    s.data(1202, 1, 1202);
    // Segments 1 and 2 had arrived after all: the ACK of everything ends the recovery...
    s.ack(1250, 3, 1250, 102, &[]);
    // ...and a go-back-N copy of segment 2, sent before it arrived, is captured after it.
    s.data(1251, 2, 1203);
    // New data; segment 3 is lost, so no ACK advances before three duplicates with SACK.
    for k in 3..8 {
        s.data(1252 + u64::from(k), k, 1252 + k);
    }
    s.ack(1356, 3, 1356, 1256, &[(4, 5)]);
    s.ack(1357, 3, 1357, 1256, &[(4, 6)]);
    s.ack(1358, 3, 1358, 1256, &[(4, 7)]);
    s.data(1359, 3, 1359);
    s.ack(1459, 8, 1459, 1359, &[]);
    let a = analyze_one(&s.write("rto-then-fr"));
    let causes: Vec<(i64, Cause)> = a.retransmissions.iter().map(|r| (r.r.seq, r.r.cause)).collect();
    assert_eq!(causes, vec![(1001, Cause::Rto), (2001, Cause::Rto), (3001, Cause::FastRetransmit)]);
}

/// Karn's rule for the whole ACK: when the first segment is lost, the ACK that its copy
/// brings also covers the segments that waited above the hole; their wait is not a round
/// trip, so it gives no sample — else the copy's quick ACK would look "too soon" against
/// that inflated minimum and a needed retransmission would be called spurious.
#[test]
fn segments_that_waited_on_a_hole_give_no_rtt_sample() {
    let mut s = Script::new(false, true);
    for k in 0..6 {
        s.data(101 + u64::from(k), k, 0);
    }
    s.ack(202, 0, 0, 0, &[(1, 2)]);
    s.ack(203, 0, 0, 0, &[(1, 3)]);
    s.ack(204, 0, 0, 0, &[(1, 4)]);
    s.data(204, 0, 0);
    s.ack(304, 6, 0, 0, &[]);
    let a = analyze_one(&s.write("karn-advance"));
    let r = a.retransmissions[0];
    assert_eq!(r.r.cause, Cause::FastRetransmit);
    assert_ne!(r.r.spurious, Some(true), "evidence {:?}", r.r.evidence);
}

/// RFC 7323 §4.3: a cumulative ACK echoes the TSval of the segment that filled the left
/// edge. A retransmission further right that was SACKed earlier is covered by that ACK but
/// its echo says nothing about it: here the second hole's copy arrives first (SACKed), the
/// first hole's copy (older TSval) arrives later and its ACK covers both — the second copy
/// is not "spurious by timestamp echo".
#[test]
fn an_echo_caused_by_another_hole_s_filler_says_nothing_about_a_sacked_copy() {
    let mut s = Script::new(true, true);
    for k in 0..7 {
        s.data(101 + u64::from(k), k, 101 + k);
    }
    // Segments 1 and 3 are lost.
    s.ack(201, 1, 201, 101, &[]);
    s.ack(203, 1, 203, 101, &[(2, 3)]);
    s.ack(205, 1, 205, 101, &[(2, 3), (4, 5)]);
    s.ack(206, 1, 206, 101, &[(2, 3), (4, 6)]);
    s.ack(207, 1, 207, 101, &[(2, 3), (4, 7)]);
    s.data(207, 1, 207);
    s.data(208, 3, 208);
    // The copy of 3 arrives first (the copy of 1 was delayed on the way): SACKed.
    s.ack(308, 1, 308, 101, &[(2, 7)]);
    // Then the copy of 1: the ACK covers everything and echoes its TSval (207 < 208).
    s.ack(312, 7, 312, 207, &[]);
    let a = analyze_one(&s.write("echo-other-hole"));
    let third = a.retransmissions.iter().find(|r| r.r.seq == 3001).unwrap();
    assert_ne!(third.r.spurious, Some(true), "evidence {:?}", third.r.evidence);
    let first = a.retransmissions.iter().find(|r| r.r.seq == 1001).unwrap();
    assert_eq!(first.r.spurious, Some(false));
}

/// RFC 2883: every duplicate arrival is reported by its own D-SACK. Two timeout copies of a
/// segment whose original was only delayed draw two D-SACKs; both copies are spurious (the
/// second D-SACK once went unmatched and the first copy was called needed).
#[test]
fn two_dsacks_for_two_copies_make_both_spurious() {
    let mut s = Script::new(false, true);
    s.data(101, 0, 0);
    // The original is held; the timer fires at 1101 ms and again at 3101 ms (backed off).
    s.data(1101, 0, 0);
    s.data(3101, 0, 0);
    // The original arrives; then each copy, each reported as a duplicate.
    s.ack(3300, 1, 0, 0, &[]);
    s.ack(3301, 1, 0, 0, &[(0, 1)]);
    s.ack(3302, 1, 0, 0, &[(0, 1)]);
    let a = analyze_one(&s.write("two-dsacks"));
    let v: Vec<(Option<bool>, Evidence)> = a.retransmissions.iter().map(|r| (r.r.spurious, r.r.evidence)).collect();
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|&(sp, _)| sp == Some(true)), "{v:?}");
}

/// Issue 15 item 5: a capture that starts mid-connection numbers the first byte seen 1, and
/// a retransmission of data sent before it is 0 or negative, never wrapped to ~2^32.
#[test]
fn relative_seq_without_a_handshake_starts_at_1_and_never_wraps() {
    let mut s = Script { f: PcapFile::new(LINKTYPE_RAW, 65535, false, true), ts: false, sack: false };
    // Segments 2 and 3 seen first; then segment 1 (sent before the capture began) again.
    s.data(100, 2, 0);
    s.data(101, 3, 0);
    s.data(400, 1, 0);
    let a = analyze_one(&s.write("midconn"));
    assert_eq!(a.retransmissions.len(), 1, "{:?}", a.retransmissions);
    assert_eq!(a.retransmissions[0].r.seq, 1 - 1000, "1000 bytes before the first byte seen");
}

/// Issue 15 item 5: `end_reason` says how the connection ended as the capture shows it, and
/// `capture` is the path as given (two `t.pcap` differ), `capture_name` the file name.
#[test]
fn end_reason_is_observed_and_capture_is_the_path_as_given() {
    let mut s = fast_retransmit_script(true, true);
    s.ack(305, 6, 305, 205, &[]);
    s.pkt(400 * MS, From::Client, 0x11, C_ISN + 1 + 6000, S_ISN + 1, 0, 400, 305, &[]); // FIN
    s.pkt(401 * MS, From::Server, 0x11, S_ISN + 1, C_ISN + 2 + 6000, 0, 401, 400, &[]); // FIN
    let dir_a = std::env::temp_dir().join(format!("tcplab-analyze-{}-a", std::process::id()));
    let dir_b = std::env::temp_dir().join(format!("tcplab-analyze-{}-b", std::process::id()));
    std::fs::create_dir_all(&dir_a).unwrap();
    std::fs::create_dir_all(&dir_b).unwrap();
    std::fs::write(dir_a.join("t.pcap"), &s.f.bytes).unwrap();
    let mut r = Script::new(true, true);
    r.data(102, 0, 102);
    r.pkt(150 * MS, From::Server, 0x14, S_ISN + 1, C_ISN + 1001, 0, 150, 102, &[]); // RST
    std::fs::write(dir_b.join("t.pcap"), &r.f.bytes).unwrap();
    let a = analyze_paths(&[dir_a.join("t.pcap"), dir_b.join("t.pcap")], &AnalyzeConfig::default()).unwrap();
    let conns = a.connections_table();
    let col = |name: &str| -> Vec<String> {
        match &conns.columns.iter().find(|c| c.name == name).unwrap().data {
            tcplab_record::ColumnData::Dict { codes, values } => codes.iter().map(|&i| values[i as usize].clone()).collect(),
            _ => panic!("{name} is not a string column"),
        }
    };
    assert_eq!(col("end_reason"), vec!["fin", "rst"]);
    assert_eq!(col("capture"), vec![dir_a.join("t.pcap").display().to_string(), dir_b.join("t.pcap").display().to_string()]);
    assert_eq!(col("capture_name"), vec!["t.pcap", "t.pcap"]);
}

#[test]
fn one_ack_sacking_three_segments_is_a_loss_by_islost_not_by_duplicate_count() {
    let mut s = Script::new(true, true);
    for k in 0..6 {
        s.data(101 + k as u64, k, 101 + k);
    }
    // Segment 1 lost; one ACK SACKs 2-4 (RFC 6675 IsLost: DupThresh segments above), then
    // the same blocks again (no new SACK information: not a duplicate ACK, RFC 6675 §2).
    s.ack(201, 1, 201, 101, &[]);
    s.ack(204, 1, 204, 101, &[(2, 5)]);
    s.ack(205, 1, 205, 101, &[(2, 5)]);
    s.data(206, 1, 206);
    s.ack(306, 6, 306, 206, &[]);
    let a = analyze_one(&s.write("islost"));
    let r = a.retransmissions[0];
    assert_eq!((r.r.cause, r.r.trigger), (Cause::FastRetransmit, Trigger::IsLost));
}

/// Found by the `analyzer_structured` fuzz target: the first data segment of a direction
/// lies before the ISN its SYN announced; its retransmission's `seq` is negative, not
/// 2^32 - 999.
#[test]
fn data_before_the_isn_is_negative_not_wrapped() {
    let mut s = Script::new(false, false);
    s.pkt(200 * MS, From::Client, PSHACK, C_ISN.wrapping_sub(999), S_ISN + 1, 1000, 0, 0, &[]);
    s.pkt(600 * MS, From::Client, PSHACK, C_ISN.wrapping_sub(999), S_ISN + 1, 1000, 0, 0, &[]);
    let a = analyze_one(&s.write("before-isn"));
    assert_eq!(a.retransmissions.len(), 1, "{:?}", a.retransmissions);
    assert_eq!(a.retransmissions[0].r.seq, -999);
}

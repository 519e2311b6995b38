//! Connection tracker and vantage tests on synthetic segment sequences.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use tcplab_pcap::vantage::NearEnd;
use tcplab_pcap::{
    CapturedSegment, ConnTracker, Dir, EndReason, ObservedEnd, SegKind, TrackerConfig, Vantage,
};
use tcplab_tcp::{Ecn, Segment, SeqNum, TcpFlags, TcpOptions};

const MS: u64 = 1_000_000;
const C: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
const S: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
const ISN_C: u32 = 0xFFFF_FFF0; // wraps during the transfer
const ISN_S: u32 = 5000;

struct Pkt {
    ts: u64,
    from_client: bool,
    flags: TcpFlags,
    seq: u32,
    ack: u32,
    len: u32,
    window: u16,
    options: TcpOptions,
    sport: u16,
}

fn pkt(ts: u64, from_client: bool, flags: TcpFlags, seq: u32, ack: u32, len: u32) -> Pkt {
    Pkt { ts, from_client, flags, seq, ack, len, window: 1000, options: TcpOptions::default(), sport: 40000 }
}

impl Pkt {
    fn win(mut self, w: u16) -> Pkt {
        self.window = w;
        self
    }
    fn opts(mut self, o: TcpOptions) -> Pkt {
        self.options = o;
        self
    }
    fn port(mut self, p: u16) -> Pkt {
        self.sport = p;
        self
    }
    fn seg(&self) -> CapturedSegment {
        let (src, dst, sport, dport) =
            if self.from_client { (C, S, self.sport, 80) } else { (S, C, 80, self.sport) };
        CapturedSegment {
            frame: 0,
            ts_ns: self.ts,
            iface: 0,
            src,
            dst,
            sport,
            dport,
            segment: Segment {
                seq: SeqNum(self.seq),
                ack: SeqNum(self.ack),
                flags: self.flags,
                window: self.window,
                len: self.len,
                options: self.options,
                ecn: Ecn::NotEct,
                ..Segment::default()
            },
            ip_id: None,
            ttl_or_hlim: 64,
            captured_payload: 0,
            tso: false,
            syn_layout: Default::default(),
        }
    }
}

const SYN: TcpFlags = TcpFlags::SYN;
const ACK: TcpFlags = TcpFlags::ACK;
fn synack() -> TcpFlags {
    SYN | ACK
}
fn finack() -> TcpFlags {
    TcpFlags::FIN | ACK
}

fn syn_opts(mss: u16, ws: u8) -> TcpOptions {
    TcpOptions { mss: Some(mss), window_scale: Some(ws), sack_permitted: true, timestamps: Some((1, 0)), ..TcpOptions::default() }
}

/// Handshake at the client side: SYN at t, SYN-ACK at t+rtt, ACK at t+rtt+50µs.
fn handshake(t: u64, rtt: u64, isn_c: u32, isn_s: u32) -> Vec<Pkt> {
    vec![
        pkt(t, true, SYN, isn_c, 0, 0).opts(syn_opts(1460, 7)),
        pkt(t + rtt, false, synack(), isn_s, isn_c.wrapping_add(1), 0).opts(syn_opts(1400, 9)),
        pkt(t + rtt + 50_000, true, ACK, isn_c.wrapping_add(1), isn_s + 1, 0),
    ]
}

fn feed(t: &mut ConnTracker, pkts: &[Pkt]) -> Vec<tcplab_pcap::Observation> {
    pkts.iter().map(|p| t.observe(&p.seg())).collect()
}

#[test]
fn a_complete_connection_is_one_record_with_both_directions() {
    let mut t = ConnTracker::default();
    let mut p = handshake(0, 80 * MS, ISN_C, ISN_S);
    let d = ISN_C.wrapping_add(1);
    p.push(pkt(81 * MS, true, ACK | TcpFlags::PSH, d, ISN_S + 1, 1000));
    p.push(pkt(82 * MS, true, ACK, d.wrapping_add(1000), ISN_S + 1, 1000));
    p.push(pkt(161 * MS, false, ACK, ISN_S + 1, d.wrapping_add(2000), 0));
    p.push(pkt(162 * MS, true, ACK, d, ISN_S + 1, 1000)); // repeat of the first data
    p.push(pkt(163 * MS, true, finack(), d.wrapping_add(2000), ISN_S + 1, 0));
    p.push(pkt(243 * MS, false, finack(), ISN_S + 1, d.wrapping_add(2001), 0));
    p.push(pkt(244 * MS, true, ACK, d.wrapping_add(2001), ISN_S + 2, 0));
    let obs = feed(&mut t, &p);
    assert!(obs.iter().all(|o| o.conn_id == 0));
    assert!(obs[0].new_connection && !obs[1].new_connection);
    let kinds: Vec<_> = obs.iter().map(|o| o.kind).collect();
    use SegKind::*;
    assert_eq!(kinds, vec![Syn, SynAck, PureAck, Data, Data, PureAck, Data, Fin, Fin, PureAck]);
    assert_eq!(obs[3].rel_seq, 1);
    assert_eq!(obs.iter().map(|o| o.repeats_sent_data).collect::<Vec<_>>(), vec![false, false, false, false, false, false, true, false, false, false]);
    assert_eq!(obs[4].rel_seq, 1001);
    assert_eq!(obs[5].rel_ack, Some(2001));
    assert_eq!(obs[5].dir, Dir::ServerToClient);
    let recs = t.finish();
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(r.client, SocketAddr::new(C, 40000));
    assert_eq!(r.server, SocketAddr::new(S, 80));
    assert!(r.handshake_seen && r.initiator_known && r.closed);
    let c = &r.dirs[0];
    assert_eq!(c.isn, Some(ISN_C));
    assert_eq!(c.data_segments, 3);
    assert_eq!(c.payload_bytes, 3000);
    assert_eq!(c.unique_bytes, 2000);
    assert_eq!((c.mss, c.window_scale, c.sack_permitted, c.timestamps), (Some(1460), Some(7), true, true));
    assert!(c.fin_ns.is_some() && r.dirs[1].fin_ns.is_some());
    assert_eq!(r.negotiated.window_scale, Some((7, 9)));
    assert!(r.negotiated.sack && r.negotiated.timestamps);
    assert_eq!(r.negotiated.mss, [Some(1460), Some(1400)]);
    assert_eq!(r.end, EndReason::EndOfCapture);
    assert_eq!(r.observed_end(), ObservedEnd::Fin, "closed by FIN inside the capture, whatever the eviction");
    // Client-side capture: full RTT before the SYN-ACK.
    assert_eq!(r.vantage.near, NearEnd::Client);
    assert_eq!(r.vantage.syn_to_synack_ns, Some(80 * MS));
    assert_eq!(r.vantage.synack_to_ack_ns, Some(50_000));
    assert_eq!(r.vantage.for_direction(Dir::ClientToServer), Vantage::Sender);
    let json = serde_json::to_string(r).expect("serialize");
    assert!(json.contains("\"handshake_seen\":true"));
}

#[test]
fn port_reuse_after_close_gives_two_connections() {
    let mut t = ConnTracker::default();
    let mut p = handshake(0, 10 * MS, 100, 200);
    p.push(pkt(11 * MS, true, finack(), 101, 201, 0));
    p.push(pkt(21 * MS, false, finack(), 201, 102, 0));
    p.push(pkt(22 * MS, true, ACK, 102, 202, 0));
    // Same 5-tuple, new ISNs, one second later.
    p.extend(handshake(1000 * MS, 10 * MS, 90_000, 70_000));
    let obs = feed(&mut t, &p);
    assert_eq!(obs.iter().map(|o| o.conn_id).collect::<Vec<_>>(), vec![0, 0, 0, 0, 0, 0, 1, 1, 1]);
    assert!(obs[6].new_connection);
    let done: Vec<_> = t.drain_finished().collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].end, EndReason::Replaced);
    let recs = t.finish();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].dirs[0].isn, Some(90_000));
    assert_eq!(recs[0].conn_id, 1);
}

#[test]
fn port_reuse_after_long_idle_without_fin_is_a_new_connection() {
    let mut t = ConnTracker::default();
    let mut p = handshake(0, 10 * MS, 100, 200);
    p.extend(handshake(120_000 * MS, 10 * MS, 555, 666));
    let obs = feed(&mut t, &p);
    assert_eq!(obs[3].conn_id, 1);
    assert_eq!(t.stats().replaced, 1);
}

#[test]
fn syn_retransmission_and_stray_syn_stay_in_the_connection() {
    let mut t = ConnTracker::default();
    let mut p = vec![pkt(0, true, SYN, 100, 0, 0), pkt(1000 * MS, true, SYN, 100, 0, 0)];
    p.push(pkt(1010 * MS, false, synack(), 200, 101, 0));
    p.push(pkt(1010 * MS + 20_000, true, ACK, 101, 201, 0));
    p.push(pkt(1011 * MS, true, ACK, 101, 201, 500));
    // A SYN with another ISN while the connection is active: stray, not a new connection.
    p.push(pkt(1012 * MS, true, SYN, 987_654, 0, 0));
    let obs = feed(&mut t, &p);
    assert!(obs.iter().all(|o| o.conn_id == 0));
    let r = &t.finish()[0];
    assert_eq!(r.stray_syns, 1);
    assert_eq!(r.dirs[0].isn, Some(100));
    // The retransmitted SYN is the one the SYN-ACK answers.
    assert_eq!(r.handshake.syn_ns, Some(1000 * MS));
    assert_eq!(r.vantage.syn_to_synack_ns, Some(10 * MS));
}

#[test]
fn a_client_retrying_with_a_fresh_isn_before_any_answer_is_a_new_connection() {
    let mut t = ConnTracker::default();
    let obs = feed(&mut t, &[pkt(0, true, SYN, 100, 0, 0), pkt(3000 * MS, true, SYN, 4242, 0, 0)]);
    assert_eq!((obs[0].conn_id, obs[1].conn_id), (0, 1));
}

#[test]
fn mid_connection_capture_uses_a_provisional_base() {
    let mut t = ConnTracker::default();
    let p = [
        pkt(0, false, ACK, 7_000_000, 3_000_000, 1448),
        pkt(MS, true, ACK, 3_000_000, 7_001_448, 0),
        pkt(2 * MS, false, ACK, 7_001_448, 3_000_000, 1448),
    ];
    let obs = feed(&mut t, &p);
    assert_eq!(obs[0].dir, Dir::ClientToServer, "first sender is called the client");
    assert_eq!(obs[0].rel_seq, 1, "the first byte seen is 1, as after a handshake");
    assert_eq!(obs[1].rel_ack, Some(1449));
    assert_eq!(obs[2].rel_seq, 1449);
    let r = &t.finish()[0];
    assert!(!r.handshake_seen && !r.initiator_known);
    assert_eq!(r.client, SocketAddr::new(S, 80));
    assert_eq!(r.dirs[0].isn, None);
    assert_eq!(r.dirs[0].base_seq, 6_999_999);
    assert_eq!(r.dirs[0].unique_bytes, 2896);
    assert_eq!(r.vantage.near, NearEnd::Unknown);
}

#[test]
fn capture_starting_at_the_synack_knows_the_initiator() {
    let mut t = ConnTracker::default();
    let obs = feed(&mut t, &[pkt(0, false, synack(), 200, 101, 0), pkt(MS, true, ACK, 101, 201, 0)]);
    assert_eq!(obs[0].dir, Dir::ServerToClient);
    let r = &t.finish()[0];
    assert!(r.initiator_known && !r.handshake_seen);
    assert_eq!(r.client, SocketAddr::new(C, 40000));
}

#[test]
fn keepalives_and_zero_window_probes_are_recognised() {
    let mut p = handshake(0, 10 * MS, 100, 200);
    p.push(pkt(20 * MS, true, ACK, 101, 201, 100));
    p.push(pkt(30 * MS, false, ACK, 201, 201, 0));
    // Keep-alives: seq = SND.MAX - 1 with 0 and 1 byte.
    p.push(pkt(7_200_000 * MS, true, ACK, 200, 201, 0));
    p.push(pkt(7_275_000 * MS, true, ACK, 200, 201, 1));
    // Server closes its window.
    p.push(pkt(7_276_000 * MS, false, ACK, 201, 201, 0).win(0));
    // BSD-style probe: one byte at the window edge, repeated.
    p.push(pkt(7_276_200 * MS, true, ACK, 201, 201, 1));
    p.push(pkt(7_276_600 * MS, true, ACK, 201, 201, 1));
    // Linux-style probe: no payload, seq = SND.MAX - 1. SND.MAX is now 202, peer acked 201.
    p.push(pkt(7_277_000 * MS, false, ACK, 201, 202, 0).win(0));
    p.push(pkt(7_277_400 * MS, true, ACK, 201, 201, 0));
    let cfg = TrackerConfig { idle_timeout_ns: u64::MAX / 2, ..TrackerConfig::default() };
    let mut t2 = ConnTracker::new(cfg);
    let obs = feed(&mut t2, &p);
    let kinds: Vec<_> = obs.iter().map(|o| o.kind).collect();
    use SegKind::*;
    assert_eq!(
        kinds,
        vec![Syn, SynAck, PureAck, Data, PureAck, KeepAlive, KeepAlive, PureAck, WindowProbe, WindowProbe, PureAck, WindowProbe]
    );
    let r = &t2.finish()[0];
    assert_eq!(r.dirs[0].keepalives, 2);
    assert_eq!(r.dirs[0].window_probes, 3);
    assert_eq!(r.dirs[1].zero_window_adverts, 2);
}

#[test]
fn half_close_is_recorded_on_the_direction_that_keeps_sending() {
    let mut t = ConnTracker::default();
    let mut p = handshake(0, 10 * MS, 100, 200);
    p.push(pkt(20 * MS, true, finack(), 101, 201, 0));
    p.push(pkt(30 * MS, false, ACK, 201, 102, 1000));
    p.push(pkt(31 * MS, false, finack(), 1201, 102, 0));
    feed(&mut t, &p);
    let r = &t.finish()[0];
    assert!(r.dirs[1].data_after_peer_fin);
    assert!(!r.dirs[0].data_after_peer_fin);
    assert!(r.closed);
}

#[test]
fn closed_connections_are_evicted_after_the_timeout_and_idle_ones_later() {
    let cfg = TrackerConfig { closed_timeout_ns: 1000 * MS, idle_timeout_ns: 5000 * MS, ..TrackerConfig::default() };
    let mut t = ConnTracker::new(cfg);
    let mut p = handshake(0, 10 * MS, 100, 200);
    p.push(pkt(20 * MS, true, TcpFlags::RST, 101, 0, 0));
    p.extend(handshake(30 * MS, 10 * MS, 300, 400).into_iter().map(|x| x.port(40001)));
    feed(&mut t, &p);
    assert_eq!(t.active(), 2);
    // Another connection 1.5 s later: the reset one is gone, the open one stays.
    t.observe(&pkt(1500 * MS, true, SYN, 1, 0, 0).port(40002).seg());
    assert_eq!(t.active(), 2);
    let done: Vec<_> = t.drain_finished().collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].end, EndReason::Closed);
    assert_eq!(done[0].observed_end(), ObservedEnd::Rst);
    assert!(done[0].dirs[0].rst_ns.is_some());
    // 10 s later everything idle is evicted.
    t.observe(&pkt(20_000 * MS, true, SYN, 1, 0, 0).port(40003).seg());
    let done: Vec<_> = t.drain_finished().collect();
    assert_eq!(done.len(), 2);
    assert!(done.iter().all(|r| r.end == EndReason::Idle));
    assert!(done.iter().all(|r| r.observed_end() == ObservedEnd::IdleTimeout));
    assert_eq!(t.active(), 1);
    let s = t.stats();
    assert_eq!((s.connections, s.evicted_closed, s.evicted_idle, s.peak_active), (4, 1, 2, 2), "eviction runs before the new connection is added");
}

#[test]
fn segments_longer_than_the_peer_mss_are_oversized() {
    let mut t = ConnTracker::default();
    let mut p = handshake(0, 10 * MS, 100, 200);
    p.push(pkt(20 * MS, true, ACK, 101, 201, 1400));
    p.push(pkt(21 * MS, true, ACK, 1501, 201, 2800));
    let obs = feed(&mut t, &p);
    assert!(!obs[3].oversized && obs[4].oversized);
    assert_eq!(t.finish()[0].dirs[0].oversized_segments, 1);
}

#[test]
fn server_side_capture_is_detected_from_the_handshake() {
    let mut t = ConnTracker::default();
    let p = [
        pkt(0, true, SYN, 100, 0, 0),
        pkt(40_000, false, synack(), 200, 101, 0),
        pkt(90 * MS, true, ACK, 101, 201, 0),
    ];
    feed(&mut t, &p);
    let r = &t.finish()[0];
    assert_eq!(r.vantage.near, NearEnd::Server);
    assert_eq!(r.vantage.for_direction(Dir::ServerToClient), Vantage::Sender);
    assert_eq!(r.vantage.for_direction(Dir::ClientToServer), Vantage::Receiver);
}

#[test]
fn synthetic_capture_reads_and_tracks_end_to_end() {
    let mut bytes = Vec::new();
    let n = tcplab_pcap::synth::write_synthetic_capture(&mut bytes, 10, 2000).expect("write");
    assert_eq!(n, 2000);
    let r = tcplab_pcap::CaptureReader::from_reader("synthetic.pcap", std::io::Cursor::new(bytes), Default::default())
        .expect("open");
    let mut t = ConnTracker::default();
    let mut segs = 0;
    let mut r = r;
    for s in r.by_ref() {
        t.observe(&s);
        segs += 1;
    }
    assert_eq!(segs, 2000);
    assert!(r.anomalies().is_clean(), "{:?}", r.anomalies());
    let recs = t.finish();
    assert!(recs.len() >= 10);
    assert!(recs.iter().take(10).all(|r| r.handshake_seen && r.closed));
}

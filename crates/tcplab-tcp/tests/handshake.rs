//! The active opener's ACK of the SYN-ACK (`TcpConfig::handshake_ack`).
//!
//! RFC 9293 §3.10.7.3 (SYN-SENT, fourth): "If SND.UNA > ISS (our SYN has been ACKed), change
//! the connection state to ESTABLISHED, form an ACK segment <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>
//! and send it. Data or controls that were queued for transmission MAY be included."
//! `Piggyback` (4.4BSD) includes the queued data, `Immediate` (Linux `tcp_send_ack`) sends the
//! bare ACK first. Clause-level checks drive two `Connection`s by hand; the scripted exchanges
//! run the harness over a fixed 50 ms one-way delay.

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::{
    ConnState, Connection, HandshakeAck, Profile, RecoveryAlgorithm, RetransCause, Segment, SeqNum, TcpConfig, TcpFlags,
    Transmit,
};
use tcplab_time::SimTime;

const MSS: u64 = 1000;
const CLIENT_ISS: SeqNum = SeqNum(1000);
const SERVER_ISS: SeqNum = SeqNum(5000);

fn cfg(h: HandshakeAck) -> TcpConfig {
    TcpConfig {
        mss: MSS as u16,
        recv_buffer: 1 << 20,
        timestamps: false,
        sack: false,
        recovery: RecoveryAlgorithm::NewReno,
        handshake_ack: h,
        ..TcpConfig::default()
    }
}

fn drain(c: &mut Connection, now: SimTime) -> Vec<Transmit> {
    std::iter::from_fn(|| c.poll_transmit(now)).collect()
}

/// Client `h` with `queued` bytes written before the handshake; returns what the client sends
/// when the server's SYN-ACK arrives (the SYN-SENT -> ESTABLISHED transition).
fn on_syn_ack(h: HandshakeAck, queued: u64) -> (Connection, Vec<Transmit>) {
    let t0 = SimTime(0);
    let mut client = Connection::client(cfg(h), CLIENT_ISS, t0);
    let mut server = Connection::server(cfg(HandshakeAck::Piggyback), SERVER_ISS);
    if queued > 0 {
        client.send(queued);
    }
    let syn = drain(&mut client, t0);
    assert_eq!(syn.len(), 1);
    server.handle_segment(at_ms(50), &syn[0].segment);
    let syn_ack = drain(&mut server, at_ms(50));
    assert_eq!(syn_ack.len(), 1);
    assert!(syn_ack[0].segment.flags.contains(TcpFlags::SYN | TcpFlags::ACK));
    client.handle_segment(at_ms(100), &syn_ack[0].segment);
    assert_eq!(client.state(), ConnState::Established);
    let out = drain(&mut client, at_ms(100));
    (client, out)
}

fn is_bare_ack(s: &Segment) -> bool {
    s.len == 0 && s.flags == TcpFlags::ACK
}

// <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>, sent before the queued data.
#[test]
fn immediate_sends_a_bare_ack_of_the_syn_ack_before_the_queued_data() {
    let (_, out) = on_syn_ack(HandshakeAck::Immediate, 3 * MSS);
    assert!(out.len() >= 2, "{out:?}");
    let ack = out[0].segment;
    assert!(is_bare_ack(&ack), "{ack:?}");
    assert_eq!(ack.seq, CLIENT_ISS + 1, "SEQ = SND.NXT");
    assert_eq!(ack.ack, SERVER_ISS + 1, "ACK = RCV.NXT");
    assert_eq!(out[0].retransmission, None);
    assert!(out[1..].iter().all(|t| t.segment.len > 0 && t.segment.flags.contains(TcpFlags::ACK)));
    assert_eq!(out[1].segment.seq, CLIENT_ISS + 1, "the data starts at the same SND.NXT");
    assert_eq!(out.iter().filter(|t| is_bare_ack(&t.segment)).count(), 1);
}

// "Data ... that were queued for transmission MAY be included": 4.4BSD includes it.
#[test]
fn piggyback_sends_no_bare_ack_when_data_is_queued() {
    let (client, out) = on_syn_ack(HandshakeAck::Piggyback, 3 * MSS);
    assert!(!out.is_empty());
    assert!(out.iter().all(|t| t.segment.len > 0), "{out:?}");
    assert_eq!(out[0].segment.ack, SERVER_ISS + 1, "the first data segment acknowledges the SYN-ACK");
    assert!(out[0].segment.flags.contains(TcpFlags::ACK));
    assert_eq!(client.stats().acks_sent, 0);
}

#[test]
fn with_nothing_to_send_both_variants_send_one_bare_ack() {
    for h in HandshakeAck::ALL {
        let (client, out) = on_syn_ack(h, 0);
        assert_eq!(out.len(), 1, "{h:?}: {out:?}");
        assert!(is_bare_ack(&out[0].segment), "{h:?}");
        assert_eq!((out[0].segment.seq, out[0].segment.ack), (CLIENT_ISS + 1, SERVER_ISS + 1), "{h:?}");
        assert_eq!(client.stats().acks_sent, 1, "{h:?}");
    }
}

// The flag is consumed by the one bare ACK: later calls send data only.
#[test]
fn immediate_sends_the_handshake_ack_once() {
    let (mut client, out) = on_syn_ack(HandshakeAck::Immediate, MSS);
    assert_eq!(out.iter().map(|t| t.segment.len).collect::<Vec<_>>(), vec![0, MSS as u32]);
    assert!(client.poll_transmit(at_ms(100)).is_none());
    assert_eq!(client.stats().acks_sent, 1);
}

/// Drops every first transmission of A's data (a one-segment first flight).
fn drop_first_flight(p: &Pkt) -> Fate {
    if p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() {
        Fate::Drop
    } else {
        Fate::Deliver
    }
}

fn syn_ack_retransmissions(h: &Harness) -> Vec<SimTime> {
    h.log
        .iter()
        .filter(|p| p.dir == Dir::BtoA && p.seg.flags.contains(TcpFlags::SYN) && p.rtx == Some(RetransCause::Rto))
        .map(|p| p.t)
        .collect()
}

/// One 1000-byte segment, dropped. SYN at 0, SYN-ACK at 50 ms, data at 100 ms (lost). With
/// Piggyback the server is still in SYN-RECEIVED when its initial RTO (RFC 6298 (2.1), 1 s)
/// expires: it resends the SYN-ACK at 1050 ms and, by Karn's rule, takes no handshake RTT
/// sample. The client's RTO (1 s after the send) resends the data at 1100 ms.
#[test]
fn a_lost_first_flight_makes_a_piggybacking_client_s_server_retransmit_its_syn_ack_after_its_initial_rto() {
    let c = cfg(HandshakeAck::Piggyback);
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.set_fate(drop_first_flight);
    h.a.send(MSS);
    assert!(h.run());
    assert_eq!(h.acks_from(Dir::AtoB).filter(|p| p.t == at_ms(100)).count(), 0, "no bare ACK at 100 ms");
    assert_eq!(syn_ack_retransmissions(&h), vec![at_ms(1050)]);
    let data: Vec<_> = h.data_from(Dir::AtoB).map(|p| (p.t, p.rtx)).collect();
    assert_eq!(data, vec![(at_ms(100), None), (at_ms(1100), Some(RetransCause::Rto))]);
    assert_eq!(h.b.stats().bytes_delivered, MSS);
    assert_eq!(h.b.cc_snapshot().srtt_ns, 0, "Karn: no sample from a retransmitted SYN-ACK");
}

/// The same loss with Immediate: the bare ACK leaves at 100 ms and reaches the server at 150 ms
/// (ESTABLISHED, a 100 ms handshake RTT sample); no SYN-ACK is retransmitted. The data is
/// still recovered by the client's RTO at 1100 ms.
#[test]
fn a_lost_first_flight_does_not_make_an_immediate_client_s_server_retransmit_its_syn_ack() {
    let c = cfg(HandshakeAck::Immediate);
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.set_fate(drop_first_flight);
    h.a.send(MSS);
    assert!(h.run());
    let bare: Vec<_> = h.acks_from(Dir::AtoB).filter(|p| !p.seg.flags.contains(TcpFlags::SYN)).map(|p| p.t).collect();
    assert_eq!(bare.first(), Some(&at_ms(100)), "the handshake ACK leaves when the SYN-ACK arrives");
    assert_eq!(syn_ack_retransmissions(&h), Vec::<SimTime>::new());
    let data: Vec<_> = h.data_from(Dir::AtoB).map(|p| (p.t, p.rtx)).collect();
    assert_eq!(data, vec![(at_ms(100), None), (at_ms(1100), Some(RetransCause::Rto))]);
    assert_eq!(h.b.stats().bytes_delivered, MSS);
    assert_eq!(h.b.cc_snapshot().srtt_ns, ms(100).as_nanos(), "the server's handshake RTT sample");
}

/// The Linux profiles carry Immediate and the BSD profile Piggyback, end to end.
#[test]
fn the_linux_profile_acks_the_syn_ack_at_once_and_bsd_lite_does_not() {
    for (p, bare_at_100) in [(Profile::LINUX, 1), (Profile::LINUX_2_4, 1), (Profile::BSD_LITE, 0)] {
        let mut c = cfg(HandshakeAck::Piggyback);
        p.apply(&mut c);
        let mut h = Harness::new(c.clone(), c, ms(50));
        h.a.send(MSS);
        assert!(h.run());
        let n = h.acks_from(Dir::AtoB).filter(|x| x.t == at_ms(100) && !x.seg.flags.contains(TcpFlags::SYN)).count();
        assert_eq!(n, bare_at_100, "{}", p.name);
    }
}

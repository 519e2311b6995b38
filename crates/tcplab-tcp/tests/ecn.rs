//! RFC 3168 §6.1 end to end between two engines: negotiation, ECT on new data, the CE echo
//! until CWR, the sender's once-per-window reduction without retransmission. Scripted over a
//! fixed 50 ms one-way delay, every segment acknowledged at once, MSS 1000, IW 4000 (RFC 3390).

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::{AckPolicy, Ecn, RecoveryAlgorithm, SenderModel, TcpConfig, TcpFlags};

fn cfg(ecn: bool, sender: SenderModel) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        recv_buffer: 1 << 20,
        timestamps: false,
        sack: false,
        recovery: RecoveryAlgorithm::NewReno,
        ack: AckPolicy { delayed_ack: None, ..AckPolicy::default() },
        ecn,
        sender,
        ..TcpConfig::default()
    }
}

/// A sends 20 000 bytes to B; the third data segment is marked CE on the way.
fn marked_third(a: TcpConfig, b: TcpConfig) -> Harness {
    let mut h = Harness::new(a, b, ms(50));
    h.set_fate(|p: &Pkt| if p.dir == Dir::AtoB && p.data_idx == 3 { Fate::MarkCe } else { Fate::Deliver });
    h.a.send(20_000);
    h.a.close();
    h
}

fn times(ps: impl Iterator<Item = Pkt>) -> Vec<u64> {
    ps.map(|p| p.t.0 / 1_000_000).collect()
}

#[test]
fn the_handshake_negotiates_ecn_with_an_ecn_setup_syn_and_syn_ack() {
    let mut h = marked_third(cfg(true, SenderModel::Rfc), cfg(true, SenderModel::Rfc));
    assert!(h.run());
    let syn = h.log[0];
    assert_eq!(syn.seg.flags, TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR);
    let syn_ack = h.log[1];
    assert_eq!((syn_ack.t, syn_ack.seg.flags), (at_ms(50), TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE));
    // §6.1.1: "A host MUST NOT set ECT on SYN or SYN-ACK packets."
    assert_eq!((syn.seg.ecn, syn_ack.seg.ecn), (Ecn::NotEct, Ecn::NotEct));
    assert!(h.a.ecn().negotiated && h.b.ecn().negotiated);
}

#[test]
fn without_ecn_at_either_end_nothing_is_ect_and_the_mark_is_not_echoed() {
    for (a, b) in [(true, false), (false, true)] {
        let mut h = marked_third(cfg(a, SenderModel::Rfc), cfg(b, SenderModel::Rfc));
        assert!(h.run());
        assert!(!h.a.ecn().negotiated && !h.b.ecn().negotiated, "{a} {b}");
        assert!(h.log.iter().skip(2).all(|p| p.seg.ecn == Ecn::NotEct
            && !p.seg.flags.contains(TcpFlags::ECE)
            && !p.seg.flags.contains(TcpFlags::CWR)));
        assert_eq!(h.a.cc_snapshot().ssthresh, u64::MAX, "no reaction");
    }
}

/// SYN 0, SYN-ACK 50, data 1-4 at 100 ms (3 is marked), their ACKs leave B at 150 (those of 3
/// and 4 with ECE) and reach A at 200. ACKs 1 and 2 grow cwnd to 6000 and release 5-8; ACK 3
/// (ECE) halves: FlightSize 5000 -> ssthresh = cwnd = 2500; ACK 4 (ECE, for data before the
/// reduction) changes nothing. 5-8 reach B at 250 and are acknowledged with ECE (no CWR yet);
/// at 300 ACK 7 leaves FlightSize 1000, so segment 9 goes out with CWR; B stops echoing when it
/// arrives at 350.
#[test]
fn one_ce_mark_halves_the_window_once_and_the_echo_stops_at_cwr_at_exact_times() {
    let mut h = marked_third(cfg(true, SenderModel::Rfc), cfg(true, SenderModel::Rfc));
    assert!(!h.run_until(at_ms(200) + ms(1).into()));
    let cc = h.a.cc_snapshot();
    assert_eq!((cc.cwnd, cc.ssthresh), (2500, 2500));
    assert!(h.run());
    let data: Vec<Pkt> = h.data_from(Dir::AtoB).copied().collect();
    // §6.1.2: every new data segment is ECT(0); none is retransmitted.
    assert!(data.iter().all(|p| p.seg.ecn == Ecn::Ect0 && p.rtx.is_none()), "{data:?}");
    assert_eq!(h.a.stats().retransmissions.iter().sum::<u64>(), 0);
    // §6.1.3: ECE on B's ACKs from the CE packet's until the CWR packet arrives.
    let ece = times(h.acks_from(Dir::BtoA).copied().filter(|p| p.seg.flags.contains(TcpFlags::ECE) && !p.seg.flags.contains(TcpFlags::SYN)));
    assert_eq!(ece, vec![150, 150, 250, 250, 250, 250]);
    // §6.1.2: CWR on the first new data after the reduction, and only there.
    let cwr: Vec<(u64, u32)> =
        data.iter().filter(|p| p.seg.flags.contains(TcpFlags::CWR)).map(|p| (p.t.0 / 1_000_000, p.data_idx)).collect();
    assert_eq!(cwr, vec![(300, 9)]);
    // Pure ACKs are never ECT (§6.1.4).
    assert!(h.acks_from(Dir::BtoA).all(|p| p.seg.ecn == Ecn::NotEct));
    assert_eq!((h.a.ecn().reactions, h.a.ecn().cwr_sent, h.b.ecn().ce_received), (1, 1, 1));
    assert_eq!(h.b.stats().bytes_delivered, 20_000);
}

/// Retransmissions are Not-ECT and carry no CWR (§6.1.5); a fast retransmit is a window
/// reduction, so the next *new* data segment carries CWR.
#[test]
fn a_fast_retransmission_is_not_ect_and_the_next_new_data_carries_cwr() {
    let mut h = Harness::new(cfg(true, SenderModel::Rfc), cfg(true, SenderModel::Rfc), ms(50));
    h.set_fate(|p: &Pkt| if p.dir == Dir::AtoB && p.data_idx == 2 { Fate::Drop } else { Fate::Deliver });
    h.a.send(30_000);
    h.a.close();
    assert!(h.run());
    let data: Vec<Pkt> = h.data_from(Dir::AtoB).copied().collect();
    let rtx: Vec<&Pkt> = data.iter().filter(|p| p.rtx.is_some()).collect();
    assert!(!rtx.is_empty());
    assert!(rtx.iter().all(|p| p.seg.ecn == Ecn::NotEct && !p.seg.flags.contains(TcpFlags::CWR)));
    let first_rtx = rtx[0].t;
    let cwr: Vec<&Pkt> = data.iter().filter(|p| p.seg.flags.contains(TcpFlags::CWR)).collect();
    assert_eq!(cwr.len(), 1, "{cwr:?}");
    assert!(cwr[0].t >= first_rtx && cwr[0].rtx.is_none());
    assert_eq!(h.a.ecn().reactions, 0, "no CE, no ECN reaction");
    assert_eq!(h.b.stats().bytes_delivered, 30_000);
}

/// The Linux 2.4 sender enters its CWR state on the echo (`linux::ecn`) and marks the next
/// new data CWR through the same RFC 3168 rules.
#[test]
fn the_linux_sender_reacts_through_its_cwr_state_and_sets_cwr_on_new_data() {
    let mut h = marked_third(cfg(true, SenderModel::Linux), cfg(true, SenderModel::Rfc));
    assert!(h.run());
    let data: Vec<Pkt> = h.data_from(Dir::AtoB).copied().collect();
    assert!(data.iter().all(|p| p.seg.ecn == Ecn::Ect0 && p.rtx.is_none()));
    assert_eq!(data.iter().filter(|p| p.seg.flags.contains(TcpFlags::CWR)).count(), 1);
    assert!(h.a.cc_snapshot().ssthresh < u64::MAX / 2, "ssthresh was set by the CWR entry");
    assert_eq!(h.b.stats().bytes_delivered, 20_000);
}

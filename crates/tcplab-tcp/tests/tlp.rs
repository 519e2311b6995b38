//! Scripted exchanges for the RFC 8985 §7 Tail Loss Probe, at exact times over a fixed 50 ms
//! one-way delay (RTT 100 ms), immediate ACKs, SACK on, no timestamps.
//!
//! Timeline of the 10-segment transfer: the handshake ends at 100 ms (SRTT = 100 ms, RTO =
//! 1 s, the RFC 6298 minimum); the initial window (4 segments) leaves at 100 ms, segments 5–10
//! at 200 ms, and their ACKs return at 300 ms. When segment 10 is lost, the ACK of segment 9
//! at 300 ms leaves one segment in flight, so PTO = 2*SRTT + WCDelAckT = 400 ms (probe at
//! 700 ms) while the RTO would fire at 1300 ms.

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::{RecoveryAlgorithm, RetransCause, SeqNum, TcpConfig, TcpEvent};
use tcplab_time::SimTime;

const MSS: u64 = 1000;
/// A's ISS (the harness default); its first data byte is ISS + 1.
const ISS_A: u32 = 1000;

fn cfg(tlp: bool) -> TcpConfig {
    TcpConfig { tlp, ..harness::sack_cfg(MSS as u16) }
}

/// Sequence number of the end of A's data segment `n` (1-based, full-sized).
fn end_of(n: u32) -> SeqNum {
    SeqNum(ISS_A + 1 + n * MSS as u32)
}

/// Drops the first transmission of A's data segment `n` (1-based, by sequence).
fn drop_segment(n: u32) -> impl FnMut(&Pkt) -> Fate {
    move |p: &Pkt| {
        if p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() && p.rel_seq == (n - 1) * MSS as u32 {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    }
}

/// When B's ACKs first cover all of the 10 segments (the transfer is complete).
fn completion(h: &Harness) -> SimTime {
    h.acks_from(Dir::BtoA).find(|p| p.seg.ack.ge(end_of(10))).map(|p| p.t + h.delay).unwrap_or(SimTime(u64::MAX))
}

fn retransmissions(h: &Harness) -> Vec<(SimTime, u32, RetransCause)> {
    h.data_from(Dir::AtoB).filter_map(|p| p.rtx.map(|c| (p.t, p.rel_seq, c))).collect()
}

fn tail_loss(tlp: bool) -> Harness {
    let mut h = Harness::new(cfg(tlp), cfg(tlp), ms(50));
    h.set_fate(drop_segment(10));
    h.a.send(10 * MSS);
    assert!(h.run());
    h
}

#[test]
fn without_tlp_a_lost_last_segment_waits_for_the_rto() {
    let h = tail_loss(false);
    // The RTO restarted by the ACK at 300 ms fires at 1300 ms.
    assert_eq!(retransmissions(&h), vec![(at_ms(1300), 9 * MSS as u32, RetransCause::Rto)]);
    assert_eq!(completion(&h), at_ms(1400));
    assert_eq!(h.a.stats().timeouts, 1);
}

#[test]
fn with_tlp_the_probe_retransmits_the_last_segment_two_srtt_plus_wcdelackt_after_the_last_ack() {
    let mut h = tail_loss(true);
    // RFC 8985 §7.2: one segment in flight after the ACK at 300 ms: PTO = 2*100 + 200 ms.
    assert_eq!(retransmissions(&h), vec![(at_ms(700), 9 * MSS as u32, RetransCause::Tlp)]);
    assert_eq!(completion(&h), at_ms(800));
    assert_eq!(h.a.stats().timeouts, 0);
    assert_eq!(h.a.stats().retransmissions[RetransCause::Tlp as usize], 1);
    // 600 ms sooner than the RTO-based recovery (RTO 1 s - PTO 400 ms).
    assert_eq!(completion(&tail_loss(false)).0 - completion(&h).0, 600_000_000);
    let probes: Vec<TcpEvent> = h.a.drain_events().filter(|e| matches!(e, TcpEvent::TlpProbe { .. })).collect();
    assert_eq!(probes, vec![TcpEvent::TlpProbe { at: at_ms(700), seq: end_of(9), new_data: false }]);
}

#[test]
fn the_pto_is_twice_srtt_with_more_than_one_segment_in_flight() {
    // Segments 9 and 10 lost: the last ACK (of 8) at 300 ms leaves two segments in flight, so
    // PTO = 2*SRTT = 200 ms; the probe retransmits the highest segment (10) at 500 ms.
    let mut h = Harness::new(cfg(true), cfg(true), ms(50));
    let (mut d9, mut d10) = (drop_segment(9), drop_segment(10));
    h.set_fate(move |p| if d9(p) == Fate::Drop || d10(p) == Fate::Drop { Fate::Drop } else { Fate::Deliver });
    h.a.send(10 * MSS);
    assert!(h.run());
    let r = retransmissions(&h);
    assert_eq!(r[0], (at_ms(500), 9 * MSS as u32, RetransCause::Tlp));
    // The probe's SACK of segment 10 is one SACKed segment above the hole: not enough for
    // RFC 6675 IsLost (DupThresh 3), so segment 9 waits for the RTO re-armed by the probe.
    assert_eq!(r[1], (at_ms(1500), 8 * MSS as u32, RetransCause::Rto));
}

#[test]
fn the_probe_sends_new_data_when_the_application_has_more_and_the_window_allows() {
    // 20 segments; the whole second flight (segments 5-12, sent at 200 ms) is lost, so no ACK
    // comes back after 200 ms. The PTO armed by those sends (8 in flight: 2*SRTT) fires at
    // 400 ms and sends segment 13, new data, past cwnd — not a retransmission.
    let mut h = Harness::new(cfg(true), cfg(true), ms(50));
    h.set_fate(|p| {
        let lost = p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() && (4..12).contains(&(p.rel_seq / MSS as u32));
        if lost {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.a.send(20 * MSS);
    h.run_until(at_ms(400));
    let at400: Vec<&Pkt> = h.data_from(Dir::AtoB).filter(|p| p.t == at_ms(400)).collect();
    assert_eq!(at400.len(), 1);
    assert_eq!((at400[0].rel_seq, at400[0].rtx), (12 * MSS as u32, None));
    assert_eq!(h.a.cc_snapshot().cwnd, 8 * MSS, "the probe does not change cwnd");
    let probes: Vec<TcpEvent> = h.a.drain_events().filter(|e| matches!(e, TcpEvent::TlpProbe { .. })).collect();
    assert_eq!(probes, vec![TcpEvent::TlpProbe { at: at_ms(400), seq: end_of(12), new_data: true }]);
    assert!(h.run());
    assert_eq!(h.a.stats().retransmissions[RetransCause::Tlp as usize], 0);
    // §7.3: the probe re-armed the RTO (400 + 1000 ms); a new-data probe is not followed by a
    // second probe before an RTT sample.
    let first_rto = h.data_from(Dir::AtoB).find(|p| p.rtx == Some(RetransCause::Rto)).map(|p| p.t);
    assert_eq!(first_rto, Some(at_ms(1400)));
}

#[test]
fn a_lost_probe_still_ends_in_an_rto_one_rto_after_the_probe() {
    let mut h = Harness::new(cfg(true), cfg(true), ms(50));
    let mut d10 = drop_segment(10);
    h.set_fate(move |p| if d10(p) == Fate::Drop || p.rtx == Some(RetransCause::Tlp) { Fate::Drop } else { Fate::Deliver });
    h.a.send(10 * MSS);
    assert!(h.run());
    // RFC 8985 §7.3: after the probe at 700 ms the RTO (not the PTO) is re-armed: 1700 ms.
    assert_eq!(
        retransmissions(&h),
        vec![(at_ms(700), 9 * MSS as u32, RetransCause::Tlp), (at_ms(1700), 9 * MSS as u32, RetransCause::Rto)]
    );
    assert_eq!(h.a.stats().timeouts, 1);
    assert_eq!(completion(&h), at_ms(1800));
}

/// Runs the tail transfer with `fate`, then writes two more segments at 2 s (the ACK of the
/// new data is the first ACK above TLPHighRxt) and returns ssthresh after that.
fn ssthresh_after_more_data(fate: impl FnMut(&Pkt) -> Fate + 'static) -> (Harness, u64) {
    let mut h = Harness::new(cfg(true), cfg(true), ms(50));
    h.set_fate(fate);
    h.a.send(10 * MSS);
    assert!(h.run());
    assert_eq!(h.a.stats().retransmissions[RetransCause::Tlp as usize], 1);
    h.run_until(at_ms(2000));
    h.now = at_ms(2000);
    h.a.send(2 * MSS);
    assert!(h.run());
    let s = h.a.cc_snapshot().ssthresh;
    (h, s)
}

#[test]
fn a_probe_that_repaired_a_loss_reduces_the_window_like_fast_recovery() {
    let (h, ssthresh) = ssthresh_after_more_data(drop_segment(10));
    // RFC 8985 §7.4.2: the ACK above TLPHighRxt without a D-SACK of the probe: ssthresh =
    // max(FlightSize / 2, 2*SMSS) with the FlightSize of two segments before it; cwnd =
    // ssthresh, then the ACK of the second new segment adds SMSS*SMSS/cwnd (RFC 5681 (3)).
    assert_eq!(ssthresh, 2 * MSS);
    assert_eq!(h.a.cc_snapshot().cwnd, 2 * MSS + MSS / 2);
}

#[test]
fn a_dsack_of_the_probe_means_no_loss_and_no_window_reduction() {
    // Segment 10 arrives but its ACK is lost: the probe at 700 ms is a duplicate at B, which
    // answers with a D-SACK for it (RFC 2883) on the ACK that also covers segment 10.
    let mut lost_once = false;
    let (h, ssthresh) = ssthresh_after_more_data(move |p: &Pkt| {
        if p.dir == Dir::BtoA && p.seg.ack == end_of(10) && !lost_once {
            lost_once = true;
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    assert_eq!(ssthresh, u64::MAX, "no congestion response");
    assert!(h.a.cc_snapshot().cwnd > 10 * MSS);
    let dsack = h.acks_from(Dir::BtoA).find(|p| p.t == at_ms(750)).map(|p| p.seg.options.sack.as_slice()[0]);
    assert_eq!(dsack.map(|b| (b.left, b.right)), Some((end_of(9), end_of(10))));
}

#[test]
fn without_sack_a_duplicate_ack_at_tlp_high_rxt_means_no_loss() {
    // Segment 10 and its ACK both arrive, but the ACK is delayed past the probe: the probe's
    // duplicate ACK (same SEG.ACK, no SACK) ends the episode without a response.
    let mut c = cfg(true);
    c.sack = false;
    c.recovery = RecoveryAlgorithm::NewReno;
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.set_fate(|p: &Pkt| {
        if p.dir == Dir::BtoA && p.seg.ack == end_of(10) && p.t == at_ms(250) {
            Fate::Delay(ms(500))
        } else {
            Fate::Deliver
        }
    });
    h.a.send(10 * MSS);
    assert!(h.run_until(at_ms(1500)));
    assert_eq!(retransmissions(&h), vec![(at_ms(700), 9 * MSS as u32, RetransCause::Tlp)]);
    h.now = at_ms(2000);
    h.a.send(2 * MSS);
    assert!(h.run());
    assert_eq!(h.a.cc_snapshot().ssthresh, u64::MAX);
}

#[test]
fn tlp_off_never_arms_the_probe_timer() {
    let mut h = Harness::new(cfg(false), cfg(false), ms(50));
    h.set_fate(drop_segment(10));
    h.a.send(10 * MSS);
    h.run_until(at_ms(300));
    assert_eq!(h.a.poll_timeout(), Some(at_ms(1300)), "only the RTO");
    let mut h = Harness::new(cfg(true), cfg(true), ms(50));
    h.set_fate(drop_segment(10));
    h.a.send(10 * MSS);
    h.run_until(at_ms(300));
    assert_eq!(h.a.poll_timeout(), Some(at_ms(700)), "the PTO comes first");
}

#[test]
fn when_the_rto_would_fire_first_the_probe_goes_at_the_rto_time_in_its_place() {
    // A 200 ms minimum RTO: after the 100 ms handshake sample RTO = SRTT + 4*RTTVAR = 300 ms,
    // while one segment in flight gives PTO = 2*100 + 200 = 400 ms. RFC 8985 §7.2: "If Now() +
    // PTO > TCP_RTO_expiration(): PTO = TCP_RTO_expiration() - Now()" — the probe leaves at
    // 400 ms (sent at 100 ms + 300 ms) instead of the RTO retransmission, and re-arms the RTO
    // (§7.3), which fires at 700 ms when the probe is lost too.
    let short_rto = |tlp: bool| {
        let mut c = cfg(tlp);
        c.rto.min = ms(200);
        c
    };
    let mut h = Harness::new(short_rto(true), short_rto(true), ms(50));
    h.set_fate(|p: &Pkt| if p.dir == Dir::AtoB && p.seg.len > 0 && p.t < at_ms(500) { Fate::Drop } else { Fate::Deliver });
    h.a.send(MSS);
    assert!(h.run());
    assert_eq!(retransmissions(&h), vec![(at_ms(400), 0, RetransCause::Tlp), (at_ms(700), 0, RetransCause::Rto)]);
    let mut h = Harness::new(short_rto(false), short_rto(false), ms(50));
    h.set_fate(|p: &Pkt| if p.dir == Dir::AtoB && p.seg.len > 0 && p.t < at_ms(500) { Fate::Drop } else { Fate::Deliver });
    h.a.send(MSS);
    assert!(h.run());
    assert_eq!(retransmissions(&h)[0], (at_ms(400), 0, RetransCause::Rto));
}

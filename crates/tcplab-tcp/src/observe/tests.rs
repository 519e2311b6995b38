//! Clause-level vectors for the observer at exact times (SMSS 1000, RFC 6298 RTO 1 s).

use super::*;
use crate::config::RecoveryAlgorithm;
use crate::segment::SackBlocks;

const MSS: u32 = 1000;
const ISS: u32 = 10_000;

fn cfg() -> TcpConfig {
    TcpConfig { mss: MSS as u16, sack: true, timestamps: false, recovery: RecoveryAlgorithm::Sack, ..TcpConfig::default() }
}

fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

fn seq(n: u32) -> SeqNum {
    SeqNum(ISS + n * MSS)
}

fn ack(a: SeqNum, sack: &[(SeqNum, SeqNum)]) -> Segment {
    let mut s = Segment { flags: TcpFlags::ACK, ack: a, window: 65535, ..Segment::default() };
    let mut b = SackBlocks::default();
    for &(l, r) in sack {
        b.push(SackBlock { left: l, right: r });
    }
    s.options.sack = b;
    s
}

/// Ten segments at 0 ms; the first is lost, the others are SACKed one by one from 100 ms.
fn sent_ten() -> Observer {
    let mut o = Observer::new(&cfg(), seq(0), true, false);
    for n in 0..10 {
        assert_eq!(o.on_transmit(ms(0), seq(n), MSS, false), None);
    }
    o
}

#[test]
fn the_third_duplicate_ack_explains_a_fast_retransmit() {
    let mut o = sent_ten();
    for k in 1..=3 {
        let v = o.on_ack(ms(100 + u64::from(k)), &ack(seq(0), &[(seq(1), seq(1 + k))]), false);
        assert!(v.is_dupack, "RFC 6675 §2: new SACK information");
    }
    let ex = o.on_transmit(ms(104), seq(0), MSS, false).expect("a retransmission");
    assert_eq!(ex.trigger, Trigger::DupThresh);
    assert_eq!(ex.dupacks, 3);
    assert_eq!(ex.dupthresh_at, Some(ms(103)));
    assert!(ex.islost, "three SACKed segments above make SND.UNA lost (RFC 6675 IsLost)");
    assert!(!ex.rto_fired);
    assert_eq!(ex.rto_deadline, Some(ms(1000)), "RFC 6298 (5.1): armed with the first segment");
    assert!(matches!(o.phase(), RecoveryPhase::Recovery { .. }));
}

#[test]
fn repeated_sack_blocks_are_not_duplicate_acks_and_islost_counts_sacked_segments() {
    let mut o = sent_ten();
    // One ACK SACKs three segments at once: one duplicate ACK (RFC 6675 §2) ...
    let v = o.on_ack(ms(100), &ack(seq(0), &[(seq(1), seq(4))]), false);
    assert!(v.is_dupack);
    let again = o.on_ack(ms(101), &ack(seq(0), &[(seq(1), seq(4))]), false);
    assert!(!again.is_dupack, "the same SACK block again is no new information");
    let ex = o.explain(ms(102), seq(0), seq(1));
    assert_eq!(ex.dupacks, 1);
    // ... and DupThresh SACKed segments above SND.UNA: RFC 6675 IsLost(SND.UNA).
    assert!(ex.islost);
    assert_eq!(ex.islost_una_at, Some(ms(100)));
    assert_eq!(ex.trigger, Trigger::IsLost);
}

#[test]
fn a_dsack_is_recognised_against_seg_ack() {
    let mut o = sent_ten();
    o.on_ack(ms(100), &ack(seq(2), &[]), false);
    let v = o.on_ack(ms(110), &ack(seq(2), &[(seq(0), seq(1))]), false);
    assert_eq!(v.dsack, Some(SackBlock { left: seq(0), right: seq(1) }));
    assert!(!v.is_dupack);
}

#[test]
fn the_timer_fires_after_the_profiles_rto_and_backs_off() {
    let mut o = sent_ten();
    let early = o.explain(ms(999), seq(0), seq(1));
    assert_eq!(early.trigger, Trigger::Unknown);
    let ex = o.on_transmit(ms(1000), seq(0), MSS, false).expect("retransmission");
    assert_eq!(ex.trigger, Trigger::Rto);
    assert!(ex.rto_fired);
    // RFC 6298 (5.5)/(5.6): backed off to 2 s from the expiry.
    assert_eq!(o.rto_timer(), (Some(ms(1000)), Some(ms(3000))));
    let follower = o.on_transmit(ms(1001), seq(1), MSS, false).expect("go-back-N");
    assert_eq!(follower.trigger, Trigger::Rto);
    assert!(!follower.rto_fired);
}

#[test]
fn an_ack_of_new_data_restarts_the_timer_and_resets_the_count() {
    let mut o = sent_ten();
    o.on_ack(ms(100), &ack(seq(0), &[(seq(1), seq(2))]), false);
    o.on_ack(ms(200), &ack(seq(3), &[]), false);
    assert_eq!(o.dupacks(), 0);
    assert_eq!(o.rto_timer(), (Some(ms(200)), Some(ms(1200))));
    o.on_ack(ms(300), &ack(seq(10), &[]), false);
    assert_eq!(o.rto_timer(), (None, None), "RFC 6298 (5.2)");
}

#[test]
fn a_fork_replays_independently() {
    let mut o = sent_ten();
    let mut fork = o.clone();
    o.on_ack(ms(100), &ack(seq(10), &[]), false);
    assert_eq!(o.snd_una(), seq(10));
    assert_eq!(fork.snd_una(), seq(0));
    let ex = fork.on_transmit(ms(1000), seq(0), MSS, false).expect("retransmission");
    assert_eq!(ex.trigger, Trigger::Rto);
}

#[test]
fn expected_next_is_the_first_lost_segment_not_yet_resent() {
    let mut o = sent_ten();
    // SACK 3..10: segments 0, 1 and 2 are lost by IsLost.
    for k in 4..=10 {
        o.on_ack(ms(100 + u64::from(k)), &ack(seq(0), &[(seq(3), seq(k))]), false);
    }
    assert_eq!(o.expected().retransmit, Some(seq(0)));
    o.on_transmit(ms(120), seq(0), MSS, false);
    assert_eq!(o.expected().retransmit, Some(seq(1)));
    let ex = o.on_transmit(ms(121), seq(1), MSS, false).expect("retransmission");
    assert_eq!(ex.trigger, Trigger::IsLost);
}

#[test]
fn a_gap_the_capture_missed_is_one_unseen_segment() {
    let mut o = Observer::new(&cfg(), seq(0), true, false);
    o.on_transmit(ms(0), seq(0), MSS, false);
    o.on_transmit(ms(1), seq(3), MSS, false);
    assert_eq!(o.snd_nxt(), seq(4));
    assert_eq!(o.scoreboard().len(), 3);
    let ex = o.on_transmit(ms(2), seq(1), MSS, false).expect("below SND.NXT");
    assert!(!ex.at_una);
}

#[test]
fn rack_marks_a_hole_at_once_when_dupthresh_segments_are_sacked_even_above_2_pow_31() {
    // RFC 8985 §6.2 step 4: RACK.reo_wnd is 0 when no reordering was seen and RACK.segs_sacked
    // >= DupThresh; step 3 compares with RACK.fack modulo 2^32, so a connection whose
    // sequence numbers lie above 2^31 must not read its first delivery as reordering.
    let iss = 3_000_000_000u32;
    let at = |n: u32| SeqNum(iss.wrapping_add(n * MSS));
    let mut o = Observer::new(&TcpConfig { rack: true, ..cfg() }, at(0), true, false);
    for n in 0..10 {
        o.on_transmit(ms(u64::from(n)), at(n), MSS, false);
    }
    o.on_ack(ms(100), &ack(at(1), &[]), false);
    o.on_ack(ms(112), &ack(at(1), &[(at(2), at(5))]), false);
    // Segment 1 (sent at 1 ms) waited RACK.rtt = 112 − 4 = 108 ms: lost at 109 ms.
    let ex = o.explain(ms(113), at(1), at(2));
    assert!(ex.rack_lost, "{ex:?}");
    assert_eq!(ex.trigger, Trigger::Rack);
}

/// RFC 8985 §7.3: new data sent once the PTO has expired is the probe, after which the RTO
/// (not the PTO) is armed from the probe's send time; new data before the PTO leaves the
/// running RTO alone (RFC 6298 (5.1)).
#[test]
fn new_data_after_the_pto_is_the_probe_and_rearms_the_rto() {
    let tlp = TcpConfig { tlp: true, ..cfg() };
    let start = |o: &mut Observer| {
        o.on_transmit(ms(0), seq(0), MSS, false);
        o.on_transmit(ms(0), seq(1), MSS, false);
        o.on_ack(ms(100), &ack(seq(1), &[]), false);
    };
    let mut o = Observer::new(&tlp, seq(0), true, false);
    start(&mut o);
    let pto = o.expected().pto_at.expect("PTO armed while data is outstanding");
    let rto_before = o.expected().rto_at;
    let probe_at = SimTime(pto.0 + 1_000_000);
    assert_eq!(o.on_transmit(probe_at, seq(2), MSS, false), None);
    assert_eq!(o.expected().pto_at, None);
    assert_eq!(o.expected().rto_at, Some(SimTime(probe_at.0 + o.rto().as_nanos())));
    assert_ne!(o.expected().rto_at, rto_before);
    // Before the PTO: the RTO keeps running from the ACK.
    let mut q = Observer::new(&tlp, seq(0), true, false);
    start(&mut q);
    let rto = q.expected().rto_at;
    q.on_transmit(SimTime(pto.0 - 1_000_000), seq(2), MSS, false);
    assert_eq!(q.expected().rto_at, rto);
}

// A receiver that SACKs the FIN (Linux) reports a block one sequence number past the data the
// observer was fed: the block still SACKs the last segment (not dropped as beyond SND.NXT).
#[test]
fn a_sack_block_that_includes_the_fin_sacks_the_last_segment() {
    let mut o = sent_ten();
    let v = o.on_ack(ms(100), &ack(seq(0), &[(seq(9), seq(10) + 1)]), false);
    assert_eq!(v.newly_sacked, u64::from(MSS));
    assert!(o.scoreboard().sacked_covers(seq(9), seq(10)));
    // A block further past SND.NXT is still invalid (RFC 6675 §5 bounds).
    let mut p = sent_ten();
    assert_eq!(p.on_ack(ms(100), &ack(seq(0), &[(seq(9), seq(10) + 2)]), false).newly_sacked, 0);
}

fn ts_ack(a: SeqNum, tsecr: u32) -> Segment {
    let mut s = ack(a, &[]);
    s.options.timestamps = Some((1, tsecr));
    s
}

// RFC 7323 §4.1 with timestamps (`rules::rtt_source`, as the sender): the ACK of a
// retransmission that echoes the retransmission's TSval is a sample (Karn's rule would give
// none) and ends the back-off, so the next timer runs on the un-backed-off RTO, as the
// sender's does. The sender's clock is read off the captured TSvals (1 ms ticks).
#[test]
fn with_timestamps_a_retransmissions_echo_is_a_sample_and_ends_the_back_off() {
    let mut o = Observer::new(&TcpConfig { timestamps: true, ..cfg() }, seq(0), true, true);
    o.note_tsval(ms(0), 101);
    o.on_transmit(ms(0), seq(0), MSS, false);
    o.note_tsval(ms(0), 101);
    o.on_transmit(ms(0), seq(1), MSS, false);
    // RFC 6298 (2.1): 1 s before any sample; the timer fires and SND.UNA is resent.
    o.note_tsval(ms(1000), 1101);
    let ex = o.on_transmit(ms(1000), seq(0), MSS, false).expect("a retransmission");
    assert_eq!(ex.trigger, Trigger::Rto);
    assert_eq!(o.rto(), SimDuration::from_secs(2), "RFC 6298 (5.5): backed off");
    // The ACK at 1040 ms echoes the retransmission's TSval 1101: RTT 40 ms.
    o.on_ack(ms(1040), &ts_ack(seq(1), 1101), false);
    assert_eq!(o.last_rtt_sample(), Some(SimDuration::from_millis(40)));
    assert_eq!(o.rto(), SimDuration::from_secs(1), "a sample ends the back-off (RFC 6298 (2.2)-(2.4), minimum 1 s)");
    assert_eq!(o.rto_timer().1, Some(ms(2040)), "RFC 6298 (5.3): restarted with the new RTO");
    // Without timestamps the same exchange gives no sample (Karn) and keeps the back-off.
    let mut k = Observer::new(&cfg(), seq(0), true, false);
    k.on_transmit(ms(0), seq(0), MSS, false);
    k.on_transmit(ms(0), seq(1), MSS, false);
    k.on_transmit(ms(1000), seq(0), MSS, false);
    k.on_ack(ms(1040), &ack(seq(1), &[]), false);
    assert_eq!(k.last_rtt_sample(), None);
    assert_eq!(k.rto(), SimDuration::from_secs(2));
}

// The sender's timestamp clock is the newest TSval plus the whole ticks since it was first
// captured: 60.9 ms after TSval 500 was first seen the clock reads 560.
#[test]
fn the_senders_timestamp_clock_is_read_off_the_newest_tsval() {
    let mut o = Observer::new(&TcpConfig { timestamps: true, ..cfg() }, seq(0), true, true);
    o.note_tsval(ms(10), 500);
    o.on_transmit(ms(10), seq(0), MSS, false);
    // A later copy of the same TSval does not move the reference.
    o.note_tsval(ms(10) + SimDuration::from_micros(900), 500);
    o.on_ack(SimTime(ms(70).0 + 900_000), &ts_ack(seq(1), 500), false);
    assert_eq!(o.last_rtt_sample(), Some(SimDuration::from_millis(60)));
}

fn linux() -> TcpConfig {
    let mut c = crate::profile::Profile::by_name("linux").map(|p| p.config()).unwrap_or_default();
    c.mss = 1460;
    c
}

// Linux `tcp_schedule_loss_probe` on the observer as on the sender: the PTO goes through the
// profile's timer clock (250 Hz one-shot: rounded up to the 4 ms jiffy), the flight counts
// the FIN (`note_fin`), and the segment size is the captured one (1448), not the profile's
// MSS (1460): a 1448-byte tail with its FIN is two "packets", so 2·srtt + TCP_TIMEOUT_MIN.
#[test]
fn linuxs_probe_timeout_counts_the_fin_and_is_rounded_to_a_jiffy() {
    let mut o = Observer::new(&linux(), seq(0), true, false);
    o.on_handshake_rtt(ms(100), SimDuration::from_millis(50));
    o.note_fin();
    assert_eq!(o.on_transmit(ms(101), seq(0), 1448, true), None);
    assert_eq!(o.smss(), 1448, "the captured segment size");
    // 101 ms + 2·50 ms + 8 ms = 209 ms, on the 4 ms jiffy grid: 212 ms.
    assert_eq!(o.expected().pto_at, Some(ms(212)));
    // Without the FIN the tail is one packet: 2·srtt + TCP_RTO_MIN (200 ms), or the RTO if
    // that comes first.
    let mut p = Observer::new(&linux(), seq(0), true, false);
    p.on_handshake_rtt(ms(100), SimDuration::from_millis(50));
    p.on_transmit(ms(101), seq(0), 1448, false);
    let pto = p.expected().pto_at.expect("armed");
    assert!(pto > ms(212), "{pto:?}");
}

// Linux `tcp_ack_update_rtt`: an ACK with neither an ACK nor a SACK timing sample (it
// acknowledges a retransmission, FLAG_RETRANS_DATA_ACKED) feeds the timestamp echo, in whole
// 1 ms ticks, into RACK.min_RTT (`rules::rack_min_rtt_sample`, the sender's rule). The tick
// sample (20 ms) is below the timed one (21 ms), so RACK's min_RTT/4 window is 5 ms, not
// 5.25 ms, and a hole sent 5 ms before a SACKed segment is lost on that SACK at once (real
// kernel `random-1pct`, the fast retransmit at 964 ms, was `unknown` without this rule).
#[test]
fn a_timestamp_echo_of_a_retransmission_lowers_racks_min_rtt_to_the_tick() {
    let run = |ts_ok: bool| {
        let c = TcpConfig { rack: true, timestamps: ts_ok, ..cfg() };
        let mut o = Observer::new(&c, seq(0), true, ts_ok);
        let ack_ts = |a: SeqNum, sack: &[(SeqNum, SeqNum)], tsecr: u32| {
            let mut s = ack(a, sack);
            if ts_ok {
                s.options.timestamps = Some((1, tsecr));
            }
            s
        };
        o.note_tsval(ms(0), 100);
        o.on_transmit(ms(0), seq(0), MSS, false);
        o.on_transmit(ms(0), seq(1), MSS, false);
        // A timed sample of 21 ms.
        o.on_ack(ms(21), &ack_ts(seq(1), &[], 100), false);
        // Segment 1 resent at 25 ms (TSval 125); its ACK at 45.5 ms has no timed sample
        // (Karn), only the echo: clock 145 − 125 = 20 ticks.
        o.note_tsval(ms(25), 125);
        o.on_transmit(ms(25), seq(1), MSS, false);
        o.on_ack(SimTime(ms(45).0 + 500_000), &ack_ts(seq(2), &[], 125), false);
        // Segment 2 at 50 ms, segment 3 at 55 ms; segment 3 SACKed at 76 ms (RACK.rtt 21 ms).
        o.note_tsval(ms(50), 150);
        o.on_transmit(ms(50), seq(2), MSS, false);
        o.note_tsval(ms(55), 155);
        o.on_transmit(ms(55), seq(3), MSS, false);
        o.on_ack(ms(76), &ack_ts(seq(2), &[(seq(3), seq(4))], 155), false);
        o.explain(ms(76), seq(2), seq(3))
    };
    // 50 + 21 + 20/4 − 76 = 0: lost (RFC 8985 §6.2 step 5 "If remaining <= 0").
    let ex = run(true);
    assert!(ex.rack_lost, "{ex:?}");
    assert_eq!(ex.trigger, Trigger::Rack);
    // Without timestamps min_RTT stays 21 ms: 0.25 ms remain, the reordering timer waits.
    let ex = run(false);
    assert!(!ex.rack_lost, "{ex:?}");
    assert_eq!(ex.rack_deadline, Some(SimTime(ms(76).0 + 250_000) + crate::loss::rack::TCP_TIMEOUT_MIN));
}

/// RFC 5681 §2 (e) with RFC 7323 §2.2-2.3: the window the sender learnt from the SYN-ACK
/// (never scaled) against the first ACK's (scaled by Snd.Wind.Shift). Without the
/// handshake's window the first ACK is compared with nothing and counts as a duplicate.
#[test]
fn the_first_ack_is_compared_with_the_handshake_s_window() {
    let plain = || {
        let mut o = Observer::new(&TcpConfig { sack: false, recovery: RecoveryAlgorithm::NewReno, ..cfg() }, seq(0), false, false);
        for n in 0..4 {
            o.on_transmit(ms(0), seq(n), MSS, false);
        }
        o
    };
    // SYN-ACK window 65535 (unscaled), later ACKs 32768 << 5: changed, not a duplicate.
    let mut o = plain();
    o.set_peer_window(65_535, 5);
    let first = Segment { window: 32_768, ..ack(seq(0), &[]) };
    assert!(!o.on_ack(ms(100), &first, false).is_dupack, "(e): the window changed");
    assert!(o.on_ack(ms(101), &first, false).is_dupack, "the same window again: a duplicate");
    // SYN-ACK window 1048576 in bytes is the same as 32768 << 5: unchanged, a duplicate.
    let mut o = plain();
    o.set_peer_window(32_768 << 5, 5);
    assert!(o.on_ack(ms(100), &first, false).is_dupack);
    // Never told: the first ACK counts (the observer's behaviour before `set_peer_window`).
    let mut o = plain();
    assert!(o.on_ack(ms(100), &first, false).is_dupack);
}

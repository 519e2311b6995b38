//! Scripted exchanges for RACK (RFC 8985 §6) and PRR (RFC 6937) in the RFC sender, at exact
//! times over a fixed 50 ms one-way delay (RTT 100 ms), immediate ACKs, SACK on, no
//! timestamps, exact clocks.
//!
//! Timeline: the handshake ends at 100 ms (SRTT 100 ms); the initial window (4 segments)
//! leaves at 100 ms, segments 5–12 at 200 ms (ACKs of 1–4, slow start), 13–28 at 300 ms. Every
//! segment of a flight leaves at the same instant, so RACK orders them by end sequence
//! (RACK_sent_after's tie-break). RACK.min_RTT = 100 ms, so reo_wnd = 25 ms until three
//! segments are SACKed (then 0, RFC 8985 §6.2 step 4).

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::{RetransCause, TcpConfig};
use tcplab_time::SimTime;

const MSS: u64 = 1000;

fn cfg(rack: bool, prr: bool) -> TcpConfig {
    TcpConfig {
        rack,
        prr,
        // Segments sent at one instant are ordered by sequence (RACK_sent_after); RFC 3042
        // segments sent before a fast retransmission in the same instant would break that
        // order here (the harness delivers a flight's ACKs at one instant). Linux has no
        // Limited Transmit either (its Disorder state sends by cwnd and in_flight).
        limited_transmit: false,
        ..harness::sack_cfg(MSS as u16)
    }
}

/// Drops the first `copies` transmissions of A's data segment `n` (1-based).
fn drop_copies(n: u32, copies: u32) -> impl FnMut(&Pkt) -> Fate {
    let mut seen = 0;
    move |p: &Pkt| {
        if p.dir == Dir::AtoB && p.seg.len > 0 && p.rel_seq == (n - 1) * MSS as u32 {
            seen += 1;
            if seen <= copies {
                return Fate::Drop;
            }
        }
        Fate::Deliver
    }
}

fn retransmissions(h: &Harness) -> Vec<(SimTime, u32, RetransCause)> {
    h.data_from(Dir::AtoB).filter_map(|p| p.rtx.map(|c| (p.t, p.rel_seq / MSS as u32 + 1, c))).collect()
}

fn run(c: TcpConfig, segments: u64, fate: impl FnMut(&Pkt) -> Fate + 'static) -> Harness {
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.set_fate(fate);
    h.a.send(segments * MSS);
    assert!(h.run());
    h
}

#[test]
fn one_sacked_segment_above_a_hole_fires_the_reordering_timer_after_a_quarter_rtt() {
    // 6 segments, segment 5 lost: segment 6's SACK at 300 ms is the only evidence. RACK: seg 5
    // was sent before seg 6 and is lost at 200 + RACK.rtt (100) + reo_wnd (25) = 325 ms; the
    // timer fires 8 ms (TCP_TIMEOUT_MIN) later: fast recovery and the retransmission at 333 ms.
    let h = run(cfg(true, false), 6, drop_copies(5, 1));
    assert_eq!(retransmissions(&h), vec![(at_ms(333), 5, RetransCause::FastRetransmit)]);
    assert_eq!(h.a.stats().timeouts, 0);
    // Without RACK one duplicate ACK is below DupThresh: the RTO (1 s after the ACK at 200 ms).
    let h = run(cfg(false, false), 6, drop_copies(5, 1));
    assert_eq!(retransmissions(&h), vec![(at_ms(1200), 5, RetransCause::Rto)]);
}

#[test]
fn three_sacked_segments_mark_the_hole_lost_at_once() {
    // RFC 8985 §6.2 step 4: with DupThresh segments SACKed (and no reordering seen) reo_wnd is
    // 0, so the third SACK at 300 ms proves the loss: the fast retransmission leaves at 300 ms.
    let h = run(cfg(true, false), 12, drop_copies(5, 1));
    assert_eq!(retransmissions(&h)[0], (at_ms(300), 5, RetransCause::FastRetransmit));
}

#[test]
fn a_lost_retransmission_is_resent_one_rtt_later_instead_of_after_an_rto() {
    // Segment 5 and its first retransmission (300 ms) are lost. The new data sent after the
    // retransmission at 300 ms is SACKed at 400 ms: RACK.xmit_ts passes the retransmission's
    // send time and reo_wnd is 0 in recovery, so the retransmission is lost at 300 + 100 =
    // 400 ms and resent at once (RFC 8985 §2, lost-retransmission detection).
    let h = run(cfg(true, false), 30, drop_copies(5, 2));
    let r = retransmissions(&h);
    assert_eq!(&r[..2], &[(at_ms(300), 5, RetransCause::FastRetransmit), (at_ms(400), 5, RetransCause::SackRecovery)]);
    assert_eq!(h.a.stats().timeouts, 0);
    // Without RACK the lost retransmission waits for the RTO.
    let h = run(cfg(false, false), 30, drop_copies(5, 2));
    let r = retransmissions(&h);
    assert_eq!(r[0], (at_ms(300), 5, RetransCause::FastRetransmit));
    // (RFC 6675's rescue retransmission of the highest segment goes first; segment 5 waits
    // for the RTO, 1 s after the last ACK that advanced SND.UNA.)
    let again = r.iter().skip(1).find(|x| x.1 == 5).copied();
    assert_eq!(again, Some((at_ms(1200), 5, RetransCause::Rto)));
    assert_eq!(h.a.stats().timeouts, 1);
}

/// Segment 13 (of the third flight: 16 segments sent at 300 ms) lost; B's 15 duplicate ACKs
/// (SACKs of 14..28), sent at 350 ms, reach A 1 ms apart from 400 ms (the k-th at 399 + k ms).
fn third_flight_loss(prr: bool) -> Harness {
    let mut drop13 = drop_copies(13, 1);
    let mut k = 0u64;
    run(cfg(true, prr), 60, move |p: &Pkt| {
        if p.dir == Dir::BtoA && p.t == at_ms(350) {
            let d = k;
            k += 1;
            return if d == 0 { Fate::Deliver } else { Fate::Delay(ms(d)) };
        }
        drop13(p)
    })
}

fn sent_between(h: &Harness, from: u64, to: u64) -> Vec<(u64, u32)> {
    h.data_from(Dir::AtoB)
        .filter(|p| p.t >= at_ms(from) && p.t < at_ms(to))
        .map(|p| ((p.t.0 / 1_000_000), p.rel_seq / MSS as u32 + 1))
        .collect()
}

// RFC 6937 / Linux tcp_cwnd_reduction, in packets: RecoverFS = prior cwnd = 16, ssthresh = 8.
// RACK marks 13 lost at the third SACK (402 ms: fast retransmission). While pipe > ssthresh,
// "sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out": one segment per two
// delivered, at 404, 406, 408 ms; at 410 ms pipe = ssthresh (no send: the bound is
// ssthresh - pipe = 0); then one per ACK as the Slow Start Reduction Bound allows. Without
// PRR (RFC 6675: cwnd = ssthresh at once) nothing goes until pipe < ssthresh (408 ms), then one
// segment per ACK: the same 7 new segments, bunched at the end of the round.
#[test]
fn prr_spreads_the_reduction_over_the_acks_of_the_recovery_round() {
    let prr = third_flight_loss(true);
    assert_eq!(
        sent_between(&prr, 390, 480),
        vec![(402, 13), (404, 29), (406, 30), (408, 31), (411, 32), (412, 33), (413, 34), (414, 35)]
    );
    let plain = third_flight_loss(false);
    assert_eq!(
        sent_between(&plain, 390, 480),
        vec![(402, 13), (408, 29), (409, 30), (410, 31), (411, 32), (412, 33), (413, 34), (414, 35)]
    );
    assert_eq!(prr.a.stats().timeouts, 0);
}

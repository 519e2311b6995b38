//! Scripted exchanges for the timer framework (000 §4), the OS profiles and the adaptive
//! dupACK threshold (003 §V-D), at exact times over a fixed 50 ms one-way delay.

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::{
    AckPolicy, DupAckThreshold, EventClock, InitialWindow, Profile, RecoveryAlgorithm, RetransCause, SeqNum, TcpConfig,
};
use tcplab_time::{SimDuration, SimTime};

const MSS: u64 = 1000;

fn base(p: Profile) -> TcpConfig {
    let mut c = TcpConfig { mss: MSS as u16, recv_buffer: 1 << 20, timestamps: false, sack: false, recovery: RecoveryAlgorithm::NewReno, ..TcpConfig::default() };
    p.apply(&mut c);
    c
}

fn with_slow_phase(mut c: TcpConfig, phase: SimDuration) -> TcpConfig {
    c.timers.slow = EventClock::bsd_slow(phase);
    c
}

/// Drops the first transmission of A's first data segment.
fn drop_first_data(p: &Pkt) -> Fate {
    if p.dir == Dir::AtoB && p.seg.len > 0 && p.data_idx == 1 {
        Fate::Drop
    } else {
        Fate::Deliver
    }
}

fn first_rto_retransmission(h: &Harness) -> SimTime {
    h.data_from(Dir::AtoB).find(|p| p.rtx == Some(RetransCause::Rto)).map(|p| p.t).unwrap_or(SimTime(u64::MAX))
}

/// 000 §4.1: "an RTO of 2 ticks ... would keep the timeout delay between 0.5–1s"; footnote 6:
/// the 500 ms clock "ticks regularly ... rather than re-starting at the instant when packets
/// are sent". The decoupled estimator gives rto_ev = 2 for a 100 ms RTT; the data segment
/// leaves at 100 ms (after the handshake). Slow-timer phase 110 ms: boundaries at 110 and
/// 610 ms, so the timeout fires 510 ms after the send. Phase 100 ms: the boundary at the send
/// instant does not count, the next two are 600 and 1100 ms: 1000 ms after the send.
#[test]
fn a_two_tick_bsd_timeout_fires_between_half_a_second_and_a_second_after_the_send_depending_on_phase() {
    for (phase, expect) in [(110, 610), (100, 1100), (0, 1000)] {
        let c = with_slow_phase(base(Profile::BSD_DECOUPLED), ms(phase));
        let mut h = Harness::new(c.clone(), c, ms(50));
        h.set_fate(drop_first_data);
        h.a.send(MSS);
        assert!(h.run());
        let sent = h.data_from(Dir::AtoB).next().map(|p| p.t);
        assert_eq!(sent, Some(at_ms(100)));
        assert_eq!(first_rto_retransmission(&h), at_ms(expect), "phase {phase} ms");
    }
}

/// 4.4BSD-Lite after one 100 ms handshake sample: RTO_O = 3 ticks (the sub-tick RTT counts as
/// 1 with the +1 tick: t_srtt = 8, t_rttvar = 2), so the same loss waits for three
/// boundaries: 1.0–1.5 s after the send.
#[test]
fn a_bsd_lite_sender_waits_three_ticks_for_a_sub_tick_rtt() {
    for (phase, expect) in [(110, 1110), (100, 1600)] {
        let c = with_slow_phase(base(Profile::BSD_LITE), ms(phase));
        let mut h = Harness::new(c.clone(), c, ms(50));
        h.set_fate(drop_first_data);
        h.a.send(MSS);
        assert!(h.run());
        assert_eq!(first_rto_retransmission(&h), at_ms(expect), "phase {phase} ms");
    }
}

/// BSD `tcp_fasttimo`: a delayed ACK goes out on the next 200 ms fast tick, not 200 ms after
/// the segment. The segment sent at 100 ms arrives at 150 ms; the fast tick is at 200 ms.
#[test]
fn a_delayed_ack_on_the_bsd_fast_timer_fires_at_the_next_fast_tick() {
    let c = base(Profile::BSD_LITE);
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.a.send(500);
    assert!(h.run());
    let acks: Vec<&Pkt> = h.acks_from(Dir::BtoA).filter(|p| p.t > at_ms(50)).collect();
    assert_eq!(acks.len(), 1);
    assert_eq!(acks[0].t, at_ms(200));
    assert_eq!(acks[0].seg.ack, SeqNum(1000 + 1 + 500));
}

/// With a fast-timer phase of 190 ms the tick after 150 ms is at 190 ms.
#[test]
fn the_fast_timer_phase_moves_the_delayed_ack() {
    let mut c = base(Profile::BSD_LITE);
    c.timers.fast = EventClock::bsd_fast(ms(190));
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.a.send(500);
    assert!(h.run());
    let acks: Vec<SimTime> = h.acks_from(Dir::BtoA).filter(|p| p.t > at_ms(50)).map(|p| p.t).collect();
    assert_eq!(acks, vec![at_ms(190)]);
}

/// 000 §4.1 last paragraph: with a fine event clock the RTO is at least 200 ms + srtt. Here
/// f_ev = 100 Hz (10 ms one-shot): the handshake sample is 100 ms → rtt = 101 f_rtt ticks,
/// sa = 808, sd = 202, eq. 1 rto = 303 ms, eq. 2 rto_ev = ⌈303/10⌉ + 1 = 32 ticks = 320 ms,
/// bound 200 + 101 = 301 ms; RTO = max(320, 301) = 320 ms, so the segment sent at 100 ms is
/// retransmitted at 420 ms.
#[test]
fn the_decoupled_estimator_with_a_10ms_event_clock_times_out_at_max_of_eq2_and_200ms_plus_srtt() {
    let mut c = base(Profile::BSD_DECOUPLED);
    c.timers.slow = EventClock::OneShot { granularity: ms(10) };
    c.rto.min = SimDuration::ZERO;
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.set_fate(drop_first_data);
    h.a.send(MSS);
    h.run_until(at_ms(101));
    let snap = h.a.cc_snapshot();
    assert_eq!(snap.srtt_ns, 101_000_000);
    assert_eq!(snap.rto_ns, 320_000_000);
    assert!(snap.rto_ns >= 200_000_000 + snap.srtt_ns);
    assert!(h.run());
    assert_eq!(first_rto_retransmission(&h), at_ms(420));
}

/// Window scaling off, so that the first duplicate ACK carries the same window as the
/// SYN-ACK (RFC 5681 §2: a window update is not a duplicate ACK).
fn unscaled(c: TcpConfig) -> TcpConfig {
    TcpConfig { window_scale: false, recv_buffer: 65_535, ..c }
}

/// 003 §V-D: D = max(1, min(3, F − 2)). A flight of 4 segments whose first is lost produces
/// 3 duplicate ACKs; with D = 2 the fast retransmit leaves on the second.
#[test]
fn with_the_adaptive_threshold_a_flight_of_four_retransmits_on_the_second_duplicate_ack() {
    let a = unscaled(TcpConfig {
        initial_window: InitialWindow::Segments(4),
        dupack_threshold: DupAckThreshold::Adaptive,
        ..base(Profile::RFC6298)
    });
    let b = unscaled(TcpConfig { ack: AckPolicy { delayed_ack: None, ack_every: 1, quickack: false }, ..base(Profile::RFC6298) });
    let mut h = Harness::new(a, b, ms(50));
    h.handshake();
    h.set_fate(|p| {
        if p.dir == Dir::AtoB && p.seg.len > 0 && p.data_idx == 1 {
            Fate::Drop
        } else if p.dir == Dir::AtoB && p.seg.len > 0 {
            // Spread arrivals so every ACK has its own instant.
            Fate::Delay(ms(u64::from(p.data_idx)))
        } else {
            Fate::Deliver
        }
    });
    h.a.send(4 * MSS);
    assert!(h.run());
    let dupacks: Vec<SimTime> = h
        .acks_from(Dir::BtoA)
        .filter(|p| p.seg.ack == h.a.iss() + 1 && p.t > at_ms(50))
        .map(|p| p.t + h.delay)
        .collect();
    assert!(dupacks.len() >= 2, "{dupacks:?}");
    let frx: Vec<&Pkt> = h.data_from(Dir::AtoB).filter(|p| p.rtx == Some(RetransCause::FastRetransmit)).collect();
    assert_eq!(frx.len(), 1);
    assert_eq!(frx[0].t, dupacks[1], "fast retransmit on the second duplicate ACK");
}

/// The same exchange with the fixed RFC 5681 threshold of 3 waits for the third duplicate.
#[test]
fn with_the_fixed_threshold_the_same_flight_waits_for_the_third_duplicate_ack() {
    let a = unscaled(TcpConfig { initial_window: InitialWindow::Segments(4), limited_transmit: false, ..base(Profile::RFC6298) });
    let b = unscaled(TcpConfig { ack: AckPolicy { delayed_ack: None, ack_every: 1, quickack: false }, ..base(Profile::RFC6298) });
    let mut h = Harness::new(a, b, ms(50));
    h.handshake();
    h.set_fate(|p| if p.dir == Dir::AtoB && p.seg.len > 0 && p.data_idx == 1 { Fate::Drop } else if p.dir == Dir::AtoB && p.seg.len > 0 { Fate::Delay(ms(u64::from(p.data_idx))) } else { Fate::Deliver });
    h.a.send(4 * MSS);
    assert!(h.run());
    let dupacks: Vec<SimTime> =
        h.acks_from(Dir::BtoA).filter(|p| p.seg.ack == h.a.iss() + 1 && p.t > at_ms(50)).map(|p| p.t + h.delay).collect();
    let frx: Vec<&Pkt> = h.data_from(Dir::AtoB).filter(|p| p.rtx == Some(RetransCause::FastRetransmit)).collect();
    assert_eq!(frx.len(), 1);
    assert_eq!(frx[0].t, dupacks[2]);
}

/// Every profile runs a lossy transfer to completion (smoke test of each estimator and clock
/// combination in the engine).
#[test]
fn every_profile_completes_a_transfer_with_losses() {
    for p in Profile::ALL {
        let c = base(p);
        let mut h = Harness::new(c.clone(), c, ms(50));
        h.set_fate(|p| if p.dir == Dir::AtoB && p.seg.len > 0 && (p.data_idx == 3 || p.data_idx == 9) { Fate::Drop } else { Fate::Deliver });
        h.a.send(40 * MSS);
        assert!(h.run(), "{}", p.name);
        assert!(h.a.is_send_complete(), "{}", p.name);
    }
}

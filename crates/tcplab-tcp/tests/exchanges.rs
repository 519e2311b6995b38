//! Scripted exchanges at exact times between two engines over a fixed 50 ms one-way delay.

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::{AckPolicy, ConnState, InitialWindow, RecoveryAlgorithm, RetransCause, SeqNum, TcpConfig, TcpEvent};
use tcplab_time::SimTime;

const MSS: u64 = 1000;

fn cfg() -> TcpConfig {
    TcpConfig { mss: MSS as u16, recv_buffer: 1 << 20, initial_window: InitialWindow::Rfc6928, ..TcpConfig::default() }
}
fn no_sack() -> TcpConfig {
    TcpConfig { sack: false, recovery: RecoveryAlgorithm::NewReno, ..cfg() }
}
fn quick_ack(c: TcpConfig) -> TcpConfig {
    TcpConfig { ack: AckPolicy { delayed_ack: None, ack_every: 2, quickack: false }, ..c }
}
fn arrival(h: &Harness, p: &Pkt) -> SimTime {
    let extra = match p.fate {
        Fate::Delay(x) => x,
        _ => tcplab_time::SimDuration::ZERO,
    };
    p.t + h.delay + extra
}

#[test]
fn handshake_negotiates_mss_sack_timestamps_and_window_scale() {
    let mut h = Harness::new(cfg(), TcpConfig { mss: 1400, ..cfg() }, ms(50));
    h.handshake();
    assert_eq!(h.a.state(), ConnState::Established);
    assert_eq!(h.b.state(), ConnState::Established);
    assert_eq!(h.a.negotiated(), (true, true, true));
    assert_eq!(h.b.negotiated(), (true, true, true));
    assert_eq!(h.a.smss(), 1000);
    assert_eq!(h.b.smss(), 1000);
    let syn = h.log[0].seg;
    // 1 MiB needs 65535 << 5 (65535 << 4 = 1048560 < 1048576).
    assert_eq!(syn.options.window_scale, Some(5));
    assert!(syn.options.sack_permitted);
    assert_eq!(syn.options.mss, Some(1000));
    let synack = h.log[1].seg;
    assert_eq!(synack.options.mss, Some(1400));
    assert_eq!(synack.options.timestamps.map(|t| t.1), syn.options.timestamps.map(|t| t.0));
    // SYN at 0, SYN-ACK at 50, client established at 100.
    assert_eq!(h.log[1].t, at_ms(50));
    assert_eq!(h.b.irs(), Some(SeqNum(1000)));
    assert_eq!(h.a.irs(), Some(SeqNum(5000)));
    let est: Vec<TcpEvent> = h.a.drain_events().filter(|e| matches!(e, TcpEvent::Established { .. })).collect();
    assert_eq!(est, vec![TcpEvent::Established { at: at_ms(100) }]);
}

#[test]
fn options_are_used_only_when_both_ends_offer_them() {
    let server = TcpConfig { sack: false, timestamps: false, window_scale: false, ..cfg() };
    let mut h = Harness::new(cfg(), server, ms(50));
    h.handshake();
    assert_eq!(h.a.negotiated(), (false, false, false));
    assert_eq!(h.b.negotiated(), (false, false, false));
    let synack = h.log[1].seg;
    assert_eq!(synack.options.window_scale, None);
    assert!(!synack.options.sack_permitted);
    assert_eq!(synack.options.timestamps, None);
    // Without window scaling the advertised window is clamped to 65535.
    let last = h.log.last().expect("ack").seg;
    assert_eq!(last.window, 65535);
    assert_eq!(last.options.timestamps, None);
}

#[test]
fn a_lost_syn_is_retransmitted_after_one_second_and_the_initial_window_drops_to_one_segment() {
    let c = TcpConfig { timestamps: false, ..cfg() };
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.set_fate(|p| if p.dir == Dir::AtoB && p.t == SimTime(0) { Fate::Drop } else { Fate::Deliver });
    h.handshake();
    assert_eq!(h.log[1].t, at_ms(1000));
    assert_eq!(h.log[1].rtx, Some(RetransCause::Rto));
    assert_eq!(h.a.state(), ConnState::Established);
    assert_eq!(h.a.cc_snapshot().cwnd, MSS);
    // RFC 6298 (5.7): no sample (Karn), so RTO is 3 s when data transfer begins.
    assert_eq!(h.a.cc_snapshot().rto_ns, 3_000_000_000);
}

/// Data segment k of A is delayed by k ms so that every ACK arrives at a distinct instant.
fn spread_and_drop(drop: &'static [u32]) -> impl FnMut(&Pkt) -> Fate {
    move |p| {
        if p.dir == Dir::AtoB && p.seg.len > 0 {
            if p.rtx.is_none() && drop.contains(&p.data_idx) {
                return Fate::Drop;
            }
            return Fate::Delay(ms(u64::from(p.data_idx)));
        }
        Fate::Deliver
    }
}

fn fast_retransmit_on_third_dupack(a: TcpConfig, b: TcpConfig) {
    let mut h = Harness::new(a, quick_ack(b), ms(50));
    h.set_fate(spread_and_drop(&[3]));
    h.a.send(30 * MSS);
    assert!(h.run());
    let lost_seq = 2 * MSS as u32;
    let dupacks: Vec<&Pkt> = h
        .acks_from(Dir::BtoA)
        .filter(|p| p.seg.ack - (h.a.iss() + 1) == lost_seq)
        .collect();
    assert!(dupacks.len() >= 4, "first ACK + 3 dupacks, got {}", dupacks.len());
    // dupacks[0] is the ACK that first acknowledged up to the hole.
    let t_dup: Vec<SimTime> = dupacks[1..4].iter().map(|p| arrival(&h, p)).collect();
    let rtx: Vec<&Pkt> = h.data_from(Dir::AtoB).filter(|p| p.rtx.is_some()).collect();
    assert_eq!(rtx.len(), 1);
    assert_eq!(rtx[0].rel_seq, lost_seq);
    assert_eq!(rtx[0].rtx, Some(RetransCause::FastRetransmit));
    assert_eq!(rtx[0].t, t_dup[2], "fast retransmit exactly on the third duplicate ACK");
    // RFC 3042: one new segment on each of the first two duplicate ACKs.
    for t in &t_dup[..2] {
        let new: Vec<&Pkt> = h.data_from(Dir::AtoB).filter(|p| p.t == *t).collect();
        assert_eq!(new.len(), 1, "limited transmit at {t}");
        assert_eq!(new[0].rtx, None);
    }
    assert_eq!(h.b.stats().bytes_delivered, 30 * MSS);
    assert_eq!(h.a.stats().timeouts, 0);
    assert!(h.a.is_send_complete());
}

#[test]
fn drop_one_segment_newreno_fast_retransmits_on_the_third_duplicate_ack_after_two_limited_transmits() {
    fast_retransmit_on_third_dupack(no_sack(), no_sack());
}

#[test]
fn drop_one_segment_sack_fast_retransmits_on_the_third_duplicate_ack_after_two_limited_transmits() {
    fast_retransmit_on_third_dupack(cfg(), cfg());
}

#[test]
fn repeated_loss_of_the_same_segment_backs_off_the_rto_one_two_four_times() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    let mut n = 0;
    h.set_fate(move |p| {
        if p.dir == Dir::AtoB && p.seg.len > 0 && n < 3 {
            n += 1;
            return Fate::Drop;
        }
        Fate::Deliver
    });
    h.a.send(MSS);
    assert!(h.run());
    let tx: Vec<(SimTime, Option<RetransCause>)> = h.data_from(Dir::AtoB).map(|p| (p.t, p.rtx)).collect();
    assert_eq!(
        tx,
        vec![
            (at_ms(100), None),
            (at_ms(1100), Some(RetransCause::Rto)),
            (at_ms(3100), Some(RetransCause::Rto)),
            (at_ms(7100), Some(RetransCause::Rto)),
        ]
    );
    assert_eq!(h.a.stats().timeouts, 3);
    assert_eq!(h.a.stats().retransmissions[RetransCause::Rto as usize], 3);
    let ev: Vec<TcpEvent> = h.a.drain_events().collect();
    let backoffs: Vec<u32> =
        ev.iter().filter_map(|e| if let TcpEvent::RtoFired { backoff, .. } = e { Some(*backoff) } else { None }).collect();
    assert_eq!(backoffs, vec![1, 2, 3]);
    let entered = ev.iter().filter(|e| matches!(e, TcpEvent::RecoveryEntered { .. })).count();
    let exited: Vec<&TcpEvent> = ev.iter().filter(|e| matches!(e, TcpEvent::RecoveryExited { .. })).collect();
    assert_eq!(entered, 1);
    // 4th copy arrives at 7150 ms, the delayed ACK leaves at 7350 ms and arrives at 7400 ms.
    assert_eq!(exited, vec![&TcpEvent::RecoveryExited { at: at_ms(7400), kind: tcplab_tcp::RecoveryKind::Timeout }]);
    assert_eq!(h.b.stats().bytes_delivered, MSS);
}

#[test]
fn karns_rule_takes_no_sample_from_a_retransmitted_segment_without_timestamps() {
    let c = TcpConfig { timestamps: false, ..cfg() };
    let mut h = Harness::new(c.clone(), c, ms(50));
    let mut dropped = false;
    h.set_fate(move |p| {
        if p.dir == Dir::AtoB && p.seg.len > 0 && !dropped {
            dropped = true;
            return Fate::Drop;
        }
        Fate::Deliver
    });
    h.a.send(MSS);
    assert!(h.run());
    let samples: Vec<u64> = h
        .a
        .drain_events()
        .filter_map(|e| if let TcpEvent::RttSample { rtt_ns, .. } = e { Some(rtt_ns) } else { None })
        .collect();
    // Only the handshake sample (SYN at 0, SYN-ACK at 100 ms).
    assert_eq!(samples, vec![100_000_000]);
    let s = h.a.cc_snapshot();
    assert_eq!(s.srtt_ns, 100_000_000);
    // The backed-off RTO stays until a valid sample (RFC 6298 §5 note).
    assert_eq!(s.rto_ns, 2_000_000_000);
}

#[test]
fn an_unretransmitted_segment_gives_an_rtt_sample_without_timestamps() {
    let c = TcpConfig { timestamps: false, ..cfg() };
    let mut h = Harness::new(c.clone(), quick_ack(c), ms(50));
    h.a.send(MSS);
    assert!(h.run());
    let n = h.a.drain_events().filter(|e| matches!(e, TcpEvent::RttSample { .. })).count();
    assert_eq!(n, 2);
}

#[test]
fn a_lone_segment_is_acknowledged_when_the_delayed_ack_timer_fires_200_ms_later() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    h.a.send(500);
    assert!(h.run());
    let acks: Vec<&Pkt> = h.acks_from(Dir::BtoA).filter(|p| p.t > at_ms(50)).collect();
    assert_eq!(acks.len(), 1);
    // Data sent at 100 ms arrives at 150 ms; ACK at 350 ms.
    assert_eq!(acks[0].t, at_ms(350));
    assert_eq!(acks[0].seg.ack, SeqNum(1000 + 1 + 500));
}

#[test]
fn every_second_full_sized_segment_is_acknowledged_at_once() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    h.a.send(4 * MSS);
    assert!(h.run());
    let acks: Vec<(SimTime, u32)> =
        h.acks_from(Dir::BtoA).filter(|p| p.t > at_ms(50)).map(|p| (p.t, p.seg.ack - SeqNum(1001))).collect();
    assert_eq!(acks, vec![(at_ms(150), 2000), (at_ms(150), 4000)]);
}

#[test]
fn sack_recovery_repairs_three_losses_in_one_window_without_a_timeout() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    h.set_fate(spread_and_drop(&[12, 14, 17]));
    h.a.send(80 * MSS);
    assert!(h.run());
    let st = h.a.stats();
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.retransmissions[RetransCause::FastRetransmit as usize], 1);
    assert_eq!(st.retransmissions[RetransCause::SackRecovery as usize], 2);
    assert_eq!(h.b.stats().bytes_delivered, 80 * MSS);
    // Exactly the three lost segments were resent.
    let mut rtx: Vec<u32> = h.data_from(Dir::AtoB).filter(|p| p.rtx.is_some()).map(|p| p.rel_seq).collect();
    rtx.sort_unstable();
    let lost: Vec<u32> =
        h.data_from(Dir::AtoB).filter(|p| p.fate == Fate::Drop).map(|p| p.rel_seq).collect();
    assert_eq!(rtx, lost);
    let ev: Vec<TcpEvent> = h.a.drain_events().collect();
    assert_eq!(ev.iter().filter(|e| matches!(e, TcpEvent::RecoveryEntered { .. })).count(), 1);
    assert_eq!(ev.iter().filter(|e| matches!(e, TcpEvent::RecoveryExited { .. })).count(), 1);
    assert!(h.a.is_send_complete());
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole_at_once() {
    let mut h = Harness::new(no_sack(), quick_ack(no_sack()), ms(50));
    h.set_fate(spread_and_drop(&[12, 15]));
    h.a.send(60 * MSS);
    assert!(h.run());
    let rtx: Vec<&Pkt> = h.data_from(Dir::AtoB).filter(|p| p.rtx.is_some()).collect();
    assert_eq!(rtx.len(), 2, "{rtx:?}");
    assert_eq!(rtx[0].rtx, Some(RetransCause::FastRetransmit));
    assert_eq!(rtx[1].rtx, Some(RetransCause::SackRecovery));
    let second_hole = rtx[1].rel_seq;
    // The partial ACK that acknowledges up to the second hole.
    let partial = h
        .acks_from(Dir::BtoA)
        .find(|p| p.t > rtx[0].t && p.seg.ack - SeqNum(1001) == second_hole)
        .expect("partial ack");
    assert_eq!(rtx[1].t, arrival(&h, partial));
    assert_eq!(h.a.stats().timeouts, 0);
    assert_eq!(h.b.stats().bytes_delivered, 60 * MSS);
}

#[test]
fn a_duplicate_segment_is_reported_in_a_dsack_block() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    h.set_fate(|p| {
        if p.dir == Dir::AtoB && p.data_idx == 2 {
            Fate::Duplicate(ms(5))
        } else {
            Fate::Deliver
        }
    });
    h.a.send(4 * MSS);
    assert!(h.run());
    let base = SeqNum(1001);
    let d = h
        .acks_from(Dir::BtoA)
        .find(|p| !p.seg.options.sack.is_empty())
        .expect("an ACK with a SACK option");
    let first = d.seg.options.sack.as_slice()[0];
    assert_eq!((first.left - base, first.right - base), (1000, 2000));
    assert!(first.right.le(d.seg.ack), "D-SACK below the cumulative ACK");
    assert_eq!(d.t, at_ms(155));
    assert_eq!(h.b.stats().bytes_delivered, 4 * MSS);
}

#[test]
fn a_transfer_across_the_sequence_wrap_completes() {
    for sack in [true, false] {
        let c = if sack { cfg() } else { no_sack() };
        let mut h = Harness::with_iss(c.clone(), c, ms(50), SeqNum(u32::MAX - 5000), SeqNum(u32::MAX - 100));
        h.set_fate(spread_and_drop(&[4, 30, 31]));
        h.a.send(200 * MSS);
        assert!(h.run());
        assert_eq!(h.b.stats().bytes_delivered, 200 * MSS);
        assert!(h.a.is_send_complete());
        assert!(h.a.snd_seq().0 .0 < 1 << 30, "SND.UNA wrapped");
    }
}

#[test]
fn every_byte_is_delivered_exactly_once_for_several_loss_patterns() {
    let patterns: [&'static [u32]; 6] = [&[], &[1], &[1, 2, 3], &[10, 11, 12, 13, 14, 15], &[5, 9, 20, 21, 40], &[60]];
    for sack in [true, false] {
        for pat in patterns {
            let c = if sack { cfg() } else { no_sack() };
            let mut h = Harness::new(c.clone(), c, ms(50));
            h.set_fate(spread_and_drop(pat));
            h.a.send(60 * MSS + 123);
            assert!(h.run(), "sack={sack} pattern={pat:?}");
            assert_eq!(h.b.stats().bytes_delivered, 60 * MSS + 123, "sack={sack} pattern={pat:?}");
            assert!(h.a.is_send_complete(), "sack={sack} pattern={pat:?}");
        }
    }
}

#[test]
fn close_in_both_directions_reaches_time_wait_and_closed() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    h.a.send(5 * MSS);
    h.a.close();
    assert!(h.run());
    assert_eq!(h.b.state(), ConnState::CloseWait);
    assert_eq!(h.a.state(), ConnState::FinWait2);
    assert!(h.a.is_send_complete());
    assert!(h.a.drain_events().any(|e| matches!(e, TcpEvent::SendComplete { .. })));
    h.b.close();
    assert!(h.run());
    assert_eq!(h.a.state(), ConnState::TimeWait);
    assert_eq!(h.b.state(), ConnState::Closed);
    assert!(h.b.is_send_complete());
    assert_eq!(h.b.stats().bytes_delivered, 5 * MSS);
    assert_eq!(h.a.poll_timeout(), None);
    assert_eq!(h.b.poll_timeout(), None);
}

#[test]
fn a_lost_fin_is_retransmitted() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    h.set_fate(|p| {
        if p.dir == Dir::AtoB && p.seg.flags.contains(tcplab_tcp::TcpFlags::FIN) && p.rtx.is_none() {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.a.send(2 * MSS);
    h.a.close();
    assert!(h.run());
    assert_eq!(h.b.state(), ConnState::CloseWait);
    assert!(h.a.is_send_complete());
}

#[test]
fn bulk_transfer_keeps_the_pipe_full_and_grows_cwnd() {
    let mut h = Harness::new(cfg(), cfg(), ms(50));
    h.a.send_unlimited();
    h.run_until(at_ms(2000));
    assert!(h.a.cc_snapshot().cwnd > 100 * MSS);
    assert!(h.b.stats().bytes_delivered > 500 * MSS);
}

#[test]
fn reordering_by_less_than_the_dupack_threshold_triggers_no_retransmission() {
    for c in [cfg(), no_sack()] {
        let mut h = Harness::new(c.clone(), quick_ack(c), ms(50));
        // Segment 5 arrives after segments 6 and 7 (1 ms spacing, 2.5 ms extra).
        h.set_fate(|p| {
            if p.dir == Dir::AtoB && p.seg.len > 0 {
                let extra = if p.data_idx == 5 { 7_500 } else { 1_000 * u64::from(p.data_idx) };
                return Fate::Delay(tcplab_time::SimDuration::from_micros(extra));
            }
            Fate::Deliver
        });
        h.a.send(30 * MSS);
        assert!(h.run());
        assert_eq!(h.data_from(Dir::AtoB).filter(|p| p.rtx.is_some()).count(), 0);
        assert_eq!(h.b.stats().bytes_delivered, 30 * MSS);
    }
}

fn synack(window: u16) -> tcplab_tcp::Segment {
    tcplab_tcp::Segment {
        seq: SeqNum(500),
        ack: SeqNum(101),
        flags: tcplab_tcp::TcpFlags::SYN | tcplab_tcp::TcpFlags::ACK,
        window,
        options: tcplab_tcp::TcpOptions { mss: Some(1000), ..Default::default() },
        ..Default::default()
    }
}

#[test]
fn a_zero_window_is_probed_when_the_persist_timer_fires() {
    let mut c = tcplab_tcp::Connection::client(cfg(), SeqNum(100), SimTime(0));
    let syn = c.poll_transmit(SimTime(0)).expect("syn");
    assert!(syn.segment.flags.contains(tcplab_tcp::TcpFlags::SYN));
    c.handle_segment(at_ms(100), &synack(0));
    c.send(3000);
    let t = c.poll_transmit(at_ms(100)).expect("handshake ack");
    assert_eq!(t.segment.len, 0);
    assert!(c.poll_transmit(at_ms(100)).is_none(), "zero window: no data");
    // RTO from the 100 ms handshake sample is the 1 s minimum.
    assert_eq!(c.poll_timeout(), Some(at_ms(1100)));
    c.handle_timeout(at_ms(1100));
    let p = c.poll_transmit(at_ms(1100)).expect("probe");
    assert_eq!(p.retransmission, Some(RetransCause::Probe));
    assert_eq!(p.segment.seq, SeqNum(100));
    assert_eq!(p.segment.len, 0);
    assert_eq!(c.stats().retransmissions[RetransCause::Probe as usize], 1);
    // Backed off: next probe 2 s later.
    assert_eq!(c.poll_timeout(), Some(at_ms(3100)));
    // The window opens.
    let open = tcplab_tcp::Segment {
        seq: SeqNum(501),
        ack: SeqNum(101),
        flags: tcplab_tcp::TcpFlags::ACK,
        window: 10_000,
        ..Default::default()
    };
    c.handle_segment(at_ms(1200), &open);
    let d = c.poll_transmit(at_ms(1200)).expect("data");
    assert_eq!(d.segment.len, 1000);
    assert_eq!(d.segment.seq, SeqNum(101));
}

#[test]
fn an_in_window_rst_closes_the_connection_and_disarms_timers() {
    let mut c = tcplab_tcp::Connection::client(cfg(), SeqNum(100), SimTime(0));
    c.poll_transmit(SimTime(0));
    c.handle_segment(at_ms(100), &synack(65535));
    c.send(5000);
    while c.poll_transmit(at_ms(100)).is_some() {}
    assert!(c.poll_timeout().is_some());
    // Out of window: ignored.
    let mut rst = tcplab_tcp::Segment { seq: SeqNum(400_000), flags: tcplab_tcp::TcpFlags::RST, ..Default::default() };
    c.handle_segment(at_ms(110), &rst);
    assert_eq!(c.state(), ConnState::Established);
    rst.seq = SeqNum(501);
    c.handle_segment(at_ms(120), &rst);
    assert_eq!(c.state(), ConnState::Closed);
    assert_eq!(c.poll_timeout(), None);
    assert!(c.poll_transmit(at_ms(120)).is_none());
}

#[test]
fn handle_timeout_is_idempotent_and_harmless_before_the_deadline() {
    let mut c = tcplab_tcp::Connection::client(cfg(), SeqNum(100), SimTime(0));
    c.poll_transmit(SimTime(0));
    c.handle_timeout(at_ms(999));
    assert!(c.poll_transmit(at_ms(999)).is_none());
    c.handle_timeout(at_ms(1000));
    c.handle_timeout(at_ms(1000));
    let r = c.poll_transmit(at_ms(1000)).expect("syn retransmission");
    assert_eq!(r.retransmission, Some(RetransCause::Rto));
    assert!(c.poll_transmit(at_ms(1000)).is_none());
    assert_eq!(c.stats().timeouts, 1);
    assert_eq!(c.poll_timeout(), Some(at_ms(3000)));
}

#[test]
fn the_advertised_window_uses_the_negotiated_scale() {
    let c = TcpConfig { recv_buffer: 4 << 20, ..cfg() };
    let mut h = Harness::new(c.clone(), c, ms(50));
    h.a.send(MSS);
    assert!(h.run());
    // 4 MiB with shift 7: 4194304 >> 7 = 32768.
    assert_eq!(h.log[0].seg.options.window_scale, Some(7));
    let ack = h.acks_from(Dir::BtoA).last().expect("ack").seg;
    assert_eq!(ack.window, 32768);
    // SYN windows are never scaled.
    assert_eq!(h.log[0].seg.window, 65535);
}

#[test]
fn data_in_both_directions_is_delivered_exactly_once_despite_losses() {
    for c in [cfg(), no_sack()] {
        let mut h = Harness::new(c.clone(), c, ms(50));
        let mut n = 0u32;
        h.set_fate(move |p| {
            if p.seg.len > 0 && p.rtx.is_none() {
                n += 1;
                if n.checked_rem(17) == Some(0) {
                    return Fate::Drop;
                }
            }
            Fate::Deliver
        });
        h.a.send(150 * MSS + 7);
        h.b.send(120 * MSS + 3);
        h.a.close();
        h.b.close();
        assert!(h.run());
        assert_eq!(h.b.stats().bytes_delivered, 150 * MSS + 7);
        assert_eq!(h.a.stats().bytes_delivered, 120 * MSS + 3);
        assert!(h.a.is_send_complete() && h.b.is_send_complete());
        assert!(matches!(h.a.state(), ConnState::TimeWait | ConnState::Closed));
        assert!(matches!(h.b.state(), ConnState::TimeWait | ConnState::Closed));
    }
}

#[test]
fn a_lost_last_segment_during_sack_recovery_is_repaired_by_the_rescue_retransmission() {
    let mut h = Harness::new(cfg(), quick_ack(cfg()), ms(50));
    // 30 segments: IW 10, then 20 more; lose segment 20 and the very last one (30).
    h.set_fate(spread_and_drop(&[20, 30]));
    h.a.send(30 * MSS);
    assert!(h.run());
    let st = h.a.stats();
    assert_eq!(st.timeouts, 0, "{:?}", st);
    assert_eq!(st.retransmissions[RetransCause::FastRetransmit as usize], 1);
    assert_eq!(st.retransmissions[RetransCause::SackRecovery as usize], 1);
    let rescue = h.data_from(Dir::AtoB).find(|p| p.rtx == Some(RetransCause::SackRecovery)).expect("rescue");
    assert_eq!(rescue.rel_seq, 29 * MSS as u32);
    assert_eq!(h.b.stats().bytes_delivered, 30 * MSS);
}

#[test]
fn slow_start_adds_one_smss_per_ack_so_delayed_acks_slow_it_down_unless_byte_counting_is_used() {
    for (abc, expect) in [(false, 15 * MSS), (true, 20 * MSS)] {
        let mut h = Harness::new(cfg(), cfg(), ms(50));
        if abc {
            h.a.set_congestion_controller(Box::new(tcplab_tcp::cc::Reno::with_abc()));
        }
        h.a.send(10 * MSS);
        assert!(h.run());
        // IW = 10 segments, ACKed by 5 delayed ACKs (every second segment).
        assert_eq!(h.acks_from(Dir::BtoA).filter(|p| p.t > at_ms(50)).count(), 5);
        assert_eq!(h.a.cc_snapshot().cwnd, expect);
    }
}

#[test]
fn losing_a_whole_flight_times_out_once_and_goes_back_n_in_slow_start() {
    let mut h = Harness::new(cfg(), quick_ack(cfg()), ms(50));
    h.set_fate(|p| {
        if p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() && p.data_idx <= 10 {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.a.send(10 * MSS);
    h.run_until(at_ms(1100));
    // RFC 5681 eq. 4 at the timeout: ssthresh = max(FlightSize/2, 2*SMSS), cwnd = 1 SMSS.
    let s = h.a.cc_snapshot();
    assert_eq!((s.cwnd, s.ssthresh), (MSS, 5 * MSS));
    assert_eq!(s.rto_ns, 2_000_000_000);
    assert!(h.run());
    let rtx: Vec<(SimTime, u32, Option<RetransCause>)> =
        h.data_from(Dir::AtoB).filter(|p| p.rtx.is_some()).map(|p| (p.t, p.rel_seq / 1000, p.rtx)).collect();
    assert_eq!(rtx.len(), 10);
    assert!(rtx.iter().all(|r| r.2 == Some(RetransCause::Rto)));
    // Slow start from one segment: 1, then 2, then 4, then 3 (the rest).
    let times: Vec<u64> = rtx.iter().map(|r| r.0.as_nanos() / 1_000_000).collect();
    assert_eq!(times, vec![1100, 1200, 1200, 1300, 1300, 1300, 1300, 1400, 1400, 1400]);
    let segs: Vec<u32> = rtx.iter().map(|r| r.1).collect();
    assert_eq!(segs, (0..10).collect::<Vec<u32>>());
    assert_eq!(h.a.stats().timeouts, 1);
    assert_eq!(h.b.stats().bytes_delivered, 10 * MSS);
}

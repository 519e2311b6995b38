//! Property tests over random loss / reordering patterns. The harness asserts after every
//! event: cwnd >= 1 SMSS, RTO within [min, max], bytes in flight <= SND.NXT - SND.UNA.

mod harness;

use harness::{ms, Dir, Fate, Harness};
use proptest::prelude::*;
use tcplab_tcp::{AckPolicy, InitialWindow, RecoveryAlgorithm, SeqNum, TcpConfig};
use tcplab_time::SimTime;

const MSS: u64 = 1000;

fn config(sack: bool, ts: bool, delack: bool, iw: u32) -> TcpConfig {
    config_r(sack, ts, delack, iw, sack)
}

fn config_r(sack: bool, ts: bool, delack: bool, iw: u32, rfc6675: bool) -> TcpConfig {
    TcpConfig {
        mss: MSS as u16,
        recv_buffer: 1 << 20,
        sack,
        timestamps: ts,
        recovery: if rfc6675 { RecoveryAlgorithm::Sack } else { RecoveryAlgorithm::NewReno },
        initial_window: InitialWindow::Segments(iw),
        ack: if delack { AckPolicy::default() } else { AckPolicy { delayed_ack: None, ack_every: 2, quickack: false } },
        trace: false,
        ..TcpConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300), ..ProptestConfig::default() })]

    #[test]
    fn random_loss_patterns_still_complete_a_finite_transfer_with_every_byte_delivered_once(
        data_drops in prop::collection::vec(0u8..100, 128),
        ack_drops in prop::collection::vec(0u8..100, 128),
        reorder in prop::collection::vec(0u8..100, 128),
        loss_pct in 0u8..25,
        ack_loss_pct in 0u8..15,
        reorder_pct in 0u8..20,
        sack in any::<bool>(),
        rfc6675 in any::<bool>(),
        ts in any::<bool>(),
        delack in any::<bool>(),
        iw in 1u32..12,
        segs in 1u64..80,
        tail in 0u64..1000,
        iss_a in any::<u32>(),
        iss_b in any::<u32>(),
        b_bytes in prop_oneof![Just(0u64), 0u64..60_000],
        tlp in any::<bool>(),
    ) {
        let mut c = config_r(sack, ts, delack, iw, rfc6675);
        // RFC 8985 §7 Tail Loss Probe on both ends.
        c.tlp = tlp;
        let mut h = Harness::with_iss(c.clone(), c, ms(20), SeqNum(iss_a), SeqNum(iss_b));
        let mut acks = 0usize;
        h.set_fate(move |p| {
            if p.seg.flags.contains(tcplab_tcp::TcpFlags::SYN) {
                return Fate::Deliver;
            }
            match p.dir {
                Dir::AtoB if p.seg.len > 0 => {
                    let k = (p.data_idx as usize - 1) % 1024;
                    if k < 128 && data_drops[k] < loss_pct {
                        Fate::Drop
                    } else if k < 128 && reorder[k] < reorder_pct {
                        Fate::Delay(ms(u64::from(reorder[k]) % 7 + 1))
                    } else {
                        Fate::Deliver
                    }
                }
                Dir::BtoA => {
                    acks += 1;
                    if acks < 128 && ack_drops[acks] < ack_loss_pct { Fate::Drop } else { Fate::Deliver }
                }
                _ => Fate::Deliver,
            }
        });
        let size = segs * MSS + tail;
        h.a.send(size);
        h.a.close();
        h.b.send(b_bytes);
        h.b.close();
        prop_assert!(h.run_until(SimTime(24 * 3600 * 1_000_000_000)), "did not finish");
        prop_assert_eq!(h.b.stats().bytes_delivered, size);
        prop_assert_eq!(h.a.stats().bytes_delivered, b_bytes);
        prop_assert!(h.a.is_send_complete());
        prop_assert!(h.b.is_send_complete());
        prop_assert!(h.b.fin_received());
        prop_assert!(h.a.fin_received());
    }

    #[test]
    fn handle_segment_never_panics_on_arbitrary_segments(
        seqs in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u8>(), any::<u16>(), prop_oneof![0u32..3000, any::<u32>()]), 1..40),
        sack_edges in prop::collection::vec((any::<u32>(), any::<u32>()), 0..4),
        established in any::<bool>(),
    ) {
        let c = config(true, true, true, 4);
        let mut h = Harness::new(c.clone(), c, ms(10));
        h.check_invariants = false;
        if established {
            h.a.send(50 * MSS);
            h.run_until(SimTime(150_000_000));
        }
        let mut t = h.now;
        for (seq, ack, flags, window, len) in seqs {
            let mut seg = tcplab_tcp::Segment { seq: SeqNum(seq), ack: SeqNum(ack), flags: tcplab_tcp::TcpFlags(flags), window, len, ..Default::default() };
            for (l, r) in &sack_edges {
                seg.options.sack.push(tcplab_tcp::SackBlock { left: SeqNum(*l), right: SeqNum(*r) });
            }
            t = SimTime(t.0 + 1000);
            h.a.handle_segment(t, &seg);
            h.b.handle_segment(t, &seg);
            while h.a.poll_transmit(t).is_some() {}
            while h.b.poll_transmit(t).is_some() {}
            h.a.handle_timeout(t);
            h.b.handle_timeout(t);
            let _ = h.a.cc_snapshot();
        }
    }

    #[test]
    fn near_window_garbage_never_panics_and_keeps_invariants(
        segs in prop::collection::vec((-5000i64..100_000, -5000i64..60_000, any::<u8>(), any::<u16>(), 0u32..5000,
                                      prop::collection::vec((-5000i64..60_000, 0u32..20_000), 0..4)), 1..60),
        sack in any::<bool>(),
    ) {
        let c = config(sack, true, true, 10);
        let mut h = Harness::new(c.clone(), c, ms(10));
        h.a.send(80 * MSS);
        h.run_until(SimTime(35_000_000));
        let mut t = h.now;
        for (dseq, dack, flags, window, len, blocks) in segs {
            // Towards A, as if from B: sequence near A's RCV.NXT, ACK near A's SND.UNA.
            let (una, _) = h.a.snd_seq();
            let seq = SeqNum((i64::from(h.a.rcv_nxt().0) + dseq) as u32);
            let ack = SeqNum((i64::from(una.0) + dack) as u32);
            let mut seg = tcplab_tcp::Segment { seq, ack, flags: tcplab_tcp::TcpFlags(flags & !0x04), window, len, ..Default::default() };
            for (l, n) in blocks {
                let left = SeqNum((i64::from(una.0) + l) as u32);
                seg.options.sack.push(tcplab_tcp::SackBlock { left, right: left + n });
            }
            t = SimTime(t.0 + 100_000);
            h.a.handle_segment(t, &seg);
            while h.a.poll_transmit(t).is_some() {}
            if h.a.poll_timeout().is_some_and(|x| x <= t) {
                h.a.handle_timeout(t);
            }
            harness::check(&h.a);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200), ..ProptestConfig::default() })]

    /// Every spurious-timeout detector and response, under random losses and delay spikes in
    /// either direction: the transfer completes, every byte is delivered once, and the harness
    /// invariants (cwnd >= 1 SMSS, RTO bounds, in-flight accounting, scoreboard counters) hold
    /// after every event.
    #[test]
    fn every_detector_and_response_completes_transfers_under_losses_and_delay_spikes(
        det in 1usize..5,
        resp in 0usize..6,
        sack in any::<bool>(),
        drops in prop::collection::vec(0u8..100, 128),
        loss_pct in 0u8..15,
        spike_at in 0u64..3000,
        spike_len in 500u64..5000,
        spike_acks in any::<bool>(),
        segs in 5u64..80,
        full_ack in any::<bool>(),
    ) {
        use tcplab_tcp::{SpuriousConfig, SpuriousDetection, SpuriousResponse};
        let mut c = config_r(sack, det == 3 || sack, true, 4, sack);
        c.timestamps = true;
        c.spurious = SpuriousConfig {
            detection: SpuriousDetection::ALL[det],
            response: SpuriousResponse::ALL[resp],
            frto_require_full_ack: full_ack,
        };
        let mut h = Harness::new(c.clone(), c, ms(50));
        let (from, until) = (SimTime(spike_at * 1_000_000), SimTime((spike_at + spike_len) * 1_000_000));
        h.set_fate(move |p| {
            if p.seg.flags.contains(tcplab_tcp::TcpFlags::SYN) {
                return Fate::Deliver;
            }
            let in_dir = if spike_acks { p.dir == Dir::BtoA } else { p.dir == Dir::AtoB };
            if in_dir && p.t >= from && p.t < until {
                return Fate::Delay(tcplab_time::SimDuration(until.0 - p.t.0));
            }
            if p.dir == Dir::AtoB && p.seg.len > 0 {
                let k = (p.data_idx as usize - 1) % 128;
                if drops[k] < loss_pct {
                    return Fate::Drop;
                }
            }
            Fate::Deliver
        });
        let size = segs * MSS;
        h.a.send(size);
        h.a.close();
        h.b.close();
        prop_assert!(h.run_until(SimTime(24 * 3600 * 1_000_000_000)), "did not finish");
        prop_assert_eq!(h.b.stats().bytes_delivered, size);
        prop_assert!(h.a.is_send_complete());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64), ..ProptestConfig::default() })]

    /// 000 §4.2 startup mechanisms under random bottleneck spacing and losses: during the
    /// initial slow start (until the first retransmission; pacing stops at the first loss)
    /// the data outstanding never exceeds cwnd outside Disorder (where RFC 3042 allows two
    /// more segments), and every byte still arrives once.
    #[test]
    fn with_ssthresh_estimation_and_pacing_the_flight_never_exceeds_cwnd(
        spacing_us in 100u64..3000,
        drops in prop::collection::vec(0u8..100, 256),
        loss_pct in 0u8..5,
        tick_ms in prop_oneof![Just(1u64), Just(2), Just(10), Just(500)],
        delack in any::<bool>(),
        segs in 20u64..400,
    ) {
        let mut c = config(false, false, delack, 3);
        c.startup = tcplab_tcp::StartupConfig::ARON98;
        c.timers.slow = tcplab_tcp::EventClock::Periodic { period: ms(tick_ms), phase: tcplab_time::SimDuration::ZERO };
        let mut h = Harness::new(c.clone(), c, ms(30));
        let mut last_out = SimTime(0);
        h.set_fate(move |p| {
            if p.dir != Dir::AtoB || p.seg.len == 0 {
                return Fate::Deliver;
            }
            let k = (p.data_idx as usize - 1) % 256;
            if drops[k] < loss_pct {
                return Fate::Drop;
            }
            let gap = tcplab_time::SimDuration::from_micros(spacing_us);
            let out = (p.t + gap).max(last_out + gap);
            last_out = out;
            Fate::Delay(out.saturating_since(p.t + gap))
        });
        let size = segs * MSS;
        h.a.send(size);
        h.a.close();
        let mut t = 0u64;
        loop {
            t += 5;
            let done = h.run_until(SimTime(t * 1_000_000));
            let s = h.a.cc_snapshot();
            let retransmitted: u64 = h.a.stats().retransmissions.iter().sum();
            let open = matches!(h.a.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Open);
            if open && retransmitted == 0 && h.a.stats().timeouts == 0 {
                // + 1: the FIN takes a sequence number but no payload.
                prop_assert!(s.bytes_in_flight <= s.cwnd + 1, "flight {} > cwnd {} at {} ms", s.bytes_in_flight, s.cwnd, t);
            }
            if done || t > 3_600_000 {
                break;
            }
        }
        prop_assert_eq!(h.b.stats().bytes_delivered, size);
    }
}

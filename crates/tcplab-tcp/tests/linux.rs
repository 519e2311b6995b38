//! The Linux 2.4 sender model (`sender = linux`; 002 §2, dissertation Ch. 3), driven by
//! hand-made ACKs (`Rig`) or by the two-endpoint harness.
//!
//! Rig timeline: the handshake completes at 150 ms over a 50 ms one-way delay (the harness
//! runs until the server has the third segment); then the client's initial window of
//! 1000-byte segments leaves at once, and the RTO (1 s minimum) is due at 1150 ms. ACKs are built by the test
//! (segment numbers are 0-based, `ack(n)` acknowledges segments 0..n).

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness};
use proptest::prelude::*;
use tcplab_tcp::linux::cwv::Cwv;
use tcplab_tcp::linux::CaState;
use tcplab_tcp::segment::{SackBlock, SackBlocks};
use tcplab_tcp::{
    AckPolicy, InitialWindow, RecoveryAlgorithm, RetransCause, Segment, SenderModel, SeqNum, TcpConfig, TcpFlags,
    TcpOptions, Transmit,
};
use tcplab_time::{SimDuration, SimTime};

const MSS: u32 = 1000;

fn linux(iw: u32) -> TcpConfig {
    TcpConfig {
        mss: MSS as u16,
        recv_buffer: 1 << 20,
        initial_window: InitialWindow::Segments(iw),
        timestamps: false,
        ack: AckPolicy { delayed_ack: None, ack_every: 1, quickack: false },
        sender: SenderModel::Linux,
        ..TcpConfig::default()
    }
}
fn peer() -> TcpConfig {
    TcpConfig { sender: SenderModel::Rfc, timestamps: true, ..linux(10) }
}

struct Rig {
    h: Harness,
    /// Every transmission of the client after the handshake.
    tx: Vec<(SimTime, Transmit)>,
    first: SeqNum,
    bseq: SeqNum,
}

impl Rig {
    fn new(cfg: TcpConfig, segs: u64) -> Self {
        let mut h = Harness::new(cfg, peer(), ms(50));
        h.handshake();
        let first = h.a.snd_seq().1;
        let mut r = Rig { h, tx: Vec::new(), first, bseq: SeqNum(5001) };
        // A window update first, so that the test's ACKs all carry the same window.
        r.ack(0, &[]);
        r.h.a.send(segs * u64::from(MSS));
        r.pump();
        r
    }
    fn pump(&mut self) -> usize {
        let now = self.h.now;
        let mut n = 0;
        while let Some(t) = self.h.a.poll_transmit(now) {
            if t.segment.len > 0 {
                self.tx.push((now, t));
                n += 1;
            }
        }
        harness::check(&self.h.a);
        n
    }
    fn at(&mut self, t: SimTime) {
        self.h.now = t;
        self.h.a.handle_timeout(t);
        self.pump();
    }
    fn seq(&self, n: u32) -> SeqNum {
        self.first + n * MSS
    }
    /// An ACK of segments 0..n with SACK blocks (segment ranges [l, r)); returns the number of
    /// data segments it released.
    fn ack_full(&mut self, n: u32, sacks: &[(u32, u32)], tsecr: Option<u32>, ece: bool) -> usize {
        let mut sack = SackBlocks::new();
        for &(l, r) in sacks {
            sack.push(SackBlock { left: self.seq(l), right: self.seq(r) });
        }
        let mut flags = TcpFlags::ACK;
        if ece {
            flags.insert(TcpFlags::ECE);
        }
        let options = TcpOptions { sack, timestamps: tsecr.map(|e| (1, e)), ..TcpOptions::default() };
        let seg = Segment { seq: self.bseq, ack: self.seq(n), flags, window: u16::MAX, len: 0, options, ..Segment::default() };
        let now = self.h.now;
        self.h.a.handle_segment(now, &seg);
        self.pump()
    }
    fn ack(&mut self, n: u32, sacks: &[(u32, u32)]) -> usize {
        self.ack_full(n, sacks, None, false)
    }
    fn state(&self) -> CaState {
        self.h.a.linux().expect("linux sender").ca_state
    }
    fn cwnd(&self) -> u32 {
        self.h.a.linux().expect("linux sender").snd_cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.h.a.linux().expect("linux sender").snd_ssthresh
    }
    fn retransmissions(&self) -> Vec<(u32, RetransCause)> {
        self.tx.iter().filter_map(|(_, t)| t.retransmission.map(|c| ((t.segment.seq - self.first) / MSS, c))).collect()
    }
}

#[test]
fn the_linux_sender_is_selected_by_config_and_the_rfc_sender_stays_the_default() {
    let h = Harness::new(TcpConfig::default(), TcpConfig::default(), ms(50));
    assert!(h.a.linux().is_none());
    let h = Harness::new(linux(10), peer(), ms(50));
    assert_eq!(h.a.linux().expect("linux sender").ca_state, CaState::Open);
}

#[test]
fn in_flight_equals_packets_out_minus_sacked_and_lost_plus_retransmitted_after_sacks_losses_and_retransmissions() {
    let mut r = Rig::new(linux(10), 100);
    assert_eq!(r.tx.len(), 10);
    r.at(at_ms(200));
    // Segment 0 is lost: SACKs for 1, 1-2, 1-3 (three duplicate ACKs).
    r.ack(0, &[(1, 2)]);
    let k = r.h.a.linux_counters().expect("linux sender");
    assert_eq!((k.packets_out, k.sacked_out, k.lost_out, k.retrans_out), (11, 1, 0, 0));
    assert_eq!(k.in_flight(), 10);
    r.ack(0, &[(1, 3)]);
    r.ack(0, &[(1, 4)]);
    // Recovery: segment 0 marked lost and retransmitted.
    let k = r.h.a.linux_counters().expect("linux sender");
    assert!(matches!(r.state(), CaState::Recovery { .. }));
    assert_eq!((k.sacked_out, k.lost_out, k.retrans_out), (3, 1, 1));
    assert_eq!(k.in_flight(), k.packets_out - (k.sacked_out + k.lost_out) + k.retrans_out);
    assert_eq!(u64::from(k.in_flight()) * u64::from(MSS), r.h.a.cc_snapshot().bytes_in_flight);
    assert_eq!(r.retransmissions(), vec![(0, RetransCause::FastRetransmit)]);
    // The retransmission is acknowledged together with everything SACKed.
    r.at(at_ms(300));
    r.ack(4, &[]);
    let k = r.h.a.linux_counters().expect("linux sender");
    assert_eq!((k.sacked_out, k.lost_out, k.retrans_out), (0, 0, 0));
    assert_eq!(k.in_flight(), k.packets_out);
}

#[test]
fn newreno_mode_counts_each_duplicate_ack_as_one_sacked_segment_and_marks_the_head_lost_on_partial_acks() {
    let mut r = Rig::new(TcpConfig { sack: false, recovery: RecoveryAlgorithm::NewReno, ..linux(10) }, 100);
    r.at(at_ms(200));
    // Segments 0 and 5 lost.
    for _ in 0..2 {
        r.ack(0, &[]);
    }
    assert_eq!(r.state(), CaState::Disorder);
    assert_eq!(r.h.a.linux_counters().expect("linux sender").sacked_out, 2);
    r.ack(0, &[]);
    assert!(matches!(r.state(), CaState::Recovery { .. }));
    let k = r.h.a.linux_counters().expect("linux sender");
    assert_eq!((k.sacked_out, k.lost_out, k.retrans_out), (3, 1, 1));
    // Partial ACK up to the second hole: segment 5 is marked lost and retransmitted.
    r.at(at_ms(300));
    r.ack(5, &[]);
    assert!(matches!(r.state(), CaState::Recovery { .. }));
    assert!(r.retransmissions().contains(&(5, RetransCause::SackRecovery)));
}

#[test]
fn duplicate_acks_move_open_to_disorder_then_recovery_at_the_reordering_threshold_and_back_to_open() {
    let mut r = Rig::new(linux(10), 100);
    r.at(at_ms(200));
    assert_eq!(r.state(), CaState::Open);
    let cwnd = r.cwnd();
    // Disorder: cwnd not adjusted, each duplicate ACK releases one new segment (002 L1422–1433).
    assert_eq!(r.ack(0, &[(1, 2)]), 1);
    assert_eq!(r.state(), CaState::Disorder);
    assert_eq!(r.ack(0, &[(1, 3)]), 1);
    assert_eq!(r.cwnd(), cwnd);
    // The third duplicate ACK: Recovery (reordering = 3).
    r.ack(0, &[(1, 4)]);
    let CaState::Recovery { high_seq } = r.state() else { panic!("{:?}", r.state()) };
    assert_eq!(r.ssthresh(), cwnd / 2);
    // Everything outstanding at entry acknowledged: Open, cwnd <= ssthresh.
    r.at(at_ms(300));
    let hs = (high_seq - r.first) / MSS;
    r.ack(hs, &[]);
    assert_eq!(r.state(), CaState::Open);
    assert!(r.cwnd() <= r.ssthresh());
}

#[test]
fn a_timeout_enters_loss_where_duplicate_acks_do_not_trigger_fast_retransmit_and_open_follows_the_recovery_point() {
    let mut r = Rig::new(linux(10), 100);
    r.at(at_ms(1150));
    let CaState::Loss { high_seq } = r.state() else { panic!("{:?}", r.state()) };
    assert_eq!(r.cwnd(), 1);
    assert_eq!(r.ssthresh(), 5);
    assert_eq!(r.retransmissions(), vec![(0, RetransCause::Rto)]);
    let k = r.h.a.linux_counters().expect("linux sender");
    assert_eq!((k.packets_out, k.lost_out, k.retrans_out, k.in_flight()), (10, 10, 1, 1));
    // ACK of segment 0: slow start, two retransmissions (go-back-N).
    r.at(at_ms(1250));
    assert_eq!(r.ack(1, &[]), 2);
    // Duplicate ACKs in Loss never start a fast retransmit (002 L1468–1472).
    for _ in 0..4 {
        r.ack(1, &[]);
    }
    assert!(matches!(r.state(), CaState::Loss { .. }));
    assert!(r.retransmissions().iter().all(|&(_, c)| c == RetransCause::Rto));
    r.ack((high_seq - r.first) / MSS, &[]);
    assert_eq!(r.state(), CaState::Open);
}

#[test]
fn an_ecn_echo_enters_cwr_which_halves_cwnd_one_segment_per_two_acks_and_returns_to_open() {
    let mut r = Rig::new(linux(20), 200);
    r.at(at_ms(200));
    r.ack(1, &[]);
    let w = r.cwnd();
    r.ack_full(2, &[], None, true);
    assert!(matches!(r.state(), CaState::Cwr { .. }));
    assert_eq!(r.ssthresh(), w / 2);
    let mut prev = r.cwnd();
    let mut n = 3;
    while matches!(r.state(), CaState::Cwr { .. }) && n < 60 {
        let before = prev;
        r.ack(n, &[]);
        r.ack(n + 1, &[]);
        prev = r.cwnd();
        assert!(before - prev <= 1 || prev == r.ssthresh(), "{before} -> {prev}");
        n += 2;
    }
    assert_eq!(r.state(), CaState::Open);
    assert!(r.cwnd() <= w / 2 + 1);
}

/// 20 segments outstanding, segment 0 lost, one duplicate ACK per SACKed segment.
fn rate_halving_run(on: bool) -> (Vec<u32>, Vec<usize>, u32) {
    let mut r = Rig::new(linux(20), 400);
    r.h.a.linux_mut().expect("linux sender").rate_halving = on;
    r.at(at_ms(200));
    let (mut cw, mut sent) = (Vec::new(), Vec::new());
    for k in 1..40u32 {
        let s = r.ack(0, &[(1, 1 + k)]);
        if matches!(r.state(), CaState::Recovery { .. }) {
            cw.push(r.cwnd());
            sent.push(s);
        }
    }
    (cw, sent, r.ssthresh())
}

#[test]
fn rate_halving_decreases_cwnd_by_one_every_second_ack_down_to_ssthresh_without_a_pause() {
    let (cw, sent, ssthresh) = rate_halving_run(true);
    assert_eq!(ssthresh, 10);
    assert!(cw[0] > ssthresh);
    for w in cw.windows(3) {
        assert!(w[0] >= w[1] && w[0] - w[2] <= 1, "{cw:?}");
    }
    assert_eq!(*cw.last().expect("a cwnd sample"), ssthresh);
    // No pause: new data leaves on every second ACK at least, from the start.
    for pair in sent.chunks(2).take(6) {
        assert!(pair.iter().sum::<usize>() >= 1, "{sent:?}");
    }
}

#[test]
fn conventional_recovery_without_rate_halving_cuts_to_ssthresh_and_pauses_until_half_the_window_has_left() {
    let (cw, sent, ssthresh) = rate_halving_run(false);
    assert!(cw.iter().all(|&c| c == ssthresh), "{cw:?}");
    // Recovery entry: only the fast retransmission, then silence while in_flight >= ssthresh.
    assert_eq!(sent[0], 1);
    let silent = sent[1..].iter().take_while(|&&s| s == 0).count();
    assert!(silent >= 5, "{sent:?}");
}

#[test]
fn timestamp_undo_after_a_spurious_timeout_restores_cwnd_and_ssthresh_and_sends_new_data() {
    let mut r = Rig::new(TcpConfig { timestamps: true, ..linux(10) }, 100);
    let w = r.cwnd();
    let tsval_orig = r.tx[0].1.segment.options.timestamps.expect("timestamps").0;
    // Delay spike: no ACK until after the RTO.
    r.at(at_ms(1150));
    assert!(matches!(r.state(), CaState::Loss { .. }));
    assert_eq!(r.cwnd(), 1);
    let l = r.h.a.linux().expect("linux sender");
    assert_eq!(l.undo.prior_ssthresh, u32::MAX);
    // The ACK of the original segment 0 echoes its TSval, older than the retransmission.
    r.at(at_ms(1200));
    let released = r.ack_full(1, &[], Some(tsval_orig), false);
    assert_eq!(r.state(), CaState::Open);
    assert_eq!(r.cwnd(), w.clamp(2 * 5, 9 + 3));
    assert_eq!(r.ssthresh(), u32::MAX);
    // Lost marks cleared: the next transmissions are new data, not retransmissions.
    assert!(released >= 1);
    assert_eq!(r.retransmissions().len(), 1);
    for n in 2..=10 {
        r.ack_full(n, &[], Some(tsval_orig), false);
    }
    assert_eq!(r.retransmissions().len(), 1, "{:?}", r.retransmissions());
}

#[test]
fn without_timestamps_the_timeout_is_not_undone_and_go_back_n_retransmits_the_window() {
    let mut r = Rig::new(linux(10), 100);
    r.at(at_ms(1150));
    r.at(at_ms(1200));
    for n in 1..=4 {
        r.ack(n, &[]);
    }
    assert!(matches!(r.state(), CaState::Loss { .. }));
    assert!(r.retransmissions().len() >= 5);
    assert!(r.ssthresh() == 5);
}

#[test]
fn dsack_undo_restores_cwnd_and_ssthresh_when_every_retransmission_was_duplicated() {
    let mut r = Rig::new(linux(10), 100);
    r.at(at_ms(200));
    let w = r.cwnd();
    // Reordering: segment 0 arrives late; three SACKs trigger a fast retransmission.
    r.ack(0, &[(1, 2)]);
    r.ack(0, &[(1, 3)]);
    r.ack(0, &[(1, 4)]);
    assert!(matches!(r.state(), CaState::Recovery { .. }));
    assert_eq!(r.ssthresh(), w / 2);
    let CaState::Recovery { high_seq } = r.state() else { unreachable!() };
    let hs = (high_seq - r.first) / MSS;
    r.at(at_ms(260));
    r.ack(hs, &[]);
    assert_eq!(r.state(), CaState::Open);
    assert!(r.cwnd() <= w / 2);
    // The retransmission arrives as a duplicate: D-SACK [0, 1) below the cumulative ACK.
    let rel = r.ack(hs, &[(0, 1)]);
    // prior_ssthresh was the initial, infinite ssthresh (cwnd was still in slow start).
    assert_eq!(r.ssthresh(), u32::MAX, "ssthresh <- prior_ssthresh");
    // cwnd <- max(cwnd, 2 ssthresh) = w, then burst avoidance (002 L1489–1491) lets this one
    // ACK release three segments: cwnd = in_flight + 3, above the reduced ssthresh (5).
    assert_eq!(rel, 3);
    assert!(r.cwnd() > w / 2, "{}", r.cwnd());
}

#[test]
fn an_ack_covering_many_segments_releases_at_most_three() {
    let mut r = Rig::new(linux(10), 100);
    r.at(at_ms(200));
    // A stretch ACK for the whole window (ACK loss): burst avoidance, 002 L1489–1491.
    let released = r.ack(10, &[]);
    assert_eq!(released, 3);
    assert_eq!(r.cwnd(), 3);
}

#[test]
fn congestion_window_validation_moves_cwnd_halfway_to_the_used_window_and_raises_ssthresh() {
    // 002 L1750–1754 on the rule itself.
    let mut v = Cwv::new(SimTime(0));
    v.on_send(SimTime(0), 4, 20);
    let (mut cwnd, mut ssthresh) = (20, 8);
    assert!(!v.validate(at_ms(999), ms(1000), &mut cwnd, &mut ssthresh, 2));
    assert!(v.validate(at_ms(1000), ms(1000), &mut cwnd, &mut ssthresh, 2));
    assert_eq!((cwnd, ssthresh), (12, 15));
}

#[test]
fn congestion_window_validation_shrinks_an_idle_cwnd_before_the_next_burst() {
    let mut h = Harness::new(linux(4), peer(), ms(50));
    h.handshake();
    h.a.send(200 * u64::from(MSS));
    h.run();
    let l = h.a.linux().expect("linux sender");
    let (w, ss) = (l.snd_cwnd, l.snd_ssthresh);
    assert!(w > 8, "cwnd grew: {w}");
    // Ten seconds idle (many RTOs), then more data.
    h.now += SimDuration::from_secs(10);
    let t0 = h.now;
    h.a.send(100 * u64::from(MSS));
    h.run();
    let burst = h.data_from(Dir::AtoB).filter(|p| p.t == t0).count();
    assert!(burst <= 4, "first burst after idle: {burst}");
    assert!(h.a.linux().expect("linux sender").snd_ssthresh >= ss.min((w * 3) / 4));
    assert_eq!(h.b.stats().bytes_delivered, 300 * u64::from(MSS));
}

fn lossy_transfer(seed: u64, loss_pct: u64, sack: bool, ts: bool, fack: bool, bytes: u64) -> Harness {
    let cfg = TcpConfig {
        sack,
        timestamps: ts,
        recovery: if sack { RecoveryAlgorithm::Sack } else { RecoveryAlgorithm::NewReno },
        ..linux(4)
    };
    let mut h = Harness::new(cfg.clone(), TcpConfig { sender: SenderModel::Rfc, ..cfg }, ms(20));
    let l = h.a.linux_mut().expect("linux sender");
    l.fack = fack;
    l.rate_halving = !seed.is_multiple_of(3);
    h.handshake();
    // Test-side pseudo-random fates (xorshift); the engine itself has no RNG.
    let mut x = seed | 1;
    h.set_fate(move |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x % 100 < loss_pct {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.a.send(bytes);
    h.a.close();
    assert!(h.run_until(SimTime(3_000 * 1_000_000_000)), "transfer did not finish");
    h
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48), ..ProptestConfig::default() })]
    #[test]
    fn the_linux_sender_completes_transfers_under_random_loss_with_every_byte_delivered_once(
        seed in any::<u64>(), loss in 0u64..15, sack in any::<bool>(), ts in any::<bool>(), fack in any::<bool>(),
        segs in 1u64..120,
    ) {
        let bytes = segs * u64::from(MSS) - seed % 700;
        let h = lossy_transfer(seed, loss, sack, ts, fack, bytes);
        prop_assert_eq!(h.b.stats().bytes_delivered, bytes);
        prop_assert!(h.a.is_send_complete());
    }
}

#[test]
fn a_timeout_during_recovery_moves_to_loss_keeps_the_halved_ssthresh_and_disables_undo() {
    let mut r = Rig::new(TcpConfig { timestamps: true, ..linux(10) }, 100);
    r.at(at_ms(250));
    r.ack(0, &[(1, 2)]);
    r.ack(0, &[(1, 3)]);
    r.ack(0, &[(1, 4)]);
    assert!(matches!(r.state(), CaState::Recovery { .. }));
    let ss = r.ssthresh();
    // The fast retransmission is lost too; the RTO (armed at the last advancing ACK) fires.
    let due = r.h.a.poll_timeout().expect("the RTO is armed");
    r.at(due);
    assert!(matches!(r.state(), CaState::Loss { .. }));
    assert_eq!((r.cwnd(), r.ssthresh()), (1, ss));
    assert_eq!(r.h.a.linux().expect("linux sender").undo.undo_marker, None);
    let k = r.h.a.linux_counters().expect("linux sender");
    // Everything not SACKed is lost; the go-back-N retransmission of segment 0 is in flight.
    assert_eq!(k.sacked_out, 3);
    assert_eq!(k.lost_out, k.packets_out - 3);
    assert_eq!(k.in_flight(), 1);
    assert_eq!(r.retransmissions().last(), Some(&(0, RetransCause::Rto)));
}

#[test]
fn in_recovery_a_segment_first_sent_more_than_an_rto_ago_is_marked_lost_and_retransmitted() {
    let mut r = Rig::new(linux(10), 100);
    // Segments 0 and 9 lost; SACKs for 1..8 start Recovery and release new data (10, ...).
    r.at(at_ms(250));
    for k in 1..9 {
        r.ack(0, &[(1, 1 + k)]);
    }
    assert!(matches!(r.state(), CaState::Recovery { .. }));
    r.at(at_ms(350));
    r.ack(9, &[]);
    let before = r.retransmissions().len();
    assert!(!r.retransmissions().iter().any(|&(s, _)| s == 9));
    // 1.2 s: segment 9 went out at 150 ms, more than the 1 s RTO ago; the RTO itself is not
    // due before 1.35 s. One SACK above it (segment 10) is far from the dupACK threshold.
    r.at(at_ms(1200));
    assert!(matches!(r.state(), CaState::Recovery { .. }));
    r.ack(9, &[(10, 11)]);
    let rx = r.retransmissions();
    assert_eq!(rx.len(), before + 1, "{rx:?}");
    assert_eq!(rx.last(), Some(&(9, RetransCause::SackRecovery)));
}

#[test]
fn with_reordering_above_three_every_duplicate_ack_in_disorder_releases_one_new_segment() {
    let cfg = TcpConfig { dupack_threshold: tcplab_tcp::DupAckThreshold::Fixed(5), ..linux(10) };
    let mut r = Rig::new(cfg, 100);
    r.at(at_ms(250));
    let cwnd = r.cwnd();
    for k in 1..5 {
        assert_eq!(r.ack(0, &[(1, 1 + k)]), 1, "dupACK {k}");
        assert_eq!(r.state(), CaState::Disorder);
        assert_eq!(r.cwnd(), cwnd);
    }
    r.ack(0, &[(1, 6)]);
    assert!(matches!(r.state(), CaState::Recovery { .. }), "the fifth enters Recovery");
}

/// 3-A (002 §4.2): 50 KB from a Linux sender to a receiver with 200 ms delayed ACKs, with and
/// without quick ACKs. Returns (time the last byte was delivered, pure ACKs sent by the receiver).
fn quickack_run(quick: bool) -> (SimTime, u64) {
    let rx = TcpConfig {
        sender: SenderModel::Rfc,
        recv_buffer: 32 * 1024,
        ack: AckPolicy { delayed_ack: Some(ms(200)), ack_every: 2, quickack: quick },
        ..linux(2)
    };
    let mut h = Harness::new(linux(2), rx, ms(100));
    h.handshake();
    h.a.send(50 * 1024);
    h.run();
    assert_eq!(h.b.stats().bytes_delivered, 50 * 1024);
    let last = h.data_from(Dir::AtoB).map(|p| p.t).max().expect("data was sent");
    (last, h.b.stats().acks_sent)
}

#[test]
fn quick_acks_shorten_the_transfer_start_and_send_more_acks() {
    let (t_quick, acks_quick) = quickack_run(true);
    let (t_slow, acks_slow) = quickack_run(false);
    assert!(t_quick < t_slow, "{t_quick:?} vs {t_slow:?}");
    assert!(acks_quick > acks_slow, "{acks_quick} vs {acks_slow}");
}

#[test]
fn fack_counts_holes_far_below_the_forward_most_sack_as_lost_where_conservative_sack_waits() {
    for fack in [false, true] {
        let mut r = Rig::new(linux(10), 100);
        r.h.a.linux_mut().expect("linux sender").fack = fack;
        r.at(at_ms(250));
        // Segments 0..3 missing, segment 4 SACKed: fackets_out = 5 > reordering = 3.
        r.ack(0, &[(4, 5)]);
        let k = r.h.a.linux_counters().expect("linux sender");
        assert_eq!((k.sacked_out, k.fackets_out), (1, 5));
        if fack {
            assert!(matches!(r.state(), CaState::Recovery { .. }));
            // fackets_out − reordering = 2 head segments lost; they are retransmitted as
            // rate-halving's cwnd − in_flight allows (the fast retransmission at once).
            assert_eq!(k.lost_out, 2);
            assert_eq!(r.retransmissions(), vec![(0, RetransCause::FastRetransmit)]);
            r.ack(0, &[(4, 6)]);
            r.ack(0, &[(4, 7)]);
            // fackets_out is now 7: segments 0..3 are all lost; only holes are resent.
            let rx: Vec<u32> = r.retransmissions().iter().map(|x| x.0).collect();
            assert_eq!(&rx[..2], &[0, 1]);
            assert!(rx.iter().all(|&s| s < 4), "{rx:?}");
            assert_eq!(r.h.a.linux_counters().expect("linux sender").lost_out, 4);
        } else {
            assert_eq!(r.state(), CaState::Disorder);
            assert_eq!(k.lost_out, 0);
            assert!(r.retransmissions().is_empty());
        }
    }
}

#[test]
fn a_cumulative_ack_for_a_never_retransmitted_hole_below_sacked_data_raises_reordering() {
    let mut r = Rig::new(linux(10), 100);
    r.at(at_ms(250));
    // Segments 0..3 delayed, 4 SACKed: one SACKed segment, Disorder (conservative SACK).
    r.ack(0, &[(4, 5)]);
    assert_eq!(r.state(), CaState::Disorder);
    // The delayed segments arrive: nothing was retransmitted, so this was reordering.
    r.ack(5, &[]);
    assert_eq!(r.h.a.linux().expect("linux sender").reordering, 5);
    assert_eq!(r.state(), CaState::Open);
    assert!(r.retransmissions().is_empty());
}

/// NewReno-style Linux sender (no SACK) with timestamps; segment 2 (0-based) of the initial
/// window is delivered 20 ms late. Timeline: the window leaves at 100 ms; segments 0, 1 and
/// 3..9 reach the receiver at 150 ms (seven duplicate ACKs), segment 2 at 170 ms (ACK 10).
/// At 200 ms the duplicate ACKs move the sender to Disorder (each releasing new data) and, at
/// the third, to Recovery with the fast retransmission of segment 2; ACK 10 arrives at 220 ms
/// and is partial (the recovery point covers the new data sent at 200 ms); the ACKs of that new
/// data (sent at 250 ms, arriving from 300 ms) are partial too.
fn reordered_third_segment(ts: bool) -> Harness {
    let cfg = TcpConfig { sack: false, recovery: RecoveryAlgorithm::NewReno, timestamps: ts, ..linux(10) };
    let mut h = Harness::new(cfg, peer(), ms(50));
    h.set_fate(|p| {
        if p.dir == Dir::AtoB && p.rtx.is_none() && p.data_idx == 3 {
            return Fate::Delay(ms(20));
        }
        Fate::Deliver
    });
    h.a.send(40 * u64::from(MSS));
    h
}

#[test]
fn partial_acks_of_delayed_originals_in_recovery_do_not_retransmit_and_raise_reordering() {
    // 002 L1683–1686: "when a partial ACK for the unnecessary retransmission arrives, the
    // sender does not mark the next unacknowledged segment lost". Linux 2.4
    // `tcp_try_undo_partial` keeps `undo_marker`, so this holds for every partial ACK of the
    // episode, not just the first, and raises `reordering` to tcp_fackets_out + acked
    // (sacked_out + 1 + acked without SACK). Before, the first partial ACK cleared the undo
    // state and each later partial ACK retransmitted the next segment (Hoe's retransmission),
    // every one of them unnecessary (18 more retransmissions in this exchange).
    let mut h = reordered_third_segment(true);
    assert!(h.run());
    let rtx: Vec<(SimTime, u32, Option<RetransCause>)> =
        h.data_from(Dir::AtoB).filter(|p| p.rtx.is_some()).map(|p| (p.t, p.rel_seq / MSS, p.rtx)).collect();
    assert_eq!(rtx, vec![(at_ms(200), 2, Some(RetransCause::FastRetransmit))]);
    let l = h.a.linux().expect("linux sender");
    // ACK 10 at 220 ms: 8 segments acked, the 7 duplicate ACKs counted as SACKs removed (acked − 1),
    // so tcp_fackets_out + acked = (0 + 1) + 8.
    assert_eq!(l.reordering, 9);
    assert_eq!(l.ca_state, CaState::Open);
}

#[test]
fn without_timestamps_partial_acks_in_recovery_still_retransmit_the_next_segment() {
    // No proof that the retransmission was unnecessary: `tcp_try_undo_partial` fails for a
    // NewReno sender ("Force Hoe's retransmit"), the next segment is marked lost (002
    // L1399–1403) and `reordering` stays at the dupACK threshold.
    let mut h = reordered_third_segment(false);
    assert!(h.run());
    let hoe = h.data_from(Dir::AtoB).filter(|p| p.rtx == Some(RetransCause::SackRecovery)).count();
    assert!(hoe > 0, "partial ACKs retransmit");
    assert_eq!(h.a.linux().expect("linux sender").reordering, 3);
}

//! Scripted exchanges of `profile = "linux"` (today's Linux) for the behaviours the real-kernel
//! harness (`validation/linux/`, docs/validation-linux.md) showed the simulator missing, each
//! at exact instants over a fixed 10 ms one-way delay (RTT 20 ms), SACK on, no timestamps,
//! 1000-byte segments.
//!
//! Timeline shared by the tail-loss tests: the SYN leaves at 0, the SYN-ACK at 10 ms, the
//! connection is established at 20 ms (handshake RTT 20 ms) and the initial window of ten
//! segments (IW10) leaves at once. Segments 9 and 10 are lost. The ACKs of segments 1–8 are
//! held [`ACK_EXTRA`] longer than the path delay (as a queue at the bottleneck would hold
//! them), so they arrive at 42 ms and every per-ACK RTT sample is 22 ms.

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::{Profile, RetransCause, TcpConfig, TcpFlags};
use tcplab_time::{SimDuration, SimTime};

const MSS: u32 = 1000;
/// Extra delay of the ACKs without SACK blocks (a queue the first flight built).
const ACK_EXTRA: SimDuration = SimDuration::from_millis(2);

fn linux(tlp: bool) -> TcpConfig {
    let mut c = TcpConfig { mss: MSS as u16, recv_buffer: 1 << 20, timestamps: false, sack: true, ..TcpConfig::default() };
    if let Some(p) = Profile::by_name("linux") {
        p.apply(&mut c);
    }
    c.tlp = tlp;
    c
}

/// The receiver: SACK, every segment acknowledged at once.
fn receiver() -> TcpConfig {
    harness::sack_cfg(MSS as u16)
}

fn retransmissions(h: &Harness) -> Vec<(SimTime, u32, RetransCause)> {
    h.data_from(Dir::AtoB).filter_map(|p| p.rtx.map(|c| (p.t, p.rel_seq, c))).collect()
}

/// Originals of segments 9 and 10 dropped; B's ACKs without SACK blocks (not its SYN-ACK)
/// held `ACK_EXTRA` more.
fn tail_fate(p: &Pkt) -> Fate {
    let seg_no = p.rel_seq / MSS + 1;
    match p.dir {
        Dir::AtoB if p.seg.len > 0 && p.rtx.is_none() && seg_no >= 9 => Fate::Drop,
        Dir::BtoA if p.seg.options.sack.is_empty() && !p.seg.flags.contains(TcpFlags::SYN) => Fate::Delay(ACK_EXTRA),
        _ => Fate::Deliver,
    }
}

fn tail_loss(tlp: bool) -> Harness {
    let mut h = Harness::new(linux(tlp), receiver(), ms(10));
    h.set_fate(tail_fate);
    h.a.send(10 * u64::from(MSS));
    assert!(h.run());
    h
}

// Linux tcp_ack_update_rtt -> "tcp_update_rtt_min(sk, ca_rtt_us, flag)" also runs for the
// handshake's sample, so RACK.min_RTT is 20 ms, not the 22 ms of the queued data ACKs. The
// probe (segment 10) is answered 20 ms later with a SACK of it; its RTT is not below min_RTT,
// so RACK advances to it (tcp_rack_advance), and segment 9, sent before the probe and not
// delivered within RACK.rtt + reo_wnd, is lost at once: fast retransmit on that ACK, no RTO
// (real kernel, `tail-loss`: "TLP then fast_retransmit via RACK").
#[test]
fn the_probes_sack_lets_rack_mark_the_hole_at_once_with_min_rtt_from_the_handshake() {
    let h = tail_loss(true);
    let r = retransmissions(&h);
    assert_eq!(r.len(), 2, "{r:?}");
    let (t_probe, seq, cause) = r[0];
    assert_eq!((seq, cause), (9 * MSS, RetransCause::Tlp));
    assert_eq!(r[1], (t_probe + ms(20), 8 * MSS, RetransCause::FastRetransmit));
    assert_eq!(h.a.stats().timeouts, 0);
}

// Real kernel, `rto-min-50ms`: the last three segments and the loss probe are lost. The RTO
// retransmits the first hole (F-RTO step 1, `tcp_frto=2`); its ACK has no new data to send, so
// F-RTO falls back to conventional recovery (tcp_process_loss: "Otherwise fall back to the
// conventional recovery", REXMIT_LOST). The probed segment was retransmitted before the RTO and
// is still in RACK's time-ordered queue (Linux keeps `tsorted_sent_queue` across the RTO;
// tcp_timeout_mark_lost only tags segments): RACK finds the probe lost on that same ACK
// (sent before the acknowledged retransmission, RACK.rtt + reo_wnd ago), so both remaining
// holes leave at once, as the kernel sent them (346.0 and 346.1 ms), instead of waiting for a
// second, backed-off RTO.
#[test]
fn after_an_rto_a_lost_loss_probe_is_resent_on_the_first_ack_not_after_a_second_rto() {
    let mut h = Harness::new(linux(true), receiver(), ms(10));
    h.set_fate(|p| {
        let seg_no = p.rel_seq / MSS + 1;
        let lost = p.dir == Dir::AtoB && p.seg.len > 0 && seg_no >= 8 && (p.rtx.is_none() || p.rtx == Some(RetransCause::Tlp));
        if lost {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.a.send(10 * u64::from(MSS));
    assert!(h.run());
    let r = retransmissions(&h);
    assert_eq!(r.len(), 4, "{r:?}");
    let (t_probe, seq, cause) = r[0];
    assert_eq!((seq, cause), (9 * MSS, RetransCause::Tlp));
    let (t_rto, seq, cause) = r[1];
    assert_eq!((seq, cause), (7 * MSS, RetransCause::Rto));
    assert!(t_rto > t_probe);
    // The RTO retransmission is acknowledged one RTT later; both holes leave on that ACK.
    assert_eq!(r[2], (t_rto + ms(20), 8 * MSS, RetransCause::Rto));
    assert_eq!(r[3], (t_rto + ms(20), 9 * MSS, RetransCause::Rto));
    assert_eq!(h.a.stats().timeouts, 1);
}

/// The tail-loss exchange with the FIN on segment 10 (the application closes, as the real
/// harness's sender does), against a receiver with or without `sack_covers_fin`.
fn tail_loss_with_fin(sack_covers_fin: bool) -> Harness {
    let b = TcpConfig { sack_covers_fin, ..receiver() };
    let mut h = Harness::new(linux(true), b, ms(10));
    h.set_fate(tail_fate);
    h.a.send(10 * u64::from(MSS));
    h.a.close();
    assert!(h.run());
    h
}

// Real kernel, `tail-loss`: the probe is the last segment with the FIN ("Flags [FP.], seq
// 143353:144801"), and the Linux receiver's SACK of it includes the FIN ("sack 1
// {143353:144802}": tcp_data_queue_ofo works on end_seq = seq + fin + len). That block covers
// the whole probe segment, so RACK advances to it and repairs the hole 20 ms after the probe.
// A receiver that SACKs the data bytes only ([143353, 144801)) never covers the FIN segment:
// the sender sees no newly SACKed segment and the hole waits for the RTO.
#[test]
fn a_linux_receiver_sacks_the_fin_so_the_probe_of_the_fin_segment_repairs_the_tail() {
    let h = tail_loss_with_fin(true);
    let r = retransmissions(&h);
    assert_eq!(r.len(), 2, "{r:?}");
    let (t_probe, seq, cause) = r[0];
    assert_eq!((seq, cause), (9 * MSS, RetransCause::Tlp));
    assert_eq!(r[1], (t_probe + ms(20), 8 * MSS, RetransCause::FastRetransmit));
    let sack = h.acks_from(Dir::BtoA).find(|p| p.t > t_probe).map(|p| p.seg.options.sack.as_slice().to_vec());
    let fin_end = tcplab_tcp::SeqNum(1000 + 1 + 10 * MSS + 1);
    assert_eq!(sack.and_then(|b| b.first().map(|b| b.right)), Some(fin_end), "the block includes the FIN");
    assert_eq!(h.a.stats().timeouts, 0);

    let without = tail_loss_with_fin(false);
    let r = retransmissions(&without);
    assert_eq!(r[1].2, RetransCause::Rto, "{r:?}");
}

// Real kernel, `reorder`: three segments delayed 8 ms each (RTT 20 ms) cost one spurious
// retransmission, not three. Linux tcp_try_undo_partial: on a partial ACK in recovery that
// echoes a TSval older than the first retransmission (tcp_packet_delayed), "Plain luck! Hole
// if filled with delayed packet" -> tcp_check_sack_reordering -> reord_seen, so RACK keeps its
// reordering window (min_RTT/4, doubled by the D-SACK of the spurious copy) instead of 0.
// Here (timestamps on): segment 5 is delayed 8 ms, three SACKs arrive at 40 ms and RACK
// (window 0 with 3 segments SACKed) retransmits it; the cumulative ACK the delayed original
// triggered (echoing 20 ms) is partial, since the ACKs of 1-4 sent segments 11-18 first.
// Segment 27 (sent at 60 ms with 28-31), delayed alike, is then waited for: the D-SACK of
// the spurious copy (60 ms) made the window 2 * min_RTT/4 = 10 ms, its original's ACK
// returns at 88 ms, before 60 + 20 + 10. Without the reordering evidence the window is 0
// with three segments SACKed and segment 27 is resent spuriously at 80 ms.
#[test]
fn a_hole_filled_by_the_delayed_original_teaches_rack_the_reordering() {
    let mut a = linux(true);
    a.timestamps = true;
    let b = TcpConfig { timestamps: true, ..receiver() };
    let mut h = Harness::new(a, b, ms(10));
    h.set_fate(|p| {
        let seg_no = p.rel_seq / MSS + 1;
        if p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() && (seg_no == 5 || seg_no == 27) {
            Fate::Delay(ms(8))
        } else {
            Fate::Deliver
        }
    });
    h.a.send(40 * u64::from(MSS));
    assert!(h.run());
    let r = retransmissions(&h);
    assert_eq!(r, vec![(at_ms(40), 4 * MSS, RetransCause::FastRetransmit)]);
}

/// Today's Linux at both ends as on the harness's path: MSS 1448 with timestamps, `tcp_rmem[2]`
/// = 32 MiB (window scale 10), 10 ms one-way delay, no delayed ACK timer needed (quick ACKs).
fn linux_rwnd_cfg(on: bool) -> TcpConfig {
    let mut c = TcpConfig { mss: 1448, recv_buffer: 32 << 20, timestamps: true, sack: true, ..TcpConfig::default() };
    if let Some(p) = Profile::by_name("linux") {
        p.apply(&mut c);
    }
    c.linux_rcv_window = on;
    c
}

/// (time, window in bytes) of every ACK B sends, the SYN-ACK first.
fn rcv_windows(h: &Harness) -> Vec<(SimTime, u64)> {
    h.log
        .iter()
        .filter(|p| p.dir == Dir::BtoA)
        .map(|p| {
            let syn = p.seg.flags.contains(TcpFlags::SYN);
            (p.t, u64::from(p.seg.window) << if syn { 0 } else { 10 })
        })
        .collect()
}

// Real kernel, every harness capture (`tail-loss`: "win 65160" in the SYN-ACK, then 67, 70, 73,
// 75, 78, 79 x 1024): Linux tcp_select_initial_window offers rounddown(64 KiB, MSS) = 65 160;
// the first full segment measures scaling_ratio = 1448 * 256 / truesize 2304 = 160
// (tcp_measure_rcv_mss), tcp_grow_window adds 2 * 1448 per segment until the buffer's free space
// with one segment queued, (131 072 - 2304) * 160 / 256 = 80 480, and tcp_select_window rounds
// up to the 1024-byte scale unit. The simulator without the model offers 32 MiB at once.
#[test]
fn the_linux_receiver_offers_64k_then_grows_two_segments_per_segment() {
    let mut h = Harness::new(linux_rwnd_cfg(true), linux_rwnd_cfg(true), ms(10));
    h.a.send(30 * 1448);
    assert!(h.run());
    let w = rcv_windows(&h);
    assert_eq!(w[0], (at_ms(10), 65_160), "SYN-ACK");
    // The ten segments of the initial window arrive at 30 ms; each is acknowledged at once.
    let first: Vec<(SimTime, u64)> = w[1..8].to_vec();
    let want: Vec<(SimTime, u64)> = [67u64, 70, 73, 75, 78, 79, 79].iter().map(|k| (at_ms(30), k * 1024)).collect();
    assert_eq!(first, want);
    // Without the model (`linux_rcv_window = false`): 16 bits of recv_buffer in the SYN-ACK,
    // then all of it.
    let mut h_off = Harness::new(linux_rwnd_cfg(false), linux_rwnd_cfg(false), ms(10));
    h_off.a.send(30 * 1448);
    assert!(h_off.run());
    let w_off = rcv_windows(&h_off);
    assert_eq!(w_off[0].1, 65_535, "SYN-ACK without the model: recv_buffer, capped to 16 bits");
    assert_eq!(w_off[1].1, 32 << 20);
}

// Linux tcp_rcv_space_adjust (DRS) once per receiver RTT, here 20 ms from the timestamps
// (tcp_rcv_rtt_measure_ts: the first segment echoes the SYN-ACK's TSval of 10 ms at 30 ms). The
// connection is established at 20 ms; the flights arrive at 30, 50, 70 ms (all segments of a
// flight at the same instant on this path). At 50 ms (one RTT after establishment) 11 segments
// were read, hardly more than rcvq_space's 10: the buffer stays at 128 KiB and the window at
// 80 896. At 70 ms 20 segments were read in the last RTT: tcp_rcvbuf_grow(copied = 28 960,
// old 15 928) makes rcvwin = 2 * 28 960 + 2 * (57 920 * 13 032 / 15 928) = 152 698, the buffer
// its space 244 316 and the clamp 152 697; the window grows 2 MSS per segment (83 968 first) up
// to the free space with one segment queued, (244 316 - 2304) * 160 / 256 = 151 257, advertised
// as 151 552 (148 units of 1024). It never shrinks.
#[test]
fn receive_buffer_autotuning_lets_the_window_follow_slow_start() {
    let mut h = Harness::new(linux_rwnd_cfg(true), linux_rwnd_cfg(true), ms(10));
    h.a.send(300 * 1448);
    assert!(h.run());
    let w = rcv_windows(&h);
    let at = |t: u64| w.iter().filter(|(tt, _)| *tt == at_ms(t)).map(|(_, v)| *v).collect::<Vec<_>>();
    assert!(at(50).iter().all(|&v| v == 80_896), "{:?}", at(50));
    let w70 = at(70);
    assert_eq!(w70.first(), Some(&83_968));
    assert_eq!(w70.iter().max(), Some(&151_552));
    assert_eq!(w70.last(), Some(&151_552));
    assert!(w[1..].windows(2).all(|p| p[1].1 >= p[0].1), "the offered window never shrinks here");
    assert!(at(90).iter().max().is_some_and(|&v| v > 151_552), "the next round trip grows it again");
}

/// 40 segments from A; the originals of the segments numbered in `delays` (from 1) are held
/// that many ms more than the path delay; timestamps at both ends or none; stopped at `until`.
fn reorder_with(undo: bool, timestamps: bool, delays: &[(u32, u64)], until: SimTime) -> Harness {
    let mut a = linux(true);
    a.timestamps = timestamps;
    a.cwnd_undo = undo;
    let b = TcpConfig { timestamps, ..receiver() };
    let mut h = Harness::new(a, b, ms(10));
    let delays = delays.to_vec();
    h.set_fate(move |p| {
        let seg_no = p.rel_seq / MSS + 1;
        match delays.iter().find(|(s, _)| *s == seg_no) {
            Some((_, d)) if p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() => Fate::Delay(ms(*d)),
            _ => Fate::Deliver,
        }
    });
    h.a.send(40 * u64::from(MSS));
    h.run_until(until);
    h
}

// Linux cwnd undo (tcp_try_undo_dsack), without timestamps (so no partial undo, test below).
// Segment 5 is delayed 8 ms; RACK retransmits it at 40 ms and fast recovery starts with cwnd 14
// segments (IW10 + 4 acknowledged), ssthresh 0.7 * 14 = 9.8 -> 9 (CUBIC). The delayed original
// fills the hole at 38 ms, so the copy that arrives at 50 ms is a duplicate: the receiver's
// D-SACK reaches the sender at 60 ms. The recovery ended just before on the cumulative ACK
// (no echo: tcp_packet_delayed cannot prove anything, so tcp_try_undo_recovery cannot undo),
// cwnd = ssthresh = 9 segments; the D-SACK then shows the episode's only retransmission was
// unnecessary and the late tcp_try_undo_dsack ("if (icsk->icsk_ca_state <= TCP_CA_Disorder)
// tcp_try_undo_dsack(sk)") restores cwnd = max(cwnd, prior_cwnd) = 14 segments and ssthresh =
// prior_ssthresh (infinite: the first slow start), and that ACK's byte counting makes it 15.
// Without cwnd_undo the reduction stays.
#[test]
fn a_dsack_of_the_only_retransmission_undoes_the_window_reduction() {
    let only5 = [(5, 8)];
    for undo in [true, false] {
        let h = reorder_with(undo, false, &only5, at_ms(59));
        let c = h.a.cc_snapshot();
        assert_eq!((c.cwnd, c.ssthresh), (15 * u64::from(MSS), 9 * u64::from(MSS)), "in recovery (PRR), undo {undo}");
        assert!(matches!(h.a.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Recovery { .. }));
    }
    let h = reorder_with(true, false, &only5, at_ms(60));
    let c = h.a.cc_snapshot();
    assert_eq!((c.cwnd, c.ssthresh), (15 * u64::from(MSS), u64::MAX));
    assert_eq!(h.a.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Open);
    assert_eq!((h.a.cwnd_undo().undos, h.a.cwnd_undo().partial_undos), (1, 0));
    let h = reorder_with(false, false, &only5, at_ms(60));
    let c = h.a.cc_snapshot();
    assert_eq!((c.cwnd, c.ssthresh), (9 * u64::from(MSS), 9 * u64::from(MSS)));
}

// Linux tcp_try_undo_partial, with timestamps. The originals of segments 5 and 7 are delayed
// 8 and 12 ms; at 40 ms RACK (window 0, four segments SACKed) retransmits both (TSval 41 = the
// recovery's retrans_stamp), cwnd 12 segments by PRR, ssthresh 9.
// - 48 ms: the cumulative ACK of 1-6 that the original of 5 triggered at 38 ms echoes its TSval
//   21 < 41 (tcp_packet_delayed: "Plain luck! Hole if filled with delayed packet"), but the
//   retransmission of 7 is still in flight ("if (tp->retrans_out) return true;"): the recovery
//   is held — window unchanged, only new data leaves (one segment, as PRR allows).
// - 52 ms: the ACK of 1-10 from the original of 7 (at 42 ms) echoes 21 again, and now nothing
//   retransmitted is in flight (both copies are below the cumulative ACK): the reduction is
//   undone at once (tcp_undo_cwnd_reduction: cwnd max(12, prior 14), ssthresh prior, infinite),
//   the episode ends (tcp_try_keep_open), and that ACK's byte counting makes cwnd 15: it
//   cumulatively acknowledges 7-10, but 8-10 were SACKed before, so it newly delivers one
//   segment, and Linux's tcp_cong_control credits tcp_cong_avoid with acked_sacked (the newly
//   delivered: tcp_newly_delivered), not with the four (this engine credited four, cwnd 18,
//   before session 6). Without cwnd_undo the sender is still in recovery with ssthresh 9 (the recovery
//   point, 21 001, is acknowledged only at 60 ms).
#[test]
fn a_partial_ack_from_delayed_originals_undoes_once_no_retransmission_is_out() {
    let both = [(5, 8), (7, 12)];
    let h = reorder_with(true, true, &both, at_ms(200));
    assert_eq!(retransmissions(&h), vec![(at_ms(40), 4 * MSS, RetransCause::FastRetransmit), (at_ms(40), 6 * MSS, RetransCause::SackRecovery)]);
    let sent_at = |t: u64| h.data_from(Dir::AtoB).filter(|p| p.t == at_ms(t)).map(|p| (p.rel_seq, p.rtx.is_some())).collect::<Vec<_>>();
    assert_eq!(sent_at(48), vec![(20 * MSS, false)], "held: new data only");

    let h = reorder_with(true, true, &both, at_ms(51));
    let (c, u) = (h.a.cc_snapshot(), h.a.cwnd_undo());
    assert_eq!((c.cwnd, c.ssthresh), (12 * u64::from(MSS), 9 * u64::from(MSS)));
    assert!(matches!(h.a.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Recovery { .. }));
    assert_eq!((u.held_at, u.partial_undos), (Some(at_ms(48)), 0));

    let h = reorder_with(true, true, &both, at_ms(52));
    let (c, u) = (h.a.cc_snapshot(), h.a.cwnd_undo());
    assert_eq!((c.cwnd, c.ssthresh), (15 * u64::from(MSS), u64::MAX));
    assert_eq!(h.a.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Open);
    assert_eq!((u.held_at, u.undos, u.partial_undos), (None, 1, 1));

    let h = reorder_with(false, true, &both, at_ms(52));
    let c = h.a.cc_snapshot();
    assert_eq!(c.ssthresh, 9 * u64::from(MSS));
    assert!(matches!(h.a.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Recovery { .. }));
}

/// SACK off (real kernel `sack-off`): 16 segments, the original of segment 12 dropped; the
/// duplicate ACKs of 13–16 start a NewReno recovery with nothing new left to send, so the
/// retransmission's full ACK leaves nothing in flight. Returns (cwnd, ssthresh) right after the
/// recovery ends, stepping the exchange 0.1 ms at a time.
fn newreno_exit(prr: bool) -> (u64, u64) {
    let mut a = linux(false);
    a.sack = false;
    a.prr = prr;
    let b = TcpConfig { sack: false, ..receiver() };
    let mut h = Harness::new(a, b, ms(10));
    h.set_fate(|p| {
        if p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() && p.rel_seq / MSS + 1 == 12 {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.a.send(16 * u64::from(MSS));
    let mut in_recovery = false;
    for step in 0..20_000u64 {
        h.run_until(SimTime(step * 100_000));
        let now_in = matches!(h.a.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Recovery { .. });
        if in_recovery && !now_in {
            let c = h.a.cc_snapshot();
            return (c.cwnd, c.ssthresh);
        }
        in_recovery |= now_in;
    }
    panic!("the recovery never ended (entered: {in_recovery})");
}

// Linux tcp_end_cwnd_reduction: "Reset cwnd to ssthresh in CWR or Recovery (unless it's
// undone)", with or without SACK (`loss::prr::end_cwnd_reduction`): the SACK-less recovery
// ends with cwnd = ssthresh, where RFC 6582 §3.2 step 3 option (1) gives min(ssthresh,
// max(FlightSize, SMSS) + SMSS) = 2 segments with nothing in flight (the real kernel's
// `sack-off` sent 26 segments at once on the full ACK; the simulator with option (1), 2).
#[test]
fn a_newreno_recovery_ends_with_cwnd_at_ssthresh_as_linux_does() {
    let (cwnd, ssthresh) = newreno_exit(true);
    assert!(ssthresh > 2 * u64::from(MSS), "ssthresh {ssthresh}");
    assert_eq!(cwnd, ssthresh);
    let (cwnd, ssthresh) = newreno_exit(false);
    assert_eq!(cwnd, 2 * u64::from(MSS), "RFC 6582 option (1) without PRR (ssthresh {ssthresh})");
}


/// 61 segments of 1448 bytes between today's Linux at both ends; the last one (the end of the
/// application's write) carries PSH when `psh`, as Linux's `tcp_push` marks it (this
/// simulator's sender sends no PSH: the path sets it). Returns when the last segment left A
/// and when B's ACK of it left B.
fn last_segment_ack(psh: bool) -> (SimTime, SimTime) {
    const N: u32 = 61;
    let mut h = Harness::new(linux_rwnd_cfg(true), linux_rwnd_cfg(true), ms(10));
    let last = h.a.iss() + 1 + (N - 1) * 1448;
    if psh {
        h.path = Some(Box::new(move |dir, seg| {
            if dir == Dir::AtoB && seg.len > 0 && seg.seq == last {
                seg.flags.insert(TcpFlags::PSH);
            }
        }));
    }
    h.a.send(u64::from(N) * 1448);
    assert!(h.run());
    let sent = h.data_from(Dir::AtoB).find(|p| p.rel_seq == (N - 1) * 1448).map(|p| p.t);
    let acked = h.log.iter().find(|p| p.dir == Dir::BtoA && p.seg.ack == last + 1448).map(|p| p.t);
    (sent.expect("the last segment was sent"), acked.expect("and acknowledged"))
}

// Real kernel, `rto-min-50ms`: the last segment delivered before the tail loss ("Flags [P.],
// seq 81089:82537") was ACKed 18 µs after it arrived although the receiver's quick ACKs were
// spent and its window had stopped growing; the simulator delayed that ACK by 41.3 ms, so its
// loss probe and RTO came 47.5 ms late. Linux 6.6+ tcp_measure_rcv_mss: a full-sized segment
// with PSH sets ICSK_ACK_PUSHED, and __tcp_cleanup_rbuf ACKs as soon as the reader has read
// everything. Here the 61st segment is the one whose ACK the receiver would delay (its quick
// ACKs are spent, the window no longer grows): without PSH the ACK leaves the delayed-ACK
// timeout later, with PSH at the instant the segment arrives (10 ms after it was sent).
#[test]
fn a_full_sized_segment_with_psh_is_acknowledged_as_soon_as_it_is_read() {
    let (sent, acked) = last_segment_ack(false);
    assert!(acked.saturating_since(sent) >= ms(10) + ms(40), "delayed: sent {sent:?}, ACK {acked:?}");
    let (sent, acked) = last_segment_ack(true);
    assert_eq!(acked, sent + ms(10));
}

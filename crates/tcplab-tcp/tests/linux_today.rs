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

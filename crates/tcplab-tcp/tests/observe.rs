//! The observer against the simulating sender: a transfer runs through the two-endpoint
//! harness, the sender's own transmissions and the ACKs that reached it are replayed into an
//! [`Observer`] built from the same configuration, and every retransmission's trigger must
//! name a rule that produces the cause the sender itself recorded.

mod harness;

use harness::{ms, Dir, Fate, Harness, Pkt};
use tcplab_tcp::observe::{Observer, Trigger};
use tcplab_tcp::{AckPolicy, RecoveryAlgorithm, RetransCause, TcpConfig, TcpFlags};
use tcplab_time::{SimDuration, SimTime};

const MSS: u64 = 1000;
const DELAY_MS: u64 = 50;

fn cfg(sack: bool, tlp: bool) -> TcpConfig {
    TcpConfig {
        mss: MSS as u16,
        recv_buffer: 1 << 20,
        timestamps: false,
        sack,
        recovery: if sack { RecoveryAlgorithm::Sack } else { RecoveryAlgorithm::NewReno },
        ack: AckPolicy { delayed_ack: None, ..AckPolicy::default() },
        tlp,
        ..TcpConfig::default()
    }
}

/// Which triggers explain each cause the sender records.
fn consistent(cause: RetransCause, t: Trigger) -> bool {
    match cause {
        RetransCause::FastRetransmit => matches!(t, Trigger::DupThresh | Trigger::IsLost | Trigger::Rack | Trigger::RackTimer),
        RetransCause::SackRecovery => {
            matches!(t, Trigger::IsLost | Trigger::PartialAck | Trigger::NextSeg | Trigger::Rack | Trigger::RackTimer)
        }
        RetransCause::Rto => t == Trigger::Rto,
        RetransCause::Tlp => t == Trigger::Tlp,
        _ => false,
    }
}

/// Runs `bytes` from A to B with `fate` and replays A's view into an observer. Returns
/// (sender's cause, observer's trigger) per retransmission.
fn replay(c: TcpConfig, bytes: u64, fate: impl FnMut(&Pkt) -> Fate + 'static) -> Vec<(RetransCause, Trigger)> {
    let mut h = Harness::new(c.clone(), c.clone(), ms(DELAY_MS));
    h.set_fate(fate);
    h.a.send(bytes);
    assert!(h.run());
    let delay = SimDuration::from_millis(DELAY_MS);
    // A's view: its data when sent, B's ACKs when they arrive (arrivals first at equal times).
    let mut events: Vec<(SimTime, u8, usize)> = Vec::new();
    for (i, p) in h.log.iter().enumerate() {
        match (p.dir, p.fate) {
            (Dir::AtoB, _) if p.seg.len > 0 => events.push((p.t, 1, i)),
            (Dir::BtoA, Fate::Deliver) => events.push((p.t + delay, 0, i)),
            (Dir::BtoA, Fate::Delay(x)) => events.push((p.t + delay + x, 0, i)),
            (Dir::BtoA, Fate::Duplicate(x)) => {
                events.push((p.t + delay, 0, i));
                events.push((p.t + delay + x, 0, i));
            }
            _ => {}
        }
    }
    events.sort_by_key(|&(t, k, i)| (t, k, i));
    let first = h.data_from(Dir::AtoB).next().expect("data").seg.seq;
    let mut o = Observer::new(&c, first, c.sack, false);
    // The handshake sample the sender took (SYN at 0, SYN-ACK back after one round trip).
    o.on_handshake_rtt(SimTime(2 * delay.as_nanos()), delay.saturating_mul(2));
    let mut out = Vec::new();
    for (t, _, i) in events {
        let p = h.log[i];
        if p.dir == Dir::BtoA {
            if !p.seg.flags.contains(TcpFlags::SYN) {
                o.on_ack(t, &p.seg, false);
            }
            continue;
        }
        let ex = o.on_transmit(t, p.seg.seq, p.seg.len, p.seg.flags.contains(TcpFlags::FIN));
        match (p.rtx, ex) {
            (Some(c), Some(ex)) => out.push((c, ex.trigger)),
            (None, None) => {}
            (a, b) => panic!("at {t:?} seq {:?}: sender says {a:?}, observer {b:?}", p.seg.seq),
        }
    }
    out
}

fn drop_first_copy_of(segments: &'static [u32]) -> impl FnMut(&Pkt) -> Fate {
    move |p: &Pkt| {
        let hit = p.dir == Dir::AtoB && p.seg.len > 0 && p.rtx.is_none() && segments.iter().any(|&n| p.rel_seq == (n - 1) * MSS as u32);
        if hit {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    }
}

fn assert_consistent(v: &[(RetransCause, Trigger)], want: &[RetransCause]) {
    let causes: Vec<RetransCause> = v.iter().map(|x| x.0).collect();
    assert_eq!(causes, want, "the sender's retransmissions");
    for &(c, t) in v {
        assert!(consistent(c, t), "sender {c:?}, observer {t:?}: {v:?}");
    }
}

#[test]
fn sack_recovery_of_two_holes_is_explained_by_dupthresh_and_islost() {
    let v = replay(cfg(true, false), 40 * MSS, drop_first_copy_of(&[12, 14]));
    assert_consistent(&v, &[RetransCause::FastRetransmit, RetransCause::SackRecovery]);
    assert_eq!(v[0].1, Trigger::DupThresh);
    assert_eq!(v[1].1, Trigger::IsLost);
}

#[test]
fn newreno_partial_ack_is_explained_without_sack() {
    let v = replay(cfg(false, false), 40 * MSS, drop_first_copy_of(&[12, 14]));
    assert_consistent(&v, &[RetransCause::FastRetransmit, RetransCause::SackRecovery]);
    assert_eq!(v[1].1, Trigger::PartialAck);
}

#[test]
fn a_lost_fast_retransmission_ends_in_the_timer() {
    let mut dropped_rtx = false;
    let v = replay(cfg(true, false), 30 * MSS, move |p: &Pkt| {
        let seg12 = p.dir == Dir::AtoB && p.rel_seq == 11 * MSS as u32 && p.seg.len > 0;
        if seg12 && p.rtx.is_none() {
            Fate::Drop
        } else if seg12 && !dropped_rtx {
            dropped_rtx = true;
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    assert_eq!(v.first().map(|x| x.0), Some(RetransCause::FastRetransmit));
    assert!(v.iter().any(|x| x.0 == RetransCause::Rto), "{v:?}");
    for &(c, t) in &v {
        assert!(consistent(c, t), "sender {c:?}, observer {t:?}: {v:?}");
    }
}

#[test]
fn a_tail_loss_probe_is_explained_by_the_pto() {
    let v = replay(cfg(true, true), 10 * MSS, drop_first_copy_of(&[10]));
    assert_consistent(&v, &[RetransCause::Tlp]);
}

#[test]
fn without_tlp_a_tail_loss_waits_for_the_rto() {
    let v = replay(cfg(true, false), 10 * MSS, drop_first_copy_of(&[10]));
    assert_consistent(&v, &[RetransCause::Rto]);
}

fn rack_cfg() -> TcpConfig {
    TcpConfig { rack: true, ..cfg(true, false) }
}

#[test]
fn with_rack_the_losses_are_explained_by_rack_not_by_counting() {
    let v = replay(rack_cfg(), 40 * MSS, drop_first_copy_of(&[12, 14]));
    assert_consistent(&v, &[RetransCause::FastRetransmit, RetransCause::SackRecovery]);
    assert!(v.iter().all(|x| matches!(x.1, Trigger::Rack | Trigger::RackTimer)), "{v:?}");
}

#[test]
fn with_rack_a_lost_retransmission_is_repaired_by_rack_and_explained_so() {
    let mut dropped_rtx = false;
    let v = replay(rack_cfg(), 40 * MSS, move |p: &Pkt| {
        let seg12 = p.dir == Dir::AtoB && p.rel_seq == 11 * MSS as u32 && p.seg.len > 0;
        if seg12 && (p.rtx.is_none() || !dropped_rtx) {
            dropped_rtx |= p.rtx.is_some();
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    // RFC 8985 §6.2: the lost retransmission is marked again one RACK.rtt later, no RTO.
    assert_consistent(&v, &[RetransCause::FastRetransmit, RetransCause::SackRecovery]);
    assert!(v.iter().all(|x| matches!(x.1, Trigger::Rack | Trigger::RackTimer)), "{v:?}");
}

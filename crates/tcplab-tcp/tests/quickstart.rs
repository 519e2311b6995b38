//! Quick-Start exchanges at exact times (seed 002 §6.2.2, §6.5.3; seed-002-part2 §9 items 2,
//! 3, 10, 11) between two engines over a fixed 50 ms one-way delay, through a scripted path of
//! two routers that approve at most N = 6 (320,000 B/s) — or ignore the option.

mod harness;

use harness::{at_ms, ms, Dir, Harness};
use tcplab_tcp::startup::quickstart::{QsRate, QuickStartConfig};
use tcplab_tcp::{Segment, TcpConfig};
use tcplab_time::{SimDuration, SimTime};

const MSS: u64 = 1460;
/// Routers between the hosts.
const HOPS: u8 = 2;

fn client(qsthresh: bool) -> TcpConfig {
    TcpConfig {
        mss: MSS as u16,
        recv_buffer: 1 << 20,
        timestamps: false,
        quick_start: QuickStartConfig { request_at_start: true, qsthresh, ..QuickStartConfig::default() },
        ack: tcplab_tcp::AckPolicy { delayed_ack: None, ack_every: 1, quickack: false },
        ..TcpConfig::default()
    }
}
fn server() -> TcpConfig {
    TcpConfig { quick_start: QuickStartConfig::default(), ..client(false) }
}

/// Two routers: IP TTL − 2; a QS-capable router also decrements the QS TTL and lowers the
/// rate to at most `cap`.
fn path(qs_aware: bool, cap: u8) -> Box<dyn FnMut(Dir, &mut Segment)> {
    Box::new(move |_, seg: &mut Segment| {
        seg.ttl = 64 - HOPS;
        if let Some(q) = seg.qs_request.as_mut() {
            if qs_aware {
                q.qs_ttl = q.qs_ttl.wrapping_sub(HOPS);
                q.rate = q.rate.min(QsRate::new(cap).expect("rate"));
            }
        }
    })
}

fn run(qs_aware: bool, qsthresh: bool, packets: u64) -> Harness {
    let mut h = Harness::new(client(qsthresh), server(), ms(50));
    h.path = Some(path(qs_aware, 6));
    h.a.send(packets * MSS);
    h.a.close();
    h.run();
    h
}

fn data_times(h: &Harness) -> Vec<SimTime> {
    h.data_from(Dir::AtoB).map(|p| p.t).collect()
}

/// §9 items 2 and 10: RTT 100 ms and 320,000 B/s give a QS window of 21 segments (eq. 6.1),
/// sent (MSS+H)/Rate = 4.6875 ms apart from the SYN-ACK's arrival; the first ACK of a QS
/// packet (at 200 ms) returns the sender to ACK clocking.
#[test]
fn an_approved_request_paces_21_segments_over_one_rtt() {
    let h = run(true, false, 30);
    let syn = h.log[0].seg;
    let req = syn.qs_request.expect("the SYN carries the request");
    assert_eq!(req.rate.n(), 8, "2 MB/s static request -> N = 8");
    let synack = h.log[1].seg;
    let resp = synack.options.quick_start.expect("the SYN-ACK carries the response");
    assert_eq!(resp.rate.n(), 6);
    assert_eq!(resp.ttl_diff, (64 - HOPS).wrapping_sub(req.qs_ttl.wrapping_sub(HOPS)));
    let t = data_times(&h);
    let spacing = SimDuration(4_687_500);
    for (k, at) in t.iter().take(21).enumerate() {
        assert_eq!(*at, at_ms(100) + SimDuration(spacing.as_nanos() * k as u64), "QS packet {k}");
    }
    // The 22nd segment waits for the first ACK (200 ms): the QS window was exactly 21.
    assert_eq!(t[21], at_ms(200));
    let q = h.a.quick_start().expect("qs");
    assert_eq!((q.stats.requests, q.stats.approvals, q.stats.failures), (1, 1, 0));
    assert_eq!(q.stats.last_approved_bps, 320_000);
    // All 30 segments sent by the ACK-clocked round starting at 200 ms.
    assert_eq!(t.len(), 30);
    assert!(t[29] < at_ms(300));
}

/// §9 item 3: a router that does not know Quick-Start leaves the QS TTL alone: the TTL
/// difference is wrong and the sender starts with the RFC 3390 initial window (3 segments).
#[test]
fn a_plain_router_on_the_path_makes_the_ttl_check_fail() {
    let h = run(false, false, 30);
    let resp = h.log[1].seg.options.quick_start.expect("the receiver still echoes");
    assert_eq!(resp.rate.n(), 8, "rate untouched");
    let t = data_times(&h);
    assert_eq!(t.iter().filter(|x| **x == at_ms(100)).count(), 3, "IW = 3 at 100 ms");
    assert_eq!(t.iter().filter(|x| **x == at_ms(200)).count(), 6, "slow start: 2 per ACK");
    let q = h.a.quick_start().expect("qs");
    assert_eq!((q.stats.requests, q.stats.approvals), (1, 0));
}

/// §9 item 11: loss of a QS packet → cwnd = the default IW (3 segments), not half.
#[test]
fn a_lost_qs_packet_resets_cwnd_to_the_initial_window() {
    let mut h = Harness::new(client(false), server(), ms(50));
    h.path = Some(path(true, 6));
    h.set_fate(|p| if p.dir == Dir::AtoB && p.data_idx == 5 { harness::Fate::Drop } else { harness::Fate::Deliver });
    h.a.send(30 * MSS);
    h.a.close();
    // Third duplicate ACK (QS packets 6, 7, 8 acknowledged by SACK) reaches A at
    // 100 + 7 · 4.6875 + 100 ms; just after it, cwnd is the IW.
    let third_dup = at_ms(200) + SimDuration(4_687_500 * 7);
    h.run_until(third_dup);
    assert_eq!(h.a.cc_snapshot().cwnd, 3 * MSS);
    assert_eq!(h.a.quick_start().expect("qs").stats.failures, 1);
    assert!(h.run());
    assert!(h.b.stats().bytes_delivered >= 30 * MSS);
}

/// §7.1 qsthresh: ssthresh = the QS window, so the sender is in congestion avoidance after
/// the QS phase.
#[test]
fn qsthresh_sets_ssthresh_from_the_approved_rate() {
    let h = run(true, true, 200);
    let snap = h.a.cc_snapshot();
    assert_eq!(snap.ssthresh, 21 * MSS);
}

/// Ch. 7 variant `slowstart` (L5043–5058): no request, but the hand-off notification sets cwnd
/// to 1 MSS; variant `qs`: the notification arms a Request that rides on the next data segment.
#[test]
fn handoff_notifications_reset_cwnd_or_arm_a_request() {
    use tcplab_tcp::startup::quickstart::HandoffResponse;
    for resp in [HandoffResponse::SlowStart, HandoffResponse::QuickStart] {
        let mut c = client(false);
        c.quick_start.request_at_start = false;
        c.quick_start.on_handoff = resp;
        let mut h = Harness::new(c, server(), ms(50));
        h.path = Some(path(true, 6));
        h.a.send(1000 * MSS);
        h.run_until(at_ms(450));
        assert!(h.a.cc_snapshot().cwnd > 3 * MSS);
        h.a.notify_path_change();
        match resp {
            HandoffResponse::SlowStart => assert_eq!(h.a.cc_snapshot().cwnd, MSS),
            _ => {
                h.run_until(at_ms(700));
                let carrier = h.log.iter().filter(|p| p.seg.qs_request.is_some()).count();
                assert_eq!(carrier, 1, "one Request after the notification");
                let q = h.a.quick_start().expect("qs");
                // Judged (not pending) but unused: the 21-segment QS window (N = 6, 100 ms) is
                // below the cwnd slow start already reached (ns-2 processQuickStart).
                assert_eq!((q.stats.requests, q.stats.approvals), (1, 0), "{:?}", q.stats);
                assert_eq!(q.phase, tcplab_tcp::startup::quickstart::QsPhase::Idle);
                assert!(h.a.cc_snapshot().cwnd > 21 * MSS);
            }
        }
    }
}

/// `profile = "linux"` (CUBIC, HyStart, PRR, RACK-TLP, IW10) with Quick-Start: RFC 4782 is
/// sender-agnostic. The sender on the profile's own settings, SACK on, no timestamps.
fn linux_client(qsthresh: bool) -> TcpConfig {
    let mut c = client(qsthresh);
    tcplab_tcp::Profile::LINUX.apply(&mut c);
    c.sack = true;
    c.timestamps = false;
    c.ack = tcplab_tcp::AckPolicy { delayed_ack: None, ack_every: 1, quickack: false };
    c
}

fn linux_server() -> TcpConfig {
    TcpConfig { sack: true, ..server() }
}

/// The same exchange as `an_approved_request_paces_21_segments_over_one_rtt` with today's Linux
/// sender: the 21-segment QS window (above its IW10) is paced over the first RTT, and with
/// `qsthresh` CUBIC takes over in congestion avoidance from cwnd = ssthresh = 21 segments:
/// one RTT later cwnd has not doubled (slow start would have reached 42).
#[test]
fn the_linux_profile_paces_the_qs_window_and_cubic_continues_from_it() {
    for qsthresh in [false, true] {
        let mut h = Harness::new(linux_client(qsthresh), linux_server(), ms(50));
        h.path = Some(path(true, 6));
        h.a.send(200 * MSS);
        h.a.close();
        h.run_until(at_ms(299));
        let t = data_times(&h);
        let spacing = SimDuration(4_687_500);
        for (k, at) in t.iter().take(21).enumerate() {
            assert_eq!(*at, at_ms(100) + SimDuration(spacing.as_nanos() * k as u64), "QS packet {k} (qsthresh {qsthresh})");
        }
        assert_eq!(t[21], at_ms(200), "the 22nd segment waits for the first ACK");
        let q = h.a.quick_start().expect("qs");
        assert_eq!((q.stats.requests, q.stats.approvals, q.stats.failures), (1, 1, 0));
        let snap = h.a.cc_snapshot();
        if qsthresh {
            assert_eq!(snap.ssthresh, 21 * MSS);
            assert!(snap.cwnd >= 21 * MSS && snap.cwnd < 26 * MSS, "CUBIC congestion avoidance: {}", snap.cwnd / MSS);
        } else {
            // Slow start continues from the QS window: one segment per ACK of the 21.
            assert!(snap.cwnd >= 40 * MSS, "slow start after the QS phase: {}", snap.cwnd / MSS);
        }
        assert!(h.run());
        assert_eq!(h.b.stats().bytes_delivered, 200 * MSS);
    }
}

/// A lost QS packet with today's Linux sender: the failure response (RFC 4782 §4.5: the default
/// initial window, IW10 here, and slow start) replaces the multiplicative decrease that PRR
/// would pace (RecoverFS = the 21-segment QS window down to CUBIC's 0.7 · 21 = 14): right
/// after the recovery starts cwnd is the IW, and it grows by at most one segment per ACK that
/// advances SND.UNA, never to PRR's pipe-based value.
#[test]
fn a_lost_qs_packet_with_the_linux_profile_resets_cwnd_to_its_iw_not_prr() {
    let mut h = Harness::new(linux_client(false), linux_server(), ms(50));
    h.path = Some(path(true, 6));
    h.set_fate(|p| if p.dir == Dir::AtoB && p.data_idx == 5 { harness::Fate::Drop } else { harness::Fate::Deliver });
    h.a.send(60 * MSS);
    h.a.close();
    let iw = 10 * MSS;
    // RACK-TLP proves the loss after the ACKs of QS packets 6.. (reordering window ~ RTT/4);
    // follow cwnd ACK by ACK until the failure is seen.
    let mut t = at_ms(200);
    let mut seen = false;
    let mut last = 0;
    while t < at_ms(400) {
        h.run_until(t);
        let q = h.a.quick_start().expect("qs");
        let cwnd = h.a.cc_snapshot().cwnd;
        if q.stats.failures == 1 && !seen {
            seen = true;
            assert_eq!(cwnd, iw, "cwnd = IW at the failure");
        } else if seen {
            // Slow start from the IW: at most one segment per ACK (ACKs are >= 4.7 ms apart,
            // so at most one per 0.5 ms step), never PRR's pipe + sndcnt.
            assert!(cwnd <= last + MSS, "cwnd {} -> {} segments at {t:?}", last / MSS, cwnd / MSS);
        }
        last = cwnd;
        t = t + SimDuration::from_micros(500);
    }
    assert!(seen, "the lost QS packet was a Quick-Start failure");
    assert!(h.run());
    assert_eq!(h.b.stats().bytes_delivered, 60 * MSS);
}

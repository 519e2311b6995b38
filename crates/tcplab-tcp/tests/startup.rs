//! Aron & Druschel's startup mechanisms (000 §4.2) and TCP Lite's Reno recovery through the
//! `Connection` API: scripted exchanges over a 50 ms one-way path (for the startup tests, with
//! a 1 ms-per-segment bottleneck in the data direction).

mod harness;

use harness::{at_ms, ms, Dir, Fate, Harness};
use tcplab_tcp::{EventClock, StartupConfig, TcpConfig};
use tcplab_time::{SimDuration, SimTime};

const MSS: u64 = 1000;

fn cfg(startup: StartupConfig) -> TcpConfig {
    let mut c = TcpConfig { mss: MSS as u16, recv_buffer: 1 << 22, startup, ..TcpConfig::default() };
    // f_ev = 100 Hz: the slow slot (RTO, pacing) on a periodic 10 ms clock.
    c.timers.slow = EventClock::Periodic { period: ms(10), phase: SimDuration::ZERO };
    c
}

/// A 1 MB/s bottleneck in the data direction: segment k leaves the bottleneck 1 ms after
/// segment k − 1 at the earliest.
fn with_bottleneck(h: &mut Harness) {
    let mut last_out = SimTime(0);
    h.set_fate(move |p| {
        if p.dir != Dir::AtoB || p.seg.len == 0 {
            return Fate::Deliver;
        }
        let out = (p.t + ms(1)).max(last_out + ms(1));
        last_out = out;
        Fate::Delay(out.saturating_since(p.t + ms(1)))
    });
}

fn run(startup: StartupConfig, until_ms: u64) -> Harness {
    let mut h = Harness::new(cfg(startup), cfg(StartupConfig::OFF), ms(50));
    with_bottleneck(&mut h);
    h.handshake();
    h.a.send(10_000_000);
    h.run_until(at_ms(until_ms));
    h
}

/// Data segments A sent at instants when no segment arrived at A (so not ACK-clocked).
fn unclocked_sends(h: &Harness) -> Vec<SimTime> {
    let ack_arrivals: Vec<SimTime> = h.acks_from(Dir::BtoA).map(|p| p.t + h.delay).collect();
    // The initial window leaves when the application writes, after the handshake.
    let first = h.data_from(Dir::AtoB).map(|p| p.t).next().unwrap_or_default();
    let mut v: Vec<SimTime> = h
        .data_from(Dir::AtoB)
        .filter(|p| p.rtx.is_none() && p.t > first && !ack_arrivals.contains(&p.t))
        .map(|p| p.t)
        .collect();
    v.dedup();
    v
}

// 000 §4.2.1: ssthresh = bw · RTT from the ACK trains of the initial slow start. The path's
// bandwidth is 1 segment/ms and its RTT about 100 ms: the estimate is about 100 segments.
#[test]
fn ssthresh_estimation_sets_ssthresh_near_the_bandwidth_delay_product() {
    let h = run(StartupConfig { ssthresh_estimation: true, pacing: false }, 1000);
    let ss = h.a.cc_snapshot().ssthresh;
    assert!(ss < u64::MAX, "no estimate");
    assert!((70 * MSS..=140 * MSS).contains(&ss), "ssthresh {ss}");
    // Without estimation ssthresh stays infinite over the same exchange (no loss here).
    let plain = run(StartupConfig::OFF, 1000);
    assert_eq!(plain.a.cc_snapshot().ssthresh, u64::MAX);
}

// 000 §4.2.2: with pacing, segments leave on the 10 ms event clock between ACK arrivals, at
// least T = MAX(1/f_ev, 1/bw) = 10 ms apart; without pacing every send is ACK-clocked.
#[test]
fn pacing_sends_segments_on_10ms_clock_ticks_between_ack_arrivals() {
    let h = run(StartupConfig::ARON98, 1500);
    let paced = unclocked_sends(&h);
    assert!(paced.len() >= 3, "paced sends: {paced:?}");
    for t in &paced {
        assert_eq!(t.as_nanos() % 10_000_000, 0, "paced send off the 10 ms clock at {t:?}");
    }
    for w in paced.windows(2) {
        assert!(w[1].saturating_since(w[0]) >= ms(10), "{w:?}");
    }
    let plain = run(StartupConfig { ssthresh_estimation: true, pacing: false }, 1500);
    let u = unclocked_sends(&plain);
    assert!(u.is_empty(), "{:?} timeouts {}", &u[..u.len().min(5)], plain.a.stats().timeouts);
}

// Pacing gets the window to pthresh sooner than slow start alone.
#[test]
fn pacing_delivers_more_in_the_first_second_than_estimation_alone() {
    let paced = run(StartupConfig::ARON98, 1000);
    let plain = run(StartupConfig { ssthresh_estimation: true, pacing: false }, 1000);
    let sent = |h: &Harness| h.data_from(Dir::AtoB).count();
    assert!(sent(&paced) > sent(&plain), "{} vs {}", sent(&paced), sent(&plain));
}

// RFC 5681 §3.2 Reno (4.4BSD-Lite, 000 §3 "TCP Lite is an extension of TCP Reno"): with two
// losses in one window the partial ACK ends fast recovery, and the second loss costs a second
// fast retransmit (a second window halving) or a timeout; NewReno repairs both in one recovery.
#[test]
fn reno_halves_the_window_again_for_a_second_loss_in_one_window_where_newreno_does_not() {
    use tcplab_tcp::{AckPolicy, InitialWindow, RecoveryAlgorithm, TcpEvent};
    let run = |recovery| {
        let c = TcpConfig {
            mss: MSS as u16,
            recv_buffer: 1 << 20,
            sack: false,
            timestamps: false,
            recovery,
            limited_transmit: false,
            initial_window: InitialWindow::Segments(10),
            ack: AckPolicy { delayed_ack: None, ack_every: 1, quickack: false },
            ..TcpConfig::default()
        };
        let mut h = Harness::new(c.clone(), c, ms(50));
        h.set_fate(|p| {
            if p.dir == Dir::AtoB && p.rtx.is_none() && (p.data_idx == 3 || p.data_idx == 6) {
                Fate::Drop
            } else {
                Fate::Deliver
            }
        });
        h.handshake();
        h.a.send(30 * MSS);
        h.a.close();
        assert!(h.run_until(at_ms(60_000)));
        let entered = h.a.drain_events().filter(|e| matches!(e, TcpEvent::RecoveryEntered { .. })).count();
        (entered, h.a.stats().timeouts, h.b.stats().bytes_delivered)
    };
    let (newreno_recoveries, newreno_rtos, delivered) = run(RecoveryAlgorithm::NewReno);
    assert_eq!((newreno_recoveries, newreno_rtos, delivered), (1, 0, 30 * MSS));
    let (reno_recoveries, reno_rtos, delivered) = run(RecoveryAlgorithm::Reno);
    assert_eq!(delivered, 30 * MSS);
    assert!(reno_recoveries + reno_rtos as usize >= 2, "reno: {reno_recoveries} recoveries, {reno_rtos} timeouts");
}

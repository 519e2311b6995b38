//! `Connection::reset_client` / `reset_server` (the in-place re-initialisation a driver uses
//! to open the next connection in a finished one's endpoint slot) against
//! `Connection::client` / `server`:
//! - field by field: a connection that has run a transfer (any profile, losses, Quick-Start,
//!   tracing) and is then reset prints (`Debug`, every field including the boxed algorithm
//!   objects) exactly as a new one built from the same configuration and ISS;
//! - by behaviour: a transfer between two reset endpoints produces the same segments at the
//!   same times, with the same statistics and trace, as the same transfer between new ones;
//! - by cost: a reset to a configuration whose algorithms are the ones the sender already
//!   holds keeps their boxes (same heap addresses: the algorithm traits' `reset` hooks), and a
//!   reset to other algorithms builds them (new types, equal to a new sender).

mod harness;

use harness::{ms, Dir, Fate, Harness};
use proptest::prelude::*;
use tcplab_tcp::cc::hystart::HystartMode;
use tcplab_tcp::profile::Profile;
use tcplab_tcp::sender::Sender;
use tcplab_tcp::{CongestionControl, Connection, InitialWindow, RtoEstimatorKind, SeqNum, TcpConfig};
use tcplab_time::SimTime;

/// The settings of the simulator's benchmark flows (`tcplab-netsim` `bench::bench_tcp`: the
/// `web` and `10k-short` cases): RFC 6298, Reno, the initial-window policy, SACK.
fn bench_like() -> TcpConfig {
    TcpConfig {
        mss: 1448,
        initial_window: InitialWindow::Rfc6928,
        sack: true,
        timestamps: true,
        window_scale: true,
        ..TcpConfig::default()
    }
}

/// The configurations the tests draw from: every profile, plus Quick-Start, ECN, TLP/RACK and
/// tracing on the default engine (so the reset must rebuild every optional part).
fn configs() -> Vec<TcpConfig> {
    let mut out: Vec<TcpConfig> = Profile::ALL.iter().map(|p| p.config()).collect();
    let mut qs = TcpConfig { sack: true, timestamps: true, trace: true, ..TcpConfig::default() };
    qs.quick_start.request_at_start = true;
    out.push(qs);
    out.push(TcpConfig { ecn: true, tlp: true, rack: true, sack: true, trace: true, ..TcpConfig::default() });
    out.push(TcpConfig { initial_window: InitialWindow::Segments(10), ..TcpConfig::default() });
    // Each algorithm seam with another type than the default's on the RFC engine (a reset
    // from or to these must build the box anew) and with another value of the same type.
    out.push(TcpConfig { cc: CongestionControl::Cubic, hystart: HystartMode::Linux, sack: true, ..TcpConfig::default() });
    out.push(TcpConfig { abc: true, ..bench_like() });
    let mut est = TcpConfig { sack: true, ..TcpConfig::default() };
    est.startup.ssthresh_estimation = true;
    out.push(est);
    out.push(bench_like());
    out
}

/// Runs a `bytes`-byte transfer (client to server, the server sending `back` bytes) through
/// the harness with `h.a` / `h.b` as they are, dropping every data segment whose index
/// `drop` selects. Returns the harness for inspection.
fn transfer(mut h: Harness, bytes: u64, back: u64, drop: u32) -> Harness {
    h.a.send(bytes);
    h.a.close();
    h.b.send(back);
    h.b.close();
    h.set_fate(move |p| {
        if p.seg.len > 0 && p.dir == Dir::AtoB && drop != 0 && p.data_idx % drop == 0 && p.rtx.is_none() {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    assert!(h.run(), "the transfer ends");
    h
}

#[test]
fn a_reset_connection_is_field_for_field_a_new_one() {
    let cfgs = configs();
    for (i, used_cfg) in cfgs.iter().enumerate() {
        // A first occupant with one configuration, run through losses to the end...
        let h = Harness::with_iss(used_cfg.clone(), used_cfg.clone(), ms(10), SeqNum(7), SeqNum(u32::MAX - 3));
        let h = transfer(h, 40_000, 3_000, 5);
        assert!(h.a.stats().retransmissions.iter().sum::<u64>() > 0, "config {i}: the first occupant recovered from losses");
        let (mut a, mut b) = (h.a, h.b);
        // ...then reset to each configuration, compared with a new connection. Every other
        // time the client's clocks were replaced first (`set_timer_clock`): a reset must not
        // keep a clock box that holds something else than the configuration's clocks.
        for (k, next) in cfgs.iter().enumerate() {
            if k % 2 == 1 {
                a.set_timer_clock(Box::new(tcplab_tcp::timer::FineGrainedClock));
            }
            let now = SimTime(123_456_789);
            a.reset_client(next, SeqNum(99), now);
            b.reset_server(next, SeqNum(1 << 31));
            let fresh_a = Connection::client(next.clone(), SeqNum(99), now);
            let fresh_b = Connection::server(next.clone(), SeqNum(1 << 31));
            assert_eq!(format!("{a:?}"), format!("{fresh_a:?}"), "client after config {i}");
            assert_eq!(format!("{b:?}"), format!("{fresh_b:?}"), "server after config {i}");
        }
    }
}

/// Everything observable about a finished transfer: every transmission (time, direction,
/// segment, retransmission cause), both endpoints' statistics, final states and traces.
fn observe(mut h: Harness) -> String {
    let mut s = String::new();
    for p in &h.log {
        s += &format!("{:?} {:?} {:?} {:?}\n", p.t, p.dir, p.seg, p.rtx);
    }
    s += &format!("{:?}\n{:?}\n{:?} {:?}\n", h.a.stats(), h.b.stats(), h.a.state(), h.b.state());
    s += &format!("{:?}\n{:?}\n", h.a.drain_events().collect::<Vec<_>>(), h.b.drain_events().collect::<Vec<_>>());
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48), ..ProptestConfig::default() })]

    /// Two endpoints that ran one transfer (configuration, sizes and losses drawn) and were
    /// reset behave exactly as two new ones in a second transfer (drawn too).
    #[test]
    fn reset_endpoints_behave_exactly_as_new_ones(
        first_cfg in 0usize..32,
        next_cfg in 0usize..32,
        first_bytes in 0u64..60_000,
        next_bytes in 0u64..60_000,
        back in 0u64..5_000,
        first_drop in 0u32..6,
        next_drop in 0u32..6,
        iss in any::<(u32, u32, u32, u32)>(),
    ) {
        let cfgs = configs();
        let (c1, c2) = (&cfgs[first_cfg % cfgs.len()], &cfgs[next_cfg % cfgs.len()]);
        let used = transfer(Harness::with_iss(c1.clone(), c1.clone(), ms(10), SeqNum(iss.0), SeqNum(iss.1)), first_bytes, back, first_drop);
        let (mut a, mut b) = (used.a, used.b);
        a.reset_client(c2, SeqNum(iss.2), SimTime(0));
        b.reset_server(c2, SeqNum(iss.3));
        let mut reused = Harness::with_iss(c2.clone(), c2.clone(), ms(10), SeqNum(iss.2), SeqNum(iss.3));
        reused.a = a;
        reused.b = b;
        let fresh = Harness::with_iss(c2.clone(), c2.clone(), ms(10), SeqNum(iss.2), SeqNum(iss.3));
        let (r, f) = (transfer(reused, next_bytes, back, next_drop), transfer(fresh, next_bytes, back, next_drop));
        prop_assert!(!f.log.is_empty());
        prop_assert_eq!(observe(r), observe(f));
    }
}

/// Where the sender's three stateful algorithm objects live on the heap (their boxes).
fn boxes(s: &Sender) -> [*const u8; 3] {
    [&*s.rtt as *const _ as *const u8, &*s.ccalg as *const _ as *const u8, &*s.startup as *const _ as *const u8]
}

/// A reset to the algorithms the sender already holds keeps their boxes (the same heap
/// addresses: nothing freed and allocated again) and gives exactly a new sender, with other
/// values of the same types too (Linux byte counting, another initial window); a reset to
/// other algorithm types builds new boxes of those types, again exactly a new sender; and
/// resetting back to the defaults from there builds the default types again.
#[test]
fn a_sender_reset_keeps_the_algorithm_boxes_when_the_types_match_and_rebuilds_them_otherwise() {
    let cfg = bench_like();
    let iss = SeqNum(4_000_000_000);
    let mut s = Sender::new(&cfg, SeqNum(1));
    s.send(10_000);
    let kept = boxes(&s);
    let same_types = [cfg.clone(), TcpConfig { abc: true, initial_window: InitialWindow::Segments(4), ..cfg.clone() }];
    for next in &same_types {
        s.reset(next, iss);
        assert_eq!(boxes(&s), kept, "same algorithm types: the boxes are kept");
        assert_eq!(format!("{s:?}"), format!("{:?}", Sender::new(next, iss)));
    }
    // Another controller, estimator and startup policy: each must be built anew (a kept box
    // would still print as the old type).
    let mut other = TcpConfig { cc: CongestionControl::Cubic, rto_estimator: RtoEstimatorKind::Linux, ..cfg.clone() };
    other.startup.ssthresh_estimation = true;
    s.reset(&other, iss);
    let fresh = format!("{:?}", Sender::new(&other, iss));
    assert_eq!(format!("{s:?}"), fresh);
    assert!(fresh.contains("Cubic") && !fresh.contains("Reno {"), "the controller changed type: {fresh}");
    assert!(fresh.contains("SsthreshEstimation"), "the startup policy changed type");
    // And back: the default types are built again (their `reset` sees another type in the box).
    s.reset(&cfg, iss);
    assert_eq!(format!("{s:?}"), format!("{:?}", Sender::new(&cfg, iss)));
    assert!(format!("{s:?}").contains("Reno {"));
}

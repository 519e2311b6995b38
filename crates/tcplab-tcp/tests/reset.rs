//! `Connection::reset_client` / `reset_server` (the in-place re-initialisation a driver uses
//! to open the next connection in a finished one's endpoint slot) against
//! `Connection::client` / `server`:
//! - field by field: a connection that has run a transfer (any profile, losses, Quick-Start,
//!   tracing) and is then reset prints (`Debug`, every field including the boxed algorithm
//!   objects) exactly as a new one built from the same configuration and ISS;
//! - by behaviour: a transfer between two reset endpoints produces the same segments at the
//!   same times, with the same statistics and trace, as the same transfer between new ones.

mod harness;

use harness::{ms, Dir, Fate, Harness};
use proptest::prelude::*;
use tcplab_tcp::profile::Profile;
use tcplab_tcp::{Connection, InitialWindow, SeqNum, TcpConfig};
use tcplab_time::SimTime;

/// The configurations the tests draw from: every profile, plus Quick-Start, ECN, TLP/RACK and
/// tracing on the default engine (so the reset must rebuild every optional part).
fn configs() -> Vec<TcpConfig> {
    let mut out: Vec<TcpConfig> = Profile::ALL.iter().map(|p| p.config()).collect();
    let mut qs = TcpConfig { sack: true, timestamps: true, trace: true, ..TcpConfig::default() };
    qs.quick_start.request_at_start = true;
    out.push(qs);
    out.push(TcpConfig { ecn: true, tlp: true, rack: true, sack: true, trace: true, ..TcpConfig::default() });
    out.push(TcpConfig { initial_window: InitialWindow::Segments(10), ..TcpConfig::default() });
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
        first_cfg in 0usize..14,
        next_cfg in 0usize..14,
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

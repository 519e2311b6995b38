//! Engine throughput: a bulk transfer between two `Connection`s over a fixed-delay link that
//! loses every 1000th data segment and holds at most 2000 packets, counting segments handled
//! (both directions). No simulator: this isolates the engine's per-segment cost.
//!
//! Run: `cargo bench -p tcplab-tcp --bench engine`. Results: docs/benchmarks.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::collections::VecDeque;
use std::hint::black_box;
use tcplab_tcp::{Connection, SeqNum, TcpConfig};
use tcplab_time::{SimDuration, SimTime};

/// Segments handled per measured iteration.
const SEGMENTS: u64 = 200_000;

fn bulk_transfer(segments: u64) -> u64 {
    let cfg = TcpConfig { trace: false, recv_buffer: 4 << 20, ..TcpConfig::default() };
    let mut a = Connection::client(cfg.clone(), SeqNum(1), SimTime(0));
    let mut b = Connection::server(cfg, SeqNum(2));
    a.send_unlimited();
    let delay = SimDuration::from_millis(20);
    let gap = SimDuration::from_micros(10); // ~1.2 Gbit/s serialization
    let mut ab: VecDeque<(SimTime, tcplab_tcp::Segment)> = VecDeque::new();
    let mut ba: VecDeque<(SimTime, tcplab_tcp::Segment)> = VecDeque::new();
    let mut now = SimTime(0);
    let mut link_free = SimTime(0);
    let mut handled: u64 = 0;
    let mut sent: u64 = 0;
    while handled < segments {
        while let Some(tx) = a.poll_transmit(now) {
            sent += 1;
            // 1 in 1000 data segments lost; bounded queue of 2000 packets.
            if tx.segment.len > 0 && (sent.checked_rem(1000) == Some(0) || ab.len() > 2000) {
                continue;
            }
            link_free = link_free.max(now) + gap;
            ab.push_back((link_free + delay, tx.segment));
        }
        while let Some(tx) = b.poll_transmit(now) {
            ba.push_back((now + delay, tx.segment));
        }
        let mut next = SimTime::MAX;
        if let Some(x) = ab.front() { next = next.min(x.0); }
        if let Some(x) = ba.front() { next = next.min(x.0); }
        if let Some(t) = a.poll_timeout() { next = next.min(t); }
        if let Some(t) = b.poll_timeout() { next = next.min(t); }
        assert!(next != SimTime::MAX);
        now = next;
        while ab.front().is_some_and(|x| x.0 <= now) {
            let (_, s) = ab.pop_front().expect("front");
            b.handle_segment(now, &s);
            handled += 1;
        }
        while ba.front().is_some_and(|x| x.0 <= now) {
            let (_, s) = ba.pop_front().expect("front");
            a.handle_segment(now, &s);
            handled += 1;
        }
        if a.poll_timeout().is_some_and(|t| t <= now) { a.handle_timeout(now); }
        if b.poll_timeout().is_some_and(|t| t <= now) { b.handle_timeout(now); }
    }
    handled
}

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(SEGMENTS));
    g.sample_size(10);
    g.bench_function("bulk_sack_ts_0.1pct_loss", |b| b.iter(|| black_box(bulk_transfer(SEGMENTS))));
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);

//! Rough engine throughput check (not a benchmark suite): a bulk transfer over a fixed-delay,
//! lossy-every-N link with FIFO queues, counting segments handled per wall-clock second.
//! Run with `cargo test -p tcplab-tcp --release --test throughput -- --ignored --nocapture`.

use std::collections::VecDeque;
use std::time::Instant;
use tcplab_tcp::{Connection, SeqNum, TcpConfig};
use tcplab_time::{SimDuration, SimTime};

#[test]
#[ignore]
fn bulk_transfer_segments_per_wall_second() {
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
    let start = Instant::now();
    while handled < 3_000_000 {
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
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{handled} segments in {secs:.3}s = {:.2} M segments/s; delivered {} MB in {:.1} sim-s; timeouts {} rtx {:?}",
        handled as f64 / secs / 1e6,
        b.stats().bytes_delivered / 1_000_000,
        now.as_secs_f64(),
        a.stats().timeouts,
        a.stats().retransmissions
    );
}

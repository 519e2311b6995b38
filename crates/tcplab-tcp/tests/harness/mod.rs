//! A tiny two-endpoint harness: client A and server B joined by a fixed one-way delay, with
//! per-packet fates (deliver, drop, delay more, duplicate) chosen by a test closure. Every
//! transmission is logged with its time so tests can assert "segment in at T, out at T+x".
#![allow(dead_code)]

use tcplab_tcp::{Connection, RetransCause, Segment, SeqNum, TcpConfig};
use tcplab_time::{SimDuration, SimTime};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dir {
    AtoB,
    BtoA,
}

/// What happens to one transmitted segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    Deliver,
    Drop,
    /// Deliver `extra` later than the base delay (reordering).
    Delay(SimDuration),
    /// Deliver twice (the copy `extra` later).
    Duplicate(SimDuration),
    /// Deliver with the IP ECN field set to CE (a router's mark, RFC 3168 §5).
    MarkCe,
}

/// One logged transmission.
#[derive(Copy, Clone, Debug)]
pub struct Pkt {
    pub t: SimTime,
    pub dir: Dir,
    pub seg: Segment,
    pub rtx: Option<RetransCause>,
    /// 1-based index among data-carrying transmissions in this direction.
    pub data_idx: u32,
    /// Sequence number relative to the sender's ISS + 1 (first data byte = 0).
    pub rel_seq: u32,
    pub fate: Fate,
}

pub struct Harness {
    pub now: SimTime,
    pub a: Connection,
    pub b: Connection,
    pub delay: SimDuration,
    pub log: Vec<Pkt>,
    queue: Vec<(SimTime, u64, Dir, Segment)>,
    order: u64,
    data_count: [u32; 2],
    fate: Box<dyn FnMut(&Pkt) -> Fate>,
    /// Assert engine invariants after every event.
    pub check_invariants: bool,
    /// What the path does to a delivered segment's IP fields (routers: TTL, Quick-Start).
    pub path: Option<Box<dyn FnMut(Dir, &mut Segment)>>,
}

/// The scripted-exchange sender of the SACK recovery tests (`tlp.rs`, `rack.rs`): SACK
/// recovery without timestamps, every segment acknowledged at once (no delayed ACK, so ACK
/// times are exact) and a receive buffer that never limits the flight.
pub fn sack_cfg(mss: u16) -> tcplab_tcp::TcpConfig {
    tcplab_tcp::TcpConfig {
        mss,
        recv_buffer: 1 << 20,
        timestamps: false,
        sack: true,
        recovery: tcplab_tcp::RecoveryAlgorithm::Sack,
        ack: tcplab_tcp::AckPolicy { delayed_ack: None, ..tcplab_tcp::AckPolicy::default() },
        ..tcplab_tcp::TcpConfig::default()
    }
}

pub fn ms(v: u64) -> SimDuration {
    SimDuration::from_millis(v)
}
pub fn at_ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

impl Harness {
    pub fn new(ca: TcpConfig, cb: TcpConfig, delay: SimDuration) -> Self {
        Self::with_iss(ca, cb, delay, SeqNum(1000), SeqNum(5000))
    }
    pub fn with_iss(ca: TcpConfig, cb: TcpConfig, delay: SimDuration, ia: SeqNum, ib: SeqNum) -> Self {
        Harness {
            now: SimTime(0),
            a: Connection::client(ca, ia, SimTime(0)),
            b: Connection::server(cb, ib),
            delay,
            log: Vec::new(),
            queue: Vec::new(),
            order: 0,
            data_count: [0; 2],
            fate: Box::new(|_| Fate::Deliver),
            check_invariants: true,
            path: None,
        }
    }
    pub fn set_fate(&mut self, f: impl FnMut(&Pkt) -> Fate + 'static) {
        self.fate = Box::new(f);
    }

    fn conn(&mut self, d: Dir) -> &mut Connection {
        match d {
            Dir::AtoB => &mut self.a,
            Dir::BtoA => &mut self.b,
        }
    }

    fn flush(&mut self) {
        for dir in [Dir::AtoB, Dir::BtoA] {
            let now = self.now;
            while let Some(tx) = self.conn(dir).poll_transmit(now) {
                let c = self.conn(dir);
                let base = c.iss() + 1;
                let di = dir as usize;
                let mut data_idx = 0;
                if tx.segment.len > 0 {
                    self.data_count[di] += 1;
                    data_idx = self.data_count[di];
                }
                let mut p = Pkt {
                    t: now,
                    dir,
                    seg: tx.segment,
                    rtx: tx.retransmission,
                    data_idx,
                    rel_seq: tx.segment.seq - base,
                    fate: Fate::Deliver,
                };
                p.fate = (self.fate)(&p);
                self.log.push(p);
                let arrive = now + self.delay;
                match p.fate {
                    Fate::Deliver => self.enqueue(arrive, dir, tx.segment),
                    Fate::Drop => {}
                    Fate::MarkCe => self.enqueue(arrive, dir, Segment { ecn: tcplab_tcp::Ecn::Ce, ..tx.segment }),
                    Fate::Delay(x) => self.enqueue(arrive + x, dir, tx.segment),
                    Fate::Duplicate(x) => {
                        self.enqueue(arrive, dir, tx.segment);
                        self.enqueue(arrive + x, dir, tx.segment);
                    }
                }
            }
        }
        if self.check_invariants {
            check(&self.a);
            check(&self.b);
        }
    }

    fn enqueue(&mut self, t: SimTime, dir: Dir, mut seg: Segment) {
        if let Some(f) = self.path.as_mut() {
            f(dir, &mut seg);
        }
        self.order += 1;
        self.queue.push((t, self.order, dir, seg));
    }

    /// Runs until nothing is pending or `until` is reached. Returns false on timeout.
    pub fn run_until(&mut self, until: SimTime) -> bool {
        self.flush();
        loop {
            let next_arrival = self.queue.iter().map(|e| (e.0, e.1)).min();
            let ta = self.a.poll_timeout();
            let tb = self.b.poll_timeout();
            let mut next = next_arrival.map(|x| x.0);
            for t in [ta, tb].into_iter().flatten() {
                next = Some(next.map_or(t, |n: SimTime| n.min(t)));
            }
            let Some(t) = next else { return true };
            if t > until {
                return false;
            }
            assert!(t >= self.now, "time went backwards");
            self.now = t;
            if let Some((ta_, ord)) = next_arrival {
                if ta_ == t {
                    let i = self.queue.iter().position(|e| e.1 == ord).expect("queued");
                    let (_, _, dir, seg) = self.queue.swap_remove(i);
                    let now = self.now;
                    match dir {
                        Dir::AtoB => self.b.handle_segment(now, &seg),
                        Dir::BtoA => self.a.handle_segment(now, &seg),
                    }
                    self.flush();
                    continue;
                }
            }
            let now = self.now;
            if ta.is_some_and(|x| x <= now) {
                self.a.handle_timeout(now);
                self.a.handle_timeout(now); // idempotent
            }
            if tb.is_some_and(|x| x <= now) {
                self.b.handle_timeout(now);
            }
            self.flush();
        }
    }

    pub fn run(&mut self) -> bool {
        self.run_until(SimTime(3_600 * 1_000_000_000))
    }

    /// Runs the handshake to completion (no data queued yet).
    pub fn handshake(&mut self) {
        self.run();
    }

    pub fn data_from(&self, dir: Dir) -> impl Iterator<Item = &Pkt> {
        self.log.iter().filter(move |p| p.dir == dir && p.seg.len > 0)
    }
    pub fn acks_from(&self, dir: Dir) -> impl Iterator<Item = &Pkt> {
        self.log.iter().filter(move |p| p.dir == dir && p.seg.len == 0)
    }
}

/// Engine invariants that must hold after every event.
pub fn check(c: &Connection) {
    let s = c.cc_snapshot();
    let cfg = c.config();
    if c.state() != tcplab_tcp::ConnState::SynSent && c.state() != tcplab_tcp::ConnState::Listen {
        assert!(s.cwnd >= c.smss(), "cwnd {} < smss {}", s.cwnd, c.smss());
    }
    assert!(s.rto_ns >= cfg.rto.min.as_nanos() && s.rto_ns <= cfg.rto.max.as_nanos(), "rto {}", s.rto_ns);
    assert!(c.debug_scoreboard_consistent(), "scoreboard counters drifted");
    let (una, nxt) = c.snd_seq();
    assert!(una.le(nxt));
    // RFC 6675 SetPipe counts an octet at most twice (once un-SACKed and not lost, once more
    // if retransmitted, e.g. by NextSeg rule (3)); outside SACK recovery it is exactly
    // SND.NXT - SND.UNA.
    let outstanding = u64::from(nxt - una);
    assert!(s.bytes_in_flight <= 2 * outstanding, "in flight {} > 2 * outstanding {}", s.bytes_in_flight, outstanding);
    assert!(s.bytes_in_flight <= c.stats().bytes_sent + 1, "in flight {} > bytes sent", s.bytes_in_flight);
    if let Some(k) = c.linux_counters() {
        // Linux sender (002 L1359–1361): bytes in flight are the packet formula in bytes, so
        // with full-sized segments they can only differ by the last (short) segment.
        assert!(k.in_flight() <= k.packets_out + k.retrans_out);
        return;
    }
    if !matches!(c.recovery_phase(), tcplab_tcp::loss::RecoveryPhase::Recovery { .. } | tcplab_tcp::loss::RecoveryPhase::Loss { .. }) {
        assert_eq!(s.bytes_in_flight, outstanding);
    }
}

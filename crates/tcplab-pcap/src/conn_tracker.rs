//! Connection tracking: both directions of a TCP connection under one `conn_id`.
//!
//! Fed [`CapturedSegment`]s in capture order, [`ConnTracker::observe`] does O(1) (amortised)
//! work per packet: one hash-map lookup on the canonical 5-tuple, a constant amount of
//! per-direction bookkeeping, and popping expired entries off two FIFO eviction queues.
//! Memory is bounded by the number of concurrent connections: closed connections are
//! evicted [`TrackerConfig::closed_timeout_ns`] after they closed, idle ones after
//! [`TrackerConfig::idle_timeout_ns`]; each eviction emits a final [`ConnRecord`] (collect
//! them with [`ConnTracker::drain_finished`]).
//!
//! Identity and ambiguities resolved (cf. Rewaskar, Kaur & Smith §IV, who track each
//! connection and emulate its sender from the trace):
//! - Key = 5-tuple (protocol is always TCP) + ISN. The map holds the *current* incarnation
//!   of a 5-tuple. A SYN (without ACK) whose ISN differs from the current incarnation's
//!   starts a new connection when the current one is closed (FIN both ways or RST), idle for
//!   at least [`TrackerConfig::reuse_idle_ns`], or never got past the SYN (no SYN-ACK, no
//!   data: a client retrying with a fresh ISN). Otherwise it is a stray SYN (an old
//!   duplicate or a spoof; RFC 9293 answers it with a challenge ACK) and is counted, not
//!   split off. A retransmitted SYN (same ISN) belongs to the connection.
//! - The *client* is the sender of the SYN; if the capture starts at the SYN-ACK, its
//!   receiver. With no handshake in the capture the sender of the first packet is called
//!   the client (`initiator_known = false`), `handshake_seen = false`, and each direction's
//!   provisional base (`isn = None`) is one before its first sequence number seen, as if that
//!   were the ISN: the first byte seen is relative sequence number 1, as after a handshake.
//! - How a connection ended, as observed ([`ConnRecord::observed_end`]): `rst` or `fin`
//!   when the capture shows it closed (whichever closed it first), else `idle_timeout`,
//!   `replaced` (a new incarnation took the 5-tuple) or `end_of_capture` - independent of
//!   when the tracker happened to emit the record.
//! - Options negotiated: each direction records what its SYN / SYN-ACK offered; window
//!   scaling, SACK and timestamps are in effect only when both offered them (RFC 7323 §1.3,
//!   RFC 2018 §2).
//! - Keep-alive: no payload or one byte, no SYN/FIN/RST, `seq = SND.MAX - 1`, while the
//!   peer has acknowledged everything (RFC 9293 §3.8.4; the one garbage byte is BSD's).
//!   Zero-window probe: the peer's last advertised window is 0 and the segment is either
//!   Linux's probe (no payload, `seq = SND.MAX - 1`, tcp_xmit_probe_skb) or the BSD/Windows
//!   probe (one byte at the peer's ACK, i.e. the window edge). Later stages must not call
//!   either a retransmission, although both repeat sequence space.
//! - Half-close: a direction that sends data after its peer's FIN has
//!   `data_after_peer_fin = true`.
//! - A data segment longer than the MSS its peer advertised is counted as
//!   `oversized_segments` (TSO/GSO seen at the sender), in addition to the reader's `tso`.
//! - Packets of an older incarnation that arrive after a new one started are attributed to
//!   the new one (the map keeps only the current incarnation).

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};

use rustc_hash::FxHashMap;
use serde::Serialize;
use tcplab_tcp::{SeqNum, TcpFlags};

use crate::segment::CapturedSegment;
use crate::vantage::{classify_vantage, HandshakeTiming, VantageEstimate, NEAR_ZERO_FRACTION};

const NANOS_PER_SEC: u64 = 1_000_000_000;
/// Default time a closed connection is kept for late retransmissions: 60 s, Linux's
/// TIME_WAIT (TCP_TIMEWAIT_LEN).
pub const DEFAULT_CLOSED_TIMEOUT_NS: u64 = 60 * NANOS_PER_SEC;
/// Default idle time after which an open connection is evicted: 10 min.
pub const DEFAULT_IDLE_TIMEOUT_NS: u64 = 600 * NANOS_PER_SEC;
/// Default idle time after which a new SYN with another ISN starts a new connection even
/// without a FIN/RST: 60 s (TIME_WAIT, after which the port may legitimately be reused).
pub const DEFAULT_REUSE_IDLE_NS: u64 = 60 * NANOS_PER_SEC;

/// Tracker settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TrackerConfig {
    pub closed_timeout_ns: u64,
    pub idle_timeout_ns: u64,
    pub reuse_idle_ns: u64,
    /// See [`crate::vantage::NEAR_ZERO_FRACTION`].
    pub vantage_near_zero_fraction: f64,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            closed_timeout_ns: DEFAULT_CLOSED_TIMEOUT_NS,
            idle_timeout_ns: DEFAULT_IDLE_TIMEOUT_NS,
            reuse_idle_ns: DEFAULT_REUSE_IDLE_NS,
            vantage_near_zero_fraction: NEAR_ZERO_FRACTION,
        }
    }
}

/// Direction of a segment within its connection.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Dir {
    ClientToServer,
    ServerToClient,
}

impl Dir {
    pub fn index(self) -> usize {
        match self {
            Dir::ClientToServer => 0,
            Dir::ServerToClient => 1,
        }
    }
    pub fn reverse(self) -> Dir {
        match self {
            Dir::ClientToServer => Dir::ServerToClient,
            Dir::ServerToClient => Dir::ClientToServer,
        }
    }
}

/// What a segment is, as far as the connection layer can tell.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SegKind {
    Syn,
    SynAck,
    Rst,
    /// Carries payload (possibly with FIN).
    Data,
    /// FIN without payload.
    Fin,
    PureAck,
    WindowProbe,
    KeepAlive,
}

/// The tracker's verdict on one segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    pub conn_id: u64,
    pub dir: Dir,
    pub kind: SegKind,
    /// First packet of a new connection (including a port reuse).
    pub new_connection: bool,
    /// `seq` minus the direction's ISN (or provisional base).
    pub rel_seq: u32,
    /// `ack` minus the peer's ISN/base, when the ACK flag is set and the peer's base is known.
    pub rel_ack: Option<u32>,
    /// Payload longer than the MSS the peer advertised.
    pub oversized: bool,
    /// A data segment starting below the highest sequence number this direction had sent
    /// before it: a retransmission or a reordered segment — for the classification stage to
    /// decide. Never set for keep-alives or window probes.
    pub repeats_sent_data: bool,
}

/// Per-direction summary.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DirStats {
    /// ISN from the SYN / SYN-ACK, if seen.
    pub isn: Option<u32>,
    /// ISN, or the first sequence number seen (provisional).
    pub base_seq: u32,
    pub packets: u64,
    pub data_segments: u64,
    /// Payload bytes including repeats.
    pub payload_bytes: u64,
    /// Payload bytes that advanced the highest sequence number (new data).
    pub unique_bytes: u64,
    pub pure_acks: u64,
    pub window_probes: u64,
    pub keepalives: u64,
    /// Data segments longer than the peer's MSS.
    pub oversized_segments: u64,
    /// Segments the reader flagged as TSO/GSO super-segments.
    pub tso_segments: u64,
    /// Segments advertising a zero window.
    pub zero_window_adverts: u64,
    /// Options of this direction's SYN / SYN-ACK.
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: bool,
    pub first_ns: Option<u64>,
    pub last_ns: Option<u64>,
    pub fin_ns: Option<u64>,
    pub rst_ns: Option<u64>,
    /// Sent data after the peer's FIN (half-close).
    pub data_after_peer_fin: bool,
}

/// Options in effect for the connection.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Negotiated {
    /// (client shift, server shift) when both offered window scaling.
    pub window_scale: Option<(u8, u8)>,
    pub sack: bool,
    pub timestamps: bool,
    /// MSS offered by [client, server].
    pub mss: [Option<u16>; 2],
}

/// Why a connection record was emitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum EndReason {
    /// Closed (FIN both ways or RST) and the closed timeout passed.
    Closed,
    /// No packet for the idle timeout.
    Idle,
    /// A new connection took over the 5-tuple.
    Replaced,
    /// Still tracked when the capture ended.
    EndOfCapture,
}

/// How a connection ended, as the capture shows it (`end_reason` in the outputs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ObservedEnd {
    /// A RST closed it.
    Rst,
    /// FIN in both directions closed it.
    Fin,
    /// Not closed; no packet for the idle timeout.
    IdleTimeout,
    /// Not closed; a new connection took over the 5-tuple.
    Replaced,
    /// Not closed when the capture ended.
    EndOfCapture,
}

impl ObservedEnd {
    /// The name in the outputs.
    pub fn name(self) -> &'static str {
        match self {
            ObservedEnd::Rst => "rst",
            ObservedEnd::Fin => "fin",
            ObservedEnd::IdleTimeout => "idle_timeout",
            ObservedEnd::Replaced => "replaced",
            ObservedEnd::EndOfCapture => "end_of_capture",
        }
    }
}

/// Final record of a connection.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct ConnRecord {
    pub conn_id: u64,
    pub client: SocketAddr,
    pub server: SocketAddr,
    pub initiator_known: bool,
    pub handshake_seen: bool,
    pub first_ns: u64,
    pub last_ns: u64,
    /// Indexed by [`Dir::index`].
    pub dirs: [DirStats; 2],
    pub negotiated: Negotiated,
    pub handshake: HandshakeTiming,
    pub vantage: VantageEstimate,
    pub closed: bool,
    pub stray_syns: u64,
    pub end: EndReason,
}

impl ConnRecord {
    /// How the connection ended as observed: a RST or the FIN exchange that closed it (the
    /// earlier, when both), else why tracking stopped.
    pub fn observed_end(&self) -> ObservedEnd {
        let rst = self.dirs.iter().filter_map(|d| d.rst_ns).min();
        let fins = (self.dirs[0].fin_ns, self.dirs[1].fin_ns);
        let fin = match fins {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        match (rst, fin) {
            (Some(r), Some(f)) if f < r => ObservedEnd::Fin,
            (Some(_), _) => ObservedEnd::Rst,
            (None, Some(_)) => ObservedEnd::Fin,
            (None, None) => match self.end {
                EndReason::Idle => ObservedEnd::IdleTimeout,
                EndReason::Replaced => ObservedEnd::Replaced,
                EndReason::Closed | EndReason::EndOfCapture => ObservedEnd::EndOfCapture,
            },
        }
    }
}

/// Tracker counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TrackerStats {
    pub connections: u64,
    pub active: u64,
    pub peak_active: u64,
    pub evicted_closed: u64,
    pub evicted_idle: u64,
    pub replaced: u64,
    pub stray_syns: u64,
}

/// A connection's identity: its two endpoints in a canonical order, packed into integers
/// (an IPv4 address in the low 32 bits, and the family in `v6`, so an IPv4 address and the
/// IPv6 address with the same bits stay apart): the tracker hashes and compares it twice per
/// packet, and `IpAddr`'s derived `Hash`/`Ord` (enum tag, byte arrays) cost several times
/// more (docs/benchmarks.md, SACK-heavy capture). The order of `a` and `b` only makes the
/// key the same for both directions; nothing reads the endpoints back from it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct FlowKey {
    a: u128,
    b: u128,
    /// Port of `a` in the high 16 bits, of `b` in the low 16.
    ports: u32,
    v6: bool,
}

impl FlowKey {
    #[inline]
    fn bits(ip: IpAddr) -> u128 {
        match ip {
            IpAddr::V4(a) => u128::from(u32::from(a)),
            IpAddr::V6(a) => u128::from(a),
        }
    }

    #[inline]
    fn of(seg: &CapturedSegment) -> FlowKey {
        let v6 = seg.src.is_ipv6();
        let src = (Self::bits(seg.src), seg.sport);
        let dst = (Self::bits(seg.dst), seg.dport);
        let (x, y) = if src <= dst { (src, dst) } else { (dst, src) };
        FlowKey { a: x.0, b: y.0, ports: (u32::from(x.1) << 16) | u32::from(y.1), v6 }
    }
}

#[derive(Copy, Clone, Debug, Default)]
struct DirState {
    stats: DirStats,
    seen: bool,
    snd_max: SeqNum,
    ack_seen: bool,
    last_ack: SeqNum,
    last_window: u16,
}

#[derive(Clone, Debug)]
struct Conn {
    id: u64,
    client: SocketAddr,
    server: SocketAddr,
    initiator_known: bool,
    synack_seen: bool,
    first_ns: u64,
    last_ns: u64,
    dirs: [DirState; 2],
    handshake: HandshakeTiming,
    closed_ns: Option<u64>,
    stray_syns: u64,
}

impl Conn {
    fn new(id: u64, seg: &CapturedSegment) -> Conn {
        let src = SocketAddr::new(seg.src, seg.sport);
        let dst = SocketAddr::new(seg.dst, seg.dport);
        let f = seg.segment.flags;
        let (client, server, known) = if f.contains(TcpFlags::SYN) && !f.contains(TcpFlags::ACK) {
            (src, dst, true)
        } else if f.contains(TcpFlags::SYN) {
            (dst, src, true)
        } else {
            (src, dst, false)
        };
        Conn {
            id,
            client,
            server,
            initiator_known: known,
            synack_seen: false,
            first_ns: seg.ts_ns,
            last_ns: seg.ts_ns,
            dirs: [DirState::default(); 2],
            handshake: HandshakeTiming::default(),
            closed_ns: None,
            stray_syns: 0,
        }
    }

    fn dir_of(&self, seg: &CapturedSegment) -> Dir {
        if seg.src == self.client.ip() && seg.sport == self.client.port() {
            Dir::ClientToServer
        } else {
            Dir::ServerToClient
        }
    }

    fn record(&self, end: EndReason, cfg: &TrackerConfig) -> ConnRecord {
        let c = &self.dirs[0].stats;
        let s = &self.dirs[1].stats;
        let negotiated = Negotiated {
            window_scale: match (c.window_scale, s.window_scale) {
                (Some(a), Some(b)) => Some((a, b)),
                _ => None,
            },
            sack: c.sack_permitted && s.sack_permitted,
            timestamps: c.timestamps && s.timestamps,
            mss: [c.mss, s.mss],
        };
        ConnRecord {
            conn_id: self.id,
            client: self.client,
            server: self.server,
            initiator_known: self.initiator_known,
            handshake_seen: c.isn.is_some() && s.isn.is_some(),
            first_ns: self.first_ns,
            last_ns: self.last_ns,
            dirs: [*c, *s],
            negotiated,
            handshake: self.handshake,
            vantage: classify_vantage(&self.handshake, cfg.vantage_near_zero_fraction),
            closed: self.closed_ns.is_some(),
            stray_syns: self.stray_syns,
            end,
        }
    }
}

/// The connection tracker.
#[derive(Debug)]
pub struct ConnTracker {
    cfg: TrackerConfig,
    conns: FxHashMap<FlowKey, Conn>,
    idle_q: VecDeque<(u64, FlowKey, u64)>,
    closed_q: VecDeque<(u64, FlowKey, u64)>,
    finished: Vec<ConnRecord>,
    next_id: u64,
    now: u64,
    stats: TrackerStats,
}

impl Default for ConnTracker {
    fn default() -> Self {
        ConnTracker::new(TrackerConfig::default())
    }
}

impl ConnTracker {
    pub fn new(cfg: TrackerConfig) -> ConnTracker {
        ConnTracker {
            cfg,
            conns: FxHashMap::default(),
            idle_q: VecDeque::new(),
            closed_q: VecDeque::new(),
            finished: Vec::new(),
            next_id: 0,
            now: 0,
            stats: TrackerStats::default(),
        }
    }

    pub fn stats(&self) -> TrackerStats {
        let mut s = self.stats;
        s.active = self.conns.len() as u64;
        s
    }

    /// Number of connections currently held.
    pub fn active(&self) -> usize {
        self.conns.len()
    }

    /// Records of connections evicted or replaced so far (drain regularly to keep memory
    /// bounded).
    pub fn drain_finished(&mut self) -> std::vec::Drain<'_, ConnRecord> {
        self.finished.drain(..)
    }

    /// Ends tracking: returns all records not yet drained, the still-open connections last
    /// (as `EndOfCapture`), ordered by `conn_id`.
    pub fn finish(mut self) -> Vec<ConnRecord> {
        let mut out = std::mem::take(&mut self.finished);
        let cfg = self.cfg;
        out.extend(self.conns.drain().map(|(_, c)| c.record(EndReason::EndOfCapture, &cfg)));
        out.sort_by_key(|r| r.conn_id);
        out
    }

    fn expire(&mut self) {
        let now = self.now;
        while let Some(&(deadline, key, id)) = self.closed_q.front() {
            if deadline > now {
                break;
            }
            self.closed_q.pop_front();
            if let Some(c) = self.conns.get(&key) {
                if c.id == id {
                    if let Some(t) = c.closed_ns {
                        if t.saturating_add(self.cfg.closed_timeout_ns) <= now {
                            self.evict(key, EndReason::Closed);
                        }
                    }
                }
            }
        }
        while let Some(&(deadline, key, id)) = self.idle_q.front() {
            if deadline > now {
                break;
            }
            self.idle_q.pop_front();
            let Some(c) = self.conns.get(&key) else { continue };
            if c.id != id {
                continue;
            }
            let due = c.last_ns.saturating_add(self.cfg.idle_timeout_ns);
            if due <= now {
                self.evict(key, EndReason::Idle);
            } else {
                self.idle_q.push_back((due, key, id));
            }
        }
    }

    fn evict(&mut self, key: FlowKey, why: EndReason) {
        if let Some(c) = self.conns.remove(&key) {
            match why {
                EndReason::Closed => self.stats.evicted_closed += 1,
                EndReason::Idle => self.stats.evicted_idle += 1,
                EndReason::Replaced => self.stats.replaced += 1,
                EndReason::EndOfCapture => {}
            }
            self.finished.push(c.record(why, &self.cfg));
        }
    }

    fn create(&mut self, key: FlowKey, seg: &CapturedSegment) {
        let id = self.next_id;
        self.next_id += 1;
        self.stats.connections += 1;
        self.conns.insert(key, Conn::new(id, seg));
        self.stats.peak_active = self.stats.peak_active.max(self.conns.len() as u64);
        self.idle_q.push_back((self.now.saturating_add(self.cfg.idle_timeout_ns), key, id));
    }

    /// Feeds one segment (in capture order) and returns its connection and kind.
    pub fn observe(&mut self, seg: &CapturedSegment) -> Observation {
        self.now = self.now.max(seg.ts_ns);
        self.expire();
        let key = FlowKey::of(seg);
        let f = seg.segment.flags;
        let pure_syn = f.contains(TcpFlags::SYN) && !f.contains(TcpFlags::ACK);
        let mut new_connection = false;
        let mut stray_syn = false;
        match self.conns.get(&key) {
            None => {
                self.create(key, seg);
                new_connection = true;
            }
            Some(c) if pure_syn => {
                let d = &c.dirs[c.dir_of(seg).index()].stats;
                if d.isn != Some(seg.segment.seq.0) {
                    let closed = c.closed_ns.is_some();
                    let idle = seg.ts_ns.saturating_sub(c.last_ns) >= self.cfg.reuse_idle_ns;
                    let no_data = c.dirs[0].stats.data_segments == 0 && c.dirs[1].stats.data_segments == 0;
                    let never_established = !c.synack_seen && no_data;
                    if closed || idle || never_established {
                        self.evict(key, EndReason::Replaced);
                        self.create(key, seg);
                        new_connection = true;
                    } else {
                        stray_syn = true;
                    }
                }
            }
            Some(_) => {}
        }
        let closed_q = &mut self.closed_q;
        let Some(c) = self.conns.get_mut(&key) else {
            // Unreachable: the connection was just found or created.
            return Observation {
                conn_id: u64::MAX,
                dir: Dir::ClientToServer,
                kind: SegKind::PureAck,
                new_connection,
                rel_seq: 0,
                rel_ack: None,
                oversized: false,
                repeats_sent_data: false,
            };
        };
        if stray_syn {
            c.stray_syns += 1;
            self.stats.stray_syns += 1;
        }
        let obs = update(c, seg, stray_syn, new_connection);
        if obs.kind_closes {
            closed_q.push_back((seg.ts_ns.saturating_add(self.cfg.closed_timeout_ns), key, c.id));
        }
        obs.obs
    }
}

struct Update {
    obs: Observation,
    /// This segment closed the connection.
    kind_closes: bool,
}

/// The few fields of the other direction that classifying a segment needs (copied instead
/// of the whole per-direction state).
#[derive(Copy, Clone)]
struct PeerView {
    isn: Option<u32>,
    base_seq: u32,
    seen: bool,
    mss: Option<u16>,
    fin_seen: bool,
    ack_seen: bool,
    last_ack: SeqNum,
    last_window: u16,
}

impl PeerView {
    #[inline]
    fn of(d: &DirState) -> PeerView {
        PeerView {
            isn: d.stats.isn,
            base_seq: d.stats.base_seq,
            seen: d.seen,
            mss: d.stats.mss,
            fin_seen: d.stats.fin_ns.is_some(),
            ack_seen: d.ack_seen,
            last_ack: d.last_ack,
            last_window: d.last_window,
        }
    }
}

fn update(c: &mut Conn, seg: &CapturedSegment, stray_syn: bool, new_connection: bool) -> Update {
    let s = &seg.segment;
    let f = s.flags;
    let ts = seg.ts_ns;
    let dir = c.dir_of(seg);
    let (i, j) = (dir.index(), dir.reverse().index());
    c.last_ns = c.last_ns.max(ts);
    let peer = PeerView::of(&c.dirs[j]);
    let d = &mut c.dirs[i];
    d.stats.packets += 1;
    d.stats.first_ns.get_or_insert(ts);
    d.stats.last_ns = Some(ts);
    if seg.tso {
        d.stats.tso_segments += 1;
    }
    let syn = f.contains(TcpFlags::SYN);
    let ack = f.contains(TcpFlags::ACK);
    let rst = f.contains(TcpFlags::RST);
    let fin = f.contains(TcpFlags::FIN);

    if syn && !stray_syn {
        if d.stats.isn != Some(s.seq.0) {
            d.stats.isn = Some(s.seq.0);
            d.stats.base_seq = s.seq.0;
            d.snd_max = s.seq + 1;
        }
        d.seen = true;
        d.stats.mss = s.options.mss;
        d.stats.window_scale = s.options.window_scale;
        d.stats.sack_permitted = s.options.sack_permitted;
        d.stats.timestamps = s.options.timestamps.is_some();
        if ack {
            c.synack_seen = true;
            if c.handshake.ack_ns.is_none() {
                c.handshake.synack_first_ns.get_or_insert(ts);
                c.handshake.synack_ns = Some(ts);
            }
        } else if c.handshake.synack_ns.is_none() {
            c.handshake.syn_ns = Some(ts);
        }
    } else if !d.seen {
        d.seen = true;
        // Provisional ISN: one before the first byte seen, which is then relative seq 1.
        d.stats.base_seq = s.seq.0.wrapping_sub(1);
        d.snd_max = s.seq;
    }
    // The client's ACK completing the handshake.
    if dir == Dir::ClientToServer
        && !syn
        && ack
        && c.synack_seen
        && c.handshake.ack_ns.is_none()
        && c.handshake.synack_ns.is_some()
    {
        if let Some(server_isn) = peer.isn {
            if s.ack == SeqNum(server_isn) + 1 {
                c.handshake.ack_ns = Some(ts);
            }
        }
    }

    let d = &mut c.dirs[i];
    let peer_zero_window = peer.ack_seen && peer.last_window == 0;
    let peer_acked_all = peer.ack_seen && peer.last_ack == d.snd_max;
    let mut oversized = false;
    let kind = if rst {
        SegKind::Rst
    } else if syn {
        if ack {
            SegKind::SynAck
        } else {
            SegKind::Syn
        }
    } else if !fin && s.len <= 1 && s.seq + 1 == d.snd_max && peer_acked_all && !new_connection {
        if peer_zero_window && s.len == 0 {
            SegKind::WindowProbe
        } else {
            SegKind::KeepAlive
        }
    } else if !fin && s.len == 1 && peer_zero_window && s.seq == peer.last_ack {
        SegKind::WindowProbe
    } else if s.len > 0 {
        SegKind::Data
    } else if fin {
        SegKind::Fin
    } else {
        SegKind::PureAck
    };
    let repeats_sent_data = kind == SegKind::Data && s.seq.lt(d.snd_max);
    match kind {
        SegKind::Data => {
            d.stats.data_segments += 1;
            d.stats.payload_bytes += s.len as u64;
            if let Some(mss) = peer.mss {
                if s.len > mss as u32 {
                    oversized = true;
                    d.stats.oversized_segments += 1;
                }
            }
            if peer.fin_seen {
                d.stats.data_after_peer_fin = true;
            }
        }
        SegKind::WindowProbe => d.stats.window_probes += 1,
        SegKind::KeepAlive => d.stats.keepalives += 1,
        SegKind::PureAck => d.stats.pure_acks += 1,
        _ => {}
    }
    if !syn && !rst && kind != SegKind::KeepAlive {
        let pay_end = s.seq + s.len;
        if pay_end.gt(d.snd_max) {
            let start = if s.seq.gt(d.snd_max) { s.seq } else { d.snd_max };
            if kind == SegKind::Data {
                d.stats.unique_bytes += (pay_end - start) as u64;
            }
            d.snd_max = pay_end;
        }
        if fin {
            d.stats.fin_ns.get_or_insert(ts);
            let fin_end = pay_end + 1;
            if fin_end.gt(d.snd_max) {
                d.snd_max = fin_end;
            }
        }
    }
    if rst {
        d.stats.rst_ns.get_or_insert(ts);
    }
    if ack && !rst {
        d.ack_seen = true;
        d.last_ack = s.ack;
        d.last_window = s.window;
        if s.window == 0 && !syn {
            d.stats.zero_window_adverts += 1;
        }
    }
    let rel_seq = s.seq - SeqNum(d.stats.base_seq);
    let rel_ack = if ack && peer.seen { Some(s.ack - SeqNum(peer.base_seq)) } else { None };
    let mut kind_closes = false;
    if c.closed_ns.is_none() {
        let both_fin = c.dirs[0].stats.fin_ns.is_some() && c.dirs[1].stats.fin_ns.is_some();
        if rst || both_fin {
            c.closed_ns = Some(ts);
            kind_closes = true;
        }
    }
    Update {
        obs: Observation {
            conn_id: c.id,
            dir,
            kind,
            new_connection,
            rel_seq,
            rel_ack,
            oversized,
            repeats_sent_data,
        },
        kind_closes,
    }
}

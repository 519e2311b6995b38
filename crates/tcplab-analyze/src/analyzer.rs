//! The driver: one pass over each capture, reader → connection tracker → per-connection
//! sender replay, finalising and dropping a connection's state as soon as the tracker
//! finishes it (so memory is bounded by the concurrent connections and their windows, not
//! by the capture's length).
//!
//! Vantage (issue 5 item 3): with `Vantage::Auto` each connection's capture position comes
//! from its handshake timing (`tcplab_pcap::classify_vantage`, Rewaskar et al. §IV-A: the
//! monitor sees the SYN→SYN-ACK gap ≈ RTT near the client, the SYN-ACK→ACK gap ≈ RTT near
//! the server, both in between). Without a complete handshake the position is unknown and
//! the middle rules are assumed (they claim least: no rule that needs the sender's own view
//! is used). A forced vantage `sender` / `receiver` names the position relative to the first
//! direction that carries data; the other direction gets the opposite; `middle` applies to
//! both. Which was assumed is reported per connection (`vantage`, `vantage_source`).

use std::sync::Arc;

use rustc_hash::FxHashMap;
use tcplab_pcap::{
    classify_vantage, CaptureReader, ConnRecord, ConnTracker, Dir, HandshakeTiming, Observation, SegKind,
    TrackerConfig, Vantage, NEAR_ZERO_FRACTION,
};
use tcplab_tcp::TcpFlags;

use crate::model::SenderModel;
use crate::rtt::handshake_rtt_ns;
use crate::sender_replay::{DirReplay, Position, RetxOut};

/// `--vantage`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VantageChoice {
    Auto,
    Sender,
    Receiver,
    Middle,
}

impl VantageChoice {
    pub fn parse(s: &str) -> Option<VantageChoice> {
        match s {
            "auto" => Some(VantageChoice::Auto),
            "sender" => Some(VantageChoice::Sender),
            "receiver" => Some(VantageChoice::Receiver),
            "middle" => Some(VantageChoice::Middle),
            _ => None,
        }
    }
}

/// How the position of a direction was obtained.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VantageSource {
    /// From the handshake timing.
    Detected,
    /// Given with `--vantage`.
    Forced,
    /// No complete handshake: middle rules assumed.
    Assumed,
}

impl VantageSource {
    pub const fn name(self) -> &'static str {
        match self {
            VantageSource::Detected => "detected",
            VantageSource::Forced => "forced",
            VantageSource::Assumed => "assumed",
        }
    }
}

/// Settings of one analysis.
#[derive(Clone, Debug)]
pub struct AnalyzeConfig {
    pub vantage: VantageChoice,
    pub model: Arc<dyn SenderModel>,
    pub tracker: TrackerConfig,
    pub reader: tcplab_pcap::ReaderConfig,
}

impl Default for AnalyzeConfig {
    fn default() -> Self {
        AnalyzeConfig {
            vantage: VantageChoice::Auto,
            model: Arc::new(crate::model::ConfigModel::default()),
            tracker: TrackerConfig::default(),
            reader: tcplab_pcap::ReaderConfig::default(),
        }
    }
}

/// A retransmission with its connection.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RetxRow {
    pub capture: u32,
    pub conn_id: u64,
    pub dir: Dir,
    pub vantage: Position,
    pub rtt_ns: Option<u64>,
    pub r: RetxOut,
}

/// A finished connection with what the replay adds to the tracker's record.
#[derive(Clone, Debug)]
pub struct ConnRow {
    pub capture: u32,
    pub record: ConnRecord,
    pub positions: [Option<(Position, VantageSource)>; 2],
    pub counters: [crate::sender_replay::DirCounters; 2],
    pub rtt_handshake_ns: Option<u64>,
    /// Capture-point RTT samples of the direction with most data: min, mean, max, count.
    pub rtt_min_ns: Option<u64>,
    pub rtt_mean_ns: Option<u64>,
    pub rtt_max_ns: Option<u64>,
    pub rtt_samples: u64,
    pub srtt_ns: Option<u64>,
    /// Quick-Start (RFC 4782): the first Request's rate and the last Response's echoed rate,
    /// bytes/s (`tcplab_pcap::quickstart`).
    pub qs: QsSeen,
}

/// Quick-Start options seen on a connection.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct QsSeen {
    pub requested: Option<u64>,
    pub approved: Option<u64>,
}

impl QsSeen {
    fn observe(&mut self, s: &tcplab_tcp::Segment) {
        if let Some(q) = s.qs_request {
            if q.func == tcplab_tcp::startup::quickstart::QsFunc::Request && self.requested.is_none() {
                self.requested = Some(q.rate.bytes_per_sec());
            }
        }
        if let Some(r) = s.options.quick_start {
            self.approved = Some(r.rate.bytes_per_sec());
        }
    }
}

#[derive(Debug)]
struct ConnState {
    syn_ns: Option<u64>,
    /// The last SYN-ACK before the client's ACK, and the first after the last SYN (Karn's
    /// rule for the handshake, see tcplab_pcap::vantage).
    synack_ns: Option<u64>,
    synack_first_ns: Option<u64>,
    ack_ns: Option<u64>,
    /// (SACK permitted, timestamps) offered in the SYN / SYN-ACK of each direction.
    offered: [Option<(bool, bool)>; 2],
    dirs: [Option<DirReplay>; 2],
    positions: [Option<(Position, VantageSource)>; 2],
    last_ns: u64,
    qs: QsSeen,
}

impl ConnState {
    fn new() -> ConnState {
        ConnState { syn_ns: None, synack_ns: None, synack_first_ns: None, ack_ns: None, offered: [None; 2], dirs: [None, None], positions: [None; 2], last_ns: 0, qs: QsSeen::default() }
    }

    fn handshake_rtt(&self) -> Option<u64> {
        handshake_rtt_ns(self.syn_ns, self.synack_first_ns, self.synack_ns, self.ack_ns)
    }

    fn position_for(&mut self, d: Dir, choice: VantageChoice) -> (Position, VantageSource) {
        if let Some(p) = self.positions[d.index()] {
            return p;
        }
        let other = self.positions[d.reverse().index()];
        let p = match choice {
            VantageChoice::Middle => (Position::Middle, VantageSource::Forced),
            VantageChoice::Sender | VantageChoice::Receiver => match other {
                Some((Position::Sender, _)) => (Position::Receiver, VantageSource::Forced),
                Some((Position::Receiver, _)) => (Position::Sender, VantageSource::Forced),
                _ if choice == VantageChoice::Sender => (Position::Sender, VantageSource::Forced),
                _ => (Position::Receiver, VantageSource::Forced),
            },
            VantageChoice::Auto => {
                let t = HandshakeTiming { syn_ns: self.syn_ns, synack_ns: self.synack_ns, synack_first_ns: self.synack_first_ns, ack_ns: self.ack_ns };
                match classify_vantage(&t, NEAR_ZERO_FRACTION).for_direction(d) {
                    Vantage::Sender => (Position::Sender, VantageSource::Detected),
                    Vantage::Receiver => (Position::Receiver, VantageSource::Detected),
                    Vantage::Middle => (Position::Middle, VantageSource::Detected),
                    Vantage::Unknown => (Position::Middle, VantageSource::Assumed),
                }
            }
        };
        self.positions[d.index()] = Some(p);
        p
    }
}

/// Analysis of one capture file, fed segment by segment.
#[derive(Debug)]
pub struct FileAnalyzer {
    capture: u32,
    cfg: AnalyzeConfig,
    tracker: ConnTracker,
    conns: FxHashMap<u64, ConnState>,
    scratch: Vec<RetxOut>,
    finished: Vec<ConnRecord>,
    pub retransmissions: Vec<RetxRow>,
    pub connections: Vec<ConnRow>,
    pub peak_connections: usize,
}

impl FileAnalyzer {
    pub fn new(capture: u32, cfg: AnalyzeConfig) -> FileAnalyzer {
        FileAnalyzer {
            capture,
            tracker: ConnTracker::new(cfg.tracker),
            cfg,
            conns: FxHashMap::default(),
            scratch: Vec::new(),
            finished: Vec::new(),
            retransmissions: Vec::new(),
            connections: Vec::new(),
            peak_connections: 0,
        }
    }

    /// Reads the whole capture.
    pub fn run(&mut self, reader: &mut CaptureReader) {
        while let Some(seg) = reader.next_segment() {
            self.on_segment(&seg);
        }
    }

    /// One segment, in capture order.
    pub fn on_segment(&mut self, seg: &tcplab_pcap::CapturedSegment) {
        let obs = self.tracker.observe(seg);
        self.finished.extend(self.tracker.drain_finished());
        if !self.finished.is_empty() {
            let mut done = std::mem::take(&mut self.finished);
            for rec in &done {
                self.finalize(rec);
            }
            done.clear();
            self.finished = done;
        }
        self.apply(seg, &obs);
        self.peak_connections = self.peak_connections.max(self.conns.len());
    }

    fn apply(&mut self, seg: &tcplab_pcap::CapturedSegment, obs: &Observation) {
        let t = seg.ts_ns;
        let s = &seg.segment;
        let choice = self.cfg.vantage;
        let model = &self.cfg.model;
        let c = self.conns.entry(obs.conn_id).or_insert_with(ConnState::new);
        c.last_ns = c.last_ns.max(t);
        let d = obs.dir;
        c.qs.observe(s);
        match obs.kind {
            SegKind::Syn => {
                // The last SYN, and the last SYN-ACK after it, before the client's ACK.
                if c.ack_ns.is_none() {
                    c.syn_ns = Some(t);
                    c.synack_ns = None;
                    c.synack_first_ns = None;
                }
                c.offered[d.index()] = Some((s.options.sack_permitted, s.options.timestamps.is_some()));
            }
            SegKind::SynAck => {
                if c.ack_ns.is_none() {
                    c.synack_first_ns.get_or_insert(t);
                    c.synack_ns = Some(t);
                }
                c.offered[d.index()] = Some((s.options.sack_permitted, s.options.timestamps.is_some()));
            }
            _ => {
                if d == Dir::ClientToServer && c.synack_ns.is_some() && c.ack_ns.is_none() && s.flags.contains(TcpFlags::ACK) {
                    c.ack_ns = Some(t);
                }
            }
        }
        // The ACK field acknowledges the other direction's data.
        if let Some(rel_ack) = obs.rel_ack {
            if s.flags.contains(TcpFlags::ACK) && !s.flags.contains(TcpFlags::RST) {
                let hs = c.handshake_rtt();
                if let Some(r) = c.dirs[d.reverse().index()].as_mut() {
                    r.on_ack(t, rel_ack, s);
                    r.drain_done(&mut self.scratch);
                    let pos = r.position();
                    let rtt = hs.or(r.rtt.min_ns.filter(|_| pos == Position::Sender));
                    for out in self.scratch.drain(..) {
                        self.retransmissions.push(RetxRow { capture: self.capture, conn_id: obs.conn_id, dir: d.reverse(), vantage: pos, rtt_ns: rtt, r: out });
                    }
                }
            }
        }
        if obs.kind == SegKind::Data && s.len > 0 {
            if c.dirs[d.index()].is_none() {
                let (pos, _) = c.position_for(d, choice);
                let both = |k: usize| c.offered[k];
                let (sack, ts) = match (both(0), both(1)) {
                    (Some(a), Some(b)) => (a.0 && b.0, a.1 && b.1),
                    // No handshake: trust what the segments carry (SACK blocks / timestamps
                    // will simply be absent when not in use).
                    _ => (true, s.options.timestamps.is_some()),
                };
                let mut r = DirReplay::new(pos, sack, ts, model.as_ref());
                // The handshake gap that contains this direction's sender: SYN-ACK → ACK for
                // client data (the client's round trip), SYN → SYN-ACK for server data.
                let gap = match (d, c.syn_ns, c.synack_ns, c.ack_ns) {
                    (Dir::ClientToServer, _, Some(sa), Some(a)) => a.saturating_sub(sa),
                    (Dir::ServerToClient, Some(sy), Some(sa), _) => c.synack_first_ns.unwrap_or(sa).saturating_sub(sy),
                    _ => 0,
                };
                r.set_upstream_base(gap);
                r.set_handshake_rtt(c.handshake_rtt());
                c.dirs[d.index()] = Some(r);
            }
            if let Some(r) = c.dirs[d.index()].as_mut() {
                r.on_data(t, seg.frame, s.seq.0, obs.rel_seq, s.len, s.options.timestamps.map(|x| x.0));
            }
        }
    }

    fn finalize(&mut self, rec: &ConnRecord) {
        let Some(mut c) = self.conns.remove(&rec.conn_id) else {
            return;
        };
        let hs = c.handshake_rtt();
        let mut counters = [Default::default(); 2];
        for (k, slot) in c.dirs.iter_mut().enumerate() {
            if let Some(r) = slot.as_mut() {
                r.finish(c.last_ns, &mut self.scratch);
                let pos = r.position();
                let rtt = hs.or(r.rtt.min_ns.filter(|_| pos == Position::Sender));
                let dir = if k == 0 { Dir::ClientToServer } else { Dir::ServerToClient };
                for out in self.scratch.drain(..) {
                    self.retransmissions.push(RetxRow { capture: self.capture, conn_id: rec.conn_id, dir, vantage: pos, rtt_ns: rtt, r: out });
                }
                counters[k] = r.counters;
            }
        }
        let main = if rec.dirs[1].payload_bytes > rec.dirs[0].payload_bytes { 1 } else { 0 };
        let rtt = c.dirs[main].as_ref().or(c.dirs[1 - main].as_ref()).map(|r| r.rtt.clone());
        self.connections.push(ConnRow {
            capture: self.capture,
            record: *rec,
            positions: c.positions,
            counters,
            rtt_handshake_ns: hs,
            rtt_min_ns: rtt.as_ref().and_then(|r| r.min_ns),
            rtt_mean_ns: rtt.as_ref().and_then(|r| r.mean_ns()),
            rtt_max_ns: rtt.as_ref().and_then(|r| r.max_ns),
            rtt_samples: rtt.as_ref().map_or(0, |r| r.samples),
            srtt_ns: rtt.as_ref().and_then(|r| r.srtt_ns()),
            qs: c.qs,
        });
    }

    /// End of the capture: finalise every connection still open.
    pub fn finish(mut self) -> (Vec<RetxRow>, Vec<ConnRow>, tcplab_pcap::TrackerStats, usize) {
        let stats = self.tracker.stats();
        let tracker = std::mem::replace(&mut self.tracker, ConnTracker::new(self.cfg.tracker));
        let mut recs = tracker.finish();
        recs.sort_by_key(|r| r.conn_id);
        for rec in &recs {
            self.finalize(rec);
        }
        self.retransmissions.sort_by_key(|r| (r.capture, r.r.frame));
        self.connections.sort_by_key(|c| c.record.conn_id);
        (self.retransmissions, self.connections, stats, self.peak_connections)
    }
}

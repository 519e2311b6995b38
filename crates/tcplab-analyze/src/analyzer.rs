//! The driver: one pass over each capture, reader → connection tracker → per-connection
//! sender replay, finalising and dropping a connection's state as soon as the tracker
//! finishes it (so memory is bounded by the concurrent connections and their windows, not
//! by the capture's length). [`FileAnalyzer::run`] reads and tracks on a second thread
//! while the replay runs on the calling one (`tcplab_pcap::pipeline`), when the machine has
//! a second core; the replay sees the same segments in the same order either way.
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
    classify_vantage, for_each_tracked, CaptureReader, ConnRecord, ConnTracker, Dir, HandshakeTiming, Observation,
    SegKind, Threading, TrackerConfig, Vantage, NEAR_ZERO_FRACTION,
};
use tcplab_tcp::TcpFlags;

use crate::infer::{syn, DirBank, Inference, PassiveHints};
use crate::model::{ModelPicker, SenderModel};
use crate::rtt::handshake_rtt_ns;
use crate::sender_replay::{Position, RetxOut};

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
    /// The sender model every connection is replayed with (`--model NAME`), unless
    /// `candidates` is set.
    pub model: Arc<dyn SenderModel>,
    /// `--model auto`: every connection is replayed through each of these and the model
    /// the inference (`infer`) picks classifies it.
    pub candidates: Option<Arc<[Arc<dyn SenderModel>]>>,
    /// Each data direction's own sender model, by its addresses (`--scenario`); a direction
    /// it does not know is replayed as above.
    pub picker: Option<Arc<dyn ModelPicker>>,
    pub tracker: TrackerConfig,
    pub reader: tcplab_pcap::ReaderConfig,
    /// Whether [`crate::analyze_paths`] reads and tracks on a second thread
    /// (`tcplab_pcap::pipeline`); the results are the same either way. Default `Auto`.
    pub threading: Threading,
}

impl Default for AnalyzeConfig {
    fn default() -> Self {
        AnalyzeConfig {
            vantage: VantageChoice::Auto,
            model: Arc::new(crate::model::ConfigModel::default()),
            candidates: None,
            picker: None,
            tracker: TrackerConfig::default(),
            reader: tcplab_pcap::ReaderConfig::default(),
            threading: Threading::Auto,
        }
    }
}

impl AnalyzeConfig {
    /// `--model auto` with the default candidates (`infer::DEFAULT_CANDIDATES`).
    pub fn auto() -> AnalyzeConfig {
        AnalyzeConfig { candidates: Some(crate::infer::default_candidates()), ..AnalyzeConfig::default() }
    }

    /// The models each direction is replayed through.
    fn models(&self) -> Arc<[Arc<dyn SenderModel>]> {
        self.candidates.clone().unwrap_or_else(|| Arc::from(vec![self.model.clone()]))
    }

    /// The model name shown in the summary: `auto` or the forced model's.
    pub fn model_label(&self) -> &str {
        if self.candidates.is_some() {
            "auto"
        } else {
            self.model.name()
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
    /// Sender inference per direction (`--model auto`; `None` with a forced model or no
    /// data in that direction).
    pub inference: [Option<Inference>; 2],
    /// Passive hints from each direction's SYN / SYN-ACK (`infer::hints`).
    pub hints: [Option<PassiveHints>; 2],
    /// The model `AnalyzeConfig::picker` gave each direction (its name), if any.
    pub picked: [Option<Arc<str>>; 2],
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

/// The handshake as the capture shows it: the times the handshake RTT is read from and the
/// options each end offered. Kept by the analyzer and by the what-if recorder alike.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Handshake {
    pub syn_ns: Option<u64>,
    /// The last SYN-ACK before the client's ACK, and the first after the last SYN (Karn's
    /// rule for the handshake, see tcplab_pcap::vantage).
    pub synack_ns: Option<u64>,
    pub synack_first_ns: Option<u64>,
    pub ack_ns: Option<u64>,
    /// (SACK permitted, timestamps) offered in the SYN / SYN-ACK of each direction.
    pub offered: [Option<(bool, bool)>; 2],
    /// The window shift each direction offered in its SYN / SYN-ACK (RFC 7323 §2.2).
    pub wscale: [Option<u8>; 2],
    /// Each direction's last window field (raw) and whether it came on a SYN (never scaled).
    pub window: [Option<(u16, bool)>; 2],
}

impl Handshake {
    /// Called for every segment of the connection, in capture order.
    pub fn observe(&mut self, kind: SegKind, d: Dir, t: u64, s: &tcplab_tcp::Segment) {
        if s.flags.contains(TcpFlags::ACK) || kind == SegKind::Syn {
            self.window[d.index()] = Some((s.window, kind == SegKind::Syn || kind == SegKind::SynAck));
        }
        if matches!(kind, SegKind::Syn | SegKind::SynAck) {
            self.wscale[d.index()] = s.options.window_scale;
        }
        match kind {
            SegKind::Syn => {
                // The last SYN, and the last SYN-ACK after it, before the client's ACK.
                if self.ack_ns.is_none() {
                    self.syn_ns = Some(t);
                    self.synack_ns = None;
                    self.synack_first_ns = None;
                }
                self.offered[d.index()] = Some((s.options.sack_permitted, s.options.timestamps.is_some()));
            }
            SegKind::SynAck => {
                if self.ack_ns.is_none() {
                    self.synack_first_ns.get_or_insert(t);
                    self.synack_ns = Some(t);
                }
                self.offered[d.index()] = Some((s.options.sack_permitted, s.options.timestamps.is_some()));
            }
            _ => {
                if d == Dir::ClientToServer && self.synack_ns.is_some() && self.ack_ns.is_none() && s.flags.contains(TcpFlags::ACK) {
                    self.ack_ns = Some(t);
                }
            }
        }
    }

    /// The window direction `d`'s sender learnt from its peer's last segment, scaled, and the
    /// shift of the peer's later windows (RFC 7323 §2.2-2.3: scaling only when both ends
    /// offered it, never on a SYN), as `Sender::on_established` takes it.
    pub fn peer_window(&self, d: Dir) -> Option<(u64, u8)> {
        let p = d.reverse().index();
        let shift = match (self.wscale[0], self.wscale[1]) {
            (Some(_), Some(_)) => self.wscale[p].unwrap_or(0).min(tcplab_tcp::config::MAX_WINDOW_SCALE),
            _ => 0,
        };
        self.window[p].map(|(w, syn)| (if syn { u64::from(w) } else { u64::from(w) << shift }, shift))
    }

    /// The handshake RTT (`rtt::handshake_rtt_ns`), when the capture shows enough of it.
    pub fn rtt_ns(&self) -> Option<u64> {
        handshake_rtt_ns(self.syn_ns, self.synack_first_ns, self.synack_ns, self.ack_ns)
    }
}

#[derive(Debug)]
struct ConnState {
    hs: Handshake,
    dirs: [Option<DirBank>; 2],
    positions: [Option<(Position, VantageSource)>; 2],
    last_ns: u64,
    qs: QsSeen,
    /// Capture times of the client's SYN copies (bounded, `infer::syn`).
    syn_times: Vec<u64>,
    hints: [Option<PassiveHints>; 2],
    picked: [Option<Arc<str>>; 2],
}

impl ConnState {
    fn new() -> ConnState {
        ConnState { hs: Handshake::default(), dirs: [None, None], positions: [None; 2], last_ns: 0, qs: QsSeen::default(), syn_times: Vec::new(), hints: [None, None], picked: [None, None] }
    }

    fn handshake_rtt(&self) -> Option<u64> {
        self.hs.rtt_ns()
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
                let t = HandshakeTiming { syn_ns: self.hs.syn_ns, synack_ns: self.hs.synack_ns, synack_first_ns: self.hs.synack_first_ns, ack_ns: self.hs.ack_ns };
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
    /// Each open connection's state, boxed: the map's buckets stay 16 bytes, so the lookup
    /// that every segment makes probes a table that fits in cache (the state itself is
    /// about a kilobyte, and the buckets of an unboxed map spread over all of it).
    conns: FxHashMap<u64, Box<ConnState>>,
    scratch: Vec<(RetxOut, Option<u64>)>,
    models: Arc<[Arc<dyn SenderModel>]>,
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
            models: cfg.models(),
            cfg,
            conns: FxHashMap::default(),
            scratch: Vec::new(),
            finished: Vec::new(),
            retransmissions: Vec::new(),
            connections: Vec::new(),
            peak_connections: 0,
        }
    }

    /// Reads the whole capture, the reader and the tracker on a second thread as
    /// `AnalyzeConfig::threading` says (by default when the machine has more than one core:
    /// `tcplab_pcap::pipeline`; the results are the same either way).
    pub fn run(&mut self, reader: &mut CaptureReader) {
        self.run_with(reader, self.cfg.threading);
    }

    /// Reads the whole capture with the given threading (`tcplab_pcap::for_each_tracked`):
    /// every segment is tracked, then the connections its arrival finished are finalised and
    /// the segment applied, exactly as [`FileAnalyzer::on_segment`] does.
    pub fn run_with(&mut self, reader: &mut CaptureReader, threading: Threading) {
        // The tracker runs where the reader runs; it is lent out for the pass and put back
        // for `finish`.
        let mut tracker = std::mem::replace(&mut self.tracker, ConnTracker::new(self.cfg.tracker));
        for_each_tracked(reader, &mut tracker, threading, |t| self.after_tracking(t.seg, &t.obs, t.finished));
        self.tracker = tracker;
    }

    /// One segment, in capture order. Returns the tracker's observation of it; the
    /// connections its arrival finished (finalised before it is applied) stay in
    /// [`FileAnalyzer::just_finished`] until the next call. The what-if recorder
    /// (`whatif`) follows the connections through these two instead of running a second
    /// tracker over the same packets.
    pub fn on_segment(&mut self, seg: &tcplab_pcap::CapturedSegment) -> Observation {
        let obs = self.tracker.observe(seg);
        self.finished.clear();
        self.finished.extend(self.tracker.drain_finished());
        let done = std::mem::take(&mut self.finished);
        self.after_tracking(seg, &obs, &done);
        self.finished = done;
        obs
    }

    /// The analysis of one tracked segment: the connections its arrival finished are
    /// finalised (before it is applied), then the segment is applied.
    fn after_tracking(&mut self, seg: &tcplab_pcap::CapturedSegment, obs: &Observation, finished: &[ConnRecord]) {
        for rec in finished {
            self.finalize(rec);
        }
        self.apply(seg, obs);
        self.peak_connections = self.peak_connections.max(self.conns.len());
    }

    /// How the replay of connection `conn_id`'s direction `d` is told its ACKs (None before
    /// that direction's first data): the what-if recorder applies the same
    /// (`sender_replay::AckVantage`).
    pub fn ack_vantage(&self, conn_id: u64, d: Dir) -> Option<crate::sender_replay::AckVantage> {
        self.conns.get(&conn_id).and_then(|c| c.dirs[d.index()].as_ref()).map(DirBank::ack_vantage)
    }

    /// The connections the last [`FileAnalyzer::on_segment`] finished, in the tracker's order.
    pub fn just_finished(&self) -> &[ConnRecord] {
        &self.finished
    }

    fn apply(&mut self, seg: &tcplab_pcap::CapturedSegment, obs: &Observation) {
        let t = seg.ts_ns;
        let s = &seg.segment;
        let choice = self.cfg.vantage;
        let c = self.conns.entry(obs.conn_id).or_insert_with(|| Box::new(ConnState::new()));
        c.last_ns = c.last_ns.max(t);
        let d = obs.dir;
        c.qs.observe(s);
        c.hs.observe(obs.kind, d, t, s);
        match obs.kind {
            SegKind::Syn => {
                if c.syn_times.len() < syn::MAX_SYN_COPIES && c.syn_times.last().map_or(true, |&l| t >= l) {
                    c.syn_times.push(t);
                }
                c.hints[d.index()] = PassiveHints::from_syn(seg.ttl_or_hlim, s, seg.syn_layout.kinds());
            }
            SegKind::SynAck => {
                if c.hints[d.index()].is_none() {
                    c.hints[d.index()] = PassiveHints::from_syn(seg.ttl_or_hlim, s, seg.syn_layout.kinds());
                }
            }
            _ => {}
        }
        // The ACK field acknowledges the other direction's data.
        if let Some(rel_ack) = obs.rel_ack {
            if s.flags.contains(TcpFlags::ACK) && !s.flags.contains(TcpFlags::RST) {
                let hs = c.handshake_rtt();
                if let Some(r) = c.dirs[d.reverse().index()].as_mut() {
                    r.on_ack(t, rel_ack, s, hs, &mut self.scratch);
                    let pos = r.position();
                    for (out, rtt) in self.scratch.drain(..) {
                        self.retransmissions.push(RetxRow { capture: self.capture, conn_id: obs.conn_id, dir: d.reverse(), vantage: pos, rtt_ns: rtt, r: out });
                    }
                }
            }
        }
        if obs.kind == SegKind::Data && s.len > 0 {
            if c.dirs[d.index()].is_none() {
                let (pos, _) = c.position_for(d, choice);
                let both = |k: usize| c.hs.offered[k];
                let (sack, ts) = match (both(0), both(1)) {
                    (Some(a), Some(b)) => (a.0 && b.0, a.1 && b.1),
                    // No handshake: trust what the segments carry (SACK blocks / timestamps
                    // will simply be absent when not in use).
                    _ => (true, s.options.timestamps.is_some()),
                };
                // The sender this direction's data came from, when the picker knows it.
                let picked = self.cfg.picker.as_ref().and_then(|p| {
                    p.pick(std::net::SocketAddr::new(seg.src, seg.sport), std::net::SocketAddr::new(seg.dst, seg.dport))
                });
                let models = match picked {
                    Some(m) => {
                        c.picked[d.index()] = Some(Arc::from(m.name()));
                        Arc::from(vec![m])
                    }
                    None => self.models.clone(),
                };
                let mut r = DirBank::new(pos, sack, ts, models.clone());
                if d == Dir::ClientToServer {
                    // The client's SYN back-off (`infer::syn`).
                    let cfgs: Vec<&tcplab_tcp::TcpConfig> = models.iter().map(|m| m.config()).collect();
                    let costs = syn::syn_costs(&c.syn_times, &cfgs);
                    if !costs.is_empty() && models.len() > 1 {
                        r.add_costs(&costs);
                    }
                }
                // The handshake gap that contains this direction's sender: SYN-ACK → ACK for
                // client data (the client's round trip), SYN → SYN-ACK for server data.
                let gap = match (d, c.hs.syn_ns, c.hs.synack_ns, c.hs.ack_ns) {
                    (Dir::ClientToServer, _, Some(sa), Some(a)) => a.saturating_sub(sa),
                    (Dir::ServerToClient, Some(sy), Some(sa), _) => c.hs.synack_first_ns.unwrap_or(sa).saturating_sub(sy),
                    _ => 0,
                };
                r.set_upstream_base(gap);
                r.set_handshake_rtt(c.handshake_rtt());
                if let Some((w, shift)) = c.hs.peer_window(d) {
                    r.set_peer_window(w, shift);
                }
                // The sender's handshake was retransmitted (RFC 6298 (5.7); qa finding: the
                // observer's `on_handshake_retransmitted` was never called): the client's SYN
                // copies, or a SYN-ACK captured more than once before the client's ACK.
                r.set_handshake_retransmitted(match d {
                    Dir::ClientToServer => c.syn_times.len() > 1,
                    Dir::ServerToClient => c.hs.synack_first_ns.is_some() && c.hs.synack_first_ns != c.hs.synack_ns,
                });
                c.dirs[d.index()] = Some(r);
            }
            if let Some(r) = c.dirs[d.index()].as_mut() {
                if s.flags.contains(TcpFlags::FIN) {
                    r.note_fin();
                }
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
        let mut rtts = [None, None];
        let mut inference = [None, None];
        for (k, slot) in c.dirs.iter_mut().enumerate() {
            let Some(res) = slot.take().and_then(|r| r.finish(c.last_ns, hs, c.hints[k].as_ref())) else {
                continue;
            };
            let dir = if k == 0 { Dir::ClientToServer } else { Dir::ServerToClient };
            for (out, rtt) in res.rows {
                self.retransmissions.push(RetxRow { capture: self.capture, conn_id: rec.conn_id, dir, vantage: res.position, rtt_ns: rtt, r: out });
            }
            counters[k] = res.counters;
            rtts[k] = Some(res.rtt);
            inference[k] = res.inference;
        }
        let main = if rec.dirs[1].payload_bytes > rec.dirs[0].payload_bytes { 1 } else { 0 };
        let rtt = rtts[main].take().or(rtts[1 - main].take());
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
            inference,
            hints: c.hints,
            picked: c.picked,
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

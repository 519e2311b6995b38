//! What-if replay (Rewaskar, Kaur & Smith (003) §IV-C, §IV-D, §V): every connection of a
//! capture replayed under other values of the six loss-detection parameters D, a, b, m, k
//! and minRTO, and the change in its duration.
//!
//! One pass over each capture drives the analyzer ([`crate::FileAnalyzer`], which says for
//! every retransmission its cause and whether it was needed) and, fed by the analyzer's own
//! connection tracker (the observation of each segment and the connections it finished:
//! every packet is tracked once), a
//! [`trace::Recorder`] per data direction: the engine's sender model in observe mode
//! (`tcplab_tcp::observe::Observer`, the simulator's rules), which records the RTT samples,
//! the timer backoffs and one episode per advance of SND.UNA. When a connection finishes,
//! [`replay`] replays it under each [`grid::GridPoint`] — the configuration's own RTO
//! estimator and timer clock from the engine, its D rule — against the model's own replay,
//! and turns the differences into a change in duration with 003's eqs. (1)-(3)
//! ([`cost`]); [`bestcase`] adds 003 §V-A-3's bound. The connection's state is dropped
//! then, and its rows (per row only what changes with the point: its [`Events`] and the
//! duration change, 48 bytes; the connection's facts once, [`ConnOut`]) are placed in the
//! table's order, (capture, conn_id, point): `conn_id`s number the connections in order of
//! first packet, so a connection that finishes while an older one is still open waits for
//! it. [`whatif_stream`] hands the placed rows to a sink in batches of whole connections
//! ([`RowBatch`]; the binding writes each as a Parquet row group) and keeps none;
//! [`whatif_paths`] keeps them all (tests, small captures). Memory is then the open
//! connections, the rows of connections waiting for an older one, and one batch — not the
//! grid times the capture (docs/benchmarks.md, "What-if replay", measures it). The table is
//! built column by column by [`output`].
//!
//! 003 §IV-C's assumption holds throughout: "RTTs and losses are independent of TCP loss
//! detection/recovery behavior" (docs/validation.md checks it against the simulator).
//!
//! | file | what |
//! |---|---|
//! | [`grid`] | the grid points, 003 §V-B/§V-C/§V-D's values, `--only` |
//! | [`trace`] | what is recorded per connection |
//! | [`replay`] | one configuration against the model: detections, events, delta |
//! | [`cost`] | eqs. (1)-(3) |
//! | [`bestcase`] | the Best-Case bound |
//! | [`output`] | the `whatif` table |

pub mod bestcase;
pub mod cost;
pub mod grid;
pub mod output;
pub mod replay;
pub mod trace;

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;

use rustc_hash::FxHashMap;
use tcplab_pcap::{ConnRecord, SegKind};
use tcplab_tcp::{SeqNum, TcpConfig, TcpFlags};
use tcplab_time::{SimDuration, SimTime};

use crate::analyzer::{AnalyzeConfig, ConnRow, FileAnalyzer, RetxRow};
use crate::output::CaptureNames;
use crate::AnalyzeError;
use grid::GridPoint;
pub use replay::Events;
use replay::{Detect, Effects, Verdict};
use trace::{DirTrace, Recorder};

/// Settings of a what-if run.
#[derive(Clone, Debug)]
pub struct WhatIfConfig {
    pub analyze: AnalyzeConfig,
    pub grid: Vec<GridPoint>,
}

/// One connection under one grid point, as a row of the table (a view built by
/// [`WhatIf::rows`]; the result is stored column by column).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WhatIfRow {
    pub capture: u32,
    pub conn_id: u64,
    /// Index into [`WhatIf::models`].
    pub model: u32,
    /// Index into the grid.
    pub point: u32,
    pub events: Events,
    pub delta_s: f64,
    pub delta_rtts: Option<f64>,
    pub delta_pct: Option<f64>,
    pub conn: ConnFacts,
}

/// One finished connection: its facts (once, not per row).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ConnOut {
    pub capture: u32,
    pub conn_id: u64,
    /// Index into [`WhatIf::models`].
    pub model: u32,
    pub facts: ConnFacts,
}

/// Rows of whole connections in the table's order: connection `i`'s rows are
/// `i * n .. (i + 1) * n` of `events` and `delta_s` (`n` grid points, in point order). What
/// changes from row to row is only the [`Events`] and the duration change (48 bytes a row);
/// the connection's facts and the point's labels are joined in when the table is built
/// ([`output::whatif_table`]).
#[derive(Debug, Default)]
pub struct RowBatch {
    pub conns: Vec<ConnOut>,
    pub events: Vec<Events>,
    pub delta_s: Vec<f64>,
}

impl RowBatch {
    pub fn num_rows(&self) -> usize {
        self.delta_s.len()
    }
    pub fn clear(&mut self) {
        self.conns.clear();
        self.events.clear();
        self.delta_s.clear();
    }
    fn append(&mut self, o: &mut RowBatch) {
        self.conns.append(&mut o.conns);
        self.events.append(&mut o.events);
        self.delta_s.append(&mut o.delta_s);
    }
}

/// What the table's labels need besides the rows: the captures read so far, the models and
/// the grid.
#[derive(Copy, Clone, Debug)]
pub struct TableMeta<'a> {
    pub captures: &'a [CaptureNames],
    pub models: &'a [(String, TcpConfig)],
    pub grid: &'a [GridPoint],
}

/// Where [`whatif_stream`] hands the rows: called with the next rows in the table's order
/// (whole connections), then the batch is cleared; `Break` stops the pass.
pub type RowSink<'s> = dyn FnMut(&TableMeta<'_>, &RowBatch) -> ControlFlow<()> + 's;

/// Where a connection's model came from (column `model_source`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ModelSource {
    /// Named by the user (`--model NAME`).
    #[default]
    Forced,
    /// `--model auto`: the inference named it (`infer`).
    Inferred,
    /// `--model auto`, the inference said `unknown`: the best-scoring candidate's replay
    /// (the one that classified the connection) is used.
    BestCandidate,
}

impl ModelSource {
    pub const fn name(self) -> &'static str {
        match self {
            ModelSource::Forced => "forced",
            ModelSource::Inferred => "inferred",
            ModelSource::BestCandidate => "best_candidate",
        }
    }
}

/// What the report needs about the connection itself (repeated on each of its rows).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ConnFacts {
    pub model_source: ModelSource,
    pub duration_s: f64,
    pub rtt_mean_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
    pub data_bytes: u64,
    /// Loss detections (episodes with a retransmission) and those of them that were needed.
    pub detections: u32,
    pub lost: u32,
    /// 003 §V-A-3, as a change (≤ 0).
    pub best_case_s: f64,
    pub best_case_rtts: Option<f64>,
    pub best_case_pct: Option<f64>,
    /// How the model's own replay detected each lost / not lost head (agreement check).
    pub base_rto: u32,
    pub base_fr: u32,
}

impl ConnFacts {
    /// `delta_rtts`: a change in RTTs of the connection (none without an RTT sample).
    pub fn in_rtts(&self, delta_s: f64) -> Option<f64> {
        self.rtt_mean_s.filter(|r| *r > 0.0).map(|r| delta_s / r)
    }
    /// `delta_pct`: a change in percent of the connection's duration.
    pub fn in_pct(&self, delta_s: f64) -> Option<f64> {
        (self.duration_s > 0.0).then(|| 100.0 * delta_s / self.duration_s)
    }
}

/// The result: the analysis (retransmissions and connections) and the what-if rows.
#[derive(Debug)]
pub struct WhatIf {
    pub captures: Vec<CaptureNames>,
    /// Per input: the one-line reason it could not be read.
    pub errors: Vec<Option<String>>,
    pub retransmissions: Vec<RetxRow>,
    pub connections: Vec<ConnRow>,
    /// The connections replayed and their rows, ordered by (capture, conn_id, point)
    /// ([`whatif_paths`]; empty from [`whatif_stream`], which hands them to its sink).
    pub rows: RowBatch,
    pub models: Vec<(String, TcpConfig)>,
    /// `--model auto`: the models are the candidates and each connection uses its inferred one.
    pub auto: bool,
    pub grid: Vec<GridPoint>,
}

impl WhatIf {
    /// Rows of the `whatif` table: connections × grid points.
    pub fn num_rows(&self) -> usize {
        self.rows.num_rows()
    }

    /// What the table's labels need.
    pub fn meta(&self) -> TableMeta<'_> {
        TableMeta { captures: &self.captures, models: &self.models, grid: &self.grid }
    }

    /// The rows in the table's order, (capture, conn_id, point), built one by one.
    pub fn rows(&self) -> impl Iterator<Item = WhatIfRow> + '_ {
        let n = self.grid.len();
        self.rows.conns.iter().enumerate().flat_map(move |(ci, c)| {
            (0..n).map(move |p| {
                let i = ci * n + p;
                let delta_s = self.rows.delta_s[i];
                WhatIfRow {
                    capture: c.capture,
                    conn_id: c.conn_id,
                    model: c.model,
                    point: p as u32,
                    events: self.rows.events[i],
                    delta_s,
                    delta_rtts: c.facts.in_rtts(delta_s),
                    delta_pct: c.facts.in_pct(delta_s),
                    conn: c.facts,
                }
            })
        })
    }

    pub fn whatif_table(&self) -> tcplab_record::Table {
        output::whatif_table(&self.meta(), &self.rows)
    }
    pub fn retransmissions_table(&self) -> tcplab_record::Table {
        crate::output::retransmissions_table(&self.retransmissions, &self.captures)
    }
    pub fn connections_table(&self) -> tcplab_record::Table {
        // What-if replays the one model it was given: every connection's model is forced.
        crate::output::connections_table(&self.connections, &self.captures, self.models.first().filter(|_| !self.auto).map(|m| m.0.as_str()))
    }
}

/// The smallest timeout any point can arm: its minimum RTO less one tick of its timer clock
/// (a coarse clock may fire up to a tick early).
fn timer_floor(models: &[(String, TcpConfig)], grid: &[GridPoint]) -> SimDuration {
    models
        .iter()
        .flat_map(|(_, base)| {
            std::iter::once(&GridPoint::BASELINE).chain(grid).map(|p| {
                let c = p.apply(base);
                SimDuration(c.rto.min.0.saturating_sub(tcplab_tcp::timer::TimerClock::granularity(&c.timers.slow).0))
            })
        })
        .min()
        .unwrap_or(SimDuration(0))
}

/// The models connections are recorded with: the forced one, or every candidate of
/// `--model auto` (each connection then uses the one its inference picked).
fn models_of(cfg: &AnalyzeConfig) -> Vec<(String, TcpConfig)> {
    match &cfg.candidates {
        Some(c) => c.iter().map(|m| (m.name().to_string(), m.config().clone())).collect(),
        None => vec![(cfg.model.name().to_string(), cfg.model.config().clone())],
    }
}

/// Per-connection recording state.
#[derive(Debug, Default)]
struct ConnRec {
    hs: crate::analyzer::Handshake,
    /// Per direction, one recorder per model (one unless `--model auto`).
    dirs: [Option<Vec<Recorder>>; 2],
}

/// Runs the what-if study over each capture in turn (one streaming pass each) and keeps
/// every row ([`WhatIf::rows`]); [`whatif_stream`] hands them out instead.
pub fn whatif_paths<P: AsRef<Path>>(paths: &[P], cfg: &WhatIfConfig) -> Result<WhatIf, AnalyzeError> {
    let mut all = RowBatch::default();
    let mut keep = |_: &TableMeta<'_>, b: &RowBatch| {
        all.conns.extend_from_slice(&b.conns);
        all.events.extend_from_slice(&b.events);
        all.delta_s.extend_from_slice(&b.delta_s);
        ControlFlow::Continue(())
    };
    let mut w = whatif_stream(paths, cfg, usize::MAX, &mut keep)?;
    w.rows = all;
    Ok(w)
}

/// Runs the what-if study over each capture in turn (one streaming pass each), handing the
/// rows to `sink` in the table's order, (capture, conn_id, point), in batches of whole
/// connections of at least `batch_rows` rows (fewer at the end of a capture), as the
/// connections finish. What is held is the state of the open connections, the rows of the
/// connections that finished while one with a smaller `conn_id` is still open (the table's
/// order: `conn_id`s are given in order of first packet), and one batch; never the grid
/// times the capture. The analysis tables are returned whole (one row per connection and
/// retransmission). The returned [`WhatIf`]'s `rows` is empty.
pub fn whatif_stream<P: AsRef<Path>>(paths: &[P], cfg: &WhatIfConfig, batch_rows: usize, sink: &mut RowSink<'_>) -> Result<WhatIf, AnalyzeError> {
    let mut out = WhatIf {
        captures: Vec::new(),
        errors: Vec::new(),
        retransmissions: Vec::new(),
        connections: Vec::new(),
        rows: RowBatch::default(),
        models: models_of(&cfg.analyze),
        auto: cfg.analyze.candidates.is_some(),
        grid: cfg.grid.clone(),
    };
    for (i, p) in paths.iter().enumerate() {
        let path = p.as_ref();
        let shown = tcplab_pcap::show_path(path);
        let file = path.file_name().map_or_else(|| shown.clone(), |f| tcplab_pcap::show_path(Path::new(f)));
        out.captures.push(CaptureNames { path: shown, name: file });
        match tcplab_pcap::CaptureReader::open_with(path, cfg.analyze.reader) {
            Err(e) => out.errors.push(Some(e.to_string())),
            Ok(mut reader) => {
                out.errors.push(None);
                let mut run = FileRun::new(i as u32, cfg, batch_rows);
                let mut flow = ControlFlow::Continue(());
                while let Some(seg) = reader.next_segment() {
                    run.on_segment(&seg, &mut out);
                    if run.rows.num_rows() >= batch_rows {
                        flow = run.flush(&out, sink);
                        if flow.is_break() {
                            break;
                        }
                    }
                }
                if flow.is_continue() {
                    flow = run.finish(&mut out, batch_rows, sink);
                }
                if flow.is_break() {
                    break;
                }
            }
        }
    }
    if out.errors.iter().all(Option::is_some) {
        let errors = out.errors.into_iter().flatten().collect();
        return Err(AnalyzeError::NothingAnalysable { errors });
    }
    out.retransmissions.sort_by_key(|r| (r.capture, r.r.frame));
    out.connections.sort_by_key(|c| (c.capture, c.record.conn_id));
    Ok(out)
}

/// One capture's pass.
struct FileRun<'a> {
    capture: u32,
    cfg: &'a WhatIfConfig,
    fa: FileAnalyzer,
    /// The connections the analyzer's last segment finished (copied out of it).
    done: Vec<ConnRecord>,
    conns: FxHashMap<u64, ConnRec>,
    verdicts: FxHashMap<u64, FxHashMap<u64, Verdict>>,
    /// `--model auto`: the model index and source each finished connection's inference gave.
    inferred: FxHashMap<u64, (usize, ModelSource)>,
    models: Vec<(String, TcpConfig)>,
    floor: SimDuration,
    /// Configurations of the grid points for each model (built once).
    point_cfgs: Vec<Vec<TcpConfig>>,
    scratch: Vec<Option<SimTime>>,
    base_deadlines: Vec<Option<SimTime>>,
    /// The rows ready in the table's order (handed to the sink by [`FileRun::flush`]).
    rows: RowBatch,
    /// The smallest `conn_id` whose rows are not in `rows` yet: the tracker numbers the
    /// connections in order of their first packet, so a connection that finishes before an
    /// older one waits in `waiting` (None: a connection without rows).
    next_id: u64,
    waiting: BTreeMap<u64, Option<RowBatch>>,
    /// A connection's rows computed before they are placed.
    conn_rows: RowBatch,
}

impl<'a> FileRun<'a> {
    fn new(capture: u32, cfg: &'a WhatIfConfig, batch_rows: usize) -> FileRun<'a> {
        let models = models_of(&cfg.analyze);
        FileRun {
            capture,
            cfg,
            fa: FileAnalyzer::new(capture, cfg.analyze.clone()),
            done: Vec::new(),
            conns: FxHashMap::default(),
            verdicts: FxHashMap::default(),
            inferred: FxHashMap::default(),
            floor: timer_floor(&models, &cfg.grid),
            point_cfgs: models.iter().map(|(_, base)| cfg.grid.iter().map(|p| p.apply(base)).collect()).collect(),
            models,
            scratch: Vec::new(),
            base_deadlines: Vec::new(),
            rows: RowBatch::default(),
            next_id: 0,
            waiting: BTreeMap::new(),
            conn_rows: RowBatch::default(),
        }
        .reserve(batch_rows)
    }

    fn reserve(mut self, batch_rows: usize) -> Self {
        let n = batch_rows.min(1 << 16);
        self.rows.events.reserve(n);
        self.rows.delta_s.reserve(n);
        self
    }

    /// Hands the ready rows to `sink`.
    fn flush(&mut self, out: &WhatIf, sink: &mut RowSink<'_>) -> ControlFlow<()> {
        if self.rows.num_rows() == 0 && self.rows.conns.is_empty() {
            return ControlFlow::Continue(());
        }
        let flow = sink(&out.meta(), &self.rows);
        self.rows.clear();
        flow
    }

    /// Places connection `id`'s rows (`conn_rows`, empty for a connection without rows):
    /// in `rows` when every older connection is placed, else in `waiting`; then every
    /// waiting connection that is now next.
    fn place(&mut self, id: u64) {
        if id != self.next_id {
            let rows = (!self.conn_rows.conns.is_empty()).then(|| std::mem::take(&mut self.conn_rows));
            self.conn_rows.clear();
            self.waiting.insert(id, rows);
            return;
        }
        self.rows.append(&mut self.conn_rows);
        self.next_id += 1;
        while let Some(e) = self.waiting.first_entry() {
            if *e.key() != self.next_id {
                break;
            }
            if let Some(mut r) = e.remove() {
                self.rows.append(&mut r);
            }
            self.next_id += 1;
        }
    }

    /// End of the capture: whatever still waits (numbers no connection finished with), in
    /// `conn_id` order.
    fn place_rest(&mut self) {
        while let Some((_, r)) = self.waiting.pop_first() {
            if let Some(mut r) = r {
                self.rows.append(&mut r);
            }
        }
    }

    fn collect_verdicts(&mut self, out: &mut WhatIf) {
        for r in self.fa.retransmissions.drain(..) {
            self.verdicts
                .entry(r.conn_id)
                .or_default()
                .insert(r.r.frame, Verdict { spurious: r.r.spurious, detection_ns: r.r.detection_ns });
            out.retransmissions.push(r);
        }
        if self.cfg.analyze.candidates.is_some() {
            for row in &self.fa.connections {
                if let Some(inf) = crate::infer::infer_connection(row) {
                    let idx = self.models.iter().position(|(n, _)| *n == inf.replayed).unwrap_or(0);
                    let src = if inf.model.is_some() { ModelSource::Inferred } else { ModelSource::BestCandidate };
                    self.inferred.insert(row.record.conn_id, (idx, src));
                }
            }
        }
        out.connections.append(&mut self.fa.connections);
    }

    fn on_segment(&mut self, seg: &tcplab_pcap::CapturedSegment, out: &mut WhatIf) {
        // The analyzer tracks the segment (and finalises the connections it finished, their
        // verdicts collected next); the recorder follows the same observation.
        let obs = self.fa.on_segment(seg);
        self.collect_verdicts(out);
        if !self.fa.just_finished().is_empty() {
            let mut done = std::mem::take(&mut self.done);
            done.extend_from_slice(self.fa.just_finished());
            for rec in &done {
                self.finish_conn(rec);
            }
            done.clear();
            self.done = done;
        }
        let t = seg.ts_ns;
        let s = &seg.segment;
        let models = &self.models;
        let floor = self.floor;
        let fa = &self.fa;
        let c = self.conns.entry(obs.conn_id).or_default();
        let d = obs.dir;
        // The handshake times, as the analyzer reads them.
        c.hs.observe(obs.kind, d, t, s);
        if s.flags.contains(TcpFlags::ACK) && !s.flags.contains(TcpFlags::RST) {
            for r in c.dirs[d.reverse().index()].iter_mut().flatten() {
                r.on_ack(SimTime(t), s);
            }
        }
        if obs.kind == SegKind::Data && s.len > 0 {
            if c.dirs[d.index()].is_none() {
                let (sack, ts) = match (c.hs.offered[0], c.hs.offered[1]) {
                    (Some(a), Some(b)) => (a.0 && b.0, a.1 && b.1),
                    _ => (true, s.options.timestamps.is_some()),
                };
                let hs = c.hs.rtt_ns();
                // ACKs applied as the analyzer's replay of this direction applies them.
                let vantage = fa.ack_vantage(obs.conn_id, d).unwrap_or_default();
                let recs = models
                    .iter()
                    .map(|(_, base)| {
                        let mut r = Recorder::new(base, s.seq, sack, ts, floor);
                        r.set_ack_vantage(vantage);
                        if let Some(h) = hs {
                            r.on_handshake_rtt(SimTime(t), SimDuration(h));
                        }
                        r
                    })
                    .collect();
                c.dirs[d.index()] = Some(recs);
            }
            let fin = s.flags.contains(TcpFlags::FIN);
            for r in c.dirs[d.index()].iter_mut().flatten() {
                r.on_data(SimTime(t), seg.frame, SeqNum(s.seq.0), s.len, fin, s.options.timestamps.map(|x| x.0));
            }
        }
    }

    fn finish_conn(&mut self, rec: &ConnRecord) {
        self.conn_rows.clear();
        if let Some(c) = self.conns.remove(&rec.conn_id) {
            self.replay_conn(rec, c);
        }
        self.place(rec.conn_id);
    }

    /// The connection's rows, into `conn_rows`.
    fn replay_conn(&mut self, rec: &ConnRecord, mut c: ConnRec) {
        let verdicts = self.verdicts.remove(&rec.conn_id).unwrap_or_default();
        let verdict = |frame: u64| verdicts.get(&frame).copied();
        let (mi, source) = match self.cfg.analyze.candidates {
            Some(_) => self.inferred.remove(&rec.conn_id).unwrap_or((0, ModelSource::BestCandidate)),
            None => (0, ModelSource::Forced),
        };
        let traces: Vec<DirTrace> = c
            .dirs
            .iter_mut()
            .filter_map(Option::take)
            .filter_map(|recs| recs.into_iter().nth(mi))
            .map(Recorder::finish)
            .collect();
        let duration_s = rec.last_ns.saturating_sub(rec.first_ns) as f64 * 1e-9;
        // The connection's RTT: the mean of the samples of its main data direction.
        let main = traces.iter().max_by_key(|t| t.samples);
        let rtt_mean_s = main.and_then(DirTrace::mean_rtt).map(|d| d.as_secs_f64());
        let rtt_max_s = main.filter(|t| t.samples > 0).map(|t| t.sample_max_ns as f64 * 1e-9);
        let mut facts = ConnFacts {
            model_source: source,
            duration_s,
            rtt_mean_s,
            rtt_max_s,
            data_bytes: rec.dirs[0].unique_bytes + rec.dirs[1].unique_bytes,
            ..Default::default()
        };
        let base_cfg = &self.models[mi].1;
        let mut timers = replay::timers_for(base_cfg);
        // The model's own replay, once per direction.
        let mut base: Vec<Vec<(Detect, bool, f64)>> = Vec::with_capacity(traces.len());
        let (mut bc_ns, mut bc_rtts) = (0u64, 0.0f64);
        for tr in &traces {
            replay::deadlines(tr, base_cfg, &mut timers, &mut self.base_deadlines);
            let mut v = Vec::with_capacity(tr.episodes.len());
            for (ep, dl) in tr.episodes.iter().zip(&self.base_deadlines) {
                let lost = replay::head_lost(ep, &verdict);
                let det = replay::detect(ep, lost, *dl, replay::threshold(base_cfg, ep, tr.smss));
                if ep.detection.is_some() {
                    facts.detections += 1;
                    facts.lost += u32::from(lost);
                }
                match det {
                    Detect::Rto(_) => facts.base_rto += 1,
                    Detect::Fr(_) => facts.base_fr += 1,
                    Detect::Nothing => {}
                }
                v.push((det, lost, replay::episode_x(ep, tr.smss)));
            }
            base.push(v);
            let (ns, r) = bestcase::best_case(tr, &verdict);
            bc_ns += ns;
            bc_rtts += r;
        }
        let rtt = rtt_mean_s.unwrap_or(0.0);
        facts.best_case_s = -(bc_ns as f64 * 1e-9 + bc_rtts * rtt);
        facts.best_case_rtts = rtt_mean_s.filter(|r| *r > 0.0).map(|r| facts.best_case_s / r);
        facts.best_case_pct = (duration_s > 0.0).then(|| 100.0 * facts.best_case_s / duration_s);
        // Nothing a configuration could change (no episode kept): every point is the model.
        let nothing = traces.iter().all(|t| t.episodes.is_empty());
        let rows = &mut self.conn_rows;
        rows.conns.push(ConnOut { capture: self.capture, conn_id: rec.conn_id, model: mi as u32, facts });
        rows.events.reserve(self.point_cfgs[mi].len());
        rows.delta_s.reserve(self.point_cfgs[mi].len());
        for pcfg in &self.point_cfgs[mi] {
            let mut e = Effects::default();
            let same = nothing || (pcfg.rto == base_cfg.rto && pcfg.dupack_threshold == base_cfg.dupack_threshold);
            for (tr, b) in traces.iter().zip(&base).filter(|_| !same) {
                debug_assert!(pcfg.timers == base_cfg.timers, "a grid point changes no clock");
                replay::deadlines(tr, pcfg, &mut timers, &mut self.scratch);
                for ((ep, dl), &(bdet, lost, x)) in tr.episodes.iter().zip(&self.scratch).zip(b) {
                    let det = replay::detect(ep, lost, *dl, replay::threshold(pcfg, ep, tr.smss));
                    if det != bdet {
                        replay::compare(bdet, det, lost, x, &mut e);
                    }
                }
            }
            rows.events.push(e.events);
            rows.delta_s.push(e.delta_s(rtt));
        }
    }

    /// End of the capture: the analyzer finalises the connections still open (in conn_id
    /// order) and the recorder finishes the same ones, their rows handed to `sink` as
    /// batches fill up.
    fn finish(&mut self, out: &mut WhatIf, batch_rows: usize, sink: &mut RowSink<'_>) -> ControlFlow<()> {
        let fa = std::mem::replace(&mut self.fa, FileAnalyzer::new(self.capture, self.cfg.analyze.clone()));
        let (r, c, _, _) = fa.finish();
        let recs: Vec<ConnRecord> = c.iter().map(|row| row.record).collect();
        self.fa.retransmissions = r;
        self.fa.connections = c;
        self.collect_verdicts(out);
        for rec in &recs {
            self.finish_conn(rec);
            if self.rows.num_rows() >= batch_rows {
                self.flush(out, sink)?;
            }
        }
        self.place_rest();
        self.flush(out, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(id: u64) -> RowBatch {
        let facts = ConnFacts::default();
        RowBatch { conns: vec![ConnOut { capture: 0, conn_id: id, model: 0, facts }], events: vec![Events::default()], delta_s: vec![id as f64] }
    }

    fn ids(b: &RowBatch) -> Vec<u64> {
        b.conns.iter().map(|c| c.conn_id).collect()
    }

    // The table's order is (capture, conn_id, point) and conn_ids are given in order of first
    // packet: a connection that finishes before an older one waits for it; one without rows
    // (None) only advances the order.
    #[test]
    fn rows_are_placed_in_conn_id_order_whatever_order_connections_finish_in() {
        let cfg = WhatIfConfig { analyze: AnalyzeConfig::default(), grid: vec![GridPoint::BASELINE] };
        let mut run = FileRun::new(0, &cfg, 4);
        run.conn_rows = conn(2);
        run.place(2);
        run.conn_rows = conn(3);
        run.place(3);
        assert_eq!(run.rows.num_rows(), 0, "0 and 1 are still open");
        run.conn_rows = conn(0);
        run.place(0);
        assert_eq!(ids(&run.rows), [0]);
        run.conn_rows.clear();
        run.place(1); // a connection without rows
        assert_eq!(ids(&run.rows), [0, 2, 3]);
        assert_eq!(run.rows.delta_s, [0.0, 2.0, 3.0]);
        assert!(run.waiting.is_empty());
        run.conn_rows = conn(6);
        run.place(6);
        run.place_rest();
        assert_eq!(ids(&run.rows), [0, 2, 3, 6], "at the end of the capture, whatever waits, in order");
    }
}

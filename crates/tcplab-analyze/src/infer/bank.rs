//! The replay bank: one data direction replayed through every candidate model at once.
//!
//! Each candidate gets its own [`DirReplay`] (its own observer: estimator, clocks, sampling
//! rule, initial RTO, DupThresh, recovery rules), fed the same segments and ACKs. Every
//! retransmission's evidence is scored at once (`score.rs`) and each replay's classified
//! retransmissions are held until the connection ends, when the decision (`decide.rs`) picks
//! the replay whose classification is reported.
//!
//! Cost: N candidates do N times the per-segment work of one replay (each replay's per-ACK
//! work is the engine observer's, not proportional to the window); memory is N replays per
//! open connection plus the held rows. A candidate whose cost exceeds the best's by
//! [`PRUNE_MARGIN`] is dropped (its replay freed, its score frozen as a lower bound), so a
//! connection that has already told the models apart runs few replays. Until a segment is
//! resent only the first candidate is replayed and the events are logged for the others
//! ([`Cold`]: without a resent segment every replay hands out the same rows, counters and
//! RTT statistics), so a connection that never resends costs one replay (measured in
//! docs/benchmarks.md, "Session 8 (infer7)"). With one candidate (`--model NAME`) nothing is
//! held: rows stream out as they are decided.

use std::sync::Arc;

use tcplab_tcp::Segment;

use crate::model::SenderModel;
use crate::rtt::RttStats;
use crate::sender_replay::{DirCounters, DirReplay, Position, RetxOut};

use super::decide::{decide_with_hint, Candidate, Inference, CORROBORATED_MARGIN, CORROBORATING_TIMER_FITS, DECISION_MARGIN};
use super::first_flight::FirstFlight;
use super::rto_min_fit::{expand, merge};
use super::PassiveHints;
use super::score::{score_event, EventCost, ModelScore, TickGrid, UNEXPLAINED};

/// A candidate more than this much worse than the best is dropped (three unexplained
/// retransmissions; larger than the decision margin, so a dropped candidate can never have
/// been the one named, see [`super::decide::decide`]).
pub const PRUNE_MARGIN: u64 = 3 * UNEXPLAINED;

/// At most this many of the last ACKs before a retransmission are tried after it
/// ([`DirBank::on_data`]; tcplab choice: the ACKs within the capture-to-sender lag of a
/// retransmission are few — at a 2 ms lag and 10 Mb/s, two full-sized segments' ACKs — and
/// each try costs a copy of the candidate's replay).
pub const MAX_ORDER_VARIANTS: usize = 4;

/// The events logged for the replays not yet fed before they are fed anyway ([`Cold`];
/// tcplab choice: about 150 bytes each, so at most about 150 kB per open connection, the
/// order of the twelve replays' own state).
pub const MAX_COLD_EVENTS: usize = 1024;

/// A classified retransmission with the RTT the analyzer reports beside it.
pub type HeldRow = (RetxOut, Option<u64>);

#[derive(Clone, Debug)]
struct Live {
    idx: usize,
    replay: DirReplay,
    held: Vec<HeldRow>,
}

/// One direction's replays.
#[derive(Clone, Debug)]
pub struct DirBank {
    /// The candidates with their fitted variants (`rto_min_fit::expand`).
    models: Arc<[Arc<dyn SenderModel>]>,
    /// For each of `models`, the index of the candidate it was expanded from.
    base: Arc<[usize]>,
    live: Vec<Live>,
    scores: Vec<ModelScore>,
    grids: Vec<TickGrid>,
    pruned: Vec<bool>,
    stream: bool,
    scratch: Vec<RetxOut>,
    /// The data before the first ACK, priced against each candidate's initial window at the
    /// end (`first_flight.rs`).
    first: FirstFlight,
    /// ACKs captured but not yet acted on by the sender ([`DirBank::on_ack`]): a capture a
    /// link away from the sender's stack sees each ACK `lag_ns` before the sender does, so a
    /// segment the sender sent inside that interval left before the ACK reached it.
    deferred: std::collections::VecDeque<DeferredAck>,
    /// The highest relative sequence number sent so far (a segment below it is resent).
    snd_max: Option<u32>,
    /// The highest relative ACK applied to the replays.
    acked: Option<u32>,
    /// While no segment has been resent: the events fed to the first live replay only, to
    /// be fed to the others when one is (`Cold`).
    cold: Option<Vec<Cold>>,
}

/// An event logged for the replays not yet fed ([`DirBank`]'s laziness: until a segment is
/// resent no candidate has evidence and every candidate's replay hands out the same rows,
/// counters and RTT statistics — all read off the capture — so one replay stands for all;
/// at the first resent segment, or when the log reaches [`MAX_COLD_EVENTS`], the others
/// replay the log and join).
#[derive(Clone, Debug)]
enum Cold {
    Data(DataSeg),
    Ack(DeferredAck),
    Fin,
}

/// An ACK held until the sender acted on it (capture time, relative ACK, the segment, the
/// handshake RTT the analyzer reports beside the rows it decides).
#[derive(Clone, Debug)]
struct DeferredAck {
    now: u64,
    rel_ack: u32,
    seg: Segment,
    hs: Option<u64>,
}

/// What a finished direction hands to the analyzer.
#[derive(Debug)]
pub struct DirResult {
    pub rows: Vec<HeldRow>,
    pub counters: DirCounters,
    pub rtt: RttStats,
    pub position: Position,
    /// `None` with a single (forced) model.
    pub inference: Option<Inference>,
}

impl DirBank {
    /// Replays for each of `models` (at least one; candidate order is the tie order).
    /// With several candidates, `linux` is replayed with each fitted minimum RTO too
    /// (`rto_min_fit.rs`); the variants are merged back into one candidate at the end.
    pub fn new(pos: Position, sack: bool, timestamps: bool, models: Arc<[Arc<dyn SenderModel>]>) -> DirBank {
        let stream = models.len() == 1;
        let (models, base) = expanded(&models);
        let live = models.iter().enumerate().map(|(idx, m)| Live { idx, replay: DirReplay::new(pos, sack, timestamps, m.as_ref()), held: Vec::new() }).collect();
        let n = models.len();
        DirBank { stream, models, base, live, scores: vec![ModelScore::default(); n], grids: vec![TickGrid::default(); n], pruned: vec![false; n], scratch: Vec::new(), first: FirstFlight::default(), deferred: Default::default(), snd_max: None, acked: None, cold: (!stream && n > 1).then(Vec::new) }
    }

    pub fn position(&self) -> Position {
        self.live.first().map_or(Position::Middle, |l| l.replay.position())
    }

    /// How the ACKs reach the observers (the same for every candidate).
    pub fn ack_vantage(&self) -> crate::sender_replay::AckVantage {
        self.live.first().map(|l| l.replay.ack_vantage()).unwrap_or_default()
    }

    pub fn set_upstream_base(&mut self, ns: u64) {
        self.live.iter_mut().for_each(|l| l.replay.set_upstream_base(ns));
    }

    pub fn set_handshake_rtt(&mut self, ns: Option<u64>) {
        self.live.iter_mut().for_each(|l| l.replay.set_handshake_rtt(ns));
    }

    /// Evidence from outside the data (SYN back-off, `syn.rs`): a cost per candidate, in
    /// the order of the candidates given to [`DirBank::new`] (a fitted variant takes its
    /// candidate's: the SYN back-off does not depend on the minimum RTO).
    pub fn add_costs(&mut self, costs: &[u64]) {
        for (s, &b) in self.scores.iter_mut().zip(self.base.iter()) {
            if let Some(&c) = costs.get(b) {
                s.add_cost(c);
            }
        }
        self.prune();
    }

    /// The handshake of this direction's sender was retransmitted
    /// ([`DirReplay::set_handshake_retransmitted`]).
    pub fn set_handshake_retransmitted(&mut self, yes: bool) {
        self.live.iter_mut().for_each(|l| l.replay.set_handshake_retransmitted(yes));
    }

    /// The window the sender learnt in the handshake ([`DirReplay::set_peer_window`]).
    pub fn set_peer_window(&mut self, scaled: u64, snd_wscale: u8) {
        self.live.iter_mut().for_each(|l| l.replay.set_peer_window(scaled, snd_wscale));
    }

    /// The next data segment carries a FIN ([`DirReplay::note_fin`]).
    pub fn note_fin(&mut self) {
        match self.cold.as_mut() {
            Some(log) => {
                log.push(Cold::Fin);
                if let Some(l) = self.live.first_mut() {
                    l.replay.note_fin();
                }
            }
            None => self.live.iter_mut().for_each(|l| l.replay.note_fin()),
        }
        self.cap_cold();
    }

    /// Every replay catches up with the log and is fed from now on ([`Cold`]).
    fn warm_up(&mut self) {
        let Some(log) = self.cold.take() else { return };
        for l in self.live.iter_mut().skip(1) {
            let grid = &mut self.grids[l.idx];
            for e in &log {
                match e {
                    Cold::Data(d) => {
                        if let Some(c) = feed_data(l, grid, d) {
                            self.scores[l.idx].add(c);
                        }
                    }
                    Cold::Ack(a) => feed_ack(l, a, &mut self.scratch),
                    Cold::Fin => l.replay.note_fin(),
                }
            }
        }
    }

    /// Bounds the log: past [`MAX_COLD_EVENTS`] every replay is fed.
    fn cap_cold(&mut self) {
        if self.cold.as_ref().is_some_and(|log| log.len() >= MAX_COLD_EVENTS) {
            self.warm_up();
        }
    }

    /// A data segment (see [`DirReplay::on_data`]); scores its evidence under every model.
    ///
    /// The ACKs captured before it ([`DirBank::on_ack`]) are applied first, as the capture
    /// orders them — except that a resent segment may have left the sender before the last
    /// of them reached it: at the sender with an ACK lag (`sender_replay::AckVantage`: the
    /// capture sits a link away from the sender's stack), an ACK captured at `c` reached the
    /// sender at `c + lag`, give or take the lag's measurement error (the lag is read off the
    /// handshake, whose segments differ in size from the ACK). When the capture order leaves
    /// the retransmission unexplained in part (a cost above 0), each candidate replays it
    /// also before the last ACKs the sender cannot be shown to have acted on yet (`c + lag >
    /// now`, at most [`MAX_ORDER_VARIANTS`] of them), and keeps the order that explains it
    /// best (the capture order on a tie). Measured (`examples/infer_corpus`, sender captures
    /// 2 ms from the stack): a retransmission timeout and the ACK that would have stopped
    /// it reached the sender in the same microsecond; in capture order the ACK stopped or
    /// restarted the replayed timer and the timeout was unexplained under every candidate,
    /// the true one included.
    pub fn on_data(&mut self, now: u64, frame: u64, abs_seq: u32, rel_seq: u32, len: u32, tsval: Option<u32>) {
        let lag = self.ack_vantage().lag_ns;
        let resent = self.snd_max.is_some_and(|m| (rel_seq.wrapping_sub(m) as i32) < 0);
        let end = rel_seq.wrapping_add(len);
        if self.snd_max.map_or(true, |m| (end.wrapping_sub(m) as i32) > 0) {
            self.snd_max = Some(end);
        }
        if resent {
            self.warm_up();
        }
        // The deferred ACKs the sender had certainly acted on come first in every order.
        let seen = self.deferred.iter().take_while(|a| a.now.saturating_add(lag) <= now).count();
        let open = if resent { (self.deferred.len() - seen).min(MAX_ORDER_VARIANTS) } else { 0 };
        let fixed = self.deferred.len() - open;
        for _ in 0..fixed {
            if let Some(a) = self.deferred.pop_front() {
                self.ack_all(a);
            }
        }
        // Only an ACK of new data (a timer restarted or stopped, SND.UNA moved) can make the
        // segment explicable before it; duplicate ACKs are applied as captured.
        let acked = self.acked;
        let advances = self.deferred.iter().any(|a| acked.map_or(true, |u| (a.rel_ack.wrapping_sub(u) as i32) > 0));
        let open = if advances { open } else { 0 };
        if open == 0 {
            while let Some(a) = self.deferred.pop_front() {
                self.ack_all(a);
            }
        }
        let mut scored = false;
        self.first.on_data(rel_seq, len);
        let seg = DataSeg { now, frame, abs_seq, rel_seq, len, tsval };
        let fed = if self.cold.is_some() { 1 } else { self.live.len() };
        if let Some(log) = self.cold.as_mut() {
            log.push(Cold::Data(seg));
        }
        for l in self.live.iter_mut().take(fed) {
            let grid = &mut self.grids[l.idx];
            let cost = if open == 0 {
                feed_data(l, grid, &seg)
            } else {
                // The capture order: every ACK, then the segment.
                let before = l.clone();
                let grid_before = *grid;
                for a in self.deferred.iter() {
                    feed_ack(l, a, &mut self.scratch);
                }
                let mut cost = feed_data(l, grid, &seg);
                // The segment before the last `k` ACKs, k = 1..=open, on copies.
                let mut prefix = before;
                let mut best: Option<(Live, TickGrid, EventCost, usize)> = None;
                let need = |c: Option<EventCost>| c.is_some_and(|c| c.cost > 0);
                if need(cost) {
                    for k in (1..=open).rev() {
                        let mut trial = prefix.clone();
                        let mut g = grid_before;
                        let c = feed_data(&mut trial, &mut g, &seg);
                        // Strictly better than the capture order; among the tries, the one
                        // with the fewest ACKs moved after the segment on a tie.
                        let better = |c: &EventCost| match &best {
                            None => cost.map_or(true, |o| c.cost < o.cost),
                            Some(b) => c.cost <= b.2.cost,
                        };
                        if let Some(c) = c.filter(better) {
                            best = Some((trial, g, c, k));
                        }
                        if let Some(a) = self.deferred.get(open - k) {
                            feed_ack(&mut prefix, a, &mut self.scratch);
                        }
                    }
                }
                if let Some((mut trial, g, c, k)) = best {
                    for a in self.deferred.iter().skip(open - k) {
                        feed_ack(&mut trial, a, &mut self.scratch);
                    }
                    *l = trial;
                    *grid = g;
                    cost = Some(c);
                }
                cost
            };
            if let Some(c) = cost {
                self.scores[l.idx].add(c);
                scored = true;
            }
        }
        for a in self.deferred.drain(..) {
            if self.acked.map_or(true, |u| (a.rel_ack.wrapping_sub(u) as i32) > 0) {
                self.acked = Some(a.rel_ack);
            }
        }
        if scored && !self.stream {
            self.prune();
        }
        self.cap_cold();
    }

    /// One ACK to every replay fed (the first only while the others are cold).
    fn ack_all(&mut self, a: DeferredAck) {
        if self.acked.map_or(true, |u| (a.rel_ack.wrapping_sub(u) as i32) > 0) {
            self.acked = Some(a.rel_ack);
        }
        match self.cold.as_mut() {
            Some(log) => {
                if let Some(l) = self.live.first_mut() {
                    feed_ack(l, &a, &mut self.scratch);
                }
                log.push(Cold::Ack(a));
            }
            None => {
                for l in self.live.iter_mut() {
                    feed_ack(l, &a, &mut self.scratch);
                }
            }
        }
    }

    /// An ACK for this direction; decided rows go to `out` when streaming, else are held.
    /// At the sender with an ACK lag it is held until the next data segment, so that a
    /// retransmission sent before it reached the sender can be replayed before it
    /// ([`DirBank::on_data`]); the ACKs the sender had certainly acted on by the time of this
    /// one (capture time + lag before now) are applied at once.
    pub fn on_ack(&mut self, now: u64, rel_ack: u32, seg: &Segment, hs: Option<u64>, out: &mut Vec<HeldRow>) {
        self.first.on_ack();
        let lag = self.ack_vantage().lag_ns;
        self.deferred.push_back(DeferredAck { now, rel_ack, seg: *seg, hs });
        self.release_deferred(|c| lag == 0 || c.saturating_add(lag) <= now);
        if self.stream {
            for l in self.live.iter_mut() {
                out.append(&mut l.held);
            }
        }
    }

    /// Applies the deferred ACKs (in capture order) while `due` holds for their capture time;
    /// the rows they decide are held (a streaming bank hands them out at its next ACK or its
    /// end).
    fn release_deferred(&mut self, due: impl Fn(u64) -> bool) {
        while self.deferred.front().is_some_and(|a| due(a.now)) {
            let Some(a) = self.deferred.pop_front() else { break };
            self.ack_all(a);
        }
        self.cap_cold();
    }

    fn prune(&mut self) {
        let Some(best) = self.live.iter().map(|l| self.scores[l.idx].cost).min() else {
            return;
        };
        // The first live replay is the one fed while the others are cold: before it is
        // dropped, the others catch up (a cold one dropped was never needed).
        if self.cold.is_some() && self.live.first().is_some_and(|l| self.scores[l.idx].cost >= best.saturating_add(PRUNE_MARGIN)) {
            self.warm_up();
        }
        let (scores, pruned) = (&self.scores, &mut self.pruned);
        self.live.retain(|l| {
            let keep = scores[l.idx].cost < best.saturating_add(PRUNE_MARGIN);
            pruned[l.idx] |= !keep;
            keep
        });
    }

    /// End of the connection: the decision, and the chosen replay's rows and statistics.
    /// `hint`: the passive hints of this direction's sender (its SYN or SYN-ACK), which may
    /// break a tie (`decide::decide_with_hint`).
    pub fn finish(mut self, last_ns: u64, hs: Option<u64>, hint: Option<&PassiveHints>) -> Option<DirResult> {
        self.release_deferred(|_| true);
        if !self.stream {
            // The first flight against each candidate's initial window (`first_flight.rs`);
            // priced only with the sender's own handshake (its MSS bounds the SMSS).
            let cfgs: Vec<&tcplab_tcp::TcpConfig> = self.models.iter().map(|m| m.config()).collect();
            let costs = self.first.costs(&cfgs, hint.and_then(|h| h.mss));
            for (s, c) in self.scores.iter_mut().zip(costs) {
                s.add_exclusion(c);
            }
        }
        let inference = (!self.stream).then(|| {
            let cands: Vec<Candidate<'_>> = self
                .models
                .iter()
                .enumerate()
                .map(|(i, m)| Candidate {
                    name: m.name(),
                    cfg: m.config(),
                    score: self.scores[i],
                    pruned: self.pruned[i],
                    // `rto_min_fit::expand` puts each candidate first and its variants after it.
                    fitted: i > 0 && self.base.get(i) == self.base.get(i - 1),
                })
                .collect();
            // One candidate per profile: its best-fitting variant (`rto_min_fit::merge`).
            let (merged, kept) = merge(&cands);
            let mut inf = decide_with_hint(&merged, self.position() == Position::Sender, hint);
            // The minimum RTO is inferred only if no variant with another value of a profile
            // left in the running explains the connection within the margin as well
            // (`decide.rs`: a parameter is identified when every candidate left agrees; the
            // margin is the one the decision uses for an unfitted candidate, since the variants
            // of one profile differ in this one parameter only).
            if let (Some(v), Some(best)) = (inf.params.min_rto_ns, merged.iter().min_by_key(|c| c.score.cost)) {
                let at_sender = self.position() == Position::Sender;
                let margin = if at_sender && best.score.timers_fit >= CORROBORATING_TIMER_FITS { CORROBORATED_MARGIN } else { DECISION_MARGIN };
                let rival = cands.iter().any(|c| {
                    inf.candidates.iter().any(|n| n == c.name) && c.score.cost < best.score.cost.saturating_add(margin) && c.cfg.rto.min.as_nanos() != v
                });
                if rival {
                    inf.params.min_rto_ns = None;
                }
            }
            let chosen = merged.iter().position(|c| c.name == inf.replayed).and_then(|k| kept.get(k).copied());
            (inf, chosen)
        });
        let pick = match &inference {
            // Nothing resent: the one replay fed stands for the chosen one ([`Cold`]).
            _ if self.cold.is_some() => 0,
            Some((_, Some(idx))) => self.live.iter().position(|l| l.idx == *idx).unwrap_or(0),
            _ => 0,
        };
        let inference = inference.map(|(inf, _)| inf);
        if pick >= self.live.len() {
            return None;
        }
        let mut l = self.live.swap_remove(pick);
        l.replay.finish(last_ns, &mut self.scratch);
        let rtt = row_rtt(&l.replay, hs);
        l.held.extend(self.scratch.drain(..).map(|r| (r, rtt)));
        Some(DirResult { rows: l.held, counters: l.replay.counters, rtt: l.replay.rtt.clone(), position: l.replay.position(), inference })
    }
}

/// A data segment's arguments ([`DirReplay::on_data`]).
#[derive(Copy, Clone, Debug)]
struct DataSeg {
    now: u64,
    frame: u64,
    abs_seq: u32,
    rel_seq: u32,
    len: u32,
    tsval: Option<u32>,
}

/// One candidate's replay of a data segment: the cost of its evidence, if it was a
/// retransmission.
fn feed_data(l: &mut Live, grid: &mut TickGrid, d: &DataSeg) -> Option<EventCost> {
    l.replay.on_data(d.now, d.frame, d.abs_seq, d.rel_seq, d.len, d.tsval);
    let ev = l.replay.take_evidence()?;
    Some(score_event(&ev, l.replay.config(), grid))
}

/// One candidate's replay of an ACK; the rows it decides are held with their RTT.
fn feed_ack(l: &mut Live, a: &DeferredAck, scratch: &mut Vec<RetxOut>) {
    l.replay.on_ack(a.now, a.rel_ack, &a.seg);
    l.replay.drain_done(scratch);
    let rtt = row_rtt(&l.replay, a.hs);
    l.held.extend(scratch.drain(..).map(|r| (r, rtt)));
}

/// A candidate list.
type Models = Arc<[Arc<dyn SenderModel>]>;
/// The cached expansion: the list it was made from, the expanded list, its `base` indices.
type Expansion = (Models, Models, Arc<[usize]>);

thread_local! {
    /// The last expansion (`rto_min_fit::expand`): the candidate list it was made from (its
    /// elements kept alive, so pointer equality identifies the same list) and the result.
    /// Every connection of an analysis gets the same candidates, so the variants are built
    /// once per analysis thread, not per connection.
    static EXPANDED: std::cell::RefCell<Option<Expansion>> = const { std::cell::RefCell::new(None) };
}

/// `rto_min_fit::expand` of `models`, cached per thread.
fn expanded(models: &Models) -> (Models, Arc<[usize]>) {
    EXPANDED.with(|cell| {
        let mut c = cell.borrow_mut();
        if let Some((from, to, base)) = c.as_ref() {
            if from.len() == models.len() && from.iter().zip(models.iter()).all(|(a, b)| Arc::ptr_eq(a, b)) {
                return (to.clone(), base.clone());
            }
        }
        let (to, base) = expand(models);
        let base: Arc<[usize]> = base.into();
        *c = Some((models.clone(), to.clone(), base.clone()));
        (to, base)
    })
}

/// The RTT reported beside a retransmission (the handshake's, else the capture-point minimum
/// at the sender), as the analyzer always did.
fn row_rtt(r: &DirReplay, hs: Option<u64>) -> Option<u64> {
    hs.or(r.rtt.min_ns.filter(|_| r.position() == Position::Sender))
}

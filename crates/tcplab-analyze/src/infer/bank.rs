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
//! connection that has already told the models apart runs few replays. With one candidate
//! (`--model NAME`) nothing is held: rows stream out as they are decided.

use std::sync::Arc;

use tcplab_tcp::Segment;

use crate::model::SenderModel;
use crate::rtt::RttStats;
use crate::sender_replay::{DirCounters, DirReplay, Position, RetxOut};

use super::decide::{decide_with_hint, Candidate, Inference, CORROBORATED_MARGIN, CORROBORATING_TIMER_FITS, DECISION_MARGIN};
use super::first_flight::FirstFlight;
use super::rto_min_fit::{expand, merge};
use super::PassiveHints;
use super::score::{score_event, ModelScore, TickGrid, UNEXPLAINED};

/// A candidate more than this much worse than the best is dropped (three unexplained
/// retransmissions; larger than the decision margin, so a dropped candidate can never have
/// been the one named, see [`super::decide::decide`]).
pub const PRUNE_MARGIN: u64 = 3 * UNEXPLAINED;

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
        DirBank { stream, models, base, live, scores: vec![ModelScore::default(); n], grids: vec![TickGrid::default(); n], pruned: vec![false; n], scratch: Vec::new(), first: FirstFlight::default() }
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

    /// The next data segment carries a FIN ([`DirReplay::note_fin`]).
    pub fn note_fin(&mut self) {
        self.live.iter_mut().for_each(|l| l.replay.note_fin());
    }

    /// A data segment (see [`DirReplay::on_data`]); scores its evidence under every model.
    pub fn on_data(&mut self, now: u64, frame: u64, abs_seq: u32, rel_seq: u32, len: u32, tsval: Option<u32>) {
        let mut scored = false;
        self.first.on_data(rel_seq, len);
        for l in self.live.iter_mut() {
            l.replay.on_data(now, frame, abs_seq, rel_seq, len, tsval);
            if let Some(ev) = l.replay.take_evidence() {
                let c = score_event(&ev, l.replay.config(), &mut self.grids[l.idx]);
                self.scores[l.idx].add(c);
                scored = true;
            }
        }
        if scored && !self.stream {
            self.prune();
        }
    }

    /// An ACK for this direction; decided rows go to `out` when streaming, else are held.
    pub fn on_ack(&mut self, now: u64, rel_ack: u32, seg: &Segment, hs: Option<u64>, out: &mut Vec<HeldRow>) {
        self.first.on_ack();
        for l in self.live.iter_mut() {
            l.replay.on_ack(now, rel_ack, seg);
            l.replay.drain_done(&mut self.scratch);
            let rtt = row_rtt(&l.replay, hs);
            let dst = if self.stream { &mut *out } else { &mut l.held };
            dst.extend(self.scratch.drain(..).map(|r| (r, rtt)));
        }
    }

    fn prune(&mut self) {
        let Some(best) = self.live.iter().map(|l| self.scores[l.idx].cost).min() else {
            return;
        };
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

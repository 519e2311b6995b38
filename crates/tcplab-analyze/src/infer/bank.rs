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

use super::decide::{decide_with_hint, Candidate, Inference};
use super::first_flight::FirstFlight;
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
    models: Arc<[Arc<dyn SenderModel>]>,
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
    pub fn new(pos: Position, sack: bool, timestamps: bool, models: Arc<[Arc<dyn SenderModel>]>) -> DirBank {
        let live = models.iter().enumerate().map(|(idx, m)| Live { idx, replay: DirReplay::new(pos, sack, timestamps, m.as_ref()), held: Vec::new() }).collect();
        let n = models.len();
        DirBank { stream: n == 1, models, live, scores: vec![ModelScore::default(); n], grids: vec![TickGrid::default(); n], pruned: vec![false; n], scratch: Vec::new(), first: FirstFlight::default() }
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
    /// candidate order.
    pub fn add_costs(&mut self, costs: &[u64]) {
        for (s, &c) in self.scores.iter_mut().zip(costs) {
            s.add_cost(c);
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
                .map(|(i, m)| Candidate { name: m.name(), cfg: m.config(), score: self.scores[i], pruned: self.pruned[i] })
                .collect();
            decide_with_hint(&cands, self.position() == Position::Sender, hint)
        });
        let pick = match &inference {
            Some(inf) => self.live.iter().position(|l| self.models[l.idx].name() == inf.replayed).unwrap_or(0),
            None => 0,
        };
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

/// The RTT reported beside a retransmission (the handshake's, else the capture-point minimum
/// at the sender), as the analyzer always did.
fn row_rtt(r: &DirReplay, hs: Option<u64>) -> Option<u64> {
    hs.or(r.rtt.min_ns.filter(|_| r.position() == Position::Sender))
}

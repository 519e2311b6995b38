//! Per-model scoring: how well one candidate model explains one retransmission, as a cost
//! (0 = exactly as the model would have done it; [`UNEXPLAINED`] = the model cannot have
//! sent it then).
//!
//! The rule, clause by clause (003 §IV-A: identify the OS by emulating each candidate's
//! state machine; the parameters that tell the candidates apart are Table I's):
//! - **Timeouts** (RFC 6298 (5.4)-(5.6), the candidate's estimator, minRTO, initial RTO, k,
//!   m and timer granularity): the timer's expiry is sent at the deadline the candidate had
//!   armed. The cost grows with |send time − deadline| beyond a tolerance (below).
//!   A retransmission the candidate explains by no trigger is *premature* for it: the same
//!   timing cost against its armed deadline (an RTO estimate a few percent off is not a
//!   different OS), [`UNEXPLAINED`] when no timer was armed.
//! - **Fast retransmit** (RFC 5681 §3.2 step 2, DupThresh D, 003 Table I row D): sent when
//!   the D-th duplicate ACK arrives. At the sender the capture shows the duplicate ACKs in
//!   the sender's order: more than D before the retransmission means the candidate would
//!   have sent it earlier ([`UNEXPLAINED`]); fewer means the candidate has no trigger (the
//!   premature case above). Away from the sender the time since the D-th duplicate ACK is
//!   compared with the upstream round trip instead (duplicate ACKs keep passing the capture
//!   point while the retransmission travels).
//! - **SACK loss** (RFC 6675 §5 (4): IsLost(SND.UNA)) and **tail loss probes** (RFC 8985
//!   §7.3, PTO): the same timing cost against the instant IsLost first held / the PTO.
//! - **Recovery pattern**: a retransmission inside the candidate's own recovery (NextSeg,
//!   NewReno partial ACK, go-back-N after a timeout, RACK marking) costs nothing — and a
//!   retransmission the candidate cannot place in any of them costs [`UNEXPLAINED`].
//!
//! Tolerance of a timing comparison: [`TIMING_SLACK_NS`] + the candidate's timer
//! granularity (a one-shot timer rounds its deadline up to a tick, a periodic one fires on
//! the next tick) + the send-time uncertainty of the capture point + [`RTO_REL_TOLERANCE`]
//! of the armed timer (the observer samples RTTs from capture times, not from the sender's
//! own clock, and its estimate drifts by a few percent: `docs/design.md`, "the analyzer's
//! RTO"). Within the tolerance the cost rises linearly to [`WITHIN_TOLERANCE_COST`];
//! beyond it, linearly to [`UNEXPLAINED`] at twice the tolerance.
//!
//! Ambiguities resolved:
//! - Costs are integers (deterministic sums, no float ordering questions).
//! - A model whose timer could not be read at this capture point (`timer_unobservable`:
//!   away from the sender without timestamps) is scored on whether it explains the
//!   retransmission at all, not on timing: the hidden queueing could be any length, so an
//!   armed timer counts as a possible trigger (cost 0) whatever its deadline.

use tcplab_tcp::TcpConfig;

use super::evidence::{instant, DueKind, Instant, RetxEvidence};

/// Cost of a retransmission the model cannot have sent when it was sent (the unit of
/// evidence; the decision margin is a fraction of it).
pub const UNEXPLAINED: u64 = 1000;
/// Cost at the edge of the timing tolerance: a timing within tolerance still ranks the
/// candidates (closer is better), but by less than [`crate::infer::decide::DECISION_MARGIN`].
pub const WITHIN_TOLERANCE_COST: u64 = 100;
/// Fixed part of the timing tolerance: the host's own delay between deciding to send and
/// the capture (tcplab choice: 2 ms covers a real host's softirq and NIC queue; the
/// simulator's is 0).
pub const TIMING_SLACK_NS: u64 = 2_000_000;
/// Relative part of the timing tolerance, as a share of the armed timer (tcplab choice: the
/// gaps between Table I's minimum RTOs are 2x (200→400 ms), 2.5x (400→1000 ms) and 1.2x
/// (1000→1200 ms); 10 % keeps 1.0 s and 1.2 s apart).
pub const RTO_REL_TOLERANCE: f64 = 0.08;

/// What kind of evidence an event was, for the reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    Due(DueKind),
    Follows,
    Premature,
    NoObserver,
}

/// One event's cost under one model.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EventCost {
    pub kind: EventKind,
    pub cost: u64,
}

/// A candidate's running score over one direction of a connection.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelScore {
    /// Sum of event costs.
    pub cost: u64,
    /// Retransmissions scored.
    pub events: u32,
    /// Of which the model could not explain (cost [`UNEXPLAINED`]).
    pub unexplained: u32,
    /// Of which had a due instant (timeouts, probes, DupThresh, IsLost).
    pub timed: u32,
}

impl ModelScore {
    pub fn add(&mut self, c: EventCost) {
        self.cost = self.cost.saturating_add(c.cost);
        self.events += 1;
        self.unexplained += u32::from(c.cost >= UNEXPLAINED);
        self.timed += u32::from(matches!(c.kind, EventKind::Due(_)));
    }

    /// Evidence from outside the data retransmissions (SYN back-off, `infer::syn`).
    pub fn add_cost(&mut self, cost: u64) {
        self.cost = self.cost.saturating_add(cost);
        self.events += 1;
        self.unexplained += u32::from(cost >= UNEXPLAINED);
        self.timed += 1;
    }
}

/// The timer granularity of a model (the coarser of its two event clocks).
pub fn timer_tick_ns(cfg: &TcpConfig) -> u64 {
    cfg.timers.slow.granularity().as_nanos().max(cfg.timers.fast.granularity().as_nanos())
}

/// The tolerance of a timing comparison (module docs).
pub fn tolerance_ns(cfg: &TcpConfig, slack_ns: u64, armed_ns: u64) -> u64 {
    TIMING_SLACK_NS
        .saturating_add(timer_tick_ns(cfg))
        .saturating_add(slack_ns)
        .saturating_add((RTO_REL_TOLERANCE * armed_ns as f64) as u64)
}

/// Cost of sending `err_ns` away from the due instant, with tolerance `tol_ns` (module docs).
pub fn timing_cost(err_ns: u64, tol_ns: u64) -> u64 {
    let tol = tol_ns.max(1);
    if err_ns <= tol {
        return WITHIN_TOLERANCE_COST * err_ns / tol;
    }
    let beyond = (err_ns - tol).min(tol);
    WITHIN_TOLERANCE_COST + (UNEXPLAINED - WITHIN_TOLERANCE_COST) * beyond / tol
}

/// The cost of one retransmission under the model `cfg` whose replay produced `ev`.
pub fn score_event(ev: &RetxEvidence, cfg: &TcpConfig) -> EventCost {
    let Some(e) = ev.explanation.as_ref() else {
        return EventCost { kind: EventKind::NoObserver, cost: 0 };
    };
    let at_sender = ev.slack_ns == 0;
    match instant(e) {
        Instant::Follows => EventCost { kind: EventKind::Follows, cost: 0 },
        Instant::Due { kind: DueKind::DupAcks, .. } if at_sender => {
            // RFC 5681 §3.2 step 2: the D-th duplicate ACK triggers it at once; more before it
            // means this model would have sent it at an earlier one.
            let cost = if e.dupacks > e.dupack_threshold { UNEXPLAINED } else { 0 };
            EventCost { kind: EventKind::Due(DueKind::DupAcks), cost }
        }
        Instant::Due { kind, at_ns, armed_ns } => {
            if ev.timer_unobservable && kind == DueKind::Timeout {
                return EventCost { kind: EventKind::Due(kind), cost: 0 };
            }
            let err = ev.sent_ns.abs_diff(at_ns);
            EventCost { kind: EventKind::Due(kind), cost: timing_cost(err, tolerance_ns(cfg, ev.slack_ns, armed_ns)) }
        }
        Instant::Early { rto_at_ns, armed_ns } => {
            let cost = match rto_at_ns {
                // The hidden queueing could make any armed timer the trigger.
                Some(_) if ev.timer_unobservable => 0,
                Some(d) => timing_cost(d.saturating_sub(ev.sent_ns), tolerance_ns(cfg, ev.slack_ns, armed_ns)),
                None => UNEXPLAINED,
            };
            EventCost { kind: EventKind::Premature, cost }
        }
    }
}

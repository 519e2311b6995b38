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
//!   premature case above); and the retransmission must follow the D-th at once (the
//!   timing cost with no timer share in the tolerance). Away from the sender the time since the D-th duplicate ACK is
//!   compared with the upstream round trip instead (duplicate ACKs keep passing the capture
//!   point while the retransmission travels).
//! - **SACK loss** (RFC 6675 §5 (4): IsLost(SND.UNA)), **RACK** (RFC 8985 §6.2 step 5 and
//!   §6.3: recovery entered on RACK's marking) and **tail loss probes** (RFC 8985 §7.3,
//!   PTO): the same timing cost against the instant IsLost first held / RACK marked / the
//!   PTO.
//! - **Which segment**: a timeout resends "the earliest segment that has not been
//!   acknowledged" (RFC 6298 (5.4)); a candidate whose timer had fired but that would not
//!   have resent this segment first (a tail loss probe resends the last) cannot explain it.
//! - **Recovery pattern**: a retransmission inside the candidate's own recovery (NextSeg,
//!   NewReno partial ACK, go-back-N after a timeout, RACK marking) costs nothing — and a
//!   retransmission the candidate cannot place in any of them costs [`UNEXPLAINED`].
//!
//! Tolerance of a timing comparison: [`TIMING_SLACK_NS`] + the send-time uncertainty of the
//! capture point + [`RTO_REL_TOLERANCE`] of the armed timer (the observer samples RTTs from
//! capture times, not from the sender's own clock, and its estimate drifts by a few percent:
//! `docs/design.md`, "the analyzer's RTO"). Within the tolerance the cost rises linearly to
//! [`WITHIN_TOLERANCE_COST`]; beyond it, linearly to [`UNEXPLAINED`] at twice the tolerance.
//!
//! Timer ticks ([`TickGrid`]): a candidate whose timers run on a tick (Table I "timer
//! granularity": a one-shot timer rounds its deadline up to a tick boundary, BSD's periodic
//! slow timer fires on one) fires on a grid of period g whose phase against the capture's
//! clock is unknown. The observer computes deadlines on the grid of phase 0, so the real
//! instant is within g of it either side. The first timed event of a connection fixes the
//! phase (only what lies beyond one tick counts as error); every later one must fall on
//! that grid: its error is
//! the distance to the nearer of the two grid points around the observer's deadline. So a
//! 500 ms-tick stack is not excused by its tick twice.
//!
//! Ambiguities resolved:
//! - Costs are integers (deterministic sums, no float ordering questions).
//! - A model whose timer could not be read at this capture point (`timer_unobservable`:
//!   away from the sender without timestamps) is scored on whether it explains the
//!   retransmission at all, not on timing: the hidden queueing could be any length, so an
//!   armed timer counts as a possible trigger (cost 0) whatever its deadline.

use tcplab_tcp::loss::RecoveryPhase;
use tcplab_tcp::observe::Trigger;
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
/// How precisely the handshake gap stands for the lag of later ACKs (`RetxEvidence::ack_lag_ns`)
/// (tcplab choice: well below the 1.2 ms between duplicate ACKs of full-sized segments at
/// 10 Mb/s, well above the microseconds by which the gap differs from the lag in the
/// simulator, where the capture sits on the sender's access link).
pub const ACK_LAG_PRECISION_NS: u64 = 250_000;
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
    /// A timer expiry that did not resend SND.UNA (RFC 6298 (5.4)).
    WrongSegment,
    /// A timeout whose timing cannot be read at this capture point (`timer_unobservable`):
    /// an armed timer explains it, at no cost and with no weight as evidence.
    Unobservable,
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
    /// Timer events the model placed inside its tolerance (cost below
    /// [`WITHIN_TOLERANCE_COST`]): retransmission-timer expiries, probe timeouts and SYN
    /// back-off gaps — the evidence that rests on the parameters of 003 Table I (minRTO,
    /// initial RTO, timer granularity) rather than on counting duplicate ACKs.
    pub timers_fit: u32,
}

impl ModelScore {
    pub fn add(&mut self, c: EventCost) {
        self.cost = self.cost.saturating_add(c.cost);
        self.events += 1;
        self.unexplained += u32::from(c.cost >= UNEXPLAINED);
        self.timed += u32::from(matches!(c.kind, EventKind::Due(_)));
        self.timers_fit += u32::from(matches!(c.kind, EventKind::Due(DueKind::Timeout | DueKind::Probe)) && c.cost < WITHIN_TOLERANCE_COST);
    }

    /// Evidence that excludes the model without being a retransmission or a timing (the first
    /// flight beyond its initial window, `infer::first_flight`): `cost` and one unexplained
    /// observation, no event.
    pub fn add_exclusion(&mut self, cost: u64) {
        if cost > 0 {
            self.cost = self.cost.saturating_add(cost);
            self.unexplained += 1;
        }
    }

    /// Evidence from outside the data retransmissions (SYN back-off, `infer::syn`).
    pub fn add_cost(&mut self, cost: u64) {
        self.cost = self.cost.saturating_add(cost);
        self.events += 1;
        self.unexplained += u32::from(cost >= UNEXPLAINED);
        self.timed += 1;
        self.timers_fit += u32::from(cost < WITHIN_TOLERANCE_COST);
    }
}

/// The tick of a model's retransmission timer (its slow clock, `tcplab_tcp::timer`).
pub fn timer_tick_ns(cfg: &TcpConfig) -> u64 {
    cfg.timers.slow.granularity().as_nanos()
}

/// The tolerance of a timing comparison without the tick (module docs).
pub fn tolerance_ns(slack_ns: u64, armed_ns: u64) -> u64 {
    TIMING_SLACK_NS.saturating_add(slack_ns).saturating_add((RTO_REL_TOLERANCE * armed_ns as f64) as u64)
}

/// The phase of a candidate's timer tick on the capture's clock, learnt from its first timed
/// event (module docs). One per candidate and direction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TickGrid {
    /// Offset of the sender's tick boundaries from the observer's (phase-0) ones, in
    /// [0, tick).
    pub offset_ns: Option<u64>,
}

impl TickGrid {
    /// Error of firing at `t` for a deadline `d` on the observer's grid of tick `g`; learns
    /// the offset on the first call (whose error is what lies beyond one tick).
    pub fn error(&mut self, g: u64, t: u64, d: u64) -> u64 {
        if g <= 1 {
            return t.abs_diff(d);
        }
        match self.offset_ns {
            None => {
                // Learnt only from an instant the tick can explain (within one tick).
                if t.abs_diff(d) < g {
                    self.offset_ns = Some((t % g + g - d % g) % g);
                }
                t.abs_diff(d).saturating_sub(g)
            }
            Some(off) => {
                // The sender's boundaries are the observer's moved by `off` (mod g): the
                // deadline on the sender's grid is d + off or d + off - g.
                let later = d.saturating_add(off);
                let earlier = later.saturating_sub(g);
                t.abs_diff(later).min(t.abs_diff(earlier))
            }
        }
    }
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

/// How far `t` is from when the model's retransmission timer can fire: armed at `started`
/// for `rto` on its clock — exactly then on a fine clock, in [started + rto, + one tick) on a
/// one-shot clock (rounded up to its tick), on the learnt grid of a periodic one
/// ([`TickGrid`], deadline `d`).
pub fn timer_error(cfg: &TcpConfig, grid: &mut TickGrid, t: u64, started: Option<u64>, rto: u64, d: u64) -> u64 {
    use tcplab_tcp::EventClock;
    let outside = |t: u64, lo: u64, hi: u64| if t < lo { lo - t } else { t.saturating_sub(hi) };
    match (cfg.timers.slow, started) {
        // BSD `tcp_slowtimo` counts n = ⌈rto/p⌉ tick boundaries after arming: the timer fires
        // in (started + (n−1)p, started + np] whatever the phase; once the phase is learnt,
        // on its grid.
        (EventClock::Periodic { period, .. }, Some(s)) if grid.offset_ns.is_none() => {
            let p = period.as_nanos().max(1);
            let n = rto.div_ceil(p).max(1);
            let err = outside(t, s.saturating_add((n - 1) * p).saturating_add(1), s.saturating_add(n * p));
            if err == 0 {
                grid.error(p, t, d);
            }
            err
        }
        (EventClock::Periodic { period, .. }, _) => grid.error(period.as_nanos(), t, d),
        (EventClock::OneShot { granularity }, Some(s)) => {
            let lo = s.saturating_add(rto);
            outside(t, lo, lo.saturating_add(granularity.as_nanos().saturating_sub(1)))
        }
        (EventClock::Fine, Some(s)) => t.abs_diff(s.saturating_add(rto)),
        (_, None) => t.abs_diff(d),
    }
}

/// The cost of one retransmission under the model `cfg` whose replay produced `ev`; `grid`
/// is the candidate's tick phase on this direction.
pub fn score_event(ev: &RetxEvidence, cfg: &TcpConfig, grid: &mut TickGrid) -> EventCost {
    let Some(e) = ev.explanation.as_ref() else {
        return EventCost { kind: EventKind::NoObserver, cost: 0 };
    };
    let at_sender = ev.slack_ns == 0;
    // RFC 6298 (5.4): on expiry "retransmit the earliest segment that has not been
    // acknowledged". A first retransmission of a timeout elsewhere (a tail probe of the last
    // segment, say) is not this model's timeout.
    let expiry = e.trigger == Trigger::Rto && !matches!(e.phase, RecoveryPhase::Loss { .. });
    if expiry && !e.at_una {
        return EventCost { kind: EventKind::WrongSegment, cost: UNEXPLAINED };
    }
    let by_ack = match instant(e) {
        Instant::Follows => EventCost { kind: EventKind::Follows, cost: 0 },
        Instant::Due { kind: DueKind::DupAcks, at_ns, .. } if at_sender => {
            // RFC 5681 §3.2 step 2: the D-th duplicate ACK triggers it at once (`at_ns` is when
            // it reached the sender); more before it means this model would have sent it at an
            // earlier one, and a long wait after it means the sender did not take it for its
            // trigger. Duplicate ACKs captured within the ACK lag had not reached the sender.
            let late = timing_cost(ev.sent_ns.abs_diff(at_ns), tolerance_ns(0, 0));
            // The (D+1)-th reached the sender only after the retransmission left (by more than
            // the gap's measurement error) when the capture sits away from its stack.
            let lagging = ev.ack_lag_ns > 0
                && e.dupthresh_next_at.is_some_and(|n| n.0 > ev.sent_ns.saturating_add(ACK_LAG_PRECISION_NS));
            let cost = if e.dupacks > e.dupack_threshold && !lagging { UNEXPLAINED } else { late };
            EventCost { kind: EventKind::Due(DueKind::DupAcks), cost }
        }
        Instant::Due { kind, at_ns, armed_ns } => {
            if ev.timer_unobservable && kind == DueKind::Timeout {
                // Explained, but no instant to compare: not timer evidence (`timers_fit`).
                return EventCost { kind: EventKind::Unobservable, cost: 0 };
            }
            let err = match kind {
                DueKind::Timeout => timer_error(cfg, grid, ev.sent_ns, e.rto_started.map(|s| s.0), e.rto.as_nanos(), at_ns),
                // The observer rounds the PTO up on its own tick grid (`Observer::schedule_pto`);
                // the sender's grid has an unknown phase on the capture's clock, so the probe
                // is due within one tick either side of the observer's (the simulator's grid
                // is the capture's; a real host's is not).
                DueKind::Probe => ev.sent_ns.abs_diff(at_ns).saturating_sub(timer_tick_ns(cfg).saturating_sub(1)),
                DueKind::DupAcks | DueKind::SackLoss | DueKind::RackLoss => ev.sent_ns.abs_diff(at_ns),
            };
            EventCost { kind: EventKind::Due(kind), cost: timing_cost(err, tolerance_ns(ev.slack_ns, armed_ns)) }
        }
        Instant::Early { rto_at_ns, armed_ns } => {
            let tol = tolerance_ns(ev.slack_ns, armed_ns);
            let by_rto = match rto_at_ns {
                // The hidden queueing could make any armed timer the trigger.
                Some(_) if ev.timer_unobservable => 0,
                // Premature: how much earlier than the timer can fire (no phase learnt from it).
                Some(d) => {
                    let err = timer_error(cfg, &mut grid.clone(), ev.sent_ns, e.rto_started.map(|s| s.0), e.rto.as_nanos(), d);
                    timing_cost(err, tol)
                }
                None => UNEXPLAINED,
            };
            // A tail sent just before the model's PTO: the probe, a little early.
            let by_pto = match e.pto_deadline {
                Some(p) if e.is_tail => timing_cost(p.0.abs_diff(ev.sent_ns), tolerance_ns(ev.slack_ns, 0)),
                _ => UNEXPLAINED,
            };
            let cost = by_rto.min(by_pto);
            EventCost { kind: EventKind::Premature, cost }
        }
    };
    // An ACK trigger that fits badly, with the retransmission timer running out at the same
    // instant (RFC 6298 (5.4) resends SND.UNA): the timer may have been the sender's trigger.
    // Measured: with the ACK lag applied, a timeout sent 1 µs before the replayed deadline
    // (the lag's measurement error) was read as a fast retransmit long after its duplicate
    // ACKs and cost the true `rfc6298` an unexplained retransmission.
    let ack_trigger = matches!(by_ack.kind, EventKind::Due(DueKind::DupAcks | DueKind::SackLoss | DueKind::RackLoss));
    if ack_trigger && by_ack.cost >= WITHIN_TOLERANCE_COST && e.at_una && !ev.timer_unobservable {
        if let Some(d) = e.rto_deadline {
            let err = timer_error(cfg, &mut grid.clone(), ev.sent_ns, e.rto_started.map(|s| s.0), e.rto.as_nanos(), d.0);
            let by_timer = timing_cost(err, tolerance_ns(ev.slack_ns, e.rto_started.map_or(0, |s| d.0.saturating_sub(s.0))));
            if by_timer < by_ack.cost {
                return EventCost { kind: EventKind::Due(DueKind::Timeout), cost: by_timer };
            }
        }
    }
    by_ack
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::Cause;
    use tcplab_tcp::observe::Explanation;
    use tcplab_tcp::Profile;
    use tcplab_time::SimTime;

    const MS: u64 = 1_000_000;

    fn cfg(name: &str) -> TcpConfig {
        Profile::by_name(name).map(|p| p.config()).unwrap_or_default()
    }

    fn ex(trigger: Trigger) -> Explanation {
        Explanation {
            phase: RecoveryPhase::Open,
            at_una: true,
            is_tail: false,
            dupacks: 0,
            dupack_threshold: 3,
            dupthresh_at: None,
            dupthresh_next_at: None,
            islost: false,
            islost_una_at: None,
            rack_lost: false,
            rack_deadline: None,
            rack_marked_at: None,
            rto: tcplab_time::SimDuration(300 * MS),
            rto_started: Some(SimTime(1000 * MS)),
            rto_deadline: Some(SimTime(1300 * MS)),
            rto_fired: trigger == Trigger::Rto,
            pto_deadline: None,
            pto_fired: false,
            trigger,
        }
    }

    fn score_event_fresh(e: &RetxEvidence, c: &TcpConfig) -> EventCost {
        score_event(e, c, &mut TickGrid::default())
    }

    fn ev(sent_ms: u64, e: Explanation) -> RetxEvidence {
        RetxEvidence { ts_ns: sent_ms * MS, sent_ns: sent_ms * MS, slack_ns: 0, ack_lag_ns: 0, explanation: Some(e), cause: Cause::Rto, timer_expiry: true, new_episode: true, timer_unobservable: false }
    }

    /// The cost curve: 0 on time, WITHIN_TOLERANCE_COST at the tolerance, UNEXPLAINED at
    /// twice it and beyond.
    #[test]
    fn timing_cost_is_piecewise_linear_and_capped() {
        assert_eq!(timing_cost(0, 10), 0);
        assert_eq!(timing_cost(5, 10), WITHIN_TOLERANCE_COST / 2);
        assert_eq!(timing_cost(10, 10), WITHIN_TOLERANCE_COST);
        assert_eq!(timing_cost(20, 10), UNEXPLAINED);
        assert_eq!(timing_cost(1000, 10), UNEXPLAINED);
    }

    /// When a timer can fire: exactly on a fine clock, within one tick after the deadline on a
    /// one-shot clock (Windows' 100 ms), within the last of its ticks on a periodic one (BSD:
    /// 1 s = 2 ticks of 500 ms fires 0.5-1 s after arming) until the phase is learnt.
    #[test]
    fn the_timer_window_follows_the_clock() {
        let mut g = TickGrid::default();
        let (rfc, win) = (cfg("rfc6298"), cfg("windows-xp"));
        assert_eq!(timer_error(&rfc, &mut g, 1250 * MS, Some(1000 * MS), 200 * MS, 1200 * MS), 50 * MS);
        // Windows: armed at 1000 ms for 230 ms fires in [1230, 1330) ms.
        assert_eq!(timer_error(&win, &mut g, 1300 * MS, Some(1000 * MS), 230 * MS, 1300 * MS), 0);
        assert_eq!(timer_error(&win, &mut g, 1200 * MS, Some(1000 * MS), 230 * MS, 1300 * MS), 30 * MS);
        assert_eq!(timer_error(&win, &mut g, 1400 * MS, Some(1000 * MS), 230 * MS, 1300 * MS), 70 * MS + 1);
        let bsd = cfg("bsd-lite");
        let mut b = TickGrid::default();
        assert_eq!(timer_error(&bsd, &mut b.clone(), 1300 * MS, Some(1000 * MS), 1000 * MS, 2000 * MS), 200 * MS + 1);
        assert_eq!(timer_error(&bsd, &mut b, 1800 * MS, Some(1000 * MS), 1000 * MS, 2000 * MS), 0);
        assert!(b.offset_ns.is_some(), "the phase is learnt from a timing inside the window");
    }

    /// Tolerance: slack + the capture point's uncertainty + 8 % of the armed timer.
    #[test]
    fn tolerance_adds_a_share_of_the_timer() {
        assert_eq!(tolerance_ns(0, 300 * MS), TIMING_SLACK_NS + 24 * MS);
        assert_eq!(tolerance_ns(5 * MS, 0), TIMING_SLACK_NS + 5 * MS);
        assert_eq!(timer_tick_ns(&cfg("windows-xp")), 100 * MS);
    }

    /// The first timed event fixes the tick phase (tolerance includes the tick); later ones
    /// must fall on that grid.
    #[test]
    fn the_tick_phase_is_learnt_once() {
        let mut g = TickGrid::default();
        // Observer's deadline 1000 ms on its 500 ms grid; the sender fired at 1200 ms.
        assert_eq!(g.error(500 * MS, 1200 * MS, 1000 * MS), 0);
        assert_eq!(g.offset_ns, Some(200 * MS));
        // Next deadline 2500 ms: the sender's grid puts it at 2700 or 2200 ms.
        assert_eq!(g.error(500 * MS, 2200 * MS, 2500 * MS), 0);
        assert_eq!(g.error(500 * MS, 2450 * MS, 2500 * MS), 250 * MS);
        // Beyond a tick on the first event: the excess is the error, no phase learnt.
        let mut h = TickGrid::default();
        assert_eq!(h.error(100 * MS, 1250 * MS, 1000 * MS), 150 * MS);
        assert_eq!(h.offset_ns, None);
        // A fine clock has no grid.
        assert_eq!(TickGrid::default().error(1, 7, 5), 2);
    }

    /// RFC 6298 (5.4): a timeout sent at the model's deadline costs nothing; 100 ms late for
    /// a 10 ms-tick model (tolerance 36 ms) it is unexplained.
    #[test]
    fn a_timeout_is_priced_against_the_armed_deadline() {
        let c = cfg("linux-2.4");
        assert_eq!(score_event_fresh(&ev(1300, ex(Trigger::Rto)), &c), EventCost { kind: EventKind::Due(DueKind::Timeout), cost: 0 });
        assert_eq!(score_event_fresh(&ev(1400, ex(Trigger::Rto)), &c).cost, UNEXPLAINED);
    }

    /// A retransmission no trigger explains is premature: priced by how early it came
    /// before the model's deadline (a little early is an estimate off; far early is not
    /// this model).
    #[test]
    fn a_premature_retransmission_is_priced_by_its_earliness() {
        let c = cfg("linux-2.4");
        let near = score_event_fresh(&ev(1290, ex(Trigger::Unknown)), &c);
        assert_eq!(near.kind, EventKind::Premature);
        assert!(near.cost < WITHIN_TOLERANCE_COST, "{near:?}");
        assert_eq!(score_event_fresh(&ev(1100, ex(Trigger::Unknown)), &c).cost, UNEXPLAINED);
        let mut unarmed = ex(Trigger::Unknown);
        unarmed.rto_deadline = None;
        assert_eq!(score_event_fresh(&ev(1100, unarmed), &c).cost, UNEXPLAINED);
    }

    /// RFC 5681 §3.2 step 2 at the sender: the D-th duplicate ACK triggers the fast
    /// retransmit at once; a fourth before it is not a D = 3 sender, and three before it
    /// are not a D = 2 one.
    #[test]
    fn the_duplicate_acks_before_a_fast_retransmit_match_dupthresh() {
        let mut e = ex(Trigger::DupThresh);
        e.rto_fired = false;
        e.dupthresh_at = Some(SimTime(1200 * MS));
        e.dupacks = 3;
        e.dupack_threshold = 3;
        assert_eq!(score_event_fresh(&ev(1200, e), &cfg("rfc6298")).cost, 0);
        // Sent 1 ms later: half the 2 ms slack.
        assert_eq!(score_event_fresh(&ev(1201, e), &cfg("rfc6298")).cost, WITHIN_TOLERANCE_COST / 2);
        // Sent 100 ms after the third, no timer running out then: not answering it.
        let mut no_timer = e;
        no_timer.rto_started = None;
        no_timer.rto_deadline = None;
        assert_eq!(score_event_fresh(&ev(1300, no_timer), &cfg("rfc6298")).cost, UNEXPLAINED);
        e.dupack_threshold = 2;
        assert_eq!(score_event_fresh(&ev(1200, e), &cfg("windows-xp")).cost, UNEXPLAINED);
    }

    /// A capture a link away from the sender (`ack_lag_ns` 2 ms): the observer applies each
    /// ACK 2 ms after its capture, and a fourth duplicate ACK captured before the fast
    /// retransmit but reaching the sender after it does not exclude D = 3; one that reached
    /// it before does (the sender would have answered it: D = 3 ran out at the third).
    #[test]
    fn duplicate_acks_captured_within_the_ack_lag_had_not_reached_the_sender() {
        let mut e = ex(Trigger::DupThresh);
        e.rto_fired = false;
        // Third duplicate ACK reached the sender at 1200 ms, the fourth at 1201.2 ms.
        e.dupthresh_at = Some(SimTime(1200 * MS));
        e.dupthresh_next_at = Some(SimTime(1201 * MS + 200_000));
        e.dupacks = 4;
        let mut v = ev(1200, e);
        v.ack_lag_ns = 2 * MS;
        assert_eq!(score_event_fresh(&v, &cfg("rfc6298")).cost, 0);
        // On the sender's host (no lag) four before it are one too many.
        v.ack_lag_ns = 0;
        assert_eq!(score_event_fresh(&v, &cfg("rfc6298")).cost, UNEXPLAINED);
        // The fourth reached the sender with the retransmission: it answered the fourth.
        let mut late = e;
        late.dupthresh_next_at = Some(SimTime(1200 * MS));
        let mut w = ev(1200, late);
        w.ack_lag_ns = 2 * MS;
        assert_eq!(score_event_fresh(&w, &cfg("rfc6298")).cost, UNEXPLAINED);
    }

    /// Duplicate ACKs counted long before, and the timer running out as the retransmission
    /// leaves: the timer explains it (RFC 6298 (5.4)), not a late fast retransmit.
    #[test]
    fn a_late_ack_trigger_at_the_timers_deadline_is_the_timeout() {
        let mut e = ex(Trigger::DupThresh);
        e.rto_fired = false;
        e.dupthresh_at = Some(SimTime(1000 * MS));
        e.dupacks = 3;
        // Sent at 1299.999 ms; the timer (armed at 1000 ms for 300 ms) runs out at 1300 ms.
        let mut v = ev(1300, e);
        v.sent_ns -= 1_000;
        let c = score_event_fresh(&v, &cfg("rfc6298"));
        assert_eq!(c.kind, EventKind::Due(DueKind::Timeout));
        assert!(c.cost < WITHIN_TOLERANCE_COST, "{c:?}");
        // Without a timer near, the late fast retransmit stays unexplained.
        e.rto_started = Some(SimTime(4700 * MS));
        e.rto_deadline = Some(SimTime(5000 * MS));
        assert_eq!(score_event_fresh(&ev(1300, e), &cfg("rfc6298")).cost, UNEXPLAINED);
    }

    /// RFC 6298 (5.4): the timer's expiry resends SND.UNA; resending the tail instead is not
    /// this model's timeout.
    #[test]
    fn a_timeout_resends_snd_una() {
        let mut e = ex(Trigger::Rto);
        e.at_una = false;
        assert_eq!(score_event_fresh(&ev(1300, e), &cfg("windows-xp")), EventCost { kind: EventKind::WrongSegment, cost: UNEXPLAINED });
    }

    /// Recovery retransmissions and go-back-N followers follow the model's own phase.
    #[test]
    fn retransmissions_inside_a_recovery_cost_nothing() {
        let mut e = ex(Trigger::NextSeg);
        e.phase = RecoveryPhase::Recovery { recover: tcplab_tcp::SeqNum(10), style: tcplab_tcp::cc::RecoveryStyle::Sack, first_rtx_done: true };
        assert_eq!(score_event_fresh(&ev(1100, e), &cfg("rfc6298")), EventCost { kind: EventKind::Follows, cost: 0 });
        let mut f = ex(Trigger::Rto);
        f.phase = RecoveryPhase::Loss { recover: tcplab_tcp::SeqNum(10) };
        f.rto_fired = false;
        assert_eq!(score_event_fresh(&ev(1100, f), &cfg("rfc6298")).kind, EventKind::Follows);
    }

    /// RFC 8985 §7.3: a probe at the PTO.
    #[test]
    fn a_probe_is_priced_against_the_pto() {
        let mut e = ex(Trigger::Tlp);
        e.rto_fired = false;
        e.pto_deadline = Some(SimTime(1100 * MS));
        assert_eq!(score_event_fresh(&ev(1100, e), &cfg("linux")).cost, 0);
        assert_eq!(score_event_fresh(&ev(1100, e), &cfg("linux")).kind, EventKind::Due(DueKind::Probe));
    }
}

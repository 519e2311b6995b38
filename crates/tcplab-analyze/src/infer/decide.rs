//! Decision and confidence: from the candidates' scores to a model name, a confidence, a
//! runner-up and the parameters the evidence identifies.
//!
//! 003 §IV-A keeps only the connections "for which the tool can unambiguously identify the
//! sender-side OS". Here:
//! - a model is named only when it explains the capture better than every other candidate
//!   by at least [`DECISION_MARGIN`] (about two unexplained retransmissions: timings far
//!   outside a candidate's tolerance, or retransmissions it cannot have sent) — or by
//!   [`CORROBORATED_MARGIN`] (one) when the capture is at the sender and the model placed
//!   at least [`CORROBORATING_TIMER_FITS`] (one) timer event inside its tolerance —, placed at least one timer event
//!   (timeout, probe, SYN back-off) inside its tolerance (`ModelScore::timers_fit`:
//!   duplicate-ACK counts alone infer D but name no OS), and itself explains every
//!   retransmission (no event at [`UNEXPLAINED`]: a capture the best
//!   candidate cannot explain either was sent by none of them, or the replay missed
//!   something — measured: such "best of bad" answers were the wrong ones). Otherwise
//!   `model` is `unknown` — never a guess — and the candidates within the margin of the best
//!   are listed (`model_candidates`);
//! - the confidence is the best model's share of exp(−cost / [`CONFIDENCE_SCALE`]) over all
//!   candidates (a softmax of the costs: a candidate one [`CONFIDENCE_SCALE`] worse weighs
//!   1/e as much);
//! - a parameter (DupThresh D, minRTO, k, the RTT sampling rule) is identified when some
//!   evidence excluded a candidate (the costs differ by at least the margin) and every
//!   candidate still within the margin of the best has the same value; otherwise it is
//!   `unknown`. (With no evidence every candidate is still in, so a parameter all profiles
//!   share is not reported as inferred: it was assumed, not observed.)
//!
//! - a candidate whose minimum RTO was fitted (`rto_min_fit.rs`: `linux` on a route with
//!   its own `rto_min`) needs [`DECISION_MARGIN`] everywhere: the fit is one more free
//!   parameter, and measured with the one-event margin at the sender, a 4-100 ms floor
//!   "explained" as an early timeout a retransmission no candidate's replay explained and
//!   named `linux` for 19 simulated senders of other profiles (no timeout among them);
//! - a candidate dropped from the replay early (`bank::PRUNE_MARGIN`) keeps the cost it had
//!   then, a lower bound; it can be named never, and when its bound comes within the margin
//!   of the best live candidate the result is `unknown`.
//!
//! Passive hints (`hints.rs`) enter only through [`decide_with_hint`]: when the replay
//! leaves candidates tied, the initial TTL's OS family (p0f: 128 Windows, 64 Unix) excludes
//! the other family's candidates and the same rule decides among the rest (`model_basis`
//! `replay+hint`). When candidates remain tied, the hint's pick among them is reported in
//! its own column (`os_hint_model`).

use tcplab_tcp::config::DupAckThreshold;
use tcplab_tcp::TcpConfig;

use super::score::{ModelScore, UNEXPLAINED, WITHIN_TOLERANCE_COST};

/// Cost by which the best candidate must beat every other one to be named (module docs):
/// two unexplained retransmissions, less what a timing inside its tolerance may cost the
/// winner. [`CORROBORATED_MARGIN`] (one retransmission's worth) replaces it where the
/// evidence is corroborated (see there). History of this constant: Measured (`examples/infer_corpus`, 10 flows × 2 seeds, plus the real Linux
/// captures of tests/fixtures/linux): with one retransmission's worth (900) 31 of 111
/// timeout connections were named right at the sender and none wrong, but 2 of 111 at the
/// bottleneck, 3 of 616 connections without a timeout, and one real Linux connection
/// (spike-ack, called solaris-10) were wrong; with two (1900) none is wrong anywhere and 5
/// of 111 are named. A wrong answer where `unknown` was possible is the one thing the
/// inference must not give, so the margin is two.
pub const DECISION_MARGIN: u64 = 2 * UNEXPLAINED - WITHIN_TOLERANCE_COST;
/// The margin when the evidence is corroborated: one unexplained retransmission less the
/// winner's in-tolerance cost, applied when the capture is at the sender (its timer
/// restarts and RTT samples are the sender's, `sender_replay::vantage_gap_ns`) and the
/// named candidate placed at least [`CORROBORATING_TIMER_FITS`] timer events (timeouts,
/// probes, SYN back-off) inside its tolerance. Measured after the replay fixes
/// (`examples/infer_corpus -- --flows 20 --seeds 4`, 416 timeout connections per capture
/// point, and the nine real Linux captures of tests/fixtures/linux):
/// - one event's margin everywhere: 132 of 416 named right at the sender and none wrong,
///   but 2 wrong at the bottleneck (a `linux-2.4` sender called `windows-xp`: away from the
///   sender the replay restarts its timer at capture times, and it took a backed-off
///   repeat for a go-back-N follower) and the real `spike-ack` Linux connection called
///   `solaris-10` (a spurious timeout after an ACK delay spike that happens to fall inside
///   Solaris' window while the replayed Linux is 157 ms off);
/// - one event's margin only with two fitted timer events at the sender: none wrong
///   anywhere (the single coincidental fit of `spike-ack` and the bottleneck's replay error
///   need the two-event margin);
/// - the two-event margin everywhere: none wrong, 25 of 416 named at the sender.
pub const CORROBORATED_MARGIN: u64 = UNEXPLAINED - WITHIN_TOLERANCE_COST;
/// Timer events the named candidate must fit for [`CORROBORATED_MARGIN`]. Re-measured
/// (infer4, `examples/infer_corpus -- --flows 20 --seeds 4`, 412 timeout connections per
/// capture point, the example's "decision margin sweep" re-running this rule on the recorded
/// scores; the nine real Linux captures with `-- --captures`):
///
/// | at the sender: margin, fitted timers | named right | wrong (timeout) | wrong (others) |
/// |---|---|---|---|
/// | 500, 1 | 148 | 0 | 0 |
/// | 900, 1 (this rule) | 125 | 0 | 0 |
/// | 900, 2 (the previous rule) | 57 | 0 | 0 |
/// | 1900, 1 | 28 | 0 | 0 |
///
/// and at the bottleneck 900 (one fit) names 75 right and 2 wrong, 1400 16 and 0, 1900 13 and
/// 0 — so away from the sender the two-event margin stays. The cost distributions behind
/// it: a rival excluded by one timeout costs exactly [`UNEXPLAINED`] more than the truth
/// (the breakdown's most common gap, "1000..1000"), while the truth's own in-tolerance
/// timings cost 0..100; the real `spike-ack` capture that made one fit unsafe last session
/// now scores linux 12 and solaris-10 29 (a tie at any margin, not a wrong answer), and no
/// real Linux capture is named anything but `linux` under this rule. One fitted timer at the
/// sender is therefore corroboration enough; 500 would name more but has no margin against a
/// rival's in-tolerance cost plus a partial miss, so it is not used.
pub const CORROBORATING_TIMER_FITS: u32 = 1;
/// The replay that classifies a connection whose model is `unknown`, when it is still among
/// the candidates left: the engine's defaults (RFC 5681/6675/6298), which `--model rfc` and
/// the analyzer before `auto` used. Measured: classifying an undecided connection with
/// the cheapest candidate instead (e.g. freebsd-5's 1.2 s minimum RTO for a 1 s sender)
/// called a 1 s timeout `sack_recovery` (tests/test_analyze.py's ground-truth check).
pub const FALLBACK_MODEL: &str = "rfc6298";

/// Temperature of the confidence softmax, in cost units (tcplab choice: a quarter of an
/// unexplained retransmission, so that one clear exclusion gives a confidence above 0.98
/// against a single rival).
pub const CONFIDENCE_SCALE: f64 = UNEXPLAINED as f64 / 4.0;

/// One candidate with its score.
#[derive(Clone, Debug)]
pub struct Candidate<'a> {
    pub name: &'a str,
    pub cfg: &'a TcpConfig,
    pub score: ModelScore,
    /// Dropped from the replay (`bank.rs`): its cost is a lower bound.
    pub pruned: bool,
    /// A variant whose minimum RTO was fitted to this connection (`rto_min_fit.rs`), not the
    /// profile's own: one more free parameter, so its evidence needs [`DECISION_MARGIN`]
    /// even where [`CORROBORATED_MARGIN`] would do.
    pub fitted: bool,
}

/// What the decision rests on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Basis {
    /// No retransmission told the candidates apart.
    None,
    /// The replay evidence named one candidate.
    Replay,
    /// Evidence excluded some candidates but left several within the margin.
    Tied,
    /// The replay left several within the margin; the passive hint (the OS the SYN's TTL,
    /// option layout and window scale point to, else its initial TTL's OS family) excluded
    /// some and the replay's rule named one among the rest ([`decide_with_hint`]).
    ReplayHint,
    /// The replay named none: it had no evidence at all (every candidate explains every
    /// retransmission) or left a tie it could not name by its own rule; the SYN's option
    /// layout matched one OS signature positively and exactly one of the candidates the replay
    /// left is not excluded by it ([`decide_with_hint`]'s second rule). A weaker answer than
    /// [`Basis::ReplayHint`]: the OS is the hint's, the replay only failed to contradict it.
    Hint,
}

impl Basis {
    pub const fn name(self) -> &'static str {
        match self {
            Basis::None => "none",
            Basis::Replay => "replay",
            Basis::Tied => "tied",
            Basis::ReplayHint => "replay+hint",
            Basis::Hint => "hint",
        }
    }
}

/// The parameters of 003 §II the evidence identifies (`None`: unknown).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InferredParams {
    /// DupThresh D.
    pub dupthresh: Option<u32>,
    /// minRTO, ns.
    pub min_rto_ns: Option<u64>,
    /// k of RTO = m·srtt + k·rttvar.
    pub k: Option<f64>,
    /// `per-ack`, `per-flight` or `auto` (timestamps decide).
    pub rtt_sampling: Option<&'static str>,
}

/// The inference for one sender (one direction of a connection).
#[derive(Clone, Debug, PartialEq)]
pub struct Inference {
    /// The profile name, or `None` for `unknown`.
    pub model: Option<String>,
    /// The best candidate's softmax share (module docs); `None` when no evidence.
    pub confidence: Option<f64>,
    /// The second best candidate when a model is named.
    pub runner_up: Option<String>,
    /// Candidates within [`DECISION_MARGIN`] of the best, best first (all of them when there
    /// is no evidence).
    pub candidates: Vec<String>,
    /// The replay that classifies the direction's retransmissions: the named model; when
    /// `unknown`, [`FALLBACK_MODEL`] if it is still a candidate, else the best-scoring one.
    pub replayed: String,
    pub basis: Basis,
    pub params: InferredParams,
    /// Retransmissions scored.
    pub events: u32,
    /// The score of every candidate, in candidate order.
    pub scores: Vec<(String, ModelScore)>,
}

impl Inference {
    /// `model` as the tables write it.
    pub fn model_name(&self) -> &str {
        self.model.as_deref().unwrap_or("unknown")
    }
}

fn same<T: PartialEq + Copy>(vals: impl Iterator<Item = T>) -> Option<T> {
    let mut it = vals;
    let first = it.next()?;
    it.all(|v| v == first).then_some(first)
}

fn dupthresh_of(cfg: &TcpConfig) -> Option<u32> {
    match cfg.dupack_threshold {
        DupAckThreshold::Fixed(d) => Some(d),
        _ => None,
    }
}

/// Decides among `cands` (candidate order = tie order); `at_sender`: the capture is at the
/// data sender (its timings are the sender's to within the capture's lag).
pub fn decide(cands: &[Candidate<'_>], at_sender: bool) -> Inference {
    decide_among(cands, at_sender, false)
}

/// [`decide`]'s rule; `replay_had_evidence`: the replay over every candidate already had
/// evidence (some candidate's cost beyond the margin), when `cands` is what a passive hint
/// left of them ([`decide_with_hint`]).
fn decide_among(cands: &[Candidate<'_>], at_sender: bool, replay_had_evidence: bool) -> Inference {
    let scores = cands.iter().map(|c| (c.name.to_string(), c.score)).collect();
    let events = cands.iter().map(|c| c.score.events).max().unwrap_or(0);
    let Some(best) = cands.iter().enumerate().min_by_key(|(i, c)| (c.score.cost, c.pruned, *i)).map(|(_, c)| c) else {
        return Inference { model: None, confidence: None, runner_up: None, candidates: Vec::new(), replayed: String::new(), basis: Basis::None, params: InferredParams::default(), events, scores };
    };
    // The margin the evidence needs (module docs; `CORROBORATED_MARGIN`).
    let margin = if at_sender && best.score.timers_fit >= CORROBORATING_TIMER_FITS && !best.fitted { CORROBORATED_MARGIN } else { DECISION_MARGIN };
    let mut order: Vec<&Candidate<'_>> = cands.iter().collect();
    order.sort_by_key(|c| (c.score.cost, c.pruned)); // stable: ties keep candidate order
    let fallback = order.iter().find(|c| c.name == FALLBACK_MODEL && !c.pruned && c.score.cost < best.score.cost + margin);
    // The model that classifies the connection: the fallback if plausible, else the best
    // not dropped from the replay, else (every candidate dropped early, which the
    // `analyzer_inference` fuzz target reached, 2026-11-25) the best by cost: `replayed`
    // always names a candidate.
    let replayed = fallback.or_else(|| order.iter().find(|c| !c.pruned)).copied().unwrap_or(best).name.to_string();
    let worst = order.last().map_or(0, |c| c.score.cost);
    let evidence = events > 0 && (replay_had_evidence || worst - best.score.cost >= margin);
    let plausible: Vec<&Candidate<'_>> = order.iter().copied().filter(|c| c.score.cost < best.score.cost + margin).collect();
    let candidates = plausible.iter().map(|c| c.name.to_string()).collect();
    if !evidence {
        return Inference { model: None, confidence: None, runner_up: None, candidates, replayed, basis: Basis::None, params: InferredParams::default(), events, scores };
    }
    let params = InferredParams {
        dupthresh: same(plausible.iter().map(|c| dupthresh_of(c.cfg))).flatten(),
        min_rto_ns: same(plausible.iter().map(|c| c.cfg.rto.min.as_nanos())),
        k: same(plausible.iter().map(|c| c.cfg.rto.k)).map(|k| k.as_f64()),
        rtt_sampling: same(plausible.iter().map(|c| c.cfg.rtt_sampling)).map(|s| s.name()),
    };
    let weight = |c: &Candidate<'_>| (-((c.score.cost - best.score.cost) as f64) / CONFIDENCE_SCALE).exp();
    let total: f64 = cands.iter().map(weight).sum();
    let share = |c: &Candidate<'_>| weight(c) / total;
    match plausible.as_slice() {
        // The one left must itself explain every retransmission (else the capture was sent
        // by none of the candidates, or the replay missed something: no answer).
        [c] if !c.pruned && c.score.unexplained == 0 && c.score.timers_fit > 0 => {
            let runner_up = order.iter().find(|o| o.name != c.name).map(|o| o.name.to_string());
            Inference { model: Some(c.name.to_string()), confidence: Some(share(c)), runner_up, candidates, replayed: c.name.to_string(), basis: Basis::Replay, params, events, scores }
        }
        _ => Inference { model: None, confidence: Some(share(best)), runner_up: None, candidates, replayed, basis: Basis::Tied, params, events, scores },
    }
}

/// [`decide`], and where the replay leaves candidates tied ([`Basis::Tied`]: it had evidence
/// against some candidates but not one left), the same rule among the candidates the passive
/// hint does not exclude (`PassiveHints::excludes`: the OS its TTL, option layout and window
/// scale point to, else its initial TTL's OS family; p0f). Every excluded candidate is
/// dropped, and the rest must pass the rule again (margin among the rest, fitted timer, every
/// retransmission explained, not pruned); the replay's evidence against the dropped ones
/// stands as the evidence the rule needs. The one named must also be one the replay left
/// tied: the hint never names a candidate the replay rejected, and never overrides an
/// answer the replay gave. The answer's basis is [`Basis::ReplayHint`]; `scores` keeps every
/// candidate.
///
/// Second rule (basis [`Basis::Hint`], issue 11: hints "may break ties"; a tie among all
/// candidates is a tie too): when the first rule names nothing, with retransmissions scored
/// ([`Inference::events`] > 0) and the hint a positive OS-signature match
/// (`PassiveHints::os_match`; the initial TTL's family alone is not enough), the candidates
/// the replay left (within its margin of the best; all of them when it had no evidence) that
/// the signature does not exclude must be exactly one, not pruned, and explain every
/// retransmission itself; it is named. `rfc6298` models no OS, so no signature excludes it:
/// while the replay leaves it, such a tie stays `unknown` (a sender configured by the RFCs
/// writes some stack's layout; the simulator's writes Linux's). The confidence is the named
/// candidate's replay share (the softmax of the replay costs over every candidate: 1/7 when
/// the replay told none apart) — the hint adds no probability to it. No fitted timer event
/// is required: the OS comes from the signature, the replay only must not contradict it.
pub fn decide_with_hint(cands: &[Candidate<'_>], at_sender: bool, hint: Option<&super::PassiveHints>) -> Inference {
    let by_replay = decide(cands, at_sender);
    let Some(h) = hint else { return by_replay };
    if by_replay.basis == Basis::Tied {
        let kept: Vec<Candidate<'_>> = cands.iter().filter(|c| !h.excludes(c.name)).cloned().collect();
        if kept.len() < cands.len() {
            let by_hint = decide_among(&kept, at_sender, true);
            if let Some(m) = &by_hint.model {
                if by_replay.candidates.contains(m) {
                    return Inference { basis: Basis::ReplayHint, scores: by_replay.scores, events: by_replay.events, ..by_hint };
                }
            }
        }
    }
    if by_replay.model.is_some() || by_replay.events == 0 || h.os_match().is_none() {
        return by_replay;
    }
    let mut left = cands.iter().filter(|c| by_replay.candidates.iter().any(|n| n == c.name) && !h.excludes(c.name));
    let (Some(c), None) = (left.next(), left.next()) else { return by_replay };
    if c.pruned || c.score.unexplained > 0 {
        return by_replay;
    }
    let weight = |o: &Candidate<'_>| (-(o.score.cost as f64 - c.score.cost as f64) / CONFIDENCE_SCALE).exp();
    let total: f64 = cands.iter().map(weight).sum();
    let mut order: Vec<&Candidate<'_>> = cands.iter().filter(|o| o.name != c.name).collect();
    order.sort_by_key(|o| (o.score.cost, o.pruned));
    Inference {
        model: Some(c.name.to_string()),
        confidence: Some(1.0 / total),
        runner_up: order.first().map(|o| o.name.to_string()),
        replayed: c.name.to_string(),
        basis: Basis::Hint,
        ..by_replay
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::Profile;

    fn cfgs() -> Vec<(&'static str, TcpConfig)> {
        ["linux-2.4", "windows-xp", "rfc6298"].into_iter().map(|n| (n, Profile::by_name(n).map(|p| p.config()).unwrap_or_default())).collect()
    }

    fn cands<'a>(c: &'a [(&'static str, TcpConfig)], costs: &[u64], events: u32) -> Vec<Candidate<'a>> {
        c.iter().zip(costs).map(|((n, cfg), &cost)| Candidate { name: n, cfg, score: ModelScore { cost, events, unexplained: 0, timed: events, timers_fit: events }, pruned: false, fitted: false }).collect()
    }

    /// No retransmission: unknown, no confidence, no parameter (003 §IV-A "unambiguously").
    #[test]
    fn no_evidence_is_unknown_and_infers_nothing() {
        let c = cfgs();
        let i = decide(&cands(&c, &[0, 0, 0], 0), false);
        assert_eq!((i.model_name(), i.confidence, i.basis), ("unknown", None, Basis::None));
        assert_eq!(i.params, InferredParams::default());
        assert_eq!(i.candidates.len(), 3);
    }

    /// Every candidate dropped from the replay early (found by the `analyzer_inference` fuzz
    /// target: `replayed` was empty): `replayed` still names a candidate, the best by cost.
    #[test]
    fn with_every_candidate_pruned_the_replayed_model_is_still_a_candidate() {
        let c = cfgs();
        let mut v = cands(&c, &[6000, 4000, 6000], 4);
        for x in &mut v {
            x.pruned = true;
            x.score.unexplained = 4;
        }
        let i = decide(&v, true);
        assert_eq!(i.replayed, "windows-xp");
        assert_eq!(i.model_name(), "unknown");
    }

    /// Equal costs with events are still no evidence.
    #[test]
    fn equal_costs_tell_nothing_apart() {
        let c = cfgs();
        assert_eq!(decide(&cands(&c, &[100, 100, 100], 2), false).basis, Basis::None);
    }

    /// The best by a margin but with an unexplained retransmission of its own: unknown.
    #[test]
    fn a_best_that_cannot_explain_everything_is_not_named() {
        let c = cfgs();
        let mut v = cands(&c, &[4000, 1000, 4000], 4);
        v[1].score.unexplained = 1;
        assert_eq!(decide(&v, false).model_name(), "unknown");
    }

    /// A margin of DECISION_MARGIN names the best; the runner-up is the second best.
    #[test]
    fn a_clear_margin_names_the_best_with_its_runner_up() {
        let c = cfgs();
        let i = decide(&cands(&c, &[3000, 0, 2000], 3), false);
        assert_eq!((i.model_name(), i.runner_up.as_deref(), i.basis), ("windows-xp", Some("rfc6298"), Basis::Replay));
        // exp(0) / (exp(0) + exp(-12) + exp(-8))
        let want = 1.0 / (1.0 + (-12.0f64).exp() + (-8.0f64).exp());
        assert!((i.confidence.unwrap() - want).abs() < 1e-12);
        assert_eq!(i.params.dupthresh, Some(2));
        assert_eq!(i.params.min_rto_ns, Some(200_000_000));
    }

    /// Two candidates within the margin: unknown, both listed, and the parameters they
    /// share are identified (linux-2.4 and windows-xp share the 200 ms minimum, not D).
    #[test]
    fn a_tie_is_unknown_but_shared_parameters_are_inferred() {
        let c = cfgs();
        let i = decide(&cands(&c, &[0, 800, 2000], 2), false);
        assert_eq!((i.model_name(), i.basis), ("unknown", Basis::Tied));
        assert_eq!(i.candidates, vec!["linux-2.4".to_string(), "windows-xp".to_string()]);
        assert_eq!(i.params.min_rto_ns, Some(200_000_000));
        assert_eq!(i.params.dupthresh, None);
        assert_eq!(i.replayed, "linux-2.4");
    }

    /// The margin excludes every rival, but the best placed no timer event (timeout, probe,
    /// SYN back-off) inside its tolerance: duplicate-ACK counts alone do not name an OS.
    #[test]
    fn a_model_is_named_only_on_timer_evidence() {
        let c = cfgs();
        let mut v = cands(&c, &[3000, 0, 2000], 3);
        v[1].score.timers_fit = 0;
        let i = decide(&v, false);
        assert_eq!((i.model_name(), i.basis), ("unknown", Basis::Tied));
        v[1].score.timers_fit = 1;
        assert_eq!(decide(&v, false).model_name(), "windows-xp");
    }

    /// At the sender, a timer event fitted inside the winner's tolerance corroborates its
    /// evidence: one unexplained retransmission per rival is then enough. No fitted timer
    /// event, or a capture away from the sender, needs the two-event margin.
    #[test]
    fn one_events_margin_needs_a_fitted_timer_at_the_sender() {
        let c = cfgs();
        let mut v = cands(&c, &[1000, 0, 1000], 1);
        assert_eq!(decide(&v, true).model_name(), "windows-xp");
        assert_eq!(decide(&v, false).model_name(), "unknown", "away from the sender");
        v[1].score.timers_fit = 0;
        assert_eq!(decide(&v, true).model_name(), "unknown", "no fitted timer");
        // A rival within the one-event margin keeps it unknown at the sender too.
        let w = cands(&c, &[850, 0, 1000], 1);
        assert_eq!(decide(&w, true).model_name(), "unknown");
    }

    /// A dropped candidate's cost is a lower bound: it can never be named, and the result
    /// is unknown when it is the lowest.
    #[test]
    fn a_pruned_candidate_is_never_named() {
        let c = cfgs();
        let mut v = cands(&c, &[0, 3000, 2500], 3);
        assert!(2500 >= DECISION_MARGIN);
        v[0].pruned = true;
        let i = decide(&v, false);
        assert_eq!(i.model_name(), "unknown");
        assert_eq!(i.replayed, "rfc6298");
    }

    /// A tie between a Unix and a Windows candidate is broken by a Unix TTL (basis
    /// replay+hint); the rule must still hold among the rest (here rfc6298 stays within the
    /// margin of linux-2.4, so no name), and a Windows TTL leaves the other one.
    #[test]
    fn the_initial_ttl_breaks_a_tie_between_families_only() {
        use tcplab_tcp::{SeqNum, TcpFlags, TcpOptions, Segment};
        let syn = Segment { seq: SeqNum(1), flags: TcpFlags::SYN, window: 65535, options: TcpOptions::default(), ..Default::default() };
        let unix = super::super::PassiveHints::from_syn(60, &syn, &[]).unwrap();
        let win = super::super::PassiveHints::from_syn(120, &syn, &[]).unwrap();
        let c = cfgs();
        let v = cands(&c, &[0, 10, 2000], 1);
        assert_eq!(decide(&v, true).basis, Basis::Tied);
        let i = decide_with_hint(&v, true, Some(&unix));
        assert_eq!((i.model_name(), i.basis, i.replayed.as_str()), ("linux-2.4", Basis::ReplayHint, "linux-2.4"));
        assert_eq!(i.scores.len(), 3);
        assert_eq!(decide_with_hint(&v, true, Some(&win)).model_name(), "windows-xp");
        assert_eq!(decide_with_hint(&v, true, None).model_name(), "unknown");
        // rfc6298 (no family) within the margin: still tied.
        let w = cands(&c, &[0, 10, 500], 1);
        assert_eq!(decide_with_hint(&w, true, Some(&unix)).model_name(), "unknown");
    }

    fn named(names: &[&'static str]) -> Vec<(&'static str, TcpConfig)> {
        names.iter().map(|&n| (n, Profile::by_name(n).map(|p| p.config()).unwrap_or_default())).collect()
    }

    /// A real Linux SYN's hint (TTL 64, `mss,sok,ts,nop,ws`, window scale 10).
    fn linux_syn_hint() -> super::super::PassiveHints {
        use tcplab_tcp::{SeqNum, TcpFlags, TcpOptions, Segment};
        let o = TcpOptions { mss: Some(1460), window_scale: Some(10), sack_permitted: true, timestamps: Some((1, 0)), ..Default::default() };
        let syn = Segment { seq: SeqNum(1), flags: TcpFlags::SYN, window: 64240, options: o, ..Default::default() };
        super::super::PassiveHints::from_syn(64, &syn, &[2, 4, 8, 1, 3]).unwrap()
    }

    /// The replay ties linux, linux-2.4 and solaris-10 (windows-xp and rfc6298 excluded by
    /// its evidence); the Linux layout with scale 10 points to `linux` alone and the rule
    /// names it (basis replay+hint), with every score kept. With `rfc6298` in the tie the
    /// answer stays unknown: it models no OS, so no layout excludes it.
    #[test]
    fn the_option_layout_breaks_a_tie_the_replay_left() {
        let c = named(&["linux", "linux-2.4", "windows-xp", "solaris-10", "rfc6298"]);
        let v = cands(&c, &[0, 0, 3000, 100, 2500], 2);
        assert_eq!(decide(&v, true).basis, Basis::Tied);
        let i = decide_with_hint(&v, true, Some(&linux_syn_hint()));
        assert_eq!((i.model_name(), i.basis), ("linux", Basis::ReplayHint));
        assert_eq!(i.scores.len(), 5);
        // The same tie away from the sender: the two-event margin holds among the rest too.
        assert_eq!(decide_with_hint(&v, false, Some(&linux_syn_hint())).model_name(), "linux");
        let with_rfc = cands(&c, &[0, 0, 3000, 100, 0], 2);
        let j = decide_with_hint(&with_rfc, true, Some(&linux_syn_hint()));
        assert_eq!((j.model_name(), j.basis), ("unknown", Basis::Tied));
    }

    /// The hint never overrides the replay: a `linux` the replay rejected (its cost beyond
    /// the margin) stays rejected although the SYN is Linux's; a model the replay named stays
    /// named; and a `linux` that leaves a retransmission unexplained is not named on the hint
    /// either.
    #[test]
    fn the_option_layout_never_overrides_replay_evidence() {
        let c = named(&["linux", "solaris-10", "windows-xp"]);
        let h = linux_syn_hint();
        let against = cands(&c, &[2000, 0, 0], 2);
        let i = decide_with_hint(&against, true, Some(&h));
        assert_eq!((i.model_name(), i.basis), ("unknown", Basis::Tied));
        let named_by_replay = cands(&c, &[3000, 0, 2500], 2);
        assert_eq!(decide_with_hint(&named_by_replay, true, Some(&h)).model_name(), "solaris-10");
        let mut unexplained = cands(&c, &[0, 0, 3000], 2);
        unexplained[0].score.unexplained = 1;
        assert_eq!(decide_with_hint(&unexplained, true, Some(&h)).model_name(), "unknown");
        // Without a fitted timer event the replay's rule (`replay+hint`) cannot name it; the
        // signature's rule (`hint`) does, solaris-10 and windows-xp being another OS.
        let mut no_timer = cands(&c, &[0, 0, 3000], 2);
        no_timer[0].score.timers_fit = 0;
        let i = decide_with_hint(&no_timer, true, Some(&h));
        assert_eq!((i.model_name(), i.basis), ("linux", Basis::Hint));
        // No evidence at all (every cost equal): no answer from the replay; among these three
        // (no `rfc6298`, which no signature excludes) the signature leaves `linux` alone, and a
        // tie among all candidates is a tie: named by the hint (issue 11: hints "may break
        // ties"), with the replay's share 1/3.
        let none = cands(&c, &[0, 0, 0], 2);
        assert_eq!(decide(&none, true).basis, Basis::None);
        let i = decide_with_hint(&none, true, Some(&h));
        assert_eq!((i.model_name(), i.basis), ("linux", Basis::Hint));
        assert!((i.confidence.unwrap() - 1.0 / 3.0).abs() < 1e-12);
    }

    /// The second rule (basis `hint`): the replay named nothing — no evidence at all, or a
    /// tie it cannot name because no timer event fitted —, the SYN's layout is Linux 2.6+'s,
    /// and of the candidates the replay left only `linux` is not excluded by it: named, with
    /// the replay's own share as confidence. With `rfc6298` left by the replay the tie stays
    /// (no signature excludes it), and a TTL family alone never names.
    #[test]
    fn a_positive_os_signature_decides_a_tie_the_replay_could_not_name() {
        let c = named(&["linux", "linux-2.4", "windows-xp", "solaris-10", "rfc6298"]);
        let h = linux_syn_hint();
        // Every candidate explains every retransmission: rfc6298 is left, no answer.
        let all_tied = cands(&c, &[0, 0, 0, 0, 0], 2);
        assert_eq!(decide_with_hint(&all_tied, true, Some(&h)).basis, Basis::None);
        // The replay excluded rfc6298 (the first flight beyond its initial window, say) but
        // fitted no timer event: `replay+hint` cannot name, the second rule does.
        let mut v = cands(&c, &[0, 0, 0, 0, 2000], 2);
        v.iter_mut().for_each(|x| x.score.timers_fit = 0);
        assert_eq!(decide(&v, true).model_name(), "unknown");
        let i = decide_with_hint(&v, true, Some(&h));
        assert_eq!((i.model_name(), i.basis, i.replayed.as_str()), ("linux", Basis::Hint, "linux"));
        // Four candidates at equal cost, one far: the replay's share is about 1/4.
        let conf = i.confidence.unwrap();
        assert!((conf - 1.0 / (4.0 + (-8.0f64).exp())).abs() < 1e-9, "{conf}");
        assert_eq!(i.scores.len(), 5);
        // Not if the one left leaves a retransmission unexplained, or was pruned.
        let mut u = v.clone();
        u[0].score.unexplained = 1;
        assert_eq!(decide_with_hint(&u, true, Some(&h)).model_name(), "unknown");
        let mut p = v.clone();
        p[0].pruned = true;
        assert_eq!(decide_with_hint(&p, true, Some(&h)).model_name(), "unknown");
        // A Linux layout with a small window scale points to both Linux profiles: still tied.
        let old = {
            use tcplab_tcp::{SeqNum, TcpFlags, TcpOptions, Segment};
            let o = TcpOptions { mss: Some(1460), window_scale: Some(1), sack_permitted: true, timestamps: Some((1, 0)), ..Default::default() };
            let syn = Segment { seq: SeqNum(1), flags: TcpFlags::SYN, window: 5840, options: o, ..Default::default() };
            super::super::PassiveHints::from_syn(64, &syn, &[2, 4, 8, 1, 3]).unwrap()
        };
        assert_eq!(decide_with_hint(&v, true, Some(&old)).model_name(), "unknown");
        // The TTL family alone (a layout no signature lists) never names by this rule.
        let ttl_only = {
            use tcplab_tcp::{SeqNum, TcpFlags, TcpOptions, Segment};
            let syn = Segment { seq: SeqNum(1), flags: TcpFlags::SYN, window: 65535, options: TcpOptions::default(), ..Default::default() };
            super::super::PassiveHints::from_syn(60, &syn, &[]).unwrap()
        };
        assert!(ttl_only.os_match().is_none());
        assert_eq!(decide_with_hint(&v, true, Some(&ttl_only)).model_name(), "unknown");
        // No retransmission scored: nothing to decide.
        let mut none = v.clone();
        none.iter_mut().for_each(|x| x.score.events = 0);
        assert_eq!(decide_with_hint(&none, true, Some(&h)).model_name(), "unknown");
    }

    /// A best candidate whose minimum RTO was fitted (`rto_min_fit.rs`) needs the two-event
    /// margin even at the sender with a fitted timer: one rival one event behind leaves it
    /// unknown, two name it.
    #[test]
    fn a_fitted_minimum_rto_needs_the_two_event_margin() {
        let c = cfgs();
        let mut v = cands(&c, &[1000, 0, 1000], 1);
        assert_eq!(decide(&v, true).model_name(), "windows-xp");
        v[1].fitted = true;
        assert_eq!(decide(&v, true).model_name(), "unknown");
        let mut w = cands(&c, &[2000, 0, 2000], 2);
        w[1].fitted = true;
        assert_eq!(decide(&w, true).model_name(), "windows-xp");
    }
}

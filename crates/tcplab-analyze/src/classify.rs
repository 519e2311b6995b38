//! Cause of one retransmission, decided from the emulated sender state at the moment it was
//! sent (or, away from the sender, seen).
//!
//! Rewaskar, Kaur & Smith §III-A: a retransmission is either triggered by the expiry of the
//! retransmission timer (RTO), by the arrival of DupThresh duplicate ACKs (fast retransmit
//! and the fast-recovery retransmissions that follow it, FR/R), or by SACK information; a
//! passive analyzer tells them apart by replaying the sender's state, not by pattern
//! matching on the trace. The rules, in the order applied:
//!
//! 1. In a timeout recovery (RFC 5681 §3.1 / RFC 6298 (5.4)-(5.6)): every retransmission is
//!    `rto` — the timeout retransmission itself, its go-back-N followers and the backed-off
//!    repeats.
//! 2. In a fast / SACK / NewReno recovery: a retransmission of SND.UNA after the timer could
//!    have expired (elapsed since the timer was last restarted ≥ [`RTO_ELAPSED_FRACTION`] of
//!    the minimum RTO) is `rto` (the RTO that ends a failed fast recovery, RFC 6582 §4 /
//!    RFC 6675 §5.1); any other is `sack_recovery` (RFC 6675 §5 (C), RFC 6582 §3.2 step 4
//!    partial-ACK retransmissions).
//! 3. Outside recovery: DupThresh duplicate ACKs seen (RFC 5681 §3.2 step 2), or, with SACK,
//!    more than (DupThresh-1)*SMSS bytes SACKed above SND.UNA (RFC 6675 §4 IsLost, §5 step 4)
//!    → `fast_retransmit`, and so is a retransmission of a segment the model's RACK (RFC 8985
//!    §6.2 step 5, §6.3) had marked lost; else elapsed ≥ the minimum RTO fraction → `rto` (where the timer
//!    cannot be read — away from the sender without timestamps — a retransmission of SND.UNA
//!    with no fast-retransmit trigger is `rto` when the model has no other trigger, and so is
//!    one after a tail loss probe that no ACK has answered yet, RFC 8985 §7.3); else, when the
//!    model has tail loss probes and this is the highest segment sent with no duplicate ACK
//!    (RFC 8985 §7.3) → `tlp`; else `unknown` (never a guess).

use serde::Serialize;

/// A retransmission is called timer-driven when the time since the retransmission timer was
/// last (re)started is at least this fraction of the model's minimum RTO. Below 1 to absorb
/// clock granularity (RFC 6298 (2.2) G) and the capture point's offset from the sender;
/// the RTO can never be shorter than its minimum (RFC 6298 (2.4)).
pub const RTO_ELAPSED_FRACTION: f64 = 0.9;

/// Retransmission causes (column `cause`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    Rto,
    FastRetransmit,
    SackRecovery,
    Tlp,
    Unknown,
}

impl Cause {
    pub const ALL: [Cause; 5] = [Cause::Rto, Cause::FastRetransmit, Cause::SackRecovery, Cause::Tlp, Cause::Unknown];
    pub const fn name(self) -> &'static str {
        match self {
            Cause::Rto => "rto",
            Cause::FastRetransmit => "fast_retransmit",
            Cause::SackRecovery => "sack_recovery",
            Cause::Tlp => "tlp",
            Cause::Unknown => "unknown",
        }
    }
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// The sender's recovery phase as the replay sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PhaseKind {
    Open,
    /// Fast / SACK / NewReno recovery.
    Recovery,
    /// Timeout recovery (go-back-N).
    Timeout,
}

/// Everything the cause decision looks at.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CauseInput {
    pub phase: PhaseKind,
    /// The retransmission starts at (or below) SND.UNA.
    pub at_una: bool,
    pub dupacks: u32,
    pub dupack_threshold: u32,
    /// RFC 6675 IsLost(SND.UNA) holds on the SACK scoreboard.
    pub sack_lost: bool,
    /// The model runs RACK (RFC 8985 §6) and RACK had marked the retransmitted segment lost.
    pub rack_lost: bool,
    /// Time since the retransmission timer was last (re)started.
    pub elapsed_ns: u64,
    /// The shortest retransmission timeout the sender can have had (the profile's minimum
    /// RTO).
    pub rto_ns: u64,
    /// Ends at the highest sequence number sent.
    pub is_tail: bool,
    pub tlp_model: bool,
    /// The timer cannot be read here: away from the sender without timestamps, the time
    /// the sender waited is hidden by the queueing between it and the capture point.
    pub timer_unobservable: bool,
    /// A tail loss probe was sent and no ACK has arrived since: RFC 8985 §7.3 allows no
    /// second probe ("there is no other previous loss probe still in flight"; "the sender has
    /// obtained an RTT measurement since the last loss probe"), and no ACK-driven trigger can
    /// have fired.
    pub probe_unanswered: bool,
}

/// The decision, and whether it starts a new loss episode (a new "loss detection" in the
/// sense of §IV-B).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CauseDecision {
    pub cause: Cause,
    pub new_episode: bool,
    pub next_phase: PhaseKind,
    /// This retransmission is the timer's expiry itself (RFC 6298 (5.4)): the first of a
    /// timeout recovery or a backed-off repeat (5.5). Only then does the timer restart with
    /// it (5.6); go-back-N followers are sent while the timer runs (5.1 does not restart it).
    pub timer_expiry: bool,
}

fn timer_could_have_fired(i: &CauseInput) -> bool {
    i.elapsed_ns as f64 >= RTO_ELAPSED_FRACTION * i.rto_ns as f64
}

/// Rule 3's elimination where the timer cannot be read: the capture sees every duplicate
/// ACK and SACK block the sender can have seen (ACKs lost beyond the capture point only
/// remove some), so with too few for a fast retransmit, a retransmission of SND.UNA by a
/// sender whose model has no other trigger (no tail loss probe) was sent by its timer.
///
/// The same elimination after an unanswered loss probe: the probe timer cannot fire again
/// before an ACK (RFC 8985 §7.3), no ACK came to clock a fast retransmit, so a retransmission
/// of SND.UNA was sent by the retransmission timer, whatever its minimum (a per-route
/// `rto_min` below the profile's, real kernel `rto-min-50ms`, is invisible on the wire).
fn timeout_by_elimination(i: &CauseInput) -> bool {
    i.at_una && ((i.timer_unobservable && !i.tlp_model) || (i.tlp_model && i.probe_unanswered))
}

/// Applies the rules of the module documentation.
pub fn classify_cause(i: &CauseInput) -> CauseDecision {
    let keep = |cause| CauseDecision { cause, new_episode: false, next_phase: i.phase, timer_expiry: false };
    let start = |cause, next_phase| CauseDecision { cause, new_episode: true, next_phase, timer_expiry: cause == Cause::Rto };
    match i.phase {
        PhaseKind::Timeout => {
            if i.at_una && timer_could_have_fired(i) {
                // A backed-off repeat (RFC 6298 (5.5)): same episode, still rto.
                return CauseDecision { timer_expiry: true, ..keep(Cause::Rto) };
            }
            keep(Cause::Rto)
        }
        PhaseKind::Recovery => {
            if i.at_una && timer_could_have_fired(i) {
                start(Cause::Rto, PhaseKind::Timeout)
            } else {
                keep(Cause::SackRecovery)
            }
        }
        PhaseKind::Open => {
            if i.dupacks >= i.dupack_threshold || i.sack_lost || i.rack_lost {
                start(Cause::FastRetransmit, PhaseKind::Recovery)
            } else if timer_could_have_fired(i) || timeout_by_elimination(i) {
                start(Cause::Rto, PhaseKind::Timeout)
            } else if i.tlp_model && i.is_tail && i.dupacks == 0 {
                start(Cause::Tlp, PhaseKind::Open)
            } else {
                start(Cause::Unknown, PhaseKind::Open)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn open() -> CauseInput {
        CauseInput {
            phase: PhaseKind::Open,
            at_una: true,
            dupacks: 0,
            dupack_threshold: 3,
            sack_lost: false,
            rack_lost: false,
            elapsed_ns: 0,
            rto_ns: S,
            is_tail: false,
            tlp_model: false,
            timer_unobservable: false,
            probe_unanswered: false,
        }
    }

    #[test]
    fn three_duplicate_acks_make_a_fast_retransmit_that_enters_recovery() {
        let d = classify_cause(&CauseInput { dupacks: 3, ..open() });
        assert_eq!(d.cause, Cause::FastRetransmit);
        assert_eq!(d.next_phase, PhaseKind::Recovery);
        assert!(d.new_episode);
    }

    #[test]
    fn sack_scoreboard_loss_without_three_dupacks_is_still_a_fast_retransmit() {
        let d = classify_cause(&CauseInput { dupacks: 1, sack_lost: true, ..open() });
        assert_eq!(d.cause, Cause::FastRetransmit);
    }

    #[test]
    fn a_segment_rack_marked_lost_is_a_fast_retransmit_without_duplicate_acks() {
        let d = classify_cause(&CauseInput { dupacks: 1, rack_lost: true, ..open() });
        assert_eq!((d.cause, d.next_phase), (Cause::FastRetransmit, PhaseKind::Recovery));
    }

    #[test]
    fn silence_for_the_minimum_rto_makes_a_timeout_retransmission() {
        let d = classify_cause(&CauseInput { elapsed_ns: S, ..open() });
        assert_eq!(d.cause, Cause::Rto);
        assert_eq!(d.next_phase, PhaseKind::Timeout);
    }

    #[test]
    fn go_back_n_after_a_timeout_stays_rto_in_the_same_episode() {
        let d = classify_cause(&CauseInput { phase: PhaseKind::Timeout, at_una: false, ..open() });
        assert_eq!(d, CauseDecision { cause: Cause::Rto, new_episode: false, next_phase: PhaseKind::Timeout, timer_expiry: false });
        let repeat = classify_cause(&CauseInput { phase: PhaseKind::Timeout, elapsed_ns: 2 * S, ..open() });
        assert!(repeat.timer_expiry && !repeat.new_episode, "a backed-off repeat restarts the timer");
    }

    #[test]
    fn later_retransmissions_in_recovery_are_sack_recovery() {
        let d = classify_cause(&CauseInput { phase: PhaseKind::Recovery, at_una: false, ..open() });
        assert_eq!(d.cause, Cause::SackRecovery);
        assert!(!d.new_episode);
    }

    #[test]
    fn a_timeout_during_recovery_starts_a_timeout_episode() {
        let d = classify_cause(&CauseInput { phase: PhaseKind::Recovery, elapsed_ns: 2 * S, ..open() });
        assert_eq!(d.cause, Cause::Rto);
        assert!(d.new_episode);
    }

    #[test]
    fn an_early_retransmission_without_dupacks_is_unknown_unless_the_model_probes() {
        assert_eq!(classify_cause(&CauseInput { elapsed_ns: S / 4, ..open() }).cause, Cause::Unknown);
        let tlp = CauseInput { elapsed_ns: S / 4, is_tail: true, tlp_model: true, ..open() };
        assert_eq!(classify_cause(&tlp).cause, Cause::Tlp);
    }

    // timeout_by_elimination after a probe: RFC 8985 §7.3 allows no second probe before an
    // RTT sample, so with no ACK since the probe only the timer can resend SND.UNA, even
    // before the profile's minimum RTO has passed (a per-route rto_min).
    #[test]
    fn after_an_unanswered_loss_probe_a_retransmission_of_snd_una_is_the_timer() {
        let after_probe = CauseInput { tlp_model: true, probe_unanswered: true, elapsed_ns: S / 4, ..open() };
        let d = classify_cause(&after_probe);
        assert_eq!((d.cause, d.next_phase, d.timer_expiry), (Cause::Rto, PhaseKind::Timeout, true));
        // Not of SND.UNA, or the probe was answered: no deduction.
        assert_eq!(classify_cause(&CauseInput { at_una: false, ..after_probe }).cause, Cause::Unknown);
        assert_eq!(classify_cause(&CauseInput { probe_unanswered: false, ..after_probe }).cause, Cause::Unknown);
        // An ACK-driven trigger still decides first.
        assert_eq!(classify_cause(&CauseInput { rack_lost: true, ..after_probe }).cause, Cause::FastRetransmit);
    }

    #[test]
    fn where_the_timer_cannot_be_read_only_the_timer_explains_a_lone_retransmission_of_snd_una() {
        let hidden = CauseInput { timer_unobservable: true, ..open() };
        assert_eq!(classify_cause(&hidden).cause, Cause::Rto);
        // Not of SND.UNA, or a model with another trigger: no deduction.
        assert_eq!(classify_cause(&CauseInput { at_una: false, ..hidden }).cause, Cause::Unknown);
        assert_eq!(classify_cause(&CauseInput { tlp_model: true, ..hidden }).cause, Cause::Unknown);
        // The duplicate ACKs still decide first.
        assert_eq!(classify_cause(&CauseInput { dupacks: 3, ..hidden }).cause, Cause::FastRetransmit);
    }
}

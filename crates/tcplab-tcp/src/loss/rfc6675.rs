//! RFC 6675 conservative SACK-based loss recovery: entry on DupThresh duplicate ACKs or when
//! IsLost(HighACK+1) becomes true (§5 steps (1)-(2)). NextSeg, pipe and HighRxt live in the
//! sender's scoreboard (`sender::scoreboard`), which this detector's decisions drive.
//!
//! Known consequence of following the RFC literally: RFC 6675 does not remember
//! retransmissions across recovery episodes. When a segment sent after a recovery began is
//! lost, repaired by NextSeg in that recovery, and the recovery ends before the repair is
//! acknowledged, the next duplicate ACK finds IsLost(HighACK+1) true and step (4.3)
//! retransmits HighACK+1 again although its first retransmission is still in flight. The
//! simulator's ground truth counts that copy as spurious (about 2 % of retransmissions on
//! `scenarios/dumbbell.toml` with 1 % random loss: `cargo run --release -p tcplab-netsim
//! --example spurious_scan`). Linux avoids it (a segment marked SACKED_RETRANS is not resent
//! until it is deemed lost again); that belongs to the Linux sender model, not to RFC 6675.

use super::{in_recovery_or_loss, open_or_disorder, LossAckEvent, LossDecision, LossDetector};
use crate::cc::RecoveryStyle;

/// RFC 6675 entry rules.
#[derive(Copy, Clone, Debug, Default)]
pub struct Rfc6675Detector;

impl LossDetector for Rfc6675Detector {
    fn on_ack(&self, ev: &LossAckEvent) -> LossDecision {
        if let Some(d) = in_recovery_or_loss(ev) {
            return d;
        }
        // RFC 6675 §5: "If the incoming ACK is a cumulative acknowledgment, the TCP MUST reset
        // DupAcks to zero." Entry into loss recovery is only considered for "a duplicate ACK
        // [when] the TCP is not currently in loss recovery" (steps (1)-(4)), so a cumulative
        // ACK never starts a recovery -- not even the one that ends the previous recovery while
        // IsLost(HighACK+1) holds: the next duplicate ACK decides.
        // RFC 6675 §5 (1): DupAcks >= DupThresh -> step (4); (2): DupAcks < DupThresh but
        // IsLost(HighACK + 1) -> step (4); (3): otherwise Limited Transmit MAY be used.
        open_or_disorder(ev, ev.front_is_lost)
    }
    fn style(&self) -> RecoveryStyle {
        RecoveryStyle::Sack
    }
    fn clone_box(&self) -> Box<dyn LossDetector> {
        Box::new(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::RecoveryPhase;
    use crate::seq::SeqNum;

    fn ev(phase: RecoveryPhase) -> LossAckEvent {
        LossAckEvent {
            phase,
            snd_una: SeqNum(100),
            bytes_acked: 0,
            is_dupack: true,
            new_sack_info: true,
            front_is_lost: false,
            dupack_threshold: 3,
        }
    }

    #[test]
    fn islost_of_the_first_hole_enters_recovery_before_three_dupacks() {
        let e = LossAckEvent { front_is_lost: true, ..ev(RecoveryPhase::Open) };
        assert_eq!(Rfc6675Detector.on_ack(&e), LossDecision::EnterRecovery);
    }

    #[test]
    fn the_third_duplicate_ack_enters_recovery() {
        assert_eq!(Rfc6675Detector.on_ack(&ev(RecoveryPhase::Disorder { dupacks: 1 })), LossDecision::Dupack { dupacks: 2 });
        assert_eq!(Rfc6675Detector.on_ack(&ev(RecoveryPhase::Disorder { dupacks: 2 })), LossDecision::EnterRecovery);
    }

    #[test]
    fn a_cumulative_ack_never_enters_recovery_even_when_the_first_hole_is_lost() {
        // RFC 6675 §5: entry is considered only for duplicate ACKs.
        let e = LossAckEvent { bytes_acked: 1460, is_dupack: false, front_is_lost: true, ..ev(RecoveryPhase::Open) };
        assert_eq!(Rfc6675Detector.on_ack(&e), LossDecision::Advance);
    }

    #[test]
    fn duplicate_acks_during_timeout_recovery_do_not_start_fast_recovery() {
        let e = ev(RecoveryPhase::Loss { recover: SeqNum(500) });
        assert_eq!(Rfc6675Detector.on_ack(&LossAckEvent { front_is_lost: true, ..e }), LossDecision::None);
    }
}

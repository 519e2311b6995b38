//! RFC 6675 conservative SACK-based loss recovery: entry on DupThresh duplicate ACKs or when
//! IsLost(HighACK+1) becomes true (§5 steps (1)-(2)). NextSeg, pipe and HighRxt live in the
//! sender's scoreboard (`sender::scoreboard`), which this detector's decisions drive.

use super::{dupacks_of, in_recovery_or_loss, LossAckEvent, LossDecision, LossDetector};
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
        // DupAcks to zero." -- but (2) still enters recovery when IsLost(HighACK+1).
        if ev.new_sack_info && ev.front_is_lost {
            return LossDecision::EnterRecovery;
        }
        if ev.bytes_acked > 0 {
            return LossDecision::Advance;
        }
        if !ev.is_dupack {
            return LossDecision::None;
        }
        let dupacks = dupacks_of(ev.phase) + 1;
        // RFC 6675 §5 (1): DupAcks >= DupThresh -> step (4).
        if dupacks >= ev.dupack_threshold {
            LossDecision::EnterRecovery
        } else {
            // RFC 6675 §5 (3): Limited Transmit MAY be used.
            LossDecision::Dupack { dupacks }
        }
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
    fn duplicate_acks_during_timeout_recovery_do_not_start_fast_recovery() {
        let e = ev(RecoveryPhase::Loss { recover: SeqNum(500) });
        assert_eq!(Rfc6675Detector.on_ack(&LossAckEvent { front_is_lost: true, ..e }), LossDecision::None);
    }
}

//! RFC 5681 §3.2 Reno: fast retransmit on `dupack_threshold` duplicate ACKs and fast recovery
//! that ends with the first ACK of new data — as 4.4BSD-Lite does it (TCP/IP Illustrated
//! Vol. 2 §29.6: on a new ACK after fast retransmit, "if (tp->t_dupacks > tcprexmtthresh &&
//! tp->snd_cwnd > tp->snd_ssthresh) tp->snd_cwnd = tp->snd_ssthresh; tp->t_dupacks = 0").
//!
//! 000 §3: "TCP Lite is an extension of TCP Reno". With several losses in one window a partial
//! ACK ends fast recovery; the next loss needs three more duplicate ACKs (another window
//! halving: 000 §5.2.1's "multiple window decreases") or, when too few segments are left to
//! produce them, the retransmission timer ("followed by an expensive timeout").
//!
//! Ambiguity resolved: RFC 5681 §3.2 step 6's deflation sets cwnd = ssthresh; the engine's
//! `cc::reno` exit rule for NewReno-style recovery, min(ssthresh, max(FlightSize, SMSS) +
//! SMSS), equals ssthresh whenever FlightSize ≥ ssthresh (the usual case after a partial ACK)
//! and avoids a burst otherwise; tcplab uses it for Reno too.

use super::{open_or_disorder, LossAckEvent, LossDecision, LossDetector, RecoveryPhase};
use crate::cc::RecoveryStyle;

/// Duplicate-ACK threshold + Reno fast recovery.
#[derive(Copy, Clone, Debug, Default)]
pub struct RenoDetector;

impl LossDetector for RenoDetector {
    fn on_ack(&self, ev: &LossAckEvent) -> LossDecision {
        match ev.phase {
            // RFC 5681 §3.2 step 6: "When the next ACK arrives that acknowledges previously
            // unacknowledged data, a TCP MUST set cwnd to ssthresh" — fast recovery ends on
            // any ACK of new data, partial or full.
            RecoveryPhase::Recovery { .. } => {
                return if ev.bytes_acked > 0 {
                    LossDecision::ExitRecovery
                } else if ev.is_dupack {
                    LossDecision::DupackInRecovery
                } else {
                    LossDecision::None
                }
            }
            RecoveryPhase::Loss { recover } => {
                return if ev.snd_una.ge(recover) {
                    LossDecision::ExitLoss
                } else if ev.bytes_acked > 0 {
                    LossDecision::LossAdvance
                } else {
                    LossDecision::None
                }
            }
            _ => {}
        }
        // RFC 5681 §3.2 step 2: fast retransmit on the DupThresh-th duplicate ACK.
        open_or_disorder(ev, false)
    }
    fn style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }
    fn clone_box(&self) -> Box<dyn LossDetector> {
        Box::new(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::SeqNum;

    fn ev(phase: RecoveryPhase, bytes_acked: u64, is_dupack: bool) -> LossAckEvent {
        LossAckEvent {
            phase,
            snd_una: SeqNum(1000),
            bytes_acked,
            is_dupack,
            new_sack_info: false,
            front_is_lost: false,
            dupack_threshold: 3,
        }
    }

    // RFC 5681 §3.2 step 6 (Reno): a partial ACK ends fast recovery, unlike RFC 6582.
    #[test]
    fn a_partial_ack_ends_reno_fast_recovery() {
        let rec = RecoveryPhase::Recovery { recover: SeqNum(9000), style: RecoveryStyle::NewReno, first_rtx_done: true };
        assert_eq!(RenoDetector.on_ack(&ev(rec, 1000, false)), LossDecision::ExitRecovery);
        assert_eq!(RenoDetector.on_ack(&ev(rec, 0, true)), LossDecision::DupackInRecovery);
    }

    #[test]
    fn the_third_duplicate_ack_starts_fast_retransmit_again_after_recovery() {
        let d2 = RecoveryPhase::Disorder { dupacks: 2 };
        assert_eq!(RenoDetector.on_ack(&ev(d2, 0, true)), LossDecision::EnterRecovery);
        assert_eq!(RenoDetector.on_ack(&ev(RecoveryPhase::Open, 0, true)), LossDecision::Dupack { dupacks: 1 });
    }
}

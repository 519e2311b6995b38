//! RFC 5681 §3.2 fast retransmit on `dupack_threshold` duplicate ACKs, with RFC 6582 NewReno
//! fast recovery (partial / full ACK handling; window arithmetic lives in `cc::reno`).

use super::{in_recovery_or_loss, open_or_disorder, LossAckEvent, LossDecision, LossDetector};
use crate::cc::RecoveryStyle;

/// Duplicate-ACK threshold + NewReno.
#[derive(Copy, Clone, Debug, Default)]
pub struct NewRenoDetector;

impl LossDetector for NewRenoDetector {
    fn on_ack(&self, ev: &LossAckEvent) -> LossDecision {
        if let Some(d) = in_recovery_or_loss(ev) {
            return d;
        }
        // RFC 5681 §3.2 step 2: "When the third duplicate ACK is received..."
        open_or_disorder(ev, false)
    }
    fn style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }
    fn clone_box(&self) -> Box<dyn LossDetector> {
        Box::new(*self)
    }
}

//! CC 2: "revert the congestion control state" (dissertation §5.2, L3000-3010): ssthresh and
//! cwnd back to their values before the RTO, but "the TCP sender is not allowed to have
//! more than three segments more outstanding than ... in flight" (Linux burst moderation,
//! L1489-1495): cwnd = min(prior cwnd, in_flight + 3*SMSS), applied once at detection.

use super::{ResponseDecision, ResponseInput, SpuriousResponder};
use crate::cc::CcState;

/// Dissertation L1489-1491 / L3005-3007: at most three segments above what is in flight.
pub const BURST_LIMIT_SEGMENTS: u64 = 3;

#[derive(Copy, Clone, Debug, Default)]
pub struct Cc2;

impl SpuriousResponder for Cc2 {
    fn respond(&self, inp: &ResponseInput) -> ResponseDecision {
        let cwnd = inp.prior.cwnd.min(inp.in_flight + BURST_LIMIT_SEGMENTS * inp.smss).max(inp.smss);
        ResponseDecision { cc: CcState { cwnd, ssthresh: inp.prior.ssthresh }, resume_new_data: true, hold_until: None }
    }
    fn clone_box(&self) -> Box<dyn SpuriousResponder> {
        Box::new(*self)
    }
}

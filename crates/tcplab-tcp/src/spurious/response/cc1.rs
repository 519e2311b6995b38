//! CC 1: "reduce congestion window and slow start threshold to half" (dissertation §5.2,
//! L2990-2998): the spurious RTO is taken as a congestion signal. Half of the FlightSize at
//! the RTO (spec part 2 §10.1), as basic F-RTO's step 1 (L2110-2111):
//! ssthresh = max(FlightSize/2, 2*SMSS), cwnd = ssthresh, then congestion avoidance.

use super::{ResponseDecision, ResponseInput, SpuriousResponder};
use crate::cc::reno::MIN_SSTHRESH_SEGMENTS;
use crate::cc::CcState;

#[derive(Copy, Clone, Debug, Default)]
pub struct Cc1;

impl SpuriousResponder for Cc1 {
    fn respond(&self, inp: &ResponseInput) -> ResponseDecision {
        let ssthresh = (inp.flight_at_rto / 2).max(MIN_SSTHRESH_SEGMENTS * inp.smss);
        ResponseDecision { cc: CcState { cwnd: ssthresh, ssthresh }, resume_new_data: true, hold_until: None }
    }
    fn clone_box(&self) -> Box<dyn SpuriousResponder> {
        Box::new(*self)
    }
}

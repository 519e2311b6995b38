//! No response beyond the detector's own behaviour: the window stays as the RTO left it.
//! After F-RTO that is cwnd = ssthresh = FlightSize/2 in congestion avoidance — the Ch. 4
//! F-RTO ("we reduced the congestion window and slow start threshold to half after a
//! spurious RTO was detected", L2833-2835; step 3a, L2151-2160). After Eifel or D-SACK
//! detection the go-back-N recovery simply continues (detection is only recorded).

use super::{ResponseDecision, ResponseInput, SpuriousResponder};

#[derive(Copy, Clone, Debug, Default)]
pub struct Conventional;

impl SpuriousResponder for Conventional {
    fn respond(&self, inp: &ResponseInput) -> ResponseDecision {
        ResponseDecision { cc: inp.now, resume_new_data: false, hold_until: None }
    }
    fn clone_box(&self) -> Box<dyn SpuriousResponder> {
        Box::new(*self)
    }
}

//! CC 3: "set congestion window to one segment and slow start threshold to the value before
//! RTO, if larger" (dissertation §5.2, L3012-3020); no retransmissions; "the TCP sender
//! awaits acknowledgments for all outstanding segments before it continues transmission in
//! slow start" (L3016-3017) — enforced as: nothing is sent until SND.UNA reaches SND.NXT at
//! detection (spec part 2 §1.6 [INTERP]).

use super::{ResponseDecision, ResponseInput, SpuriousResponder};
use crate::cc::CcState;

#[derive(Copy, Clone, Debug, Default)]
pub struct Cc3;

impl SpuriousResponder for Cc3 {
    fn respond(&self, inp: &ResponseInput) -> ResponseDecision {
        let ssthresh = inp.now.ssthresh.max(inp.prior.ssthresh);
        ResponseDecision {
            cc: CcState { cwnd: inp.smss, ssthresh },
            resume_new_data: true,
            hold_until: Some(inp.snd_nxt),
        }
    }
    fn clone_box(&self) -> Box<dyn SpuriousResponder> {
        Box::new(*self)
    }
}

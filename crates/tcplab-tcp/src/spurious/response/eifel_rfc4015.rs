//! The Eifel response (RFC 4015 §3), congestion-control part; the thesis' Eifel rows
//! "continue sending new data and revert cwnd and ssthresh" (L2483-2486).
//!
//! RFC 4015 §3: "(1) Before the variables cwnd and ssthresh get updated when loss recovery
//! is initiated, set a 'pipe_prev' variable as follows: pipe_prev <- max (FlightSize,
//! ssthresh)"; "(3) ... resume the transmission with the next unsent segment"; "(4) ...
//! Reversing the congestion control state: cwnd <- FlightSize + min (bytes_acked, IW);
//! ssthresh <- pipe_prev".
//!
//! Not done: step (5)/(6), the RTO re-initialisation (SRTT/RTTVAR from the first sample
//! after the spurious timeout); the estimator takes that sample the ordinary way.

use super::{ResponseDecision, ResponseInput, SpuriousResponder};
use crate::cc::CcState;

#[derive(Copy, Clone, Debug, Default)]
pub struct EifelResponse;

impl SpuriousResponder for EifelResponse {
    fn respond(&self, inp: &ResponseInput) -> ResponseDecision {
        let pipe_prev = inp.flight_at_rto.max(inp.prior.ssthresh);
        let cwnd = (inp.in_flight + inp.bytes_acked.min(inp.initial_window)).max(inp.smss);
        ResponseDecision { cc: CcState { cwnd, ssthresh: pipe_prev }, resume_new_data: true, hold_until: None }
    }
    fn clone_box(&self) -> Box<dyn SpuriousResponder> {
        Box::new(*self)
    }
}

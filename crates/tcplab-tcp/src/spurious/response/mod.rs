//! Responses to a spurious timeout, chosen apart from the detector (dissertation §5.2,
//! L2957-3020; RFC 4015). A responder returns a decision; the sender applies it.
//!
//! Notation (dissertation §5.2): `prior` is (cwnd, ssthresh) just before the RTO (Linux
//! `prior_cwnd`, `prior_ssthresh`), `flight_at_rto` the FlightSize then, `in_flight` the
//! FlightSize when the timeout is declared spurious.

pub mod cc1;
pub mod cc2;
pub mod cc3;
pub mod conventional;
pub mod eifel_rfc4015;

use crate::cc::CcState;
use crate::config::SpuriousResponse;
use crate::seq::SeqNum;

/// What the responder knows when a timeout is declared spurious.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResponseInput {
    /// (cwnd, ssthresh) before the RTO.
    pub prior: CcState,
    /// (cwnd, ssthresh) now.
    pub now: CcState,
    /// RFC 5681 FlightSize when the RTO fired (bytes).
    pub flight_at_rto: u64,
    /// FlightSize (SND.NXT - SND.UNA) at detection.
    pub in_flight: u64,
    /// Bytes acknowledged by the ACK that revealed the spurious timeout.
    pub bytes_acked: u64,
    pub smss: u64,
    /// The initial window in bytes (RFC 4015's IW).
    pub initial_window: u64,
    /// SND.NXT at detection.
    pub snd_nxt: SeqNum,
}

/// What the sender should do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResponseDecision {
    pub cc: CcState,
    /// Stop the go-back-N retransmissions (clear the lost marks) and continue with new data
    /// from SND.NXT (RFC 4015 §3 "resume transmission with the next unsent segment").
    pub resume_new_data: bool,
    /// Send nothing until SND.UNA reaches this point (CC 3).
    pub hold_until: Option<SeqNum>,
}

/// A response to a spurious timeout.
pub trait SpuriousResponder: std::fmt::Debug + Send {
    fn respond(&self, inp: &ResponseInput) -> ResponseDecision;
    fn clone_box(&self) -> Box<dyn SpuriousResponder>;
}

/// The responder `r` selects.
pub fn build(r: SpuriousResponse) -> Box<dyn SpuriousResponder> {
    match r {
        SpuriousResponse::Conventional => Box::new(conventional::Conventional),
        SpuriousResponse::Cc1 => Box::new(cc1::Cc1),
        SpuriousResponse::Cc2 => Box::new(cc2::Cc2),
        SpuriousResponse::Cc3 => Box::new(cc3::Cc3),
        SpuriousResponse::Eifel => Box::new(eifel_rfc4015::EifelResponse),
    }
}

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
pub mod linux_undo;

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

/// `Clone` for the boxed trait object, so that the structs holding one derive `Clone` (a
/// forked model is a field-by-field copy; nothing is hand-written per field).
impl Clone for Box<dyn SpuriousResponder> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// The responder `r` selects.
pub fn build(r: SpuriousResponse) -> Box<dyn SpuriousResponder> {
    match r {
        SpuriousResponse::Conventional => Box::new(conventional::Conventional),
        SpuriousResponse::Cc1 => Box::new(cc1::Cc1),
        SpuriousResponse::Cc2 => Box::new(cc2::Cc2),
        SpuriousResponse::Cc3 => Box::new(cc3::Cc3),
        SpuriousResponse::Eifel => Box::new(eifel_rfc4015::EifelResponse),
        SpuriousResponse::LinuxUndo => Box::new(linux_undo::LinuxUndo),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const S: u64 = 1000;

    /// Before the RTO: cwnd 20 segments, ssthresh 30, FlightSize 20; at detection cwnd =
    /// ssthresh = 10 (F-RTO), 12 segments in flight, 2 acknowledged by the ACK, IW 3.
    fn inp() -> ResponseInput {
        ResponseInput {
            prior: CcState { cwnd: 20 * S, ssthresh: 30 * S },
            now: CcState { cwnd: 10 * S, ssthresh: 10 * S },
            flight_at_rto: 20 * S,
            in_flight: 12 * S,
            bytes_acked: 2 * S,
            smss: S,
            initial_window: 3 * S,
            snd_nxt: SeqNum(50_000),
        }
    }

    #[test]
    fn conventional_keeps_the_window_the_detector_left_and_does_not_resume() {
        let d = build(SpuriousResponse::Conventional).respond(&inp());
        assert_eq!(d, ResponseDecision { cc: inp().now, resume_new_data: false, hold_until: None });
    }

    #[test]
    fn cc1_halves_the_flight_at_the_timeout_into_cwnd_and_ssthresh() {
        // Dissertation L2990-2998: ssthresh = max(FlightSize/2, 2 SMSS), cwnd = ssthresh.
        let d = build(SpuriousResponse::Cc1).respond(&inp());
        assert_eq!(d.cc, CcState { cwnd: 10 * S, ssthresh: 10 * S });
        let small = ResponseInput { flight_at_rto: 3 * S, ..inp() };
        assert_eq!(build(SpuriousResponse::Cc1).respond(&small).cc, CcState { cwnd: 2 * S, ssthresh: 2 * S });
        assert!(d.resume_new_data);
    }

    #[test]
    fn cc2_reverts_but_never_allows_more_than_three_segments_above_in_flight() {
        // Dissertation L3000-3010: cwnd = min(prior cwnd, in_flight + 3), ssthresh = prior.
        let d = build(SpuriousResponse::Cc2).respond(&inp());
        assert_eq!(d.cc, CcState { cwnd: 15 * S, ssthresh: 30 * S });
        let full = ResponseInput { in_flight: 19 * S, ..inp() };
        assert_eq!(build(SpuriousResponse::Cc2).respond(&full).cc.cwnd, 20 * S);
    }

    #[test]
    fn cc3_restarts_from_one_segment_keeps_the_larger_ssthresh_and_waits_for_the_flight() {
        // Dissertation L3012-3020.
        let d = build(SpuriousResponse::Cc3).respond(&inp());
        assert_eq!(d.cc, CcState { cwnd: S, ssthresh: 30 * S });
        assert_eq!(d.hold_until, Some(SeqNum(50_000)));
    }

    #[test]
    fn linux_undo_raises_cwnd_to_twice_ssthresh_and_restores_the_larger_prior_ssthresh() {
        // Dissertation L1669-1678 (AF-7): cwnd = max(cwnd, 2*ssthresh), ssthresh = prior.
        let d = build(SpuriousResponse::LinuxUndo).respond(&inp());
        assert_eq!(d.cc, CcState { cwnd: 20 * S, ssthresh: 30 * S });
        assert!(d.resume_new_data);
        let lower = ResponseInput { prior: CcState { cwnd: 20 * S, ssthresh: 4 * S }, ..inp() };
        assert_eq!(build(SpuriousResponse::LinuxUndo).respond(&lower).cc.ssthresh, 10 * S);
    }

    #[test]
    fn eifel_response_sets_cwnd_to_flight_plus_acked_up_to_iw_and_ssthresh_to_pipe_prev() {
        // RFC 4015 §3: cwnd = FlightSize + min(bytes_acked, IW); ssthresh = max(FlightSize,
        // ssthresh) before the timeout.
        let d = build(SpuriousResponse::Eifel).respond(&inp());
        assert_eq!(d.cc, CcState { cwnd: 14 * S, ssthresh: 30 * S });
        let big = ResponseInput { bytes_acked: 9 * S, prior: CcState { cwnd: 20 * S, ssthresh: 4 * S }, ..inp() };
        assert_eq!(build(SpuriousResponse::Eifel).respond(&big).cc, CcState { cwnd: 15 * S, ssthresh: 20 * S });
    }
}

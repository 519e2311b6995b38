//! RTT estimation seam.
//!
//! The sender decides *when* a sample is valid (timestamps, Karn's rule) and hands it to the
//! estimator; the estimator owns SRTT/RTTVAR/RTO and the backoff. Later issues add BSD
//! tick-based, Linux, Windows and Solaris estimators behind the same trait.

pub mod rfc6298;

pub use rfc6298::Rfc6298;

use tcplab_time::{SimDuration, SimTime};

/// One valid RTT measurement.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RttSampleEvent {
    pub now: SimTime,
    pub rtt: SimDuration,
}

/// Retransmission-timeout estimator.
pub trait RttEstimator: std::fmt::Debug + Send {
    /// Called for every valid RTT sample (after the sender applied Karn's rule).
    fn on_sample(&mut self, ev: &RttSampleEvent);
    /// Called when the retransmission timer expired (RFC 6298 (5.5) backoff).
    fn on_timeout(&mut self);
    /// Called when the SYN or SYN-ACK had to be retransmitted and data transfer starts
    /// (RFC 6298 (5.7)).
    fn on_handshake_retransmitted(&mut self);
    /// Current RTO including backoff.
    fn rto(&self) -> SimDuration;
    fn srtt(&self) -> Option<SimDuration>;
    fn rttvar(&self) -> Option<SimDuration>;
    /// Number of consecutive backoffs in effect.
    fn backoff(&self) -> u32;
    fn clone_box(&self) -> Box<dyn RttEstimator>;
}

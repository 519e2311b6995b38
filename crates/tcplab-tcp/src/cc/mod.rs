//! Congestion-control seam.
//!
//! The sender owns `cwnd` and `ssthresh` ([`CcState`]); a controller receives the current
//! state plus a small event and returns the new state (a decision). Hooks:
//! - [`CongestionController::on_ack`]: new data acknowledged outside fast recovery (slow start,
//!   congestion avoidance, and the slow start that follows an RTO);
//! - [`CongestionController::on_enter_recovery`]: fast retransmit (RFC 5681 §3.2 steps 2-3);
//! - [`CongestionController::on_dupack_in_recovery`] / [`CongestionController::on_partial_ack`]:
//!   RFC 6582 window inflation / deflation (not called in RFC 6675 SACK recovery, which
//!   governs sending by `pipe` instead);
//! - [`CongestionController::on_exit_recovery`]: a full ACK ends fast recovery;
//! - [`CongestionController::on_rto`]: retransmission timeout (RFC 5681 eq. 4).

pub mod reno;

pub use reno::Reno;

/// The congestion state the sender owns (bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
}

/// Which fast-recovery flavour is running (changes what cwnd means during recovery).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// RFC 6582: cwnd is inflated by dupacks and compared against FlightSize.
    NewReno,
    /// RFC 6675: cwnd = ssthresh and sending is governed by `pipe`.
    Sack,
}

/// New data was cumulatively acknowledged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CcAckEvent {
    /// Bytes newly acknowledged by this ACK.
    pub bytes_acked: u64,
    /// Sender MSS.
    pub smss: u64,
}

/// Loss was detected (fast retransmit, or timeout).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CcLossEvent {
    /// RFC 5681 FlightSize at the moment of detection (SND.NXT - SND.UNA, bytes).
    pub flight_size: u64,
    pub smss: u64,
    pub style: RecoveryStyle,
}

/// Congestion controller.
pub trait CongestionController: std::fmt::Debug + Send {
    /// New data acknowledged while not in fast recovery.
    fn on_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState;
    /// Entering fast retransmit / fast recovery.
    fn on_enter_recovery(&mut self, st: CcState, ev: &CcLossEvent) -> CcState;
    /// An additional duplicate ACK during NewReno fast recovery.
    fn on_dupack_in_recovery(&mut self, st: CcState, smss: u64) -> CcState;
    /// A partial ACK during NewReno fast recovery.
    fn on_partial_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState;
    /// A full ACK ends fast recovery; `ev.flight_size` is the FlightSize after the ACK.
    fn on_exit_recovery(&mut self, st: CcState, ev: &CcLossEvent) -> CcState;
    /// The retransmission timer expired (only the first expiry of a series changes ssthresh;
    /// `first` tells which).
    fn on_rto(&mut self, st: CcState, ev: &CcLossEvent, first: bool) -> CcState;
    fn clone_box(&self) -> Box<dyn CongestionController>;
}

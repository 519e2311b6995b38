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

pub mod abc;
pub mod cubic;
pub mod hystart;
pub mod reno;

pub use cubic::Cubic;
pub use reno::Reno;

use crate::seq::SeqNum;
use tcplab_time::{SimDuration, SimTime};

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
    /// When the ACK arrived (CUBIC's jiffy clock, HyStart's ACK-train and round timing).
    pub now: SimTime,
    /// Linux `ca_rtt_us` of this ACK (`tcp_clean_rtx_queue`): now minus the send time of the
    /// newest segment it newly acknowledged; `None` when one of them was retransmitted
    /// (Karn) or nothing was newly acknowledged. Fed to CUBIC's `delay_min` and HyStart.
    pub rtt: Option<SimDuration>,
    /// SND.UNA after this ACK (HyStart's round end: `after(snd_una, end_seq)`).
    pub snd_una: SeqNum,
    /// SND.NXT when the ACK arrived (the end of the round that starts now).
    pub snd_nxt: SeqNum,
}

impl CcAckEvent {
    /// An ACK of `bytes_acked` bytes with no time, RTT or sequence context (the controllers
    /// that need none of it: Reno; and unit tests).
    pub fn bytes(bytes_acked: u64, smss: u64) -> Self {
        CcAckEvent { bytes_acked, smss, now: SimTime::ZERO, rtt: None, snd_una: SeqNum(0), snd_nxt: SeqNum(0) }
    }
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
    /// Called when the sender is re-initialised in place for a new connection
    /// (`Connection::reset_client` / `reset_server`, a driver reusing an endpoint slot) instead
    /// of being built again. A controller that is the type [`build`]`(cfg)` builds sets itself
    /// to exactly the value `build(cfg)` gives and returns true, so the sender keeps its box;
    /// otherwise it returns false and the sender builds a new one ([`reset_or_build`]). The
    /// default is false ("rebuild me"): always correct, it only costs the allocation.
    fn reset(&mut self, _cfg: &crate::config::TcpConfig) -> bool {
        false
    }
}

/// `Clone` for the boxed trait object, so that the structs holding one derive `Clone` (a
/// forked model is a field-by-field copy; nothing is hand-written per field).
impl Clone for Box<dyn CongestionController> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// `*cc` becomes what [`build`]`(cfg)` builds: reset in place when the controller can
/// ([`CongestionController::reset`]), built anew otherwise.
pub fn reset_or_build(cc: &mut Box<dyn CongestionController>, cfg: &crate::config::TcpConfig) {
    if !cc.reset(cfg) {
        *cc = build(cfg);
    }
}

/// The controller `TcpConfig` selects: `cc` (Reno or CUBIC) with `abc` (Linux byte counting in
/// slow start), behind HyStart / HyStart++ when `hystart` is on. The defaults give plain Reno,
/// the controller of every earlier output.
pub fn build(cfg: &crate::config::TcpConfig) -> Box<dyn CongestionController> {
    use crate::config::CongestionControl;
    let inner: Box<dyn CongestionController> = match (cfg.cc, cfg.abc) {
        (CongestionControl::Reno, _) => Box::new(Reno::for_config(cfg)),
        (CongestionControl::Cubic, true) => Box::new(Cubic::new()),
        (CongestionControl::Cubic, false) => Box::new(Cubic::without_abc()),
    };
    match cfg.hystart {
        hystart::HystartMode::Off => inner,
        mode => Box::new(hystart::Hystart::new(inner, mode)),
    }
}

//! The sender-engine seam: which loss-recovery / congestion-control state machine drives the
//! sender's shared plumbing (SND.*, the retransmission queue and scoreboard, RTT sampling,
//! timers, FIN, persist). Implementations are siblings:
//!
//! | implementation | file | selected by |
//! |---|---|---|
//! | [`RfcRecovery`]: RFC 5681/6582/6675 recovery through the loss-detector, congestion-controller and spurious-detector seams (with TLP, F-RTO, ... as configured) | `sender/mod.rs` (`rfc_*`) | `TcpConfig::sender = Rfc` |
//! | [`crate::linux::Linux24`]: the Linux 2.4 state machine (002 §2) | `linux/engine.rs`, `linux/glue.rs` | `TcpConfig::sender = Linux` |
//!
//! Today's Linux (RACK-TLP, PRR, CUBIC, HyStart) plugs into the RFC engine's own seams
//! (`loss/`, `cc/`), since Linux ≥ 4.x runs the same Open/Disorder/Recovery/Loss phases
//! with different rules. A new engine is one file implementing [`SenderRecovery`] plus one
//! line in [`build`] (docs/extending.md).
//!
//! Hooks are called by `Sender` with the engine taken out of it, so an implementation gets
//! `&mut Sender` and its own state without aliasing; `Sender::new_data_gated` lets an
//! engine apply its own transmission rule to new data.

use super::{DataOut, Sender};
use crate::config::{SenderModel, TcpConfig};
use crate::conn::ConnStats;
use crate::segment::Segment;
use crate::timer::Timers;
use crate::trace::Trace;
use tcplab_time::SimTime;

/// What the shared ACK plumbing found before the engine decides (the window, SACK blocks,
/// cumulative ACK and RTT sample are already applied).
#[derive(Copy, Clone, Debug)]
pub struct AckInput<'a> {
    pub now: SimTime,
    pub seg: &'a Segment,
    /// SND.UNA before this ACK.
    pub prior_snd_una: crate::seq::SeqNum,
    pub bytes_acked: u64,
    /// Bytes this ACK newly delivered: newly SACKed plus cumulatively acknowledged bytes that
    /// were not SACKed before (Linux `tcp_newly_delivered`'s `tp->delivered - prior_delivered`,
    /// in bytes; D-SACKed bytes are not counted).
    pub delivered: u64,
    pub newly_sacked: u64,
    /// The first SACK block is a D-SACK (RFC 2883 §4).
    pub dsack: bool,
    pub had_outstanding: bool,
    pub window_changed: bool,
    /// Send time of the newest newly acknowledged segment, when none of them was ever
    /// retransmitted (Karn).
    pub newest_sent: Option<SimTime>,
}

/// A sender engine (see the module documentation).
pub trait SenderRecovery: std::fmt::Debug + Send {
    /// Name for traces and docs.
    fn name(&self) -> &'static str;
    /// The handshake completed and the sender set its window from the startup policy.
    fn on_established(&mut self, s: &mut Sender);
    /// An acceptable ACK, after the shared plumbing (`AckInput`). The engine updates phase,
    /// windows and marks, and restarts the retransmission timer (RFC 6298 (5.2)/(5.3)).
    fn on_ack(&mut self, s: &mut Sender, a: &AckInput<'_>, timers: &mut Timers, trace: &mut Trace);
    /// May a new segment of `len` bytes go now (the congestion window's rule)?
    fn can_send_new(&self, s: &Sender, len: u32) -> bool;
    /// The next segment to send, retransmissions first.
    fn next_segment(&mut self, s: &mut Sender, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut>;
    /// The retransmission timer expired with data outstanding.
    fn on_rto(&mut self, s: &mut Sender, now: SimTime, timers: &mut Timers, stats: &mut ConnStats, trace: &mut Trace);
    /// Bytes in flight as this engine counts them (`CcSnapshot::bytes_in_flight`).
    fn bytes_in_flight(&self, s: &Sender) -> u64;
    /// The Linux 2.4 state, for tests and snapshots (`None` for other engines).
    fn linux24(&self) -> Option<&crate::linux::LinuxCa> {
        None
    }
    fn linux24_mut(&mut self) -> Option<&mut crate::linux::LinuxCa> {
        None
    }
    fn clone_box(&self) -> Box<dyn SenderRecovery>;
}

impl Clone for Box<dyn SenderRecovery> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// The registry: the engine `cfg` selects.
pub fn build(cfg: &TcpConfig) -> Box<dyn SenderRecovery> {
    match cfg.sender {
        SenderModel::Rfc => Box::new(RfcRecovery),
        SenderModel::Linux => Box::new(crate::linux::Linux24::new(cfg)),
    }
}

/// The RFC sender's recovery: RFC 5681 / RFC 6582 / RFC 6675 through the loss-detector,
/// congestion-controller and spurious-detector seams (the `rfc_*` methods of `Sender`).
#[derive(Copy, Clone, Debug, Default)]
pub struct RfcRecovery;

impl SenderRecovery for RfcRecovery {
    fn name(&self) -> &'static str {
        "rfc"
    }
    fn on_established(&mut self, _s: &mut Sender) {}
    fn on_ack(&mut self, s: &mut Sender, a: &AckInput<'_>, timers: &mut Timers, trace: &mut Trace) {
        s.rfc_on_ack(a, timers, trace);
    }
    fn can_send_new(&self, s: &Sender, len: u32) -> bool {
        s.rfc_can_send_new(len)
    }
    fn next_segment(&mut self, s: &mut Sender, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        s.rfc_next_segment(now, timers, stats)
    }
    fn on_rto(&mut self, s: &mut Sender, now: SimTime, timers: &mut Timers, stats: &mut ConnStats, trace: &mut Trace) {
        s.rfc_on_rto(now, timers, stats, trace);
    }
    fn bytes_in_flight(&self, s: &Sender) -> u64 {
        s.rfc_bytes_in_flight()
    }
    fn clone_box(&self) -> Box<dyn SenderRecovery> {
        Box::new(*self)
    }
}

//! Loss-detection / recovery seam.
//!
//! The sender owns the [`RecoveryPhase`] and the scoreboard; a [`LossDetector`] looks at a
//! summary of each ACK ([`LossAckEvent`]) and returns a [`LossDecision`] that the sender
//! applies (phase change, window change, which segment to mark lost). Two detectors exist:
//! [`newreno::NewRenoDetector`] (RFC 5681 dupthresh + RFC 6582) and
//! [`rfc6675::Rfc6675Detector`] (RFC 6675 SACK-based; IsLost-triggered entry).
//!
//! Ambiguity resolved — the `recover` guard: RFC 6582 §3.2 step 1 only enters fast
//! retransmit when the ACK "covers more than recover". tcplab stores `recover` as the
//! sequence number one past the highest byte sent (HighData of RFC 6675, FreeBSD's
//! `snd_recover = snd_max`) inside the phase (`Recovery{recover}` / `Loss{recover}`); the phase
//! is left when SND.UNA >= recover, after which duplicate ACKs may start a new recovery. While
//! in `Loss` (after an RTO), duplicate ACKs never start fast recovery, which is what the guard
//! is for (RFC 6582 §4 "Avoiding multiple fast retransmits").

pub mod newreno;
pub mod prr;
pub mod rack;
pub mod reno;
pub mod rfc6675;
pub mod tlp;

pub use newreno::NewRenoDetector;
pub use reno::RenoDetector;
pub use rfc6675::Rfc6675Detector;

use crate::cc::RecoveryStyle;
use crate::seq::SeqNum;

/// Where the sender is in its loss-recovery life cycle (names after Linux's CA states).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecoveryPhase {
    /// No loss suspected.
    Open,
    /// Duplicate ACKs below the threshold (RFC 3042 Limited Transmit territory).
    Disorder { dupacks: u32 },
    /// Fast recovery until SND.UNA >= `recover`. `first_rtx_done` records whether the fast
    /// retransmission itself has left (later ones are `SackRecovery`).
    Recovery { recover: SeqNum, style: RecoveryStyle, first_rtx_done: bool },
    /// Timeout recovery (go-back-N) until SND.UNA >= `recover`.
    Loss { recover: SeqNum },
}

/// Summary of one incoming ACK, computed by the sender after updating the scoreboard.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LossAckEvent {
    pub phase: RecoveryPhase,
    /// SND.UNA after this ACK.
    pub snd_una: SeqNum,
    /// Bytes newly cumulatively acknowledged.
    pub bytes_acked: u64,
    /// RFC 5681 §2 duplicate ACK (or, with SACK, an ACK carrying new SACK information that
    /// does not advance SND.UNA; RFC 6675 §2).
    pub is_dupack: bool,
    /// The ACK carried SACK information for previously un-SACKed data.
    pub new_sack_info: bool,
    /// RFC 6675 IsLost(SND.UNA) per the scoreboard.
    pub front_is_lost: bool,
    pub dupack_threshold: u32,
}

/// What the sender should do with the ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossDecision {
    /// Nothing recovery-related.
    None,
    /// New data acknowledged in Open/Disorder: back to Open, normal window growth.
    Advance,
    /// One more duplicate ACK below the threshold (Limited Transmit may send).
    Dupack { dupacks: u32 },
    /// Fast retransmit and enter fast recovery.
    EnterRecovery,
    /// Another duplicate ACK in recovery (NewReno inflates cwnd).
    DupackInRecovery,
    /// Partial ACK in recovery (RFC 6582 step 5).
    PartialAck,
    /// Full ACK: leave fast recovery.
    ExitRecovery,
    /// New data acknowledged during timeout recovery (slow start continues).
    LossAdvance,
    /// SND.UNA reached the timeout recovery point.
    ExitLoss,
}

/// Decides when to enter and leave loss recovery.
pub trait LossDetector: std::fmt::Debug + Send {
    /// Called for every acceptable ACK (after scoreboard update).
    fn on_ack(&self, ev: &LossAckEvent) -> LossDecision;
    /// Which fast-recovery flavour this detector runs.
    fn style(&self) -> RecoveryStyle;
    fn clone_box(&self) -> Box<dyn LossDetector>;
}

/// The detector a connection runs once the handshake has told whether the peer agreed to
/// SACK: RFC 6675 needs SACK from the peer, otherwise RFC 6582 (or RFC 5681 Reno when
/// configured). Used by the sender at establishment and by the observer (`crate::observe`).
pub fn for_connection(recovery: crate::config::RecoveryAlgorithm, sack_ok: bool) -> Box<dyn LossDetector> {
    use crate::config::RecoveryAlgorithm;
    match recovery {
        RecoveryAlgorithm::Sack if sack_ok => Box::new(Rfc6675Detector),
        RecoveryAlgorithm::Reno => Box::new(RenoDetector),
        _ => Box::new(NewRenoDetector),
    }
}

impl Clone for Box<dyn LossDetector> {
    /// Lets state that holds a detector derive `Clone` (the observer, `crate::observe`).
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Decisions shared by both detectors once recovery is running.
pub(crate) fn in_recovery_or_loss(ev: &LossAckEvent) -> Option<LossDecision> {
    match ev.phase {
        RecoveryPhase::Recovery { recover, .. } => Some(if ev.snd_una.ge(recover) {
            // RFC 6582 §3.2 step 3 / RFC 6675 (4.1): full acknowledgment ends recovery.
            LossDecision::ExitRecovery
        } else if ev.bytes_acked > 0 {
            LossDecision::PartialAck
        } else if ev.is_dupack {
            LossDecision::DupackInRecovery
        } else {
            LossDecision::None
        }),
        RecoveryPhase::Loss { recover } => Some(if ev.snd_una.ge(recover) {
            LossDecision::ExitLoss
        } else if ev.bytes_acked > 0 {
            LossDecision::LossAdvance
        } else {
            LossDecision::None
        }),
        _ => None,
    }
}

pub(crate) fn dupacks_of(phase: RecoveryPhase) -> u32 {
    match phase {
        RecoveryPhase::Disorder { dupacks } => dupacks,
        _ => 0,
    }
}

/// The decision outside recovery (Open / Disorder), shared by every detector: an ACK that
/// advances SND.UNA is `Advance`; a duplicate ACK counts towards DupThresh and enters
/// recovery on reaching it (RFC 5681 §3.2 step 2, RFC 6675 §5 (1)) or when `enter_anyway`
/// holds (RFC 6675 §5 (2): IsLost(HighACK+1)); anything else changes nothing.
pub(crate) fn open_or_disorder(ev: &LossAckEvent, enter_anyway: bool) -> LossDecision {
    if ev.bytes_acked > 0 {
        return LossDecision::Advance;
    }
    if !ev.is_dupack {
        return LossDecision::None;
    }
    let dupacks = dupacks_of(ev.phase) + 1;
    if dupacks >= ev.dupack_threshold || enter_anyway {
        LossDecision::EnterRecovery
    } else {
        LossDecision::Dupack { dupacks }
    }
}

//! Typed events the engine reports to its driver (simulator or analyzer).
//!
//! The engine pushes events into a buffer that the driver drains after each call
//! (`Connection::drain_events`); the buffer keeps its capacity, so steady-state tracing does
//! not allocate. With `TcpConfig::trace == false` nothing is recorded.

use crate::config::SpuriousDetection;
use crate::seq::SeqNum;
use tcplab_time::SimTime;

/// Why a segment was sent again.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RetransCause {
    /// The retransmission timer expired (RFC 6298 (5.4)), and the go-back-N retransmissions
    /// that follow in the same timeout recovery.
    Rto,
    /// The first retransmission on the duplicate-ACK threshold (RFC 5681 §3.2 step 2 / RFC 6675
    /// §5 step 4.2).
    FastRetransmit,
    /// Further retransmissions during SACK (RFC 6675) or NewReno (RFC 6582) recovery.
    SackRecovery,
    /// A zero-window probe (RFC 9293 §3.8.6.1).
    Probe,
    /// An RFC 8985 §7.3 Tail Loss Probe that retransmits the highest-sequence segment sent so
    /// far (a probe of new data is not a retransmission; it is a [`TcpEvent::TlpProbe`]).
    Tlp,
}

/// Number of [`RetransCause`] variants (size of `ConnStats::retransmissions`).
pub const RETRANS_CAUSES: usize = 5;

impl RetransCause {
    /// Stable lower-case name used in outputs.
    pub const fn name(self) -> &'static str {
        match self {
            RetransCause::Rto => "rto",
            RetransCause::FastRetransmit => "fast_retransmit",
            RetransCause::SackRecovery => "sack_recovery",
            RetransCause::Probe => "probe",
            RetransCause::Tlp => "tlp",
        }
    }
    pub const ALL: [RetransCause; RETRANS_CAUSES] = [
        RetransCause::Rto,
        RetransCause::FastRetransmit,
        RetransCause::SackRecovery,
        RetransCause::Probe,
        RetransCause::Tlp,
    ];
}

/// Which recovery the sender entered.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecoveryKind {
    FastRecovery,
    SackRecovery,
    Timeout,
}

impl RecoveryKind {
    pub const fn name(self) -> &'static str {
        match self {
            RecoveryKind::FastRecovery => "fast_recovery",
            RecoveryKind::SackRecovery => "sack_recovery",
            RecoveryKind::Timeout => "timeout",
        }
    }
}

/// One engine event. Sequence numbers are absolute (the driver subtracts the ISN if it wants
/// relative numbers).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TcpEvent {
    /// The connection reached ESTABLISHED.
    Established { at: SimTime },
    /// An RTT sample was taken (RFC 6298 (2.2)/(2.3) input), in nanoseconds.
    RttSample { at: SimTime, rtt_ns: u64 },
    /// The retransmission timer expired; `backoff` is the number of consecutive expirations.
    RtoFired { at: SimTime, backoff: u32 },
    RecoveryEntered { at: SimTime, kind: RecoveryKind, recovery_point: SeqNum },
    RecoveryExited { at: SimTime, kind: RecoveryKind },
    /// All data (and FIN, if closing) has been acknowledged.
    SendComplete { at: SimTime },
    /// A spurious-timeout detector decided: the timeout was `spurious` (or genuine), at the
    /// ACK with cumulative acknowledgment `ack`.
    SpuriousDecision { at: SimTime, detector: SpuriousDetection, spurious: bool, ack: SeqNum },
    /// The RFC 8985 §7.3 probe timeout (PTO) expired and a loss probe starting at `seq` is
    /// sent: new data (`new_data`, not a retransmission) or the highest-sequence segment sent
    /// so far (a retransmission with cause [`RetransCause::Tlp`]).
    TlpProbe { at: SimTime, seq: SeqNum, new_data: bool },
}

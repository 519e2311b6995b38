//! Evidence extraction: what one candidate model's replay says about one retransmission.
//!
//! 003 §IV-A: the tool "partially emulates ... the sender-side TCP state-machine" of each OS
//! and identifies the sender "for which the tool can unambiguously identify the sender-side
//! OS". The emulation is [`crate::sender_replay::DirReplay`] driving the engine's observer
//! ([`tcplab_tcp::observe::Observer`]) with the candidate's profile; at every retransmission
//! it records a [`RetxEvidence`]: the observer's [`Explanation`] taken *before* the
//! retransmission is applied (which of the model's triggers had fired, when its
//! retransmission timer and probe timer were due, how many duplicate ACKs it had counted
//! and when the DupThresh-th arrived) and how far the capture time may stand from the
//! sender's send time. Nothing here is per ACK: one record per retransmission.
//!
//! [`Instant`] turns an explanation into the instant the model says the sender should have
//! sent it — the quantity the scoring (`score.rs`) compares with the capture.

use tcplab_tcp::loss::RecoveryPhase;
use tcplab_tcp::observe::{Explanation, Trigger};

use crate::classify::Cause;

/// One retransmission as one candidate model's replay saw it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RetxEvidence {
    /// Capture time.
    pub ts_ns: u64,
    /// Estimated send time on the capture's clock (the capture time at the sender; minus the
    /// capture→sender→capture gap away from it, `sender_replay.rs`).
    pub sent_ns: u64,
    /// How far `sent_ns` may be off: 0 at the sender, the upstream estimate plus a TSval
    /// tick away from it.
    pub slack_ns: u64,
    /// At the sender: how long after its capture an ACK reaches the sender's stack (the
    /// handshake's capture→sender→capture gap; 0 for a capture on the sender host). The
    /// observer already applies each ACK that much later (`DirReplay::vantage_gap_ns`), so
    /// its instants are the sender's; duplicate ACKs captured within the gap before a fast
    /// retransmit had not reached the sender when it was sent. Measured: the corpus's
    /// "sender" captures sit on the sender's 2 ms access link, so a fast retransmit is
    /// captured with the next duplicate ACK already captured.
    pub ack_lag_ns: u64,
    /// The model's observer, before the retransmission was applied.
    pub explanation: Option<Explanation>,
    /// The replay's cause under this model (`classify.rs`).
    pub cause: Cause,
    /// The replay took it for the timer's own expiry (not a go-back-N follower).
    pub timer_expiry: bool,
    /// It starts a new loss episode under this model.
    pub new_episode: bool,
    /// The sender's timer cannot be read here (`classify.rs` rule 3).
    pub timer_unobservable: bool,
}

/// What a model says about when a retransmission was due.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Instant {
    /// A trigger with a due time: the retransmission timer (RFC 6298 (5.4)), the probe timer
    /// (RFC 8985 §7.3), the DupThresh-th duplicate ACK (RFC 5681 §3.2 step 2), IsLost of
    /// SND.UNA (RFC 6675 §5 (4)) or RACK's marking (RFC 8985 §6.2 step 5, §6.3). `armed_ns` is the timer's length (0 for ACK triggers).
    Due { kind: DueKind, at_ns: u64, armed_ns: u64 },
    /// Explained by a rule with no instant of its own here: a retransmission inside a
    /// recovery the model is in (NextSeg, partial ACK, IsLost or RACK in recovery), or a
    /// go-back-N follower after a timeout.
    Follows,
    /// None of the model's triggers had fired; the retransmission timer is due at
    /// `rto_at_ns` (if armed) — a retransmission sent before it is premature for this model.
    Early { rto_at_ns: Option<u64>, armed_ns: u64 },
}

/// Which trigger a [`Instant::Due`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DueKind {
    Timeout,
    Probe,
    DupAcks,
    SackLoss,
    RackLoss,
}

impl DueKind {
    pub const fn name(self) -> &'static str {
        match self {
            DueKind::Timeout => "timeout",
            DueKind::Probe => "tlp",
            DueKind::DupAcks => "dupthresh",
            DueKind::SackLoss => "islost",
            DueKind::RackLoss => "rack",
        }
    }
}

fn armed(e: &Explanation) -> u64 {
    match (e.rto_started, e.rto_deadline) {
        (Some(s), Some(d)) => d.0.saturating_sub(s.0),
        _ => 0,
    }
}

/// The instant the model says this retransmission was due, from its explanation.
pub fn instant(e: &Explanation) -> Instant {
    let in_loss = matches!(e.phase, RecoveryPhase::Loss { .. });
    let rto = |e: &Explanation| e.rto_deadline.map(|d| Instant::Due { kind: DueKind::Timeout, at_ns: d.0, armed_ns: armed(e) });
    match e.trigger {
        // RFC 6298 (5.5): a backed-off repeat in the loss phase is again the timer's expiry;
        // the go-back-N followers (5.4) are sent while it runs.
        Trigger::Rto if in_loss && !e.rto_fired => Instant::Follows,
        Trigger::Rto => rto(e).unwrap_or(Instant::Follows),
        Trigger::Tlp => match e.pto_deadline {
            Some(d) => Instant::Due { kind: DueKind::Probe, at_ns: d.0, armed_ns: 0 },
            None => Instant::Follows,
        },
        Trigger::DupThresh => match e.dupthresh_at {
            Some(t) if matches!(e.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) => {
                Instant::Due { kind: DueKind::DupAcks, at_ns: t.0, armed_ns: 0 }
            }
            _ => Instant::Follows,
        },
        Trigger::IsLost if matches!(e.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) => match e.islost_una_at {
            Some(t) => Instant::Due { kind: DueKind::SackLoss, at_ns: t.0, armed_ns: 0 },
            None => Instant::Follows,
        },
        // RFC 8985 §6.2 step 5 / §6.3: entering recovery on RACK's marking, sent at once.
        Trigger::Rack | Trigger::RackTimer if matches!(e.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) => match e.rack_marked_at {
            Some(t) => Instant::Due { kind: DueKind::RackLoss, at_ns: t.0, armed_ns: 0 },
            None => Instant::Follows,
        },
        Trigger::IsLost | Trigger::PartialAck | Trigger::NextSeg | Trigger::Rack | Trigger::RackTimer => Instant::Follows,
        Trigger::Unknown => Instant::Early { rto_at_ns: e.rto_deadline.map(|d| d.0), armed_ns: armed(e) },
    }
}

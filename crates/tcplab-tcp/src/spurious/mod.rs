//! Spurious-retransmission detection seam (detection only; the response is chosen apart).
//!
//! Only [`NoSpuriousDetection`] exists now; F-RTO (RFC 5682), Eifel (RFC 3522) and D-SACK
//! based detection (RFC 3708) come in later issues. The sender calls the hooks and, once a
//! detector says `Spurious`, a separate response (undo) will be applied.

use crate::seq::SeqNum;
use tcplab_time::SimTime;

/// The retransmission timer expired.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpuriousRtoEvent {
    pub now: SimTime,
    pub snd_una: SeqNum,
    pub snd_nxt: SeqNum,
}

/// An ACK arrived while a detection may be running.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpuriousAckEvent {
    pub now: SimTime,
    pub ack: SeqNum,
    /// The ACK carried a D-SACK block.
    pub dsack: bool,
    /// TSecr of the ACK if timestamps are in use.
    pub tsecr: Option<u32>,
}

/// What a detector concluded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpuriousVerdict {
    Undecided,
    Genuine,
    Spurious,
}

/// Detects spurious timeouts / fast retransmits.
pub trait SpuriousDetector: std::fmt::Debug + Send {
    /// Called when the retransmission timer expires.
    fn on_rto(&mut self, ev: &SpuriousRtoEvent);
    /// Called for every ACK.
    fn on_ack(&mut self, ev: &SpuriousAckEvent) -> SpuriousVerdict;
    fn clone_box(&self) -> Box<dyn SpuriousDetector>;
}

/// Never declares anything spurious (RFC 5681 behaviour).
#[derive(Copy, Clone, Debug, Default)]
pub struct NoSpuriousDetection;

impl SpuriousDetector for NoSpuriousDetection {
    fn on_rto(&mut self, _ev: &SpuriousRtoEvent) {}
    fn on_ack(&mut self, _ev: &SpuriousAckEvent) -> SpuriousVerdict {
        SpuriousVerdict::Undecided
    }
    fn clone_box(&self) -> Box<dyn SpuriousDetector> {
        Box::new(*self)
    }
}

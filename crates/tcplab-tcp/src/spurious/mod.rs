//! Spurious-timeout detection (this module) and the response to it ([`response`]), kept
//! apart as the dissertation does ("the detection and response are separable", L2213-2226;
//! Ch. 5 studies alternative responses to the same F-RTO detection).
//!
//! A [`SpuriousDetector`] sees each RTO ([`SpuriousRtoEvent`]), each retransmission and each
//! ACK ([`SpuriousAckEvent`]) and returns decisions; the sender owns the state and applies
//! them:
//! - [`RtoAction`]: at the RTO, conventional go-back-N, or F-RTO's step 1 ("retransmit the
//!   first unacknowledged segment" only and keep cwnd until two ACKs have been seen);
//! - [`SpuriousVerdict`]: per ACK, `Idle` (nothing running), `Pending` (F-RTO holds the
//!   sender), `SendNew` (F-RTO step 2a), `Spurious`, or `Genuine` (with F-RTO's fallback
//!   window, in segments, when the sender must go back to conventional RTO recovery).
//!
//! Implementations: [`frto::Frto`] (RFC 5682 §2, dissertation §4.2), [`frto_sack::FrtoSack`]
//! (RFC 5682 §3, dissertation §5.1), [`eifel_ts::EifelTimestamps`] (RFC 3522),
//! [`eifel_dsack::EifelDsack`] (RFC 3708), and [`NoSpuriousDetection`].

pub mod eifel_dsack;
pub mod eifel_ts;
pub mod frto;
pub mod frto_sack;
pub mod response;

use crate::config::{SpuriousConfig, SpuriousDetection};
use crate::seq::SeqNum;
use tcplab_time::SimTime;

/// The retransmission timer expired (before the sender changes anything).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpuriousRtoEvent {
    pub now: SimTime,
    pub snd_una: SeqNum,
    pub snd_nxt: SeqNum,
    /// The sender is already in conventional timeout recovery (go-back-N) and has not yet
    /// recovered everything sent before the earlier timeout (RFC 5682 §2 step 1: "already
    /// in RTO recovery AND recover >= SND.UNA").
    pub in_rto_recovery: bool,
    /// Fast recovery was running when the timer expired (dissertation §5.5.1, L3322-3345).
    pub in_fast_recovery: bool,
    /// TSval the retransmission will carry (timestamps in use), for Eifel (RFC 3522 §3.2 (1)).
    pub rtx_tsval: Option<u32>,
}

/// An acceptable ACK arrived (after the scoreboard and SND.UNA were updated).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpuriousAckEvent {
    pub now: SimTime,
    /// SEG.ACK (= SND.UNA after the ACK).
    pub ack: SeqNum,
    /// SND.UNA before this ACK.
    pub prior_snd_una: SeqNum,
    pub snd_nxt: SeqNum,
    /// Bytes newly acknowledged cumulatively.
    pub bytes_acked: u64,
    /// RFC 5681 §2 duplicate ACK (no new data acknowledged, data outstanding, no payload,
    /// window unchanged).
    pub is_dupack: bool,
    /// This ACK newly acknowledged (cumulatively or by SACK) a segment that was never
    /// retransmitted and was sent before the F-RTO cut-off (the RTO, or the start of the fast
    /// recovery it interrupted; dissertation L3329-3338).
    pub newly_acked_original: bool,
    /// Highest right edge of this ACK's SACK blocks (D-SACK excluded).
    pub highest_sack: Option<SeqNum>,
    /// The D-SACK block of this ACK (RFC 2883), if any.
    pub dsack: Option<(SeqNum, SeqNum)>,
    /// TSecr of the ACK, if timestamps are in use.
    pub tsecr: Option<u32>,
    /// New, never-sent full segments the peer window and the application allow now (cwnd
    /// not considered), capped at [`frto::FRTO_NEW_SEGMENTS`].
    pub new_segments_possible: u32,
}

/// What to do at an RTO.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RtoAction {
    /// RFC 5681 §3.1 / RFC 6298 (5.4): cwnd = 1 segment, go-back-N.
    Conventional,
    /// F-RTO step 1: retransmit only the first unacknowledged segment; ssthresh is set, cwnd
    /// is kept; nothing else is sent until the detector decides.
    FrtoProbe,
}

/// What a detector concluded from one ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpuriousVerdict {
    /// No detection running, or nothing to say: normal ACK processing.
    Idle,
    /// F-RTO is waiting (steps 2/3): the sender sends nothing and keeps cwnd.
    Pending,
    /// F-RTO step 2a: send up to `segments` new segments (regardless of cwnd), then set
    /// cwnd = ssthresh and wait for the next ACK.
    SendNew { segments: u32 },
    /// The timeout was spurious.
    Spurious,
    /// The timeout was genuine. With `fallback_cwnd_segments`, the sender leaves F-RTO for
    /// conventional go-back-N recovery with that window (1: step 2b, 3: step 3b, 2: step 2a
    /// without new data / the full-ACK condition).
    Genuine { fallback_cwnd_segments: Option<u32> },
}

/// Detects spurious timeouts.
pub trait SpuriousDetector: std::fmt::Debug + Send {
    /// Which detector this is (for events).
    fn kind(&self) -> SpuriousDetection;
    /// The retransmission timer expired.
    fn on_rto(&mut self, ev: &SpuriousRtoEvent) -> RtoAction;
    /// A segment `[seq, seq+len)` was retransmitted (any cause).
    fn on_retransmit(&mut self, _seq: SeqNum, _len: u32) {}
    /// An acceptable ACK (SEG.ACK >= SND.UNA) arrived.
    fn on_ack(&mut self, ev: &SpuriousAckEvent) -> SpuriousVerdict;
    fn clone_box(&self) -> Box<dyn SpuriousDetector>;
}

/// `Clone` for the boxed trait object, so that the structs holding one derive `Clone` (a
/// forked model is a field-by-field copy; nothing is hand-written per field).
impl Clone for Box<dyn SpuriousDetector> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Never declares anything spurious (RFC 5681 behaviour).
#[derive(Copy, Clone, Debug, Default)]
pub struct NoSpuriousDetection;

impl SpuriousDetector for NoSpuriousDetection {
    fn kind(&self) -> SpuriousDetection {
        SpuriousDetection::None
    }
    fn on_rto(&mut self, _ev: &SpuriousRtoEvent) -> RtoAction {
        RtoAction::Conventional
    }
    fn on_ack(&mut self, _ev: &SpuriousAckEvent) -> SpuriousVerdict {
        SpuriousVerdict::Idle
    }
    fn clone_box(&self) -> Box<dyn SpuriousDetector> {
        Box::new(*self)
    }
}

/// The detector `cfg` selects.
pub fn build(cfg: &SpuriousConfig) -> Box<dyn SpuriousDetector> {
    match cfg.detection {
        SpuriousDetection::None => Box::new(NoSpuriousDetection),
        SpuriousDetection::Frto => Box::new(frto::Frto::new(cfg.frto_require_full_ack)),
        SpuriousDetection::FrtoSack => Box::new(frto_sack::FrtoSack::default()),
        SpuriousDetection::Eifel => Box::new(eifel_ts::EifelTimestamps::default()),
        SpuriousDetection::EifelDsack => Box::new(eifel_dsack::EifelDsack::default()),
    }
}

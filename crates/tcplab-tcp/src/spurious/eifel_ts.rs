//! The Eifel detection algorithm with timestamps (RFC 3522 §3.2), for retransmission
//! timeouts (dissertation §3.7 / L2470-2487: "the Eifel algorithm as it has been defined by
//! its authors").
//!
//! RFC 3522 §3.2: "(1) ... store the value of the Timestamp Value field of the [first]
//! retransmit in the variable RetransmitTS"; "(3) Wait for the arrival of an acceptable
//! ACK"; "(4) If the value of the Timestamp Echo Reply field of the acceptable ACK's
//! Timestamps option is smaller than the value of RetransmitTS, then proceed to step (5)"
//! (the retransmission was spurious), else DONE.
//!
//! The decision is made on the first ACK that acknowledges new data. The thesis' false
//! positive under bursty losses (L2632-2678) follows from the receiver's RFC 7323 TS.Recent
//! rule: a duplicate segment is answered with the TSecr of an earlier segment.

use super::{RtoAction, SpuriousAckEvent, SpuriousDetector, SpuriousRtoEvent, SpuriousVerdict};
use crate::config::SpuriousDetection;

/// Eifel detection state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum EifelPhase {
    #[default]
    Inactive,
    /// RFC 3522 `RetransmitTS` of the first retransmission of this timeout recovery.
    Waiting { retransmit_ts: u32 },
}

/// RFC 3522 detection.
#[derive(Clone, Debug, Default)]
pub struct EifelTimestamps {
    pub phase: EifelPhase,
}

impl SpuriousDetector for EifelTimestamps {
    fn kind(&self) -> SpuriousDetection {
        SpuriousDetection::Eifel
    }

    fn on_rto(&mut self, ev: &SpuriousRtoEvent) -> RtoAction {
        // RFC 3522 (1): only the first retransmission of the episode is remembered.
        if self.phase == EifelPhase::Inactive {
            if let Some(ts) = ev.rtx_tsval {
                self.phase = EifelPhase::Waiting { retransmit_ts: ts };
            }
        }
        RtoAction::Conventional
    }

    fn on_ack(&mut self, ev: &SpuriousAckEvent) -> SpuriousVerdict {
        let EifelPhase::Waiting { retransmit_ts } = self.phase else { return SpuriousVerdict::Idle };
        if ev.bytes_acked == 0 {
            return SpuriousVerdict::Idle;
        }
        self.phase = EifelPhase::Inactive;
        // (4): TSecr < RetransmitTS (modulo 2^32, RFC 7323 §5.2 comparison).
        match ev.tsecr {
            Some(e) if crate::timer::ts_before(e, retransmit_ts) => SpuriousVerdict::Spurious,
            _ => SpuriousVerdict::Genuine { fallback_cwnd_segments: None },
        }
    }

    fn clone_box(&self) -> Box<dyn SpuriousDetector> {
        Box::new(self.clone())
    }
}

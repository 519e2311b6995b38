//! Detection of spurious timeouts by D-SACK (RFC 3708 §3; RFC 2883 D-SACK; dissertation
//! §1.5/§2.7 and L1688-1695, Linux's `undo_retrans`).
//!
//! RFC 3708 §3: the sender counts the retransmissions of a loss-recovery episode and
//! decrements the count for every D-SACK that reports one of them; when the count reaches
//! zero "the retransmissions were spurious". tcplab restricts this to timeout recovery (the
//! thesis' subject) and counts in segments (Linux `undo_retrans`).
//!
//! Ambiguity resolved — when is the timeout genuine? D-SACKs for go-back-N retransmissions
//! arrive after the cumulative ACK has passed them, up to one RTT after the episode's
//! recovery point. tcplab waits until the data sent when SND.UNA first reached the recovery
//! point (`deadline`) is acknowledged as well; a count above zero then means genuine.

use super::{RtoAction, SpuriousAckEvent, SpuriousDetector, SpuriousRtoEvent, SpuriousVerdict};
use crate::config::SpuriousDetection;
use crate::seq::SeqNum;

/// D-SACK detection state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum DsackPhase {
    #[default]
    Inactive,
    /// Linux `undo_marker` (SND.UNA at the RTO), `high_seq` (SND.NXT at the RTO),
    /// `undo_retrans` (retransmissions not yet D-SACKed), and the genuine deadline.
    Counting { undo_marker: SeqNum, high_seq: SeqNum, undo_retrans: u32, retrans_seen: u32, deadline: Option<SeqNum> },
}

/// RFC 3708 detection.
#[derive(Clone, Debug, Default)]
pub struct EifelDsack {
    pub phase: DsackPhase,
}

impl SpuriousDetector for EifelDsack {
    fn kind(&self) -> SpuriousDetection {
        SpuriousDetection::EifelDsack
    }

    fn on_rto(&mut self, ev: &SpuriousRtoEvent) -> RtoAction {
        self.phase = match self.phase {
            // A repeated timeout of the same episode widens it.
            DsackPhase::Counting { undo_marker, undo_retrans, retrans_seen, deadline: None, .. } => DsackPhase::Counting {
                undo_marker,
                high_seq: ev.snd_nxt,
                undo_retrans,
                retrans_seen,
                deadline: None,
            },
            _ => DsackPhase::Counting {
                undo_marker: ev.snd_una,
                high_seq: ev.snd_nxt,
                undo_retrans: 0,
                retrans_seen: 0,
                deadline: None,
            },
        };
        RtoAction::Conventional
    }

    fn on_retransmit(&mut self, seq: SeqNum, _len: u32) {
        if let DsackPhase::Counting { undo_marker, high_seq, ref mut undo_retrans, ref mut retrans_seen, .. } = self.phase {
            if seq.ge(undo_marker) && seq.lt(high_seq) {
                *undo_retrans += 1;
                *retrans_seen += 1;
            }
        }
    }

    fn on_ack(&mut self, ev: &SpuriousAckEvent) -> SpuriousVerdict {
        let DsackPhase::Counting { undo_marker, high_seq, mut undo_retrans, retrans_seen, mut deadline } = self.phase
        else {
            return SpuriousVerdict::Idle;
        };
        if let Some((l, r)) = ev.dsack {
            // RFC 3708 §3: a D-SACK for a retransmission of this episode.
            if l.ge(undo_marker) && r.le(high_seq) {
                undo_retrans = undo_retrans.saturating_sub(1);
            }
        }
        if retrans_seen > 0 && undo_retrans == 0 {
            self.phase = DsackPhase::Inactive;
            return SpuriousVerdict::Spurious;
        }
        match deadline {
            None if ev.ack.ge(high_seq) => deadline = Some(ev.snd_nxt),
            Some(d) if ev.bytes_acked > 0 && ev.ack.ge(d) => {
                self.phase = DsackPhase::Inactive;
                return SpuriousVerdict::Genuine { fallback_cwnd_segments: None };
            }
            _ => {}
        }
        self.phase = DsackPhase::Counting { undo_marker, high_seq, undo_retrans, retrans_seen, deadline };
        SpuriousVerdict::Idle
    }

    fn clone_box(&self) -> Box<dyn SpuriousDetector> {
        Box::new(self.clone())
    }
}

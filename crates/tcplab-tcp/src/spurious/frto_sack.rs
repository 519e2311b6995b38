//! SACK-enhanced F-RTO (RFC 5682 §3; dissertation §5.1, L2884-2947, and §5.5.1 for timeouts
//! during SACK-based fast recovery, L3322-3345).
//!
//! Differences from basic F-RTO ([`super::frto`]): duplicate ACKs in step 2 do not end the
//! algorithm; step 3 declares the timeout spurious when the ACK newly acknowledges — by
//! cumulative ACK or SACK — a segment sent before the timeout and never retransmitted, and
//! nothing above `send_high`.
//!
//! Ambiguities resolved:
//! - The SACK scoreboard is *not* reset at step 1 (L2888-2891 "reset the SACK scoreboard"):
//!   tcplab's conventional RTO recovery keeps SACK information too (go-back-N skips SACKed
//!   segments), and "newly acknowledged" is judged against the scoreboard as it stands, so
//!   both baselines see the same information. SACK blocks above the RTO point still count
//!   as "above send_high" in step 3.
//! - "Transmitted before the SACK-based loss recovery started" (L3331-3334) is the sender's
//!   cut-off time: the RTO, or the start of the fast recovery the RTO interrupted; segments
//!   ever retransmitted never count (the sender computes `newly_acked_original`).
//! - Step 2a without new data to send, and step 2b, continue conventionally with cwnd = 2
//!   segments ("cwnd <= 2*MSS", L2912-2916); step 3b with cwnd = 3 segments (L2927-2933).

use super::frto::{FRTO_FALLBACK_AFTER_ACK_SEGMENTS, FRTO_NEW_SEGMENTS, FRTO_STEP3B_CWND_SEGMENTS};
use super::{RtoAction, SpuriousAckEvent, SpuriousDetector, SpuriousRtoEvent, SpuriousVerdict};
use crate::config::SpuriousDetection;
use crate::seq::SeqNum;

/// Where SACK-enhanced F-RTO is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum FrtoSackPhase {
    #[default]
    Inactive,
    /// Waiting for the cumulative ACK of the retransmitted segment (duplicate ACKs only
    /// update the scoreboard).
    Step2 { send_high: SeqNum },
    /// New data was sent; the next ACK decides.
    Step3 { send_high: SeqNum },
}

/// SACK-enhanced F-RTO (RFC 5682 §3).
#[derive(Clone, Debug, Default)]
pub struct FrtoSack {
    pub phase: FrtoSackPhase,
}

impl SpuriousDetector for FrtoSack {
    fn kind(&self) -> SpuriousDetection {
        SpuriousDetection::FrtoSack
    }

    fn on_rto(&mut self, ev: &SpuriousRtoEvent) -> RtoAction {
        // RFC 5682 §3 step 1 (as §2 step 1): not during unfinished conventional RTO recovery.
        if ev.in_rto_recovery && self.phase == FrtoSackPhase::Inactive {
            return RtoAction::Conventional;
        }
        // Step 1 (L2888-2891): retransmit the first unacknowledged segment; send_high =
        // highest segment transmitted so far. Allowed during fast recovery (L2953-2955).
        self.phase = FrtoSackPhase::Step2 { send_high: ev.snd_nxt };
        RtoAction::FrtoProbe
    }

    fn on_ack(&mut self, ev: &SpuriousAckEvent) -> SpuriousVerdict {
        match self.phase {
            FrtoSackPhase::Inactive => SpuriousVerdict::Idle,
            FrtoSackPhase::Step2 { send_high } => {
                if ev.bytes_acked == 0 {
                    // L2893-2898: duplicate ACKs update the scoreboard; stay in step 2.
                    SpuriousVerdict::Pending
                } else if ev.ack.lt(send_high) {
                    // (2a) L2900-2910: SND.UNA < ACK < send_high.
                    if ev.new_segments_possible == 0 {
                        self.phase = FrtoSackPhase::Inactive;
                        return SpuriousVerdict::Genuine {
                            fallback_cwnd_segments: Some(FRTO_FALLBACK_AFTER_ACK_SEGMENTS),
                        };
                    }
                    self.phase = FrtoSackPhase::Step3 { send_high };
                    SpuriousVerdict::SendNew { segments: ev.new_segments_possible.min(FRTO_NEW_SEGMENTS) }
                } else {
                    // (2b) L2912-2916: the ACK covers send_high: conventional, cwnd <= 2*MSS.
                    self.phase = FrtoSackPhase::Inactive;
                    SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(FRTO_FALLBACK_AFTER_ACK_SEGMENTS) }
                }
            }
            FrtoSackPhase::Step3 { send_high } => {
                self.phase = FrtoSackPhase::Inactive;
                let above = ev.ack.gt(send_high) || ev.highest_sack.is_some_and(|h| h.gt(send_high));
                if !above && ev.newly_acked_original {
                    // (3a) L2921-2926.
                    SpuriousVerdict::Spurious
                } else {
                    // (3b) L2927-2933: cwnd <= 3*MSS, conventional recovery.
                    SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(FRTO_STEP3B_CWND_SEGMENTS) }
                }
            }
        }
    }

    fn clone_box(&self) -> Box<dyn SpuriousDetector> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_time::SimTime;

    fn start() -> FrtoSack {
        let mut f = FrtoSack::default();
        let a = f.on_rto(&SpuriousRtoEvent {
            now: SimTime(0),
            snd_una: SeqNum(0),
            snd_nxt: SeqNum(10_000),
            in_rto_recovery: false,
            in_fast_recovery: true,
            rtx_tsval: None,
        });
        assert_eq!(a, RtoAction::FrtoProbe, "allowed during fast recovery");
        f
    }
    fn ack(prior: u32, ack: u32, orig: bool, sack: Option<u32>) -> SpuriousAckEvent {
        SpuriousAckEvent {
            now: SimTime(0),
            ack: SeqNum(ack),
            prior_snd_una: SeqNum(prior),
            snd_nxt: SeqNum(12_000),
            bytes_acked: u64::from(ack - prior),
            is_dupack: ack == prior,
            newly_acked_original: orig,
            highest_sack: sack.map(SeqNum),
            dsack: None,
            tsecr: None,
            new_segments_possible: 2,
        }
    }

    #[test]
    fn duplicate_acks_in_step_two_keep_waiting() {
        let mut f = start();
        assert_eq!(f.on_ack(&ack(0, 0, true, Some(5000))), SpuriousVerdict::Pending);
        assert!(matches!(f.phase, FrtoSackPhase::Step2 { .. }));
    }

    #[test]
    fn a_cumulative_ack_below_send_high_sends_new_data_and_one_reaching_it_is_genuine() {
        let mut f = start();
        assert_eq!(f.on_ack(&ack(0, 1000, false, None)), SpuriousVerdict::SendNew { segments: 2 });
        let mut g = start();
        assert_eq!(g.on_ack(&ack(0, 10_000, true, None)), SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(2) });
    }

    #[test]
    fn a_duplicate_ack_sacking_an_original_below_send_high_is_spurious() {
        let mut f = start();
        f.on_ack(&ack(0, 1000, false, None));
        assert_eq!(f.on_ack(&ack(1000, 1000, true, Some(6000))), SpuriousVerdict::Spurious);
    }

    #[test]
    fn an_ack_sacking_above_send_high_or_nothing_new_is_genuine_with_cwnd_three() {
        let mut f = start();
        f.on_ack(&ack(0, 1000, false, None));
        assert_eq!(f.on_ack(&ack(1000, 1000, true, Some(11_000))), SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(3) });
        let mut g = start();
        g.on_ack(&ack(0, 1000, false, None));
        assert_eq!(g.on_ack(&ack(1000, 1000, false, Some(6000))), SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(3) });
    }
}

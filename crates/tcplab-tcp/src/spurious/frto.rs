//! Basic F-RTO: Forward RTO-Recovery (RFC 5682 §2; dissertation §4.2, L2105-2244).
//!
//! Detection only: the sender applies the decisions (which segments to send, cwnd), and the
//! response to a spurious timeout is chosen apart ([`super::response`]).
//!
//! Ambiguities resolved:
//! - The "ACK covers everything sent before the timeout" condition (RFC 4138; RFC 5682 §2
//!   step 2b "acknowledges the whole outstanding window") is the switch
//!   `frto_require_full_ack`, off as in the thesis' Linux experiments (L2237-2240). When it
//!   applies, the timeout is reported genuine ("not declared spurious") and the sender
//!   continues conventionally with cwnd = 2 segments (1 at the RTO + 1 for this ACK).
//! - Step 2a without any new data to send falls back to conventional recovery (L2130-2133)
//!   with cwnd = 2 segments (what the conventional sender has after one ACK); the timeout
//!   is reported genuine although it may not be (it is simply undetected).
//! - ACKs that neither advance SND.UNA nor are duplicate ACKs (window updates) are ignored
//!   without consuming a step (spec §3.3; RFC 5682 leaves them out).
//! - The RTO expiring again while F-RTO waits (steps 2/3) restarts step 1 (L2186-2189 and
//!   footnote 3, L2363-2365); an RTO during conventional RTO recovery that has not yet
//!   recovered `recover` keeps conventional recovery (RFC 5682 §2 step 1).

use super::{RtoAction, SpuriousAckEvent, SpuriousDetector, SpuriousRtoEvent, SpuriousVerdict};
use crate::config::SpuriousDetection;
use crate::seq::SeqNum;

/// Dissertation L2120-2126 / RFC 5682 §2 step 2a: "transmit up to two new (previously
/// unsent) segments".
pub const FRTO_NEW_SEGMENTS: u32 = 2;
/// Dissertation L2135-2145 (step 2b): cwnd = 1 segment, conventional recovery.
pub const FRTO_STEP2B_CWND_SEGMENTS: u32 = 1;
/// Dissertation L2191-2199 (step 3b): "cwnd <- 3" segments.
pub const FRTO_STEP3B_CWND_SEGMENTS: u32 = 3;
/// Conventional recovery after one advancing ACK: cwnd 1 at the RTO + 1 (slow start).
pub const FRTO_FALLBACK_AFTER_ACK_SEGMENTS: u32 = 2;

/// Where F-RTO is (Linux `frto_counter`: 0, 1, 2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrtoPhase {
    Inactive,
    /// Waiting for the first ACK after the RTO retransmission; `frto_highmark` = SND.NXT at
    /// the RTO (RFC 5682 `recover`, the thesis' `send_high`).
    Step2 { frto_highmark: SeqNum },
    /// Two new segments were sent; waiting for the second ACK.
    Step3 { frto_highmark: SeqNum },
}

/// Basic F-RTO (RFC 5682 §2).
#[derive(Clone, Debug)]
pub struct Frto {
    pub phase: FrtoPhase,
    /// RFC 4138's additional condition (see module docs).
    pub require_full_ack: bool,
}

impl Frto {
    pub fn new(require_full_ack: bool) -> Self {
        Frto { phase: FrtoPhase::Inactive, require_full_ack }
    }
}

impl SpuriousDetector for Frto {
    fn kind(&self) -> SpuriousDetection {
        SpuriousDetection::Frto
    }

    fn on_rto(&mut self, ev: &SpuriousRtoEvent) -> RtoAction {
        // RFC 5682 §2 step 1: "If the TCP sender is already in RTO recovery AND 'recover' is
        // larger than or equal to SND.UNA, do not enter step 2 of this algorithm."
        if ev.in_rto_recovery && self.phase == FrtoPhase::Inactive {
            return RtoAction::Conventional;
        }
        // Step 1 (L2109-2114): retransmit the first unacknowledged segment, store send_high.
        self.phase = FrtoPhase::Step2 { frto_highmark: ev.snd_nxt };
        RtoAction::FrtoProbe
    }

    fn on_ack(&mut self, ev: &SpuriousAckEvent) -> SpuriousVerdict {
        match self.phase {
            FrtoPhase::Inactive => SpuriousVerdict::Idle,
            FrtoPhase::Step2 { frto_highmark } => {
                if ev.is_dupack {
                    // (2b) L2135-2145: "cwnd <- 1", conventional recovery, no step 3.
                    self.phase = FrtoPhase::Inactive;
                    SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(FRTO_STEP2B_CWND_SEGMENTS) }
                } else if ev.bytes_acked > 0 {
                    if self.require_full_ack && ev.ack.ge(frto_highmark) {
                        // RFC 4138 additional condition (L2228-2236).
                        self.phase = FrtoPhase::Inactive;
                        return SpuriousVerdict::Genuine {
                            fallback_cwnd_segments: Some(FRTO_FALLBACK_AFTER_ACK_SEGMENTS),
                        };
                    }
                    if ev.new_segments_possible == 0 {
                        // L2130-2133: no new data can be sent -> conventional recovery.
                        self.phase = FrtoPhase::Inactive;
                        return SpuriousVerdict::Genuine {
                            fallback_cwnd_segments: Some(FRTO_FALLBACK_AFTER_ACK_SEGMENTS),
                        };
                    }
                    // (2a) L2116-2133: up to two new segments, then cwnd = ssthresh.
                    self.phase = FrtoPhase::Step3 { frto_highmark };
                    SpuriousVerdict::SendNew { segments: ev.new_segments_possible.min(FRTO_NEW_SEGMENTS) }
                } else {
                    SpuriousVerdict::Pending
                }
            }
            FrtoPhase::Step3 { .. } => {
                if ev.is_dupack {
                    // (3b) L2191-2199: cwnd <- 3, go-back-N, keep send_high.
                    self.phase = FrtoPhase::Inactive;
                    SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(FRTO_STEP3B_CWND_SEGMENTS) }
                } else if ev.bytes_acked > 0 {
                    // (3a) L2151-2189: the RTO was spurious.
                    self.phase = FrtoPhase::Inactive;
                    SpuriousVerdict::Spurious
                } else {
                    SpuriousVerdict::Pending
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

    fn rto(una: u32, nxt: u32, in_rto_recovery: bool) -> SpuriousRtoEvent {
        SpuriousRtoEvent {
            now: SimTime(0),
            snd_una: SeqNum(una),
            snd_nxt: SeqNum(nxt),
            in_rto_recovery,
            in_fast_recovery: false,
            rtx_tsval: None,
        }
    }
    fn ack(prior: u32, ack: u32, dup: bool, room: u32) -> SpuriousAckEvent {
        SpuriousAckEvent {
            now: SimTime(0),
            ack: SeqNum(ack),
            prior_snd_una: SeqNum(prior),
            snd_nxt: SeqNum(10_000),
            bytes_acked: u64::from(ack - prior),
            is_dupack: dup,
            newly_acked_original: false,
            highest_sack: None,
            dsack: None,
            tsecr: None,
            new_segments_possible: room,
        }
    }

    #[test]
    fn first_ack_advances_and_second_advances_is_spurious() {
        let mut f = Frto::new(false);
        assert_eq!(f.on_rto(&rto(0, 10_000, false)), RtoAction::FrtoProbe);
        assert_eq!(f.on_ack(&ack(0, 1000, false, 2)), SpuriousVerdict::SendNew { segments: 2 });
        assert_eq!(f.on_ack(&ack(1000, 2000, false, 2)), SpuriousVerdict::Spurious);
        assert_eq!(f.phase, FrtoPhase::Inactive);
    }

    #[test]
    fn first_ack_duplicate_is_genuine_with_cwnd_one() {
        let mut f = Frto::new(false);
        f.on_rto(&rto(0, 10_000, false));
        assert_eq!(f.on_ack(&ack(0, 0, true, 2)), SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(1) });
    }

    #[test]
    fn second_ack_duplicate_is_genuine_with_cwnd_three() {
        let mut f = Frto::new(false);
        f.on_rto(&rto(0, 10_000, false));
        f.on_ack(&ack(0, 1000, false, 2));
        assert_eq!(f.on_ack(&ack(1000, 1000, true, 2)), SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(3) });
    }

    #[test]
    fn window_updates_neither_advancing_nor_duplicate_are_ignored_in_both_steps() {
        let mut f = Frto::new(false);
        f.on_rto(&rto(0, 10_000, false));
        assert_eq!(f.on_ack(&ack(0, 0, false, 2)), SpuriousVerdict::Pending);
        f.on_ack(&ack(0, 1000, false, 2));
        assert_eq!(f.on_ack(&ack(1000, 1000, false, 2)), SpuriousVerdict::Pending);
        assert!(matches!(f.phase, FrtoPhase::Step3 { .. }));
    }

    #[test]
    fn window_limited_first_ack_sends_what_fits_or_falls_back() {
        let mut f = Frto::new(false);
        f.on_rto(&rto(0, 10_000, false));
        assert_eq!(f.on_ack(&ack(0, 1000, false, 1)), SpuriousVerdict::SendNew { segments: 1 });
        let mut g = Frto::new(false);
        g.on_rto(&rto(0, 10_000, false));
        assert_eq!(g.on_ack(&ack(0, 1000, false, 0)), SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(2) });
    }

    #[test]
    fn the_full_ack_switch_makes_an_ack_of_everything_not_spurious() {
        let mut on = Frto::new(true);
        on.on_rto(&rto(0, 10_000, false));
        assert_eq!(on.on_ack(&ack(0, 10_000, false, 2)), SpuriousVerdict::Genuine { fallback_cwnd_segments: Some(2) });
        let mut off = Frto::new(false);
        off.on_rto(&rto(0, 10_000, false));
        assert_eq!(off.on_ack(&ack(0, 10_000, false, 2)), SpuriousVerdict::SendNew { segments: 2 });
    }

    #[test]
    fn an_rto_during_unfinished_conventional_rto_recovery_stays_conventional_but_one_during_frto_restarts_it() {
        let mut f = Frto::new(false);
        assert_eq!(f.on_rto(&rto(0, 10_000, true)), RtoAction::Conventional);
        f.on_rto(&rto(0, 10_000, false));
        f.on_ack(&ack(0, 1000, false, 2));
        assert_eq!(f.on_rto(&rto(1000, 12_000, true)), RtoAction::FrtoProbe);
        assert_eq!(f.phase, FrtoPhase::Step2 { frto_highmark: SeqNum(12_000) });
    }
}

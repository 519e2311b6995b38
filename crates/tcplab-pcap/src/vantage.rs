//! Where was the capture taken? Inferred from the three-way handshake timing.
//!
//! Let g1 = SYN -> SYN-ACK and g2 = SYN-ACK -> ACK as seen by the capture point. Their sum
//! is one round-trip time wherever the capture point sits on the path:
//! - next to the client (the SYN sender), g1 is the whole RTT and g2 is only the client's
//!   processing time (about zero);
//! - next to the server, g1 is only the server's processing time and g2 is the whole RTT;
//! - in the middle, both are substantial.
//!
//! **Threshold** ([`NEAR_ZERO_FRACTION`] = 0.10): a gap is "about zero" when it is at most
//! 10% of g1 + g2. Host processing of a SYN or SYN-ACK takes tens of microseconds, so the
//! rule is reliable for RTTs of a millisecond and above; on sub-millisecond paths host delay
//! is a sizable share and the answer tends toward `Middle`. The measured gaps are always
//! returned so callers can apply their own rule.
//!
//! Per direction: for the client -> server data direction a client-side capture is at the
//! *sender*; for server -> client data the same capture is at the *receiver*.
//!
//! Ambiguities resolved (Karn's rule applied to the handshake): the SYN time is the last SYN
//! transmission before the SYN-ACK (a retransmitted SYN would otherwise inflate g1 by the SYN
//! timeout); g1 ends at the *first* SYN-ACK after it (the server answers the SYN at once) and
//! g2 starts at the *last* SYN-ACK before the client's ACK (the ACK answers the SYN-ACK that
//! reached the client), so a SYN-ACK retransmitted after the client's ACK was lost does not
//! put its timeout into either gap; without all three the result is `Unknown`.

use serde::Serialize;

use crate::conn_tracker::Dir;

/// Share of the handshake RTT under which a gap counts as "about zero".
pub const NEAR_ZERO_FRACTION: f64 = 0.10;

/// Capture position relative to the data sender of one direction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Vantage {
    Sender,
    Receiver,
    Middle,
    Unknown,
}

/// Handshake instants seen by the capture point (nanoseconds).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HandshakeTiming {
    pub syn_ns: Option<u64>,
    /// The last SYN-ACK before the ACK (g2 starts here).
    pub synack_ns: Option<u64>,
    /// The first SYN-ACK after the last SYN (g1 ends here); `None` means the same as
    /// `synack_ns`.
    pub synack_first_ns: Option<u64>,
    pub ack_ns: Option<u64>,
}

/// Which end the capture point is near.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum NearEnd {
    Client,
    Server,
    Middle,
    Unknown,
}

/// Result of the vantage inference, with the measured gaps.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct VantageEstimate {
    pub syn_to_synack_ns: Option<u64>,
    pub synack_to_ack_ns: Option<u64>,
    pub near: NearEnd,
}

impl VantageEstimate {
    /// Vantage for the data flowing in `dir`.
    pub fn for_direction(&self, dir: Dir) -> Vantage {
        match (self.near, dir) {
            (NearEnd::Client, Dir::ClientToServer) | (NearEnd::Server, Dir::ServerToClient) => {
                Vantage::Sender
            }
            (NearEnd::Client, Dir::ServerToClient) | (NearEnd::Server, Dir::ClientToServer) => {
                Vantage::Receiver
            }
            (NearEnd::Middle, _) => Vantage::Middle,
            (NearEnd::Unknown, _) => Vantage::Unknown,
        }
    }
}

/// Classifies a handshake with the given near-zero fraction (use [`NEAR_ZERO_FRACTION`]).
pub fn classify_vantage(t: &HandshakeTiming, near_zero_fraction: f64) -> VantageEstimate {
    let g1 = match (t.syn_ns, t.synack_first_ns.or(t.synack_ns)) {
        (Some(a), Some(b)) if b >= a => Some(b - a),
        _ => None,
    };
    let g2 = match (t.synack_ns, t.ack_ns) {
        (Some(a), Some(b)) if b >= a => Some(b - a),
        _ => None,
    };
    let near = match (g1, g2) {
        (Some(g1), Some(g2)) if g1 + g2 > 0 => {
            let total = (g1 + g2) as f64;
            if (g2 as f64) <= near_zero_fraction * total {
                NearEnd::Client
            } else if (g1 as f64) <= near_zero_fraction * total {
                NearEnd::Server
            } else {
                NearEnd::Middle
            }
        }
        _ => NearEnd::Unknown,
    };
    VantageEstimate { syn_to_synack_ns: g1, synack_to_ack_ns: g2, near }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const US: u64 = 1_000;

    fn t(syn: u64, synack: u64, ack: u64) -> HandshakeTiming {
        HandshakeTiming { syn_ns: Some(syn), synack_ns: Some(synack), synack_first_ns: None, ack_ns: Some(ack) }
    }

    #[test]
    fn a_retransmitted_synack_puts_its_timeout_in_neither_gap() {
        // Middle capture: SYN at 0, SYN-ACK at 22 ms, the client's ACK lost downstream, the
        // SYN-ACK again after the server's 1 s timeout, the client's ACK 24 ms later.
        let h = HandshakeTiming { syn_ns: Some(0), synack_first_ns: Some(22 * MS), synack_ns: Some(1022 * MS), ack_ns: Some(1046 * MS) };
        let v = classify_vantage(&h, NEAR_ZERO_FRACTION);
        assert_eq!((v.syn_to_synack_ns, v.synack_to_ack_ns), (Some(22 * MS), Some(24 * MS)));
        assert_eq!(v.near, NearEnd::Middle);
    }

    #[test]
    fn client_side_capture_sees_full_rtt_before_the_synack() {
        let v = classify_vantage(&t(0, 80 * MS, 80 * MS + 40 * US), NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Client);
        assert_eq!(v.syn_to_synack_ns, Some(80 * MS));
        assert_eq!(v.synack_to_ack_ns, Some(40 * US));
        assert_eq!(v.for_direction(Dir::ClientToServer), Vantage::Sender);
        assert_eq!(v.for_direction(Dir::ServerToClient), Vantage::Receiver);
    }

    #[test]
    fn server_side_capture_sees_full_rtt_after_the_synack() {
        let v = classify_vantage(&t(0, 30 * US, 30 * US + 120 * MS), NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Server);
        assert_eq!(v.for_direction(Dir::ServerToClient), Vantage::Sender);
        assert_eq!(v.for_direction(Dir::ClientToServer), Vantage::Receiver);
    }

    #[test]
    fn middle_capture_sees_both_gaps() {
        let v = classify_vantage(&t(0, 30 * MS, 80 * MS), NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Middle);
        assert_eq!(v.for_direction(Dir::ClientToServer), Vantage::Middle);
    }

    #[test]
    fn threshold_boundary_is_inclusive() {
        // g2 exactly 10% of the total: still "about zero".
        let v = classify_vantage(&t(0, 90 * MS, 100 * MS), NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Client);
        let v = classify_vantage(&t(0, 89 * MS, 100 * MS), NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Middle);
    }

    #[test]
    fn incomplete_or_reordered_handshake_is_unknown() {
        let v = classify_vantage(&HandshakeTiming { syn_ns: Some(5), synack_ns: Some(9), synack_first_ns: None, ack_ns: None }, NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Unknown);
        assert_eq!(v.syn_to_synack_ns, Some(4));
        let v = classify_vantage(&t(10, 5, 20), NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Unknown);
        assert_eq!(v.for_direction(Dir::ClientToServer), Vantage::Unknown);
        let v = classify_vantage(&t(7, 7, 7), NEAR_ZERO_FRACTION);
        assert_eq!(v.near, NearEnd::Unknown);
    }
}

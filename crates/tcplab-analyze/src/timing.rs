//! Detection and recovery durations (Rewaskar, Kaur & Smith §IV-B).
//!
//! "Detection duration: the time between the original transmission of a segment and its
//! (first) retransmission" — per retransmission, from the first copy the capture saw (none
//! when the original was lost before the capture point). "Recovery duration: the time from
//! the detection of a loss until the receipt of the ACK for the highest segment transmitted
//! before the loss was detected" — per loss episode (the retransmission that detected the
//! loss opens it with `recover` = the highest sequence number sent so far; the first
//! cumulative ACK at or above it closes it), copied to every retransmission of the episode.
//! Fig. 2 plots detection durations in RTT units; [`RTT_BIN_EDGES`] are its bins.

/// Upper edges of the detection-duration histogram in RTT units (the last bin is open):
/// [0,1), [1,2), [2,3), [3,4), [4,6), [6,10), [10,20), [20,∞).
pub const RTT_BIN_EDGES: [f64; 7] = [1.0, 2.0, 3.0, 4.0, 6.0, 10.0, 20.0];

/// Bin index of a duration expressed in RTTs.
pub fn rtt_bin(rtts: f64) -> usize {
    RTT_BIN_EDGES.iter().position(|&e| rtts < e).unwrap_or(RTT_BIN_EDGES.len())
}

/// One loss episode of one data direction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Episode {
    pub id: u32,
    pub detect_ns: u64,
    /// Highest sequence number sent before the detection (relative, unwrapped).
    pub recover: u64,
    pub recovery_ns: Option<u64>,
}

impl Episode {
    /// Closes the episode when `cum_ack` reaches `recover`.
    pub fn on_ack(&mut self, now_ns: u64, cum_ack: u64) -> bool {
        if self.recovery_ns.is_none() && cum_ack >= self.recover {
            self.recovery_ns = Some(now_ns.saturating_sub(self.detect_ns));
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_ends_at_the_ack_of_the_highest_segment_sent_before_detection() {
        let mut e = Episode { id: 0, detect_ns: 1000, recover: 5000, recovery_ns: None };
        assert!(!e.on_ack(1500, 4999));
        assert!(e.on_ack(1800, 5000));
        assert_eq!(e.recovery_ns, Some(800));
        assert!(!e.on_ack(1900, 9000));
        assert_eq!(e.recovery_ns, Some(800));
    }

    #[test]
    fn histogram_bins_are_half_open_with_an_open_last_bin() {
        assert_eq!(rtt_bin(0.5), 0);
        assert_eq!(rtt_bin(1.0), 1);
        assert_eq!(rtt_bin(5.0), 4);
        assert_eq!(rtt_bin(1e9), RTT_BIN_EDGES.len());
    }
}

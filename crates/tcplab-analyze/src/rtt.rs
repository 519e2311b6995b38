//! Round-trip times seen from the capture point.
//!
//! Two measures (Rewaskar, Kaur & Smith §IV-B express durations "in RTT units"):
//! - the handshake RTT: SYN → SYN-ACK → ACK spans exactly one end-to-end round trip from
//!   *any* capture position (at the client the first gap is the RTT, at the server the
//!   second, in between their sum), so it is the unit of [`crate::timing`];
//! - capture→receiver→capture samples: a data segment sent once (Karn's rule, RFC 6298 §3)
//!   and the first ACK covering it. At the sender these are full RTTs and are fed to the
//!   engine's own RFC 6298 estimator ([`tcplab_tcp::rtt::Rfc6298`]) for SRTT; elsewhere they
//!   are the downstream part only, whose minimum bounds how soon an ACK can follow a
//!   segment (the "ACK too soon" rule in [`crate::spurious`]).

use tcplab_tcp::rtt::{Rfc6298, RttEstimator, RttSampleEvent};
use tcplab_tcp::RtoConfig;
use tcplab_time::{SimDuration, SimTime};

/// Capture-point RTT samples of one data direction.
#[derive(Debug, Clone)]
pub struct RttStats {
    pub samples: u64,
    pub sum_ns: u128,
    pub min_ns: Option<u64>,
    pub max_ns: Option<u64>,
    /// Fed only when the capture is at the sender (full RTT samples).
    estimator: Option<Rfc6298>,
}

impl RttStats {
    pub fn new(at_sender: bool, rto: RtoConfig) -> RttStats {
        RttStats {
            samples: 0,
            sum_ns: 0,
            min_ns: None,
            max_ns: None,
            estimator: at_sender.then(|| Rfc6298::new(rto)),
        }
    }

    pub fn sample(&mut self, now_ns: u64, rtt_ns: u64) {
        self.samples += 1;
        self.sum_ns += u128::from(rtt_ns);
        self.min_ns = Some(self.min_ns.map_or(rtt_ns, |m| m.min(rtt_ns)));
        self.max_ns = Some(self.max_ns.map_or(rtt_ns, |m| m.max(rtt_ns)));
        if let Some(e) = self.estimator.as_mut() {
            e.on_sample(&RttSampleEvent::at(SimTime(now_ns), SimDuration(rtt_ns)));
        }
    }

    /// A round trip that also contains a wait (segments acknowledged only when a copy filled
    /// the hole below them): not a sample, but an upper bound on how long an answer can take,
    /// so it raises `max_ns` (the D-SACK wait of `spurious::no_dsack`) and nothing else.
    pub fn widen_max(&mut self, ns: u64) {
        self.max_ns = Some(self.max_ns.map_or(ns, |m| m.max(ns)));
    }

    pub fn mean_ns(&self) -> Option<u64> {
        (self.samples > 0).then(|| (self.sum_ns / u128::from(self.samples)) as u64)
    }

    /// SRTT of the engine's RFC 6298 estimator (sender-side captures only).
    pub fn srtt_ns(&self) -> Option<u64> {
        self.estimator.as_ref().and_then(|e| e.srtt()).map(|d| d.as_nanos())
    }
}

/// End-to-end RTT from the handshake instants (SYN, SYN-ACK, client's ACK).
///
/// With the SYN-ACK sent more than once, the round trip is (first SYN-ACK − SYN) + (ACK −
/// last SYN-ACK): the time between the two SYN-ACKs is the server's timeout, not path delay
/// (Karn's rule; `synack_first_ns` `None` means a single SYN-ACK).
pub fn handshake_rtt_ns(syn_ns: Option<u64>, synack_first_ns: Option<u64>, synack_ns: Option<u64>, ack_ns: Option<u64>) -> Option<u64> {
    let (s, sa, a) = (syn_ns?, synack_ns?, ack_ns?);
    let first = synack_first_ns.unwrap_or(sa);
    (first >= s && sa >= first && a >= sa && a > s).then(|| (first - s) + (a - sa))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_spans_one_round_trip_from_any_vantage() {
        assert_eq!(handshake_rtt_ns(Some(0), None, Some(80), Some(81)), Some(81));
        assert_eq!(handshake_rtt_ns(Some(0), None, Some(1), Some(81)), Some(81));
        // A SYN-ACK repeated after a 1 s timeout: the timeout is not a round trip.
        assert_eq!(handshake_rtt_ns(Some(0), Some(22), Some(1022), Some(1046)), Some(46));
        assert_eq!(handshake_rtt_ns(Some(10), None, Some(5), Some(81)), None);
        assert_eq!(handshake_rtt_ns(None, None, Some(5), Some(81)), None);
    }

    #[test]
    fn sender_side_samples_reach_the_engine_estimator() {
        let mut s = RttStats::new(true, RtoConfig::default());
        s.sample(0, 100);
        s.sample(1, 300);
        assert_eq!(s.min_ns, Some(100));
        assert_eq!(s.max_ns, Some(300));
        assert_eq!(s.mean_ns(), Some(200));
        assert!(s.srtt_ns().is_some());
        assert!(RttStats::new(false, RtoConfig::default()).srtt_ns().is_none());
    }
}

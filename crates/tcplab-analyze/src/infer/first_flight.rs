//! The first flight against each candidate's initial window (RFC 5681 §3.1, RFC 3390, RFC
//! 6928): bytes a sender put on the wire before any ACK for its data could have reached it.
//!
//! RFC 5681 §3.1: "IW, the initial value of cwnd, MUST be set using the following
//! guidelines as an upper bound"; RFC 3390 §1: "min (4*MSS, max (2*MSS, 4380 bytes))"; RFC
//! 6928 §2: "min (10*MSS, max (2*MSS, 14600))". Until an ACK arrives cwnd does not grow, so
//! a stack whose IW is smaller than the data it sent before the first ACK cannot have sent
//! the connection: the one evidence about the sender that needs no timing at all. Among the
//! candidates, `linux` uses RFC 6928's IW10, `bsd-lite` one segment, the rest RFC 3390's
//! three (`tcplab_tcp::profile`), so a Linux first flight of 10 segments excludes every other
//! candidate — `rfc6298` included, which no passive OS hint can exclude (`hints.rs`) —, and
//! a two- or three-segment one excludes `bsd-lite`.
//!
//! What is counted ([`FirstFlight`]): the sequence span of this direction's data captured
//! before the first segment of the peer that carries an ACK (after this direction's first
//! data segment). Anything captured on the path before that ACK was captured was sent before
//! the sender could have received it, at any capture point between the two hosts (an ACK
//! reaches the sender after it passes the capture); data lost before the capture point, a
//! peer segment that acknowledges nothing new, or an ACK the sender never received only make
//! the span smaller, so the count is a lower bound of the flight the sender's IW allowed.
//! RFC 3042's limited transmit sends beyond cwnd on duplicate ACKs: those come after the
//! first ACK, so they are not counted.
//!
//! Ambiguities resolved:
//! - SMSS: the IW formula is increasing in SMSS, so an upper bound of the sender's SMSS keeps
//!   the IW an upper bound: the larger of the longest segment counted and the MSS the sender
//!   advertised on its own SYN or SYN-ACK (RFC 9293 §3.7.1: its send MSS is at most its own
//!   MMS_S, from which hosts derive the MSS they advertise). Without the sender's SYN (a capture
//!   that starts mid-connection) or without an MSS option on it nothing is priced: the first
//!   flight is not known to be the first, or no SMSS bound is known.
//! - A candidate with a tail loss probe (RFC 8985 §7.3: a probe "MUST" send new data when
//!   it can) may send past its IW before any ACK if the flight is lost; it is not priced.
//! - A lost SYN or SYN-ACK makes the IW one segment (RFC 5681 §3.1): the bound without that
//!   case is used (a larger IW, never a false exclusion).
//! - The cost of a candidate whose IW is exceeded is [`IW_EXCEEDED_COST`], beyond
//!   `decide::DECISION_MARGIN` on its own: it is a byte count, not a timing, so no tolerance
//!   applies.

use tcplab_tcp::startup::{InitialWindowPolicy, StartupEvent, StartupPolicy};
use tcplab_tcp::TcpConfig;

use super::score::UNEXPLAINED;

/// Cost of a candidate whose initial window is smaller than the first flight (module docs):
/// two unexplained retransmissions' worth, so it excludes the candidate by the decision
/// margin alone (`decide::DECISION_MARGIN` is two less the winner's in-tolerance cost).
pub const IW_EXCEEDED_COST: u64 = 2 * UNEXPLAINED;

/// The data of one direction captured before its first ACK (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirstFlight {
    /// Lowest relative sequence number of the data counted.
    start: Option<u32>,
    /// Highest relative end (sequence + length) of the data counted.
    end: u32,
    /// Longest segment counted.
    max_len: u32,
    /// An ACK from the peer has been captured: nothing more is counted.
    closed: bool,
}

impl FirstFlight {
    /// A data segment of this direction, `rel_seq` relative to the direction's base.
    pub fn on_data(&mut self, rel_seq: u32, len: u32) {
        if self.closed || len == 0 {
            return;
        }
        self.start = Some(self.start.map_or(rel_seq, |s| s.min(rel_seq)));
        self.end = self.end.max(rel_seq.saturating_add(len));
        self.max_len = self.max_len.max(len);
    }

    /// A segment of the peer carrying an ACK.
    pub fn on_ack(&mut self) {
        self.closed |= self.start.is_some();
    }

    /// Bytes of the first flight; `None` before an ACK ended it (a connection whose first
    /// flight never got an ACK tells nothing about cwnd's growth, but also none happened:
    /// still `None`, kept simple).
    pub fn bytes(&self) -> Option<u32> {
        let s = self.start.filter(|_| self.closed)?;
        Some(self.end.saturating_sub(s))
    }

    /// The cost for each of `cfgs` (module docs); `own_mss`: the MSS option of the sender's
    /// own SYN or SYN-ACK (`None`: its handshake was not captured or carried no MSS option,
    /// so no bound of its SMSS is known and nothing is priced).
    pub fn costs(&self, cfgs: &[&TcpConfig], own_mss: Option<u16>) -> Vec<u64> {
        let (Some(bytes), Some(mss)) = (self.bytes(), own_mss) else {
            return vec![0; cfgs.len()];
        };
        let smss = u64::from(self.max_len).max(u64::from(mss));
        cfgs.iter().map(|c| if !c.tlp && u64::from(bytes) > iw_bytes(c, smss) { IW_EXCEEDED_COST } else { 0 }).collect()
    }
}

/// A candidate's initial window for `smss`, by the engine's own rule
/// (`tcplab_tcp::startup::InitialWindowPolicy`, the one the simulator's sender uses).
pub fn iw_bytes(cfg: &TcpConfig, smss: u64) -> u64 {
    InitialWindowPolicy { iw: cfg.initial_window, ssthresh: u64::MAX }.initial_cwnd(&StartupEvent { smss, handshake_retransmitted: false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::Profile;

    fn cfg(n: &str) -> TcpConfig {
        Profile::by_name(n).map(|p| p.config()).unwrap_or_default()
    }

    /// RFC 3390 with a 1460-byte SMSS is 4380 bytes, RFC 6928 14600, 4.4BSD one segment.
    #[test]
    fn the_candidates_initial_windows() {
        assert_eq!(iw_bytes(&cfg("rfc6298"), 1460), 4380);
        assert_eq!(iw_bytes(&cfg("windows-xp"), 1460), 4380);
        assert_eq!(iw_bytes(&cfg("linux"), 1460), 14600);
        assert_eq!(iw_bytes(&cfg("bsd-lite"), 1460), 1460);
    }

    /// Ten 1448-byte segments before the first ACK exclude every RFC 3390 / one-segment
    /// candidate; `linux` (IW10, and a probe sender) is not priced. Segments after the ACK
    /// (limited transmit, slow start) are not counted.
    #[test]
    fn a_linux_first_flight_excludes_the_rfc3390_stacks() {
        let mut f = FirstFlight::default();
        for i in 0..10 {
            f.on_data(1 + i * 1448, 1448);
        }
        f.on_ack();
        f.on_data(1 + 10 * 1448, 1448);
        assert_eq!(f.bytes(), Some(14480));
        let c = [cfg("linux"), cfg("rfc6298"), cfg("bsd-lite"), cfg("freebsd-5")];
        let r: Vec<&TcpConfig> = c.iter().collect();
        assert_eq!(f.costs(&r, Some(1460)), vec![0, IW_EXCEEDED_COST, IW_EXCEEDED_COST, IW_EXCEEDED_COST]);
        // Without the sender's handshake nothing is priced.
        assert_eq!(f.costs(&r, None), vec![0; 4]);
    }

    /// Three segments fit RFC 3390 (4344 <= 4380) but not 4.4BSD's one segment; a repeat
    /// of old data does not grow the span; no ACK yet: nothing known.
    #[test]
    fn three_segments_exclude_only_the_one_segment_window() {
        let mut f = FirstFlight::default();
        f.on_ack(); // the handshake's ACK before any data: not the end of the flight
        for i in [0u32, 1, 2, 0] {
            f.on_data(1 + i * 1448, 1448);
        }
        assert_eq!(f.bytes(), None);
        f.on_ack();
        let c = [cfg("rfc6298"), cfg("bsd-lite")];
        let r: Vec<&TcpConfig> = c.iter().collect();
        assert_eq!(f.costs(&r, Some(1460)), vec![0, IW_EXCEEDED_COST]);
        // Small segments with a large advertised MSS: the IW is computed from the MSS.
        let mut g = FirstFlight::default();
        for i in 0..40 {
            g.on_data(1 + i * 100, 100);
        }
        g.on_ack();
        assert_eq!(g.costs(&r, Some(1460)), vec![0, IW_EXCEEDED_COST]);
        assert_eq!(g.costs(&r, None), vec![0, 0], "no MSS option: no SMSS bound, nothing priced");
    }
}

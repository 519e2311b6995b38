//! Initial window per RFC 5681 §3.1, RFC 3390 and RFC 6928.
//!
//! Aron & Druschel (000 §4.2.1) use the same rule as [`InitialWindow::Rfc3390`]: "we use an
//! initial startup congestion window given by: MIN(4 * MSS, MAX(2 * MSS, 4380bytes)) ...
//! proposed by Floyd et al \[11\] ... The above amounts to using an initial congestion window of
//! 3 segments for an IP packet size of 1500 bytes and 4 segments for an IP packet size of 512
//! bytes." (Their TCP Lite baseline starts from 1 segment: `InitialWindow::Segments(1)`, the
//! `bsd-lite` profile.)

use super::{StartupEvent, StartupPolicy};
use crate::config::InitialWindow;

/// RFC 3390 §1: the byte term of min(4*MSS, max(2*MSS, 4380 bytes)).
pub const RFC3390_BYTES: u64 = 4380;
/// RFC 3390 §1: at most 4 segments.
pub const RFC3390_MAX_SEGMENTS: u64 = 4;
/// RFC 6928 §2: the byte term of min(10*MSS, max(2*MSS, 14600)).
pub const RFC6928_BYTES: u64 = 14600;
/// RFC 6928 §2: at most 10 segments.
pub const RFC6928_MAX_SEGMENTS: u64 = 10;
/// RFC 3390 / RFC 6928: never fewer than 2 segments from the formula.
pub const IW_MIN_SEGMENTS: u64 = 2;
/// RFC 5681 §3.1 / RFC 6928 §2: after a lost SYN or SYN-ACK the initial window is one segment.
pub const IW_AFTER_LOST_SYN_SEGMENTS: u64 = 1;

/// Initial window from configuration.
#[derive(Clone, Debug)]
pub struct InitialWindowPolicy {
    pub iw: InitialWindow,
    pub ssthresh: u64,
}

impl InitialWindowPolicy {
    /// The policy [`super::build`] gives a configuration (alone, or inside the ssthresh
    /// estimation): the configured initial window and initial ssthresh.
    pub fn for_config(cfg: &crate::config::TcpConfig) -> Self {
        InitialWindowPolicy { iw: cfg.initial_window, ssthresh: cfg.initial_ssthresh }
    }
}

impl StartupPolicy for InitialWindowPolicy {
    fn initial_cwnd(&self, ev: &StartupEvent) -> u64 {
        let s = ev.smss;
        if ev.handshake_retransmitted {
            return IW_AFTER_LOST_SYN_SEGMENTS * s;
        }
        match self.iw {
            InitialWindow::Segments(n) => u64::from(n.max(1)) * s,
            // RFC 3390: min (4*MSS, max (2*MSS, 4380 bytes))
            InitialWindow::Rfc3390 => (RFC3390_MAX_SEGMENTS * s).min((IW_MIN_SEGMENTS * s).max(RFC3390_BYTES)),
            // RFC 6928: min (10*MSS, max (2*MSS, 14600))
            InitialWindow::Rfc6928 => (RFC6928_MAX_SEGMENTS * s).min((IW_MIN_SEGMENTS * s).max(RFC6928_BYTES)),
        }
    }
    fn initial_ssthresh(&self, _ev: &StartupEvent) -> u64 {
        self.ssthresh
    }
    fn clone_box(&self) -> Box<dyn StartupPolicy> {
        Box::new(self.clone())
    }
    /// `build` gives this policy alone exactly when `cfg` asks for no ssthresh estimation.
    fn reset(&mut self, cfg: &crate::config::TcpConfig) -> bool {
        if cfg.startup.ssthresh_estimation {
            return false;
        }
        *self = InitialWindowPolicy::for_config(cfg);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iw(iw: InitialWindow, smss: u64) -> u64 {
        InitialWindowPolicy { iw, ssthresh: u64::MAX }
            .initial_cwnd(&StartupEvent { smss, handshake_retransmitted: false })
    }

    #[test]
    fn rfc3390_gives_three_1460_byte_segments_and_four_536_byte_segments() {
        assert_eq!(iw(InitialWindow::Rfc3390, 1460), 4380);
        assert_eq!(iw(InitialWindow::Rfc3390, 536), 2144);
        assert_eq!(iw(InitialWindow::Rfc3390, 4000), 8000);
    }

    // 000 §4.2.1: 3 segments for 1500-byte IP packets (MSS 1460), 4 for 512-byte packets
    // (MSS 472).
    #[test]
    fn aron_druschel_initial_window_is_three_segments_at_1500_bytes_and_four_at_512() {
        assert_eq!(iw(InitialWindow::Rfc3390, 1460), 3 * 1460);
        assert_eq!(iw(InitialWindow::Rfc3390, 472), 4 * 472);
    }

    #[test]
    fn rfc6928_gives_ten_1460_byte_segments() {
        assert_eq!(iw(InitialWindow::Rfc6928, 1460), 14600);
        assert_eq!(iw(InitialWindow::Rfc6928, 9000), 18000);
    }

    #[test]
    fn a_lost_syn_reduces_the_initial_window_to_one_segment() {
        let p = InitialWindowPolicy { iw: InitialWindow::Rfc6928, ssthresh: u64::MAX };
        assert_eq!(p.initial_cwnd(&StartupEvent { smss: 1000, handshake_retransmitted: true }), 1000);
    }
}

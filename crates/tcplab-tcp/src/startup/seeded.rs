//! A startup policy seeded with values learned from earlier connections: the initial window
//! and ssthresh a pathlet table ([`super::pathlet`]) or a destination cache
//! ([`super::host_cache`]) chose, over the configured policy when they know nothing.
//!
//! The driver (the simulator's host) sets it with `Connection::set_startup_policy` before the
//! handshake completes (for PTA: when the SYN-ACK with the Pathlet Echo arrives, 004 §II-C:
//! "Upon receiving the SYN-ACK segment the TCP sender reviews the state it has about
//! pathlets").

use super::{StartupEvent, StartupPolicy};

/// Learned values over a fallback policy.
#[derive(Debug)]
pub struct SeededStartup {
    /// Initial window in segments (`None`: the fallback's).
    pub cwnd_segments: Option<u64>,
    /// Initial ssthresh in bytes (`None`: the fallback's).
    pub ssthresh: Option<u64>,
    pub fallback: Box<dyn StartupPolicy>,
}

impl StartupPolicy for SeededStartup {
    fn initial_cwnd(&self, ev: &StartupEvent) -> u64 {
        match self.cwnd_segments {
            // RFC 5681 §3.1 / RFC 6928 §2: after a lost SYN or SYN-ACK the window is one
            // segment whatever was learned: the fallback applies that rule.
            Some(n) if !ev.handshake_retransmitted => n.max(1) * ev.smss,
            _ => self.fallback.initial_cwnd(ev),
        }
    }
    fn initial_ssthresh(&self, ev: &StartupEvent) -> u64 {
        self.ssthresh.unwrap_or_else(|| self.fallback.initial_ssthresh(ev))
    }
    fn clone_box(&self) -> Box<dyn StartupPolicy> {
        Box::new(SeededStartup { cwnd_segments: self.cwnd_segments, ssthresh: self.ssthresh, fallback: self.fallback.clone_box() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::InitialWindow;
    use crate::startup::InitialWindowPolicy;

    fn seeded(cwnd: Option<u64>, ssthresh: Option<u64>) -> SeededStartup {
        SeededStartup {
            cwnd_segments: cwnd,
            ssthresh,
            fallback: Box::new(InitialWindowPolicy { iw: InitialWindow::Segments(3), ssthresh: u64::MAX }),
        }
    }

    #[test]
    fn learned_values_win_and_unknown_ones_fall_back() {
        let ev = StartupEvent { smss: 1000, handshake_retransmitted: false };
        assert_eq!(seeded(Some(17), Some(8000)).initial_cwnd(&ev), 17_000);
        assert_eq!(seeded(Some(17), Some(8000)).initial_ssthresh(&ev), 8000);
        assert_eq!(seeded(None, None).initial_cwnd(&ev), 3000);
        assert_eq!(seeded(None, None).initial_ssthresh(&ev), u64::MAX);
    }

    #[test]
    fn a_retransmitted_handshake_still_gives_one_segment() {
        let ev = StartupEvent { smss: 1000, handshake_retransmitted: true };
        assert_eq!(seeded(Some(17), None).initial_cwnd(&ev), 1000);
    }
}

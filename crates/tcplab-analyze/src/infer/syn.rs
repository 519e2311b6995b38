//! SYN retransmission back-off as evidence (RFC 6298 (2.1) and (5.5)-(5.7); 003 Table I
//! row "Initial RTO").
//!
//! Before any RTT sample the timer runs on the initial RTO (Table I: 3 s for Linux 2.4,
//! Windows and FreeBSD, 3.375 s for Solaris; 1 s for RFC 6298 and today's Linux, 6 s for
//! 4.4BSD-Lite's `tcp_newtcpcb`), doubled on each expiry (RFC 6298 (5.5)). The gap between
//! the i-th and (i+1)-th copy of a SYN is therefore initial·2^i (capped at the maximum RTO),
//! on the candidate's timer clock. Each gap is priced like a data timeout (`score.rs`).
//!
//! Ambiguities resolved: the capture times of the copies stand for their send times (a
//! constant path delay cancels in a gap; queueing in front of the capture point is inside
//! the tolerance); only the client's SYN copies are used (a SYN-ACK is also resent when a
//! copy of the SYN arrives, so its gaps are not the server's timer alone).

use tcplab_tcp::TcpConfig;

use super::score::{timer_tick_ns, timing_cost, tolerance_ns};

/// Most SYN copies remembered per connection (a SYN flood of one 4-tuple stays bounded).
pub const MAX_SYN_COPIES: usize = 8;

/// The timer's length before the `i`-th retransmission (0-based): initial·2^i, at most the
/// maximum RTO.
pub fn syn_gap_ns(cfg: &TcpConfig, i: u32) -> u64 {
    let init = cfg.rto.initial.as_nanos();
    init.saturating_mul(1u64 << i.min(32)).min(cfg.rto.max.as_nanos().max(init))
}

/// Cost of each candidate for SYN copies sent at `times` (ascending capture times); empty
/// when there was no retransmission.
pub fn syn_costs(times: &[u64], cfgs: &[&TcpConfig]) -> Vec<u64> {
    if times.len() < 2 {
        return Vec::new();
    }
    cfgs.iter()
        .map(|cfg| {
            times
                .windows(2)
                .enumerate()
                .map(|(i, w)| {
                    let expected = syn_gap_ns(cfg, i as u32);
                    // Each gap starts and ends on the timer's tick: up to one tick either way.
                    let err = w[1].saturating_sub(w[0]).abs_diff(expected).saturating_sub(timer_tick_ns(cfg).max(1) - 1);
                    timing_cost(err, tolerance_ns(0, expected))
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::score::UNEXPLAINED;
    use tcplab_tcp::Profile;

    const S: u64 = 1_000_000_000;

    fn cfg(name: &str) -> TcpConfig {
        Profile::by_name(name).map(|p| p.config()).unwrap_or_default()
    }

    /// RFC 6298 (2.1) and (5.5): 1 s, then 2 s, 4 s ...; Table I: 3 s for Linux 2.4,
    /// 3.375 s for Solaris.
    #[test]
    fn the_gaps_are_the_initial_rto_doubled() {
        assert_eq!(syn_gap_ns(&cfg("rfc6298"), 0), S);
        assert_eq!(syn_gap_ns(&cfg("rfc6298"), 2), 4 * S);
        assert_eq!(syn_gap_ns(&cfg("linux-2.4"), 1), 6 * S);
        assert_eq!(syn_gap_ns(&cfg("solaris-10"), 0), 3_375_000_000);
        // (2.5): capped at the maximum.
        assert_eq!(syn_gap_ns(&cfg("rfc6298"), 20), cfg("rfc6298").rto.max.as_nanos());
    }

    /// A SYN repeated after 1 s and 2 s more fits a 1 s initial RTO and excludes 3 s.
    #[test]
    fn one_second_back_off_excludes_the_three_second_stacks() {
        let (a, b) = (cfg("rfc6298"), cfg("linux-2.4"));
        let c = syn_costs(&[0, S, 3 * S], &[&a, &b]);
        assert_eq!(c[0], 0);
        assert_eq!(c[1], 2 * UNEXPLAINED);
        // No retransmission: no evidence.
        assert!(syn_costs(&[0], &[&a, &b]).is_empty());
    }
}

//! ECN response: the CWR state (002 §2.11, L1756–1766; L1435–1443).
//!
//! 002 L1761–1764: on an ECN echo the sender enters CWR, and cwnd decreases to half "one
//! segment per two incoming acknowledgements" (rate-halving style, [`super::rate_halving`]).
//! [GAP resolved per spec, EXTERNAL] Linux `tcp_enter_cwr`: `ssthresh = max(cwnd/2, 2)`,
//! `cwnd = min(cwnd, in_flight + 1)`, `high_seq = snd_nxt`.
//! Scope: only the Linux 2.4 sender's reaction to ECE on incoming ACKs; negotiation, ECT, the
//! echo and CWR are RFC 3168's rules in [`crate::ecn`], shared with the RFC sender.

/// New (ssthresh, cwnd) on entering CWR.
pub fn enter_cwr(snd_cwnd: u32, in_flight: u32) -> (u32, u32) {
    let ssthresh = (snd_cwnd / 2).max(super::MIN_SSTHRESH);
    (ssthresh, snd_cwnd.min(in_flight + 1).max(1))
}

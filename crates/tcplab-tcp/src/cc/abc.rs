//! Byte counting in slow start as Linux counts (RFC 3465; Linux `tcp_cong.c`).
//!
//! RFC 3465 §2.1: "the congestion window is increased based on the number of bytes
//! acknowledged by the arriving ACKs, rather than the number of ACKs". RFC 5681 eq. 2
//! (`cwnd += min(N, SMSS)` per ACK) makes slow start grow by 1.5x per RTT when the receiver
//! acknowledges every second segment; counting what each ACK acknowledges restores the 2x.
//!
//! Linux counts in packets and has no limit L (the `tcp_abc` sysctl with RFC 3465's L was
//! removed in 3.8): `tcp_slow_start` adds every newly acknowledged packet, caps cwnd at
//! ssthresh, and returns the packets that did not fit, which the caller feeds to congestion
//! avoidance (`tcp_cong_avoid_ai`) on the same ACK:
//!
//! ```c
//! u32 tcp_slow_start(struct tcp_sock *tp, u32 acked)
//! {
//!     u32 cwnd = min(tcp_snd_cwnd(tp) + acked, tp->snd_ssthresh);
//!     acked -= cwnd - tcp_snd_cwnd(tp);
//!     tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
//!     return acked;
//! }
//! void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked)
//! {
//!     /* If credits accumulated at a higher w, apply them gently now. */
//!     if (tp->snd_cwnd_cnt >= w) { tp->snd_cwnd_cnt = 0; tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + 1); }
//!     tp->snd_cwnd_cnt += acked;
//!     if (tp->snd_cwnd_cnt >= w) {
//!         u32 delta = tp->snd_cwnd_cnt / w;
//!         tp->snd_cwnd_cnt -= delta * w;
//!         tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + delta);
//!     }
//!     ...
//! }
//! ```
//!
//! Both functions here are unit-free (packets for CUBIC; bytes for Reno's Linux mode, where
//! `w` is cwnd in SMSS units). `snd_cwnd_clamp` is not modelled (it is 0xffffffff unless set
//! by a route metric).

/// Linux `tcp_slow_start`: returns (new cwnd, acknowledged units left over for congestion
/// avoidance). Precondition (as in Linux, `tcp_in_slow_start`): `cwnd < ssthresh`.
#[inline]
pub fn tcp_slow_start(cwnd: u64, ssthresh: u64, acked: u64) -> (u64, u64) {
    // cwnd = min(snd_cwnd + acked, snd_ssthresh); acked -= cwnd - snd_cwnd
    let new = cwnd.saturating_add(acked).min(ssthresh.max(cwnd));
    (new, acked - (new - cwnd))
}

/// Linux `tcp_cong_avoid_ai`: cwnd grows by one unit per `w` units acknowledged; `cnt` is
/// `snd_cwnd_cnt` (the credit carried between ACKs). Returns the new cwnd.
#[inline]
pub fn tcp_cong_avoid_ai(cwnd: u64, cnt: &mut u64, w: u64, acked: u64) -> u64 {
    let w = w.max(1);
    let mut cwnd = cwnd;
    // "If credits accumulated at a higher w, apply them gently now."
    if *cnt >= w {
        *cnt = 0;
        cwnd += 1;
    }
    *cnt += acked;
    if *cnt >= w {
        let delta = *cnt / w;
        *cnt -= delta * w;
        cwnd += delta;
    }
    cwnd
}

#[cfg(test)]
mod tests {
    use super::*;

    // tcp_slow_start: "cwnd = min(tcp_snd_cwnd(tp) + acked, tp->snd_ssthresh); acked -= cwnd -
    // tcp_snd_cwnd(tp)": every acknowledged packet counts, capped at ssthresh, the rest is
    // returned for congestion avoidance.
    #[test]
    fn slow_start_adds_every_acked_packet_and_returns_what_passes_ssthresh() {
        assert_eq!(tcp_slow_start(10, 100, 2), (12, 0));
        assert_eq!(tcp_slow_start(10, 15, 8), (15, 3));
        assert_eq!(tcp_slow_start(14, 15, 1), (15, 0));
    }

    // RFC 3465 §2.1 / Linux: with an ACK for every second segment, one RTT of ACKs for a
    // window of W segments adds W (2x per RTT), where RFC 5681 eq. 2 adds W/2 (1.5x).
    #[test]
    fn with_delayed_acks_slow_start_doubles_per_round_trip() {
        let mut cwnd = 10u64;
        for _ in 0..4 {
            let acks = cwnd / 2;
            let start = cwnd;
            for _ in 0..acks {
                cwnd = tcp_slow_start(cwnd, u64::MAX, 2).0;
            }
            assert_eq!(cwnd, 2 * start);
        }
    }

    // tcp_cong_avoid_ai: one unit per w acknowledged, the remainder kept in snd_cwnd_cnt; a
    // credit that reached a larger w earlier is applied at once ("apply them gently now").
    #[test]
    fn additive_increase_is_one_unit_per_window_acknowledged_with_carry() {
        let mut cnt = 0;
        let mut cwnd = 10;
        for _ in 0..9 {
            cwnd = tcp_cong_avoid_ai(cwnd, &mut cnt, 10, 1);
        }
        assert_eq!((cwnd, cnt), (10, 9));
        cwnd = tcp_cong_avoid_ai(cwnd, &mut cnt, 10, 3);
        assert_eq!((cwnd, cnt), (11, 2));
        let mut cnt = 12;
        assert_eq!(tcp_cong_avoid_ai(10, &mut cnt, 10, 25), 13);
        assert_eq!(cnt, 5);
    }
}

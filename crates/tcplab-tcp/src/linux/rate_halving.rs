//! Rate-halving (`tcp_cwnd_down`) for the Recovery and CWR states.
//!
//! 002 L1449–1454: in Recovery "the congestion window is decreased by one segment for every
//! second incoming acknowledgement until it reaches the slow start threshold", never
//! increased; 002 L1437–1439 the same in CWR; 002 L1802–1815 (Hoe; Mathis et al.
//! "Rate-halving"). [EXTERNAL, spec §2.5] Linux `tcp_cwnd_down`: on every second ACK
//! (counter `snd_cwnd_cnt`) `if cwnd > ssthresh: cwnd -= 1`, then
//! `cwnd = min(cwnd, in_flight + 1)`.

/// One ACK in Recovery/CWR with rate-halving on.
#[inline]
pub fn cwnd_down(snd_cwnd: &mut u32, snd_cwnd_cnt: &mut u32, snd_ssthresh: u32, in_flight: u32) {
    *snd_cwnd_cnt += 1;
    if *snd_cwnd_cnt >= 2 {
        *snd_cwnd_cnt = 0;
        if *snd_cwnd > snd_ssthresh {
            *snd_cwnd -= 1;
        }
    }
    *snd_cwnd = (*snd_cwnd).min(in_flight + 1).max(1);
}

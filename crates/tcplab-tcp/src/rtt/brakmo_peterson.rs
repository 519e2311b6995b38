//! Brakmo & Peterson's fix to the 4.4BSD-Lite estimator: larger scaling factors, so that the
//! mean deviation decays under repeated equal samples.
//!
//! 000 §4.1: "Brakmo and Peterson \[5\] have shown that due to limited precision of the C
//! implementation, the mean deviation estimator does not decay even when repeated RTT
//! measurements with the same value are made ... \[they\] also propose a fix for the second
//! problem described above by using larger scaling factors ... the estimated RTO frequently
//! is 3 ticks while sometimes it does get as low as 2 ticks".
//!
//! The fix as it entered the BSDs (FreeBSD `tcp_xmit_timer` / `TCP_REXMTVAL`, tcp_var.h):
//! t_srtt scaled by 32 (`TCP_RTT_SHIFT` 5), t_rttvar by 16 (`TCP_RTTVAR_SHIFT` 4), and the
//! update done with `TCP_DELTA_SHIFT` 2 extra fraction bits:
//!
//! ```text
//! delta   = ((rtt - 1) << TCP_DELTA_SHIFT) - (t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT))
//! t_srtt += delta                                   (>= 1)
//! t_rttvar += |delta| - (t_rttvar >> (TCP_RTTVAR_SHIFT - TCP_DELTA_SHIFT))   (>= 1)
//! TCP_REXMTVAL = max(t_rttmin, ((t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT)) + t_rttvar)
//!                               >> TCP_DELTA_SHIFT)
//! first sample: t_srtt = rtt << TCP_RTT_SHIFT, t_rttvar = rtt << (TCP_RTTVAR_SHIFT - 1)
//! ```
//!
//! Everything else (the +1 tick, `TCPT_RANGESET` with `TCPTV_MIN` = 2 ticks, the backoff
//! table, discarding srtt after `TCP_MAXRXTSHIFT / 4` backoffs) is 4.4BSD-Lite's; see
//! [`super::bsd_lite`]. Started fresh, this reproduces the RTO_B column of 000 Fig. 6
//! exactly (test `fig6` in [`super::decoupled`]).
//!
//! Ambiguities resolved:
//! - **Which version of the fix.** Brakmo & Peterson's paper is not among the sources; the
//!   constants are those the BSDs adopted (above). The later FreeBSD lower bound
//!   `max(t_rttmin, rtt + 2)` in `TCPT_RANGESET` is *not* included: it is not part of the
//!   1995 fix and would give 3 instead of 2 ticks in rows 10–11 of Fig. 6.
//! - **Initial state.** `t_rttvar` starts so that `TCP_REXMTVAL` equals 4.4BSD-Lite's
//!   (24 ticks with BSD values), i.e. the fix changes the estimator, not the SYN timeouts.
//! - **Discarding srtt after many backoffs.** The rttvar increment keeps `TCP_REXMTVAL`
//!   unchanged (t_rttvar += t_srtt >> (TCP_RTT_SHIFT − TCP_DELTA_SHIFT)), which is what the
//!   4.4BSD-Lite statement achieves at its own scaling.

use super::bsd_lite::{BsdScaling, BsdTickEstimator};

/// t_srtt is scaled by 32.
pub const TCP_RTT_SHIFT: u32 = 5;
/// t_rttvar is scaled by 16.
pub const TCP_RTTVAR_SHIFT: u32 = 4;
/// Extra fraction bits of `delta`.
pub const TCP_DELTA_SHIFT: u32 = 2;

/// Brakmo & Peterson's scaling, as the BSDs adopted it (module docs).
#[derive(Clone, Copy, Debug)]
pub struct BrakmoPetersonScaling;

impl BsdScaling for BrakmoPetersonScaling {
    const RTT_SHIFT: u32 = TCP_RTT_SHIFT;
    const RTTVAR_SHIFT: u32 = TCP_RTTVAR_SHIFT;
    const DELTA_SHIFT: u32 = TCP_DELTA_SHIFT;
    const REXMTVAL_FLOOR: bool = true;
}

/// The 4.4BSD-Lite estimator with Brakmo & Peterson's scaling. The algorithm (000 eq. 1,
/// the +1 tick, `TCPT_RANGESET`, backoff) is [`super::bsd_lite`]'s; only the scaling differs.
pub type BrakmoPeterson = BsdTickEstimator<BrakmoPetersonScaling>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::MeasurementClock;
    use crate::config::RtoConfig;
    use crate::rtt::RttEstimator;
    use tcplab_time::SimDuration;

    fn bp() -> BrakmoPeterson {
        let cfg = RtoConfig {
            initial: SimDuration::from_secs(6),
            min: SimDuration::from_secs(1),
            max: SimDuration::from_secs(64),
            ..RtoConfig::default()
        };
        BrakmoPeterson::new(&cfg, MeasurementClock::every(SimDuration::from_millis(500)))
    }

    // 000 §4.1: with the larger scaling the deviation decays and the RTO reaches 2 ticks for
    // repeated sub-tick samples (where 4.4BSD-Lite stays at 3).
    #[test]
    fn repeated_equal_samples_let_the_timeout_decay_to_two_ticks() {
        let mut e = bp();
        for _ in 0..50 {
            e.tcp_xmit_timer(1);
        }
        assert_eq!(e.t_rxtcur(), 2);
    }

    #[test]
    fn the_first_sample_gives_three_times_the_rtt() {
        let mut e = bp();
        e.tcp_xmit_timer(2);
        assert_eq!(e.scaled_state(), (64, 16));
        assert_eq!(e.t_rxtcur(), 6);
    }

    #[test]
    fn backoff_follows_tcp_backoff_and_stops_at_64_seconds() {
        let mut e = bp();
        e.tcp_xmit_timer(2); // t_rxtcur 6
        e.on_timeout();
        assert_eq!((e.backoff(), e.t_rxtcur()), (1, 12));
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(64));
        e.tcp_xmit_timer(1);
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn the_syn_timeouts_are_those_of_bsd_lite() {
        let mut e = bp();
        assert_eq!(e.rto(), SimDuration::from_secs(6));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_secs(24));
    }
}

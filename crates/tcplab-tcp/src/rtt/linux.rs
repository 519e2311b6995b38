//! Linux 2.4 `tcp_rtt_estimator` (the "mdev" variant), in jiffies of the measurement clock.
//!
//! Source: ../shared/specs/seed-002-part1.md §2.6 (Sarolahti's description, L1518–1641 of
//! seed 002, and the 2.4/2.6-era code it quotes), 003 Table I ("RTO = srtt + vartt", minRTO
//! 200 ms, timer granularity 10 ms, sampling once per segment).
//!
//! Fixed point: srtt scaled by 8; mdev, mdev_max and rttvar scaled by 4 (so rttvar *is* the
//! 4·deviation term of the RTO). For a sample m (jiffies, 0 read as 1):
//!
//! ```text
//! first sample:  srtt = m << 3; mdev = m << 1; mdev_max = rttvar = max(mdev, rto_min);
//!                rtt_seq = snd_nxt
//! otherwise:     m -= srtt >> 3; srtt += m;
//!                if m < 0 { m = -m - (mdev >> 2); if m > 0 { m >>= 3 } }   // 1/32 gain
//!                else     { m -= mdev >> 2 }                              // 1/4 gain
//!                mdev += m;
//!                if mdev > mdev_max { mdev_max = mdev; if mdev_max > rttvar { rttvar = mdev_max } }
//!                if after(snd_una, rtt_seq) {                             // once per window
//!                    if mdev_max < rttvar { rttvar -= (rttvar - mdev_max) >> 2 }
//!                    rtt_seq = snd_nxt; mdev_max = rto_min }
//! tcp_set_rto:   rto = (srtt >> 3) + rttvar;  tcp_bound_rto: rto = min(rto, TCP_RTO_MAX)
//! ```
//!
//! Consequence (spec §2.6): the 200 ms "minimum RTO" floors the variance term, so
//! RTO ≥ SRTT + 200 ms.
//!
//! Ambiguities resolved:
//! - **Backoff**: `rto = min(rto << backoff, TCP_RTO_MAX)` (`tcp_retransmit_timer`); a new
//!   sample resets the backoff (`tcp_ack`: `backoff = 0`).
//! - **Retransmitted SYN**: RFC 6298 (5.7) as in modern Linux (RTO at least 3 s when data
//!   starts without a sample).
//! - **Units**: rto_min = ⌈min RTO / jiffy⌉ (200 ms / 10 ms = 20), TCP_RTO_MAX = ⌊max RTO /
//!   jiffy⌋, initial RTO = ⌈initial / jiffy⌉ (TCP_TIMEOUT_INIT 3 s). G of [`RtoConfig`] is
//!   not used.
//! - **a, b, m, k** (003 §II, varied by 003 §V-B on the Linux estimator too): the code's
//!   gains are b = 1/8 (the `>> 3` of srtt), a = 1/4 (the `>> 2` of mdev; the decrease
//!   branch's extra `>> 3` is kept as a further 1/8) and RTO = 1·srtt + rttvar with rttvar
//!   the 4·deviation term (k = 4). Other values scale those steps: the srtt step by 8b, the
//!   mdev step by 4a, srtt in the RTO by m and rttvar by k/4, in integer arithmetic. At
//!   Table I's values (every profile's) each factor is exactly 1 and the code above runs
//!   unchanged.

use super::{RttEstimator, RttSampleEvent};
use crate::clock::MeasurementClock;
use crate::config::RtoConfig;
use crate::rtt::rfc6298::RTO_AFTER_SYN_RETRANSMIT;
use crate::seq::SeqNum;
use tcplab_time::SimDuration;

/// srtt is scaled by 8 (`srtt >> 3`).
pub const SRTT_SHIFT: u32 = 3;
/// mdev is scaled by 4 (`mdev >> 2`).
pub const MDEV_SHIFT: u32 = 2;
/// The extra `m >>= 3` on an RTT decrease: gain 1/32 = 1/4 · 1/8 (spec §2.6).
pub const MDEV_DECREASE_SHIFT: u32 = 3;
/// Per window rttvar decays by 1/4 of its gap to mdev_max (`>> 2`).
pub const RTTVAR_DECAY_SHIFT: u32 = 2;
/// Linux `TCP_RTO_MIN` = HZ/5 = 200 ms (003 Table I minRTO).
pub const TCP_RTO_MIN: SimDuration = SimDuration::from_millis(200);
/// Linux `TCP_RTO_MAX` = 120 s (spec §1.3).
pub const TCP_RTO_MAX: SimDuration = SimDuration::from_secs(120);
/// Linux 2.4 `TCP_TIMEOUT_INIT` = 3 s (003 Table I initial RTO).
pub const TCP_TIMEOUT_INIT: SimDuration = SimDuration::from_secs(3);
/// Linux 2.4 HZ = 100: one jiffy is 10 ms (003 Table I timer granularity).
pub const JIFFY_2_4: SimDuration = SimDuration::from_millis(10);
/// Cap on a sample in jiffies (overflow guard).
pub const RTT_JIFFIES_MAX: u64 = 1 << 32;
/// Cap on the backoff shift (the max clamp makes larger values meaningless).
pub const MAX_BACKOFF_SHIFT: u32 = 30;

/// The Linux estimator.
#[derive(Clone, Debug)]
pub struct Linux {
    clock: MeasurementClock,
    rto_min: u64,
    rto_max: u64,
    /// srtt × 8 in jiffies; 0 = no estimate.
    srtt: u64,
    /// mdev × 4.
    mdev: u64,
    /// Largest mdev in the current window (× 4).
    mdev_max: u64,
    /// The variance term of the RTO (× 4 = 4·deviation).
    rttvar: u64,
    /// SND.NXT when the current window's measurement started.
    rtt_seq: SeqNum,
    /// `rto` before backoff, in jiffies.
    rto: u64,
    backoff: u32,
    /// 003 §II's parameters as factors of the code's own (see the module doc).
    scale: Scale,
}

/// The factors 8b, 4a, m and k/4 (module doc), each a fraction num/den.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Scale {
    srtt_step: (u64, u64),
    mdev_step: (u64, u64),
    m: (u64, u64),
    k: (u64, u64),
}

/// b's value in the code (`>> 3`): 1/8.
const CODE_B_INV: u64 = 1 << SRTT_SHIFT;
/// a's value in the code (`>> 2`): 1/4.
const CODE_A_INV: u64 = 1 << MDEV_SHIFT;
/// k's value in the code: rttvar is the 4·deviation term.
const CODE_K: u64 = 4;

impl Scale {
    fn of(cfg: &RtoConfig) -> Scale {
        let (an, ad) = (u64::from(cfg.gain_a.num), u64::from(cfg.gain_a.den.max(1)));
        let (bn, bd) = (u64::from(cfg.gain_b.num), u64::from(cfg.gain_b.den.max(1)));
        Scale {
            srtt_step: (bn * CODE_B_INV, bd),
            mdev_step: (an * CODE_A_INV, ad),
            m: (u64::from(cfg.m.num), u64::from(cfg.m.den.max(1))),
            k: (u64::from(cfg.k.num), u64::from(cfg.k.den.max(1)) * CODE_K),
        }
    }
}

/// `x · num / den`, exactly `x` when the factor is 1 (the code's own parameters).
fn scaled_i(x: i64, (num, den): (u64, u64)) -> i64 {
    if num == den {
        return x;
    }
    let v = i128::from(x) * i128::from(num) / i128::from(den.max(1));
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

fn scaled_u(x: u64, (num, den): (u64, u64)) -> u64 {
    if num == den {
        return x;
    }
    u64::try_from(u128::from(x) * u128::from(num) / u128::from(den.max(1))).unwrap_or(u64::MAX)
}

impl Linux {
    pub fn new(cfg: &RtoConfig, clock: MeasurementClock) -> Self {
        let j = clock.tick.as_nanos().max(1);
        let rto_min = cfg.min.as_nanos().div_ceil(j);
        let rto_max = (cfg.max.as_nanos() / j).max(1);
        let rto = cfg.initial.as_nanos().div_ceil(j).min(rto_max);
        Linux { clock, rto_min, rto_max, srtt: 0, mdev: 0, mdev_max: 0, rttvar: 0, rtt_seq: SeqNum(0), rto, backoff: 0, scale: Scale::of(cfg) }
    }

    /// `tcp_rtt_estimator(tp, mrtt)` followed by `tcp_set_rto` and `tcp_bound_rto`.
    pub fn tcp_rtt_estimator(&mut self, mrtt: u64, snd_una: SeqNum, snd_nxt: SeqNum) {
        let mut m = i64::try_from(mrtt.min(RTT_JIFFIES_MAX)).unwrap_or(i64::MAX);
        if m == 0 {
            m = 1;
        }
        if self.srtt != 0 {
            let srtt = i64::try_from(self.srtt).unwrap_or(i64::MAX);
            let mdev = i64::try_from(self.mdev).unwrap_or(i64::MAX);
            m -= srtt >> SRTT_SHIFT;
            self.srtt = srtt.saturating_add(scaled_i(m, self.scale.srtt_step)).max(1).unsigned_abs();
            if m < 0 {
                m = -m;
                m -= mdev >> MDEV_SHIFT;
                if m > 0 {
                    m >>= MDEV_DECREASE_SHIFT;
                }
            } else {
                m -= mdev >> MDEV_SHIFT;
            }
            self.mdev = mdev.saturating_add(scaled_i(m, self.scale.mdev_step)).max(0).unsigned_abs();
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                if self.mdev_max > self.rttvar {
                    self.rttvar = self.mdev_max;
                }
            }
            if snd_una.gt(self.rtt_seq) {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> RTTVAR_DECAY_SHIFT;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = self.rto_min;
            }
        } else {
            let m = m.unsigned_abs();
            self.srtt = m << SRTT_SHIFT;
            self.mdev = m << 1;
            self.rttvar = self.mdev.max(self.rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        }
        // tcp_set_rto + tcp_bound_rto.
        self.rto = (scaled_u(self.srtt >> SRTT_SHIFT, self.scale.m).saturating_add(scaled_u(self.rttvar, self.scale.k))).min(self.rto_max);
        self.backoff = 0;
    }

    /// (srtt × 8, mdev × 4, mdev_max × 4, rttvar × 4) in jiffies.
    pub fn state(&self) -> (u64, u64, u64, u64) {
        (self.srtt, self.mdev, self.mdev_max, self.rttvar)
    }
    /// The RTO in jiffies before backoff.
    pub fn rto_jiffies(&self) -> u64 {
        self.rto
    }
}

impl RttEstimator for Linux {
    fn on_sample(&mut self, ev: &RttSampleEvent) {
        let m = self.clock.sample_ticks(ev.now, ev.rtt);
        self.tcp_rtt_estimator(m, ev.snd_una, ev.snd_nxt);
    }
    fn on_timeout(&mut self) {
        if self.backoff < MAX_BACKOFF_SHIFT {
            self.backoff += 1;
        }
    }
    fn on_handshake_retransmitted(&mut self) {
        if self.srtt == 0 {
            let floor = RTO_AFTER_SYN_RETRANSMIT.as_nanos().div_ceil(self.clock.tick.as_nanos().max(1));
            self.rto = self.rto.max(floor).min(self.rto_max);
        }
        self.backoff = 0;
    }
    fn rto(&self) -> SimDuration {
        let v = self.rto.checked_shl(self.backoff).filter(|v| v >> self.backoff == self.rto).unwrap_or(u64::MAX);
        self.clock.duration(v.min(self.rto_max))
    }
    fn srtt(&self) -> Option<SimDuration> {
        (self.srtt != 0).then(|| SimDuration(self.clock.duration(self.srtt).as_nanos() >> SRTT_SHIFT))
    }
    fn rttvar(&self) -> Option<SimDuration> {
        (self.srtt != 0).then(|| SimDuration(self.clock.duration(self.rttvar).as_nanos() >> MDEV_SHIFT))
    }
    fn backoff(&self) -> u32 {
        self.backoff
    }
    fn clone_box(&self) -> Box<dyn RttEstimator> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtt::Rfc6298;
    use tcplab_time::SimTime;

    fn linux() -> Linux {
        let cfg = RtoConfig { initial: TCP_TIMEOUT_INIT, min: TCP_RTO_MIN, max: TCP_RTO_MAX, ..RtoConfig::default() };
        Linux::new(&cfg, MeasurementClock::every(JIFFY_2_4))
    }

    // 003 §V-B varies k on Linux: k = 2 halves the variance term, k = 8 doubles it; Table
    // I's k = 4 is the code itself.
    #[test]
    fn k_scales_the_variance_term_and_four_is_the_code() {
        let with_k = |k: u32| {
            let cfg = RtoConfig { initial: TCP_TIMEOUT_INIT, min: TCP_RTO_MIN, max: TCP_RTO_MAX, k: crate::config::Ratio::new(k, 1), ..RtoConfig::default() };
            let mut e = Linux::new(&cfg, MeasurementClock::every(JIFFY_2_4));
            e.tcp_rtt_estimator(50, SeqNum(0), SeqNum(100));
            e.rto()
        };
        // srtt 50 jiffies, rttvar 100 jiffies (4·mdev): 500 ms + 1000·k/4 ms.
        assert_eq!(with_k(4), SimDuration::from_millis(1500));
        assert_eq!(with_k(2), SimDuration::from_millis(1000));
        assert_eq!(with_k(8), SimDuration::from_millis(2500));
    }

    #[test]
    fn the_initial_rto_is_three_seconds() {
        assert_eq!(linux().rto(), SimDuration::from_secs(3));
    }

    // Spec §2.6: first sample srtt = R, mdev = R/2, rttvar = max(mdev, rto_min): RTO ≈ 3R
    // for large R, R + 200 ms for small R.
    #[test]
    fn the_first_sample_gives_three_times_the_rtt_or_rtt_plus_200ms() {
        let mut e = linux();
        e.tcp_rtt_estimator(50, SeqNum(0), SeqNum(100));
        assert_eq!(e.state(), (400, 100, 100, 100));
        assert_eq!(e.rto(), SimDuration::from_millis(1500));
        let mut s = linux();
        s.tcp_rtt_estimator(5, SeqNum(0), SeqNum(100));
        assert_eq!(s.rto(), SimDuration::from_millis(250));
    }

    // Spec §2.6 "Consequence": RTO ≥ SRTT + 200 ms however stable the samples are.
    #[test]
    fn constant_samples_leave_the_rto_at_srtt_plus_200ms() {
        let mut e = linux();
        let mut una = 0u32;
        for _ in 0..200 {
            una += 10;
            e.tcp_rtt_estimator(10, SeqNum(una), SeqNum(una + 100));
        }
        assert_eq!(e.rto(), SimDuration::from_millis(300));
    }

    // Spec AF-10: after a step drop R = SRTT − Δ with Δ > MDEV the RFC 2988 RTO rises, the
    // Linux RTO does not.
    #[test]
    fn a_sudden_rtt_drop_raises_the_rfc_rto_but_not_the_linux_rto() {
        let cfg = RtoConfig { min: SimDuration::ZERO, ..RtoConfig::default() };
        let mut rfc = Rfc6298::new(cfg);
        let mut lin = Linux::new(&RtoConfig { min: SimDuration::ZERO, ..cfg }, MeasurementClock::every(JIFFY_2_4));
        let mut una = 0u32;
        for _ in 0..100 {
            una += 10;
            rfc.on_sample(&RttSampleEvent::at(SimTime(0), SimDuration::from_millis(500)));
            lin.tcp_rtt_estimator(50, SeqNum(una), SeqNum(una + 100));
        }
        let (r0, l0) = (rfc.rto(), lin.rto());
        rfc.on_sample(&RttSampleEvent::at(SimTime(0), SimDuration::from_millis(100)));
        lin.tcp_rtt_estimator(10, SeqNum(una + 10), SeqNum(una + 110));
        assert!(rfc.rto() > r0, "rfc {} -> {}", r0, rfc.rto());
        assert!(lin.rto() <= l0, "linux {} -> {}", l0, lin.rto());
    }

    // Spec §2.6: rttvar is raised at once but decays only once per window, by 1/4 of the gap.
    #[test]
    fn rttvar_decays_only_when_a_window_has_been_acknowledged() {
        let mut e = linux();
        e.tcp_rtt_estimator(100, SeqNum(0), SeqNum(1000));
        let (_, _, _, v0) = e.state();
        // Same window (snd_una not past rtt_seq = 1000): no decay.
        e.tcp_rtt_estimator(100, SeqNum(500), SeqNum(2000));
        assert_eq!(e.state().3, v0);
        // First window passed: mdev_max (200) still equals rttvar; mdev_max restarts.
        e.tcp_rtt_estimator(100, SeqNum(1500), SeqNum(3000));
        assert_eq!(e.state().3, v0);
        // Second window passed: rttvar moves 1/4 of the way down to that window's mdev_max.
        e.tcp_rtt_estimator(100, SeqNum(3500), SeqNum(4000));
        let (_, mdev, _, v) = e.state();
        assert_eq!(mdev, 85);
        assert_eq!(v, v0 - (v0 - 85) / 4);
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum_and_a_sample_resets_it() {
        let mut e = linux();
        for _ in 0..100 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), TCP_RTO_MAX);
        e.tcp_rtt_estimator(10, SeqNum(1), SeqNum(2));
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn a_zero_jiffy_sample_counts_as_one() {
        let mut e = linux();
        e.on_sample(&RttSampleEvent::at(SimTime(1_000_000), SimDuration::from_micros(500)));
        assert_eq!(e.state().0, 8);
    }
}

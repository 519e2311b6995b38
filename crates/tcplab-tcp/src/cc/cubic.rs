//! CUBIC (RFC 9438) as Linux's `net/ipv4/tcp_cubic.c` (v2.3) computes it: cwnd in packets,
//! time in jiffies, fixed-point cube root, β = 717/1024, fast convergence and the
//! TCP-friendly (RFC 9438 "Reno-friendly") region. HyStart is a separate, switchable
//! wrapper ([`super::hystart`]); slow start is Linux's byte counting ([`super::abc`]).
//!
//! | rule | RFC 9438 | Linux |
//! |---|---|---|
//! | window growth W_cubic(t) = C·(t − K)³ + W_max, C = 0.4 | §4.2 eq. 1 | `bictcp_update`: `bic_target = origin ± cube_rtt_scale·offs³ >> 40` |
//! | K = ∛(W_max·(1 − β)/C) | §4.2 eq. 2 | `bic_K = cubic_root(cube_factor·(last_max_cwnd − cwnd))` |
//! | cwnd += (target − cwnd)/cwnd per ACK | §4.4 | `cnt = cwnd / (bic_target − cwnd)`, `tcp_cong_avoid_ai(cnt)` |
//! | Reno-friendly W_est, α = 3(1 − β)/(1 + β) | §4.3 | `tcp_cwnd` += 1 per `cwnd·beta_scale >> 3` ACKed packets |
//! | multiplicative decrease ssthresh = cwnd·β | §4.6 | `cubictcp_recalc_ssthresh`: `max(cwnd·beta/1024, 2)` |
//! | fast convergence W_max = cwnd·(1 + β)/2 | §4.7 | `last_max_cwnd = cwnd·(1024 + beta)/2048` |
//! | timeout: forget the epoch | §4.8 | `cubictcp_state(TCP_CA_Loss)` → `bictcp_reset` |
//!
//! The seam passes cwnd and ssthresh in bytes; CUBIC works on `cwnd / SMSS` packets (as
//! Linux, which counts packets) and hands back whole packets × SMSS.
//!
//! Ambiguities resolved / not modelled:
//! - **Clock**: `tcp_jiffies32` is the ACK's arrival time in jiffies of [`CUBIC_JIFFY`]
//!   (HZ = 250, the distributions' `CONFIG_HZ_250`); `delay_min` in microseconds.
//! - **`tcp_is_cwnd_limited`** is not checked (the simulated applications are bulk senders,
//!   always cwnd-limited; the RFC sender's Reno does not check it either).
//! - **`cubictcp_cwnd_event(CA_EVENT_TX_START)`** (shifting the epoch after an idle period)
//!   is not modelled: the seam has no idle event.
//! - **`cubictcp_acked`** (the `delay_min` update) runs on the ACKs the seam sees (outside fast
//!   recovery), not on every ACK as in Linux; delay samples in the first second of an epoch
//!   are discarded as in Linux.
//! - **NewReno-style recovery** (no SACK) keeps RFC 6582's window inflation and deflation,
//!   applied by [`Reno`]'s arithmetic, with CUBIC's ssthresh; with SACK the recovery window is
//!   PRR's or RFC 6675's, and the exit sets cwnd = ssthresh (Linux `tcp_end_cwnd_reduction`).

use super::abc::{tcp_cong_avoid_ai, tcp_slow_start};
use super::{CcAckEvent, CcLossEvent, CcState, CongestionController, RecoveryStyle, Reno};
use tcplab_time::SimDuration;

/// `BICTCP_BETA_SCALE`: β is `beta / 1024`.
pub const BICTCP_BETA_SCALE: u32 = 1024;
/// `static int beta = 717; /* = 717/1024 (BICTCP_BETA_SCALE) */` (RFC 9438 §4.6: β_cubic =
/// 0.7).
pub const BETA: u32 = 717;
/// `#define BICTCP_HZ 10 /* BIC HZ 2^10 = 1024 */`: time in the cubic function is counted in
/// 1/1024 s.
pub const BICTCP_HZ: u32 = 10;
/// `static int bic_scale = 41;`: C = bic_scale · 10 / 1024 = 0.4 (RFC 9438 §4.2 "C SHOULD be
/// set to 0.4").
pub const BIC_SCALE: u32 = 41;
/// `cube_rtt_scale = (bic_scale * 10); /* 1024*c/rtt */`.
pub const CUBE_RTT_SCALE: u64 = BIC_SCALE as u64 * 10;
/// `cube_factor = 1ull << (10+3*BICTCP_HZ); do_div(cube_factor, bic_scale * 10);` = 2^40 / 410.
pub const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE as u64 * 10);
/// `beta_scale = 8*(BICTCP_BETA_SCALE+beta) / 3 / (BICTCP_BETA_SCALE - beta);` = 15: the
/// Reno-friendly estimate grows one packet per `cwnd·15/8` ACKed packets (α ≈ 0.53, RFC 9438
/// §4.3 α_cubic = 3(1 − β)/(1 + β)).
pub const BETA_SCALE: u32 = 8 * (BICTCP_BETA_SCALE + BETA) / 3 / (BICTCP_BETA_SCALE - BETA);
/// `static int fast_convergence = 1;` (RFC 9438 §4.7).
pub const FAST_CONVERGENCE: bool = true;
/// `static int tcp_friendliness = 1;` (RFC 9438 §4.3).
pub const TCP_FRIENDLINESS: bool = true;
/// Linux `CONFIG_HZ_250`: the jiffy of the common distribution kernels (4 ms).
pub const CUBIC_HZ: u64 = 250;
/// One jiffy at [`CUBIC_HZ`].
pub const CUBIC_JIFFY: SimDuration = SimDuration::from_millis(1000 / CUBIC_HZ);
/// `if (ca->last_cwnd == cwnd && (s32)(tcp_jiffies32 - ca->last_time) <= HZ / 32) return;`
pub const UPDATE_INTERVAL_JIFFIES: u32 = (CUBIC_HZ / 32) as u32;
/// `if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt = 20; /* increase cwnd 5% per RTT */`
pub const INITIAL_MAX_CNT: u32 = 20;
/// "The maximum rate of cwnd increase CUBIC allows is 1 packet per 2 packets ACKed, meaning
/// cwnd grows at 1.5x per RTT": `ca->cnt = max(ca->cnt, 2U);`.
pub const MIN_CNT: u32 = 2;
/// `bictcp_recalc_ssthresh`: `max(..., 2U)`.
pub const MIN_SSTHRESH_PACKETS: u32 = 2;
/// "Discard delay samples right after fast recovery": `(s32)(tcp_jiffies32 -
/// ca->epoch_start) < HZ`.
pub const DELAY_DISCARD_JIFFIES: u32 = CUBIC_HZ as u32;
/// `else { ca->cnt = 100 * cwnd; /* very small increment*/ }`
pub const SMALL_INCREMENT_FACTOR: u32 = 100;

/// Linux `cubic_root`: "calculate the cubic root of x using a table lookup followed by one
/// Newton-Raphson iteration. Avg err ~= 0.195%".
pub fn cubic_root(a: u64) -> u32 {
    // "cbrt(x) MSB values for x MSB values in [0..63]. Precomputed then refined by hand -
    // Willy Tarreau. For x in [0..63], v = cbrt(x << 18) - 1, cbrt(x) = (v[x] + 10) >> 6"
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, //
        123, 129, 134, 138, 143, 147, 151, 156, //
        157, 161, 164, 168, 170, 173, 176, 179, //
        181, 185, 187, 190, 192, 194, 197, 199, //
        200, 202, 204, 206, 209, 211, 213, 215, //
        217, 219, 221, 222, 224, 225, 227, 229, //
        231, 232, 234, 236, 237, 239, 240, 242, //
        244, 245, 246, 248, 250, 251, 252, 254, //
    ];
    // b = fls64(a)
    let b = 64 - a.leading_zeros();
    if b < 7 {
        // "a in [0..63]": return ((u32)v[(u32)a] + 35) >> 6;
        return (u32::from(V[a as usize]) + 35) >> 6;
    }
    // b = ((b * 84) >> 8) - 1; shift = (a >> (b * 3));
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    // x = ((u32)(((u32)v[shift] + 10) << b)) >> 6;
    let x = ((u32::from(V[shift.min(63)]) + 10) << b) >> 6;
    // "Newton-Raphson iteration: x_{k+1} = (2 * x_k + a / x_k^2) / 3"
    // x = (2 * x + (u32)div64_u64(a, (u64)x * (u64)(x - 1))); x = ((x * 341) >> 10);
    let d = u64::from(x) * u64::from(x.saturating_sub(1));
    let x = (2 * x).wrapping_add((a / d.max(1)) as u32);
    ((u64::from(x) * 341) >> 10) as u32
}

/// Linux `struct bictcp` (the CUBIC part; HyStart's fields are in [`super::hystart`]) plus
/// `tp->snd_cwnd_cnt`, which CUBIC's `tcp_cong_avoid_ai` drives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cubic {
    /// "increase cwnd by 1 after ACKs"
    pub cnt: u32,
    /// "last maximum snd_cwnd" (RFC 9438 W_max), packets.
    pub last_max_cwnd: u32,
    /// "the last snd_cwnd"
    pub last_cwnd: u32,
    /// "time when updated last_cwnd" (jiffies).
    pub last_time: u32,
    /// "origin point of bic function" (packets).
    pub bic_origin_point: u32,
    /// "time to origin point from the beginning of the current epoch" (RFC 9438 K, 1/1024 s).
    pub bic_k: u32,
    /// "min delay (usec)"; 0 = no sample yet.
    pub delay_min: u32,
    /// "beginning of an epoch" (jiffies); `None` is Linux's 0.
    pub epoch_start: Option<u32>,
    /// "number of acks" (packets ACKed in the epoch, for the Reno-friendly estimate).
    pub ack_cnt: u32,
    /// "estimated tcp cwnd" (RFC 9438 W_est), packets.
    pub tcp_cwnd: u32,
    /// `tp->snd_cwnd_cnt`: packets ACKed towards the next +1.
    pub snd_cwnd_cnt: u64,
    /// Linux byte counting in slow start (`tcp_slow_start`, [`super::abc`]; `TcpConfig::abc`);
    /// off: RFC 5681 eq. 2, one packet per ACK.
    pub abc: bool,
}

/// Packets in `bytes` (at least 1), as Linux's `snd_cwnd`.
#[inline]
fn packets(bytes: u64, smss: u64) -> u32 {
    u32::try_from(bytes / smss.max(1)).unwrap_or(u32::MAX).max(1)
}

/// ssthresh in packets (`u64::MAX` bytes = Linux's `TCP_INFINITE_SSTHRESH`).
#[inline]
fn ssthresh_packets(bytes: u64, smss: u64) -> u32 {
    if bytes == u64::MAX {
        u32::MAX
    } else {
        u32::try_from(bytes / smss.max(1)).unwrap_or(u32::MAX)
    }
}

/// `tcp_jiffies32` at `now`.
#[inline]
pub fn jiffies(now: tcplab_time::SimTime) -> u32 {
    (now.as_nanos() / CUBIC_JIFFY.as_nanos()) as u32
}

/// `usecs_to_jiffies` (rounds up).
#[inline]
fn usecs_to_jiffies(us: u32) -> u32 {
    let j = CUBIC_JIFFY.as_nanos() / 1000;
    (u64::from(us).div_ceil(j)) as u32
}

impl Cubic {
    /// Linux's CUBIC: byte counting in slow start.
    pub fn new() -> Self {
        Cubic { abc: true, ..Cubic::default() }
    }

    /// CUBIC with RFC 5681 eq. 2 slow start (one packet per ACK).
    pub fn without_abc() -> Self {
        Cubic::default()
    }

    /// `bictcp_reset`: `memset(ca, 0, offsetof(struct bictcp, unused))`.
    pub fn reset(&mut self) {
        *self = Cubic { abc: self.abc, ..Cubic::default() };
    }

    /// `cubictcp_acked` (the `delay_min` part): "Discard delay samples right after fast
    /// recovery"; "first time call or link delay decreases".
    pub fn acked(&mut self, now_j: u32, rtt: SimDuration) {
        if let Some(e) = self.epoch_start {
            if (now_j.wrapping_sub(e) as i32) < DELAY_DISCARD_JIFFIES as i32 {
                return;
            }
        }
        let delay = u32::try_from(rtt.as_nanos() / 1000).unwrap_or(u32::MAX).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
    }

    /// `bictcp_update(ca, cwnd, acked)`: "Compute congestion window to use" — sets `cnt`.
    pub fn update(&mut self, cwnd: u32, acked: u32, now_j: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(acked); // "count the number of ACKed packets"
        if self.last_cwnd == cwnd && (now_j.wrapping_sub(self.last_time) as i32) <= UPDATE_INTERVAL_JIFFIES as i32 {
            return;
        }
        // "The CUBIC function can update ca->cnt at most once per jiffy. On all cwnd reduction
        // events, ca->epoch_start is set to 0, which will force a recalculation of ca->cnt."
        if !(self.epoch_start.is_some() && now_j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now_j;
            if self.epoch_start.is_none() {
                self.epoch_start = Some(now_j); // "record beginning"
                self.ack_cnt = acked; // "start counting"
                self.tcp_cwnd = cwnd; // "syn with cubic"
                if self.last_max_cwnd <= cwnd {
                    self.bic_k = 0;
                    self.bic_origin_point = cwnd;
                } else {
                    // "Compute new K based on (wmax-cwnd) * (srtt>>3 / HZ) / c * 2^(3*bictcp_HZ)"
                    self.bic_k = cubic_root(CUBE_FACTOR.wrapping_mul(u64::from(self.last_max_cwnd - cwnd)));
                    self.bic_origin_point = self.last_max_cwnd;
                }
            }
            let epoch = self.epoch_start.unwrap_or(now_j);
            // t = (s32)(tcp_jiffies32 - ca->epoch_start); t += usecs_to_jiffies(ca->delay_min);
            // "change the unit from HZ to bictcp_HZ": t <<= BICTCP_HZ; do_div(t, HZ);
            let mut t = u64::from((now_j.wrapping_sub(epoch) as i32).max(0) as u32);
            t += u64::from(usecs_to_jiffies(self.delay_min));
            t = (t << BICTCP_HZ) / CUBIC_HZ;
            let k = u64::from(self.bic_k);
            // "t - K": if (t < ca->bic_K) offs = ca->bic_K - t; else offs = t - ca->bic_K;
            let offs = t.abs_diff(k);
            // "c/rtt * (t-K)^3": delta = (cube_rtt_scale * offs * offs * offs) >> (10+3*BICTCP_HZ);
            let delta = (CUBE_RTT_SCALE.wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs) >> (10 + 3 * BICTCP_HZ)) as u32;
            let bic_target = if t < k {
                self.bic_origin_point.wrapping_sub(delta) // "below origin"
            } else {
                self.bic_origin_point.wrapping_add(delta) // "above origin"
            };
            // "cubic function - calc bictcp_cnt"
            self.cnt = if bic_target > cwnd { cwnd / (bic_target - cwnd) } else { SMALL_INCREMENT_FACTOR.saturating_mul(cwnd) };
            // "The initial growth of cubic function may be too conservative when the available
            // bandwidth is still unknown."
            if self.last_max_cwnd == 0 && self.cnt > INITIAL_MAX_CNT {
                self.cnt = INITIAL_MAX_CNT;
            }
        }
        // tcp_friendliness: "TCP Friendly"
        if TCP_FRIENDLINESS {
            let delta = ((u64::from(cwnd) * u64::from(BETA_SCALE)) >> 3).max(1) as u32;
            // "update tcp cwnd": while (ca->ack_cnt > delta) { ca->ack_cnt -= delta; ca->tcp_cwnd++; }
            if self.ack_cnt > delta {
                let n = (self.ack_cnt - 1) / delta;
                self.ack_cnt -= n * delta;
                self.tcp_cwnd = self.tcp_cwnd.wrapping_add(n);
            }
            // "if bic is slower than tcp"
            if self.tcp_cwnd > cwnd {
                let d = self.tcp_cwnd - cwnd;
                let max_cnt = cwnd / d;
                if self.cnt > max_cnt {
                    self.cnt = max_cnt;
                }
            }
        }
        self.cnt = self.cnt.max(MIN_CNT);
    }

    /// `cubictcp_recalc_ssthresh`: "end of epoch", "Wmax and fast convergence"; returns
    /// ssthresh in packets.
    pub fn recalc_ssthresh(&mut self, cwnd: u32) -> u32 {
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && FAST_CONVERGENCE {
            ((u64::from(cwnd) * u64::from(BICTCP_BETA_SCALE + BETA)) / (2 * u64::from(BICTCP_BETA_SCALE))) as u32
        } else {
            cwnd
        };
        ((u64::from(cwnd) * u64::from(BETA) / u64::from(BICTCP_BETA_SCALE)) as u32).max(MIN_SSTHRESH_PACKETS)
    }

    fn loss_state(&mut self, st: CcState, ev: &CcLossEvent) -> CcState {
        let smss = ev.smss.max(1);
        let ssthresh = u64::from(self.recalc_ssthresh(packets(st.cwnd, smss))) * smss;
        let cwnd = match ev.style {
            // RFC 6582 §3.2 step 2 inflation on top of CUBIC's ssthresh.
            RecoveryStyle::NewReno => ssthresh + super::reno::FAST_RECOVERY_INFLATION_SEGMENTS * smss,
            RecoveryStyle::Sack => ssthresh,
        };
        CcState { cwnd, ssthresh }
    }
}

impl CongestionController for Cubic {
    /// `cubictcp_cong_avoid`: "if (tcp_in_slow_start(tp)) { acked = tcp_slow_start(tp, acked);
    /// if (!acked) return; } bictcp_update(ca, tcp_snd_cwnd(tp), acked);
    /// tcp_cong_avoid_ai(tp, ca->cnt, acked);"
    fn on_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState {
        let smss = ev.smss.max(1);
        let now_j = jiffies(ev.now);
        if let Some(rtt) = ev.rtt {
            self.acked(now_j, rtt);
        }
        let mut acked = ev.bytes_acked.div_ceil(smss);
        if acked == 0 {
            return st;
        }
        let mut cwnd = u64::from(packets(st.cwnd, smss));
        let ssthresh = u64::from(ssthresh_packets(st.ssthresh, smss));
        if cwnd < ssthresh {
            if !self.abc {
                // RFC 5681 eq. 2: one segment per ACK in slow start.
                return CcState { cwnd: (cwnd + 1) * smss, ssthresh: st.ssthresh };
            }
            (cwnd, acked) = tcp_slow_start(cwnd, ssthresh, acked);
            if acked == 0 {
                return CcState { cwnd: cwnd * smss, ssthresh: st.ssthresh };
            }
        }
        let c32 = u32::try_from(cwnd).unwrap_or(u32::MAX);
        self.update(c32, u32::try_from(acked).unwrap_or(u32::MAX), now_j);
        cwnd = tcp_cong_avoid_ai(cwnd, &mut self.snd_cwnd_cnt, u64::from(self.cnt), acked);
        CcState { cwnd: cwnd * smss, ssthresh: st.ssthresh }
    }

    /// Linux `tcp_init_cwnd_reduction`: `snd_ssthresh = ssthresh(sk)` (CUBIC's β), and the
    /// recovery window (RFC 6675 / PRR from cwnd = ssthresh, or RFC 6582 inflation).
    fn on_enter_recovery(&mut self, st: CcState, ev: &CcLossEvent) -> CcState {
        self.snd_cwnd_cnt = 0;
        self.loss_state(st, ev)
    }

    fn on_dupack_in_recovery(&mut self, st: CcState, smss: u64) -> CcState {
        Reno::new().on_dupack_in_recovery(st, smss)
    }

    fn on_partial_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState {
        Reno::new().on_partial_ack(st, ev)
    }

    /// Reset cwnd to ssthresh after SACK recovery; RFC 6582 option (1) without SACK
    /// ([`Reno`]'s arithmetic). Linux's own end of the reduction (`tcp_end_cwnd_reduction`,
    /// cwnd = ssthresh with or without SACK) is applied by the sender when PRR is on
    /// (`loss::prr::end_cwnd_reduction`).
    fn on_exit_recovery(&mut self, st: CcState, ev: &CcLossEvent) -> CcState {
        Reno::new().on_exit_recovery(st, ev)
    }

    /// Linux `tcp_enter_loss`: ssthresh from CUBIC on the first expiry, cwnd = 1 packet
    /// (`tcp_packets_in_flight + 1` with everything marked lost); then
    /// `cubictcp_state(TCP_CA_Loss)` → `bictcp_reset` forgets the epoch and W_max.
    fn on_rto(&mut self, st: CcState, ev: &CcLossEvent, first: bool) -> CcState {
        let smss = ev.smss.max(1);
        let ssthresh = if first { u64::from(self.recalc_ssthresh(packets(st.cwnd, smss))) * smss } else { st.ssthresh };
        self.reset();
        CcState { cwnd: super::reno::LOSS_WINDOW_SEGMENTS * smss, ssthresh }
    }

    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::SeqNum;
    use tcplab_time::SimTime;

    const S: u64 = 1000;

    fn ack(now_ms: u64, pkts: u64) -> CcAckEvent {
        CcAckEvent {
            bytes_acked: pkts * S,
            smss: S,
            now: SimTime::from_nanos(now_ms * 1_000_000),
            rtt: None,
            snd_una: SeqNum(0),
            snd_nxt: SeqNum(0),
        }
    }

    // The constants as `cubictcp_register` computes them: beta_scale = 8*(1024+717)/3/(1024-717)
    // = 15; cube_rtt_scale = 41*10; cube_factor = 2^40 / 410.
    #[test]
    fn the_precomputed_scale_factors_are_linuxs() {
        assert_eq!(BETA_SCALE, 15);
        assert_eq!(CUBE_RTT_SCALE, 410);
        assert_eq!(CUBE_FACTOR, 2_681_735_677);
        assert_eq!(CUBIC_JIFFY, SimDuration::from_millis(4));
        assert_eq!(UPDATE_INTERVAL_JIFFIES, 7);
    }

    // cubic_root: "a in [0..63]: return ((u32)v[(u32)a] + 35) >> 6" and one Newton-Raphson step
    // after the table; "Avg err ~= 0.195%".
    #[test]
    fn cubic_root_is_the_table_plus_one_newton_step() {
        assert_eq!(cubic_root(0), 0);
        assert_eq!(cubic_root(1), 1);
        assert_eq!(cubic_root(27), 3);
        assert_eq!(cubic_root(63), 4);
        assert_eq!(cubic_root(1000), 10);
        // Relative error over the range where the root is at least 100 (the 1/1024 s units of
        // K for any W_max − cwnd of a packet or more).
        let mut worst = 0.0f64;
        let mut a = 1_000_000u64;
        while a < (1u64 << 60) {
            let exact = (a as f64).cbrt();
            let err = (f64::from(cubic_root(a)) - exact).abs() / exact;
            worst = worst.max(err);
            a = a * 3 / 2 + 7;
        }
        assert!(worst < 0.01, "worst relative error {worst}");
    }

    // RFC 9438 §4.6 / cubictcp_recalc_ssthresh: ssthresh = max(cwnd * 717 / 1024, 2);
    // §4.7 fast convergence: "if (tcp_snd_cwnd(tp) < ca->last_max_cwnd && fast_convergence)
    // ca->last_max_cwnd = (cwnd * (BICTCP_BETA_SCALE + beta)) / (2 * BICTCP_BETA_SCALE)".
    #[test]
    fn decrease_is_beta_717_and_fast_convergence_lowers_wmax() {
        let mut c = Cubic::new();
        assert_eq!(c.recalc_ssthresh(100), 70);
        assert_eq!(c.last_max_cwnd, 100);
        assert_eq!(c.recalc_ssthresh(80), 56);
        assert_eq!(c.last_max_cwnd, 80 * 1741 / 2048);
        assert_eq!(c.recalc_ssthresh(2), 2);
        let ev = CcLossEvent { flight_size: 100 * S, smss: S, style: RecoveryStyle::Sack };
        let mut c = Cubic::new();
        let st = c.on_enter_recovery(CcState { cwnd: 100 * S, ssthresh: u64::MAX }, &ev);
        assert_eq!(st, CcState { cwnd: 70 * S, ssthresh: 70 * S });
    }

    // RFC 9438 §4.2 eq. 2: K = cubic_root(W_max (1 - β) / C); for W_max = 100, cwnd = 70:
    // K = ∛(30 / 0.4) s = 4.217 s = 4318 in 1/1024 s. Linux: bic_K = cubic_root(cube_factor ·
    // (last_max_cwnd − cwnd)).
    #[test]
    fn k_is_the_time_to_return_to_wmax() {
        let mut c = Cubic::new();
        c.recalc_ssthresh(100);
        c.update(70, 1, 1000);
        let want = 4318.0;
        assert!((f64::from(c.bic_k) - want).abs() / want < 0.01, "K = {}", c.bic_k);
        assert_eq!(c.bic_origin_point, 100);
    }

    // RFC 9438 §4.2: in the concave region cwnd approaches W_max and reaches it about K after
    // the reduction (here with 100 ms RTT, one ACK per packet): within 10 % of W_max at K and
    // not above it before.
    #[test]
    fn after_a_loss_cwnd_climbs_back_to_wmax_at_about_k() {
        let mut c = Cubic::new();
        let mut st = CcState { cwnd: 100 * S, ssthresh: u64::MAX };
        st = c.on_enter_recovery(st, &CcLossEvent { flight_size: 100 * S, smss: S, style: RecoveryStyle::Sack });
        let mut now = 10_000u64; // ms
        let start = now;
        let mut at_k = 0;
        while now < start + 6000 {
            let w = st.cwnd / S;
            for i in 0..w {
                st = c.on_ack(st, &ack(now + i * 100 / w, 1));
            }
            now += 100;
            if now - start <= 4200 {
                assert!(st.cwnd <= 101 * S, "overshoot before K: {}", st.cwnd / S);
                at_k = st.cwnd / S;
            }
        }
        assert!((90..=101).contains(&at_k), "cwnd at K = {at_k}");
        assert!(st.cwnd / S > 100, "convex region after K: {}", st.cwnd / S);
    }

    // RFC 9438 §4.3 Reno-friendly region: with a short RTT (20 ms, 2 s in all) the cubic term
    // (0.4 · 2³ = 3 packets) is negligible and cwnd follows W_est, one packet per
    // cwnd·beta_scale/8 ACKed packets = 8/15 ≈ 0.53 per RTT.
    #[test]
    fn in_the_reno_friendly_region_cwnd_grows_about_half_a_packet_per_rtt() {
        let mut c = Cubic::new();
        c.last_max_cwnd = 20;
        let mut st = CcState { cwnd: 20 * S, ssthresh: 20 * S };
        let mut now = 0u64;
        for _ in 0..100 {
            let w = st.cwnd / S;
            for i in 0..w {
                st = c.on_ack(st, &ack(now + i * 20 / w, 1));
            }
            now += 20;
        }
        let grown = st.cwnd / S - 20;
        assert!((45..=60).contains(&grown), "grew {grown} packets in 100 RTTs");
    }

    // tcp_slow_start inside cubictcp_cong_avoid: every ACKed packet counts up to ssthresh.
    #[test]
    fn slow_start_counts_packets_and_stops_at_ssthresh() {
        let mut c = Cubic::new();
        let st = c.on_ack(CcState { cwnd: 10 * S, ssthresh: u64::MAX }, &ack(0, 2));
        assert_eq!(st.cwnd, 12 * S);
        let st = c.on_ack(CcState { cwnd: 14 * S, ssthresh: 15 * S }, &ack(0, 2));
        assert_eq!(st.cwnd, 15 * S);
        let mut r = Cubic::without_abc();
        let st = r.on_ack(CcState { cwnd: 10 * S, ssthresh: u64::MAX }, &ack(0, 2));
        assert_eq!(st.cwnd, 11 * S);
    }

    // tcp_enter_loss + cubictcp_state(TCP_CA_Loss): ssthresh by β on the first expiry only,
    // cwnd one packet, W_max forgotten (bictcp_reset).
    #[test]
    fn timeout_resets_the_epoch_and_forgets_wmax() {
        let mut c = Cubic::new();
        let ev = CcLossEvent { flight_size: 0, smss: S, style: RecoveryStyle::Sack };
        let st = c.on_rto(CcState { cwnd: 50 * S, ssthresh: u64::MAX }, &ev, true);
        assert_eq!(st, CcState { cwnd: S, ssthresh: 35 * S });
        assert_eq!(c, Cubic::new());
        let st2 = c.on_rto(st, &ev, false);
        assert_eq!(st2.ssthresh, 35 * S);
    }
}

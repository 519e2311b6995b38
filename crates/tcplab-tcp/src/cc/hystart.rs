//! Leaving slow start before the first loss: Linux's HyStart (`tcp_cubic.c` `hystart_update`,
//! ACK-train and delay-increase tests) and HyStart++ (RFC 9406), each switchable
//! (`TcpConfig::hystart`), around any congestion controller.
//!
//! [`Hystart`] wraps the controller: on every ACK outside recovery it looks at the ACK's time
//! and RTT sample (`CcAckEvent::now` / `rtt`) and the round (SND.UNA / SND.NXT) before the
//! controller grows the window, as Linux runs `pkts_acked` (`cubictcp_acked` →
//! `hystart_update`) in `tcp_clean_rtx_queue` before `tcp_cong_control`.
//!
//! **Linux HyStart** ends slow start by setting ssthresh = cwnd ("found") when
//! - *ACK train*: ACKs closer than `hystart_ack_delta_us` (2 ms) apart keep arriving longer
//!   than `delay_min / 2` after the round started (the train of the last window is as long as
//!   half the minimum RTT, i.e. the window fills the pipe), or
//! - *delay increase*: the minimum of the first 8 RTT samples of a round exceeds `delay_min`
//!   by `clamp(delay_min / 8, 4 ms, 16 ms)`.
//!
//! Only while cwnd ≥ `hystart_low_window` (16 packets). `found` is cleared, and the round
//! restarted, by an RTO (`cubictcp_state(TCP_CA_Loss)`), so HyStart runs again in the slow
//! start after a timeout.
//!
//! **HyStart++** (RFC 9406 §4.2): per round (from SND.NXT at its start to its ACK) the minimum
//! RTT of at least N_RTT_SAMPLE samples; when it rose by RttThresh over the previous round's,
//! Conservative Slow Start (CSS) grows cwnd by a quarter of slow start's increase, for at most
//! CSS_ROUNDS rounds, then ssthresh = cwnd (congestion avoidance); an RTT below the CSS
//! baseline resumes slow start. Per-ACK growth is limited to L·SMSS (L = 8, not paced).
//!
//! Ambiguities resolved:
//! - Linux `hystart_ack_delay` (a TSO/GRO cushion added to the ACK-train threshold, derived
//!   from `sk_pacing_rate` and `sk_gso_max_size`) is 0 here: the simulator has no TSO, GSO or
//!   GRO. The sender is not paced (`sk_pacing_status == SK_PACING_NONE`), so the threshold is
//!   halved, as in Linux without the fq qdisc.
//! - `delay_min` is the minimum RTT sample seen (Linux uses CUBIC's `delay_min`, which is the
//!   same until the first loss; HyStart only runs in slow start).
//! - The round of Linux HyStart starts at the first ACK after the connection (or the RTO)
//!   reset it (`bictcp_hystart_reset` at init sets `end_seq = snd_nxt`, which the first ACK of
//!   data passes).
//! - HyStart++ runs in the initial slow start only (RFC 9406 §4.3: "HyStart++ SHOULD be used
//!   only during the initial slow start"; paraphrase — the RFC text was not available offline);
//!   the first loss, recovery or RTO ends it for the connection.
//! - HyStart++'s CSS increase (a quarter of the controller's slow-start increase) is applied
//!   in whole segments, the remainder carried to the next ACK, because CUBIC counts packets.

use super::{CcAckEvent, CcLossEvent, CcState, CongestionController};
use crate::seq::SeqNum;
use tcplab_time::{SimDuration, SimTime};

/// Which slow-start exit runs (`tcp.hystart`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum HystartMode {
    /// Plain slow start until ssthresh or loss.
    #[default]
    Off,
    /// Linux `tcp_cubic.c` HyStart (ACK train and delay increase).
    Linux,
    /// RFC 9406 HyStart++.
    HystartPlusPlus,
}

impl HystartMode {
    pub const ALL: [HystartMode; 3] = [HystartMode::Off, HystartMode::Linux, HystartMode::HystartPlusPlus];
    pub const fn name(self) -> &'static str {
        match self {
            HystartMode::Off => "off",
            HystartMode::Linux => "linux",
            HystartMode::HystartPlusPlus => "hystart++",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// `static int hystart_low_window = 16;` "lower bound cwnd for hybrid slow start" (packets).
pub const HYSTART_LOW_WINDOW: u64 = 16;
/// `static int hystart_ack_delta_us = 2000;` "spacing between ack's indicating train (usecs)".
pub const HYSTART_ACK_DELTA: SimDuration = SimDuration::from_micros(2000);
/// `#define HYSTART_MIN_SAMPLES 8` "Number of delay samples for detecting the increase of
/// delay".
pub const HYSTART_MIN_SAMPLES: u32 = 8;
/// `#define HYSTART_DELAY_MIN (4000U) /* 4 ms */`
pub const HYSTART_DELAY_MIN: SimDuration = SimDuration::from_millis(4);
/// `#define HYSTART_DELAY_MAX (16000U) /* 16 ms */`
pub const HYSTART_DELAY_MAX: SimDuration = SimDuration::from_millis(16);
/// `HYSTART_DELAY_THRESH(ca->delay_min >> 3)`: delay_min / 8.
pub const HYSTART_DELAY_SHIFT: u32 = 3;

/// RFC 9406 §4.3 "MIN_RTT_THRESH = 4 msec".
pub const MIN_RTT_THRESH: SimDuration = SimDuration::from_millis(4);
/// RFC 9406 §4.3 "MAX_RTT_THRESH = 16 msec".
pub const MAX_RTT_THRESH: SimDuration = SimDuration::from_millis(16);
/// RFC 9406 §4.3 "MIN_RTT_DIVISOR = 8".
pub const MIN_RTT_DIVISOR: u64 = 8;
/// RFC 9406 §4.3 "N_RTT_SAMPLE = 8".
pub const N_RTT_SAMPLE: u32 = 8;
/// RFC 9406 §4.3 "CSS_GROWTH_DIVISOR = 4".
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// RFC 9406 §4.3 "CSS_ROUNDS = 5".
pub const CSS_ROUNDS: u32 = 5;
/// RFC 9406 §4.3 "L = infinity if paced, L = 8 if non-paced" (the simulated sender is not
/// paced).
pub const L_NON_PACED: u64 = 8;

/// Linux HyStart state (the HyStart fields of `struct bictcp`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxHystart {
    /// "the exit point is found?"
    pub found: bool,
    /// The round was started (`bictcp_hystart_reset` ran).
    started: bool,
    /// "beginning of each round"
    pub round_start: SimTime,
    /// "end_seq of the round"
    pub end_seq: SeqNum,
    /// "last time when the ACK spacing is close"
    pub last_ack: SimTime,
    /// "the minimum rtt of current round"
    pub curr_rtt: Option<SimDuration>,
    /// "number of samples to decide curr_rtt"
    pub sample_cnt: u32,
    /// Minimum RTT seen (CUBIC's `delay_min`).
    pub delay_min: Option<SimDuration>,
}

impl LinuxHystart {
    /// `bictcp_hystart_reset`.
    fn reset(&mut self, now: SimTime, snd_nxt: SeqNum) {
        self.started = true;
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// `cubictcp_acked` + `hystart_update(sk, delay)`; returns true when the exit point is
    /// found now (the caller sets ssthresh = cwnd).
    pub fn on_sample(&mut self, now: SimTime, delay: SimDuration, cwnd_packets: u64, snd_una: SeqNum, snd_nxt: SeqNum) -> bool {
        // "first time call or link delay decreases"
        let delay = delay.max(SimDuration::from_micros(1));
        if self.delay_min.is_none_or(|d| d > delay) {
            self.delay_min = Some(delay);
        }
        if self.found {
            return false;
        }
        // "if (after(tp->snd_una, ca->end_seq)) bictcp_hystart_reset(sk);"
        if !self.started || snd_una.gt(self.end_seq) {
            self.reset(now, snd_nxt);
        }
        // "hystart triggers when cwnd is larger than some threshold"
        if cwnd_packets < HYSTART_LOW_WINDOW {
            return false;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        // "first detection parameter - ack-train detection"
        if now.saturating_since(self.last_ack) <= HYSTART_ACK_DELTA {
            self.last_ack = now;
            // threshold = ca->delay_min + hystart_ack_delay(sk); [SK_PACING_NONE] threshold >>= 1;
            let threshold = SimDuration(delay_min.as_nanos() / 2);
            // "Hystart ack train triggers if we get ack past ca->delay_min/2."
            if now.saturating_since(self.round_start) > threshold {
                self.found = true;
                return true;
            }
        }
        // "obtain the minimum delay of more than sampling packets"
        if self.curr_rtt.is_none_or(|c| c > delay) {
            self.curr_rtt = Some(delay);
        }
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = SimDuration(delay_min.as_nanos() >> HYSTART_DELAY_SHIFT)
                .max(HYSTART_DELAY_MIN)
                .min(HYSTART_DELAY_MAX);
            // if (ca->curr_rtt > ca->delay_min + HYSTART_DELAY_THRESH(ca->delay_min >> 3))
            if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
                return true;
            }
        }
        false
    }
}

/// Where HyStart++ is (RFC 9406 §4.2).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum PpPhase {
    /// Standard slow start with the delay-increase check.
    #[default]
    SlowStart,
    /// Conservative Slow Start: `baseline` = cssBaselineMinRtt, `rounds` completed.
    Css { baseline: SimDuration, rounds: u32 },
    /// Left (CSS_ROUNDS done, loss, or a later slow start): plain growth.
    Done,
}

/// RFC 9406 HyStart++ state, named after the RFC's variables.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct HystartPp {
    pub phase: PpPhase,
    /// "windowEnd" (None before the first round).
    pub window_end: Option<SeqNum>,
    /// "lastRoundMinRTT" (None = infinity).
    pub last_round_min_rtt: Option<SimDuration>,
    /// "currentRoundMinRTT" (None = infinity).
    pub current_round_min_rtt: Option<SimDuration>,
    /// "rttSampleCount"
    pub rtt_sample_count: u32,
    /// CSS growth not yet applied (bytes × CSS_GROWTH_DIVISOR).
    css_credit: u64,
}

impl HystartPp {
    /// RFC 9406 §4.2: "At the start of each round during standard slow start and CSS,
    /// initialize the variables used to compute the last round's and current round's minimum
    /// RTT: lastRoundMinRTT = currentRoundMinRTT; currentRoundMinRTT = infinity;
    /// rttSampleCount = 0" (paraphrase of the variable updates); a round ends when the ACK of
    /// windowEnd arrives. Returns true when CSS_ROUNDS rounds of CSS are complete.
    fn round(&mut self, snd_una: SeqNum, snd_nxt: SeqNum) -> bool {
        if self.window_end.is_some_and(|w| snd_una.lt(w)) {
            return false;
        }
        self.window_end = Some(snd_nxt);
        self.last_round_min_rtt = self.current_round_min_rtt;
        self.current_round_min_rtt = None;
        self.rtt_sample_count = 0;
        if let PpPhase::Css { baseline, rounds } = self.phase {
            let rounds = rounds + 1;
            self.phase = PpPhase::Css { baseline, rounds };
            // "If CSS_ROUNDS rounds are complete, enter congestion avoidance by setting the
            // ssthresh to the current cwnd."
            return rounds >= CSS_ROUNDS;
        }
        false
    }

    /// The RTT checks after the window update (RFC 9406 §4.2).
    fn check(&mut self) {
        let (Some(cur), n) = (self.current_round_min_rtt, self.rtt_sample_count) else { return };
        if n < N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            PpPhase::SlowStart => {
                let Some(last) = self.last_round_min_rtt else { return };
                // RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH))
                let thresh = SimDuration(last.as_nanos() / MIN_RTT_DIVISOR).min(MAX_RTT_THRESH).max(MIN_RTT_THRESH);
                // if (currentRoundMinRTT >= (lastRoundMinRTT + RttThresh)):
                //     cssBaselineMinRtt = currentRoundMinRTT; exit slow start and enter CSS
                if cur >= last + thresh {
                    self.phase = PpPhase::Css { baseline: cur, rounds: 0 };
                    self.css_credit = 0;
                }
            }
            PpPhase::Css { baseline, .. } => {
                // if (currentRoundMinRTT < cssBaselineMinRtt): cssBaselineMinRtt = infinity;
                // resume slow start including HyStart++
                if cur < baseline {
                    self.phase = PpPhase::SlowStart;
                }
            }
            PpPhase::Done => {}
        }
    }
}

/// A congestion controller with HyStart or HyStart++ in front of its slow start.
#[derive(Clone, Debug)]
pub struct Hystart {
    pub inner: Box<dyn CongestionController>,
    pub mode: HystartMode,
    pub linux: LinuxHystart,
    pub pp: HystartPp,
}

impl Hystart {
    pub fn new(inner: Box<dyn CongestionController>, mode: HystartMode) -> Self {
        Hystart { inner, mode, linux: LinuxHystart::default(), pp: HystartPp::default() }
    }

    fn pp_on_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState {
        let smss = ev.smss.max(1);
        if st.cwnd >= st.ssthresh || self.pp.phase == PpPhase::Done {
            self.pp.phase = PpPhase::Done;
            return self.inner.on_ack(st, ev);
        }
        if self.pp.round(ev.snd_una, ev.snd_nxt) {
            self.pp.phase = PpPhase::Done;
            let st = CcState { cwnd: st.cwnd, ssthresh: st.cwnd };
            return self.inner.on_ack(st, ev);
        }
        if let Some(r) = ev.rtt {
            // currentRoundMinRTT = min(currentRoundMinRTT, currRTT); rttSampleCount += 1
            self.pp.current_round_min_rtt = Some(self.pp.current_round_min_rtt.map_or(r, |c| c.min(r)));
            self.pp.rtt_sample_count += 1;
        }
        let grown = self.inner.on_ack(st, ev);
        // cwnd = cwnd + min(N, L * SMSS)  [slow start]
        let inc = grown.cwnd.saturating_sub(st.cwnd).min(L_NON_PACED * smss);
        let cwnd = match self.pp.phase {
            // cwnd = cwnd + (min(N, L * SMSS) / CSS_GROWTH_DIVISOR)  [CSS]
            PpPhase::Css { .. } => {
                self.pp.css_credit += inc;
                let step = CSS_GROWTH_DIVISOR * smss;
                let whole = self.pp.css_credit / step;
                self.pp.css_credit -= whole * step;
                st.cwnd + whole * smss
            }
            _ => st.cwnd + inc,
        };
        self.pp.check();
        CcState { cwnd, ssthresh: grown.ssthresh }
    }
}

impl CongestionController for Hystart {
    fn on_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState {
        match self.mode {
            HystartMode::Off => self.inner.on_ack(st, ev),
            HystartMode::Linux => {
                let mut st = st;
                // cubictcp_acked: "if (!ca->found && tcp_in_slow_start(tp) && hystart)
                // hystart_update(sk, delay);" — before the window grows on this ACK.
                if let Some(rtt) = ev.rtt {
                    if st.cwnd < st.ssthresh {
                        let pkts = st.cwnd / ev.smss.max(1);
                        if self.linux.on_sample(ev.now, rtt, pkts, ev.snd_una, ev.snd_nxt) {
                            // "tp->snd_ssthresh = tcp_snd_cwnd(tp);"
                            st.ssthresh = st.cwnd;
                        }
                    }
                }
                self.inner.on_ack(st, ev)
            }
            HystartMode::HystartPlusPlus => self.pp_on_ack(st, ev),
        }
    }
    fn on_enter_recovery(&mut self, st: CcState, ev: &CcLossEvent) -> CcState {
        // RFC 9406: "If loss or ECN-marking is observed anytime during standard slow start or
        // CSS, enter congestion avoidance" — the controller's loss response does that.
        self.pp.phase = PpPhase::Done;
        self.inner.on_enter_recovery(st, ev)
    }
    fn on_dupack_in_recovery(&mut self, st: CcState, smss: u64) -> CcState {
        self.inner.on_dupack_in_recovery(st, smss)
    }
    fn on_partial_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState {
        self.inner.on_partial_ack(st, ev)
    }
    fn on_exit_recovery(&mut self, st: CcState, ev: &CcLossEvent) -> CcState {
        self.inner.on_exit_recovery(st, ev)
    }
    fn on_rto(&mut self, st: CcState, ev: &CcLossEvent, first: bool) -> CcState {
        // cubictcp_state(TCP_CA_Loss): bictcp_reset (found = 0) and bictcp_hystart_reset.
        let delay_min = self.linux.delay_min;
        self.linux = LinuxHystart { delay_min, ..LinuxHystart::default() };
        self.pp.phase = PpPhase::Done;
        self.inner.on_rto(st, ev, first)
    }
    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Cubic, Reno};

    const S: u64 = 1000;

    fn at(us: u64) -> SimTime {
        SimTime::from_nanos(us * 1000)
    }

    fn ack(now_us: u64, rtt_us: u64, una: u32, nxt: u32) -> CcAckEvent {
        CcAckEvent {
            bytes_acked: 2 * S,
            smss: S,
            now: at(now_us),
            rtt: Some(SimDuration::from_micros(rtt_us)),
            snd_una: SeqNum(una),
            snd_nxt: SeqNum(nxt),
        }
    }

    // hystart_update: "Hystart ack train triggers if we get ack past ca->delay_min/2" while
    // ACKs are at most hystart_ack_delta_us (2 ms) apart; then "tp->snd_ssthresh =
    // tcp_snd_cwnd(tp)". Below hystart_low_window (16) nothing triggers.
    #[test]
    fn ack_train_longer_than_half_the_min_rtt_sets_ssthresh_to_cwnd() {
        let mut h = Hystart::new(Box::new(Cubic::new()), HystartMode::Linux);
        // delay_min 40 ms; ACKs every 1 ms from t = 100 ms, round ends at seq 1_000_000.
        let mut st = CcState { cwnd: 20 * S, ssthresh: u64::MAX };
        let mut found_at = None;
        for i in 0..30u64 {
            let now = 100_000 + i * 1000;
            st = h.on_ack(st, &ack(now, 40_000, 100 + i as u32, 1_000_000));
            if st.ssthresh != u64::MAX && found_at.is_none() {
                found_at = Some(i);
            }
        }
        // The round started at the first ACK (t = 100 ms); 20 ms = delay_min / 2 is passed at
        // the ACK at t = 121 ms (i = 21): "(s32)(now - ca->round_start) > threshold".
        assert_eq!(found_at, Some(21));
        assert!(h.linux.found);

        let mut h = Hystart::new(Box::new(Cubic::new()), HystartMode::Linux);
        let mut st = CcState { cwnd: 8 * S, ssthresh: u64::MAX };
        for i in 0..4u64 {
            st = h.on_ack(st, &ack(100_000 + i * 1000, 40_000, 100 + i as u32, 1_000_000));
        }
        assert_eq!(st.ssthresh, u64::MAX, "below hystart_low_window");
    }

    // hystart_update delay test: after HYSTART_MIN_SAMPLES samples, "if (ca->curr_rtt >
    // ca->delay_min + HYSTART_DELAY_THRESH(ca->delay_min >> 3))" with the threshold clamped to
    // [4 ms, 16 ms]: delay_min 40 ms -> 5 ms.
    #[test]
    fn delay_increase_of_an_eighth_of_the_min_rtt_ends_slow_start() {
        let mut h = Hystart::new(Box::new(Reno::new()), HystartMode::Linux);
        let mut st = CcState { cwnd: 20 * S, ssthresh: u64::MAX };
        // Round 1: samples of 40 ms, ACKs spread 3 ms apart (no ACK train).
        st = h.on_ack(st, &ack(0, 40_000, 10, 100));
        for i in 1..10u64 {
            st = h.on_ack(st, &ack(i * 3000, 40_000, 10 + i as u32, 100));
        }
        assert_eq!(st.ssthresh, u64::MAX);
        // Round 2 (SND.UNA passed 100): samples of 44.9 ms do not exceed 40 + 5 ms ...
        for i in 0..10u64 {
            st = h.on_ack(st, &ack(100_000 + i * 3000, 44_900, 101 + i as u32, 200));
        }
        assert_eq!(st.ssthresh, u64::MAX);
        // ... round 3 with 45.1 ms does, after the 8 samples.
        let mut when = None;
        for i in 0..10u64 {
            st = h.on_ack(st, &ack(200_000 + i * 3000, 45_100, 201 + i as u32, 300));
            if st.ssthresh != u64::MAX && when.is_none() {
                when = Some(i);
            }
        }
        assert_eq!(when, Some(8));
    }

    // RFC 9406 §4.2: a round whose min RTT rose by RttThresh = max(4 ms, min(last/8, 16 ms))
    // enters CSS (growth / CSS_GROWTH_DIVISOR); after CSS_ROUNDS rounds ssthresh = cwnd.
    #[test]
    fn hystart_pp_enters_css_on_a_delay_rise_and_ends_after_css_rounds() {
        let mut h = Hystart::new(Box::new(Reno::with_linux_abc()), HystartMode::HystartPlusPlus);
        let mut st = CcState { cwnd: 10 * S, ssthresh: u64::MAX };
        let mut una = 0u32;
        let round = |h: &mut Hystart, st: CcState, rtt: u64, acks: u32, una: &mut u32| {
            let mut st = st;
            let end = *una + acks + 1;
            for _ in 0..acks {
                *una += 1;
                st = h.on_ack(st, &ack(0, rtt, *una, end));
            }
            *una = end;
            st
        };
        st = round(&mut h, st, 40_000, 10, &mut una);
        st = round(&mut h, st, 40_000, 10, &mut una);
        assert_eq!(h.pp.phase, PpPhase::SlowStart);
        let before = st.cwnd;
        // 44 ms >= 40 + max(4, 5) = 45? no: stays in slow start, full growth (2 per ACK).
        st = round(&mut h, st, 44_000, 10, &mut una);
        assert_eq!(h.pp.phase, PpPhase::SlowStart);
        assert_eq!(st.cwnd, before + 20 * S);
        st = round(&mut h, st, 50_000, 10, &mut una);
        assert!(matches!(h.pp.phase, PpPhase::Css { .. }), "{:?}", h.pp.phase);
        // In CSS, 10 ACKs of 2 segments grow cwnd by 20/4 = 5 segments.
        let before = st.cwnd;
        st = round(&mut h, st, 50_000, 10, &mut una);
        assert_eq!(st.cwnd, before + 5 * S);
        for _ in 0..4 {
            st = round(&mut h, st, 50_000, 10, &mut una);
        }
        assert_eq!(h.pp.phase, PpPhase::Done);
        assert!(st.ssthresh < u64::MAX);
    }

    // RFC 9406 §4.2: in CSS, "if (currentRoundMinRTT < cssBaselineMinRtt) ... resume slow
    // start"; and the per-ACK increase is at most L = 8 segments when not paced.
    #[test]
    fn hystart_pp_resumes_slow_start_when_the_rtt_falls_and_limits_growth_to_l_segments() {
        let mut h = Hystart::new(Box::new(Reno::with_linux_abc()), HystartMode::HystartPlusPlus);
        h.pp.phase = PpPhase::Css { baseline: SimDuration::from_millis(50), rounds: 1 };
        h.pp.window_end = Some(SeqNum(100));
        let mut st = CcState { cwnd: 10 * S, ssthresh: u64::MAX };
        for i in 0..8u32 {
            st = h.on_ack(st, &ack(0, 45_000, 10 + i, 100));
        }
        assert_eq!(h.pp.phase, PpPhase::SlowStart);
        let ev = CcAckEvent { bytes_acked: 20 * S, ..ack(0, 45_000, 20, 100) };
        let st2 = h.on_ack(st, &ev);
        assert_eq!(st2.cwnd, st.cwnd + L_NON_PACED * S);
    }
}

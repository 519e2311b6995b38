//! Aron & Druschel's pacing in slow start (000 §4.2.2).
//!
//! 000 §4.2.2: "Once the value of pthresh has been estimated, we use the event scheduling
//! clock to schedule the transmission of as many segments as possible, subject to the
//! constraint that the total transmitted data in one RTT remains less than the estimated
//! pthresh value. The segments are paced in time dictated either by the estimated bandwidth,
//! or by the minimum granularity provided by the OS's scheduling clock, i.e., a single tick
//! of the event scheduling clock. Moreover, the amount of time over which pacing is done does
//! not exceed one RTT. Thus, if p is the value of the estimated pthresh in segments, bw is the
//! estimated value of the available bandwidth in segments/s d is the number of segments that
//! have already been sent in the current RTT by the normal slow-start mechanism, then N TCP
//! segments would be sent with an inter-transmission time T where N and T are given by:
//!
//! > N ← MIN(p − d, RTT · f_ev)
//! > T ← MAX(1/f_ev, 1/bw)"
//!
//! How tcplab applies it: pacing *grants* congestion window, one segment per pacing tick, and
//! the ordinary sending rules send what cwnd allows — so a paced segment goes out at the tick
//! (new data permitting) and never beyond cwnd.
//!
//! Ambiguities resolved:
//! - **Rounds.** Pacing runs in rounds of one srtt. A round starts on the first ACK (or pacing
//!   tick) once pthresh is known, and then one srtt after the previous round started, while
//!   cwnd < pthresh. Each round computes N and T afresh; the slow start driven by ACKs goes on
//!   meanwhile (the paced segments are in addition to it, as the paper's "d ... already sent
//!   by the normal slow-start mechanism" implies).
//! - **d** = the data outstanding when the round starts, in segments (rounded up): in slow
//!   start that is what was sent in the last RTT.
//! - **RTT · f_ev** = ⌊srtt / (1/f_ev)⌋ ticks; when it is 0 (e.g. a 60 ms RTT on a 500 ms
//!   clock) pacing can do nothing and ends at once — the paper's "pacing is not effective due
//!   to the large value of clock granularity".
//! - **First paced segment** T after the round starts (the ACK that started it has just sent
//!   its own slow-start segments).
//! - **pthresh bound.** A grant never lifts cwnd above pthresh; pacing ends for good when cwnd
//!   reaches pthresh ("pthresh ... will be used as the target congestion window size during
//!   the segment pacing", 000 §4.2.1). Slow start then continues up to the estimated ssthresh.
//! - **Loss.** The sender stops the pacer when the initial slow start ends with a loss.

use super::{Pacer, PacingDecision, PacingEvent};
use tcplab_time::{SimDuration, SimTime};

/// Where the pacer is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacingPhase {
    /// No round yet.
    Idle,
    /// A round that started at `start` and lasts at most `rtt`: `left` segments still to
    /// release, one every `interval`.
    Round { start: SimTime, rtt: SimDuration, left: u64, interval: SimDuration },
    /// Between rounds: the next one starts at `next`.
    Between { next: SimTime },
    /// cwnd reached pthresh (or the clock is too coarse to pace): nothing more to do.
    Done,
}

/// 000 §4.2.2's pacer.
#[derive(Clone, Debug)]
pub struct SlowStartPacer {
    pub phase: PacingPhase,
    released: u64,
}

impl Default for SlowStartPacer {
    fn default() -> Self {
        SlowStartPacer::new()
    }
}

/// 000 §4.2.2: N ← MIN(p − d, RTT · f_ev) (segments).
pub fn segments_per_round(ev: &PacingEvent) -> u64 {
    let s = ev.smss.max(1);
    let p = ev.pthresh / s;
    let d = ev.flight.div_ceil(s);
    p.saturating_sub(d).min(ticks_per_rtt(ev))
}

/// RTT · f_ev: whole event-clock ticks in one srtt.
pub fn ticks_per_rtt(ev: &PacingEvent) -> u64 {
    ev.srtt.as_nanos() / ev.ev_tick.as_nanos().max(1)
}

/// 000 §4.2.2: T ← MAX(1/f_ev, 1/bw), bw in segments per second.
pub fn interval(ev: &PacingEvent) -> SimDuration {
    ev.ev_tick.max(ev.rate.time_for(ev.smss))
}

impl SlowStartPacer {
    pub fn new() -> Self {
        SlowStartPacer { phase: PacingPhase::Idle, released: 0 }
    }

    fn done(&mut self) -> PacingDecision {
        self.phase = PacingPhase::Done;
        PacingDecision { grant: 0, arm: None, done: true }
    }

    fn start_round(&mut self, ev: &PacingEvent) -> PacingDecision {
        if ev.cwnd >= ev.pthresh || ticks_per_rtt(ev) == 0 {
            return self.done();
        }
        let n = segments_per_round(ev);
        if n == 0 {
            // d already reached p in this round: wait for the next one.
            self.phase = PacingPhase::Between { next: ev.now.saturating_add(ev.srtt) };
            return PacingDecision { grant: 0, arm: Some(ev.srtt), done: false };
        }
        let t = interval(ev);
        self.phase = PacingPhase::Round { start: ev.now, rtt: ev.srtt, left: n, interval: t };
        PacingDecision { grant: 0, arm: Some(t), done: false }
    }
}

impl Pacer for SlowStartPacer {
    fn on_ack(&mut self, ev: &PacingEvent) -> PacingDecision {
        match self.phase {
            PacingPhase::Idle => self.start_round(ev),
            PacingPhase::Between { next } if ev.now >= next => self.start_round(ev),
            PacingPhase::Round { .. } | PacingPhase::Between { .. } if ev.cwnd >= ev.pthresh => self.done(),
            PacingPhase::Done => PacingDecision { done: true, ..PacingDecision::default() },
            _ => PacingDecision::default(),
        }
    }

    fn on_timer(&mut self, ev: &PacingEvent) -> PacingDecision {
        match self.phase {
            PacingPhase::Round { start, rtt, left, interval } => {
                if ev.cwnd >= ev.pthresh {
                    return self.done();
                }
                // One paced segment: cwnd grows by at most one SMSS, never above pthresh.
                let grant = ev.smss.min(ev.pthresh - ev.cwnd);
                self.released += 1;
                let left = left - 1;
                let end = start.saturating_add(rtt);
                let next = ev.now.saturating_add(interval);
                // "the amount of time over which pacing is done does not exceed one RTT"
                if left > 0 && next <= end {
                    self.phase = PacingPhase::Round { start, rtt, left, interval };
                    return PacingDecision { grant, arm: Some(interval), done: false };
                }
                self.phase = PacingPhase::Between { next: end };
                PacingDecision { grant, arm: Some(end.saturating_since(ev.now)), done: false }
            }
            PacingPhase::Between { next } if ev.now >= next => self.start_round(ev),
            PacingPhase::Between { next } => {
                PacingDecision { grant: 0, arm: Some(next.saturating_since(ev.now)), done: false }
            }
            PacingPhase::Idle => self.start_round(ev),
            PacingPhase::Done => PacingDecision { done: true, ..PacingDecision::default() },
        }
    }

    fn released(&self) -> u64 {
        self.released
    }

    fn clone_box(&self) -> Box<dyn Pacer> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::startup::Rate;
    use proptest::prelude::*;

    const S: u64 = 1000;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }
    fn at_ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }
    /// 10 ms clock, srtt 60 ms, 1 MB/s (1 segment per ms), pthresh 20 segments.
    fn ev(now: SimTime, cwnd: u64, flight: u64) -> PacingEvent {
        PacingEvent {
            now,
            cwnd,
            flight,
            smss: S,
            pthresh: 20 * S,
            rate: Rate { bytes: S, per: ms(1) },
            srtt: ms(60),
            ev_tick: ms(10),
        }
    }

    // N = MIN(p − d, RTT·f_ev) = MIN(20 − 4, 60 ms · 100 Hz) = 6; T = MAX(10 ms, 1 ms) = 10 ms.
    #[test]
    fn on_a_10ms_clock_six_segments_are_paced_10ms_apart_within_one_60ms_rtt() {
        let mut p = SlowStartPacer::new();
        let mut cwnd = 4 * S;
        let d = p.on_ack(&ev(at_ms(0), cwnd, 4 * S));
        assert_eq!(d, PacingDecision { grant: 0, arm: Some(ms(10)), done: false });
        assert_eq!(segments_per_round(&ev(at_ms(0), cwnd, 4 * S)), 6);
        let mut times = vec![];
        let mut t = 10;
        loop {
            let d = p.on_timer(&ev(at_ms(t), cwnd, 4 * S));
            if d.grant == 0 {
                break;
            }
            cwnd += d.grant;
            times.push(t);
            match d.arm {
                Some(a) if a == ms(10) => t += 10,
                other => {
                    // The round is over: the next starts 60 ms after the first.
                    assert_eq!(other, Some(ms(60 - t)));
                    break;
                }
            }
        }
        assert_eq!(times, vec![10, 20, 30, 40, 50, 60]);
        assert_eq!(cwnd, 10 * S);
        assert_eq!(p.released(), 6);
        assert_eq!(p.phase, PacingPhase::Between { next: at_ms(60) });
    }

    // T = MAX(1/f_ev, 1/bw): with a bandwidth of one segment per 25 ms the bandwidth governs.
    #[test]
    fn a_slow_estimated_bandwidth_stretches_the_interval_beyond_the_clock_tick() {
        let e = PacingEvent { rate: Rate { bytes: S, per: ms(25) }, ..ev(at_ms(0), 4 * S, 4 * S) };
        assert_eq!(interval(&e), ms(25));
        let mut p = SlowStartPacer::new();
        assert_eq!(p.on_ack(&e).arm, Some(ms(25)));
    }

    // "pacing is not effective due to the large value of clock granularity" (000 §5.2.1).
    #[test]
    fn on_a_500ms_clock_a_60ms_rtt_leaves_nothing_to_pace() {
        let mut p = SlowStartPacer::new();
        let e = PacingEvent { ev_tick: ms(500), ..ev(at_ms(0), 4 * S, 4 * S) };
        assert!(p.on_ack(&e).done);
        assert_eq!(p.phase, PacingPhase::Done);
    }

    // pthresh is the target window: pacing stops when cwnd reaches it.
    #[test]
    fn pacing_ends_when_cwnd_reaches_pthresh_and_never_grants_beyond_it() {
        let mut p = SlowStartPacer::new();
        p.on_ack(&ev(at_ms(0), 19 * S + 500, 4 * S));
        let d = p.on_timer(&ev(at_ms(10), 19 * S + 500, 4 * S));
        assert_eq!(d.grant, 500);
        let d = p.on_timer(&ev(at_ms(20), 20 * S, 4 * S));
        assert!(d.done);
        assert_eq!(d.grant, 0);
        let d = p.on_ack(&ev(at_ms(0), 4 * S, 4 * S));
        assert!(d.done);
    }

    #[test]
    fn when_the_flight_already_reaches_p_the_round_is_skipped() {
        let mut p = SlowStartPacer::new();
        let d = p.on_ack(&ev(at_ms(0), 10 * S, 20 * S));
        assert_eq!(d.arm, Some(ms(60)));
        assert_eq!(p.phase, PacingPhase::Between { next: at_ms(60) });
        // An ACK before the round boundary does nothing; the timer at 60 ms starts a round.
        assert_eq!(p.on_ack(&ev(at_ms(30), 10 * S, 5 * S)), PacingDecision::default());
        let d = p.on_timer(&ev(at_ms(60), 10 * S, 5 * S));
        assert_eq!(d.arm, Some(ms(10)));
    }

    proptest! {
        /// Whatever the sequence of ACKs and ticks, a grant never lifts cwnd above pthresh,
        /// grants come one segment at a time, and no round releases more than RTT·f_ev
        /// segments.
        #[test]
        fn pacing_never_grants_more_than_pthresh_or_one_segment_per_tick(
            ops in prop::collection::vec((any::<bool>(), 0u64..30, 0u64..40, 0u64..30), 1..200),
            tick in 1u64..50, srtt in 1u64..400, pth in 2u64..200,
        ) {
            let mut p = SlowStartPacer::new();
            let mut cwnd = 2 * S;
            let mut now = 0u64;
            let mut round_start = None;
            let mut in_round = 0u64;
            for (timer, dt, flight, shrink) in ops {
                now += dt;
                cwnd = cwnd.saturating_sub(shrink * 100).max(S);
                let e = PacingEvent {
                    now: at_ms(now), cwnd, flight: flight * S, smss: S, pthresh: pth * S,
                    rate: Rate { bytes: S, per: ms(1) }, srtt: ms(srtt), ev_tick: ms(tick),
                };
                let d = if timer { p.on_timer(&e) } else { p.on_ack(&e) };
                prop_assert!(d.grant <= S);
                if d.grant > 0 {
                    prop_assert!(cwnd + d.grant <= pth * S);
                }
                cwnd += d.grant;
                if let PacingPhase::Round { start, .. } = p.phase {
                    if round_start != Some(start) { round_start = Some(start); in_round = 0; }
                }
                if d.grant > 0 { in_round += 1; }
                prop_assert!(in_round <= srtt / tick);
            }
        }
    }
}

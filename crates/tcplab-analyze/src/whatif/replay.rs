//! One configuration replayed over a recorded connection (003 §IV-C): "whether a segment
//! loss would be detected by either FR/R or RTO, whether a spurious retransmission would be
//! avoided, and whether a segment would be spuriously retransmitted due to a premature RTO
//! or spurious dupACKs", and what each costs (003 §IV-D).
//!
//! The configuration's own RTO estimator (`tcplab_tcp::rtt::build`, the one the simulated
//! sender runs) is fed the recorded samples and backoffs; at each episode's timer start it
//! gives the RTO, armed on the configuration's timer clock (`tcplab_tcp::timer::Timers`); D
//! is the configuration's rule on the episode's flight (`sender::rules::dupack_threshold`).
//! A head segment that was lost (its retransmission needed, or undecided) is detected by
//! FR/R when the D-th duplicate ACK comes before the timer, else by the timer; one that was
//! not lost is spuriously retransmitted when the D-th duplicate ACK or the timer comes
//! before the ACK that covered it.
//!
//! Every configuration, the model's own included, is compared with the model's own replayed
//! the same way, so the model itself changes nothing (a test checks it), and what differs
//! between two configurations is only the deadline and the threshold.
//!
//! Ambiguities resolved:
//! - A retransmission whose necessity the analyzer could not decide counts as needed (the
//!   loss is assumed; 003 studies lossy connections).
//! - The backoffs of the captured sender's timeouts are applied under every configuration
//!   (their number is what the capture shows; a configuration that would have avoided one
//!   still backs off there).
//! - A duplicate-ACK detection that changes only in when it happens (FR/R under both, a
//!   different D) changes the duration by the difference of the two times.

use tcplab_tcp::observe::Trigger;
use tcplab_tcp::rtt::RttEstimator;
use tcplab_tcp::sender::rules;
use tcplab_tcp::timer::{TimerKind, Timers};
use tcplab_tcp::TcpConfig;
use tcplab_time::SimTime;

use super::cost;
use super::trace::{DirTrace, EstimatorInput, Episode};

/// How a configuration detects an episode's head.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Detect {
    Nothing,
    /// Fast retransmit on the D-th duplicate ACK, at that time.
    Fr(SimTime),
    /// Retransmission timeout, at the deadline.
    Rto(SimTime),
}

/// The analyzer's verdict on a recorded detection (joined on the frame).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub spurious: Option<bool>,
    pub detection_ns: Option<u64>,
}

/// A trigger that is a fast retransmit / recovery (FR/R in 003) rather than a timeout.
pub fn is_fr(t: Trigger) -> bool {
    matches!(t, Trigger::DupThresh | Trigger::IsLost | Trigger::PartialAck | Trigger::Rack | Trigger::RackTimer | Trigger::NextSeg)
}

/// The head of the episode was lost: it was retransmitted and that was not shown spurious.
pub fn head_lost(ep: &Episode, verdict: &dyn Fn(u64) -> Option<Verdict>) -> bool {
    ep.detection.is_some_and(|d| verdict(d.frame).and_then(|v| v.spurious) != Some(true))
}

/// The retransmission timer of `cfg`'s clocks (a grid point changes no clock, so one serves
/// every point of a model: arming it replaces the deadline).
pub fn timers_for(cfg: &TcpConfig) -> Timers {
    Timers::with_clocks(Box::new(cfg.timers.slow), Box::new(cfg.timers.fast))
}

/// Each episode's retransmission deadline under `cfg` (None: no timer started), armed on
/// `timers` (of `cfg`'s clocks, [`timers_for`]).
pub fn deadlines(trace: &DirTrace, cfg: &TcpConfig, timers: &mut Timers, out: &mut Vec<Option<SimTime>>) {
    out.clear();
    let mut est: Box<dyn RttEstimator> = tcplab_tcp::rtt::build(cfg);
    let mut cursor = 0;
    for ep in &trace.episodes {
        while cursor < ep.inputs_before.min(trace.inputs.len()) {
            match &trace.inputs[cursor] {
                EstimatorInput::Sample(s) => est.on_sample(s),
                EstimatorInput::Backoff => est.on_timeout(),
            }
            cursor += 1;
        }
        out.push(ep.timer_start.and_then(|t0| {
            timers.arm(TimerKind::Rto, t0, est.rto());
            timers.get(TimerKind::Rto)
        }));
    }
}

/// D under `cfg` for the episode.
pub fn threshold(cfg: &TcpConfig, ep: &Episode, smss: u64) -> u32 {
    rules::dupack_threshold(cfg.dupack_threshold, None, ep.flight_bytes, smss)
}

/// How the head is detected with `deadline` and threshold `d`.
pub fn detect(ep: &Episode, lost: bool, deadline: Option<SimTime>, d: u32) -> Detect {
    let t_d = ep.dupack_time(d);
    if lost {
        return match (t_d, deadline) {
            (Some(f), Some(r)) if f < r => Detect::Fr(f),
            (Some(f), None) => Detect::Fr(f),
            (_, Some(r)) => Detect::Rto(r),
            (None, None) => Detect::Nothing,
        };
    }
    let Some(end) = ep.end else { return Detect::Nothing };
    let before_timer = |t: SimTime| !matches!(deadline, Some(r) if t >= r);
    match t_d {
        Some(f) if f < end && before_timer(f) => Detect::Fr(f),
        _ => match deadline {
            Some(r) if r < end => Detect::Rto(r),
            _ => Detect::Nothing,
        },
    }
}

/// The events of a row: what changed between the model's replay and a configuration's,
/// counted over the connection's episodes (003 §IV-C; columns of the same names in the
/// `whatif` table). The one definition of each counted field: [`Effects`] holds one.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Events {
    /// Needed detections by the timer that FR/R makes instead (003 Table V "RTO to FR/R").
    pub rto_to_fr: u32,
    /// Needed FR/R detections that become timeouts ("FR/R to RTO").
    pub fr_to_rto: u32,
    pub spurious_rto_avoided: u32,
    /// Premature timeouts.
    pub spurious_rto_caused: u32,
    pub spurious_fr_avoided: u32,
    /// Spurious duplicate-ACK detections.
    pub spurious_fr_caused: u32,
    /// Change in timer-based detection time of losses detected by the timer under both, ns.
    pub rto_detection_delta_ns: i64,
    /// Change in the time of FR/R detections that stay FR/R, ns.
    pub fr_detection_delta_ns: i64,
}

/// A configuration's [`Events`] and what they cost (003 §IV-D), summed over episodes.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Effects {
    pub events: Events,
    /// The parts of the duration change measured in time (ns) and in RTTs (eqs. 1-3).
    pub delta_time_ns: i64,
    pub delta_rtt_units: f64,
}

impl Effects {
    /// The change in duration (positive: longer), with `rtt_s` the connection's RTT.
    pub fn delta_s(&self, rtt_s: f64) -> f64 {
        self.delta_time_ns as f64 * 1e-9 + self.delta_rtt_units * rtt_s
    }
}

fn diff_ns(new: SimTime, old: SimTime) -> i64 {
    i64::try_from(new.0).unwrap_or(i64::MAX).saturating_sub(i64::try_from(old.0).unwrap_or(i64::MAX))
}

/// 003 §IV-D for one episode: the model detected the head as `base`, the configuration as
/// `new`; `x` is half the flight (segments).
pub fn compare(base: Detect, new: Detect, lost: bool, x: f64, e: &mut Effects) {
    if lost {
        match (base, new) {
            (Detect::Rto(b), Detect::Rto(n)) => {
                e.events.rto_detection_delta_ns += diff_ns(n, b);
                e.delta_time_ns += diff_ns(n, b);
            }
            // "A loss is detected by FR/R, instead of an RTO": the detection time saved
            // and RF(x) after recovery.
            (Detect::Rto(b), Detect::Fr(n)) => {
                e.events.rto_to_fr += 1;
                e.delta_time_ns += diff_ns(n, b);
                e.delta_rtt_units -= cost::rf(x);
            }
            (Detect::Fr(b), Detect::Rto(n)) => {
                e.events.fr_to_rto += 1;
                e.delta_time_ns += diff_ns(n, b);
                e.delta_rtt_units += cost::rf(x);
            }
            (Detect::Fr(b), Detect::Fr(n)) => {
                e.events.fr_detection_delta_ns += diff_ns(n, b);
                e.delta_time_ns += diff_ns(n, b);
            }
            _ => {}
        }
        return;
    }
    let (bf, nf) = (matches!(base, Detect::Fr(_)), matches!(new, Detect::Fr(_)));
    let (br, nr) = (matches!(base, Detect::Rto(_)), matches!(new, Detect::Rto(_)));
    if bf && !nf {
        e.events.spurious_fr_avoided += 1;
        e.delta_rtt_units -= cost::f(x);
    }
    if !bf && nf {
        e.events.spurious_fr_caused += 1;
        e.delta_rtt_units += cost::f(x);
    }
    if br && !nr {
        e.events.spurious_rto_avoided += 1;
        e.delta_rtt_units -= cost::r(x);
    }
    if !br && nr {
        e.events.spurious_rto_caused += 1;
        e.delta_rtt_units += cost::r(x);
    }
}

/// Half the episode's flight in segments (x of eqs. 1-3).
pub fn episode_x(ep: &Episode, smss: u64) -> f64 {
    cost::half_flight(ep.flight_bytes.div_ceil(smss.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whatif::trace::{Detection, MAX_DUPACK_TIMES};

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    /// An episode whose timer started at 0 with duplicate ACKs at `dups` ms, ended at `end`.
    fn ep(dups: &[u64], end: Option<u64>, retransmitted: bool) -> Episode {
        let mut at = [SimTime(0); MAX_DUPACK_TIMES];
        for (i, d) in dups.iter().enumerate() {
            at[i] = ms(*d);
        }
        Episode {
            timer_start: Some(SimTime(0)),
            inputs_before: 0,
            flight_bytes: 8 * 1000,
            dupacks: dups.len() as u32,
            dupack_at: at,
            detection: retransmitted.then_some(Detection { at: ms(300), frame: 7, trigger: Trigger::Rto }),
            end: end.map(ms),
            in_recovery: false,
        }
    }

    // 003 §IV-C (i): a lost segment is detected by FR/R when the D-th duplicate ACK comes
    // before the timer, else by the timer.
    #[test]
    fn a_lost_head_is_detected_by_the_dth_dupack_or_the_timer() {
        let e = ep(&[10, 11, 12], None, true);
        assert_eq!(detect(&e, true, Some(ms(200)), 3), Detect::Fr(ms(12)));
        assert_eq!(detect(&e, true, Some(ms(200)), 2), Detect::Fr(ms(11)));
        assert_eq!(detect(&e, true, Some(ms(200)), 4), Detect::Rto(ms(200)));
        assert_eq!(detect(&e, true, Some(ms(11)), 3), Detect::Rto(ms(11)));
    }

    // 003 §IV-C (ii)/(iii): a segment that was not lost is retransmitted spuriously when the
    // D-th duplicate ACK or the timer comes before the ACK that covered it.
    #[test]
    fn a_head_that_arrived_is_spurious_only_before_its_ack() {
        let e = ep(&[10, 11], Some(100), false);
        assert_eq!(detect(&e, false, Some(ms(150)), 3), Detect::Nothing);
        assert_eq!(detect(&e, false, Some(ms(80)), 3), Detect::Rto(ms(80)));
        assert_eq!(detect(&e, false, Some(ms(150)), 2), Detect::Fr(ms(11)));
        assert_eq!(detect(&e, false, Some(ms(5)), 2), Detect::Rto(ms(5)));
    }

    // 003 §IV-D: the events and their costs, x = 4 (a flight of 8).
    #[test]
    fn each_change_costs_what_003_iv_d_says() {
        let mut e = Effects::default();
        compare(Detect::Rto(ms(200)), Detect::Fr(ms(12)), true, 4.0, &mut e);
        assert_eq!((e.events.rto_to_fr, e.delta_time_ns), (1, -188_000_000));
        assert_eq!(e.delta_rtt_units, -cost::rf(4.0));
        let mut e = Effects::default();
        compare(Detect::Rto(ms(200)), Detect::Rto(ms(120)), true, 4.0, &mut e);
        assert_eq!((e.events.rto_detection_delta_ns, e.delta_rtt_units), (-80_000_000, 0.0));
        let mut e = Effects::default();
        compare(Detect::Nothing, Detect::Rto(ms(80)), false, 4.0, &mut e);
        assert_eq!((e.events.spurious_rto_caused, e.delta_rtt_units, e.delta_time_ns), (1, cost::r(4.0), 0));
        let mut e = Effects::default();
        compare(Detect::Fr(ms(11)), Detect::Nothing, false, 4.0, &mut e);
        assert_eq!((e.events.spurious_fr_avoided, e.delta_rtt_units), (1, -cost::f(4.0)));
        assert_eq!(e.delta_s(0.1), -cost::f(4.0) * 0.1);
    }
}

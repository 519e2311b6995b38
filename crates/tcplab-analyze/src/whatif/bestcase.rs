//! 003 §V-A-3, the Best-Case bound: "(i) all spurious retransmissions (based on either FR/R
//! or RTOs) are avoided, and (ii) all RTO-based loss detections take no more than the
//! maximum RTT of the corresponding connection" — eq. (1) for each spurious FR/R, eq. (2)
//! for each spurious RTO, and for each needed RTO the time its detection exceeded the
//! connection's maximum RTT.
//!
//! It is computed from what the captured sender did (the analyzer's verdicts): every timer
//! expiry of the sender (its retransmission; recoveries included, as 003 counts "all
//! instances") and every FR/R detection (the first retransmission of an episode outside a
//! recovery, [`super::trace`]); a retransmission whose necessity is undecided counts as
//! needed. The detection time of a needed timeout is the analyzer's (original transmission
//! to retransmission, 003 §IV-B).

use super::replay::{episode_x, is_fr, Verdict};
use super::trace::DirTrace;
use super::cost;
use tcplab_tcp::observe::Trigger;

/// The bound for one direction: (time saved in ns, RTTs saved). Both ≥ 0.
pub fn best_case(trace: &DirTrace, verdict: &dyn Fn(u64) -> Option<Verdict>) -> (u64, f64) {
    let max_rtt = trace.sample_max_ns;
    let (mut ns, mut rtts) = (0u64, 0.0f64);
    for e in &trace.expiries {
        let v = verdict(e.frame);
        let x = cost::half_flight(e.flight_bytes.div_ceil(trace.smss.max(1)));
        if v.and_then(|v| v.spurious) == Some(true) {
            rtts += cost::r(x);
        } else if let Some(d) = v.and_then(|v| v.detection_ns) {
            ns += d.saturating_sub(max_rtt);
        }
    }
    for ep in &trace.episodes {
        let Some(d) = ep.detection else { continue };
        if d.trigger == Trigger::Rto || !is_fr(d.trigger) {
            continue;
        }
        if verdict(d.frame).and_then(|v| v.spurious) == Some(true) {
            rtts += cost::f(episode_x(ep, trace.smss));
        }
    }
    (ns, rtts.max(0.0))
}

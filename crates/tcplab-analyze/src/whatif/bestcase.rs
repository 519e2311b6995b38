//! 003 §V-A-3, the Best-Case bound: "(i) all spurious retransmissions (based on either FR/R
//! or RTOs) are avoided, and (ii) all RTO-based loss detections take no more than the
//! maximum RTT of the corresponding connection" — eq. (1) for each spurious FR/R, eq. (2)
//! for each spurious RTO, and for each needed RTO the time its detection exceeded the
//! connection's maximum RTT.
//!
//! It is computed from what the captured sender did (the analyzer's causes and verdicts), per
//! loss detection (the first retransmission of an episode, [`super::trace`]); a retransmission
//! whose necessity is undecided counts as needed.

use super::replay::{episode_x, is_fr, Verdict};
use super::trace::DirTrace;
use super::cost;
use tcplab_tcp::observe::Trigger;

/// The bound for one direction: (time saved in ns, RTTs saved). Both ≥ 0.
pub fn best_case(trace: &DirTrace, verdict: &dyn Fn(u64) -> Option<Verdict>) -> (u64, f64) {
    let max_rtt = trace.sample_max_ns;
    let (mut ns, mut rtts) = (0u64, 0.0f64);
    for ep in &trace.episodes {
        let Some(d) = ep.detection else { continue };
        let v = verdict(d.frame);
        let x = episode_x(ep, trace.smss);
        match (v.and_then(|v| v.spurious), d.trigger) {
            (Some(true), Trigger::Rto) => rtts += cost::r(x),
            (Some(true), t) if is_fr(t) => rtts += cost::f(x),
            (_, Trigger::Rto) => {
                let detection = v.and_then(|v| v.detection_ns).or_else(|| ep.timer_start.map(|s| d.at.saturating_since(s).0));
                ns += detection.unwrap_or(0).saturating_sub(max_rtt);
            }
            _ => {}
        }
    }
    (ns, rtts.max(0.0))
}

//! Extreme Quick-Start (seed 002 §6.6.2, L4399–4506, and §6.7, L4583–4603; seed-002-part2
//! §4.5, §5): per-flow state at the router.
//!
//! For each flow with an open approval the router counts the bytes the flow sent since
//! (`qsr_used`). The approved-but-not-yet-arrived bandwidth replaces `recent_qs_approvals`:
//! `outstanding = Σ max(0, A(F)·RTT_F − qsr_used_F) / RTT_F` over flows still within their
//! QS round trip [INTERP §4.5]. When a flow's monitoring period ends, its usage
//! `C = min(1, B(F)/A(F))` updates its host's score with eq. 6.5, and a later request from the
//! host is multiplied by `S(H)`.
//!
//! The monitoring period (thesis L4586–4592: "After the monitoring period has elapsed, the
//! router calculates the fraction of the allocation actually consumed as C = B(F)/A(F) ...
//! we ... used a measurement interval of 1.5 seconds") is `usage_interval` after the
//! approval, 1.5 s by default ([`DEFAULT_USAGE_INTERVAL`]). `B(F)` is the bytes of the flow
//! that left through the interface in that period; `A(F)` is the allocation in bytes, the
//! approved rate over the QS phase of one RTT (`approved · flow_rtt`: the QS window the
//! sender may send, eq. 6.1), so C is the share of the allocation the flow used, and a flow
//! that sends its whole QS window (or more, after the QS phase) has C = 1.
//!
//! Why the period is not one RTT from the approval (the model until issue 12's fourth
//! session): the Request rides on the SYN, and the QS packets leave the sender only when the
//! SYN/ACK has brought the Response back, one whole RTT after the router approved. A period of
//! `flow_rtt` from the approval therefore closed before the flow's QS packets reached the
//! router (for every flow whose RTT is at least `flow_rtt`), measured C ≈ 0 and drove every
//! host's score to about 0. `usage_interval = flow_rtt` gives that model back.
//!
//! Choices (§10 item 11): the router's RTT estimate per flow is the configured `flow_rtt`
//! (the thesis assumes a reliable estimator, L4446–4451); the initial `S(H)` is 1; an
//! approval counts in `outstanding` for `flow_rtt` after it, whatever the monitoring
//! period; scores are brought up to date (periods that ended are closed) before a request
//! reads its host's score. (Maps are ordered so that sums are deterministic.)

use std::collections::BTreeMap;
use tcplab_time::{SimDuration, SimTime};

/// Thesis L4591: w = 0.2.
pub const DEFAULT_SCORE_WEIGHT: f64 = 0.2;
/// Thesis L4591–4592: "used a measurement interval of 1.5 seconds" (the monitoring period
/// after which C = B(F)/A(F) is computed).
pub const DEFAULT_USAGE_INTERVAL: SimDuration = SimDuration::from_millis(1500);

/// Eq. 6.5: `S(H) ← w · max(C, S(H)) + (1 − w) · min(C, S(H))`, C capped at 1.
pub fn usage_score(s: f64, c: f64, w: f64) -> f64 {
    let c = c.min(1.0);
    w * c.max(s) + (1.0 - w) * c.min(s)
}

#[derive(Copy, Clone, Debug)]
struct OpenApproval {
    host: u32,
    approved_bps: f64,
    at: SimTime,
    used_bytes: u64,
}

/// Per-flow and per-host state of one Extreme Quick-Start interface.
#[derive(Clone, Debug)]
pub struct ExtremeState {
    flow_rtt: SimDuration,
    /// The monitoring period after an approval (module docs); at least `flow_rtt` is kept
    /// for `outstanding`.
    usage_interval: SimDuration,
    w: f64,
    /// Whether requests are scaled by the host's usage score.
    pub use_score: bool,
    open: BTreeMap<u32, OpenApproval>,
    scores: BTreeMap<u32, f64>,
}

impl ExtremeState {
    pub fn new(flow_rtt: SimDuration, usage_interval: SimDuration, w: f64, use_score: bool) -> Self {
        ExtremeState { flow_rtt, usage_interval, w, use_score, open: BTreeMap::new(), scores: BTreeMap::new() }
    }

    /// Closes approvals whose monitoring period (and RTT) has passed, updating host scores
    /// (eq. 6.5). Without scoring an approval is kept for its RTT only.
    pub fn expire(&mut self, now: SimTime) {
        let (rtt, w) = (self.flow_rtt, self.w);
        let keep = if self.use_score { self.usage_interval.max(rtt) } else { rtt };
        let scores = &mut self.scores;
        self.open.retain(|_, a| {
            if now.saturating_since(a.at) < keep {
                return true;
            }
            let allocated = a.approved_bps * rtt.as_secs_f64();
            let c = if allocated > 0.0 { a.used_bytes as f64 / allocated } else { 1.0 };
            let s = scores.entry(a.host).or_insert(1.0);
            *s = usage_score(*s, c, w);
            false
        });
    }

    /// A packet of `flow` with `bytes` passes.
    pub fn on_packet(&mut self, flow: u32, bytes: u32) {
        if let Some(a) = self.open.get_mut(&flow) {
            a.used_bytes += u64::from(bytes);
        }
    }

    /// Approved bandwidth not yet seen arriving (bytes/s), replacing `recent_qs_approvals`:
    /// the approvals of the last `flow_rtt`.
    pub fn outstanding(&mut self, now: SimTime) -> f64 {
        self.expire(now);
        let (rtt_d, rtt) = (self.flow_rtt, self.flow_rtt.as_secs_f64().max(1e-9));
        self.open
            .values()
            .filter(|a| now.saturating_since(a.at) < rtt_d)
            .map(|a| (a.approved_bps * rtt - a.used_bytes as f64).max(0.0) / rtt)
            .sum()
    }

    /// The factor for a new request from `host` (1 without scoring).
    pub fn score(&self, host: u32) -> f64 {
        if self.use_score {
            self.scores.get(&host).copied().unwrap_or(1.0)
        } else {
            1.0
        }
    }

    /// An approval of `approved_bps` to `flow` from `host` at `now`.
    pub fn on_approval(&mut self, now: SimTime, flow: u32, host: u32, approved_bps: f64) {
        self.open.insert(flow, OpenApproval { host, approved_bps, at: now, used_bytes: 0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §9 item 9: "w = 0.2: S = 1.0, C = 0.5 → S = 0.2·1 + 0.8·0.5 = 0.60; then C = 1.0 →
    /// S = 0.2·1 + 0.8·0.6 = 0.68. C is capped at 1."
    #[test]
    fn eq_6_5_usage_score() {
        let s = usage_score(1.0, 0.5, 0.2);
        assert!((s - 0.60).abs() < 1e-12);
        let s = usage_score(s, 1.0, 0.2);
        assert!((s - 0.68).abs() < 1e-12);
        assert!((usage_score(0.68, 3.0, 0.2) - usage_score(0.68, 1.0, 0.2)).abs() < 1e-12, "C capped at 1");
    }

    #[test]
    fn a_host_that_uses_half_its_allocation_gets_its_next_request_scaled() {
        let rtt = SimDuration::from_millis(100);
        // Monitoring period = one RTT (the earlier model).
        let mut x = ExtremeState::new(rtt, rtt, 0.2, true);
        let t0 = SimTime::ZERO;
        x.on_approval(t0, 7, 3, 100_000.0); // 10,000 B in one RTT
        assert_eq!(x.outstanding(t0), 100_000.0);
        x.on_packet(7, 5000);
        assert!((x.outstanding(t0) - 50_000.0).abs() < 1e-6);
        assert_eq!(x.outstanding(t0 + rtt), 0.0, "closed after one RTT");
        assert!((x.score(3) - 0.6).abs() < 1e-12);
        assert_eq!(x.score(4), 1.0);
    }

    /// The QS packets arrive one RTT after the approval (the Request rode on the SYN): a
    /// 1.5 s monitoring period sees them, a one-RTT period does not.
    #[test]
    fn the_monitoring_period_sees_the_qs_packets_that_follow_the_response() {
        let rtt = SimDuration::from_millis(100);
        let t0 = SimTime::ZERO;
        let mut long = ExtremeState::new(rtt, DEFAULT_USAGE_INTERVAL, 0.2, true);
        let mut short = ExtremeState::new(rtt, rtt, 0.2, true);
        for x in [&mut long, &mut short] {
            x.on_approval(t0, 7, 3, 100_000.0); // an allocation of 10,000 B in one RTT
            // The Response returns; the whole QS window passes 110-150 ms after the approval.
            let _ = x.outstanding(t0 + SimDuration::from_millis(110));
            x.on_packet(7, 10_000);
        }
        // Not counted as outstanding after one RTT, whatever the period.
        assert_eq!(long.outstanding(t0 + SimDuration::from_millis(150)), 0.0);
        assert_eq!(long.score(3), 1.0, "period not over yet");
        long.expire(t0 + DEFAULT_USAGE_INTERVAL);
        assert_eq!(long.score(3), 1.0, "C = 10,000 / 10,000 = 1 keeps S(H) = 1");
        // The one-RTT period closed at 100 ms with nothing seen: C = 0, S = 0.2 * 1 + 0.8 * 0.
        assert!((short.score(3) - 0.2).abs() < 1e-12);
    }
}

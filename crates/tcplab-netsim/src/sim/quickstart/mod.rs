//! Quick-Start routers (seed 002 §6.2.3, §6.6; RFC 4782 §3.2): an interface (a link
//! direction leaving a router node) configured as Quick-Start capable processes every
//! Quick-Start Request that leaves through it.
//!
//! | file | concern |
//! |---|---|
//! | [`algorithm`] | Target (Fig 6.10), Share (Fig 6.9), Broken (approve all) |
//! | [`estimator`] | link utilisation: peak over N intervals, EWMA per departure (eq. 6.4) |
//! | [`approvals`] | `recent_qs_approvals` with its memory (two buckets / sliding) |
//! | [`extreme`] | Extreme Quick-Start: per-flow `qsr_used`, per-host usage score (eq. 6.5) |
//! | [`net`] | the simulator's per-interface routers and hand-off state (links down, route overrides) |
//!
//! Processing of a Request (thesis §6.2.3, L3712–3722; ns-2 `QSAgent::recv`):
//! - approved: the rate becomes `min(request, quantise(approved))` (floor on the 2^N grid,
//!   [`QsRate::approve_floor`]) and the QS TTL is decremented by one, like the IP TTL;
//! - not approved: the rate is set to zero ([`RejectAction::Zero`], ns-2) or the option is
//!   left untouched ([`RejectAction::Untouched`]; the TTL check then fails at the sender);
//! - a router without this configuration ("plain") forwards the option untouched.
//!
//! Choices (seed-002-part2 §10): `recent_qs_approvals` adds the pre-quantisation approved
//! rate (ns-2) unless [`QsRouterConfig::count_quantised`]; the memory is
//! [`approvals::ApprovalMemory`]; Rate Reports (Func 8) pass through unprocessed (the thesis's
//! simulations did not use them, L3648–3649).

pub mod algorithm;
pub mod approvals;
pub mod estimator;
pub mod extreme;
pub mod net;

use algorithm::{QsAlgorithm, QsDecisionInput};
use approvals::{ApprovalMemory, RecentApprovals, DEFAULT_APPROVAL_MEMORY};
use estimator::{Estimator, EstimatorKind, DEFAULT_PEAK_INTERVAL, DEFAULT_PEAK_INTERVALS};
use extreme::ExtremeState;
use tcplab_tcp::startup::quickstart::{QsFunc, QsIpOption, QsRate};
use tcplab_time::{SimDuration, SimTime};

/// What a router does with a Request it does not approve.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum RejectAction {
    /// Rate set to zero (ns-2 `QS_DISABLE`).
    #[default]
    Zero,
    /// Option left untouched (L3717).
    Untouched,
}

/// Extreme Quick-Start settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ExtremeConfig {
    /// The router's per-flow RTT estimate.
    pub flow_rtt: SimDuration,
    /// Scale requests by the host's usage score (eq. 6.5).
    pub usage_score: bool,
    /// w of eq. 6.5.
    pub w: f64,
    /// The monitoring period after an approval that measures C of eq. 6.5 (`extreme`
    /// module docs).
    pub usage_interval: SimDuration,
}

/// Quick-Start settings of one router interface.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct QsRouterConfig {
    pub algorithm: QsAlgorithm,
    pub estimator: EstimatorKind,
    pub memory: ApprovalMemory,
    pub approval_memory: SimDuration,
    pub reject: RejectAction,
    /// Add the quantised rather than the computed approval to `recent_qs_approvals`.
    pub count_quantised: bool,
    pub extreme: Option<ExtremeConfig>,
}

/// Thesis Fig 6.13/6.14 and Ch. 7: Target with qs_thresh 0.9 (Ch. 6) is the default.
pub const DEFAULT_QS_THRESH: f64 = 0.9;

impl Default for QsRouterConfig {
    fn default() -> Self {
        QsRouterConfig {
            algorithm: QsAlgorithm::Target { qs_thresh: DEFAULT_QS_THRESH },
            estimator: EstimatorKind::Peak { intervals: DEFAULT_PEAK_INTERVALS, interval: DEFAULT_PEAK_INTERVAL },
            memory: ApprovalMemory::TwoBuckets,
            approval_memory: DEFAULT_APPROVAL_MEMORY,
            reject: RejectAction::Zero,
            count_quantised: false,
            extreme: None,
        }
    }
}

/// Counters of one Quick-Start interface.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct QsRouterStats {
    pub requests: u64,
    pub approved: u64,
}

/// A Quick-Start capable interface.
#[derive(Clone, Debug)]
pub struct QsRouter {
    cfg: QsRouterConfig,
    bandwidth: f64,
    est: Estimator,
    recent: RecentApprovals,
    extreme: Option<ExtremeState>,
    pub stats: QsRouterStats,
}

impl QsRouter {
    /// `bandwidth_bps`: the interface's bandwidth in bits/s.
    pub fn new(cfg: QsRouterConfig, bandwidth_bps: u64) -> Self {
        let bandwidth = bandwidth_bps as f64 / 8.0;
        QsRouter {
            cfg,
            bandwidth,
            est: Estimator::new(cfg.estimator, bandwidth),
            recent: RecentApprovals::new(cfg.memory, cfg.approval_memory),
            extreme: cfg.extreme.map(|x| ExtremeState::new(x.flow_rtt, x.usage_interval, x.w, x.usage_score)),
            stats: QsRouterStats::default(),
        }
    }

    /// A packet of `bytes` of `flow` leaves through this interface at `now` (every packet).
    pub fn on_packet(&mut self, now: SimTime, flow: u32, bytes: u32) {
        self.est.on_departure(now, bytes);
        if let Some(x) = self.extreme.as_mut() {
            x.on_packet(flow, bytes);
        }
    }

    /// Processes the Request `q` of `flow` from host `src` (rewrites it in place).
    pub fn process(&mut self, now: SimTime, flow: u32, src: u32, q: &mut QsIpOption) {
        if q.func != QsFunc::Request || q.rate == QsRate::ZERO {
            return;
        }
        self.stats.requests += 1;
        let mut request = q.rate.bytes_per_sec() as f64;
        let recent = match self.extreme.as_mut() {
            Some(x) => {
                // Close the periods that have ended first, so the score is current.
                x.expire(now);
                request *= x.score(src);
                x.outstanding(now)
            }
            None => self.recent.total(now),
        };
        let input = QsDecisionInput {
            bandwidth: self.bandwidth,
            utilization: self.est.utilization(now),
            recent_qs_approvals: recent,
            rate_request: request,
        };
        let approved = self.cfg.algorithm.approve(&input);
        let quantised = if self.cfg.algorithm == QsAlgorithm::Broken {
            q.rate
        } else {
            QsRate::approve_floor(approved as u64).min(q.rate)
        };
        if quantised == QsRate::ZERO {
            if self.cfg.reject == RejectAction::Zero {
                q.rate = QsRate::ZERO;
            }
            return;
        }
        self.stats.approved += 1;
        let counted = if self.cfg.count_quantised { quantised.bytes_per_sec() as f64 } else { approved };
        match self.extreme.as_mut() {
            Some(x) => x.on_approval(now, flow, src, quantised.bytes_per_sec() as f64),
            None => self.recent.add(now, counted),
        }
        q.rate = quantised;
        q.qs_ttl = q.qs_ttl.wrapping_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(n: u8) -> QsIpOption {
        QsIpOption { func: QsFunc::Request, rate: QsRate::new(n).unwrap_or(QsRate::MAX), qs_ttl: 100, nonce: 0 }
    }

    /// On an idle 10 Mb/s interface (Target, qs_thresh 0.9) a 2 MB/s request (N = 8) is
    /// approved at 1,125,000 B/s, which quantises down to N = 7 (640,000 B/s); the QS TTL is
    /// decremented; the approval is remembered, so an immediate second request is refused.
    #[test]
    fn an_idle_target_router_approves_and_remembers() {
        let mut r = QsRouter::new(QsRouterConfig::default(), 10_000_000);
        let t = SimTime::ZERO + SimDuration::from_millis(1);
        let mut a = req(8);
        r.process(t, 0, 0, &mut a);
        assert_eq!((a.rate.n(), a.qs_ttl), (7, 99));
        let mut b = req(8);
        r.process(t, 1, 0, &mut b);
        // 1,125,000 − 1,125,000 (pre-quantisation count, ns-2) leaves nothing.
        assert_eq!((b.rate, b.qs_ttl), (QsRate::ZERO, 100));
        assert_eq!(r.stats, QsRouterStats { requests: 2, approved: 1 });
        // After 2 × 150 ms the approval is forgotten.
        let mut c = req(8);
        r.process(t + SimDuration::from_millis(300), 2, 0, &mut c);
        assert_eq!(c.rate.n(), 7);
    }

    #[test]
    fn untouched_rejection_and_the_broken_router() {
        let cfg = QsRouterConfig { reject: RejectAction::Untouched, ..QsRouterConfig::default() };
        let mut r = QsRouter::new(cfg, 10_000_000);
        let t = SimTime::ZERO;
        // Saturate the interface for a whole interval, then ask.
        for k in 0..1000u64 {
            r.on_packet(t + SimDuration::from_micros(k * 150), 0, 1500);
        }
        let mut a = req(8);
        r.process(t + SimDuration::from_millis(150), 0, 0, &mut a);
        assert_eq!(a, req(8), "left untouched: the sender's TTL check fails");
        let mut broken = QsRouter::new(QsRouterConfig { algorithm: QsAlgorithm::Broken, ..QsRouterConfig::default() }, 1000);
        let mut b = req(15);
        broken.process(t, 0, 0, &mut b);
        assert_eq!((b.rate.n(), b.qs_ttl), (15, 99));
    }
}

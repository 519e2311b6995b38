//! Quick-Start keys (seed 002 Ch. 6–7): the host side in `[tcp.quick_start]` (and
//! `flows[i].tcp.quick_start`), the routers in `[[quick_start.routers]]` and the vertical
//! hand-offs in `[[quick_start.handoffs]]`. See docs/scenarios.md.

use super::link::LinkTable;
use super::topology::NodeTable;
use super::values::{prob, unknown_name, Bw, Dur, R};
use super::{p, Ctx, P};
use crate::sim::quickstart::algorithm::QsAlgorithm;
use crate::sim::quickstart::approvals::ApprovalMemory;
use crate::sim::quickstart::estimator::{EstimatorKind, MAX_PEAK_INTERVALS};
use crate::sim::quickstart::extreme::{DEFAULT_SCORE_WEIGHT, DEFAULT_USAGE_INTERVAL};
use crate::sim::quickstart::{ExtremeConfig, QsRouterConfig, RejectAction};
use crate::spec::{HandoffSpec, QsRouterSpec, QuickStartSpec, RouteSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use tcplab_tcp::startup::quickstart::{HandoffResponse, QsFailureResponse, QsRequestSize, QuickStartConfig};
use tcplab_time::SimDuration;

/// `[tcp.quick_start]`: the endpoint's Quick-Start behaviour; unset keys keep the level below.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTcpQuickStart {
    /// Send a Quick-Start Request on the SYN.
    pub request: Option<bool>,
    /// Requested rate (a bandwidth, e.g. "2MB/s" = "16Mbps"; rounded down to 40 kbit/s · 2^N).
    pub rate: Option<Bw>,
    /// `static` (always `rate`) or `data` (the data to send in one RTT, at most `rate`; no
    /// request when it fits in the initial window).
    pub size: Option<String>,
    /// RTT assumed by `size = "data"` before one is measured.
    pub rtt_guess: Option<Dur>,
    /// Request again after this long idle.
    pub after_idle: Option<Dur>,
    /// On a hand-off notification: `ignore`, `slowstart`, `quickstart`.
    pub on_handoff: Option<String>,
    /// ssthresh from the approved rate too (Ch. 7 §7.3).
    pub qsthresh: Option<bool>,
    /// H of eq. 6.1 in bytes.
    pub header_overhead: Option<u32>,
    /// `initial-window` (RFC 4782) or `halve`.
    pub failure: Option<String>,
    /// Echo Requests received (a receiver that knows Quick-Start).
    pub echo: Option<bool>,
}

fn pick<T: Copy>(ctx: &Ctx<'_>, at: &P, what: &str, name: &str, table: &[(&str, T)]) -> R<T> {
    table.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).ok_or_else(|| {
        let names: Vec<String> = table.iter().map(|(n, _)| n.to_string()).collect();
        ctx.err(at, unknown_name(what, name, &names))
    })
}

/// Applies `[tcp.quick_start]` at `at` over `c`.
pub(super) fn apply_tcp(ctx: &Ctx<'_>, at: &P, q: &RawTcpQuickStart, c: &mut QuickStartConfig) -> R<()> {
    if let Some(v) = q.request {
        c.request_at_start = v;
    }
    let max = match c.size {
        QsRequestSize::Static { bytes_per_sec } => bytes_per_sec,
        QsRequestSize::SizedToData { max_bytes_per_sec, .. } => max_bytes_per_sec,
    };
    let mut rate = max;
    if let Some(r) = q.rate {
        rate = r.0.as_bps() / 8;
        if rate == 0 {
            return Err(ctx.err(&at.k("rate"), "must be above 0 (the smallest request is 80kbps)"));
        }
    }
    let mut sized = matches!(c.size, QsRequestSize::SizedToData { .. });
    if let Some(s) = &q.size {
        sized = pick(ctx, &at.k("size"), "request size", s, &[("static", false), ("data", true)])?;
    }
    let mut guess = match c.size {
        QsRequestSize::SizedToData { rtt_guess, .. } => rtt_guess,
        _ => DEFAULT_RTT_GUESS,
    };
    if let Some(g) = q.rtt_guess {
        if g.0 == SimDuration::ZERO {
            return Err(ctx.err(&at.k("rtt_guess"), "must be above 0"));
        }
        guess = g.0;
    }
    c.size = if sized {
        QsRequestSize::SizedToData { max_bytes_per_sec: rate, rtt_guess: guess }
    } else {
        QsRequestSize::Static { bytes_per_sec: rate }
    };
    if let Some(d) = q.after_idle {
        c.request_after_idle = Some(d.0);
    }
    if let Some(s) = &q.on_handoff {
        c.on_handoff = pick(
            ctx,
            &at.k("on_handoff"),
            "hand-off response",
            s,
            &[("ignore", HandoffResponse::Ignore), ("slowstart", HandoffResponse::SlowStart), ("quickstart", HandoffResponse::QuickStart)],
        )?;
    }
    if let Some(v) = q.qsthresh {
        c.qsthresh = v;
    }
    if let Some(h) = q.header_overhead {
        if h > 120 {
            return Err(ctx.err(&at.k("header_overhead"), format!("{h} bytes is more than IPv4 + TCP headers can be (120)")));
        }
        c.header_overhead = h;
    }
    if let Some(s) = &q.failure {
        c.failure = pick(
            ctx,
            &at.k("failure"),
            "failure response",
            s,
            &[("initial-window", QsFailureResponse::InitialWindow), ("halve", QsFailureResponse::Halve)],
        )?;
    }
    if let Some(v) = q.echo {
        c.echo = v;
    }
    Ok(())
}

/// Thesis-era RTT guess for sized requests before a measurement (RFC 2988 §2's spirit; a
/// tenth of its 1 s would be as arbitrary): 100 ms.
pub const DEFAULT_RTT_GUESS: SimDuration = SimDuration::from_millis(100);

/// `[quick_start]`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawQuickStart {
    /// Quick-Start capable routers (interfaces).
    #[serde(default)]
    pub routers: Vec<RawQsRouter>,
    /// Scheduled vertical hand-offs.
    #[serde(default)]
    pub handoffs: Vec<RawHandoff>,
}

/// `[[quick_start.routers]]`: Quick-Start processing on a router's interfaces.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawQsRouter {
    /// The router node.
    pub node: String,
    /// Interfaces (link names) that process Requests; all of the node's links when absent.
    pub links: Option<Vec<String>>,
    /// `target` (default), `share`, `broken`.
    pub algorithm: Option<String>,
    /// Target's qs_thresh, (0, 1] (default 0.9).
    pub qs_thresh: Option<f64>,
    /// Share's ALLOC_RATE, (0, 1] (default 0.5).
    pub alloc_rate: Option<f64>,
    /// `peak` (default) or `ewma`.
    pub estimator: Option<String>,
    /// Peak estimator: number of intervals, 1-64 (default 5).
    pub intervals: Option<u32>,
    /// Peak estimator: interval length (default 150ms).
    pub interval: Option<Dur>,
    /// EWMA weight w of eq. 6.4, (0, 1] (default 0.01).
    pub ewma_weight: Option<f64>,
    /// `recent_qs_approvals` memory.
    pub approval_memory: Option<Dur>,
    /// `two-buckets` (ns-2, default) or `sliding`.
    pub memory: Option<String>,
    /// `zero` (default) or `untouched`.
    pub reject: Option<String>,
    /// Add the quantised approval to `recent_qs_approvals` (default false: the computed one).
    pub count_quantised: Option<bool>,
    /// Extreme Quick-Start (per-flow state).
    pub extreme: Option<bool>,
    /// Extreme QS: the router's per-flow RTT estimate (default 100ms).
    pub flow_rtt: Option<Dur>,
    /// Extreme QS: scale requests by the host's usage score (eq. 6.5).
    pub usage_score: Option<bool>,
    /// w of eq. 6.5 (default 0.2).
    pub usage_weight: Option<f64>,
    /// Extreme QS: the monitoring period after an approval over which the usage C of eq. 6.5
    /// is measured (default 1.5s, thesis L4592).
    pub usage_interval: Option<Dur>,
}

/// `[[quick_start.handoffs]]`: a vertical hand-off of node `mobile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawHandoff {
    /// Hand-off time.
    pub at: Dur,
    /// Break-before-make gap (0: make-before-break).
    pub gap: Option<Dur>,
    /// The mobile node.
    pub mobile: String,
    /// Links that go down at `at`.
    #[serde(default)]
    pub down: Vec<String>,
    /// Routes installed at `at + gap`.
    pub routes: Vec<RawHandoffRoute>,
    /// Send the explicit hand-off notification (default true).
    pub notify: Option<bool>,
    /// Delay of the notification after the new routes (default 0s).
    pub notify_delay: Option<Dur>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawHandoffRoute {
    /// Node where the route applies.
    pub node: String,
    /// Destination node.
    pub dst: String,
    /// Outgoing link (attached to `node`).
    pub link: String,
}

fn link_id(ctx: &Ctx<'_>, at: &P, links: &LinkTable, name: &str) -> R<usize> {
    links.ids.get(name).copied().ok_or_else(|| {
        let names: Vec<String> = links.specs.iter().map(|l| l.name.clone()).collect();
        ctx.err(at, unknown_name("link", name, &names))
    })
}

fn positive(ctx: &Ctx<'_>, at: &P, v: f64) -> R<f64> {
    if !(v > 0.0 && v <= 1.0) {
        return Err(ctx.err(at, format!("{v} must be above 0 and at most 1")));
    }
    Ok(v)
}

/// Builds `[quick_start]`.
pub(super) fn build(ctx: &Ctx<'_>, raw: Option<&RawQuickStart>, nodes: &NodeTable, links: &LinkTable) -> R<QuickStartSpec> {
    let Some(raw) = raw else { return Ok(QuickStartSpec::default()) };
    let mut out = QuickStartSpec::default();
    for (i, r) in raw.routers.iter().enumerate() {
        let at = p("quick_start").k("routers").i(i);
        let node = nodes.lookup(ctx, &at.k("node"), &r.node)?;
        let mut ls = Vec::new();
        for (j, name) in r.links.iter().flatten().enumerate() {
            let l = link_id(ctx, &at.k("links").i(j), links, name)?;
            let spec = &links.specs[l];
            if spec.a != node && spec.b != node {
                return Err(ctx.err(&at.k("links").i(j), format!("link \"{name}\" is not attached to \"{}\"", r.node)));
            }
            ls.push(l);
        }
        let mut c = QsRouterConfig::default();
        let alg = r.algorithm.as_deref().unwrap_or("target");
        c.algorithm = match pick(ctx, &at.k("algorithm"), "algorithm", alg, &[("target", 0), ("share", 1), ("broken", 2)])? {
            0 => QsAlgorithm::Target { qs_thresh: positive(ctx, &at.k("qs_thresh"), r.qs_thresh.unwrap_or(crate::sim::quickstart::DEFAULT_QS_THRESH))? },
            1 => QsAlgorithm::Share { alloc_rate: positive(ctx, &at.k("alloc_rate"), r.alloc_rate.unwrap_or(DEFAULT_ALLOC_RATE))? },
            _ => QsAlgorithm::Broken,
        };
        let est = r.estimator.as_deref().unwrap_or("peak");
        c.estimator = if pick(ctx, &at.k("estimator"), "estimator", est, &[("peak", true), ("ewma", false)])? {
            let n = r.intervals.unwrap_or(crate::sim::quickstart::estimator::DEFAULT_PEAK_INTERVALS);
            if n == 0 || n > MAX_PEAK_INTERVALS {
                return Err(ctx.err(&at.k("intervals"), format!("{n} is out of range (1 to {MAX_PEAK_INTERVALS})")));
            }
            let iv = r.interval.map_or(crate::sim::quickstart::estimator::DEFAULT_PEAK_INTERVAL, |d| d.0);
            if iv == SimDuration::ZERO {
                return Err(ctx.err(&at.k("interval"), "must be above 0"));
            }
            EstimatorKind::Peak { intervals: n, interval: iv }
        } else {
            EstimatorKind::Ewma { w: positive(ctx, &at.k("ewma_weight"), r.ewma_weight.unwrap_or(DEFAULT_EWMA_WEIGHT))? }
        };
        if let Some(d) = r.approval_memory {
            if d.0 == SimDuration::ZERO {
                return Err(ctx.err(&at.k("approval_memory"), "must be above 0"));
            }
            c.approval_memory = d.0;
        }
        if let Some(m) = &r.memory {
            c.memory = pick(ctx, &at.k("memory"), "memory", m, &[("two-buckets", ApprovalMemory::TwoBuckets), ("sliding", ApprovalMemory::Sliding)])?;
        }
        if let Some(m) = &r.reject {
            c.reject = pick(ctx, &at.k("reject"), "rejection", m, &[("zero", RejectAction::Zero), ("untouched", RejectAction::Untouched)])?;
        }
        c.count_quantised = r.count_quantised.unwrap_or(false);
        if r.extreme.unwrap_or(false) {
            let flow_rtt = r.flow_rtt.map_or(DEFAULT_FLOW_RTT, |d| d.0);
            if flow_rtt == SimDuration::ZERO {
                return Err(ctx.err(&at.k("flow_rtt"), "must be above 0"));
            }
            let w = prob(ctx, &at.k("usage_weight"), r.usage_weight.unwrap_or(DEFAULT_SCORE_WEIGHT))?;
            let usage_interval = r.usage_interval.map_or(DEFAULT_USAGE_INTERVAL, |d| d.0);
            if usage_interval == SimDuration::ZERO {
                return Err(ctx.err(&at.k("usage_interval"), "must be above 0"));
            }
            c.extreme = Some(ExtremeConfig { flow_rtt, usage_score: r.usage_score.unwrap_or(false), w, usage_interval });
        }
        out.routers.push(QsRouterSpec { node, links: ls, config: c });
    }
    for (i, h) in raw.handoffs.iter().enumerate() {
        let at = p("quick_start").k("handoffs").i(i);
        let mobile = nodes.lookup(ctx, &at.k("mobile"), &h.mobile)?;
        let mut down = Vec::new();
        for (j, name) in h.down.iter().enumerate() {
            down.push(link_id(ctx, &at.k("down").i(j), links, name)?);
        }
        let mut routes = Vec::new();
        for (j, r) in h.routes.iter().enumerate() {
            let rat = at.k("routes").i(j);
            let node = nodes.lookup(ctx, &rat.k("node"), &r.node)?;
            let dst = nodes.lookup(ctx, &rat.k("dst"), &r.dst)?;
            let link = link_id(ctx, &rat.k("link"), links, &r.link)?;
            let l = &links.specs[link];
            if l.a != node && l.b != node {
                return Err(ctx.err(&rat.k("link"), format!("link \"{}\" is not attached to \"{}\"", r.link, r.node)));
            }
            routes.push(RouteSpec { node, dst, link });
        }
        out.handoffs.push(HandoffSpec {
            at: h.at.0,
            gap: h.gap.map_or(SimDuration::ZERO, |d| d.0),
            mobile,
            down,
            routes,
            notify: h.notify.unwrap_or(true),
            notify_delay: h.notify_delay.map_or(SimDuration::ZERO, |d| d.0),
        });
    }
    Ok(out)
}

/// Fig 6.11's Share runs vary ALLOC_RATE; 0.5 is the value of §9 item 7's example.
pub const DEFAULT_ALLOC_RATE: f64 = 0.5;
/// Fig 6.13 varies w; 0.01 (an effective memory of about 100 departures, `−1/ln(1−w)`).
pub const DEFAULT_EWMA_WEIGHT: f64 = 0.01;
/// Fig 6.15: RTTs 80–120 ms; 100 ms is the router's per-flow RTT estimate by default.
pub const DEFAULT_FLOW_RTT: SimDuration = SimDuration::from_millis(100);

/// `[tcp.quick_start]` as it would be written for `c` (the resolved document, `tcp_values`).
pub(super) fn tcp_values(c: &QuickStartConfig) -> toml::Table {
    let mut t = toml::Table::new();
    let dur = |d: SimDuration| toml::Value::String(format!("{}ns", d.as_nanos()));
    t.insert("request".into(), c.request_at_start.into());
    let (rate, sized, guess) = match c.size {
        QsRequestSize::Static { bytes_per_sec } => (bytes_per_sec, false, None),
        QsRequestSize::SizedToData { max_bytes_per_sec, rtt_guess } => (max_bytes_per_sec, true, Some(rtt_guess)),
    };
    t.insert("rate".into(), toml::Value::String(format!("{}bps", rate * 8)));
    t.insert("size".into(), (if sized { "data" } else { "static" }).into());
    if let Some(g) = guess {
        t.insert("rtt_guess".into(), dur(g));
    }
    if let Some(d) = c.request_after_idle {
        t.insert("after_idle".into(), dur(d));
    }
    let h = match c.on_handoff {
        HandoffResponse::Ignore => "ignore",
        HandoffResponse::SlowStart => "slowstart",
        HandoffResponse::QuickStart => "quickstart",
    };
    t.insert("on_handoff".into(), h.into());
    t.insert("qsthresh".into(), c.qsthresh.into());
    t.insert("header_overhead".into(), toml::Value::Integer(i64::from(c.header_overhead)));
    let f = match c.failure {
        QsFailureResponse::InitialWindow => "initial-window",
        QsFailureResponse::Halve => "halve",
    };
    t.insert("failure".into(), f.into());
    t.insert("echo".into(), c.echo.into());
    t
}

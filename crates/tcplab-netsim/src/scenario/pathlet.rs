//! `[pathlet]` (the Pathlet Transport Architecture, seed 004) and `[host_cache]` (RFC 9040
//! temporal sharing): the routers and the host-level state that connections with
//! `tcp.sharing = "pathlet"` / `"host"` use. See docs/scenarios.md and `sim/pathlet/`.
//!
//! ```toml
//! [pathlet]
//! routers = ["p1", "p2", "g1"]   # pathlet routers (ID = their IPv4 address)
//! slots = 6                      # discovery slots a sender allocates (8 + 4*slots bytes)
//! periods = 4                    # N: periods remembered by the update algorithm
//! default_period = "1s"          # T before a pathlet has an RTT sample
//! share = "even"                 # initial window sharing within an RTT: even | split | budget | none
//! congested_flight = "period_max" # FlightSize_F halved by rule (b): period_max | at_signal
//! loss_is_congestion = true      # 004 §V-C: a retransmission counts on every pathlet
//! initial_rto = false            # initial RTO from MIN_RTT / AVG_RTT
//! ssthresh = false               # initial ssthresh from SAFE_SSTHRESH
//!
//! [host_cache]
//! cwnd = true                    # RFC 9040 §8.1: share cwnd / ssthresh / RTT
//! ssthresh = true
//! rtt = true
//! ```

use super::topology::NodeTable;
use super::values::{unknown_name, Dur, R};
use super::{p, Ctx};
use crate::spec::{NodeKind, PathletSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use tcplab_tcp::startup::host_cache::HostCacheConfig;
use tcplab_tcp::startup::pathlet::IwShare;
use tcplab_tcp::startup::pathlet_table::CongestedFlight;
use tcplab_tcp::startup::pathlet_header::MAX_SLOTS;
use tcplab_time::SimDuration;

/// `[pathlet]`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPathlet {
    /// Routers that act as pathlet routers (004 §II-A): they write their ID (their IPv4
    /// address) into a discovery slot and into the Congested Pathlet field of CE-marked packets.
    /// Router nodes only.
    #[serde(default)]
    pub routers: Vec<String>,
    /// Discovery slots a sender allocates in its Pathlet header, 1-8 (the header is 8 + 4·slots
    /// bytes; an IPv4 header holds 40 bytes of options). Default from: 004 §V-B, six AS hops,
    /// "32 bytes".
    #[schemars(range(min = 1, max = 8), extend("default" = 6))]
    pub slots: Option<u8>,
    /// N of the update algorithm (004 §III-C): SAFE_CWND rises only after N congestion-free
    /// periods. Default from: not in the paper; 4.
    #[schemars(range(min = 1), extend("default" = 4))]
    pub periods: Option<u32>,
    /// The period T of a pathlet before it has an RTT sample (afterwards its AVG_RTT, 004
    /// §III-C). Default from: RFC 6298's initial RTO, 1 s.
    #[schemars(extend("default" = "1s"))]
    pub default_period: Option<Dur>,
    /// How flows started over the bottleneck pathlet within one RTT share the initial window
    /// (004 §III-D): `even` (a flow gets ICW/k, k the flows started in the last RTT, itself
    /// included), `split` (fixed RTT windows, the k-th flow of one gets ICW/k), `budget` (each
    /// gets what the earlier ones of its window left, at least 1 segment), `none` (all get ICW).
    /// Default from: `even`, the paper's "shared between all flows started ... within a
    /// round-trip time" and "distribute the initial window evenly".
    #[serde(default)]
    #[schemars(schema_with = "share_names", extend("default" = "even"))]
    pub share: Option<String>,
    /// Rule (b) of 004 §III-C halves a congested flow's FlightSize_F: `period_max` (its largest
    /// flight in the pathlet's current period, the per-flow value rule (a) uses) or
    /// `at_signal` (its flight at the ACK carrying the indication). Default from: `period_max`
    /// (004 §III-C: "the host uses its information of per flow flight size").
    #[serde(default)]
    #[schemars(schema_with = "congested_flight_names", extend("default" = "period_max"))]
    pub congested_flight: Option<String>,
    /// 004 §V-C: a retransmission (a loss without pathlet information) counts as a congestion
    /// indication on every pathlet of the path. Default from: the paper's rule, on.
    #[schemars(extend("default" = true))]
    pub loss_is_congestion: Option<bool>,
    /// 004 §II-B: the initial RTO from the pathlet table (3 × AVG_RTT of the path's pathlet
    /// with the largest MIN_RTT, path = the last one discovered to the destination). Default
    /// from: off (the paper evaluates the initial window only).
    #[schemars(extend("default" = false))]
    pub initial_rto: Option<bool>,
    /// 004 §II-B: the initial ssthresh from SAFE_SSTHRESH (the smallest over the path).
    /// Default from: off (the paper evaluates the initial window only).
    #[schemars(extend("default" = false))]
    pub ssthresh: Option<bool>,
}

/// `[host_cache]`: what RFC 9040 temporal sharing shares (connections with
/// `tcp.sharing = "host"`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawHostCache {
    /// Start with the cwnd the last connection to the host closed with. Default from: on (RFC
    /// 2140 §3 temporal sharing).
    #[schemars(extend("default" = true))]
    pub cwnd: Option<bool>,
    /// Start with the last finite ssthresh. Default from: RFC 9040 §8.1, on.
    #[schemars(extend("default" = true))]
    pub ssthresh: Option<bool>,
    /// Start with the initial RTO from the cached RTT and RTTVAR. Default from: RFC 9040 §8.1,
    /// on.
    #[schemars(extend("default" = true))]
    pub rtt: Option<bool>,
}

fn share_names(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = IwShare::ALL.iter().map(|k| k.name()).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
}

fn congested_flight_names(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = CongestedFlight::ALL.iter().map(|k| k.name()).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
}

/// Checks `[pathlet]`.
pub(super) fn build(ctx: &Ctx<'_>, raw: Option<&RawPathlet>, nodes: &NodeTable) -> R<PathletSpec> {
    let mut out = PathletSpec::default();
    let Some(raw) = raw else { return Ok(out) };
    let at = p("pathlet");
    for (i, name) in raw.routers.iter().enumerate() {
        let n = nodes.lookup(ctx, &at.k("routers").i(i), name)?;
        if nodes.specs[n].kind != NodeKind::Router {
            return Err(ctx.err(&at.k("routers").i(i), format!("\"{name}\" is a host; pathlet routers are routers")));
        }
        if out.routers.contains(&n) {
            return Err(ctx.err(&at.k("routers").i(i), format!("\"{name}\" is listed twice")));
        }
        out.routers.push(n);
    }
    if let Some(s) = raw.slots {
        if s == 0 || usize::from(s) > MAX_SLOTS {
            return Err(ctx.err(&at.k("slots"), format!("{s} is out of range (1 to {MAX_SLOTS}: 8 + 4·slots bytes of IPv4 options, at most 40)")));
        }
        out.slots = s;
    }
    if let Some(n) = raw.periods {
        if n == 0 {
            return Err(ctx.err(&at.k("periods"), "must be at least 1"));
        }
        out.table.periods = n;
    }
    if let Some(d) = raw.default_period {
        if d.0 == SimDuration::ZERO {
            return Err(ctx.err(&at.k("default_period"), "must be above 0"));
        }
        out.table.default_period = d.0;
    }
    if let Some(s) = &raw.share {
        let names: Vec<String> = IwShare::ALL.iter().map(|k| k.name().to_string()).collect();
        out.share = IwShare::by_name(s).ok_or_else(|| ctx.err(&at.k("share"), unknown_name("share", s, &names)))?;
    }
    if let Some(s) = &raw.congested_flight {
        let names: Vec<String> = CongestedFlight::ALL.iter().map(|k| k.name().to_string()).collect();
        out.table.congested_flight = CongestedFlight::by_name(s)
            .ok_or_else(|| ctx.err(&at.k("congested_flight"), unknown_name("congested_flight", s, &names)))?;
    }
    if let Some(v) = raw.loss_is_congestion {
        out.loss_is_congestion = v;
    }
    if let Some(v) = raw.initial_rto {
        out.initial_rto = v;
    }
    if let Some(v) = raw.ssthresh {
        out.ssthresh = v;
    }
    Ok(out)
}

/// Checks `[host_cache]`.
pub(super) fn build_cache(raw: Option<&RawHostCache>) -> HostCacheConfig {
    let mut c = HostCacheConfig::default();
    if let Some(r) = raw {
        c.cwnd = r.cwnd.unwrap_or(c.cwnd);
        c.ssthresh = r.ssthresh.unwrap_or(c.ssthresh);
        c.rtt = r.rtt.unwrap_or(c.rtt);
    }
    c
}

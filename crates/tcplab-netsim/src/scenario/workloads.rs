//! `[[workloads]]`: traffic sources that open connections during the run (`sim::traffic`).
//!
//! ```toml
//! [[workloads]]
//! name = "web"                      # label (errors, --set)
//! kind = "poisson"                  # or "web" (below)
//! senders = ["s1", "s2"]            # each connection picks one sender ...
//! receivers = ["g1r1", "g1r2"]      # ... and one receiver, uniformly at random
//! mean_interarrival = "100ms"       # exponential inter-arrival times of this mean
//! size = { dist = "pareto", mean = "40KB", shape = 1.5 }   # or a fixed size: "40KB"
//! start = "0s"                      # first arrival one inter-arrival after this
//! stop = "50s"                      # no arrival after this (default: end of run)
//! max_flows = 1000                  # at most this many connections (default: no limit)
//! tcp = { initial_window = 3 }      # on top of [tcp]
//!
//! [[workloads]]                     # ns-2 PagePool/WebTraf-style web traffic (002 §6.4)
//! kind = "web"
//! senders = ["srv1", "srv2"]        # the web servers: each page picks one
//! receivers = ["cli1", "cli2"]      # the web clients: each session picks one
//! sessions = 10
//! pages_per_session = 30            # default 30
//! inter_page = "0.8s"               # exponential mean, page launch to page launch (default)
//! objects_per_page = 10             # one connection per object (default 10)
//! inter_object = "10ms"             # exponential mean (default)
//! object_size = { mean = 400, shape = 1.002 }   # Pareto-II, packets of tcp.mss (default)
//! ```

use super::tcp::{self, RawTcp};
use super::topology::NodeTable;
use super::values::{check_name, describe, quantity_text, Dur, R};
use super::{p, Ctx};
use crate::spec::{NodeKind, PoissonSpec, SizeDist, WebSpec, WorkloadSpec};
use super::values::ByteCount;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::borrow::Cow;
use tcplab_time::units::parse_bytes;
use tcplab_time::SimDuration;

/// A `[[workloads]]` entry.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    /// Label for messages; no spaces or dots. Defaults to `"workload<i>"`.
    pub name: Option<String>,
    /// The arrival process: `"poisson"` (exponential inter-arrival times,
    /// `crates/tcplab-netsim/src/sim/traffic/poisson.rs`) or `"web"` (ns-2 PagePool/WebTraf-style
    /// sessions of pages of objects, one connection per object,
    /// `crates/tcplab-netsim/src/sim/traffic/web.rs`).
    pub kind: RawWorkloadKind,
    /// Hosts a connection picks its sender from, uniformly at random (web: the servers, one
    /// picked per page).
    pub senders: Vec<String>,
    /// Hosts a connection picks its receiver from, uniformly at random; none of them a sender
    /// (web: the clients, one picked per session).
    pub receivers: Vec<String>,
    /// `poisson` (required): mean of the exponential inter-arrival times; > 0.
    pub mean_interarrival: Option<Dur>,
    /// `poisson` (required): flow size: bytes, or `{ dist = "pareto", mean = SIZE, shape = α }`
    /// (Pareto type I, scale x_m = mean·(α−1)/α, α > 1, rounded up to whole bytes; 004 §IV:
    /// mean 40 KB or 200 KB, shape 1.5).
    pub size: Option<RawSize>,
    /// `web` (required): number of sessions, each with its own client; ≥ 1.
    #[schemars(range(min = 1))]
    pub sessions: Option<u32>,
    /// `web`: pages each session requests (002 §6.4: 30).
    #[schemars(extend("default" = 30), range(min = 1))]
    pub pages_per_session: Option<u32>,
    /// `web`: mean of the exponential time from one page launch to the next (open loop; 002
    /// §6.4: "inter-page parameter of 0.8").
    #[schemars(extend("default" = "0.8s"))]
    pub inter_page: Option<Dur>,
    /// `web`: objects per page, one connection each (002 §6.4: 10).
    #[schemars(extend("default" = 10), range(min = 1))]
    pub objects_per_page: Option<u32>,
    /// `web`: mean of the exponential time between a page's object requests (ns-2's WebTraf
    /// examples: 10 ms).
    #[schemars(extend("default" = "10ms"))]
    pub inter_object: Option<Dur>,
    /// `web`: object size, `{ mean = PACKETS, shape = α, max = PACKETS }`: Pareto-II (ns-2
    /// `RandomVariable/ParetoII`, scale mean·(α−1)) in whole packets of `tcp.mss` bytes, at
    /// least 1, at most `max` if given (002 §6.4: mean 400 packets, shape 1.002).
    pub object_size: Option<RawObjectSize>,
    /// The first arrival comes one inter-arrival after this; before `simulation.duration`.
    #[schemars(extend("default" = "0s"))]
    pub start: Option<Dur>,
    /// No arrival after this (default: the end of the run).
    pub stop: Option<Dur>,
    /// At most this many connections (default: no limit).
    #[schemars(range(min = 1))]
    pub max_flows: Option<u64>,
    /// Overrides of `[tcp]` for this workload's connections (same keys).
    pub tcp: Option<RawTcp>,
}

/// `kind`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawWorkloadKind {
    /// Poisson arrivals.
    Poisson,
    /// Web sessions (ns-2 PagePool/WebTraf style).
    Web,
}

/// `object_size` of a web workload.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawObjectSize {
    /// Mean object size in packets (ns-2 `avg_`); > 0.
    #[schemars(extend("default" = 400))]
    pub mean: Option<f64>,
    /// Pareto-II shape (ns-2 `shape_`); > 1.
    #[schemars(extend("default" = 1.002))]
    pub shape: Option<f64>,
    /// Cut larger objects to this many packets (default: no cap).
    #[schemars(range(min = 1))]
    pub max: Option<u64>,
}

pub use crate::sim::traffic::web::{
    WEB_INTER_OBJECT, WEB_INTER_PAGE, WEB_OBJECTS_PER_PAGE, WEB_OBJECT_MEAN_PACKETS, WEB_OBJECT_SHAPE, WEB_PAGES_PER_SESSION,
};

/// `size`: `"40KB"` or `{ dist = "pareto", mean = "40KB", shape = 1.5 }`.
#[derive(Debug, Clone, Copy)]
pub struct RawSize(pub SizeDist);
impl JsonSchema for RawSize {
    fn schema_name() -> Cow<'static, str> {
        "workload_size".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let bytes = ByteCount::json_schema(g);
        json_schema!({
            "anyOf": [
                bytes,
                {
                    "type": "object", "additionalProperties": false, "required": ["dist", "mean", "shape"],
                    "properties": {
                        "dist": { "const": "pareto" },
                        "mean": bytes,
                        "shape": { "type": "number", "exclusiveMinimum": 1 }
                    }
                }
            ],
            "x-values": "size, or `{ dist = \"pareto\", mean = SIZE, shape = α }`",
        })
    }
}
impl<'de> Deserialize<'de> for RawSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let bytes = |v: &toml::Value| -> Result<u64, String> {
            let s = quantity_text(v, "40KB")?;
            parse_bytes(&s).map(|b| b.0).map_err(|e| e.to_string())
        };
        match &v {
            toml::Value::Table(t) => {
                super::values::check_keys(t, &["dist", "mean", "shape"]).map_err(D::Error::custom)?;
                match t.get("dist") {
                    Some(toml::Value::String(k)) if k == "pareto" => {}
                    Some(other) => {
                        return Err(D::Error::custom(format!("dist: expected \"pareto\", found {}", describe(other))))
                    }
                    None => return Err(D::Error::custom("missing field `dist`")),
                }
                let mean = t.get("mean").ok_or_else(|| D::Error::custom("missing field `mean`"))?;
                let mean = bytes(mean).map_err(|e| D::Error::custom(format!("mean: {e}")))?;
                let shape = match t.get("shape") {
                    Some(toml::Value::Float(f)) => *f,
                    Some(toml::Value::Integer(i)) => *i as f64,
                    Some(other) => return Err(D::Error::custom(format!("shape: expected a number, found {}", describe(other)))),
                    None => return Err(D::Error::custom("missing field `shape`")),
                };
                Ok(RawSize(SizeDist::Pareto { mean: mean as f64, shape }))
            }
            other => bytes(other).map(|b| RawSize(SizeDist::Fixed(b))).map_err(D::Error::custom),
        }
    }
}

/// Check `[[workloads]]` (each one's `TcpConfig` merges `[tcp]` and its own `tcp`).
pub(super) fn build(
    ctx: &Ctx<'_>,
    raw: &[RawWorkload],
    global_tcp: &RawTcp,
    nodes: &NodeTable,
    duration: SimDuration,
) -> R<Vec<WorkloadSpec>> {
    let mut out = Vec::with_capacity(raw.len());
    for (i, w) in raw.iter().enumerate() {
        let at = p("workloads").i(i);
        let name = match &w.name {
            Some(n) => {
                check_name(ctx, &at.k("name"), n)?;
                n.clone()
            }
            None => format!("workload{i}"),
        };
        let mut lists = [Vec::new(), Vec::new()];
        for (k, (key, names)) in [("senders", &w.senders), ("receivers", &w.receivers)].into_iter().enumerate() {
            if names.is_empty() {
                return Err(ctx.err(&at.k(key), "must name at least one host"));
            }
            for (j, n) in names.iter().enumerate() {
                let id = nodes.lookup(ctx, &at.k(key).i(j), n)?;
                if nodes.specs[id].kind != NodeKind::Host {
                    return Err(ctx.err(&at.k(key).i(j), format!("\"{n}\" is a router; flows run between hosts")));
                }
                lists[k].push(id);
            }
        }
        let [senders, receivers] = lists;
        if let Some(j) = receivers.iter().position(|r| senders.contains(r)) {
            return Err(ctx.err(&at.k("receivers").i(j), format!("\"{}\" is also a sender", w.receivers[j])));
        }
        let start = w.start.map(|d| d.0).unwrap_or_default();
        if start >= duration {
            return Err(ctx.err(&at.k("start"), format!("{start} is not before the end of the run (simulation.duration = {duration})")));
        }
        let stop = w.stop.map(|d| d.0);
        if stop.is_some_and(|s| s <= start) {
            return Err(ctx.err(&at.k("stop"), "must be after start"));
        }
        if w.max_flows == Some(0) {
            return Err(ctx.err(&at.k("max_flows"), "must be at least 1"));
        }
        let tcp = tcp::tcp_config(ctx, global_tcp, w.tcp.as_ref(), &at)?;
        // Keys of the other kind are mistakes, not silently ignored.
        let (kind, foreign) = match w.kind {
            RawWorkloadKind::Poisson => (
                "poisson",
                vec![
                    ("sessions", w.sessions.is_some()),
                    ("pages_per_session", w.pages_per_session.is_some()),
                    ("inter_page", w.inter_page.is_some()),
                    ("objects_per_page", w.objects_per_page.is_some()),
                    ("inter_object", w.inter_object.is_some()),
                    ("object_size", w.object_size.is_some()),
                ],
            ),
            RawWorkloadKind::Web => (
                "web",
                vec![
                    ("mean_interarrival", w.mean_interarrival.is_some()),
                    ("size", w.size.is_some()),
                    ("max_flows", w.max_flows.is_some()),
                ],
            ),
        };
        if let Some((key, _)) = foreign.iter().find(|(_, given)| *given) {
            return Err(ctx.err(&at.k(key), format!("not a key of kind = \"{kind}\"")));
        }
        match w.kind {
            RawWorkloadKind::Poisson => {
                let Some(mean_interarrival) = w.mean_interarrival else {
                    return Err(ctx.err(&at, "missing key `mean_interarrival` (kind = \"poisson\")"));
                };
                let Some(size) = w.size else {
                    return Err(ctx.err(&at, "missing key `size` (kind = \"poisson\")"));
                };
                if mean_interarrival.0 == SimDuration::ZERO {
                    return Err(ctx.err(&at.k("mean_interarrival"), "must be greater than zero"));
                }
                match size.0 {
                    SizeDist::Fixed(0) => return Err(ctx.err(&at.k("size"), "must be greater than zero")),
                    SizeDist::Pareto { mean, .. } if mean < 1.0 => {
                        return Err(ctx.err(&at.k("size").k("mean"), "must be greater than zero"))
                    }
                    SizeDist::Pareto { shape, .. } if !(shape > 1.0 && shape.is_finite()) => {
                        return Err(ctx.err(&at.k("size").k("shape"), format!("must be greater than 1 (a finite mean), got {shape}")))
                    }
                    _ => {}
                }
                out.push(WorkloadSpec::Poisson(PoissonSpec {
                    name,
                    senders,
                    receivers,
                    mean_interarrival: mean_interarrival.0,
                    size: size.0,
                    start,
                    stop,
                    max_flows: w.max_flows,
                    tcp,
                }));
            }
            RawWorkloadKind::Web => {
                let Some(sessions) = w.sessions else {
                    return Err(ctx.err(&at, "missing key `sessions` (kind = \"web\")"));
                };
                for (key, v) in [
                    ("sessions", Some(sessions)),
                    ("pages_per_session", w.pages_per_session),
                    ("objects_per_page", w.objects_per_page),
                ] {
                    if v == Some(0) {
                        return Err(ctx.err(&at.k(key), "must be at least 1"));
                    }
                }
                let size = w.object_size.unwrap_or(RawObjectSize { mean: None, shape: None, max: None });
                let mean = size.mean.unwrap_or(WEB_OBJECT_MEAN_PACKETS);
                if !(mean > 0.0 && mean.is_finite()) {
                    return Err(ctx.err(&at.k("object_size").k("mean"), format!("must be greater than zero, got {mean}")));
                }
                let shape = size.shape.unwrap_or(WEB_OBJECT_SHAPE);
                if !(shape > 1.0 && shape.is_finite()) {
                    return Err(ctx.err(&at.k("object_size").k("shape"), format!("must be greater than 1 (a finite mean), got {shape}")));
                }
                if size.max == Some(0) {
                    return Err(ctx.err(&at.k("object_size").k("max"), "must be at least 1"));
                }
                out.push(WorkloadSpec::Web(WebSpec {
                    name,
                    senders,
                    receivers,
                    sessions,
                    pages_per_session: w.pages_per_session.unwrap_or(WEB_PAGES_PER_SESSION),
                    inter_page: w.inter_page.map_or(WEB_INTER_PAGE, |d| d.0),
                    objects_per_page: w.objects_per_page.unwrap_or(WEB_OBJECTS_PER_PAGE),
                    inter_object: w.inter_object.map_or(WEB_INTER_OBJECT, |d| d.0),
                    object_mean_packets: mean,
                    object_shape: shape,
                    object_max_packets: size.max,
                    start,
                    stop,
                    tcp,
                }));
            }
        }
    }
    Ok(out)
}

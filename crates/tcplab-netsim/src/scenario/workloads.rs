//! `[[workloads]]`: traffic sources that open connections during the run (`sim::traffic`).
//!
//! ```toml
//! [[workloads]]
//! name = "web"                      # label (errors, --set)
//! kind = "poisson"                  # the only kind so far
//! senders = ["s1", "s2"]            # each connection picks one sender ...
//! receivers = ["g1r1", "g1r2"]      # ... and one receiver, uniformly at random
//! mean_interarrival = "100ms"       # exponential inter-arrival times of this mean
//! size = { dist = "pareto", mean = "40KB", shape = 1.5 }   # or a fixed size: "40KB"
//! start = "0s"                      # first arrival one inter-arrival after this
//! stop = "50s"                      # no arrival after this (default: end of run)
//! max_flows = 1000                  # at most this many connections (default: no limit)
//! tcp = { initial_window = 3 }      # on top of [tcp]
//! ```

use super::tcp::{self, RawTcp};
use super::topology::NodeTable;
use super::values::{check_name, describe, quantity_text, Dur, R};
use super::{p, Ctx};
use crate::spec::{NodeKind, PoissonSpec, SizeDist, WorkloadSpec};
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
    /// `crates/tcplab-netsim/src/sim/traffic/poisson.rs`).
    pub kind: RawWorkloadKind,
    /// Hosts a connection picks its sender from, uniformly at random.
    pub senders: Vec<String>,
    /// Hosts a connection picks its receiver from, uniformly at random; none of them a sender.
    pub receivers: Vec<String>,
    /// Mean of the exponential inter-arrival times; > 0.
    pub mean_interarrival: Dur,
    /// Flow size: bytes, or `{ dist = "pareto", mean = SIZE, shape = α }` (Pareto type I, scale
    /// x_m = mean·(α−1)/α, α > 1, rounded up to whole bytes; 004 §IV: mean 40 KB or 200 KB,
    /// shape 1.5).
    pub size: RawSize,
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
}

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
        if w.mean_interarrival.0 == SimDuration::ZERO {
            return Err(ctx.err(&at.k("mean_interarrival"), "must be greater than zero"));
        }
        match w.size.0 {
            SizeDist::Fixed(0) => return Err(ctx.err(&at.k("size"), "must be greater than zero")),
            SizeDist::Pareto { mean, .. } if mean < 1.0 => {
                return Err(ctx.err(&at.k("size").k("mean"), "must be greater than zero"))
            }
            SizeDist::Pareto { shape, .. } if !(shape > 1.0 && shape.is_finite()) => {
                return Err(ctx.err(&at.k("size").k("shape"), format!("must be greater than 1 (a finite mean), got {shape}")))
            }
            _ => {}
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
        let RawWorkloadKind::Poisson = w.kind;
        out.push(WorkloadSpec::Poisson(PoissonSpec {
            name,
            senders,
            receivers,
            mean_interarrival: w.mean_interarrival.0,
            size: w.size.0,
            start,
            stop,
            max_flows: w.max_flows,
            tcp,
        }));
    }
    Ok(out)
}

//! `[[links]]`: bandwidth, delay, queue, loss models per direction, and the wireless dynamics
//! (read in `dynamics`).

use super::dynamics::{self, dist, RawBandwidthStep, RawDist, RawReorder, RawSpikeDirection};
use super::topology::NodeTable;
use super::values::{check_name, describe, prob, quantity_text, unit_schema, BytesOrInf, Bw, Dur, R};
use super::values::{BYTE_UNITS, PACKET_UNITS};
use super::{Ctx, P};
use crate::spec::{DurationDist, LinkId, LinkSpec, LossSpec, QueueSpec};
use schemars::{json_schema, Schema, SchemaGenerator};
use serde::de::{Deserializer, Error as _};
use std::borrow::Cow;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashMap;
use tcplab_time::units::{parse_queue_limit, QueueLimit};
use tcplab_time::SimDuration;

/// The properties of a generated link (a `[[links]]` entry without name and endpoints).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(extend("x-values" = "link properties"))]
#[serde(deny_unknown_fields)]
pub struct RawLinkParams {
    /// Rate of each direction. Values: bandwidth, > 0.
    pub bandwidth: Bw,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Drop-tail limit of each direction's queue, in packets or bytes; > 0.
    #[schemars(extend("default" = "100pkt"))]
    pub queue: Option<RawQueue>,
    /// Loss model applied to both directions (each direction has its own RNG stream).
    pub loss: Option<RawLoss>,
    /// Per direction (a → b, b → a); cannot be combined with `loss`.
    pub loss_ab: Option<RawLoss>,
    /// Per direction (a → b, b → a); cannot be combined with `loss`.
    pub loss_ba: Option<RawLoss>,
    /// Delay spikes: the link stops delivering, then releases what it held, in order.
    #[serde(default)]
    #[schemars(schema_with = "dynamics::delay_spikes_schema")]
    pub delay_spikes: Option<toml::Value>,
    /// Which direction(s) the spikes hit (needs `delay_spikes`). Values: `"a->b"`, `"b->a"`,
    /// `"both"`.
    #[schemars(extend("default" = "both"))]
    pub spike_direction: Option<RawSpikeDirection>,
    /// Bytes the link can take in while a spike holds its output; the next packet waits in the
    /// queue until the spike ends (needs `delay_spikes`).
    #[schemars(extend("default" = "inf"))]
    pub link_buffer: Option<BytesOrInf>,
    /// Rate changes, both directions; times strictly increasing and before `simulation.duration`;
    /// before the first step `bandwidth` applies.
    pub bandwidth_schedule: Option<Vec<RawBandwidthStep>>,
    /// Packet reordering of both directions (each direction has its own RNG stream), see below.
    pub reorder: Option<RawReorder>,
    /// Per direction; cannot be combined with `reorder`.
    pub reorder_ab: Option<RawReorder>,
    /// Per direction; cannot be combined with `reorder`.
    pub reorder_ba: Option<RawReorder>,
}

/// A `[[links]]` entry: a full-duplex link between nodes `a` and `b`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLink {
    /// Unique link name (used by routes, `--set links.NAME...` and outputs); defaults to
    /// `"{a}-{b}"`.
    pub name: Option<String>,
    /// One end (a node name); "a → b" is the direction of `loss_ab`, `reorder_ab`.
    pub a: String,
    /// The other end (a node name other than `a`).
    pub b: String,
    /// Rate of each direction. Values: bandwidth, > 0.
    pub bandwidth: Bw,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Drop-tail limit of each direction's queue, in packets or bytes; > 0.
    #[schemars(extend("default" = "100pkt"))]
    pub queue: Option<RawQueue>,
    /// Loss model applied to both directions (each direction has its own RNG stream).
    pub loss: Option<RawLoss>,
    /// Per direction (a → b, b → a); cannot be combined with `loss`.
    pub loss_ab: Option<RawLoss>,
    /// Per direction (a → b, b → a); cannot be combined with `loss`.
    pub loss_ba: Option<RawLoss>,
    /// Delay spikes: the link stops delivering, then releases what it held, in order.
    #[serde(default)]
    #[schemars(schema_with = "dynamics::delay_spikes_schema")]
    pub delay_spikes: Option<toml::Value>,
    /// Which direction(s) the spikes hit (needs `delay_spikes`). Values: `"a->b"`, `"b->a"`,
    /// `"both"`.
    #[schemars(extend("default" = "both"))]
    pub spike_direction: Option<RawSpikeDirection>,
    /// Bytes the link can take in while a spike holds its output; the next packet waits in the
    /// queue until the spike ends (needs `delay_spikes`).
    #[schemars(extend("default" = "inf"))]
    pub link_buffer: Option<BytesOrInf>,
    /// Rate changes, both directions; times strictly increasing and before `simulation.duration`;
    /// before the first step `bandwidth` applies.
    pub bandwidth_schedule: Option<Vec<RawBandwidthStep>>,
    /// Packet reordering of both directions (each direction has its own RNG stream), see below.
    pub reorder: Option<RawReorder>,
    /// Per direction; cannot be combined with `reorder`.
    pub reorder_ab: Option<RawReorder>,
    /// Per direction; cannot be combined with `reorder`.
    pub reorder_ba: Option<RawReorder>,
}

/// Queue: `"20pkt"` (drop-tail) or `{ kind = "droptail", limit = "20pkt" }`.
#[derive(Debug, Clone, Copy)]
pub struct RawQueue(pub QueueLimit);
/// The queue disciplines the table form accepts.
const QUEUE_KINDS: &[&str] = &["droptail"];
impl JsonSchema for RawQueue {
    fn schema_name() -> Cow<'static, str> {
        "queue".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let units: Vec<&str> = PACKET_UNITS.iter().chain(BYTE_UNITS).copied().collect();
        let limit = unit_schema("queue limit", &units, &["100pkt", "64KB"]);
        json_schema!({
            "anyOf": [
                limit,
                {
                    "type": "object", "additionalProperties": false, "required": ["limit"],
                    "properties": { "kind": { "enum": QUEUE_KINDS }, "limit": limit }
                }
            ],
            "x-values": "queue limit (packets or size), or `{ kind = \"droptail\", limit = \"20pkt\" }`",
        })
    }
}
impl<'de> Deserialize<'de> for RawQueue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let limit_of = |v: &toml::Value| -> Result<QueueLimit, String> {
            let s = quantity_text(v, "100pkt")?;
            parse_queue_limit(&s).map_err(|e| e.to_string())
        };
        match &v {
            toml::Value::Table(t) => {
                for k in t.keys() {
                    if k != "kind" && k != "limit" {
                        return Err(D::Error::custom(format!(
                            "unknown field `{k}`, expected `kind` or `limit`"
                        )));
                    }
                }
                match t.get("kind") {
                    None => {}
                    Some(toml::Value::String(k)) if QUEUE_KINDS.contains(&k.as_str()) => {}
                    Some(toml::Value::String(k)) => {
                        return Err(D::Error::custom(format!(
                            "unknown variant `{k}`, expected `droptail`"
                        )))
                    }
                    Some(other) => {
                        return Err(D::Error::custom(format!(
                            "kind: expected \"droptail\", found {}",
                            describe(other)
                        )))
                    }
                }
                let limit =
                    t.get("limit").ok_or_else(|| D::Error::custom("missing field `limit`"))?;
                limit_of(limit).map(RawQueue).map_err(|e| D::Error::custom(format!("limit: {e}")))
            }
            other => limit_of(other).map(RawQueue).map_err(|e| {
                D::Error::custom(if other.is_str() {
                    e
                } else {
                    e.replace(&format!("\"{other}\""), &other.to_string())
                })
            }),
        }
    }
}

/// A loss model of one link direction, chosen by `model`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(extend("x-values" = "loss model (below)"))]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawLoss {
    /// No loss (the default).
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli {
        /// Loss probability per packet.
        #[schemars(range(min = 0.0, max = 1.0))]
        p: f64,
    },
    /// Two-state Markov chain: per packet move Good→Bad with `p_gb`, Bad→Good with `p_bg`, then
    /// lose the packet with the state's loss probability. The defaults are Gilbert's original
    /// channel.
    GilbertElliott {
        /// Per-packet probability Good → Bad.
        #[schemars(range(min = 0.0, max = 1.0))]
        p_gb: f64,
        /// Per-packet probability Bad → Good.
        #[schemars(range(min = 0.0, max = 1.0))]
        p_bg: f64,
        /// Loss probability in Good.
        #[serde(default = "ge_loss_good")]
        #[schemars(range(min = 0.0, max = 1.0))]
        loss_good: f64,
        /// Loss probability in Bad.
        #[serde(default = "ge_loss_bad")]
        #[schemars(range(min = 0.0, max = 1.0))]
        loss_bad: f64,
    },
    /// Deterministic, for tests: drop the listed 1-based occurrences of data segments
    /// (payload > 0, retransmissions counted) of flow `flow` on this direction. `flow` is the
    /// index in the *expanded* flow list (after `count`), the same flow id as in every output.
    /// Duplicates are merged.
    DropNth {
        /// Flow index in the expanded flow list (after `count`), the flow id of every output.
        flow: u64,
        /// 1-based occurrences of the flow's data segments to drop; duplicates are merged.
        #[schemars(length(min = 1), inner(range(min = 1)))]
        nth: Vec<u64>,
    },
    /// Time-driven link outages: Good and Bad periods alternate (starting Good), every packet
    /// that starts transmission in Bad is lost. Defaults are Sarolahti's Ch. 4 "bursty
    /// losses": `good = { uniform = ["0.1s", "20s"] }`, `bad = { exponential = "3.5s" }`. The
    /// periods depend on the seed and the link only, so `loss = { model = "outages" }` loses
    /// "all packets in both directions" at the same times.
    Outages {
        /// Length of Good periods (default uniform 0.1 s..20 s, Sarolahti Ch. 4).
        good: Option<RawDist>,
        /// Length of Bad periods, every packet lost (default exponential 3.5 s).
        bad: Option<RawDist>,
    },
}

/// Gilbert's original channel: the good state is loss-free ...
fn ge_loss_good() -> f64 {
    0.0
}
/// ... and the bad state loses every packet.
fn ge_loss_bad() -> f64 {
    1.0
}

/// ns-3's default drop-tail limit (`ns3::DropTailQueue` MaxSize "100p").
pub const DEFAULT_QUEUE: tcplab_time::units::QueueLimit =
    tcplab_time::units::QueueLimit::Packets(100);

/// Ch. 4 (L2466–2467): "The good state length is uniformly distributed between 0.1 seconds
/// and 20 seconds."
pub const OUTAGE_GOOD: (SimDuration, SimDuration) = (SimDuration::from_millis(100), SimDuration::from_secs(20));
/// Ch. 4 (L2467–2468): "The bad state duration is exponentially distributed with a mean of 3.5
/// seconds."
pub const OUTAGE_BAD_MEAN: SimDuration = SimDuration::from_millis(3500);

fn loss_spec(ctx: &Ctx<'_>, at: &P, r: &RawLoss, n_flows: usize) -> R<LossSpec> {
    Ok(match r {
        RawLoss::None => LossSpec::None,
        RawLoss::Bernoulli { p } => LossSpec::Bernoulli { p: prob(ctx, &at.k("p"), *p)? },
        RawLoss::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => LossSpec::GilbertElliott {
            p_gb: prob(ctx, &at.k("p_gb"), *p_gb)?,
            p_bg: prob(ctx, &at.k("p_bg"), *p_bg)?,
            loss_good: prob(ctx, &at.k("loss_good"), *loss_good)?,
            loss_bad: prob(ctx, &at.k("loss_bad"), *loss_bad)?,
        },
        RawLoss::DropNth { flow, nth } => {
            let flow_ok = usize::try_from(*flow).ok().filter(|f| *f < n_flows);
            let Some(flow) = flow_ok else {
                return Err(ctx.err(
                    &at.k("flow"),
                    format!("no flow {flow}: the scenario has {n_flows} flow{} (numbered from 0, after count expansion)", if n_flows == 1 { "" } else { "s" }),
                ));
            };
            if nth.is_empty() {
                return Err(ctx.err(&at.k("nth"), "must list at least one occurrence, like [3]"));
            }
            if let Some(j) = nth.iter().position(|n| *n == 0) {
                return Err(ctx.err(&at.k("nth").i(j), "occurrences count from 1"));
            }
            let mut sorted = nth.clone();
            sorted.sort_unstable();
            sorted.dedup();
            LossSpec::DropNth { flow, nth: sorted }
        }
        RawLoss::Outages { good, bad } => LossSpec::Outages {
            good: match good {
                Some(g) => dist(ctx, &at.k("good"), g)?,
                None => DurationDist::Uniform { lo: OUTAGE_GOOD.0, hi: OUTAGE_GOOD.1 },
            },
            bad: match bad {
                Some(b) => dist(ctx, &at.k("bad"), b)?,
                None => DurationDist::Exponential { mean: OUTAGE_BAD_MEAN },
            },
        },
    })
}

/// The checked links with their names, for resolving `[[routes]]`.
pub(super) struct LinkTable {
    pub ids: HashMap<String, LinkId>,
    pub specs: Vec<LinkSpec>,
}

/// Check the generated and listed links (`generated` tells their duplicate-name messages
/// apart); `n_flows` is the expanded flow count `drop_nth` may refer to.
pub(super) fn build(
    ctx: &Ctx<'_>,
    all_links: &[(RawLink, P, bool)],
    nodes: &NodeTable,
    n_flows: usize,
    duration: SimDuration,
) -> R<LinkTable> {
    let mut link_ids: HashMap<String, LinkId> = HashMap::new();
    let mut links = Vec::with_capacity(all_links.len());
    for (i, (l, at, generated)) in all_links.iter().enumerate() {
        let at = at.clone();
        let a = nodes.lookup(ctx, &at.k("a"), &l.a)?;
        let b = nodes.lookup(ctx, &at.k("b"), &l.b)?;
        if a == b {
            return Err(ctx.err(&at.k("b"), format!("a link cannot connect \"{}\" to itself", l.a)));
        }
        let name = match &l.name {
            Some(n) => {
                check_name(ctx, &at.k("name"), n)?;
                n.clone()
            }
            None => format!("{}-{}", l.a, l.b),
        };
        if link_ids.insert(name.clone(), i).is_some() {
            let (what, name_at) = match (generated, &l.name) {
                (true, _) => (" (generated by [topology])", at.clone()),
                (false, Some(_)) => ("", at.k("name")),
                (false, None) => {
                    (" (the default name \"a-b\"; give the link a name)", at.k("name"))
                }
            };
            return Err(ctx.err(&name_at, format!("link \"{name}\" is defined twice{what}")));
        }
        let queue = QueueSpec::DropTail { limit: l.queue.map(|q| q.0).unwrap_or(DEFAULT_QUEUE) };
        if let Some(RawQueue(
            tcplab_time::units::QueueLimit::Packets(0) | tcplab_time::units::QueueLimit::Bytes(0),
        )) = l.queue
        {
            return Err(ctx.err(&at.k("queue"), "limit must be greater than zero"));
        }
        if l.loss.is_some() && (l.loss_ab.is_some() || l.loss_ba.is_some()) {
            return Err(ctx.err(
                &at.k("loss"),
                "sets both directions; use either loss or loss_ab/loss_ba, not both",
            ));
        }
        let conv = |key: &str, raw: &Option<RawLoss>| -> R<LossSpec> {
            match raw {
                None => Ok(LossSpec::None),
                Some(r) => loss_spec(ctx, &at.k(key), r, n_flows),
            }
        };
        let (loss_ab, loss_ba) = if l.loss.is_some() {
            (conv("loss", &l.loss)?, conv("loss", &l.loss)?)
        } else {
            (conv("loss_ab", &l.loss_ab)?, conv("loss_ba", &l.loss_ba)?)
        };
        links.push(LinkSpec {
            name,
            a,
            b,
            bandwidth: l.bandwidth.0,
            delay: l.delay.0,
            queue,
            loss_ab,
            loss_ba,
            dynamics: dynamics::link_dynamics(ctx, &at, l, duration)?,
        });
    }
    Ok(LinkTable { ids: link_ids, specs: links })
}

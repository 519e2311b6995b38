//! `[[links]]`: bandwidth, delay, queue, loss models per direction, and the wireless dynamics
//! (read in `dynamics`).

use super::dynamics::{self, dist, RawBandwidthStep, RawDist, RawReorder, RawSpikeDirection};
use super::topology::NodeTable;
use super::values::{check_keys, check_name, describe, prob, quantity_text, unit_schema, BytesOrInf, Bw, Dur, R};
use super::values::{BYTE_UNITS, PACKET_UNITS};
use super::{Ctx, P};
use crate::spec::{DurationDist, LinkId, LinkSpec, LossSpec, QueueSpec, RedMode, RedSpec};
use schemars::{json_schema, Schema, SchemaGenerator};
use serde::de::{Deserializer, Error as _};
use std::borrow::Cow;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashMap;
use tcplab_time::units::{parse_bytes, parse_queue_limit, QueueLimit};
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
    /// Drop-tail limit of each direction's queue, in packets or bytes; > 0. `kind = "red"`: a
    /// RED queue in front of that buffer (see "RED queues").
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
    /// Drop-tail limit of each direction's queue, in packets or bytes; > 0. `kind = "red"`: a
    /// RED queue in front of that buffer (see "RED queues").
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

/// Queue: `"20pkt"` (drop-tail), `{ kind = "droptail", limit = "20pkt" }`, or RED:
/// `{ kind = "red", limit = "100pkt", min_th = "10%", max_th = "30%", ... }` (the RED keys and
/// their defaults in `sim::red`; thresholds are numbers in the mode's unit or percentages of
/// `limit`).
#[derive(Debug, Clone, Copy)]
pub struct RawQueue {
    pub limit: QueueLimit,
    pub red: Option<RedSpec>,
}
/// The queue disciplines the table form accepts.
const QUEUE_KINDS: &[&str] = &["droptail", "red"];
/// Keys of `{ kind = "red", ... }`.
const RED_KEYS: &[&str] =
    &["kind", "limit", "min_th", "max_th", "max_p", "w_q", "gentle", "mode", "ecn", "hard_drop", "small_packet", "max_packet"];
impl JsonSchema for RawQueue {
    fn schema_name() -> Cow<'static, str> {
        "queue".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let units: Vec<&str> = PACKET_UNITS.iter().chain(BYTE_UNITS).copied().collect();
        let limit = unit_schema("queue limit", &units, &["100pkt", "64KB"]);
        let threshold = json_schema!({
            "anyOf": [{ "type": "number", "minimum": 0 }, { "type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?%$" }]
        });
        let size = unit_schema("size", BYTE_UNITS, &["500B"]);
        json_schema!({
            "anyOf": [
                limit,
                {
                    "type": "object", "additionalProperties": false, "required": ["limit"],
                    "properties": { "kind": { "const": "droptail" }, "limit": limit }
                },
                {
                    "type": "object", "additionalProperties": false, "required": ["kind", "limit"],
                    "description": "RED (Floyd & Jacobson 1993) in front of a buffer of `limit` (docs/scenarios.md, RED queues)",
                    "properties": {
                        "kind": { "const": "red" },
                        "limit": limit,
                        "min_th": threshold, "max_th": threshold,
                        "max_p": { "type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.1 },
                        "w_q": { "type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.002 },
                        "gentle": { "type": "boolean", "default": false },
                        "mode": { "enum": ["packets", "bytes"] },
                        "ecn": { "type": "boolean", "default": true },
                        "hard_drop": { "type": "boolean", "default": true },
                        "small_packet": size,
                        "max_packet": size
                    }
                }
            ],
            "x-values": "queue limit (packets or size), `{ kind = \"droptail\", limit = \"20pkt\" }`, or `{ kind = \"red\", limit = ..., ... }`",
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
                let red = match t.get("kind") {
                    None => false,
                    Some(toml::Value::String(k)) if QUEUE_KINDS.contains(&k.as_str()) => k == "red",
                    Some(toml::Value::String(k)) => {
                        return Err(D::Error::custom(format!(
                            "unknown variant `{k}`, expected `droptail` or `red`"
                        )))
                    }
                    Some(other) => {
                        return Err(D::Error::custom(format!(
                            "kind: expected \"droptail\" or \"red\", found {}",
                            describe(other)
                        )))
                    }
                };
                if !red {
                    for k in t.keys() {
                        if k != "kind" && k != "limit" {
                            return Err(D::Error::custom(format!(
                                "unknown field `{k}`, expected `kind` or `limit` (RED keys need kind = \"red\")"
                            )));
                        }
                    }
                }
                check_keys(t, RED_KEYS).map_err(D::Error::custom)?;
                let limit =
                    t.get("limit").ok_or_else(|| D::Error::custom("missing field `limit`"))?;
                let limit = limit_of(limit).map_err(|e| D::Error::custom(format!("limit: {e}")))?;
                let red = if red { Some(red_spec(t, limit).map_err(D::Error::custom)?) } else { None };
                Ok(RawQueue { limit, red })
            }
            other => limit_of(other).map(|limit| RawQueue { limit, red: None }).map_err(|e| {
                D::Error::custom(if other.is_str() {
                    e
                } else {
                    e.replace(&format!("\"{other}\""), &other.to_string())
                })
            }),
        }
    }
}

/// The RED parameters of a `{ kind = "red", ... }` table with buffer `limit`. The mode defaults
/// to the limit's unit (packets for `"100pkt"`, bytes for `"64KB"`); a percentage threshold is
/// that share of the limit and needs the mode to be the limit's unit.
fn red_spec(t: &toml::Table, limit: QueueLimit) -> Result<RedSpec, String> {
    let d = RedSpec::default();
    let (cap, limit_mode) = match limit {
        QueueLimit::Packets(n) => (n as f64, RedMode::Packets),
        QueueLimit::Bytes(n) => (n as f64, RedMode::Bytes),
    };
    let mode = match t.get("mode") {
        None => limit_mode,
        Some(toml::Value::String(m)) if m == "packets" => RedMode::Packets,
        Some(toml::Value::String(m)) if m == "bytes" => RedMode::Bytes,
        Some(other) => return Err(format!("mode: expected \"packets\" or \"bytes\", found {}", describe(other))),
    };
    let num = |k: &str, default: f64| -> Result<f64, String> {
        match t.get(k) {
            None => Ok(default),
            Some(toml::Value::Integer(i)) => Ok(*i as f64),
            Some(toml::Value::Float(f)) => Ok(*f),
            Some(other) => Err(format!("{k}: expected a number, found {}", describe(other))),
        }
    };
    let threshold = |k: &str, default: f64| -> Result<f64, String> {
        match t.get(k) {
            Some(toml::Value::String(s)) => {
                let pct: f64 = s
                    .strip_suffix('%')
                    .and_then(|x| x.trim().parse().ok())
                    .ok_or_else(|| format!("{k}: expected a number or a percentage of limit like \"10%\", found \"{s}\""))?;
                if mode != limit_mode {
                    return Err(format!("{k}: a percentage of limit needs mode = \"{}\" (the limit's unit)", if limit_mode == RedMode::Packets { "packets" } else { "bytes" }));
                }
                Ok(cap * pct / 100.0)
            }
            _ => num(k, default),
        }
    };
    let flag = |k: &str, default: bool| -> Result<bool, String> {
        match t.get(k) {
            None => Ok(default),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(other) => Err(format!("{k}: expected true or false, found {}", describe(other))),
        }
    };
    let bytes = |k: &str, default: u32| -> Result<u32, String> {
        match t.get(k) {
            None => Ok(default),
            Some(v) => {
                let s = quantity_text(v, "500B").map_err(|e| format!("{k}: {e}"))?;
                let b = parse_bytes(&s).map_err(|e| format!("{k}: {e}"))?.0;
                u32::try_from(b).ok().filter(|b| *b > 0).ok_or_else(|| format!("{k}: must be between 1 B and 4 GB"))
            }
        }
    };
    let r = RedSpec {
        min_th: threshold("min_th", d.min_th)?,
        max_th: threshold("max_th", d.max_th)?,
        max_p: num("max_p", d.max_p)?,
        w_q: num("w_q", d.w_q)?,
        gentle: flag("gentle", d.gentle)?,
        mode,
        ecn: flag("ecn", d.ecn)?,
        hard_drop: flag("hard_drop", d.hard_drop)?,
        small_packet: bytes("small_packet", d.small_packet)?,
        max_packet: bytes("max_packet", d.max_packet)?,
    };
    if !(r.min_th >= 0.0 && r.min_th < r.max_th && r.max_th.is_finite()) {
        return Err(format!("min_th ({}) must be at least 0 and below max_th ({})", r.min_th, r.max_th));
    }
    if !(r.max_p > 0.0 && r.max_p <= 1.0) {
        return Err(format!("max_p: {} is not a probability in (0, 1]", r.max_p));
    }
    if !(r.w_q > 0.0 && r.w_q <= 1.0) {
        return Err(format!("w_q: {} must be in (0, 1]", r.w_q));
    }
    Ok(r)
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
        let queue = match l.queue {
            None => QueueSpec::DropTail { limit: DEFAULT_QUEUE },
            Some(RawQueue { limit, red: None }) => QueueSpec::DropTail { limit },
            Some(RawQueue { limit, red: Some(red) }) => QueueSpec::Red { limit, red },
        };
        if let QueueLimit::Packets(0) | QueueLimit::Bytes(0) = queue.limit() {
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
            dynamics: dynamics::link_dynamics(ctx, &at, l, duration, n_flows)?,
        });
    }
    Ok(LinkTable { ids: link_ids, specs: links })
}

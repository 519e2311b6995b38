//! `[[links]]`: bandwidth, delay, queue, loss models per direction, and the wireless dynamics
//! (read in `dynamics`).

use super::dynamics::{self, dist, RawBandwidthStep, RawDist, RawReorder, RawSpikeDirection};
use super::topology::NodeTable;
use super::values::{check_name, describe, prob, quantity_text, BytesOrInf, Bw, Dur, R};
use super::{Ctx, P};
use crate::spec::{DurationDist, LinkId, LinkSpec, LossSpec, QueueSpec};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::collections::HashMap;
use tcplab_time::units::{parse_queue_limit, QueueLimit};
use tcplab_time::SimDuration;

/// The properties of a generated link (a `[[links]]` entry without name and endpoints).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLinkParams {
    pub bandwidth: Bw,
    pub delay: Dur,
    pub queue: Option<RawQueue>,
    pub loss: Option<RawLoss>,
    pub loss_ab: Option<RawLoss>,
    pub loss_ba: Option<RawLoss>,
    pub delay_spikes: Option<toml::Value>,
    pub spike_direction: Option<RawSpikeDirection>,
    pub link_buffer: Option<BytesOrInf>,
    pub bandwidth_schedule: Option<Vec<RawBandwidthStep>>,
    /// Reordering of both directions (`{ p = 0.01, extra = "5ms" }`, `{ jitter = "2ms" }`).
    pub reorder: Option<RawReorder>,
    pub reorder_ab: Option<RawReorder>,
    pub reorder_ba: Option<RawReorder>,
}

/// A `[[links]]` entry: a full-duplex link between nodes `a` and `b`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLink {
    /// Defaults to `"{a}-{b}"`.
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub bandwidth: Bw,
    pub delay: Dur,
    pub queue: Option<RawQueue>,
    pub loss: Option<RawLoss>,
    pub loss_ab: Option<RawLoss>,
    pub loss_ba: Option<RawLoss>,
    /// Kept as a TOML value: an array of `{ at, duration }` or a table naming a process; read
    /// in `dynamics::link_dynamics` (so errors inside carry their full path).
    pub delay_spikes: Option<toml::Value>,
    pub spike_direction: Option<RawSpikeDirection>,
    pub link_buffer: Option<BytesOrInf>,
    pub bandwidth_schedule: Option<Vec<RawBandwidthStep>>,
    /// Reordering of both directions (`{ p = 0.01, extra = "5ms" }`, `{ jitter = "2ms" }`).
    pub reorder: Option<RawReorder>,
    pub reorder_ab: Option<RawReorder>,
    pub reorder_ba: Option<RawReorder>,
}

/// Queue: `"20pkt"` (drop-tail) or `{ kind = "droptail", limit = "20pkt" }`.
#[derive(Debug, Clone, Copy)]
pub struct RawQueue(pub QueueLimit);
/// The queue disciplines the table form accepts.
const QUEUE_KINDS: &[&str] = &["droptail"];
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
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawLoss {
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        #[serde(default = "ge_loss_good")]
        loss_good: f64,
        #[serde(default = "ge_loss_bad")]
        loss_bad: f64,
    },
    DropNth {
        flow: u64,
        nth: Vec<u64>,
    },
    /// Time-driven Good/Bad periods; the defaults are Sarolahti's Ch. 4 "bursty losses".
    Outages {
        good: Option<RawDist>,
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

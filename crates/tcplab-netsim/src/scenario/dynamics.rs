//! Wireless link dynamics of a link: `delay_spikes`, `spike_direction`, `link_buffer`,
//! `bandwidth_schedule` and `reorder`. Sources: Sarolahti's dissertation (seed 002); the
//! sentences are quoted in `sim::delay_spike` and docs/scenarios.md.

use super::link::RawLink;
use super::values::{describe, one_line_msg, prob, quantity_text, unquote_number, Bw, Dur, R};
use super::{Ctx, P};
use crate::spec::{DelaySpikeSpec, DurationDist, LinkDynamics, ReorderNthSpec, ReorderSpec, SpikeDirection};
use schemars::{json_schema, Schema, SchemaGenerator};
use serde::de::{Deserializer, Error as _};
use std::borrow::Cow;
use schemars::JsonSchema;
use serde::Deserialize;
use tcplab_time::units::parse_duration;
use tcplab_time::SimDuration;

/// `spike_direction`: which direction of the link the delay spikes hold up.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum RawSpikeDirection {
    /// Only packets from `a` to `b`.
    #[serde(rename = "a->b")]
    AtoB,
    /// Only packets from `b` to `a`.
    #[serde(rename = "b->a")]
    BtoA,
    /// Both directions (the default).
    #[serde(rename = "both")]
    Both,
}

/// `reorder`, `reorder_ab`, `reorder_ba`: see `sim::reorder`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawReorder {
    /// Share of packets held back by `extra` (netem's reorder percentage inverted: the share
    /// displaced); goes with `extra`.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p: Option<f64>,
    /// Extra propagation delay of a held-back packet (> 0 when `p` > 0); later packets overtake
    /// it.
    pub extra: Option<Dur>,
    /// Every packet arrives a further U[0, jitter) later (default 0).
    pub jitter: Option<Dur>,
    /// Deterministic instead of `p`: the listed 1-based data packets of flow `flow` (counted as
    /// `drop_nth` counts: payload > 0, retransmissions included) arrive `extra` later; not
    /// with `p` or `jitter`.
    #[schemars(length(min = 1), inner(range(min = 1)))]
    pub nth: Option<Vec<u64>>,
    /// The flow whose data packets `nth` counts (expanded flow index, default 0; needs `nth`).
    pub flow: Option<u64>,
}

/// One step of `bandwidth_schedule`: from `at` on, the link runs at `bandwidth`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBandwidthStep {
    /// When the step starts (strictly after the previous step, before `simulation.duration`).
    pub at: Dur,
    /// The rate of both directions from `at` on (> 0).
    pub bandwidth: Bw,
}

/// One entry of the list form `delay_spikes = [{ at = "10s", duration = "3s" }]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSpikeAt {
    /// Start of the spike, from the start of the run (before `simulation.duration`).
    pub at: Dur,
    /// Length of the spike (> 0); overlapping spikes merge.
    pub duration: Dur,
}

/// The table form: exactly one key naming the process.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RawSpikeProcess {
    /// Spikes at `first`, `first + period`, ... (`count` of them, or until the end of the run).
    Periodic(RawPeriodic),
    /// An alternating renewal process: a gap (`interval`), then a spike (`duration`).
    Random(RawRandom),
    /// Every packet that starts serialisation on the direction starts a spike with probability
    /// `p`, beginning when that packet would arrive (head-of-line blocking).
    PerPacket(RawPerPacket),
    /// At the end of every `period`, with probability `p`, a spike after which the link's
    /// bandwidth is drawn from `bandwidths`. Cannot be combined with `bandwidth_schedule`.
    Handover(RawHandover),
    /// One of the dissertation's processes by name.
    Preset(RawSpikePreset),
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPeriodic {
    /// Start of the first spike (before `simulation.duration`).
    pub first: Dur,
    /// Time from the start of one spike to the start of the next (> 0).
    pub period: Dur,
    /// Length of each spike (> 0).
    pub duration: Dur,
    /// Number of spikes (≥ 1); without it, until the end of the run.
    #[schemars(range(min = 1))]
    pub count: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRandom {
    /// Gap from the end of one spike to the start of the next (the first from time 0).
    pub interval: Option<RawDist>,
    /// Shorthand for `interval = { exponential = ... }`; use one of the two.
    pub mean_interval: Option<Dur>,
    /// Length of each spike.
    pub duration: RawDist,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPerPacket {
    /// Probability that a packet starts a spike.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p: f64,
    /// Length of each spike.
    pub duration: RawDist,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawHandover {
    /// Length of the period at whose end a hand-over may happen (> 0).
    pub period: Dur,
    /// Probability of a hand-over per period.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p: f64,
    /// Length of the hand-over's delay spike.
    pub duration: RawDist,
    /// Bandwidths drawn uniformly after each hand-over (each > 0).
    #[schemars(length(min = 1))]
    pub bandwidths: Vec<Bw>,
}

/// Named parameter sets from Sarolahti's dissertation (see [`spike_preset`]).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RawSpikePreset {
    /// Ch. 4 "sudden delays": p = 0.02 per packet, Exp(3.5 s).
    SuddenDelays,
    /// Ch. 5 type I: p = 0.01 per packet, Exp(3.5 s).
    Type1,
    /// Ch. 5 type II: hand-over every 2 s with p = 0.3, Exp(3.5 s), then 28.8/64/128 kb/s.
    Type2,
}

/// A duration distribution: `"3s"` (fixed), `{ exponential = "3.5s" }` (mean) or
/// `{ uniform = ["1s", "4s"] }`.
#[derive(Debug, Clone)]
pub enum RawDist {
    Fixed(SimDuration),
    Exponential(SimDuration),
    Uniform(SimDuration, SimDuration),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum RawDistTable {
    Exponential(Dur),
    Uniform([Dur; 2]),
}

impl JsonSchema for RawDist {
    fn schema_name() -> Cow<'static, str> {
        "duration_distribution".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let d = g.subschema_for::<Dur>();
        json_schema!({
            "anyOf": [
                d,
                {
                    "type": "object", "additionalProperties": false, "required": ["exponential"],
                    "properties": { "exponential": d }
                },
                {
                    "type": "object", "additionalProperties": false, "required": ["uniform"],
                    "properties": { "uniform": { "type": "array", "items": d, "minItems": 2, "maxItems": 2 } }
                }
            ],
            "x-values": "duration, `{ exponential = mean }` or `{ uniform = [lo, hi] }`",
        })
    }
}

/// The schema of `delay_spikes` (kept as a TOML value by the loader): the list form or one
/// process.
pub(super) fn delay_spikes_schema(g: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "array", "items": g.subschema_for::<RawSpikeAt>(), "minItems": 1 },
            g.subschema_for::<RawSpikeProcess>()
        ],
        "x-values": "list or table, see below",
    })
}

impl<'de> Deserialize<'de> for RawDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::Table(_) => match RawDistTable::deserialize(v.clone()) {
                Ok(RawDistTable::Exponential(m)) => Ok(RawDist::Exponential(m.0)),
                Ok(RawDistTable::Uniform([lo, hi])) => Ok(RawDist::Uniform(lo.0, hi.0)),
                Err(e) => Err(D::Error::custom(format!(
                    "{} (write \"3s\", {{ exponential = \"3.5s\" }} or {{ uniform = [\"1s\", \"4s\"] }})",
                    one_line_msg(&e.to_string())
                ))),
            },
            other => {
                let s = quantity_text(other, "3s").map_err(|e| {
                    D::Error::custom(format!(
                        "{e}, or a table like {{ exponential = \"3.5s\" }} or {{ uniform = [\"1s\", \"4s\"] }}"
                    ))
                })?;
                parse_duration(&s).map(RawDist::Fixed).map_err(|e| D::Error::custom(unquote_number(other, &s, e)))
            }
        }
    }
}

/// Ch. 4 (L2443–2446): "a packet is delayed with a probability of 0.02".
pub const SUDDEN_DELAYS_P: f64 = 0.02;
/// Ch. 5 (L3096–3097): "The probability of a delay event is 1 % per packet".
pub const TYPE1_P: f64 = 0.01;
/// Ch. 4 (L2446–2447) and Ch. 5 (L3097–3098, L3106): delay lengths "exponentially
/// distributed with a mean (delay) length of 3.5 seconds" / "3500 ms".
pub const SPIKE_MEAN: SimDuration = SimDuration::from_millis(3500);
/// Ch. 5 (L3107–3109): "in a 2-second period there is a 30 % probability that the host moves
/// to another cell and the bandwidth changes".
pub const TYPE2_PERIOD: SimDuration = SimDuration::from_secs(2);
/// See [`TYPE2_PERIOD`].
pub const TYPE2_P: f64 = 0.3;
/// Ch. 5 (L3101–3103): "the link bandwidth is randomly selected to either 28.8 Kbps, 64 Kbps,
/// or 128 Kbps".
pub const TYPE2_BANDWIDTHS_BPS: [u64; 3] = [28_800, 64_000, 128_000];

pub(super) fn dist(ctx: &Ctx<'_>, at: &P, d: &RawDist) -> R<DurationDist> {
    Ok(match *d {
        RawDist::Fixed(x) if x.0 == 0 => return Err(ctx.err(at, "must be greater than zero")),
        RawDist::Fixed(x) => DurationDist::Fixed(x),
        RawDist::Exponential(m) if m.0 == 0 => {
            return Err(ctx.err(at, "the mean of an exponential must be greater than zero"))
        }
        RawDist::Exponential(mean) => DurationDist::Exponential { mean },
        RawDist::Uniform(lo, hi) if lo > hi => {
            return Err(ctx.err(at, format!("uniform bounds are reversed ({lo} > {hi})")))
        }
        RawDist::Uniform(lo, hi) => DurationDist::Uniform { lo, hi },
    })
}

/// `delay_spikes`, `spike_direction`, `link_buffer` and `bandwidth_schedule` of one link.
pub(super) fn link_dynamics(ctx: &Ctx<'_>, at: &P, l: &RawLink, run: SimDuration, n_flows: usize) -> R<LinkDynamics> {
    let mut d = LinkDynamics::default();
    let sp = at.k("delay_spikes");
    let positive = |at: &P, x: SimDuration| -> R<SimDuration> {
        if x.0 == 0 {
            Err(ctx.err(at, "must be greater than zero"))
        } else {
            Ok(x)
        }
    };
    let before_end = |at: &P, x: SimDuration| -> R<SimDuration> {
        if x >= run {
            Err(ctx.err(at, format!("{x} is not before the end of the run (simulation.duration = {run})")))
        } else {
            Ok(x)
        }
    };
    let prob = |at: &P, p: f64| prob(ctx, at, p);
    if let Some(v) = &l.delay_spikes {
        d.delay_spikes = match v {
            toml::Value::Array(_) => {
                let list: Vec<RawSpikeAt> = serde_path_to_error::deserialize(v.clone())
                    .map_err(|e| ctx.serde_error_at(&sp, e))?;
                if list.is_empty() {
                    return Err(ctx.err(&sp, "must list at least one spike, like [{ at = \"10s\", duration = \"3s\" }]"));
                }
                let mut out = Vec::with_capacity(list.len());
                for (i, s) in list.iter().enumerate() {
                    out.push((before_end(&sp.i(i).k("at"), s.at.0)?, positive(&sp.i(i).k("duration"), s.duration.0)?));
                }
                DelaySpikeSpec::Fixed(out)
            }
            toml::Value::Table(_) => {
                let process: RawSpikeProcess = serde_path_to_error::deserialize(v.clone())
                    .map_err(|e| ctx.serde_error_at(&sp, e))?;
                match process {
                    RawSpikeProcess::Periodic(p) => {
                        let at = sp.k("periodic");
                        if p.count == Some(0) {
                            return Err(ctx.err(&at.k("count"), "must be at least 1"));
                        }
                        DelaySpikeSpec::Periodic {
                            first: before_end(&at.k("first"), p.first.0)?,
                            period: positive(&at.k("period"), p.period.0)?,
                            duration: positive(&at.k("duration"), p.duration.0)?,
                            count: p.count,
                        }
                    }
                    RawSpikeProcess::Random(r) => {
                        let at = sp.k("random");
                        let interval = match (&r.interval, r.mean_interval) {
                            (Some(i), None) => dist(ctx, &at.k("interval"), i)?,
                            (None, Some(m)) => DurationDist::Exponential { mean: positive(&at.k("mean_interval"), m.0)? },
                            (Some(_), Some(_)) => {
                                return Err(ctx.err(&at.k("mean_interval"), "use either interval or mean_interval, not both"))
                            }
                            (None, None) => {
                                return Err(ctx.err(&at.k("interval"), "required key is missing (or give mean_interval)"))
                            }
                        };
                        DelaySpikeSpec::Random { interval, duration: dist(ctx, &at.k("duration"), &r.duration)? }
                    }
                    RawSpikeProcess::PerPacket(r) => {
                        let at = sp.k("per_packet");
                        DelaySpikeSpec::PerPacket {
                            p: prob(&at.k("p"), r.p)?,
                            duration: dist(ctx, &at.k("duration"), &r.duration)?,
                        }
                    }
                    RawSpikeProcess::Handover(h) => {
                        let at = sp.k("handover");
                        if h.bandwidths.is_empty() {
                            return Err(ctx.err(&at.k("bandwidths"), "must list at least one bandwidth, like [\"64kbps\"]"));
                        }
                        if let Some(j) = h.bandwidths.iter().position(|b| b.0.as_bps() == 0) {
                            return Err(ctx.err(&at.k("bandwidths").i(j), "must be greater than zero"));
                        }
                        DelaySpikeSpec::Handover {
                            period: positive(&at.k("period"), h.period.0)?,
                            p: prob(&at.k("p"), h.p)?,
                            duration: dist(ctx, &at.k("duration"), &h.duration)?,
                            bandwidths: h.bandwidths.iter().map(|b| b.0).collect(),
                        }
                    }
                    RawSpikeProcess::Preset(p) => spike_preset(p),
                }
            }
            other => {
                return Err(ctx.err(
                    &sp,
                    format!(
                        "expected a list like [{{ at = \"10s\", duration = \"3s\" }}] or a table like {{ preset = \"type1\" }}, found {}",
                        describe(other)
                    ),
                ))
            }
        };
    }
    if d.delay_spikes == DelaySpikeSpec::None {
        for (key, set) in [("spike_direction", l.spike_direction.is_some()), ("link_buffer", l.link_buffer.is_some())] {
            if set {
                return Err(ctx.err(&at.k(key), "has no effect without delay_spikes"));
            }
        }
    }
    d.spike_direction = match l.spike_direction {
        None | Some(RawSpikeDirection::Both) => SpikeDirection::Both,
        Some(RawSpikeDirection::AtoB) => SpikeDirection::AtoB,
        Some(RawSpikeDirection::BtoA) => SpikeDirection::BtoA,
    };
    d.link_buffer = l.link_buffer.and_then(|b| (b.0 != u64::MAX).then_some(b.0));
    if let Some(steps) = &l.bandwidth_schedule {
        let bs = at.k("bandwidth_schedule");
        if steps.is_empty() {
            return Err(ctx.err(&bs, "must list at least one step, like [{ at = \"20s\", bandwidth = \"128kbps\" }]"));
        }
        if matches!(d.delay_spikes, DelaySpikeSpec::Handover { .. }) {
            return Err(ctx.err(&bs, "cannot be combined with hand-over delay spikes (type2), which redraw the bandwidth"));
        }
        for (i, st) in steps.iter().enumerate() {
            if st.bandwidth.0.as_bps() == 0 {
                return Err(ctx.err(&bs.i(i).k("bandwidth"), "must be greater than zero"));
            }
            if i > 0 && steps[i - 1].at.0 >= st.at.0 {
                return Err(ctx.err(
                    &bs.i(i).k("at"),
                    format!("{} is not after the previous step ({})", st.at.0, steps[i - 1].at.0),
                ));
            }
            before_end(&bs.i(i).k("at"), st.at.0)?;
            d.bandwidth_schedule.push((st.at.0, st.bandwidth.0));
        }
    }
    if l.reorder.is_some() && (l.reorder_ab.is_some() || l.reorder_ba.is_some()) {
        return Err(ctx.err(&at.k("reorder"), "sets both directions; use either reorder or reorder_ab/reorder_ba, not both"));
    }
    let reorder = |key: &str, r: &Option<RawReorder>| match r {
        Some(r) => reorder_spec(ctx, &at.k(key), r, n_flows),
        None => Ok((None, None)),
    };
    let ((ab, nth_ab), (ba, nth_ba)) = if l.reorder.is_some() {
        (reorder("reorder", &l.reorder)?, reorder("reorder", &l.reorder)?)
    } else {
        (reorder("reorder_ab", &l.reorder_ab)?, reorder("reorder_ba", &l.reorder_ba)?)
    };
    (d.reorder_ab, d.reorder_ba, d.reorder_nth_ab, d.reorder_nth_ba) = (ab, ba, nth_ab, nth_ba);
    Ok(d)
}

/// One direction's `reorder` table (semantics in `sim::reorder`): the random model, or the
/// deterministic picks when `nth` is given.
fn reorder_spec(ctx: &Ctx<'_>, at: &P, r: &RawReorder, n_flows: usize) -> R<(Option<ReorderSpec>, Option<ReorderNthSpec>)> {
    if let Some(nth) = &r.nth {
        if r.p.is_some() {
            return Err(ctx.err(&at.k("p"), "cannot be combined with nth (nth picks the delayed packets itself)"));
        }
        if r.jitter.is_some() {
            return Err(ctx.err(&at.k("jitter"), "cannot be combined with nth"));
        }
        if nth.is_empty() {
            return Err(ctx.err(&at.k("nth"), "must list at least one occurrence, like [150]"));
        }
        if let Some(j) = nth.iter().position(|n| *n == 0) {
            return Err(ctx.err(&at.k("nth").i(j), "occurrences count from 1"));
        }
        let extra = match r.extra {
            Some(e) if e.0 > SimDuration::ZERO => e.0,
            _ => return Err(ctx.err(&at.k("extra"), "required with nth and greater than zero: the delay of each listed packet, like \"8ms\"")),
        };
        let want = r.flow.unwrap_or(0);
        let Some(flow) = usize::try_from(want).ok().filter(|f| *f < n_flows) else {
            return Err(ctx.err(
                &at.k("flow"),
                format!("no flow {want}: the scenario has {n_flows} flow(s) (numbered from 0, after count expansion)"),
            ));
        };
        let mut sorted = nth.clone();
        sorted.sort_unstable();
        sorted.dedup();
        return Ok((None, Some(ReorderNthSpec { flow, nth: sorted, extra })));
    }
    if r.flow.is_some() {
        return Err(ctx.err(&at.k("flow"), "needs nth (the flow whose listed data packets are delayed)"));
    }
    let p = match r.p {
        Some(p) if !(0.0..=1.0).contains(&p) => {
            return Err(ctx.err(&at.k("p"), format!("reorder probability must be in [0,1], not {p}")))
        }
        p => p,
    };
    let extra = r.extra.map(|d| d.0);
    let jitter = r.jitter.map_or(SimDuration::ZERO, |d| d.0);
    match (p, extra) {
        (Some(_), None) => return Err(ctx.err(&at.k("extra"), "required with p: the extra delay of a reordered packet, like \"5ms\"")),
        (None, Some(_)) => return Err(ctx.err(&at.k("p"), "required with extra: the share of packets delayed by extra, like 0.01")),
        (Some(p), Some(e)) if p > 0.0 && e == SimDuration::ZERO => {
            return Err(ctx.err(&at.k("extra"), "must be greater than zero"))
        }
        (None, None) if jitter == SimDuration::ZERO => {
            return Err(ctx.err(at, "set p and extra (like { p = 0.01, extra = \"5ms\" }) and/or a jitter greater than zero"))
        }
        _ => {}
    }
    Ok((Some(ReorderSpec { p: p.unwrap_or(0.0), extra: extra.unwrap_or(SimDuration::ZERO), jitter }), None))
}

/// The dissertation's delay-spike processes (constants above).
pub fn spike_preset(p: RawSpikePreset) -> DelaySpikeSpec {
    let duration = DurationDist::Exponential { mean: SPIKE_MEAN };
    match p {
        RawSpikePreset::SuddenDelays => DelaySpikeSpec::PerPacket { p: SUDDEN_DELAYS_P, duration },
        RawSpikePreset::Type1 => DelaySpikeSpec::PerPacket { p: TYPE1_P, duration },
        RawSpikePreset::Type2 => DelaySpikeSpec::Handover {
            period: TYPE2_PERIOD,
            p: TYPE2_P,
            duration,
            bandwidths: TYPE2_BANDWIDTHS_BPS.iter().map(|&b| tcplab_time::Bandwidth::bps(b)).collect(),
        },
    }
}

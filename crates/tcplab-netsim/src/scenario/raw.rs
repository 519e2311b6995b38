//! The file format as serde structs: what the TOML says, before cross-references are resolved.
//!
//! Every table denies unknown keys. Quantities are parsed while deserializing (so a unit error
//! carries its field path); names are resolved and ranges checked later in `build`.

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use tcplab_time::units::{
    parse_bandwidth, parse_bytes, parse_duration, parse_queue_limit, QueueLimit,
};
use tcplab_time::{Bandwidth, SimDuration};

/// Written instead of a byte count for "no limit" (initial ssthresh, send buffer).
pub const INF: &str = "inf";
/// Written instead of a transfer size for a bulk sender.
pub const UNLIMITED: &str = "unlimited";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub name: Option<String>,
    pub simulation: RawSimulation,
    #[serde(default)]
    pub tcp: RawTcp,
    #[serde(default)]
    pub nodes: Vec<RawNode>,
    #[serde(default)]
    pub links: Vec<RawLink>,
    #[serde(default)]
    pub routes: Vec<RawRoute>,
    #[serde(default)]
    pub flows: Vec<RawFlow>,
    /// Optional generator of nodes and links (added before `nodes` and `links`).
    pub topology: Option<RawTopology>,
}

/// `[topology]`: generate a standard topology instead of listing nodes and links.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTopology {
    pub kind: RawTopologyKind,
    /// Hosts on the left (`s1`..`sN`), attached to router `r1`.
    pub senders: u32,
    /// Hosts on the right (`d1`..`dM`), attached to router `r2`; defaults to `senders`.
    pub receivers: Option<u32>,
    /// The `r1`–`r2` link, named "bottleneck".
    pub bottleneck: RawLinkParams,
    /// Every host's link to its router.
    pub access: RawLinkParams,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawTopologyKind {
    Dumbbell,
}

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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSimulation {
    pub duration: Dur,
    pub seed: Option<u64>,
    pub timeseries_interval: Option<Dur>,
}

/// `[tcp]` and `flows[i].tcp`: every key optional; unset keys fall through to the next level
/// (flow → `[tcp]` → `TcpConfig::default()`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTcp {
    pub mss: Option<ByteCount>,
    pub initial_window: Option<RawInitialWindow>,
    pub initial_ssthresh: Option<BytesOrInf>,
    pub sack: Option<bool>,
    pub timestamps: Option<bool>,
    pub window_scale: Option<bool>,
    pub recv_buffer: Option<ByteCount>,
    pub send_buffer: Option<BytesOrInf>,
    pub min_rto: Option<Dur>,
    pub initial_rto: Option<Dur>,
    pub max_rto: Option<Dur>,
    pub clock_granularity: Option<Dur>,
    pub delayed_ack: Option<DelayedAck>,
    pub ack_every: Option<u32>,
    pub dupack_threshold: Option<u32>,
    pub limited_transmit: Option<bool>,
    pub recovery: Option<RawRecovery>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawRecovery {
    Sack,
    Newreno,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawNodeKind {
    Host,
    Router,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawNode {
    pub name: String,
    pub kind: RawNodeKind,
}

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
    /// in `build` (so errors inside carry their full path).
    pub delay_spikes: Option<toml::Value>,
    pub spike_direction: Option<RawSpikeDirection>,
    pub link_buffer: Option<BytesOrInf>,
    pub bandwidth_schedule: Option<Vec<RawBandwidthStep>>,
}

// ---------------------------------------------------------------------------------------------
// Wireless link dynamics (`delay_spikes`, `spike_direction`, `link_buffer`,
// `bandwidth_schedule`).

#[derive(Debug, Clone, Copy, Deserialize)]
pub enum RawSpikeDirection {
    #[serde(rename = "a->b")]
    AtoB,
    #[serde(rename = "b->a")]
    BtoA,
    #[serde(rename = "both")]
    Both,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBandwidthStep {
    pub at: Dur,
    pub bandwidth: Bw,
}

/// One entry of the list form `delay_spikes = [{ at = "10s", duration = "3s" }]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpikeAt {
    pub at: Dur,
    pub duration: Dur,
}

/// The table form: exactly one key naming the process.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RawSpikeProcess {
    Periodic(RawPeriodic),
    Random(RawRandom),
    PerPacket(RawPerPacket),
    Handover(RawHandover),
    Preset(RawSpikePreset),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPeriodic {
    pub first: Dur,
    pub period: Dur,
    pub duration: Dur,
    pub count: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRandom {
    pub interval: Option<RawDist>,
    /// Shorthand for `interval = { exponential = ... }`.
    pub mean_interval: Option<Dur>,
    pub duration: RawDist,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPerPacket {
    pub p: f64,
    pub duration: RawDist,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHandover {
    pub period: Dur,
    pub p: f64,
    pub duration: RawDist,
    pub bandwidths: Vec<Bw>,
}

/// Named parameter sets from Sarolahti's dissertation (see `build::spike_preset`).
#[derive(Debug, Clone, Copy, Deserialize)]
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

/// First line of a nested parser message, without trailing period.
fn one_line_msg(m: &str) -> String {
    m.lines().next().unwrap_or("").trim().trim_end_matches('.').replace('`', "\"")
}

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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRoute {
    pub node: String,
    pub dst: String,
    pub link: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFlow {
    /// Label only (for `--set flows.NAME.key=...` and messages).
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    pub start: Option<Dur>,
    pub size: FlowSize,
    pub tcp: Option<RawTcp>,
    pub count: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// Quantities: parsed from `toml::Value` so that numbers and wrong types get a helpful message.

/// Text of a quantity; a bare TOML number is turned into its text so that the unit parser
/// reports the missing unit with an example.
fn quantity_text(v: &toml::Value, example: &str) -> Result<String, String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        other => Err(format!(
            "expected a string with a unit like \"{example}\", found {}",
            describe(other)
        )),
    }
}

/// A unit parser's message about a bare TOML number shows the number as written (`30`, not
/// `"30"`), so the user is not told about quotes they never typed.
fn unquote_number(v: &toml::Value, s: &str, e: impl std::fmt::Display) -> String {
    let m = e.to_string();
    if v.is_str() {
        m
    } else {
        m.replace(&format!("\"{s}\""), s)
    }
}

/// "a boolean `true`" and the like, for messages.
pub fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the string \"{s}\""),
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("the boolean {b}"),
        toml::Value::Datetime(d) => format!("the date-time {d}"),
        toml::Value::Array(_) => "an array".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
    }
}

macro_rules! quantity {
    ($(#[$m:meta])* $name:ident, $inner:ty, $parse:expr, $example:expr) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name(pub $inner);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = toml::Value::deserialize(d)?;
                let s = quantity_text(&v, $example).map_err(D::Error::custom)?;
                ($parse)(&s).map($name).map_err(|e| D::Error::custom(unquote_number(&v, &s, e)))
            }
        }
    };
}

quantity!(
    /// A duration such as `"30ms"`.
    Dur, SimDuration, parse_duration, "30ms"
);
quantity!(
    /// A bandwidth such as `"10Mbps"`.
    Bw, Bandwidth, parse_bandwidth, "10Mbps"
);
quantity!(
    /// A byte count such as `"64KB"`.
    ByteCount, u64, |s: &str| parse_bytes(s).map(|b| b.0), "64KB"
);

/// Bytes, or `"inf"` for no limit (`u64::MAX`).
#[derive(Debug, Clone, Copy)]
pub struct BytesOrInf(pub u64);
impl<'de> Deserialize<'de> for BytesOrInf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        if v.as_str() == Some(INF) {
            return Ok(BytesOrInf(u64::MAX));
        }
        let s =
            quantity_text(&v, "64KB").map_err(|e| D::Error::custom(format!("{e} or \"inf\"")))?;
        parse_bytes(&s).map(|b| BytesOrInf(b.0)).map_err(|e| {
            D::Error::custom(format!("{} (or \"inf\" for no limit)", unquote_number(&v, &s, e)))
        })
    }
}

/// Transfer size: bytes, or `"unlimited"` for a bulk sender.
#[derive(Debug, Clone, Copy)]
pub struct FlowSize(pub Option<u64>);
impl<'de> Deserialize<'de> for FlowSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        if v.as_str() == Some(UNLIMITED) {
            return Ok(FlowSize(None));
        }
        let s = quantity_text(&v, "100MB")
            .map_err(|e| D::Error::custom(format!("{e} or \"unlimited\"")))?;
        parse_bytes(&s)
            .map(|b| FlowSize(Some(b.0)))
            .map_err(|e| D::Error::custom(format!("{e} (or \"unlimited\" for a bulk sender)")))
    }
}

/// Initial window: a segment count, or a rule name.
#[derive(Debug, Clone, Copy)]
pub enum RawInitialWindow {
    Segments(i64),
    Rfc3390,
    Rfc6928,
}
impl<'de> Deserialize<'de> for RawInitialWindow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::Integer(i) => Ok(RawInitialWindow::Segments(*i)),
            toml::Value::String(s) if s == "rfc3390" => Ok(RawInitialWindow::Rfc3390),
            toml::Value::String(s) if s == "rfc6928" => Ok(RawInitialWindow::Rfc6928),
            toml::Value::String(s) => Err(D::Error::custom(format!(
                "unknown variant `{s}`, expected one of `rfc3390`, `rfc6928` (or a segment count like 3)"
            ))),
            other => Err(D::Error::custom(format!(
                "expected a segment count like 3, or \"rfc3390\" or \"rfc6928\", found {}",
                describe(other)
            ))),
        }
    }
}

/// Delayed-ACK timeout, or `false` to acknowledge every segment immediately.
#[derive(Debug, Clone, Copy)]
pub struct DelayedAck(pub Option<SimDuration>);
impl<'de> Deserialize<'de> for DelayedAck {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::Boolean(false) => Ok(DelayedAck(None)),
            toml::Value::Boolean(true) => Err(D::Error::custom(
                "write the timeout itself, like \"200ms\", or false to turn delayed ACKs off",
            )),
            other => {
                let s = quantity_text(other, "200ms")
                    .map_err(|e| D::Error::custom(format!("{e} or false")))?;
                parse_duration(&s)
                    .map(|d| DelayedAck(Some(d)))
                    .map_err(|e| D::Error::custom(unquote_number(other, &s, e)))
            }
        }
    }
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

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
    /// Reordering of both directions (`{ p = 0.01, extra = "5ms" }`, `{ jitter = "2ms" }`).
    pub reorder: Option<RawReorder>,
    pub reorder_ab: Option<RawReorder>,
    pub reorder_ba: Option<RawReorder>,
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
    pub dupack_threshold: Option<RawDupack>,
    pub limited_transmit: Option<bool>,
    pub recovery: Option<RawRecovery>,
    /// Named OS profile (`tcplab profiles`); applied before the other keys of the same table.
    pub profile: Option<String>,
    pub rto_estimator: Option<String>,
    pub rtt_sampling: Option<String>,
    pub rtt_clock: Option<RawMeasurementClock>,
    pub timer_clock: Option<RawEventClock>,
    pub fast_timer: Option<RawEventClock>,
    pub rto_gain_a: Option<RawRatio>,
    pub rto_gain_b: Option<RawRatio>,
    pub rto_m: Option<RawRatio>,
    pub rto_k: Option<RawRatio>,
    /// `none`, `frto`, `frto-sack`, `eifel`, `eifel-dsack`.
    pub spurious_detection: Option<String>,
    /// `conventional`, `cc1`, `cc2`, `cc3`, `eifel`.
    pub spurious_response: Option<String>,
    pub frto_require_full_ack: Option<bool>,
    /// 000 §4.2.1 ssthresh estimation.
    pub ssthresh_estimation: Option<bool>,
    /// 000 §4.2.2 pacing in slow start.
    pub pacing: Option<bool>,
    /// `rfc` (default) or `linux` (the Linux 2.4 sender model, 002 §2).
    pub sender: Option<String>,
    /// Linux quick ACKs at connection start (002 §2.9).
    pub quickack: Option<bool>,
    /// Linux sender: rate-halving in Recovery (default true).
    pub rate_halving: Option<bool>,
    /// Linux sender: FACK loss marking (default false = conservative SACK).
    pub fack: Option<bool>,
    /// RFC 8985 §7 Tail Loss Probe in the RFC sender (default false).
    pub tlp: Option<bool>,
    /// The client's ACK of the SYN-ACK: `piggyback` (4.4BSD, default) or `immediate` (Linux).
    pub handshake_ack: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawRecovery {
    Sack,
    Newreno,
    Reno,
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
    /// Reordering of both directions (`{ p = 0.01, extra = "5ms" }`, `{ jitter = "2ms" }`).
    pub reorder: Option<RawReorder>,
    pub reorder_ab: Option<RawReorder>,
    pub reorder_ba: Option<RawReorder>,
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

/// `reorder`, `reorder_ab`, `reorder_ba`: see `sim::reorder`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReorder {
    /// Share of packets held back by `extra`.
    pub p: Option<f64>,
    pub extra: Option<Dur>,
    /// Every packet: a further U[0, jitter).
    pub jitter: Option<Dur>,
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

/// The fast-retransmit threshold: a count, or `"adaptive"` (003 §V-D).
#[derive(Debug, Clone, Copy)]
pub enum RawDupack {
    Fixed(i64),
    Adaptive,
}
impl<'de> Deserialize<'de> for RawDupack {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::Integer(i) => Ok(RawDupack::Fixed(*i)),
            toml::Value::String(s) if s == "adaptive" => Ok(RawDupack::Adaptive),
            other => Err(D::Error::custom(format!(
                "expected a count like 3 or \"adaptive\", found {}",
                describe(other)
            ))),
        }
    }
}

/// An exact fraction: a number (`0.25`, `4`) or a string `"1/4"`.
#[derive(Debug, Clone, Copy)]
pub struct RawRatio {
    pub num: u32,
    pub den: u32,
}
/// Denominator used to turn a decimal into a fraction (then reduced): six decimals.
const RATIO_DECIMAL_DEN: u64 = 1_000_000;
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
fn reduce(num: u64, den: u64) -> Result<RawRatio, String> {
    let g = gcd(num, den).max(1);
    let (n, d) = (num / g, den / g);
    match (u32::try_from(n), u32::try_from(d)) {
        (Ok(num), Ok(den)) => Ok(RawRatio { num, den }),
        _ => Err("is too large".to_string()),
    }
}
impl<'de> Deserialize<'de> for RawRatio {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let decimal = |f: f64| {
            let scaled = (f * RATIO_DECIMAL_DEN as f64).round();
            if scaled > u32::MAX as f64 * RATIO_DECIMAL_DEN as f64 {
                Err("is too large".to_string())
            } else {
                reduce(scaled as u64, RATIO_DECIMAL_DEN)
            }
        };
        let r = match &v {
            toml::Value::Integer(i) if *i >= 0 => reduce(i.unsigned_abs(), 1),
            toml::Value::Float(f) if f.is_finite() && *f >= 0.0 => decimal(*f),
            toml::Value::String(s) => match s.split_once('/') {
                Some((a, b)) => match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
                    (Ok(a), Ok(b)) if b > 0 => reduce(a, b),
                    _ => Err(format!("\"{s}\" is not a fraction like \"1/4\"")),
                },
                // "4" and "0.25" as strings too (`tcplab profiles --json` writes "4").
                None => match s.trim().parse::<f64>() {
                    Ok(f) if f.is_finite() && f >= 0.0 => decimal(f),
                    _ => Err(format!("\"{s}\" is not a fraction like \"1/4\" (or write a number like 0.25)")),
                },
            },
            other => Err(format!(
                "expected a non-negative number like 0.25 or a fraction like \"1/4\", found {}",
                describe(other)
            )),
        };
        r.map_err(D::Error::custom)
    }
}

/// `rtt_clock`: `"fine"`, a tick like `"500ms"`, or `{ tick = "500ms", phase = "0ms" }`.
#[derive(Debug, Clone, Copy)]
pub struct RawMeasurementClock {
    /// `None` = fine.
    pub tick: Option<SimDuration>,
    pub phase: SimDuration,
}
fn duration_of(v: &toml::Value, key: &str) -> Result<SimDuration, String> {
    let s = quantity_text(v, "500ms").map_err(|e| format!("{key}: {e}"))?;
    parse_duration(&s).map_err(|e| format!("{key}: {}", unquote_number(v, &s, e)))
}
fn check_keys(t: &toml::Table, allowed: &[&str]) -> Result<(), String> {
    for k in t.keys() {
        if !allowed.contains(&k.as_str()) {
            let list = allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
            return Err(format!("unknown field `{k}`, expected one of {list}"));
        }
    }
    Ok(())
}
impl<'de> Deserialize<'de> for RawMeasurementClock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let r = match &v {
            toml::Value::String(s) if s == "fine" => Ok(RawMeasurementClock { tick: None, phase: SimDuration::ZERO }),
            toml::Value::Table(t) => (|| {
                check_keys(t, &["tick", "phase"])?;
                let tick = duration_of(t.get("tick").ok_or("missing field `tick`")?, "tick")?;
                let phase = match t.get("phase") {
                    Some(p) => duration_of(p, "phase")?,
                    None => SimDuration::ZERO,
                };
                Ok(RawMeasurementClock { tick: Some(tick), phase })
            })(),
            other => {
                let s = quantity_text(other, "500ms").map_err(|e| format!("{e}, \"fine\" or {{ tick = ..., phase = ... }}"));
                s.and_then(|s| {
                    parse_duration(&s)
                        .map(|t| RawMeasurementClock { tick: Some(t), phase: SimDuration::ZERO })
                        .map_err(|e| format!("{} (or \"fine\")", unquote_number(other, &s, e)))
                })
            }
        };
        r.map_err(D::Error::custom)
    }
}

/// `timer_clock` / `fast_timer`: `"fine"`, a one-shot granularity like `"10ms"`,
/// `{ kind = "periodic", period = "500ms", phase = "0ms" }` or
/// `{ kind = "oneshot", granularity = "10ms" }`.
#[derive(Debug, Clone, Copy)]
pub enum RawEventClock {
    Fine,
    Periodic { period: SimDuration, phase: SimDuration },
    OneShot { granularity: SimDuration },
}
impl<'de> Deserialize<'de> for RawEventClock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let r = match &v {
            toml::Value::String(s) if s == "fine" => Ok(RawEventClock::Fine),
            toml::Value::Table(t) => match t.get("kind").and_then(|k| k.as_str()) {
                Some("periodic") => (|| {
                    check_keys(t, &["kind", "period", "phase"])?;
                    let period = duration_of(t.get("period").ok_or("missing field `period`")?, "period")?;
                    let phase = match t.get("phase") {
                        Some(p) => duration_of(p, "phase")?,
                        None => SimDuration::ZERO,
                    };
                    Ok(RawEventClock::Periodic { period, phase })
                })(),
                Some("oneshot") => (|| {
                    check_keys(t, &["kind", "granularity"])?;
                    let g = duration_of(t.get("granularity").ok_or("missing field `granularity`")?, "granularity")?;
                    Ok(RawEventClock::OneShot { granularity: g })
                })(),
                Some("fine") => check_keys(t, &["kind"]).map(|_| RawEventClock::Fine),
                Some(k) => Err(format!("unknown variant `{k}`, expected `periodic`, `oneshot` or `fine`")),
                None => Err("missing field `kind` (\"periodic\", \"oneshot\" or \"fine\")".to_string()),
            },
            other => {
                let s = quantity_text(other, "10ms")
                    .map_err(|e| format!("{e}, \"fine\" or {{ kind = \"periodic\", period = ..., phase = ... }}"));
                s.and_then(|s| {
                    parse_duration(&s)
                        .map(|g| RawEventClock::OneShot { granularity: g })
                        .map_err(|e| format!("{} (or \"fine\")", unquote_number(other, &s, e)))
                })
            }
        };
        r.map_err(D::Error::custom)
    }
}

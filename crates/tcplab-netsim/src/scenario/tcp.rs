//! `[tcp]` and `flows[i].tcp`: the TCP knobs as written, and their merge over
//! `TcpConfig::default()` (profile first, then the explicit keys; flow over `[tcp]`) with the
//! range and cross-field checks.
//!
//! Adding a knob: a field on [`RawTcp`] with its doc comment (the schema and the docs' key
//! table are made from it), and its line in [`tcp_config`].

use super::values::{check_keys, describe, duration_of, quantity_text, unknown_name, unquote_number};
use super::values::{BytesOrInf, ByteCount, Dur, R};
use super::{p, Ctx, P};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use tcplab_tcp::{
    DupAckThreshold, EventClock, HandshakeAck, InitialWindow, MeasurementClock, Profile, Ratio, RecoveryAlgorithm, RtoEstimatorKind,
    RttSampling, SpuriousDetection, SpuriousResponse, TcpConfig,
};
use tcplab_time::units::parse_duration;
use tcplab_time::SimDuration;

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
    /// Quick-Start (RFC 4782; seed 002 Ch. 6–7), see `scenario/quickstart.rs`.
    pub quick_start: Option<super::quickstart::RawTcpQuickStart>,
}

/// `recovery`: the loss-recovery algorithm of the RFC sender.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawRecovery {
    Sack,
    Newreno,
    Reno,
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

/// Smallest MSS accepted. RFC 9293 §3.7.1 only fixes the 536-byte default; tcplab accepts
/// down to 64 bytes for experiments with tiny segments (Linux clamps at 88).
pub const MIN_MSS: u64 = 64;
/// Largest MSS: a 65 535-byte IPv4 datagram minus 20 bytes of IP and 20 of TCP header
/// (RFC 791 total length is 16 bits).
pub const MAX_MSS: u64 = 65_495;
/// RFC 7323 §2.3: with the maximum shift of 14 the largest window is 65 535 · 2^14 bytes.
pub const MAX_RECV_BUFFER: u64 = 65_535 << 14;

/// Merge `[tcp]` and a flow's `tcp = {...}` over `TcpConfig::default()` and check it. Errors
/// name the level the offending value came from.
///
/// Order within a level: `profile` (all its fields), then the level's explicit keys. A flow's
/// `profile` therefore replaces what `[tcp]` set for the profile's fields.
pub(super) fn tcp_config(ctx: &Ctx<'_>, global: &RawTcp, flow: Option<&RawTcp>, flow_at: &P) -> R<TcpConfig> {
    let mut c = TcpConfig::default();
    let levels: [(Option<&RawTcp>, P); 2] = [(Some(global), p("tcp")), (flow, flow_at.k("tcp"))];
    for (t, at) in levels.iter() {
        let Some(t) = t else { continue };
        // A profile first, so that the table's own keys override it.
        if let Some(name) = &t.profile {
            let Some(prof) = Profile::by_name(name) else {
                let names: Vec<String> = Profile::names().map(String::from).collect();
                return Err(ctx.err(&at.k("profile"), unknown_name("profile", name, &names)));
            };
            prof.apply(&mut c);
        }
        if let Some(m) = t.mss {
            if !(MIN_MSS..=MAX_MSS).contains(&m.0) {
                return Err(ctx.err(
                    &at.k("mss"),
                    format!("{}B is out of range ({MIN_MSS}B to {MAX_MSS}B)", m.0),
                ));
            }
            c.mss = m.0 as u16;
        }
        if let Some(iw) = t.initial_window {
            c.initial_window = match iw {
                RawInitialWindow::Segments(n) if n >= 1 && n <= i64::from(u32::MAX) => {
                    InitialWindow::Segments(n as u32)
                }
                RawInitialWindow::Segments(n) => {
                    return Err(ctx
                        .err(&at.k("initial_window"), format!("{n} segments: must be at least 1")))
                }
                RawInitialWindow::Rfc3390 => InitialWindow::Rfc3390,
                RawInitialWindow::Rfc6928 => InitialWindow::Rfc6928,
            };
        }
        if let Some(s) = t.initial_ssthresh {
            if s.0 == 0 {
                return Err(
                    ctx.err(&at.k("initial_ssthresh"), "must be greater than zero (or \"inf\")")
                );
            }
            c.initial_ssthresh = s.0;
        }
        if let Some(v) = t.sack {
            c.sack = v;
        }
        if let Some(v) = t.timestamps {
            c.timestamps = v;
        }
        if let Some(v) = t.window_scale {
            c.window_scale = v;
        }
        if let Some(b) = t.recv_buffer {
            if b.0 == 0 || b.0 > MAX_RECV_BUFFER {
                return Err(ctx.err(
                    &at.k("recv_buffer"),
                    format!("{}B is out of range (1B to {MAX_RECV_BUFFER}B, the RFC 7323 maximum window)", b.0),
                ));
            }
            c.recv_buffer = b.0;
        }
        if let Some(b) = t.send_buffer {
            if b.0 == 0 {
                return Err(ctx.err(&at.k("send_buffer"), "must be greater than zero (or \"inf\")"));
            }
            c.send_buffer = b.0;
        }
        for (key, v, slot) in [
            ("min_rto", t.min_rto, &mut c.rto.min),
            ("initial_rto", t.initial_rto, &mut c.rto.initial),
            ("max_rto", t.max_rto, &mut c.rto.max),
            ("clock_granularity", t.clock_granularity, &mut c.rto.granularity),
        ] {
            if let Some(d) = v {
                if d.0 .0 == 0 && key != "min_rto" {
                    return Err(ctx.err(&at.k(key), "must be greater than zero"));
                }
                *slot = d.0;
            }
        }
        if let Some(d) = t.delayed_ack {
            if d.0 == Some(tcplab_time::SimDuration::ZERO) {
                return Err(ctx.err(
                    &at.k("delayed_ack"),
                    "must be greater than zero (or false for no delay)",
                ));
            }
            c.ack.delayed_ack = d.0;
        }
        if let Some(n) = t.ack_every {
            if n == 0 {
                return Err(ctx.err(&at.k("ack_every"), "must be at least 1"));
            }
            c.ack.ack_every = n;
        }
        match t.dupack_threshold {
            None => {}
            Some(RawDupack::Adaptive) => c.dupack_threshold = DupAckThreshold::Adaptive,
            Some(RawDupack::Fixed(n)) => {
                if n < 1 || n > i64::from(u32::MAX) {
                    return Err(ctx.err(&at.k("dupack_threshold"), "must be at least 1 (or \"adaptive\")"));
                }
                c.dupack_threshold = DupAckThreshold::Fixed(n as u32);
            }
        }
        if let Some(name) = &t.rto_estimator {
            let names: Vec<String> = RtoEstimatorKind::ALL.iter().map(|k| k.name().to_string()).collect();
            c.rto_estimator = RtoEstimatorKind::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("rto_estimator"), unknown_name("estimator", name, &names)))?;
        }
        if let Some(name) = &t.rtt_sampling {
            let names: Vec<String> = RttSampling::ALL.iter().map(|k| k.name().to_string()).collect();
            c.rtt_sampling = RttSampling::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("rtt_sampling"), unknown_name("sampling rule", name, &names)))?;
        }
        if let Some(rc) = t.rtt_clock {
            c.timers.rtt_clock = match rc.tick {
                None => MeasurementClock::FINE,
                Some(tick) if tick.0 == 0 => {
                    return Err(ctx.err(&at.k("rtt_clock"), "tick must be greater than zero (or \"fine\")"))
                }
                Some(tick) => MeasurementClock { tick, phase: rc.phase },
            };
        }
        for (key, v, slot) in [
            ("timer_clock", t.timer_clock, &mut c.timers.slow),
            ("fast_timer", t.fast_timer, &mut c.timers.fast),
        ] {
            if let Some(ec) = v {
                *slot = match ec {
                    RawEventClock::Fine => EventClock::Fine,
                    RawEventClock::Periodic { period, .. } if period.0 == 0 => {
                        return Err(ctx.err(&at.k(key), "period must be greater than zero"))
                    }
                    RawEventClock::Periodic { period, phase } => EventClock::Periodic { period, phase },
                    RawEventClock::OneShot { granularity } if granularity.0 == 0 => {
                        return Err(ctx.err(&at.k(key), "granularity must be greater than zero (or \"fine\")"))
                    }
                    RawEventClock::OneShot { granularity } => EventClock::OneShot { granularity },
                };
            }
        }
        for (key, v, slot, gain) in [
            ("rto_gain_a", t.rto_gain_a, &mut c.rto.gain_a, true),
            ("rto_gain_b", t.rto_gain_b, &mut c.rto.gain_b, true),
            ("rto_m", t.rto_m, &mut c.rto.m, false),
            ("rto_k", t.rto_k, &mut c.rto.k, false),
        ] {
            if let Some(r) = v {
                if gain && (r.num == 0 || r.num > r.den) {
                    return Err(ctx.err(&at.k(key), format!("{}/{} is not a gain in (0, 1]", r.num, r.den)));
                }
                if key == "rto_m" && r.num == 0 {
                    return Err(ctx.err(&at.k(key), "must be greater than zero"));
                }
                *slot = Ratio::new(r.num, r.den);
            }
        }
        if let Some(v) = t.limited_transmit {
            c.limited_transmit = v;
        }
        if let Some(name) = &t.spurious_detection {
            let names: Vec<String> = SpuriousDetection::ALL.iter().map(|k| k.name().to_string()).collect();
            c.spurious.detection = SpuriousDetection::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("spurious_detection"), unknown_name("detector", name, &names)))?;
        }
        if let Some(name) = &t.spurious_response {
            let names: Vec<String> = SpuriousResponse::ALL.iter().map(|k| k.name().to_string()).collect();
            c.spurious.response = SpuriousResponse::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("spurious_response"), unknown_name("response", name, &names)))?;
        }
        if let Some(v) = t.frto_require_full_ack {
            c.spurious.frto_require_full_ack = v;
        }
        if let Some(v) = t.ssthresh_estimation {
            c.startup.ssthresh_estimation = v;
        }
        if let Some(v) = t.pacing {
            c.startup.pacing = v;
        }
        if let Some(v) = t.quickack {
            c.ack.quickack = v;
        }
        if let Some(v) = t.rate_halving {
            c.linux_rate_halving = v;
        }
        if let Some(v) = t.fack {
            c.linux_fack = v;
        }
        if let Some(v) = t.tlp {
            c.tlp = v;
        }
        if let Some(name) = &t.handshake_ack {
            let names: Vec<String> = HandshakeAck::ALL.iter().map(|k| k.name().to_string()).collect();
            c.handshake_ack = HandshakeAck::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("handshake_ack"), unknown_name("handshake ACK", name, &names)))?;
        }
        if let Some(name) = &t.sender {
            let names: Vec<String> = tcplab_tcp::SenderModel::ALL.iter().map(|k| k.name().to_string()).collect();
            c.sender = tcplab_tcp::SenderModel::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("sender"), unknown_name("sender", name, &names)))?;
        }
        if let Some(q) = &t.quick_start {
            super::quickstart::apply_tcp(ctx, &at.k("quick_start"), q, &mut c.quick_start)?;
        }
        if let Some(r) = t.recovery {
            c.recovery = match r {
                RawRecovery::Sack => RecoveryAlgorithm::Sack,
                RawRecovery::Newreno => RecoveryAlgorithm::NewReno,
                RawRecovery::Reno => RecoveryAlgorithm::Reno,
            };
        }
    }
    // Cross-field checks, reported at the innermost level that sets one of the keys.
    let which = |keys: &[&str]| -> P {
        let sets = |t: &RawTcp, k: &str| match k {
            "min_rto" => t.min_rto.is_some(),
            "max_rto" => t.max_rto.is_some(),
            "initial_rto" => t.initial_rto.is_some(),
            _ => false,
        };
        for (t, at) in levels.iter().rev() {
            if let Some(t) = t {
                if let Some(k) = keys.iter().find(|k| sets(t, k)) {
                    return at.k(k);
                }
            }
        }
        p("tcp").k(keys[0])
    };
    if c.spurious.detection == SpuriousDetection::Eifel && !c.timestamps {
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.spurious_detection.as_ref()).map(|_| at.k("spurious_detection")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("spurious_detection")),
            "\"eifel\" detects by timestamps (RFC 3522) and needs timestamps = true",
        ));
    }
    if c.sender == tcplab_tcp::SenderModel::Linux
        && (c.spurious.detection != SpuriousDetection::None || c.startup.ssthresh_estimation || c.startup.pacing)
    {
        // The Linux engine has its own undo (002 §2.7) and does not run the RFC sender's
        // spurious-detector or startup seams.
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.sender.as_ref()).map(|_| at.k("sender")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("sender")),
            "\"linux\" cannot be combined with spurious_detection, ssthresh_estimation or pacing (it undoes by timestamps/D-SACK itself)",
        ));
    }
    if c.sender == tcplab_tcp::SenderModel::Linux && c.tlp {
        // The Linux 2.4 sender model predates TLP (Linux 3.10); TLP runs in the RFC sender.
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.sender.as_ref()).map(|_| at.k("sender")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("sender")),
            "\"linux\" cannot be combined with tlp (the Linux 2.4 sender has no Tail Loss Probe; TLP runs in the RFC sender)",
        ));
    }
    let linux_only = levels.iter().rev().find_map(|(t, at)| {
        t.and_then(|t| {
            if t.rate_halving.is_some() {
                Some(at.k("rate_halving"))
            } else if t.fack.is_some() {
                Some(at.k("fack"))
            } else {
                None
            }
        })
    });
    if let (tcplab_tcp::SenderModel::Rfc, Some(at)) = (c.sender, linux_only) {
        return Err(ctx.err(&at, "applies to the Linux sender only; set sender = \"linux\""));
    }
    if c.rto.min > c.rto.max {
        return Err(ctx.err(
            &which(&["min_rto", "max_rto"]),
            format!("min_rto ({}) is larger than max_rto ({})", c.rto.min, c.rto.max),
        ));
    }
    if c.rto.initial > c.rto.max {
        return Err(ctx.err(
            &which(&["initial_rto", "max_rto"]),
            format!("initial_rto ({}) is larger than max_rto ({})", c.rto.initial, c.rto.max),
        ));
    }
    Ok(c)
}

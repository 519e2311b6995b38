//! Values shared by every section: the unit quantities (durations, bandwidths, byte counts),
//! parsed from `toml::Value` so that numbers and wrong types get a helpful message, and the
//! checks every section uses (names, probabilities, unknown names).

use super::{suggestion, Ctx, ScenarioError, P};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::borrow::Cow;
use tcplab_time::units::{parse_bandwidth, parse_bytes, parse_duration};
use tcplab_time::{Bandwidth, SimDuration};

/// What every build step returns.
pub(super) type R<T> = Result<T, ScenarioError>;

/// Written instead of a byte count for "no limit" (initial ssthresh, send buffer).
pub const INF: &str = "inf";

/// Text of a quantity; a bare TOML number is turned into its text so that the unit parser
/// reports the missing unit with an example.
pub(super) fn quantity_text(v: &toml::Value, example: &str) -> Result<String, String> {
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
pub(super) fn unquote_number(v: &toml::Value, s: &str, e: impl std::fmt::Display) -> String {
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

// ---------------------------------------------------------------------------------------------
// JSON Schema of the quantities: a `pattern` per unit family, matching what the `tcplab-time`
// parsers accept (a test parses `1<unit>` for every listed unit). The loader stays the
// authority on values (ranges, whole numbers).

/// The number part the unit parsers accept: digits with an optional fraction (`1.5`, `5.`,
/// `.5`); white space is trimmed and allowed before the unit.
const NUMBER_PATTERN: &str = r"([0-9]+(\.[0-9]*)?|\.[0-9]+)";
/// `tcplab_time::units::parse_duration`'s units.
pub const DURATION_UNITS: &[&str] = &["ns", "us", "µs", "μs", "ms", "s", "sec", "min"];
/// `tcplab_time::units::parse_bandwidth`'s units (bits, then bytes per second).
pub const BANDWIDTH_UNITS: &[&str] = &[
    "bps", "bit/s", "b/s", "kbps", "Kbps", "kbit/s", "Kbit/s", "kb/s", "Kb/s", "Mbps", "Mbit/s",
    "Mb/s", "Gbps", "Gbit/s", "Gb/s", "Tbps", "Tbit/s", "Tb/s", "B/s", "KB/s", "kB/s", "MB/s",
    "GB/s",
];
/// `tcplab_time::units::parse_bytes`'s units.
pub const BYTE_UNITS: &[&str] =
    &["B", "bytes", "byte", "KB", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"];
/// `tcplab_time::units::parse_queue_limit`'s packet units (a byte size is the other form).
pub const PACKET_UNITS: &[&str] = &["pkt", "pkts", "p", "packet", "packets"];

/// `^number unit$` for one unit family.
pub(super) fn unit_pattern(units: &[&str]) -> String {
    format!(r"^\s*{NUMBER_PATTERN}\s*({})\s*$", units.join("|"))
}

/// A string with a unit: `kind` is the name the docs' tables use for it.
pub(super) fn unit_schema(kind: &str, units: &[&str], examples: &[&str]) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": unit_pattern(units),
        "x-values": kind,
        "examples": examples,
    })
}

/// `schema` or the string `word`.
pub(super) fn or_word(mut schema: Schema, word: &str, kind: &str) -> Schema {
    schema.remove("x-values");
    json_schema!({
        "anyOf": [schema, { "const": word }],
        "x-values": kind,
    })
}

macro_rules! quantity {
    ($(#[$m:meta])* $name:ident, $inner:ty, $parse:expr, $example:expr,
     schema: $kind:expr, $units:expr, $examples:expr) => {
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
        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                $kind.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                unit_schema($kind, $units, $examples)
            }
        }
    };
}

quantity!(
    /// A duration such as `"30ms"`.
    Dur, SimDuration, parse_duration, "30ms",
    schema: "duration", DURATION_UNITS, &["30ms", "1.5s"]
);
quantity!(
    /// A bandwidth such as `"10Mbps"`.
    Bw, Bandwidth, parse_bandwidth, "10Mbps",
    schema: "bandwidth", BANDWIDTH_UNITS, &["10Mbps", "1.5Mbit/s"]
);
quantity!(
    /// A byte count such as `"64KB"`.
    ByteCount, u64, |s: &str| parse_bytes(s).map(|b| b.0), "64KB",
    schema: "size", BYTE_UNITS, &["64KB", "1460B"]
);

/// Bytes, or `"inf"` for no limit (`u64::MAX`).
#[derive(Debug, Clone, Copy)]
pub struct BytesOrInf(pub u64);
impl JsonSchema for BytesOrInf {
    fn schema_name() -> Cow<'static, str> {
        "size_or_inf".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        or_word(ByteCount::json_schema(g), INF, "size or `\"inf\"`")
    }
}
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

/// First line of a nested parser message, without trailing period.
pub(super) fn one_line_msg(m: &str) -> String {
    m.lines().next().unwrap_or("").trim().trim_end_matches('.').replace('`', "\"")
}

/// A duration inside a clock table, its errors prefixed with the key.
pub(super) fn duration_of(v: &toml::Value, key: &str) -> Result<SimDuration, String> {
    let s = quantity_text(v, "500ms").map_err(|e| format!("{key}: {e}"))?;
    parse_duration(&s).map_err(|e| format!("{key}: {}", unquote_number(v, &s, e)))
}
/// Reject keys of a hand-read table that are not in `allowed` (serde's message style).
pub(super) fn check_keys(t: &toml::Table, allowed: &[&str]) -> Result<(), String> {
    for k in t.keys() {
        if !allowed.contains(&k.as_str()) {
            let list = allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
            return Err(format!("unknown field `{k}`, expected one of {list}"));
        }
    }
    Ok(())
}

/// Node, link and flow names: not empty, no white space or dots (dots separate `--set` paths).
pub(super) fn check_name(ctx: &Ctx<'_>, at: &P, name: &str) -> R<()> {
    if name.is_empty() {
        return Err(ctx.err(at, "must not be empty"));
    }
    if name.chars().any(|c| c.is_whitespace() || c == '.') {
        return Err(ctx.err(at, format!("\"{name}\" must not contain spaces or dots")));
    }
    Ok(())
}

/// A probability in [0, 1].
pub(super) fn prob(ctx: &Ctx<'_>, at: &P, v: f64) -> R<f64> {
    if !(0.0..=1.0).contains(&v) {
        return Err(ctx.err(at, format!("{v} is not a probability (must be between 0 and 1)")));
    }
    Ok(v)
}

/// "unknown profile \"x\"; did you mean \"y\"? (profiles are: ...)".
pub(super) fn unknown_name(what: &str, name: &str, names: &[String]) -> String {
    match suggestion(name, names) {
        Some(s) => format!("unknown {what} \"{name}\"; did you mean \"{s}\"? ({what}s are: {})", names.join(", ")),
        None => format!("unknown {what} \"{name}\" ({what}s are: {})", names.join(", ")),
    }
}

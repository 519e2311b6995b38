//! Parsing and printing of unit strings.
//!
//! Rules (documented for users in docs/scenarios.md):
//! - A quantity is a number (integer or decimal, no exponent) followed by a unit, with optional
//!   white space between: `"30ms"`, `"1.5 Mbit/s"`.
//! - Bare numbers are rejected: several simulators silently read them as seconds or bytes.
//! - Bandwidth in bits: `bps`, `kbps`/`Kbps`, `Mbps`, `Gbps`, `Tbps`, and `bit/s`, `kbit/s`,
//!   `Kbit/s`, `Mbit/s`, `Gbit/s`; in bytes: `B/s`, `KB/s`, `MB/s`, `GB/s`. SI prefixes
//!   (k = 1000). The spellings `mbps`, `gbps` (lower case) and `MBps` are rejected as ambiguous:
//!   `tc` reads `mbps` as megabytes per second while most people mean megabits.
//! - Bytes: `B`, `KB`/`kB` (1000), `MB`, `GB`, and IEC `KiB` (1024), `MiB`, `GiB`.
//! - Time: `ns`, `us`/`µs`, `ms`, `s`, `min`.
//! - Results must be whole units of the underlying integer (ns, bit/s, bytes); `"0.5B"` is an
//!   error, `"1.5ms"` is 1 500 000 ns.

use crate::{Bandwidth, Bytes, SimDuration};
use std::fmt;

/// Why a unit string was rejected. `Display` gives a one-line message without the field name;
/// callers prefix the field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for UnitError {}

/// Split "1.5 Mbit/s" into the decimal number (as numerator/denominator power of ten) and unit.
fn split(s: &str, what: &str, example: &str) -> Result<(u128, u32, String), UnitError> {
    let t = s.trim();
    let end = t
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    let unit = unit.trim();
    if num.is_empty() && t.starts_with('-') {
        return Err(UnitError(format!("\"{s}\": a {what} cannot be negative")));
    }
    if num.is_empty() {
        return Err(UnitError(format!(
            "expected a {what} like \"{example}\", got \"{s}\""
        )));
    }
    if unit.is_empty() {
        return Err(UnitError(format!(
            "\"{s}\" has no unit; write a {what} with its unit, like \"{example}\""
        )));
    }
    let mut parts = num.splitn(2, '.');
    let int = parts.next().unwrap_or("");
    let frac = parts.next().unwrap_or("");
    if frac.contains('.') || (int.is_empty() && frac.is_empty()) || frac.len() > 18 {
        return Err(UnitError(format!("\"{s}\" is not a valid number")));
    }
    let digits = format!("{int}{frac}");
    let mantissa: u128 = digits
        .parse()
        .map_err(|_| UnitError(format!("\"{s}\" is not a valid number")))?;
    Ok((mantissa, frac.len() as u32, unit.to_string()))
}

/// mantissa / 10^scale * multiplier, requiring an integer result.
fn scale(
    s: &str,
    mantissa: u128,
    frac_digits: u32,
    mult: u128,
    base_unit: &str,
) -> Result<u64, UnitError> {
    let div = 10u128.pow(frac_digits);
    let total = mantissa
        .checked_mul(mult)
        .ok_or_else(|| UnitError(format!("\"{s}\" is too large")))?;
    if total % div != 0 {
        return Err(UnitError(format!(
            "\"{s}\" is not a whole number of {base_unit}"
        )));
    }
    u64::try_from(total / div).map_err(|_| UnitError(format!("\"{s}\" is too large")))
}

/// Parse a duration such as `"30ms"`.
pub fn parse_duration(s: &str) -> Result<SimDuration, UnitError> {
    let (m, f, unit) = split(s, "duration", "30ms")?;
    let mult: u128 = match unit.as_str() {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "min" => 60_000_000_000,
        _ => {
            return Err(UnitError(format!(
                "unknown time unit \"{unit}\" in \"{s}\" (expected ns, us, ms, s, sec or min)"
            )))
        }
    };
    scale(s, m, f, mult, "nanoseconds").map(SimDuration)
}

/// Parse a bandwidth such as `"155Mbps"`.
pub fn parse_bandwidth(s: &str) -> Result<Bandwidth, UnitError> {
    let (m, f, unit) = split(s, "bandwidth", "155Mbps")?;
    let mult: u128 = match unit.as_str() {
        "bps" | "bit/s" | "b/s" => 1,
        "kbps" | "Kbps" | "kbit/s" | "Kbit/s" | "kb/s" | "Kb/s" => 1_000,
        "Mbps" | "Mbit/s" | "Mb/s" => 1_000_000,
        "Gbps" | "Gbit/s" | "Gb/s" => 1_000_000_000,
        "Tbps" | "Tbit/s" | "Tb/s" => 1_000_000_000_000,
        "B/s" => 8,
        "KB/s" | "kB/s" => 8_000,
        "MB/s" => 8_000_000,
        "GB/s" => 8_000_000_000,
        "mbps" | "gbps" | "tbps" | "MBps" | "GBps" | "KBps" | "kBps" | "Bps" => {
            return Err(UnitError(format!(
                "ambiguous bandwidth unit \"{unit}\" in \"{s}\": write Mbps/Gbps for bits per \
                 second or MB/s/GB/s for bytes per second"
            )))
        }
        _ => {
            return Err(UnitError(format!(
                "unknown bandwidth unit \"{unit}\" in \"{s}\" (expected bps, kbps, Mbps, Gbps, \
                 Mbit/s, or MB/s for bytes per second)"
            )))
        }
    };
    let v = scale(s, m, f, mult, "bits per second")?;
    if v == 0 {
        return Err(UnitError(format!("bandwidth \"{s}\" must be greater than zero")));
    }
    Ok(Bandwidth(v))
}

/// Parse a byte count such as `"64KB"`.
pub fn parse_bytes(s: &str) -> Result<Bytes, UnitError> {
    let (m, f, unit) = split(s, "size", "64KB")?;
    let mult: u128 = match unit.as_str() {
        "B" | "bytes" | "byte" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        "b" | "kb" | "Kb" | "mb" | "Mb" | "gb" | "Gb" => {
            return Err(UnitError(format!(
                "ambiguous size unit \"{unit}\" in \"{s}\": sizes are in bytes (B, KB, MB, KiB, MiB)"
            )))
        }
        _ => {
            return Err(UnitError(format!(
                "unknown size unit \"{unit}\" in \"{s}\" (expected B, KB, MB, GB, KiB, MiB, GiB)"
            )))
        }
    };
    scale(s, m, f, mult, "bytes").map(Bytes)
}

/// A queue limit: packets (`"200pkt"`, `"200 packets"`) or bytes (`"64KB"`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

/// Parse a queue limit in packets or bytes.
pub fn parse_queue_limit(s: &str) -> Result<QueueLimit, UnitError> {
    let (m, f, unit) = split(s, "queue limit", "200pkt")?;
    match unit.as_str() {
        "pkt" | "pkts" | "p" | "packet" | "packets" => {
            scale(s, m, f, 1, "packets").map(QueueLimit::Packets)
        }
        _ => parse_bytes(s).map(|b| QueueLimit::Bytes(b.0)).map_err(|_| {
            UnitError(format!(
                "unknown queue limit unit \"{unit}\" in \"{s}\" (expected pkt, or a size like 64KB)"
            ))
        }),
    }
}

pub(crate) fn fmt_duration(d: SimDuration, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let ns = d.0;
    if ns == 0 {
        return f.write_str("0s");
    }
    for (unit, div) in [("s", 1_000_000_000u64), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)] {
        if ns.is_multiple_of(div) {
            return write!(f, "{}{unit}", ns / div);
        }
    }
    unreachable!("every integer is a multiple of 1")
}

pub(crate) fn fmt_bandwidth(b: Bandwidth, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for (unit, div) in [("Gbps", 1_000_000_000u64), ("Mbps", 1_000_000), ("kbps", 1_000), ("bps", 1)] {
        if b.0.is_multiple_of(div) && b.0 >= div {
            return write!(f, "{}{unit}", b.0 / div);
        }
    }
    write!(f, "{}bps", b.0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_negative_quantity_is_named_as_such() {
        assert_eq!(parse_duration("-20ms").unwrap_err().to_string(), "\"-20ms\": a duration cannot be negative");
        assert!(parse_bytes("-2MB").unwrap_err().to_string().contains("cannot be negative"));
        assert!(parse_duration("5 seconds").unwrap_err().to_string().contains("s, sec or min"));
    }

    #[test]
    fn durations_parse_with_every_unit() {
        assert_eq!(parse_duration("30ms").unwrap(), SimDuration::from_millis(30));
        assert_eq!(parse_duration("1.5s").unwrap(), SimDuration::from_millis(1500));
        assert_eq!(parse_duration("200 us").unwrap(), SimDuration::from_micros(200));
        assert_eq!(parse_duration("7ns").unwrap(), SimDuration::from_nanos(7));
        assert_eq!(parse_duration("2min").unwrap(), SimDuration::from_secs(120));
    }

    #[test]
    fn bare_numbers_are_rejected_with_an_example() {
        let e = parse_duration("30").unwrap_err().to_string();
        assert!(e.contains("no unit") && e.contains("30ms"), "{e}");
        assert!(parse_bandwidth("155").is_err());
        assert!(parse_bytes("1500").is_err());
    }

    #[test]
    fn bandwidth_accepts_bits_and_bytes_per_second() {
        assert_eq!(parse_bandwidth("155Mbps").unwrap(), Bandwidth(155_000_000));
        assert_eq!(parse_bandwidth("1.5Mbit/s").unwrap(), Bandwidth(1_500_000));
        assert_eq!(parse_bandwidth("28.8kbps").unwrap(), Bandwidth(28_800));
        assert_eq!(parse_bandwidth("1MB/s").unwrap(), Bandwidth(8_000_000));
    }

    #[test]
    fn lower_case_mbps_is_rejected_as_ambiguous() {
        let e = parse_bandwidth("10mbps").unwrap_err().to_string();
        assert!(e.contains("ambiguous"), "{e}");
    }

    #[test]
    fn zero_bandwidth_is_rejected() {
        assert!(parse_bandwidth("0Mbps").is_err());
    }

    #[test]
    fn sizes_use_si_and_iec_prefixes() {
        assert_eq!(parse_bytes("64KB").unwrap(), Bytes(64_000));
        assert_eq!(parse_bytes("64KiB").unwrap(), Bytes(65_536));
        assert_eq!(parse_bytes("1500B").unwrap(), Bytes(1500));
        assert!(parse_bytes("0.5B").is_err());
    }

    #[test]
    fn queue_limits_take_packets_or_bytes() {
        assert_eq!(parse_queue_limit("200pkt").unwrap(), QueueLimit::Packets(200));
        assert_eq!(parse_queue_limit("20 packets").unwrap(), QueueLimit::Packets(20));
        assert_eq!(parse_queue_limit("64KB").unwrap(), QueueLimit::Bytes(64_000));
    }

    #[test]
    fn durations_print_in_the_largest_exact_unit() {
        assert_eq!(SimDuration::from_millis(1500).to_string(), "1500ms");
        assert_eq!(SimDuration::from_secs(2).to_string(), "2s");
    }

    #[test]
    fn negative_and_malformed_numbers_are_rejected() {
        assert!(parse_duration("-5ms").is_err());
        assert!(parse_duration("1.2.3ms").is_err());
        assert!(parse_duration("ms").is_err());
    }
}

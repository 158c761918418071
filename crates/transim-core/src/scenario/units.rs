//! Physical quantities in scenario files: rates, durations, sizes, probabilities and queue
//! limits. Each accepts a number in the base unit or a string with a unit suffix, and rejects
//! anything else with a message that says what is allowed.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Split "13.5KB" into (13.5, "KB"), trimming spaces.
fn split_number(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+' || *c == 'e'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e3" parses as a number; but "1e" followed by letters is unlikely in our units.
    let (num, unit) = s.split_at(end);
    let value: f64 = num.trim().parse().ok()?;
    Some((value, unit.trim().to_string()))
}

/// Deserialize either a number or a string and hand both forms to `parse`.
struct NumOrStr<'a> {
    expecting: &'a str,
}

enum Raw {
    Num(f64),
    Str(String),
}

impl<'de> Visitor<'de> for NumOrStr<'_> {
    type Value = Raw;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Num(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Num(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Num(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Str(v.to_string()))
    }
}

fn deserialize_raw<'de, D: Deserializer<'de>>(d: D, expecting: &str) -> Result<Raw, D::Error> {
    d.deserialize_any(NumOrStr { expecting })
}

macro_rules! quantity {
    ($name:ident, $inner:ty, $expect:expr, $parse:ident, $fmt:ident) => {
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = deserialize_raw(d, $expect)?;
                $parse(&raw)
                    .map_err(|got| de::Error::custom(format!("got {got}; expected {}", $expect)))
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$fmt(self.0))
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(&$fmt(self.0))
            }
        }
    };
}

fn show(raw: &Raw) -> String {
    match raw {
        Raw::Num(n) => format!("{n}"),
        Raw::Str(s) => format!("{s:?}"),
    }
}

/// A data rate in bits per second ("10Mbps", "600kbps", or a number of bit/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub f64);
const RATE_EXPECT: &str =
    "a positive rate: a number of bit/s or a string such as \"10Mbps\", \"600kbps\", \"1Gbps\" (from 1 bit/s to 1000 Tbit/s)";
fn parse_rate(raw: &Raw) -> Result<Rate, String> {
    let bps = match raw {
        Raw::Num(n) => *n,
        Raw::Str(s) => {
            let (v, unit) = split_number(s).ok_or_else(|| show(raw))?;
            let mult = match unit.as_str() {
                "bps" | "b/s" | "bit/s" => 1.0,
                "kbps" | "Kbps" | "kb/s" | "kbit/s" => 1e3,
                "Mbps" | "mbps" | "Mb/s" | "Mbit/s" => 1e6,
                "Gbps" | "gbps" | "Gb/s" | "Gbit/s" => 1e9,
                _ => return Err(show(raw)),
            };
            v * mult
        }
    };
    // Below 1 bit/s a packet's serialisation time no longer fits the clock; above 10^15 it
    // rounds to nothing.
    if !(bps.is_finite() && (1.0..=1e15).contains(&bps)) {
        return Err(show(raw));
    }
    Ok(Rate(bps))
}
fn fmt_rate(bps: f64) -> String {
    if bps >= 1e9 && (bps / 1e9).fract() == 0.0 {
        format!("{}Gbps", bps / 1e9)
    } else if bps >= 1e6 && ((bps / 1e6) * 1e3).fract() == 0.0 {
        format!("{}Mbps", bps / 1e6)
    } else if bps >= 1e3 && ((bps / 1e3) * 1e3).fract() == 0.0 {
        format!("{}kbps", bps / 1e3)
    } else {
        format!("{bps}bps")
    }
}
quantity!(Rate, f64, RATE_EXPECT, parse_rate, fmt_rate);

/// A non-negative duration, stored in integer nanoseconds ("50ms", "1.5s", or seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Duration(pub u64);
const DURATION_EXPECT: &str =
    "a non-negative duration: a number of seconds or a string such as \"50ms\", \"2s\", \"100us\"";
fn parse_duration(raw: &Raw) -> Result<Duration, String> {
    let secs = match raw {
        Raw::Num(n) => *n,
        Raw::Str(s) => {
            let (v, unit) = split_number(s).ok_or_else(|| show(raw))?;
            let mult = match unit.as_str() {
                "s" | "sec" => 1.0,
                "ms" => 1e-3,
                "us" | "µs" => 1e-6,
                "ns" => 1e-9,
                "min" => 60.0,
                _ => return Err(show(raw)),
            };
            v * mult
        }
    };
    if !(secs.is_finite() && secs >= 0.0) || secs > 1e9 {
        return Err(show(raw));
    }
    if secs > 0.0 && secs < 0.5e-9 {
        // Below the clock's resolution it would round to 0 without a word.
        return Err(format!(
            "{}: shorter than 1 ns, the clock's resolution",
            show(raw)
        ));
    }
    Ok(Duration((secs * 1e9).round() as u64))
}
fn fmt_duration(ns: u64) -> String {
    if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1000) {
        format!("{}us", ns / 1000)
    } else {
        format!("{ns}ns")
    }
}
quantity!(Duration, u64, DURATION_EXPECT, parse_duration, fmt_duration);

/// A size in bytes ("13.5KB" = 13 500 bytes, "64KiB" = 65 536 bytes, or a number of bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u64);
const SIZE_EXPECT: &str =
    "a size: a whole number of bytes or a string such as \"1460B\", \"13.5KB\", \"64KiB\", \"2MB\" (at most 2^53 bytes)";
fn size_mult(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "B" | "bytes" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}
fn parse_size(raw: &Raw) -> Result<Size, String> {
    let bytes = match raw {
        Raw::Num(n) => *n,
        Raw::Str(s) => {
            let (v, unit) = split_number(s).ok_or_else(|| show(raw))?;
            v * size_mult(&unit).ok_or_else(|| show(raw))?
        }
    };
    if !(bytes.is_finite() && (0.0..=MAX_SIZE as f64).contains(&bytes)) || bytes.fract() != 0.0 {
        return Err(show(raw));
    }
    Ok(Size(bytes as u64))
}
/// The largest size a scenario may give (2^53 bytes: exact in every number format the
/// front end and the engine use, and far from overflowing sums).
pub const MAX_SIZE: u64 = 1 << 53;

fn fmt_size(b: u64) -> String {
    format!("{b}B")
}
quantity!(Size, u64, SIZE_EXPECT, parse_size, fmt_size);

/// A probability in [0, 1] ("1.5%" or 0.015).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probability(pub f64);
const PROB_EXPECT: &str =
    "a probability between 0 and 1, as a number (0.015) or a percentage string (\"1.5%\")";
fn parse_prob(raw: &Raw) -> Result<Probability, String> {
    let p = match raw {
        Raw::Num(n) => *n,
        Raw::Str(s) => {
            let (v, unit) = split_number(s).ok_or_else(|| show(raw))?;
            match unit.as_str() {
                "%" => v / 100.0,
                "" => v,
                _ => return Err(show(raw)),
            }
        }
    };
    if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
        return Err(show(raw));
    }
    Ok(Probability(p))
}
fn fmt_prob(p: f64) -> String {
    format!("{}%", p * 100.0)
}
quantity!(Probability, f64, PROB_EXPECT, parse_prob, fmt_prob);

pub use crate::net::QueueLimit;
const QUEUE_EXPECT: &str =
    "a queue limit of at least one packet: a number of packets (100, \"100pkt\") or a byte size (\"64KB\")";
impl<'de> Deserialize<'de> for QueueLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = deserialize_raw(d, QUEUE_EXPECT)?;
        let bad = || de::Error::custom(format!("got {}; expected {QUEUE_EXPECT}", show(&raw)));
        let q = match &raw {
            Raw::Num(n) if *n >= 1.0 && n.fract() == 0.0 => QueueLimit::Packets(*n as u64),
            Raw::Num(_) => return Err(bad()),
            Raw::Str(s) => {
                let (v, unit) = split_number(s).ok_or_else(bad)?;
                match unit.as_str() {
                    "pkt" | "pkts" | "packets" | "p" => {
                        if v < 1.0 || v.fract() != 0.0 {
                            return Err(bad());
                        }
                        QueueLimit::Packets(v as u64)
                    }
                    u => {
                        let m = size_mult(u).filter(|_| !u.is_empty()).ok_or_else(bad)?;
                        let b = v * m;
                        if b < 1.0 || b.fract() != 0.0 {
                            return Err(bad());
                        }
                        QueueLimit::Bytes(b as u64)
                    }
                }
            }
        };
        Ok(q)
    }
}
impl Serialize for QueueLimit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueLimit::Packets(n) => s.serialize_str(&format!("{n}pkt")),
            QueueLimit::Bytes(b) => s.serialize_str(&format!("{b}B")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de<T: for<'a> Deserialize<'a>>(v: serde_json::Value) -> Result<T, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn rates_parse_with_si_prefixes() {
        assert_eq!(de::<Rate>("10Mbps".into()).unwrap().0, 10e6);
        assert_eq!(de::<Rate>("600kbps".into()).unwrap().0, 600e3);
        assert_eq!(de::<Rate>(serde_json::json!(1500)).unwrap().0, 1500.0);
        let e = de::<Rate>("0Mbps".into()).unwrap_err();
        assert!(
            e.contains("\"0Mbps\"") && e.contains("positive rate"),
            "{e}"
        );
        assert!(de::<Rate>("10 parsecs".into()).is_err());
    }

    #[test]
    fn durations_are_integer_nanoseconds() {
        assert_eq!(de::<Duration>("50ms".into()).unwrap().0, 50_000_000);
        assert_eq!(de::<Duration>("1.5s".into()).unwrap().0, 1_500_000_000);
        assert_eq!(
            de::<Duration>(serde_json::json!(0.2)).unwrap().0,
            200_000_000
        );
        let e = de::<Duration>("-5ms".into()).unwrap_err();
        assert!(e.contains("\"-5ms\"") && e.contains("non-negative"), "{e}");
    }

    #[test]
    fn sizes_use_decimal_and_binary_prefixes() {
        assert_eq!(de::<Size>("13.5KB".into()).unwrap().0, 13_500);
        assert_eq!(de::<Size>("64KiB".into()).unwrap().0, 65_536);
        assert!(de::<Size>("1.5B".into()).is_err());
    }

    #[test]
    fn probabilities_accept_percent() {
        assert!((de::<Probability>("1.5%".into()).unwrap().0 - 0.015).abs() < 1e-15);
        assert!(de::<Probability>("150%".into()).is_err());
        assert!(de::<Probability>(serde_json::json!(-0.1)).is_err());
    }

    #[test]
    fn queue_limits_in_packets_or_bytes() {
        assert_eq!(
            de::<QueueLimit>(serde_json::json!(100)).unwrap(),
            QueueLimit::Packets(100)
        );
        assert_eq!(
            de::<QueueLimit>("100pkt".into()).unwrap(),
            QueueLimit::Packets(100)
        );
        assert_eq!(
            de::<QueueLimit>("64KB".into()).unwrap(),
            QueueLimit::Bytes(64_000)
        );
        assert!(de::<QueueLimit>(serde_json::json!(0)).is_err());
    }
}

//! A run's summary with each flow and link direction cut down to a few named fields: what a
//! sweep reads of every run. At 10,000 flows the whole summary is 30 MB of JSON, and reading
//! it into Python objects took about as long as the run; the fields a sweep keeps are a
//! tenth of it.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The summary `json` (a JSON object) as compact JSON text with every key as it is, except
/// that each object of `flows` keeps only the fields named in `flow_keys` and each object of
/// `links` only those in `link_keys` (in the object's own order; a field an object lacks
/// stays absent).
pub fn slim(
    json: &str,
    flow_keys: &[&str],
    link_keys: &[&str],
) -> Result<String, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let mut out = String::with_capacity(json.len() / 8);
    Summary {
        out: &mut out,
        flow_keys,
        link_keys,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(out)
}

/// Writes the summary object into `out`.
struct Summary<'o, 'k> {
    out: &'o mut String,
    flow_keys: &'k [&'k str],
    link_keys: &'k [&'k str],
}

impl<'de> DeserializeSeed<'de> for Summary<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Summary<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a run's summary (an object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.out.push('{');
        let mut first = true;
        while let Some(key) = map.next_key::<&'de RawValue>()? {
            if !std::mem::take(&mut first) {
                self.out.push(',');
            }
            self.out.push_str(key.get());
            self.out.push(':');
            let keep = match key.get() {
                "\"flows\"" => Some(self.flow_keys),
                "\"links\"" => Some(self.link_keys),
                _ => None,
            };
            match keep {
                Some(keys) => map.next_value_seed(Records {
                    out: self.out,
                    keys,
                })?,
                None => self.out.push_str(map.next_value::<&RawValue>()?.get()),
            }
        }
        self.out.push('}');
        Ok(())
    }
}

/// An array of records, each cut down to `keys`.
struct Records<'o, 'k> {
    out: &'o mut String,
    keys: &'k [&'k str],
}

impl<'de> DeserializeSeed<'de> for Records<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Records<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.out.push('[');
        let mut first = true;
        loop {
            let comma = !first;
            let record = Record {
                out: &mut *self.out,
                keys: self.keys,
                comma,
            };
            if seq.next_element_seed(record)?.is_none() {
                break;
            }
            first = false;
        }
        self.out.push(']');
        Ok(())
    }
}

/// One record (an object), cut down to `keys`, written after a comma unless it is the
/// first.
struct Record<'o, 'k> {
    out: &'o mut String,
    keys: &'k [&'k str],
    comma: bool,
}

impl<'de> DeserializeSeed<'de> for Record<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Record<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.comma {
            self.out.push(',');
        }
        self.out.push('{');
        let mut first = true;
        while let Some(key) = map.next_key::<&'de RawValue>()? {
            // The names asked for are plain words, which JSON writes as they are, quoted:
            // the key's text is compared without unescaping it.
            let text = key.get();
            let name = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
            if name.is_some_and(|n| self.keys.contains(&n)) {
                if !std::mem::take(&mut first) {
                    self.out.push(',');
                }
                self.out.push_str(text);
                self.out.push(':');
                self.out.push_str(map.next_value::<&RawValue>()?.get());
            } else {
                map.next_value::<de::IgnoredAny>()?;
            }
        }
        self.out.push('}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn summary() -> Value {
        json!({
            "name": "s", "events": 12, "rounds": [{"group": null, "completed": [0.5]}],
            "flows": [
                {"name": "f0", "goodput_bps": 4.5, "drops": {"queue": 2}, "paths": [1, 2],
                 "switches": [{"at": 1.0}], "cc": "cubic"},
                {"name": "f1", "goodput_bps": 1e300, "drops": {}, "fct": null},
                {"name": "f2"}
            ],
            "links": [{"name": "a", "utilisation": 0.25, "packets_in": 3}, {"name": "b"}],
            "conservation": {"sent": 3}
        })
    }

    #[test]
    fn records_keep_the_fields_named_and_the_rest_stays_whole() {
        let text = summary().to_string();
        let cut = slim(
            &text,
            &["goodput_bps", "drops", "switches", "cc", "timeouts"],
            &["utilisation"],
        )
        .unwrap();
        let v: Value = serde_json::from_str(&cut).unwrap();
        let want = json!({
            "name": "s", "events": 12, "rounds": [{"group": null, "completed": [0.5]}],
            "flows": [
                {"goodput_bps": 4.5, "drops": {"queue": 2}, "switches": [{"at": 1.0}], "cc": "cubic"},
                {"goodput_bps": 1e300, "drops": {}},
                {}
            ],
            "links": [{"utilisation": 0.25}, {}],
            "conservation": {"sent": 3}
        });
        assert_eq!(v, want);
        // Compact text, values copied byte for byte, keys in the summary's order.
        assert_eq!(cut, serde_json::to_string(&want).unwrap());
    }

    /// Text copied as it is: the record's own key order, numbers as written.
    #[test]
    fn keys_keep_their_order_and_values_their_text() {
        let text = r#"{"z":1,"flows":[{"name":"f","timeouts":2,"goodput_bps":1.50e3}],"links":[],"a":[ 1 ]}"#;
        assert_eq!(
            slim(text, &["timeouts", "goodput_bps"], &[]).unwrap(),
            r#"{"z":1,"flows":[{"timeouts":2,"goodput_bps":1.50e3}],"links":[],"a":[ 1 ]}"#
        );
    }

    #[test]
    fn empty_lists_and_no_keys() {
        let text = r#"{"flows":[],"links":[{"x":1}]}"#;
        assert_eq!(
            slim(text, &[], &[]).unwrap(),
            r#"{"flows":[],"links":[{}]}"#
        );
    }

    #[test]
    fn what_is_not_a_summary_is_refused() {
        assert!(slim("[1]", &[], &[]).is_err());
        assert!(slim(r#"{"flows": 3}"#, &[], &[]).is_err());
        assert!(slim(r#"{"flows": [1]}"#, &[], &[]).is_err());
        assert!(slim(r#"{"flows": []} x"#, &[], &[]).is_err());
    }
}

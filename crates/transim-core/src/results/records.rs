//! Where each flow's or link direction's record lies in a summary's JSON text, and its name:
//! what finding one record by name or position needs, without reading the whole summary.
//! At 100,000 flows the summary is 300 MB of JSON, which takes Python five seconds to read
//! into objects; one record is a few hundred bytes of it.

use super::files::Records;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// The records of one of a summary's arrays: each one's name (None when it has none, or a
/// name that is not a string) and the byte range of its JSON text in the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordIndex {
    /// Each record's `name`.
    pub names: Vec<Option<String>>,
    /// Each record's text: `summary[start..end]`.
    pub spans: Vec<(usize, usize)>,
}

/// The [`RecordIndex`] of `which` records in the summary `json` (a JSON object whose
/// `flows` and `links` are arrays of objects). A summary without that array has no records.
pub fn index(json: &str, which: Records) -> Result<RecordIndex, serde_json::Error> {
    let mut out = RecordIndex::default();
    scan(json, which, None, &mut out)?;
    Ok(out)
}

/// The byte range of the `i`th of `which` records in the summary `json`, reading the text
/// only as far as that record (record 0 of 100,000 flows takes microseconds, where
/// [`index`] reads all 300 MB); None when there are fewer records.
pub fn span_of(
    json: &str,
    which: Records,
    i: usize,
) -> Result<Option<(usize, usize)>, serde_json::Error> {
    let mut out = RecordIndex::default();
    let read = scan(json, which, Some(i), &mut out);
    // Once the record is found the scan stops with an error of its own making.
    match (out.spans.get(i), read) {
        (Some(&span), _) => Ok(Some(span)),
        (None, Ok(())) => Ok(None),
        (None, Err(e)) => Err(e),
    }
}

/// Record the names and spans of `which` records into `out`; with `stop_after`, only spans,
/// and stop (with an error) once that record's span is in.
fn scan(
    json: &str,
    which: Records,
    stop_after: Option<usize>,
    out: &mut RecordIndex,
) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    Summary {
        base: json.as_ptr() as usize,
        key: match which {
            Records::Flows => "\"flows\"",
            Records::Links => "\"links\"",
        },
        stop_after,
        out,
    }
    .deserialize(&mut de)?;
    de.end()
}

/// The summary object: its `key` array indexed, everything else skipped.
struct Summary<'o> {
    base: usize,
    key: &'static str,
    stop_after: Option<usize>,
    out: &'o mut RecordIndex,
}

impl<'de> DeserializeSeed<'de> for Summary<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Summary<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a run's summary (an object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<&'de RawValue>()? {
            if key.get() == self.key {
                map.next_value_seed(Array {
                    base: self.base,
                    stop_after: self.stop_after,
                    out: &mut *self.out,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// The array of records.
struct Array<'o> {
    base: usize,
    stop_after: Option<usize>,
    out: &'o mut RecordIndex,
}

impl<'de> DeserializeSeed<'de> for Array<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

/// What a record's name is read into: only `name`, every other field skipped.
#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow, default)]
    name: Option<NameField<'a>>,
}

/// A `name` that is a string, or anything else (which names nothing).
#[derive(Deserialize)]
#[serde(untagged)]
enum NameField<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Other(IgnoredAny),
}

impl<'de> Visitor<'de> for Array<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(record) = seq.next_element::<&'de RawValue>()? {
            let text = record.get();
            if self.stop_after.is_some() && !text.starts_with('{') {
                return Err(de::Error::custom("a record that is not an object"));
            }
            let start = text.as_ptr() as usize - self.base;
            self.out.spans.push((start, start + text.len()));
            if let Some(last) = self.stop_after {
                if self.out.spans.len() > last {
                    return Err(de::Error::custom("found"));
                }
                continue;
            }
            let named: Named = serde_json::from_str(text).map_err(de::Error::custom)?;
            self.out.names.push(match named.name {
                Some(NameField::Text(n)) => Some(n.into_owned()),
                _ => None,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn summary() -> String {
        // Spaces and escapes as another writer might leave them.
        let flows = json!([
            {"goodput_bps": 4.5, "name": "f0", "drops": {"name": "not this"}},
            {"name": "tab\there \u{e9}", "x": [1, {"name": "nested"}]},
            {"x": 1},
            {"name": 7},
            {"name": "f0", "second": true}
        ]);
        format!(
            "{{ \"name\": \"run\", \"links\" : [{{\"name\":\"a->b\"}}],\n \"flows\": {flows:#} }}"
        )
    }

    #[test]
    fn each_record_is_found_by_its_span_and_named_by_its_own_name() {
        let text = summary();
        let idx = index(&text, Records::Flows).unwrap();
        let want: Vec<Value> = serde_json::from_str::<Value>(&text).unwrap()["flows"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(idx.spans.len(), want.len());
        for ((s, e), w) in idx.spans.iter().zip(&want) {
            assert_eq!(&serde_json::from_str::<Value>(&text[*s..*e]).unwrap(), w);
        }
        let names: Vec<Option<&str>> = idx.names.iter().map(|n| n.as_deref()).collect();
        assert_eq!(
            names,
            [Some("f0"), Some("tab\there \u{e9}"), None, None, Some("f0")]
        );
        let links = index(&text, Records::Links).unwrap();
        assert_eq!(links.names, [Some("a->b".to_string())]);
        let (s, e) = links.spans[0];
        assert_eq!(&text[s..e], "{\"name\":\"a->b\"}");
    }

    #[test]
    fn a_record_found_alone_has_the_span_the_index_gives_it() {
        let text = summary();
        for which in [Records::Flows, Records::Links] {
            let all = index(&text, which).unwrap();
            for (i, span) in all.spans.iter().enumerate() {
                assert_eq!(span_of(&text, which, i).unwrap(), Some(*span));
            }
            assert_eq!(span_of(&text, which, all.spans.len()).unwrap(), None);
        }
        // It reads no further than its record: what follows may be anything.
        let cut = "{\"flows\": [{\"name\": \"a\"}, {\"name\": \"b\"}, 123 garbage";
        assert_eq!(span_of(cut, Records::Flows, 1).unwrap(), Some((26, 39)));
        assert!(span_of(cut, Records::Flows, 2).is_err());
        assert!(span_of("{\"flows\": [1, {}]}", Records::Flows, 1).is_err());
    }

    #[test]
    fn a_summary_without_the_array_has_no_records_and_bad_text_is_an_error() {
        assert_eq!(
            index("{\"flows\": []}", Records::Links).unwrap(),
            RecordIndex::default()
        );
        assert!(index("{\"flows\": [1]}", Records::Flows).is_err());
        assert!(index("{\"flows\": [{}]", Records::Flows).is_err());
        assert!(index("[]", Records::Flows).is_err());
    }
}

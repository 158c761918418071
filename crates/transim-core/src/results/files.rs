//! A run's summary files: `results.json` (the summary, indented) and `flows.csv` /
//! `links.csv` (one row per flow or link direction, nested fields as dotted columns).
//!
//! They are made from the summary's JSON text in one pass each, in the order the text gives
//! its keys, so that a run of 100,000 flows (a 300 MB summary) writes them in about a second
//! instead of the tens of seconds a pure-Python indenter and flattener took.

use super::csv_table::{python_float, read_records, skip, Table};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Write `results.json`, `flows.csv` and `links.csv` for the summary `json` (a JSON object
/// with `flows` and `links` arrays of objects) into `dir`, which must exist. Returns the
/// paths written. A summary that is not such JSON gives an `InvalidData` error, and then no
/// file is replaced.
///
/// `results.json` is laid out on a second thread while this one reads the tables: the two
/// passes over the text are independent, and at 100,000 flows each takes about a second.
/// Each file is written under another name first; the three are renamed into place only
/// once all are complete, so a failure while writing leaves earlier files as they were
/// (a rename that fails leaves the files renamed before it replaced).
pub fn write_summary(json: &str, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let results = dir.join("results.json");
    let (indented, tables) = super::two_threads::both(
        || {
            Partial::write(&results, |file| {
                indent_into(json, file)?;
                file.write_all(b"\n")
            })
        },
        // The tables read the text as a summary: they refuse it if it is not one.
        || {
            tables(json).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the summary is not JSON with lists of flows and links: {e}"),
                )
            })
        },
    );
    let tables = tables?;
    let mut partials = vec![indented?];
    for (name, rows) in [("flows.csv", &tables.flows), ("links.csv", &tables.links)] {
        partials.push(Partial::write(&dir.join(name), |file| {
            file.write_all(rows.csv().as_bytes())
        })?);
    }
    partials.into_iter().map(Partial::commit).collect()
}

/// A file written in full under a hidden name beside `path` (`.name.partial`), waiting to be
/// renamed to `path` ([`Partial::commit`]); dropped uncommitted, it is removed. So an
/// interrupted or failed write leaves any earlier file at `path` as it was, never a truncated
/// one.
struct Partial {
    partial: PathBuf,
    path: PathBuf,
    committed: bool,
}

impl Partial {
    /// Write the file for `path` with `fill`, under the hidden name.
    fn write(
        path: &Path,
        fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    ) -> std::io::Result<Partial> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let written = Partial {
            partial: path.with_file_name(format!(".{name}.partial")),
            path: path.to_path_buf(),
            committed: false,
        };
        let file = std::fs::File::create(&written.partial)?;
        let mut file = std::io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut file)?;
        file.into_inner().map_err(|e| e.into_error())?;
        Ok(written)
    }

    /// Rename the file into place. Returns its path.
    fn commit(mut self) -> std::io::Result<PathBuf> {
        std::fs::rename(&self.partial, &self.path)?;
        self.committed = true;
        Ok(std::mem::take(&mut self.path))
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// JSON text laid out as Python's `json.dumps(value, indent=2)` lays it out: one member or
/// element per line, two spaces per level, `": "` after keys, empty arrays and objects as
/// `[]` and `{}`, fractions as Python's `repr` writes them and non-ASCII characters
/// escaped (`\u00e9`). Whitespace between tokens in `json` is dropped. So the indented text
/// of the engine's summary is byte for byte what Python writes for the summary it reads.
pub fn indent(json: &str) -> String {
    let mut out = vec![];
    indent_into(json, &mut out).expect("writing to memory");
    // Only whole tokens of valid UTF-8 text were copied, and ASCII added around them.
    String::from_utf8(out).expect("UTF-8 in, UTF-8 out")
}

/// [`indent`], written to `sink` a megabyte at a time (a summary of 100,000 flows is 450 MB
/// indented: building it whole in memory took longer than the writing).
pub fn indent_into(json: &str, sink: &mut impl Write) -> std::io::Result<()> {
    /// The bytes that end a number or a literal (`true`, `null`).
    const ENDS_TOKEN: [bool; 256] = {
        let mut t = [false; 256];
        let mut k = 0;
        let ends = b",:{}[]\" \t\n\r";
        while k < ends.len() {
            t[ends[k] as usize] = true;
            k += 1;
        }
        t
    };
    let bytes = json.as_bytes();
    const CHUNK: usize = 1 << 20;
    let mut out: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
    let mut depth = 0usize;
    let mut i = 0;
    // A line break and the indent of any depth up to 63 levels, sliced as needed.
    let mut pad = vec![b'\n'];
    pad.extend(std::iter::repeat_n(b' ', 126));
    let newline = |out: &mut Vec<u8>, depth: usize| {
        let n = 1 + 2 * depth;
        if n <= pad.len() {
            out.extend_from_slice(&pad[..n]);
        } else {
            out.push(b'\n');
            out.extend(std::iter::repeat_n(b' ', 2 * depth));
        }
    };
    while i < bytes.len() {
        if out.len() >= CHUNK {
            sink.write_all(&out)?;
            out.clear();
        }
        let c = bytes[i];
        match c {
            b'"' => {
                let start = i;
                let mut ascii = true;
                i += 1;
                while let Some(&b) = bytes.get(i) {
                    match b {
                        b'"' => break,
                        b'\\' => i += 2,
                        _ => {
                            ascii &= b < 0x80;
                            i += 1;
                        }
                    }
                }
                i = (i + 1).min(bytes.len());
                if ascii {
                    out.extend_from_slice(&bytes[start..i]);
                } else {
                    escape_non_ascii(&json[start..i], &mut out);
                }
                continue;
            }
            b'{' | b'[' => {
                let close = if c == b'{' { b'}' } else { b']' };
                let next = bytes[i + 1..].iter().position(|b| !b.is_ascii_whitespace());
                out.push(c);
                if let Some(k) = next.filter(|&k| bytes[i + 1 + k] == close) {
                    out.push(close);
                    i += 2 + k;
                    continue;
                }
                depth += 1;
                newline(&mut out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            b',' => {
                out.push(b',');
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                let start = i;
                while i < bytes.len() && !ENDS_TOKEN[bytes[i] as usize] {
                    i += 1;
                }
                push_number(&json[start..i], &mut out);
                continue;
            }
        }
        i += 1;
    }
    sink.write_all(&out)
}

/// A number or literal token: a fraction or exponent as Python's `repr` writes the float it
/// reads as (`1e-5` becomes `1e-05`, `1e16` becomes `1e+16`), anything else as it is.
fn push_number(token: &str, out: &mut Vec<u8>) {
    let b = token.as_bytes();
    if written_as_python_would(token) {
        return out.extend_from_slice(b);
    }
    let numeric = match b {
        [b'-', d, ..] | [d, ..] => d.is_ascii_digit(),
        [] => false,
    };
    let fraction = numeric && b.iter().any(|c| matches!(c, b'.' | b'e' | b'E'));
    match token.parse::<f64>() {
        Ok(v) if fraction => out.extend_from_slice(python_float(v).as_bytes()),
        _ => out.extend_from_slice(b),
    }
}

/// True for a fraction already in the form Python's `repr` gives it, taking its digits as
/// the shortest that read back as its value (as both the engine's JSON writer and Python's
/// write them): positional, no trailing zero after the point but for `.0`, at most 16
/// digits before the point (1e16 and up are written with an exponent), and no more than
/// three zeros after a leading `0.` (below 1e-4 likewise). Most of a summary's fractions
/// are, and are then copied rather than read and written again.
fn written_as_python_would(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    let Some((whole, fraction)) = digits.split_once('.') else {
        return false;
    };
    let all_digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    all_digits(whole)
        && all_digits(fraction)
        && (whole == "0" || (!whole.starts_with('0') && whole.len() <= 16))
        && (fraction == "0" || !fraction.ends_with('0'))
        && !(whole == "0" && fraction.starts_with("0000"))
}

/// A string token with its non-ASCII characters as `\uXXXX` escapes (UTF-16 surrogate pairs
/// beyond the basic plane), as Python's `json.dumps` writes them by default.
fn escape_non_ascii(token: &str, out: &mut Vec<u8>) {
    let mut units = [0u16; 2];
    for c in token.chars() {
        if c.is_ascii() {
            out.push(c as u8);
            continue;
        }
        for u in c.encode_utf16(&mut units) {
            out.extend_from_slice(format!("\\u{u:04x}").as_bytes());
        }
    }
}

/// The flows and links of a summary, flattened.
#[derive(Debug, Default)]
pub struct Tables {
    /// One row per flow.
    pub flows: Table,
    /// One row per link direction.
    pub links: Table,
}

/// Flatten the `flows` and `links` arrays of the summary `json` (see
/// [`super::csv_table`]): a list becomes its compact JSON text, null an empty cell, true and
/// false `True` and `False`, a fractional number Python's `repr` of it.
pub fn tables(json: &str) -> Result<Tables, serde_json::Error> {
    flatten(json, None)
}

/// Which records of a summary: its flows or its link directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    /// The `flows` array.
    Flows,
    /// The `links` array.
    Links,
}

/// Flatten one of the summary's arrays as [`tables`] does, skipping the other (half the
/// work when only one table is wanted).
pub fn table(json: &str, which: Records) -> Result<Table, serde_json::Error> {
    let t = flatten(json, Some(which))?;
    Ok(match which {
        Records::Flows => t.flows,
        Records::Links => t.links,
    })
}

/// The summary `json` with both arrays flattened, or only `only`.
fn flatten(json: &str, only: Option<Records>) -> Result<Tables, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let tables = SummarySeed { only }.deserialize(&mut de)?;
    de.end()?;
    Ok(tables)
}

/// The summary object: `flows` and `links` are flattened (or only the one named), other
/// keys skipped.
struct SummarySeed {
    only: Option<Records>,
}

impl<'de> DeserializeSeed<'de> for SummarySeed {
    type Value = Tables;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Tables, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SummarySeed {
    type Value = Tables;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a run's summary (an object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tables, A::Error> {
        let mut tables = Tables::default();
        let wanted = |r: Records| self.only.is_none_or(|only| only == r);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "flows" if wanted(Records::Flows) => {
                    map.next_value_seed(RecordsOf(&mut tables.flows))?
                }
                "links" if wanted(Records::Links) => {
                    map.next_value_seed(RecordsOf(&mut tables.links))?
                }
                _ => skip(&mut map)?,
            }
        }
        Ok(tables)
    }
}

/// The records of one table.
struct RecordsOf<'a>(&'a mut Table);

impl<'de> DeserializeSeed<'de> for RecordsOf<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        read_records(self.0, d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_as_python_writes_them() {
        // Each pair is (value, Python 3's repr of it).
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.74, "0.74"),
            (79146897.2972973, "79146897.2972973"),
            (0.020002592, "0.020002592"),
            (1e-4, "0.0001"),
            (1.5e-5, "1.5e-05"),
            (1e-5, "1e-05"),
            (123456789012345.6, "123456789012345.6"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e17, "1.2345e+17"),
            (-2.5e-300, "-2.5e-300"),
            (1e300, "1e+300"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::INFINITY, "inf"),
        ];
        for (v, want) in cases {
            assert_eq!(python_float(v), want, "{v:e}");
        }
    }

    /// The copy taken for fractions already in Python's form gives what reading and writing
    /// them gives, and the ones it leaves to that path are the ones that change.
    #[test]
    fn fractions_in_pythons_form_are_copied_and_only_they() {
        let text = |token: &str| {
            let mut out = vec![];
            push_number(token, &mut out);
            String::from_utf8(out).unwrap()
        };
        let kept = [
            "0.0",
            "-0.0",
            "1.0",
            "0.74",
            "0.0001",
            "0.00012",
            "-2.5",
            "79146897.2972973",
            "0.30000000000000004",
            "1000000000000000.0",
            "123456789012345.6",
        ];
        for t in kept {
            assert!(written_as_python_would(t), "{t}");
            assert_eq!(text(t), python_float(t.parse().unwrap()), "{t}");
        }
        let changed = [
            ("0.00001", "1e-05"),
            ("1e16", "1e+16"),
            ("1.5e-5", "1.5e-05"),
            ("10000000000000000.0", "1e+16"),
            ("0.50", "0.5"),
            ("3e0", "3.0"),
        ];
        for (t, want) in changed {
            assert!(!written_as_python_would(t), "{t}");
            assert_eq!(text(t), want, "{t}");
        }
        assert_eq!(text("12"), "12");
        assert_eq!(text("-7"), "-7");
    }

    #[test]
    fn indenting_lays_text_out_as_pythons_indent_2() {
        // Python: json.dumps({"a": 1, "b": [1.5, {}], "c": {"d": [], "e": "x, {y}: \"z\""}},
        //                    indent=2)
        let compact = r#"{"a":1,"b":[1.5,{}],"c":{"d":[ ],"e":"x, {y}: \"z\""}}"#;
        let want = "{\n  \"a\": 1,\n  \"b\": [\n    1.5,\n    {}\n  ],\n  \"c\": {\n    \
                    \"d\": [],\n    \"e\": \"x, {y}: \\\"z\\\"\"\n  }\n}";
        assert_eq!(indent(compact), want);
        // Spaced input (Python's default separators) gives the same layout.
        let spaced = r#"{"a": 1, "b": [1.5, {}], "c": {"d": [], "e": "x, {y}: \"z\""}}"#;
        assert_eq!(indent(spaced), want);
        assert_eq!(indent("[]"), "[]");
        assert_eq!(indent("{\"k\":\"\\\\\"}"), "{\n  \"k\": \"\\\\\"\n}");
    }

    #[test]
    fn numbers_and_non_ascii_text_are_written_as_python_reads_and_writes_them() {
        // What Python 3 gives for json.dumps(json.loads(text), indent=2).
        let text = "{\"a\":1e-5,\"b\":1e16,\"c\":2,\"d\":-0.5,\"e\":\"\u{e9}\u{1F600}\",\
                    \"f\":NaN,\"g\":-Infinity,\"h\":[true,null,12345678901234567890,1E2]}";
        let want = "{\n  \"a\": 1e-05,\n  \"b\": 1e+16,\n  \"c\": 2,\n  \"d\": -0.5,\n  \
                    \"e\": \"\\u00e9\\ud83d\\ude00\",\n  \"f\": NaN,\n  \"g\": -Infinity,\n  \
                    \"h\": [\n    true,\n    null,\n    12345678901234567890,\n    100.0\n  ]\n}";
        assert_eq!(indent(text), want);
    }

    #[test]
    fn records_flatten_into_columns_in_order_of_first_appearance() {
        let json = r#"{"name":"s","flows":[
            {"name":"f0","drops":{"queue":2,"loss":0},"cc_model":null,"ok":true,"g":0.5},
            {"name":"f,1","drops":{"queue":0,"loss":1},"cc_model":{"state":"probe"},
             "ok":false,"g":1e-7,"switches":[[0.5,"cubic"]]}],
            "links":[],"conservation":{"sent":1}}"#;
        let t = tables(json).unwrap();
        assert_eq!(
            t.flows.columns,
            [
                "name",
                "drops.queue",
                "drops.loss",
                "cc_model",
                "ok",
                "g",
                "cc_model.state",
                "switches"
            ]
        );
        assert_eq!(
            t.flows.csv(),
            "name,drops.queue,drops.loss,cc_model,ok,g,cc_model.state,switches\r\n\
             f0,2,0,,True,0.5,,\r\n\
             \"f,1\",0,1,,False,1e-07,probe,\"[[0.5,\"\"cubic\"\"]]\"\r\n"
        );
        assert!(t.links.columns.is_empty() && t.links.is_empty());
        assert_eq!(t.links.csv(), "\r\n");
    }

    #[test]
    fn one_table_is_the_same_as_either_of_both() {
        let json = r#"{"flows":[{"a":{"b":1}},{"c":[2]}],"links":[{"n":"x->y","u":0.5}],"k":3}"#;
        let both = tables(json).unwrap();
        let flows = table(json, Records::Flows).unwrap();
        let links = table(json, Records::Links).unwrap();
        assert_eq!(flows.csv(), both.flows.csv());
        assert_eq!(flows.csv(), "a.b,c\r\n1,\r\n,[2]\r\n");
        assert_eq!(links.csv(), both.links.csv());
        assert_eq!(links.csv(), "n,u\r\nx->y,0.5\r\n");
        // The table skipped is not read as records; the one asked for still is.
        assert!(table(r#"{"flows":3,"links":[]}"#, Records::Links).is_ok());
        assert!(table(r#"{"flows":3,"links":[]}"#, Records::Flows).is_err());
        assert!(table(r#"{"flows":[],"links":[]} x"#, Records::Links).is_err());
    }

    #[test]
    fn a_summary_that_is_not_records_is_refused() {
        assert!(tables(r#"{"flows":[1,2]}"#).is_err());
        assert!(tables(r#"{"flows":{}}"#).is_err());
        assert!(tables("[1]").is_err());
        assert!(tables(r#"{"flows":[]} x"#).is_err());
        let dir = std::env::temp_dir().join(format!("transim-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = write_summary("{\"flows\": 3}", &dir).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(!dir.join("results.json").exists(), "nothing written");
        // Laid out on the other thread before the refusal, results.json is not left behind
        // under its hidden name either.
        assert!(!dir.join(".results.json.partial").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Each file is replaced whole: an earlier one stays until its successor is complete,
    /// and nothing half-written is left beside them.
    #[test]
    fn files_are_replaced_whole_or_not_at_all() {
        let dir = std::env::temp_dir().join(format!("transim-replace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let summary = r#"{"name":"a","flows":[{"x":1}],"links":[{"y":2.5}]}"#;
        let written = write_summary(summary, &dir).unwrap();
        let names: Vec<_> = written.iter().map(|p| p.file_name().unwrap()).collect();
        assert_eq!(names, ["results.json", "flows.csv", "links.csv"]);
        let listing = |dir: &Path| {
            let mut v: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(listing(&dir), ["flows.csv", "links.csv", "results.json"]);
        let before = std::fs::read_to_string(dir.join("results.json")).unwrap();
        assert_eq!(before, indent(summary) + "\n");
        // A failing write (the target is a directory that cannot be replaced by a file)
        // leaves the earlier file and no partial one.
        std::fs::remove_file(dir.join("links.csv")).unwrap();
        std::fs::create_dir_all(dir.join("links.csv").join("occupied")).unwrap();
        let other = r#"{"name":"b","flows":[{"x":3}],"links":[{"y":4}]}"#;
        assert!(write_summary(other, &dir).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("flows.csv")).unwrap(),
            "x\r\n3\r\n"
        );
        assert!(std::fs::read_to_string(dir.join("results.json")).unwrap() != before);
        assert!(
            listing(&dir).iter().all(|n| !n.ends_with(".partial")),
            "{:?}",
            listing(&dir)
        );
        // Not a summary: everything as it was.
        let now = std::fs::read_to_string(dir.join("results.json")).unwrap();
        assert!(write_summary("{\"flows\": 3}", &dir).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("results.json")).unwrap(),
            now
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

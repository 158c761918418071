//! The writer against `serde_json::to_string`, which it must match byte for byte.

use super::to_text;
use proptest::prelude::*;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::collections::BTreeMap;

/// Both writers' texts for `v`, checked equal.
fn same<T: Serialize + ?Sized>(v: &T) -> String {
    let ours = to_text(v, 0).expect("ours writes it");
    let theirs = serde_json::to_string(v).expect("serde_json writes it");
    assert_eq!(ours, theirs);
    ours
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Newtype(u32);

#[derive(Serialize)]
struct Pair(i8, &'static str);

#[derive(Serialize)]
enum Kind {
    Plain,
    Wrapped(f64),
    Tuple(u8, Option<bool>),
    Record { a: u16, b: Vec<i32> },
}

#[derive(Serialize)]
struct Inner {
    x: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
}

/// Written through `Display` (`collect_str`).
struct Shown(&'static str);

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}\"{}", self.0, 42)
    }
}

impl Serialize for Shown {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Bytes, which `serde_json` writes as an array of numbers.
struct Bytes(&'static [u8]);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

#[derive(Serialize)]
struct Everything {
    t: bool,
    f: bool,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    i128: i128,
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    u128: u128,
    f32: f32,
    f64: f64,
    nan: f64,
    inf: f32,
    c: char,
    s: String,
    none: Option<u8>,
    some: Option<&'static str>,
    unit: (),
    unit_struct: Unit,
    newtype: Newtype,
    pair: Pair,
    kinds: Vec<Kind>,
    empty: Vec<u8>,
    empty_map: BTreeMap<String, u8>,
    tuple: (u8, f64, &'static str),
    inner: Inner,
    #[serde(flatten)]
    flat: Inner,
    shown: Shown,
    bytes: Bytes,
    by_int: BTreeMap<i64, u8>,
    by_bool: BTreeMap<bool, u8>,
    by_char: BTreeMap<char, u8>,
    by_kind: Vec<(Option<&'static str>, u8)>,
    #[serde(rename = "a \"quoted\"\nname")]
    escaped_name: u8,
}

#[test]
fn every_kind_of_value_is_written_as_serde_json_writes_it() {
    let v = Everything {
        t: true,
        f: false,
        i8: i8::MIN,
        i16: i16::MIN,
        i32: i32::MIN,
        i64: i64::MIN,
        i128: i128::MIN,
        u8: u8::MAX,
        u16: u16::MAX,
        u32: u32::MAX,
        u64: u64::MAX,
        u128: u128::MAX,
        f32: 0.1,
        f64: -0.0,
        nan: f64::NAN,
        inf: f32::NEG_INFINITY,
        c: '\u{1}',
        s: "é \u{1F600} \u{7F}".into(),
        none: None,
        some: Some("x"),
        unit: (),
        unit_struct: Unit,
        newtype: Newtype(7),
        pair: Pair(-1, "b"),
        kinds: vec![
            Kind::Plain,
            Kind::Wrapped(1e300),
            Kind::Tuple(3, None),
            Kind::Record {
                a: 9,
                b: vec![-5, 6],
            },
        ],
        empty: vec![],
        empty_map: BTreeMap::new(),
        tuple: (1, 2.5, "\\"),
        inner: Inner {
            x: f32::MAX,
            skipped: None,
        },
        flat: Inner {
            x: 1e-7,
            skipped: Some(3),
        },
        shown: Shown("a\tb"),
        bytes: Bytes(&[0, 255, 10]),
        by_int: [(-3, 1), (4, 2)].into_iter().collect(),
        by_bool: [(false, 1), (true, 2)].into_iter().collect(),
        by_char: [('"', 1), ('z', 2)].into_iter().collect(),
        by_kind: vec![(Some("k"), 1), (None, 2)],
        escaped_name: 9,
    };
    let text = same(&v);
    assert!(text.ends_with(r#","a \"quoted\"\nname":9}"#), "{text}");
    // A spot check that the comparison is of real text.
    assert!(
        text.contains(r#""nan":null,"inf":null,"c":"\u0001""#),
        "{text}"
    );
    assert!(text.contains(r#""kinds":["Plain",{"Wrapped":1e+300},{"Tuple":[3,null]},{"Record":{"a":9,"b":[-5,6]}}]"#), "{text}");
}

#[test]
fn keys_that_are_not_strings_are_quoted_or_refused_as_serde_json_does() {
    let by_float: BTreeMap<u8, u8> = [(1, 2)].into_iter().collect();
    same(&by_float);
    /// A map whose one key is the given value.
    struct OneKey<K>(K);
    impl<K: Serialize> Serialize for OneKey<K> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry(&self.0, &0)?;
            m.end()
        }
    }
    same(&OneKey(2.5f64));
    same(&OneKey(Some(7u8)));
    same(&OneKey(Newtype(3)));
    for (ours, theirs) in [
        (to_text(&OneKey(()), 0), serde_json::to_string(&OneKey(()))),
        (
            to_text(&OneKey(vec![1]), 0),
            serde_json::to_string(&OneKey(vec![1])),
        ),
        (
            to_text(&OneKey(f64::NAN), 0),
            serde_json::to_string(&OneKey(f64::NAN)),
        ),
        (
            to_text(&OneKey(None::<u8>), 0),
            serde_json::to_string(&OneKey(None::<u8>)),
        ),
    ] {
        let (ours, theirs) = (ours.unwrap_err(), theirs.unwrap_err());
        assert_eq!(ours.to_string(), theirs.to_string());
    }
}

#[test]
fn a_raw_json_value_is_refused_not_written_wrong() {
    let raw = serde_json::value::RawValue::from_string("[1]".into()).unwrap();
    let err = to_text(&raw, 0).unwrap_err();
    assert!(err.to_string().contains("raw JSON value"), "{err}");
}

#[test]
fn every_ascii_character_is_escaped_as_serde_json_escapes_it() {
    for b in 0u8..=0x7F {
        let c = char::from(b);
        // At every place in an eight-byte word, and in the tail after the words.
        for before in 0..18 {
            let s = format!("{}{c}{}", "a".repeat(before), "b".repeat(3));
            same(&s);
        }
    }
}

proptest! {
    #[test]
    fn any_string_is_written_as_serde_json_writes_it(s in any::<String>()) {
        let ours = to_text(&s, 0).unwrap();
        prop_assert_eq!(ours, serde_json::to_string(&s).unwrap());
    }

    #[test]
    fn strings_of_json_s_special_bytes_are_written_as_serde_json_writes_them(
        parts in proptest::collection::vec(
            prop_oneof![Just("\""), Just("\\"), Just("\n"), Just("\u{1f}"), Just("ab"), Just("é")],
            0..40,
        )
    ) {
        let s: String = parts.concat();
        prop_assert_eq!(to_text(&s, 0).unwrap(), serde_json::to_string(&s).unwrap());
    }

    #[test]
    fn any_float_is_written_as_serde_json_writes_it(bits in any::<u64>(), small in any::<u32>()) {
        let (x, y) = (f64::from_bits(bits), f32::from_bits(small));
        prop_assert_eq!(to_text(&(x, y), 0).unwrap(), serde_json::to_string(&(x, y)).unwrap());
    }
}

//! Compact JSON text, byte for byte as `serde_json::to_string` writes it, with less work per
//! field for the run summary: a run of 10,000 flows has 30 MB of it, and `serde_json` spent
//! a quarter of its instructions checking names for characters to escape, one byte at a
//! time. Here a string is checked eight bytes at a step, and a field name goes out with its
//! quotes and colon in one piece; numbers are written by `serde_json`'s own formatter, so
//! they come out as `serde_json` writes them.

use serde::ser::{self, Serialize};
use serde_json::ser::{CompactFormatter, Formatter};
use serde_json::Error;
use std::fmt::Write as _;

/// A serializer's methods for the narrower integers, each writing its value as the 64-bit
/// integer of its sign (as `serde_json` does).
macro_rules! widened_from_narrow_integers {
    () => {
        fn serialize_i8(self, v: i8) -> Result<(), Error> {
            self.serialize_i64(v.into())
        }
        fn serialize_i16(self, v: i16) -> Result<(), Error> {
            self.serialize_i64(v.into())
        }
        fn serialize_i32(self, v: i32) -> Result<(), Error> {
            self.serialize_i64(v.into())
        }
        fn serialize_u8(self, v: u8) -> Result<(), Error> {
            self.serialize_u64(v.into())
        }
        fn serialize_u16(self, v: u16) -> Result<(), Error> {
            self.serialize_u64(v.into())
        }
        fn serialize_u32(self, v: u32) -> Result<(), Error> {
            self.serialize_u64(v.into())
        }
    };
}

mod key;
use key::Key;

/// `value` as compact JSON text, the same bytes as `serde_json::to_string(value)`;
/// `capacity` is a guess of its length (a good one saves copying as the text grows).
pub fn to_text<T: Serialize + ?Sized>(value: &T, capacity: usize) -> Result<String, Error> {
    let mut text = Text {
        out: Vec::with_capacity(capacity),
        scratch: String::new(),
        verbatim_next: false,
    };
    value.serialize(&mut text)?;
    // Only valid UTF-8 is ever written: whole `&str`s, ASCII punctuation and numbers.
    String::from_utf8(text.out).map_err(|e| ser::Error::custom(e.to_string()))
}

/// The text being written.
struct Text {
    out: Vec<u8>,
    /// Reused for values written through `Display` (`collect_str`).
    scratch: String,
    /// The next string is JSON text already ([`Verbatim`]): copied as it is.
    verbatim_next: bool,
}

/// The struct name a [`Verbatim`] serialises under.
const VERBATIM: &str = "$transim::json_text::Verbatim";

/// JSON text written as it is, in place of a value, by [`to_text`] (text made apart, e.g.
/// on another thread). Any other serializer writes it as a string: it is for this writer
/// only.
pub(crate) struct Verbatim<'a>(pub &'a str);

impl Serialize for Verbatim<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(VERBATIM, self.0)
    }
}

/// The struct name `serde_json` gives a raw JSON value (not a public name of `serde_json`'s);
/// this writer does not take one.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes in `w` is a control character (below 0x20), `"` or `\`:
/// the bytes JSON escapes. (Bytes from 0x80 up, parts of longer characters, never count.)
fn needs_escape(w: u64) -> bool {
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | quote | backslash) & HIGHS != 0
}

/// Whether `bytes` holds a byte JSON escapes, checked eight at a step.
fn any_escape(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        if needs_escape(u64::from_le_bytes(word)) {
            return true;
        }
    }
    // The last few bytes, padded with a letter that needs no escape.
    let rest = words.remainder();
    let mut word = [b'a'; 8];
    word[..rest.len()].copy_from_slice(rest);
    needs_escape(u64::from_le_bytes(word))
}

/// `s` as a JSON string, quoted and escaped as `serde_json` escapes it.
fn write_str(out: &mut Vec<u8>, s: &str) {
    write_quoted(out, s, b"\"");
}

/// An opening quote, `s` escaped, then `close` (the closing quote, with the colon after a
/// field name: `"name":` goes out in one piece, a twentieth of a summary's instructions).
#[inline]
fn write_quoted<const N: usize>(out: &mut Vec<u8>, s: &str, close: &[u8; N]) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 1 + N);
    out.push(b'"');
    if any_escape(bytes) {
        write_escaped(out, bytes);
    } else {
        out.extend_from_slice(bytes);
    }
    out.extend_from_slice(close);
}

/// `bytes` with the characters JSON escapes escaped.
#[cold]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x0C => b'f',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0..=0x1F => b'u',
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.push(b'\\');
        out.push(short);
        if short == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Writes through `serde_json`'s compact formatter into a `Vec`, which cannot fail.
fn fmt(
    out: &mut Vec<u8>,
    f: impl FnOnce(&mut CompactFormatter, &mut Vec<u8>) -> std::io::Result<()>,
) {
    f(&mut CompactFormatter, out).expect("writing into a Vec cannot fail");
}

fn write_f64(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        fmt(out, |f, w| f.write_f64(w, v));
    } else {
        out.extend_from_slice(b"null");
    }
}

fn write_f32(out: &mut Vec<u8>, v: f32) {
    if v.is_finite() {
        fmt(out, |f, w| f.write_f32(w, v));
    } else {
        out.extend_from_slice(b"null");
    }
}

/// An array or object being written: whether the next item is its first.
struct Compound<'a> {
    text: &'a mut Text,
    first: bool,
}

impl Compound<'_> {
    /// The comma before every item but the first.
    fn separate(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.text.out.push(b',');
        }
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.separate();
        write_quoted(&mut self.text.out, key, b"\":");
        value.serialize(&mut *self.text)
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.separate();
        value.serialize(&mut *self.text)
    }
}

impl Text {
    fn open(&mut self, bracket: u8) -> Compound<'_> {
        self.out.push(bracket);
        Compound {
            text: self,
            first: true,
        }
    }

    /// `{"variant":` before a variant's contents (closed by `}` after them).
    fn open_variant(&mut self, variant: &str) {
        self.out.push(b'{');
        write_str(&mut self.out, variant);
        self.out.push(b':');
    }
}

impl<'a> ser::Serializer for &'a mut Text {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    widened_from_narrow_integers!();
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        fmt(&mut self.out, |f, w| f.write_i64(w, v));
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        fmt(&mut self.out, |f, w| f.write_i128(w, v));
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        fmt(&mut self.out, |f, w| f.write_u64(w, v));
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        fmt(&mut self.out, |f, w| f.write_u128(w, v));
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        write_f32(&mut self.out, v);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        write_f64(&mut self.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(&mut self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        if self.verbatim_next {
            self.verbatim_next = false;
            self.out.extend_from_slice(v.as_bytes());
        } else {
            write_str(&mut self.out, v);
        }
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        fmt(&mut self.out, |f, w| f.write_byte_array(w, v));
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.verbatim_next = name == VERBATIM;
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.open_variant(variant);
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'['))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'['))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'['))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant);
        Ok(self.open(b'['))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(b'{'))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Compound<'a>, Error> {
        if name == RAW_VALUE {
            return Err(ser::Error::custom(
                "a raw JSON value cannot be written as summary text",
            ));
        }
        Ok(self.open(b'{'))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant);
        Ok(self.open(b'{'))
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        write!(s, "{value}").map_err(|e| <Error as ser::Error>::custom(e.to_string()))?;
        write_str(&mut self.out, &s);
        self.scratch = s;
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }
    fn end(self) -> Result<(), Error> {
        self.text.out.push(b']');
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }
    fn end(self) -> Result<(), Error> {
        self.text.out.extend_from_slice(b"]}");
        Ok(())
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.separate();
        key.serialize(Key(&mut *self.text))?;
        self.text.out.push(b':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.text)
    }
    fn end(self) -> Result<(), Error> {
        self.text.out.push(b'}');
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.entry(key, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeMap::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.entry(key, value)
    }
    fn end(self) -> Result<(), Error> {
        self.text.out.extend_from_slice(b"}}");
        Ok(())
    }
}

#[cfg(test)]
mod tests;

//! A map's key, written as `serde_json` writes one: strings, and numbers and bools quoted.

use super::{fmt, write_f32, write_f64, write_str, Text};
use serde::ser::{self, Serialize};
use serde_json::ser::Formatter;
use serde_json::Error;

/// A map's key: a string, or what `serde_json` writes as one (a number or a bool, quoted).
pub(super) struct Key<'a>(pub(super) &'a mut Text);

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

impl Key<'_> {
    /// `write` between quotes.
    fn quoted(self, write: impl FnOnce(&mut Vec<u8>)) -> Result<(), Error> {
        self.0.out.push(b'"');
        write(&mut self.0.out);
        self.0.out.push(b'"');
        Ok(())
    }
}

/// Refuse a key that `serde_json` refuses.
macro_rules! not_a_key {
    ($($name:ident($($arg:ty),*) -> $ok:ty;)*) => {
        $(fn $name(self $(, _: $arg)*) -> Result<$ok, Error> {
            Err(key_must_be_a_string())
        })*
    };
}

impl ser::Serializer for Key<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(&mut self.0.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
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
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        ser::Serializer::collect_str(self.0, value)
    }
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.quoted(|out| out.extend_from_slice(if v { b"true" } else { b"false" }))
    }
    widened_from_narrow_integers!();
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.quoted(|out| fmt(out, |f, w| f.write_i64(w, v)))
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.quoted(|out| fmt(out, |f, w| f.write_i128(w, v)))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.quoted(|out| fmt(out, |f, w| f.write_u64(w, v)))
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.quoted(|out| fmt(out, |f, w| f.write_u128(w, v)))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        self.quoted(|out| write_f32(out, v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        self.quoted(|out| write_f64(out, v))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    not_a_key! {
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

//! A transport's results as (field name, JSON value) pairs in name order: the object
//! `serde_json::to_value` would make of the struct, whose map sorts its keys, without a
//! string and a tree node per field. A run of 100,000 flows spent most of the time it took to
//! write its flows' results in building those maps.

use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};
use serde_json::{Error, Value};

/// The fields of `x`, which must serialise as a struct, in name order; each value as
/// `serde_json::to_value` makes it.
pub(crate) fn sorted_fields<T: Serialize + ?Sized>(
    x: &T,
) -> Result<Vec<(&'static str, Value)>, Error> {
    let mut fields = x.serialize(Fields(Vec::new()))?;
    LAST_ORDER.with_borrow_mut(|last| {
        if !last.is_for(&fields) {
            *last = NameOrder::of(&fields);
        }
        Ok(last.apply(&mut fields))
    })
}

thread_local! {
    /// The name order of the last struct sorted: every flow of a run has results of the
    /// same one or two types, so the order is worked out once, not sorted again per flow
    /// (that sort was a sixth of the time taken to write a run's summary text).
    static LAST_ORDER: std::cell::RefCell<NameOrder> = const {
        std::cell::RefCell::new(NameOrder { names: Vec::new(), order: Vec::new() })
    };
}

/// Field names as a struct gives them, and the order that sorts them.
struct NameOrder {
    names: Vec<&'static str>,
    order: Vec<usize>,
}

impl NameOrder {
    fn of(fields: &[(&'static str, Value)]) -> Self {
        let names: Vec<&'static str> = fields.iter().map(|f| f.0).collect();
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| names[a].cmp(names[b]));
        NameOrder { names, order }
    }

    /// Whether `fields` come with the same names in the same order (the same static
    /// strings: a struct's field names, and no field skipped that was there before).
    fn is_for(&self, fields: &[(&'static str, Value)]) -> bool {
        self.names.len() == fields.len()
            && self
                .names
                .iter()
                .zip(fields)
                .all(|(&a, &(b, _))| std::ptr::eq(a, b))
    }

    /// `fields` in name order (their values moved out).
    fn apply(&self, fields: &mut [(&'static str, Value)]) -> Vec<(&'static str, Value)> {
        self.order
            .iter()
            .map(|&i| (fields[i].0, std::mem::take(&mut fields[i].1)))
            .collect()
    }
}

/// Collects a struct's fields; anything else is refused.
struct Fields(Vec<(&'static str, Value)>);

fn not_a_struct() -> Error {
    ser::Error::custom("a transport's results must serialise as a struct")
}

impl SerializeStruct for Fields {
    type Ok = Vec<(&'static str, Value)>;
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.0.push((key, serde_json::to_value(value)?));
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.0)
    }
}

/// Refuse a value that is not a struct.
macro_rules! refuse {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self $(, _: $arg)*) -> Result<Self::Ok, Error> {
            Err(not_a_struct())
        })*
    };
}

impl Serializer for Fields {
    type Ok = Vec<(&'static str, Value)>;
    type Error = Error;
    type SerializeSeq = Impossible<Self::Ok, Error>;
    type SerializeTuple = Impossible<Self::Ok, Error>;
    type SerializeTupleStruct = Impossible<Self::Ok, Error>;
    type SerializeTupleVariant = Impossible<Self::Ok, Error>;
    type SerializeMap = Impossible<Self::Ok, Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<Self::Ok, Error>;

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Self, Error> {
        Ok(Fields(Vec::with_capacity(len)))
    }

    refuse! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Self::Ok, Error> {
        Err(not_a_struct())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Error> {
        Err(not_a_struct())
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Error> {
        Err(not_a_struct())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_a_struct())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_a_struct())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_a_struct())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_a_struct())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_a_struct())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_a_struct())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Inner {
        z: u64,
        a: f64,
    }

    #[derive(Serialize)]
    struct Outer {
        name: &'static str,
        count: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        gone: Option<u64>,
        here: Option<f64>,
        inner: Inner,
        list: Vec<(f64, &'static str)>,
        nan: f64,
        b: bool,
        neg: i64,
    }

    /// The pairs, written as a JSON object, read exactly as `to_value`'s sorted map.
    #[test]
    fn fields_come_sorted_as_to_value_would_hold_them() {
        let x = Outer {
            name: "reno",
            count: 7,
            gone: None,
            here: Some(0.1),
            inner: Inner { z: 1, a: 2.5 },
            list: vec![(1.25, "cubic")],
            nan: f64::NAN,
            b: true,
            neg: -3,
        };
        let fields = sorted_fields(&x).unwrap();
        let names: Vec<_> = fields.iter().map(|f| f.0).collect();
        assert_eq!(
            names,
            ["b", "count", "here", "inner", "list", "name", "nan", "neg"]
        );
        let map: serde_json::Map<String, Value> = fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(
            serde_json::to_string(&map).unwrap(),
            serde_json::to_string(&serde_json::to_value(&x).unwrap()).unwrap()
        );
    }

    /// The order worked out for one struct is reused only for the same names: structs of
    /// two types taking turns, and a field skipped in one value and not the next, each come
    /// out as `to_value` holds them.
    #[test]
    fn a_remembered_order_serves_only_the_same_names() {
        let values: Vec<Box<dyn erased::Ser>> = vec![
            Box::new(Inner { z: 3, a: 1.0 }),
            Box::new(Outer {
                name: "a",
                count: 1,
                gone: Some(4),
                here: None,
                inner: Inner { z: 1, a: 2.0 },
                list: vec![],
                nan: 0.5,
                b: false,
                neg: 0,
            }),
            Box::new(Outer {
                name: "b",
                count: 2,
                gone: None,
                here: Some(1.0),
                inner: Inner { z: 9, a: 8.0 },
                list: vec![(0.0, "x")],
                nan: 1.5,
                b: true,
                neg: -9,
            }),
            Box::new(Inner { z: 5, a: 6.0 }),
            Box::new(Inner { z: 7, a: 8.0 }),
        ];
        for x in &values {
            let map: serde_json::Map<String, Value> = x
                .fields()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            assert_eq!(serde_json::to_string(&map).unwrap(), x.json());
        }
    }

    /// Sorting and `to_value` for values of different types behind one pointer.
    mod erased {
        use super::*;
        pub trait Ser {
            fn fields(&self) -> Vec<(&'static str, Value)>;
            fn json(&self) -> String;
        }
        impl<T: Serialize> Ser for T {
            fn fields(&self) -> Vec<(&'static str, Value)> {
                sorted_fields(self).unwrap()
            }
            fn json(&self) -> String {
                serde_json::to_string(&serde_json::to_value(self).unwrap()).unwrap()
            }
        }
    }

    #[test]
    fn anything_but_a_struct_is_refused() {
        assert!(sorted_fields(&3u64).is_err());
        assert!(sorted_fields(&vec![1, 2]).is_err());
        assert!(sorted_fields(&Some(Inner { z: 1, a: 1.0 })).is_err());
    }
}

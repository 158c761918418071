//! Records (JSON objects) flattened into a CSV table, as the Python front end's `csv`
//! module wrote `flows.csv` and `links.csv` before the engine took the job over: nested
//! fields become dotted columns (`drops.queue`), columns come in order of first appearance,
//! a record without a column leaves its cell empty.
//!
//! One pass over the JSON text, without building it as values: a record's keys are matched
//! against the keys the records before it had, in the same order (usually the first guess),
//! and its cells go straight into the table's text. 500,000 records of 30 cells take well
//! under a second.

use serde::de::Visitor;
use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess};
use std::fmt::{self, Write as _};

/// A place in the records' key tree: a field (with its column when it has held a scalar)
/// and the fields of the objects it has held.
#[derive(Debug, Default)]
struct Node {
    /// Column of this field's scalar values, once one has been seen.
    column: Option<u32>,
    /// The fields seen inside it: (key, node).
    children: Vec<(Box<str>, u32)>,
    /// Where in `children` the next key of a record is looked for first.
    cursor: usize,
}

/// Flattened records: the column names and each row's CSV text.
#[derive(Debug)]
pub struct Table {
    /// Column names (`drops.queue` for the field `queue` of the object `drops`).
    pub columns: Vec<String>,
    nodes: Vec<Node>,
    /// The rows' CSV text, without line ends.
    body: String,
    /// Per row: where its text ends in `body` and how many columns existed when it was
    /// written (columns seen later are empty in it).
    rows: Vec<(usize, usize)>,
    /// The row being read: each column's cell as a range of `scratch`, or none.
    cells: Vec<Option<(u32, u32)>>,
    scratch: String,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            columns: vec![],
            nodes: vec![Node::default()],
            body: String::new(),
            rows: vec![],
            cells: vec![],
            scratch: String::new(),
        }
    }
}

impl Table {
    /// Rows read so far.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The node of field `key` inside node `parent`.
    fn child(&mut self, parent: u32, key: &str) -> u32 {
        let node = &mut self.nodes[parent as usize];
        let guess = node.cursor;
        let found = node
            .children
            .get(guess)
            .filter(|(k, _)| &**k == key)
            .map(|_| guess)
            .or_else(|| node.children.iter().position(|(k, _)| &**k == key));
        let at = match found {
            Some(at) => at,
            None => {
                let id = self.nodes.len() as u32;
                let node = &mut self.nodes[parent as usize];
                node.children.push((key.into(), id));
                self.nodes.push(Node::default());
                self.nodes[parent as usize].children.len() - 1
            }
        };
        let node = &mut self.nodes[parent as usize];
        node.cursor = at + 1;
        node.children[at].1
    }

    /// The column of node `id`'s scalars, made on first use with the name `path`.
    fn column(&mut self, id: u32, path: &[u32]) -> usize {
        if let Some(c) = self.nodes[id as usize].column {
            return c as usize;
        }
        let c = self.columns.len();
        self.nodes[id as usize].column = Some(c as u32);
        self.columns.push(self.name(path));
        self.cells.push(None);
        c
    }

    /// The dotted name of the field at the end of `path` (node ids from the root's child).
    fn name(&self, path: &[u32]) -> String {
        let mut name = String::new();
        let mut parent = 0usize;
        for &id in path {
            let key = &self.nodes[parent].children.iter().find(|(_, n)| *n == id);
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(key.map_or("", |(k, _)| k));
            parent = id as usize;
        }
        name
    }

    /// Put the cell text that `write` appends to the scratch buffer in column `c`.
    fn cell(&mut self, c: usize, write: impl FnOnce(&mut String)) {
        let start = self.scratch.len() as u32;
        write(&mut self.scratch);
        self.cells[c] = Some((start, self.scratch.len() as u32));
    }

    /// The record read since the last one ends: append its row to the body.
    fn end_row(&mut self) {
        for (c, cell) in self.cells.iter_mut().enumerate() {
            if c > 0 {
                self.body.push(',');
            }
            if let Some((a, b)) = cell.take() {
                push_cell(&mut self.body, &self.scratch[a as usize..b as usize]);
            }
        }
        self.scratch.clear();
        self.rows.push((self.body.len(), self.columns.len()));
    }

    /// The table as CSV text: a header row, then one row per record, cells quoted only when
    /// they hold a comma, a quote or a line break, rows ended by CRLF (as Python's `csv`
    /// module writes them).
    pub fn csv(&self) -> String {
        let width = self.columns.len();
        let mut out = String::with_capacity(self.body.len() + self.rows.len() * (width + 2));
        for (c, name) in self.columns.iter().enumerate() {
            if c > 0 {
                out.push(',');
            }
            push_cell(&mut out, name);
        }
        out.push_str("\r\n");
        let mut start = 0;
        for &(end, had) in &self.rows {
            out.push_str(&self.body[start..end]);
            for _ in had.max(1)..width {
                out.push(',');
            }
            out.push_str("\r\n");
            start = end;
        }
        out
    }
}

fn push_cell(out: &mut String, cell: &str) {
    if cell.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&cell.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(cell);
    }
}

/// Read an array of records (JSON objects) into `table`, a row each.
pub(crate) fn read_records<'de, D: Deserializer<'de>>(
    table: &mut Table,
    d: D,
) -> Result<(), D::Error> {
    d.deserialize_seq(Records(table))
}

struct Records<'a>(&'a mut Table);

impl<'de> Visitor<'de> for Records<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of records")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut path = vec![];
        loop {
            let seed = Value {
                table: self.0,
                node: 0,
                path: &mut path,
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            self.0.end_row();
        }
    }
}

/// A key as the text has it: borrowed unless it holds escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// The value at node `node` (the root for a record itself), reached by `path`.
struct Value<'a> {
    table: &'a mut Table,
    node: u32,
    path: &'a mut Vec<u32>,
}

impl Value<'_> {
    fn put<E: serde::de::Error>(self, write: impl FnOnce(&mut String)) -> Result<(), E> {
        if self.node == 0 {
            return Err(E::custom("a record must be an object"));
        }
        let c = self.table.column(self.node, self.path);
        self.table.cell(c, write);
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Value<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Value<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<(), E> {
        self.put(|s| s.push_str(if v { "True" } else { "False" }))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<(), E> {
        self.put(|s| write!(s, "{v}").expect("writing to a String"))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<(), E> {
        self.put(|s| write!(s, "{v}").expect("writing to a String"))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        self.put(|s| push_python_float(s, v))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.put(|s| s.push_str(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.put(|_| {})
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.put(|_| {})
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut items = vec![];
        while let Some(v) = seq.next_element::<serde_json::Value>()? {
            items.push(v);
        }
        let text = serde_json::to_string(&items).map_err(A::Error::custom)?;
        self.put(|s| s.push_str(&text))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(key)) = map.next_key::<Key>()? {
            let child = self.table.child(self.node, &key);
            self.path.push(child);
            let seed = Value {
                table: self.table,
                node: child,
                path: self.path,
            };
            map.next_value_seed(seed)?;
            self.path.pop();
        }
        Ok(())
    }
}

/// Skip a value unread.
pub(crate) fn skip<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>().map(|_| ())
}

/// `v` as Python's `repr(float)` writes it: the shortest digits that read back as `v`, in
/// positional notation for decimal exponents from -4 to 15 (`0.0001`, `1e+16`, `1.5e-05`),
/// always with a fractional part or an exponent (`3.0`), and `inf`, `-inf`, `nan`.
pub fn python_float(v: f64) -> String {
    let mut out = String::new();
    push_python_float(&mut out, v);
    out
}

/// [`python_float`] appended to `out`, without allocating: summaries at 100,000 flows write
/// millions of floats.
pub fn push_python_float(out: &mut String, v: f64) {
    use std::fmt::Write as _;
    if v.is_nan() {
        return out.push_str("nan");
    }
    if v.is_infinite() {
        return out.push_str(if v > 0.0 { "inf" } else { "-inf" });
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e-5", "3e0" (at most 17
    // digits, a sign, a point and a three-digit exponent).
    let mut buf = [0u8; 32];
    let len = {
        let mut w = &mut buf[..];
        std::io::Write::write_fmt(&mut w, format_args!("{v:e}")).expect("32 bytes hold an f64");
        32 - w.len()
    };
    let sci = std::str::from_utf8(&buf[..len]).expect("{:e} writes ASCII");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} writes an exponent");
    let exp: i32 = exp.parse().expect("{:e} writes an integer exponent");
    let mantissa = match mantissa.strip_prefix('-') {
        Some(m) => {
            out.push('-');
            m
        }
        None => mantissa,
    };
    // The digits are `first` then `rest`: one digit before the point, the others after.
    let (first, rest) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = 1 + rest.len();
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            (0..-point).for_each(|_| out.push('0'));
            out.push_str(first);
            out.push_str(rest);
        } else if point as usize >= digits {
            out.push_str(first);
            out.push_str(rest);
            (digits..point as usize).for_each(|_| out.push('0'));
            out.push_str(".0");
        } else {
            let (a, b) = rest.split_at(point as usize - 1);
            out.push_str(first);
            out.push_str(a);
            out.push('.');
            out.push_str(b);
        }
    } else {
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let esign = if exp < 0 { '-' } else { '+' };
        write!(out, "e{esign}{:02}", exp.abs()).expect("writing to a String cannot fail");
    }
}

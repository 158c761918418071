//! SCTP's series: one row per DATA chunk sent (by the sender) or arriving (at the receiver),
//! and per SACK sent (by the receiver) or arriving (at the sender).

use super::chunk::DataChunk;
use crate::sim::Time;
use crate::transport::Series;
use std::any::Any;

/// Number of columns.
const N: usize = 13;

/// Chunk events, as columns (see [`ChunkRows::COLUMNS`]): time (s); event (0 sent, 1
/// arrived); chunk type (0 DATA, 3 SACK); TSN (for a SACK its cumulative TSN ack); stream;
/// stream sequence number; user bytes; transmission number; the round trip it was sent in
/// (DATA sends); destination path, that path's cwnd and bytes outstanding after the send
/// (DATA sends); gap blocks (SACKs).
#[derive(Clone, Debug, Default)]
pub struct ChunkRows {
    cols: [Vec<f64>; N],
}

impl ChunkRows {
    /// Column names in order.
    pub const COLUMNS: [&'static str; N] = [
        "t", "event", "kind", "tsn", "sid", "ssn", "bytes", "tx", "round", "path", "cwnd",
        "flight", "gaps",
    ];

    /// A column by name.
    pub fn col(&self, name: &str) -> &[f64] {
        let i = Self::COLUMNS
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("no column {name:?}"));
        &self.cols[i]
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.cols[0].len()
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn row(&mut self, values: [f64; N]) {
        for (c, v) in self.cols.iter_mut().zip(values) {
            c.push(v);
        }
    }

    /// Append a DATA chunk row.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        now: Time,
        event: u8,
        c: &DataChunk,
        round: u32,
        path: u8,
        cwnd: u64,
        flight: u64,
    ) {
        self.row([
            now as f64 * 1e-9,
            event as f64,
            0.0,
            c.tsn as f64,
            c.sid as f64,
            c.ssn as f64,
            c.len as f64,
            c.tx as f64,
            round as f64,
            path as f64,
            cwnd as f64,
            flight as f64,
            0.0,
        ]);
    }

    /// Append a SACK row: `cum` its cumulative TSN ack, `gaps` its gap blocks.
    pub fn push_sack(&mut self, now: Time, event: u8, cum: u64, gaps: usize) {
        let mut v = [0.0; N];
        v[0] = now as f64 * 1e-9;
        v[1] = event as f64;
        v[2] = 3.0;
        v[3] = cum as f64;
        v[12] = gaps as f64;
        self.row(v);
    }

    /// Merge the sender's and the receiver's rows in time order (the first's at a tie).
    pub fn merge(a: ChunkRows, b: ChunkRows) -> ChunkRows {
        let mut out = ChunkRows::default();
        let (na, nb) = (a.len(), b.len());
        let (mut i, mut j) = (0, 0);
        while i < na || j < nb {
            let take_a = j >= nb || (i < na && a.cols[0][i] <= b.cols[0][j]);
            let (src, k) = if take_a { (&a, i) } else { (&b, j) };
            out.row(std::array::from_fn(|c| src.cols[c][k]));
            if take_a {
                i += 1;
            } else {
                j += 1;
            }
        }
        out
    }
}

impl Series for ChunkRows {
    fn into_columns(self: Box<Self>) -> Vec<(&'static str, Vec<f64>)> {
        Self::COLUMNS.into_iter().zip(self.cols).collect()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl dyn Series {
    /// The series as SCTP's [`ChunkRows`]. Panics if the flow is not an SCTP flow.
    pub fn sctp(&self) -> &ChunkRows {
        self.downcast::<ChunkRows>()
            .expect("not an SCTP flow's trace")
    }
}

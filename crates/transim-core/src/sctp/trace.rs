//! SCTP's series: one row per DATA chunk sent (by the sender) or arriving (at the receiver).

use super::chunk::DataChunk;
use crate::sim::Time;
use crate::transport::Series;
use std::any::Any;

/// DATA chunk events, as columns.
#[derive(Clone, Debug, Default)]
pub struct ChunkRows {
    /// Time (s).
    pub t: Vec<f64>,
    /// 0 = sent, 1 = arrived at the receiver.
    pub event: Vec<f64>,
    /// TSN.
    pub tsn: Vec<f64>,
    /// Stream identifier.
    pub sid: Vec<f64>,
    /// Stream sequence number.
    pub ssn: Vec<f64>,
    /// User bytes.
    pub bytes: Vec<f64>,
    /// Transmission number.
    pub tx: Vec<f64>,
    /// Round trip in which it was sent (1 = the first flight; sends only).
    pub round: Vec<f64>,
    /// Destination path (sends only).
    pub path: Vec<f64>,
    /// That path's cwnd after the send (bytes; sends only).
    pub cwnd: Vec<f64>,
    /// That path's bytes outstanding after the send (sends only).
    pub flight: Vec<f64>,
}

impl ChunkRows {
    /// Column names in order.
    pub const COLUMNS: [&'static str; 11] = [
        "t", "event", "tsn", "sid", "ssn", "bytes", "tx", "round", "path", "cwnd", "flight",
    ];

    /// Append one row.
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
        self.t.push(now as f64 * 1e-9);
        self.event.push(event as f64);
        self.tsn.push(c.tsn as f64);
        self.sid.push(c.sid as f64);
        self.ssn.push(c.ssn as f64);
        self.bytes.push(c.len as f64);
        self.tx.push(c.tx as f64);
        self.round.push(round as f64);
        self.path.push(path as f64);
        self.cwnd.push(cwnd as f64);
        self.flight.push(flight as f64);
    }

    fn columns(self) -> [Vec<f64>; 11] {
        [
            self.t,
            self.event,
            self.tsn,
            self.sid,
            self.ssn,
            self.bytes,
            self.tx,
            self.round,
            self.path,
            self.cwnd,
            self.flight,
        ]
    }

    /// Merge the sender's and the receiver's rows in time order (sends first at a tie).
    pub fn merge(a: ChunkRows, b: ChunkRows) -> ChunkRows {
        let (ca, cb) = (a.columns(), b.columns());
        let (na, nb) = (ca[0].len(), cb[0].len());
        let mut out: [Vec<f64>; 11] = Default::default();
        let (mut i, mut j) = (0, 0);
        while i < na || j < nb {
            let take_a = j >= nb || (i < na && ca[0][i] <= cb[0][j]);
            for (k, col) in out.iter_mut().enumerate() {
                col.push(if take_a { ca[k][i] } else { cb[k][j] });
            }
            if take_a {
                i += 1;
            } else {
                j += 1;
            }
        }
        let [t, event, tsn, sid, ssn, bytes, tx, round, path, cwnd, flight] = out;
        ChunkRows {
            t,
            event,
            tsn,
            sid,
            ssn,
            bytes,
            tx,
            round,
            path,
            cwnd,
            flight,
        }
    }
}

impl Series for ChunkRows {
    fn into_columns(self: Box<Self>) -> Vec<(&'static str, Vec<f64>)> {
        Self::COLUMNS.into_iter().zip((*self).columns()).collect()
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

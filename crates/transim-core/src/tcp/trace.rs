//! TCP's per-flow time series: one row per ACK processed, timeout or switch.

use crate::trace::TraceWindow;
use crate::transport::Series;
use std::any::Any;

/// Per-flow congestion-state time series, one row per ACK processed, timeout or switch.
#[derive(Clone, Debug, Default)]
pub struct FlowTrace {
    /// Time (s).
    pub t: Vec<f64>,
    /// Congestion window (bytes).
    pub cwnd: Vec<f64>,
    /// Slow-start threshold (bytes; capped at 2^40 for "infinite").
    pub ssthresh: Vec<f64>,
    /// Smoothed RTT (s).
    pub srtt: Vec<f64>,
    /// Retransmission timeout (s).
    pub rto: Vec<f64>,
    /// Bytes in flight.
    pub flight: Vec<f64>,
    /// Highest sequence number sent (bytes, relative to the ISN).
    pub snd_max: Vec<f64>,
    /// Cumulative ACK (bytes, relative to the ISN).
    pub snd_una: Vec<f64>,
    /// Segments believed in flight: Sack1's pipe, RFC 6675's pipe / MSS in recovery, else
    /// the segments outstanding.
    pub pipe: Vec<f64>,
    /// Bytes SACKed above the cumulative ACK (the scoreboard), 0 without SACK.
    pub sacked: Vec<f64>,
    /// Pacing rate (payload bytes/s), 0 when not pacing.
    pub pacing_rate: Vec<f64>,
    /// Which rows are kept.
    pub window: TraceWindow,
}

/// Bytes one row takes in memory.
pub const FLOW_ROW_BYTES: u64 = 8 * FlowTrace::COLUMNS.len() as u64;

impl FlowTrace {
    /// Column names in order.
    pub const COLUMNS: [&'static str; 11] = [
        "t",
        "cwnd",
        "ssthresh",
        "srtt",
        "rto",
        "flight",
        "snd_max",
        "snd_una",
        "pipe",
        "sacked",
        "pacing_rate",
    ];

    /// The columns in [`Self::COLUMNS`] order.
    pub fn into_columns(self) -> [Vec<f64>; 11] {
        [
            self.t,
            self.cwnd,
            self.ssthresh,
            self.srtt,
            self.rto,
            self.flight,
            self.snd_max,
            self.snd_una,
            self.pipe,
            self.sacked,
            self.pacing_rate,
        ]
    }
}

impl Series for FlowTrace {
    fn into_columns(self: Box<Self>) -> Vec<(&'static str, Vec<f64>)> {
        Self::COLUMNS
            .into_iter()
            .zip((*self).into_columns())
            .collect()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl dyn Series {
    /// The series as TCP's [`FlowTrace`]. Panics if the flow is not a TCP flow.
    pub fn tcp(&self) -> &FlowTrace {
        self.downcast::<FlowTrace>()
            .expect("not a TCP flow's trace")
    }
}

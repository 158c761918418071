//! Optional traces: per-flow time series and per-packet events, kept as columns so Python can
//! take them as numpy arrays. When tracing is off nothing is recorded (one branch per event).

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
}

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

/// Kinds of per-packet event.
pub mod packet_event {
    /// An endpoint sent the packet.
    pub const SEND: u8 = 0;
    /// The packet reached its destination endpoint.
    pub const DELIVER: u8 = 1;
    /// The packet was dropped (see the cause column).
    pub const DROP: u8 = 2;
}

/// Per-packet events, one row each.
#[derive(Clone, Debug, Default)]
pub struct PacketTrace {
    /// Time (s).
    pub t: Vec<f64>,
    /// Event kind ([`packet_event`]).
    pub kind: Vec<u8>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// 1 when sent by the flow's sender (data direction), 0 for ACKs.
    pub from_sender: Vec<u8>,
    /// Sequence number (relative).
    pub seq: Vec<u64>,
    /// Acknowledgement number (relative).
    pub ack: Vec<u64>,
    /// Payload length.
    pub len: Vec<u32>,
    /// Transmission number of the segment (1 = original, 0 for control).
    pub tx: Vec<u16>,
    /// Link where a drop happened (-1 otherwise).
    pub link: Vec<i32>,
    /// Drop cause index (-1 when not a drop).
    pub cause: Vec<i8>,
}

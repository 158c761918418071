//! Optional per-packet event log, kept as columns so Python can take them as numpy arrays.
//! When tracing is off nothing is recorded (one branch per event). Per-flow time series are
//! the transports' own ([`crate::transport::Series`]; TCP's is [`crate::tcp::trace::FlowTrace`]).

pub mod pcap;

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
    /// Bytes on the wire at the IP layer.
    pub wire: Vec<u32>,
}

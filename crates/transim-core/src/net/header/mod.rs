//! Transport headers: one variant per transport the engine carries. Each is a small `Copy`
//! value (a [`crate::net::Packet`] is 112 bytes in all); a transport whose packets carry
//! variable-length content (SCTP's chunks) keeps that content in its own store and puts a
//! handle here.

pub mod cell;
pub mod datagram;
pub mod sctp;
pub mod tcp;

pub use cell::CellHeader;
pub use datagram::DatagramHeader;
pub use sctp::SctpHeader;
pub use tcp::{SackBlocks, TcpHeader};

/// The transport header of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// A TCP segment.
    Tcp(TcpHeader),
    /// A datagram of an unreliable transport.
    Datagram(DatagramHeader),
    /// An SCTP packet (its chunks are in the association's store).
    Sctp(SctpHeader),
    /// An ATM cell (its IP packet waits in the VC's frame FIFO).
    Cell(CellHeader),
}

impl Default for Header {
    /// An empty TCP header (tests build packets from it).
    fn default() -> Self {
        Header::Tcp(TcpHeader::default())
    }
}

/// The fields every header can fill in the per-packet trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceFields {
    /// Sequence number (TCP: bytes; datagrams: their number).
    pub seq: u64,
    /// Acknowledgement number (0 where the transport has none).
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// Transmission number (1 = original; 0 for control packets).
    pub tx: u16,
}

impl Header {
    /// The trace's view of this header.
    #[inline]
    pub fn trace_fields(&self) -> TraceFields {
        match self {
            Header::Tcp(h) => TraceFields {
                seq: h.seq,
                ack: h.ack,
                len: h.len,
                tx: h.tx_count,
            },
            Header::Datagram(h) => TraceFields {
                seq: h.seq,
                ack: 0,
                len: h.len,
                tx: 1,
            },
            Header::Sctp(h) => TraceFields {
                seq: h.first_tsn as u64,
                ack: h.cum_ack as u64,
                len: h.data_bytes,
                tx: h.tx,
            },
            Header::Cell(h) => TraceFields {
                seq: h.frame as u64,
                ack: h.index as u64,
                len: 48,
                tx: 0,
            },
        }
    }

    /// The data unit a packet carries, for scripted drops: (1-based index of the unit in
    /// order of first transmission, transmission number), or None for control packets.
    #[inline]
    pub fn data_unit(&self) -> Option<(u32, u16)> {
        match self {
            Header::Tcp(h) if h.seg_index != 0 => Some((h.seg_index, h.tx_count)),
            Header::Tcp(_) => None,
            Header::Datagram(h) => Some((h.seq.saturating_add(1).min(u32::MAX as u64) as u32, 1)),
            Header::Sctp(h) if h.first_tsn != 0 => Some((h.first_tsn, h.tx)),
            Header::Sctp(_) => None,
            Header::Cell(_) => None,
        }
    }
}

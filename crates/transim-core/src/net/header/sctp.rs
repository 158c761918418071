//! The SCTP common header as transim carries it. An SCTP packet bundles a variable number
//! of chunks; they live in the sending association's chunk store and the packet carries a
//! handle (`slot`) plus a summary the network and the packet trace read.

/// Chunk kinds present in a packet, as bits of [`SctpHeader::kinds`].
pub mod kinds {
    /// DATA.
    pub const DATA: u16 = 1 << 0;
    /// SACK.
    pub const SACK: u16 = 1 << 1;
    /// INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK.
    pub const HANDSHAKE: u16 = 1 << 2;
    /// HEARTBEAT, HEARTBEAT-ACK.
    pub const HEARTBEAT: u16 = 1 << 3;
    /// SHUTDOWN, SHUTDOWN-ACK, SHUTDOWN-COMPLETE.
    pub const SHUTDOWN: u16 = 1 << 4;
}

/// One SCTP packet's header and summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SctpHeader {
    /// The chunks: a slot in the sending association's chunk store.
    pub slot: u32,
    /// TSN of the first DATA chunk (0 when none).
    pub first_tsn: u32,
    /// Cumulative TSN ack of a bundled SACK (0 when none).
    pub cum_ack: u32,
    /// User-data bytes in the DATA chunks.
    pub data_bytes: u32,
    /// Which transmission of its first DATA chunk this is (1 = original; 0 without DATA).
    pub tx: u16,
    /// Chunk kinds present ([`kinds`]).
    pub kinds: u16,
}

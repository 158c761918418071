//! SCTP chunks (RFC 9260 §3.3) with their sizes on the wire, and the store that holds the
//! chunks of packets in flight (a packet carries a slot number; slots and their vectors are
//! reused, so steady-state sending allocates nothing).

/// DATA chunk flags.
pub mod data_flags {
    /// Last fragment (E).
    pub const END: u8 = 1;
    /// First fragment (B).
    pub const BEGIN: u8 = 2;
    /// Unordered (U).
    pub const UNORDERED: u8 = 4;
}

/// A DATA chunk's header fields (the payload is counted, not carried).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk {
    /// Transmission sequence number (the first DATA chunk of an association is TSN 1).
    pub tsn: u64,
    /// Stream identifier.
    pub sid: u16,
    /// Stream sequence number (ignored for unordered messages).
    pub ssn: u16,
    /// [`data_flags`].
    pub flags: u8,
    /// User-data bytes.
    pub len: u32,
    /// Which transmission this is (1 = original).
    pub tx: u16,
}

impl DataChunk {
    /// True for the last fragment of a message.
    pub fn end(&self) -> bool {
        self.flags & data_flags::END != 0
    }
    /// True for the first fragment of a message.
    pub fn begin(&self) -> bool {
        self.flags & data_flags::BEGIN != 0
    }
    /// True for an unordered message.
    pub fn unordered(&self) -> bool {
        self.flags & data_flags::UNORDERED != 0
    }
}

/// One chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// User data.
    Data(DataChunk),
    /// Selective acknowledgement: cumulative TSN, advertised window, gap blocks as
    /// (start, end) offsets from the cumulative TSN (inclusive, RFC 9260 §3.3.4), duplicates.
    Sack {
        /// Cumulative TSN ack.
        cum_tsn: u64,
        /// Advertised receiver window credit (bytes).
        a_rwnd: u32,
        /// Gap ack blocks.
        gaps: Vec<(u32, u32)>,
        /// Duplicate TSNs received since the last SACK.
        dups: Vec<u64>,
    },
    /// INIT (association set-up, step 1).
    Init,
    /// INIT ACK with the state cookie (step 2).
    InitAck,
    /// COOKIE ECHO (step 3).
    CookieEcho,
    /// COOKIE ACK (step 4).
    CookieAck,
    /// HEARTBEAT to a destination address (path `path`), sent at `sent` (ns).
    Heartbeat {
        /// Path index.
        path: u8,
        /// Send time, echoed back for an RTT sample.
        sent: u64,
    },
    /// HEARTBEAT ACK.
    HeartbeatAck {
        /// Path index.
        path: u8,
        /// The echoed send time.
        sent: u64,
    },
    /// SHUTDOWN.
    Shutdown,
    /// SHUTDOWN ACK.
    ShutdownAck,
    /// SHUTDOWN COMPLETE.
    ShutdownComplete,
}

/// Bytes of the state cookie (RFC 9260 leaves it to the implementation; lksctp's is ~ 300
/// bytes with its HMAC and the INIT it echoes: we take 256).
pub(crate) const COOKIE: u32 = 256;

/// Round up to a multiple of four (chunks are padded).
#[inline]
pub fn pad4(n: u32) -> u32 {
    (n + 3) & !3
}

impl Chunk {
    /// Bytes on the wire, padding included.
    pub fn wire(&self) -> u32 {
        pad4(match self {
            Chunk::Data(d) => 16 + d.len,
            Chunk::Sack { gaps, dups, .. } => 16 + 4 * gaps.len() as u32 + 4 * dups.len() as u32,
            // Fixed part 20 + Supported Address Types (8).
            Chunk::Init => 28,
            // Fixed part 20 + State Cookie parameter (4 + cookie).
            Chunk::InitAck => 20 + 4 + COOKIE,
            Chunk::CookieEcho => 4 + COOKIE,
            Chunk::CookieAck | Chunk::ShutdownAck | Chunk::ShutdownComplete => 4,
            // Heartbeat Info parameter: 4 + our 12 bytes (path, time).
            Chunk::Heartbeat { .. } | Chunk::HeartbeatAck { .. } => 4 + 16,
            Chunk::Shutdown => 8,
        })
    }

    /// Bit in [`crate::net::header::sctp::kinds`].
    pub fn kind_bit(&self) -> u16 {
        use crate::net::header::sctp::kinds::*;
        match self {
            Chunk::Data(_) => DATA,
            Chunk::Sack { .. } => SACK,
            Chunk::Init | Chunk::InitAck | Chunk::CookieEcho | Chunk::CookieAck => HANDSHAKE,
            Chunk::Heartbeat { .. } | Chunk::HeartbeatAck { .. } => HEARTBEAT,
            Chunk::Shutdown | Chunk::ShutdownAck | Chunk::ShutdownComplete => SHUTDOWN,
        }
    }

    /// Chunk type number (RFC 9260 §3.2), for traces.
    pub fn type_number(&self) -> u8 {
        match self {
            Chunk::Data(_) => 0,
            Chunk::Init => 1,
            Chunk::InitAck => 2,
            Chunk::Sack { .. } => 3,
            Chunk::Heartbeat { .. } => 4,
            Chunk::HeartbeatAck { .. } => 5,
            Chunk::Shutdown => 7,
            Chunk::ShutdownAck => 8,
            Chunk::CookieEcho => 10,
            Chunk::CookieAck => 11,
            Chunk::ShutdownComplete => 14,
        }
    }
}

/// IP header (20) + SCTP common header (12).
pub const PACKET_OVERHEAD: u32 = 32;

/// The chunks of packets in flight, by slot.
#[derive(Debug, Default)]
pub struct ChunkStore {
    slots: Vec<Vec<Chunk>>,
    free: Vec<u32>,
}

impl ChunkStore {
    /// Store a packet's chunks; returns the slot. The vector handed in is swapped with a
    /// recycled one, which is returned cleared for the next packet.
    pub fn put(&mut self, chunks: &mut Vec<Chunk>) -> u32 {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Vec::new());
                (self.slots.len() - 1) as u32
            }
        };
        std::mem::swap(&mut self.slots[slot as usize], chunks);
        chunks.clear();
        slot
    }

    /// Take a delivered packet's chunks into `into` (cleared first) and free the slot.
    pub fn take(&mut self, slot: u32, into: &mut Vec<Chunk>) {
        into.clear();
        std::mem::swap(&mut self.slots[slot as usize], into);
        self.free.push(slot);
    }

    /// Free a dropped packet's slot.
    pub fn release(&mut self, slot: u32) {
        self.slots[slot as usize].clear();
        self.free.push(slot);
    }

    /// Look at a packet's chunks without taking them.
    pub fn get(&self, slot: u32) -> &[Chunk] {
        &self.slots[slot as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: u32) -> Chunk {
        Chunk::Data(DataChunk {
            tsn: 1,
            sid: 0,
            ssn: 0,
            flags: 0,
            len,
            tx: 1,
        })
    }

    /// MTU 1500 = IP 20 + common header 12 + DATA header 16 + 1452 bytes of user data.
    #[test]
    fn the_largest_data_chunk_fills_a_1500_byte_packet() {
        assert_eq!(PACKET_OVERHEAD + data(1452).wire(), 1500);
        // An 8-byte tail: 24 bytes; a 360-byte message: 376; three of those fit, four do not.
        assert_eq!(data(8).wire(), 24);
        assert_eq!(PACKET_OVERHEAD + 3 * data(360).wire(), 1160);
        assert!(PACKET_OVERHEAD + 4 * data(360).wire() > 1500);
        // Padding to four bytes.
        assert_eq!(data(1).wire(), 20);
        let sack = Chunk::Sack {
            cum_tsn: 5,
            a_rwnd: 0,
            gaps: vec![(2, 3)],
            dups: vec![4],
        };
        assert_eq!(sack.wire(), 24);
    }

    #[test]
    fn slots_are_reused() {
        let mut st = ChunkStore::default();
        let mut v = vec![data(10)];
        let a = st.put(&mut v);
        assert!(v.is_empty());
        let mut out = Vec::new();
        st.take(a, &mut out);
        assert_eq!(out, vec![data(10)]);
        let mut w = vec![data(20)];
        assert_eq!(st.put(&mut w), a, "the freed slot is taken again");
    }
}

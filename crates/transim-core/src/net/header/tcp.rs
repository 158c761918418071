//! The TCP header as transim carries it: the fields of RFC 9293's header and the options
//! transim models (MSS, window scale, SACK-permitted, SACK blocks, timestamps), plus the
//! simulator's bookkeeping of which data segment and which transmission of it this is.

/// TCP header flags carried by a [`TcpHeader`].
pub mod flags {
    /// Synchronise sequence numbers.
    pub const SYN: u16 = 1 << 0;
    /// Acknowledgement field valid.
    pub const ACK: u16 = 1 << 1;
    /// Sender has finished sending.
    pub const FIN: u16 = 1 << 2;
    /// Push.
    pub const PSH: u16 = 1 << 3;
    /// ECN echo.
    pub const ECE: u16 = 1 << 4;
    /// Congestion window reduced.
    pub const CWR: u16 = 1 << 5;
    /// The FUL bit (receiver's uplink buffer full) — a reserved header bit.
    pub const FUL: u16 = 1 << 6;
}

/// Up to four SACK blocks, most recent first (a D-SACK block, RFC 2883, comes first and may
/// lie below the cumulative ACK). Blocks lie within 2 GB of the cumulative ACK, so they are
/// stored as 32-bit offsets from it, wrapping (a block is never empty, so an unused slot is
/// (0, 0) and no count is stored): this keeps a [`crate::net::Packet`] at 112 bytes, small
/// enough to be moved without a call to `memcpy` on every hop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    rel: [(u32, u32); 4],
}

impl SackBlocks {
    /// Number of blocks.
    #[inline]
    pub fn len(&self) -> usize {
        self.rel.iter().take_while(|&&(l, r)| l != r).count()
    }

    /// True when there is no block.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rel[0].0 == self.rel[0].1
    }

    /// Append the block [left, right) of an ACK whose cumulative ACK is `ack`.
    pub fn push(&mut self, ack: u64, left: u64, right: u64) {
        let n = self.len();
        debug_assert!(right > left && n < 4);
        debug_assert!(left + (1 << 31) > ack && right < ack + (1 << 31));
        let off = |x: u64| x.wrapping_sub(ack) as u32;
        self.rel[n] = (off(left), off(right));
    }

    /// Block `i` as absolute (left, right) sequence numbers.
    #[inline]
    pub fn get(&self, ack: u64, i: usize) -> (u64, u64) {
        let (l, r) = self.rel[i];
        let at = |x: u32| ack.wrapping_add(x as i32 as i64 as u64);
        (at(l), at(r))
    }

    /// All blocks as absolute (left, right) sequence numbers.
    pub fn to_vec(&self, ack: u64) -> Vec<(u64, u64)> {
        (0..self.len()).map(|i| self.get(ack, i)).collect()
    }

    /// The first block if it reports duplicate data (RFC 2883 §4): it lies below the
    /// cumulative ACK, or inside the second block.
    #[inline]
    pub fn dsack(&self, ack: u64) -> Option<(u64, u64)> {
        if self.is_empty() {
            return None;
        }
        let (l, r) = self.get(ack, 0);
        let inside_next = self.len() > 1 && {
            let (l1, r1) = self.get(ack, 1);
            l1 <= l && r <= r1
        };
        (r <= ack || inside_next).then_some((l, r))
    }

    /// The blocks without the first.
    pub fn without_first(&self) -> SackBlocks {
        let mut rel = [(0, 0); 4];
        rel[..3].copy_from_slice(&self.rel[1..]);
        SackBlocks { rel }
    }
}

/// One TCP segment's header. Sequence numbers are 64-bit byte offsets from the connection's
/// start (no wrap-around inside the engine; the pcap writer folds them to 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    /// Sequence number of the first byte (or of the SYN/FIN).
    pub seq: u64,
    /// Cumulative acknowledgement (next byte expected) when `ACK` is set.
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// Header flags, see [`flags`].
    pub flags: u16,
    /// Advertised receive window in bytes (already scaled).
    pub wnd: u32,
    /// Timestamp value (TSval), in the sender's timestamp clock ticks.
    pub ts_val: u32,
    /// Timestamp echo reply (TSecr).
    pub ts_ecr: u32,
    /// 1-based index of the data segment (in order of first transmission); 0 for control.
    pub seg_index: u32,
    /// Which transmission of that segment this is (1 = original).
    pub tx_count: u16,
    /// A retransmission sent after a timeout (go-back-N), as opposed to fast recovery.
    pub after_rto: bool,
    /// MSS option (SYN only), 0 when absent.
    pub opt_mss: u16,
    /// Window-scale option (SYN only), 0xff when absent.
    pub opt_wscale: u8,
    /// SACK-permitted option (SYN only).
    pub opt_sack_ok: bool,
    /// SACK blocks carried by an ACK.
    pub sack: SackBlocks,
}

impl Default for TcpHeader {
    fn default() -> Self {
        TcpHeader {
            seq: 0,
            ack: 0,
            len: 0,
            flags: 0,
            wnd: 0,
            ts_val: 0,
            ts_ecr: 0,
            seg_index: 0,
            tx_count: 0,
            after_rto: false,
            opt_mss: 0,
            opt_wscale: 0xff,
            opt_sack_ok: false,
            sack: SackBlocks::default(),
        }
    }
}

impl TcpHeader {
    /// True when the given flag is set.
    #[inline]
    pub fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    /// Sequence space the segment occupies: payload plus one for SYN and for FIN.
    #[inline]
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.has(flags::SYN) as u64 + self.has(flags::FIN) as u64
    }

    /// A pure cumulative ACK: no data, no SACK blocks, no SYN/FIN/FUL (what an ACK filter may
    /// replace by a newer one).
    #[inline]
    pub fn is_pure_ack(&self) -> bool {
        self.len == 0
            && self.sack.is_empty()
            && self.flags & (flags::SYN | flags::FIN | flags::FUL) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks above the cumulative ACK, and a D-SACK below it or inside the next block
    /// (RFC 2883's two cases), come back as pushed.
    #[test]
    fn blocks_round_trip_and_duplicates_are_recognised() {
        let ack = 10_000_000_000u64; // far past 32 bits
        let mut sb = SackBlocks::default();
        assert!(sb.is_empty() && sb.dsack(ack).is_none());
        sb.push(ack, ack + 2_000, ack + 5_000);
        sb.push(ack, ack + 8_000, ack + 9_000);
        assert_eq!(sb.len(), 2);
        assert_eq!(
            sb.to_vec(ack),
            vec![(ack + 2_000, ack + 5_000), (ack + 8_000, ack + 9_000)]
        );
        assert_eq!(sb.dsack(ack), None);
        // A duplicate just below the cumulative ACK: its right edge is the ACK itself.
        let mut below = SackBlocks::default();
        below.push(ack, ack - 1_000, ack);
        below.push(ack, ack + 2_000, ack + 5_000);
        assert_eq!(below.dsack(ack), Some((ack - 1_000, ack)));
        assert_eq!(
            below.without_first().to_vec(ack),
            vec![(ack + 2_000, ack + 5_000)]
        );
        // A duplicate inside the block that follows it.
        let mut inside = SackBlocks::default();
        inside.push(ack, ack + 3_000, ack + 4_000);
        inside.push(ack, ack + 2_000, ack + 5_000);
        assert_eq!(inside.dsack(ack), Some((ack + 3_000, ack + 4_000)));
        // Not inside: an ordinary first block.
        let mut apart = SackBlocks::default();
        apart.push(ack, ack + 6_000, ack + 7_000);
        apart.push(ack, ack + 2_000, ack + 5_000);
        assert_eq!(apart.dsack(ack), None);
    }
}

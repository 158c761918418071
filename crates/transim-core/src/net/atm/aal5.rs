//! AAL5 framing arithmetic (ITU-T I.363.5) with LLC/SNAP encapsulation (RFC 2684): how many
//! 53-byte cells carry an IP packet, and the efficiency bound that follows.

/// Bytes in a cell.
pub const CELL_BYTES: u32 = 53;
/// Payload bytes in a cell.
pub const CELL_PAYLOAD: u32 = 48;
/// AAL5 CPCS trailer: UU, CPI, length, CRC-32.
pub const AAL5_TRAILER: u32 = 8;
/// LLC/SNAP header (AA-AA-03, OUI, EtherType).
pub const LLC_SNAP: u32 = 8;

/// Cells carrying an IP packet of `ip_bytes` (with LLC/SNAP when `llc_snap`): the packet, the
/// encapsulation and the trailer, padded to a multiple of 48.
pub fn cells_for(ip_bytes: u32, llc_snap: bool) -> u32 {
    let pdu = ip_bytes + AAL5_TRAILER + if llc_snap { LLC_SNAP } else { 0 };
    pdu.div_ceil(CELL_PAYLOAD)
}

/// The most TCP payload a link of `rate_bps` can carry when every segment has `mss` payload
/// bytes and `headers` bytes of TCP/IP headers: the cell tax bound.
pub fn goodput_bound(rate_bps: f64, mss: u32, headers: u32, llc_snap: bool) -> f64 {
    let cells = cells_for(mss + headers, llc_snap);
    rate_bps * mss as f64 / (cells * CELL_BYTES) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn study_two_segment_is_43_cells() {
        // MSS 2000 + TCP 20 + IP 20 + LLC/SNAP 8 + trailer 8 = 2056 → 43 cells, 2279 bytes.
        assert_eq!(cells_for(2040, true), 43);
        assert_eq!(cells_for(2040, true) * CELL_BYTES, 2279);
    }

    #[test]
    fn fact_sheet_examples() {
        // 1500-B IP packet → 1516 → 32 cells; a 40-B ACK → 2 cells, 1 without LLC/SNAP.
        assert_eq!(cells_for(1500, true), 32);
        assert_eq!(cells_for(40, true), 2);
        assert_eq!(cells_for(40, false), 1);
        // Exactly full: 40 + 8 = 48 bytes fit one cell, 41 + 8 need two.
        assert_eq!(cells_for(41, false), 2);
    }

    #[test]
    fn cell_tax_bound_matches_the_paper() {
        // 150 Mbps × 2000/2279 = 131.6 Mbps; the paper quotes ≈ 130.5 Mbps for its link.
        let b = goodput_bound(150e6, 2000, 40, true);
        assert!((b - 131.64e6).abs() < 0.01e6, "{b}");
    }
}

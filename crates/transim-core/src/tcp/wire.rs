//! A TCP segment as bytes on the wire, for packet captures: the RFC 9293 header with the
//! options transim models (MSS, SACK-permitted, window scale and timestamps on SYNs;
//! timestamps and SACK blocks on other segments, each aligned with NOPs as Linux does) and
//! a zero-filled payload, checksummed over the IPv4 pseudo-header. Sequence numbers are
//! folded to 32 bits from per-connection initial sequence numbers. The FUL bit (study 5)
//! is written into the reserved header bit the configuration names (4, 5 or 6: masks 0x08,
//! 0x04, 0x02 of byte 12).

use super::config::TcpConfig;
use crate::net::header::tcp::flags;
use crate::net::{Packet, TcpHeader as Seg};
use etherparse::TcpHeader;

/// The ports and initial sequence numbers of flow `flow`: (sender port, receiver port,
/// sender ISN, receiver ISN).
pub fn endpoints(flow: u32) -> (u16, u16, u32, u32) {
    let isn = flow.wrapping_add(1).wrapping_mul(2_654_435_761);
    (
        10_000 + (flow % 50_000) as u16,
        5001,
        isn,
        isn ^ 0x5a5a_5a5a,
    )
}

/// Render the TCP packet `p` of flow `flow` into `out` (its options fill what `p.wire`
/// counts beyond the 40 header bytes and the payload); `src`/`dst` are the IPv4 addresses
/// for the checksum.
pub fn render(
    cfg: &TcpConfig,
    flow: u32,
    p: &Packet,
    src: [u8; 4],
    dst: [u8; 4],
    out: &mut Vec<u8>,
) {
    let seg: &Seg = p.tcp();
    let from_sender = p.from_sender;
    let options_len = (p.wire as usize).saturating_sub(40 + seg.len as usize);
    let (sport, dport, s_isn, r_isn) = endpoints(flow);
    let (sp, dp, isn, peer_isn) = if from_sender {
        (sport, dport, s_isn, r_isn)
    } else {
        (dport, sport, r_isn, s_isn)
    };
    let syn = seg.has(flags::SYN);
    let shift = if cfg.window_scale && !syn {
        cfg.wscale_shift()
    } else {
        0
    };
    let window = (seg.wnd as u64 >> shift).min(u16::MAX as u64) as u16;
    let mut h = TcpHeader::new(sp, dp, isn.wrapping_add(seg.seq as u32), window);
    h.syn = syn;
    h.fin = seg.has(flags::FIN);
    h.psh = seg.has(flags::PSH);
    h.ack = seg.has(flags::ACK);
    if h.ack {
        h.acknowledgment_number = peer_isn.wrapping_add(seg.ack as u32);
    }
    let mut opt = Vec::with_capacity(40);
    if syn && cfg.ns2_handshake {
        // ns-2's one-way agent: a bare SYN and reply.
    } else if syn {
        opt.extend_from_slice(&[2, 4]);
        opt.extend_from_slice(&seg.opt_mss.to_be_bytes());
        let ts = cfg.timestamps;
        match (seg.opt_sack_ok, ts) {
            (true, true) => {
                opt.extend_from_slice(&[4, 2]);
                timestamps(&mut opt, seg);
            }
            (false, true) => {
                opt.extend_from_slice(&[1, 1]);
                timestamps(&mut opt, seg);
            }
            (true, false) => opt.extend_from_slice(&[1, 1, 4, 2]),
            (false, false) => {}
        }
        if seg.opt_wscale != 0xff {
            opt.extend_from_slice(&[1, 3, 3, seg.opt_wscale]);
        }
    } else {
        if cfg.timestamps {
            opt.extend_from_slice(&[1, 1]);
            timestamps(&mut opt, seg);
        }
        let n = seg.sack.len();
        if n > 0 {
            opt.extend_from_slice(&[1, 1, 5, 2 + 8 * n as u8]);
            for i in 0..n {
                let (l, r) = seg.sack.get(seg.ack, i);
                opt.extend_from_slice(&peer_isn.wrapping_add(l as u32).to_be_bytes());
                opt.extend_from_slice(&peer_isn.wrapping_add(r as u32).to_be_bytes());
            }
        }
    }
    // ns-2's SACK sizing (8 bytes per block) has no room for the option's kind and length:
    // the capture then carries the RFC 2018 layout, 4 bytes more than the simulated size.
    debug_assert!(
        opt.len() <= options_len || cfg.sack_option_ns2,
        "{} > {options_len}",
        opt.len()
    );
    opt.resize(options_len.max(opt.len()).div_ceil(4) * 4, 0);
    h.set_options_raw(&opt).expect("at most 40 option bytes");
    let start = out.len();
    out.extend_from_slice(&h.to_bytes());
    out.resize(start + h.header_len() + seg.len as usize, 0);
    let ful = seg.has(flags::FUL).then(|| cfg.ful.map_or(4, |f| f.bit));
    if let Some(bit) = ful {
        out[start + 12] |= 0x80 >> bit;
    }
    // Checksum over the pseudo-header, the header (checksum field zero) and the payload.
    let checksum = checksum(&out[start..], src, dst);
    out[start + 16..start + 18].copy_from_slice(&checksum.to_be_bytes());
}

fn timestamps(opt: &mut Vec<u8>, seg: &Seg) {
    opt.extend_from_slice(&[8, 10]);
    opt.extend_from_slice(&seg.ts_val.to_be_bytes());
    opt.extend_from_slice(&seg.ts_ecr.to_be_bytes());
}

/// The Internet checksum of a TCP segment (checksum field assumed zero) with the IPv4
/// pseudo-header.
fn checksum(segment: &[u8], src: [u8; 4], dst: [u8; 4]) -> u16 {
    let mut sum: u32 = 0;
    let mut add = |b: &[u8]| {
        for c in b.chunks(2) {
            sum += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
        }
    };
    add(&src);
    add(&dst);
    add(&[0, 6]);
    add(&(segment.len() as u16).to_be_bytes());
    add(&segment[..16]);
    add(&segment[18..]);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

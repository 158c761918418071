//! Turning a list of chunks into a packet on the wire (and its summary header).

use super::chunk::{Chunk, ChunkStore, PACKET_OVERHEAD};
use crate::net::header::sctp::SctpHeader;
use crate::net::{Header, Packet};
use crate::transport::Ctx;

/// Send the chunks in `chunks` (left empty) as one packet from node `src` to node `dst`.
pub fn emit(
    flow: u32,
    src: u32,
    dst: u32,
    from_sender: bool,
    chunks: &mut Vec<Chunk>,
    ctx: &mut Ctx,
    store: &mut ChunkStore,
) {
    let mut h = SctpHeader::default();
    let mut wire = PACKET_OVERHEAD;
    for c in chunks.iter() {
        wire += c.wire();
        h.kinds |= c.kind_bit();
        match c {
            Chunk::Data(d) => {
                if h.first_tsn == 0 {
                    h.first_tsn = d.tsn as u32;
                    h.tx = d.tx;
                }
                h.data_bytes += d.len;
            }
            Chunk::Sack { cum_tsn, .. } => h.cum_ack = *cum_tsn as u32,
            _ => {}
        }
    }
    h.slot = store.put(chunks);
    let uid = ctx.uid();
    ctx.out.push(Packet {
        uid,
        flow,
        src,
        dst,
        wire,
        from_sender,
        lost: None,
        ecn: crate::net::Ecn::NotEct,
        hops: 0,
        hdr: Header::Sctp(h),
    });
}

/// Verification tags: the sender's and the receiver's (packets carry the peer's).
fn tags(flow: u32) -> (u32, u32) {
    (0x1000_0000 | flow, 0x2000_0000 | flow)
}

/// An SCTP packet as bytes on the wire, for packet captures (RFC 9260 §3): the common
/// header (ports, the peer's verification tag, CRC32c) and every chunk with its real
/// layout, user data zero-filled, chunks padded to four bytes.
pub fn render(
    flow: u32,
    from_sender: bool,
    chunks: &[Chunk],
    cfg: &super::config::SctpConfig,
    out: &mut Vec<u8>,
) {
    let (s_tag, r_tag) = tags(flow);
    let (sport, dport) = (10_000 + (flow % 50_000) as u16, 5001u16);
    let (sp, dp, own_tag, peer_tag) = if from_sender {
        (sport, dport, s_tag, r_tag)
    } else {
        (dport, sport, r_tag, s_tag)
    };
    let init = chunks.iter().any(|c| matches!(c, Chunk::Init));
    let start = out.len();
    out.extend_from_slice(&sp.to_be_bytes());
    out.extend_from_slice(&dp.to_be_bytes());
    out.extend_from_slice(&(if init { 0 } else { peer_tag }).to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    let be16 = |v: u16| v.to_be_bytes();
    let be32 = |v: u32| v.to_be_bytes();
    for c in chunks {
        let cs = out.len();
        let (ty, fl) = (c.type_number(), 0u8);
        match c {
            Chunk::Data(d) => {
                out.extend_from_slice(&[ty, d.flags]);
                out.extend_from_slice(&be16(16 + d.len as u16));
                out.extend_from_slice(&be32(d.tsn as u32));
                out.extend_from_slice(&be16(d.sid));
                out.extend_from_slice(&be16(d.ssn));
                out.extend_from_slice(&[0; 4]); // payload protocol identifier
                out.resize(out.len() + d.len as usize, 0);
            }
            Chunk::Sack {
                cum_tsn,
                a_rwnd,
                gaps,
                dups,
            } => {
                out.extend_from_slice(&[ty, fl]);
                out.extend_from_slice(&be16(c.wire() as u16));
                out.extend_from_slice(&be32(*cum_tsn as u32));
                out.extend_from_slice(&be32(*a_rwnd));
                out.extend_from_slice(&be16(gaps.len() as u16));
                out.extend_from_slice(&be16(dups.len() as u16));
                for &(a, b) in gaps {
                    out.extend_from_slice(&be16(a as u16));
                    out.extend_from_slice(&be16(b as u16));
                }
                for &d in dups {
                    out.extend_from_slice(&be32(d as u32));
                }
            }
            Chunk::Init | Chunk::InitAck => {
                out.extend_from_slice(&[ty, fl]);
                // The length leaves out the padding of the last parameter (RFC 9260 §3.2).
                let unpadded = if matches!(c, Chunk::Init) {
                    26
                } else {
                    c.wire()
                };
                out.extend_from_slice(&be16(unpadded as u16));
                out.extend_from_slice(&be32(own_tag));
                out.extend_from_slice(&be32(cfg.rcv_buf.min(u32::MAX as u64) as u32));
                out.extend_from_slice(&be16(64)); // outbound streams
                out.extend_from_slice(&be16(64)); // inbound streams
                out.extend_from_slice(&be32(1)); // initial TSN
                if matches!(c, Chunk::Init) {
                    // Supported Address Types: IPv4, padded.
                    out.extend_from_slice(&[0, 12, 0, 6, 0, 5, 0, 0]);
                } else {
                    out.extend_from_slice(&[0, 7]);
                    out.extend_from_slice(&be16(4 + super::chunk::COOKIE as u16));
                    out.resize(out.len() + super::chunk::COOKIE as usize, 0);
                }
            }
            Chunk::CookieEcho => {
                out.extend_from_slice(&[ty, fl]);
                out.extend_from_slice(&be16(c.wire() as u16));
                out.resize(out.len() + super::chunk::COOKIE as usize, 0);
            }
            Chunk::Heartbeat { path, sent } | Chunk::HeartbeatAck { path, sent } => {
                out.extend_from_slice(&[ty, fl]);
                out.extend_from_slice(&be16(20));
                out.extend_from_slice(&[0, 1, 0, 16]); // Heartbeat Info
                out.extend_from_slice(&be32(*path as u32));
                out.extend_from_slice(&sent.to_be_bytes());
            }
            Chunk::Shutdown => {
                out.extend_from_slice(&[ty, fl]);
                out.extend_from_slice(&be16(8));
                out.extend_from_slice(&be32(0));
            }
            Chunk::CookieAck | Chunk::ShutdownAck | Chunk::ShutdownComplete => {
                out.extend_from_slice(&[ty, fl]);
                out.extend_from_slice(&be16(4));
            }
        }
        out.resize(cs + c.wire() as usize, 0);
    }
    let crc = crc32c::crc32c(&out[start..]);
    out[start + 8..start + 12].copy_from_slice(&crc.to_le_bytes());
}

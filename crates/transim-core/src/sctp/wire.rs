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
        hdr: Header::Sctp(h),
    });
}

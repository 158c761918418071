//! An SCTP association as the engine sees it: the [`Transport`] made of the two ends and
//! the store of the chunks their packets carry.

use super::chunk::{Chunk, ChunkStore, PACKET_OVERHEAD};
use super::receiver::SctpReceiver;
use super::sender::SctpSender;
use super::timers;
use super::trace::ChunkRows;
use crate::net::{DropCause, Header, Packet};
use crate::transport::{
    Ctx, Detail, DropSite, FlowFacts, Series, TimerId, Transport, WindowFacts, WindowLimit,
};

/// One association.
pub struct SctpAssociation {
    /// The end that opens the association and sends the messages.
    pub sender: SctpSender,
    /// The end that receives them.
    pub receiver: SctpReceiver,
    store: ChunkStore,
    buf: Vec<Chunk>,
    /// Display names of each path's (source, destination) nodes.
    pub path_names: Vec<(String, String)>,
}

impl SctpAssociation {
    /// An association from its two ends.
    pub fn new(
        sender: SctpSender,
        receiver: SctpReceiver,
        path_names: Vec<(String, String)>,
    ) -> Self {
        SctpAssociation {
            sender,
            receiver,
            store: ChunkStore::default(),
            buf: Vec::new(),
            path_names,
        }
    }
}

impl Transport for SctpAssociation {
    fn protocol(&self) -> &'static str {
        "sctp"
    }

    fn window_facts(&self) -> Option<WindowFacts> {
        let cfg = &self.sender.cfg;
        // A full DATA chunk fills the MTU; a SACK without gap reports is its fixed 16 bytes.
        Some(WindowFacts {
            window: cfg.rcv_buf,
            limit: WindowLimit::Buffer(cfg.rcv_buf),
            payload: cfg.frag_point,
            data_wire: PACKET_OVERHEAD + 16 + cfg.frag_point,
            ack_wire: PACKET_OVERHEAD + 16,
            ecn: false,
            read_rate: cfg.read_rate,
            dupthresh: Some((cfg.fast_rtx_threshold, "sctp")),
        })
    }

    fn start(&mut self, ctx: &mut Ctx) {
        self.sender.start(ctx, &mut self.store);
    }

    fn on_packet(&mut self, p: &Packet, ctx: &mut Ctx) {
        let Header::Sctp(h) = p.hdr else {
            unreachable!("an SCTP association was handed a non-SCTP packet")
        };
        let mut buf = std::mem::take(&mut self.buf);
        self.store.take(h.slot, &mut buf);
        if p.from_sender {
            self.receiver
                .on_chunks(&buf, p.dst, p.src, ctx, &mut self.store);
        } else {
            let path = self
                .sender
                .paths
                .iter()
                .position(|q| q.src == p.dst && q.dst == p.src)
                .unwrap_or(0);
            self.sender.on_chunks(&buf, path, ctx, &mut self.store);
        }
        buf.clear();
        self.buf = buf;
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Ctx) {
        match timer {
            timers::T1 => self.sender.on_t1(ctx, &mut self.store),
            timers::SACK => self.receiver.on_sack_timer(ctx, &mut self.store),
            timers::WINDOW_UPDATE => self.receiver.on_window_timer(ctx, &mut self.store),
            timers::APP_WRITE => self.sender.on_app_write_timer(ctx, &mut self.store),
            t => {
                let k = ((t - 16) / 2) as usize;
                if t % 2 == 0 {
                    self.sender.on_t3(k, ctx, &mut self.store);
                } else {
                    self.sender.on_heartbeat_timer(k, ctx, &mut self.store);
                }
            }
        }
    }

    fn other_node_pairs(&self) -> Vec<(u32, u32)> {
        self.sender.paths.iter().map(|p| (p.src, p.dst)).collect()
    }

    fn on_drop(&mut self, p: &Packet, _cause: DropCause, _site: DropSite) {
        if let Header::Sctp(h) = p.hdr {
            self.store.release(h.slot);
        }
    }

    fn results(&mut self, facts: &FlowFacts) -> Detail {
        Detail::new(super::results::collect(self, facts))
    }

    fn wire_bytes(
        &self,
        p: &Packet,
        _src: [u8; 4],
        _dst: [u8; 4],
        out: &mut Vec<u8>,
    ) -> Option<u8> {
        let Header::Sctp(h) = p.hdr else {
            return None;
        };
        let chunks = self.store.get(h.slot);
        super::wire::render(
            self.sender.flow,
            p.from_sender,
            chunks,
            &self.sender.cfg,
            out,
        );
        Some(132)
    }

    fn take_trace(&mut self) -> Option<Box<dyn Series>> {
        let a = self.sender.rows.take()?;
        let b = self.receiver.rows.take().unwrap_or_default();
        Some(Box::new(ChunkRows::merge(*a, *b)))
    }
}

//! The SCTP endpoint that accepts the association and receives the messages: TSN
//! bookkeeping (cumulative TSN, gap blocks, duplicates), reassembly of fragments, ordered
//! delivery within each stream and none across streams (a loss on one stream never holds
//! back another), unordered delivery, and the SACK policy of RFC 9260 §6.2 (every second
//! packet with DATA or after the delayed-SACK timer; at once on gaps and duplicates). With
//! `sctp.read_rate` the application reads at a set rate and the window is what the unread
//! bytes leave ([`super::reader`]).

use super::chunk::{Chunk, ChunkStore, DataChunk};
use super::config::SctpConfig;
use super::timers;
use super::trace::ChunkRows;
use crate::sim::timer::Timer;
use crate::sim::Time;
use crate::transport::Ctx;
use std::collections::BTreeMap;

/// What one stream delivered.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct StreamStats {
    /// Stream identifier.
    pub sid: u16,
    /// Messages delivered.
    pub messages: u64,
    /// User bytes delivered.
    pub bytes: u64,
    /// First delivery (s).
    pub first_delivery: Option<f64>,
    /// Last delivery (s).
    pub last_delivery: Option<f64>,
}

/// Counters of the receiving end.
#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    /// User bytes delivered to the application.
    pub bytes_delivered: u64,
    /// User bytes received, duplicates included.
    pub bytes_received: u64,
    /// Messages delivered.
    pub messages: u64,
    /// DATA chunks received, duplicates included.
    pub data_chunks: u64,
    /// Duplicate DATA chunks.
    pub duplicates: u64,
    /// SACKs sent.
    pub sacks: u64,
    /// First DATA arrival.
    pub first_data: Option<Time>,
    /// Last arrival of new DATA.
    pub last_data: Option<Time>,
    /// `bytes_received` at that arrival (duplicates after it do not count in throughput).
    pub received_at_last_data: u64,
    /// Per stream.
    pub streams: Vec<StreamStats>,
}

/// The receiving end.
pub struct SctpReceiver {
    pub(super) cfg: SctpConfig,
    pub(super) flow: u32,
    /// Highest TSN received in order (0 before any).
    pub cum_tsn: u64,
    /// TSN ranges received above `cum_tsn + 1`, inclusive, sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    dups: Vec<u64>,
    /// Fragments waiting for the rest of their message, sorted by TSN (a vector whose
    /// capacity is reused: no allocation per message).
    held: Vec<DataChunk>,
    pub(super) held_bytes: u64,
    next_ssn: Vec<u16>,
    ready: Vec<BTreeMap<u16, u32>>,
    pub(super) ready_bytes: u64,
    unsacked_packets: u32,
    sack_timer: Timer,
    /// Where SACKs go: (our node, the peer node) of the last packet with DATA.
    reply: (u32, u32),
    scratch: Vec<Chunk>,
    /// Counters.
    pub stats: ReceiverStats,
    /// DATA arrival rows for the trace, when tracing.
    pub rows: Option<Box<ChunkRows>>,
    /// With `sctp.read_rate`: the application's reader and the window it leaves.
    pub reader: Option<Box<super::reader::SctpReader>>,
}

impl SctpReceiver {
    /// A listening endpoint.
    pub fn new(cfg: SctpConfig, flow: u32, trace: bool) -> Self {
        let reader = cfg
            .read_rate
            .map(|r| Box::new(super::reader::SctpReader::new(r)));
        SctpReceiver {
            cfg,
            flow,
            cum_tsn: 0,
            ooo: vec![],
            dups: vec![],
            held: Vec::new(),
            held_bytes: 0,
            next_ssn: vec![],
            ready: vec![],
            ready_bytes: 0,
            unsacked_packets: 0,
            sack_timer: Timer::default(),
            reply: (0, 0),
            scratch: vec![],
            stats: ReceiverStats::default(),
            rows: trace.then(Box::default),
            reader,
        }
    }

    fn send(&mut self, c: Chunk, to: (u32, u32), ctx: &mut Ctx, store: &mut ChunkStore) {
        self.scratch.push(c);
        super::wire::emit(self.flow, to.0, to.1, false, &mut self.scratch, ctx, store);
    }

    /// Buffer space the receiver can offer at `now`: the receive buffer less the fragments
    /// waiting for the rest of their message, the messages waiting for their turn in their
    /// stream and, with a reader, the bytes delivered and not yet read.
    pub(super) fn free_space(&self, now: Time) -> u64 {
        let unread = self.reader.as_deref().map_or(0, |r| r.fluid.unread(now));
        self.cfg
            .rcv_buf
            .saturating_sub(self.held_bytes + self.ready_bytes + unread)
    }

    /// The highest TSN received so far (0 before any).
    pub(super) fn highest_tsn(&self) -> u64 {
        self.ooo
            .last()
            .map_or(self.cum_tsn, |&(_, b)| b.max(self.cum_tsn))
    }

    /// Handle a packet that arrived at our node `at` from the peer's node `from`.
    pub fn on_chunks(
        &mut self,
        chunks: &[Chunk],
        at: u32,
        from: u32,
        ctx: &mut Ctx,
        store: &mut ChunkStore,
    ) {
        let mut data = false;
        let mut urgent = !self.ooo.is_empty(); // a gap before this packet: SACK at once
        for c in chunks {
            match c {
                Chunk::Init => self.send(Chunk::InitAck, (at, from), ctx, store),
                Chunk::CookieEcho => self.send(Chunk::CookieAck, (at, from), ctx, store),
                Chunk::Heartbeat { path, sent } => self.send(
                    Chunk::HeartbeatAck {
                        path: *path,
                        sent: *sent,
                    },
                    (at, from),
                    ctx,
                    store,
                ),
                Chunk::Shutdown => {
                    self.sack_timer.cancel();
                    if let Some(r) = self.reader.as_deref_mut() {
                        r.update.cancel();
                    }
                    self.send(Chunk::ShutdownAck, (at, from), ctx, store);
                }
                Chunk::Data(d) => {
                    data = true;
                    urgent |= self.on_data(*d, ctx.now);
                }
                _ => {}
            }
        }
        if !data {
            return;
        }
        self.reply = (at, from);
        urgent |= !self.ooo.is_empty();
        self.unsacked_packets += 1;
        if urgent || self.unsacked_packets >= self.cfg.sack_freq {
            self.send_sack(ctx, store);
        } else if !self.sack_timer.is_set() {
            self.sack_timer.set(
                ctx.now + self.cfg.sack_delay,
                self.flow,
                timers::SACK,
                ctx.events,
            );
        }
    }

    /// One DATA chunk. Returns true when it was a duplicate (SACK at once).
    fn on_data(&mut self, d: DataChunk, now: Time) -> bool {
        self.stats.data_chunks += 1;
        self.stats.bytes_received += d.len as u64;
        self.stats.first_data.get_or_insert(now);
        if let Some(r) = self.rows.as_deref_mut() {
            r.push(now, 1, &d, 0, 0, 0, 0);
        }
        if d.tsn <= self.cum_tsn || self.ooo.iter().any(|&(a, b)| a <= d.tsn && d.tsn <= b) {
            self.stats.duplicates += 1;
            self.dups.push(d.tsn);
            return true;
        }
        if self.reader.is_some() && self.reader_refuses(d.tsn, now) {
            return true;
        }
        self.stats.last_data = Some(now);
        self.stats.received_at_last_data = self.stats.bytes_received;
        if d.tsn == self.cum_tsn + 1 {
            self.cum_tsn = d.tsn;
            while let Some(&(a, b)) = self.ooo.first() {
                if a != self.cum_tsn + 1 {
                    break;
                }
                self.cum_tsn = b;
                self.ooo.remove(0);
            }
        } else {
            self.insert_ooo(d.tsn);
        }
        self.assemble(d, now);
        false
    }

    fn insert_ooo(&mut self, t: u64) {
        let i = self.ooo.partition_point(|&(_, b)| b + 1 < t);
        match self.ooo.get_mut(i) {
            Some(r) if r.0 <= t + 1 => {
                r.0 = r.0.min(t);
                r.1 = r.1.max(t);
                // Join with the next range if they now touch.
                if let Some(&(na, nb)) = self.ooo.get(i + 1) {
                    if na == self.ooo[i].1 + 1 {
                        self.ooo[i].1 = nb;
                        self.ooo.remove(i + 1);
                    }
                }
            }
            _ => self.ooo.insert(i, (t, t)),
        }
    }

    /// Reassemble the message `d` belongs to, if it is complete, and deliver what may go.
    fn assemble(&mut self, d: DataChunk, now: Time) {
        if d.begin() && d.end() {
            self.message(d.sid, d.ssn, d.unordered(), d.len, now);
            return;
        }
        let at = self.held.partition_point(|c| c.tsn < d.tsn);
        self.held.insert(at, d);
        self.held_bytes += d.len as u64;
        // The message is complete when consecutive TSNs run from a B fragment to an E one.
        let consecutive = |i: usize, j: usize| self.held[i].tsn.abs_diff(self.held[j].tsn) == 1;
        let mut b = at;
        while !self.held[b].begin() {
            if b == 0 || !consecutive(b - 1, b) {
                return;
            }
            b -= 1;
        }
        let mut e = at;
        while !self.held[e].end() {
            if e + 1 == self.held.len() || !consecutive(e, e + 1) {
                return;
            }
            e += 1;
        }
        let len: u32 = self.held.drain(b..=e).map(|c| c.len).sum();
        self.held_bytes -= len as u64;
        self.message(d.sid, d.ssn, d.unordered(), len, now);
    }

    /// A complete message: deliver it, or hold it until its turn in its stream.
    fn message(&mut self, sid: u16, ssn: u16, unordered: bool, len: u32, now: Time) {
        let s = sid as usize;
        if self.next_ssn.len() <= s {
            self.next_ssn.resize(s + 1, 0);
            self.ready.resize(s + 1, BTreeMap::new());
        }
        if unordered {
            self.deliver(sid, len, now);
            return;
        }
        if ssn != self.next_ssn[s] {
            self.ready[s].insert(ssn, len);
            self.ready_bytes += len as u64;
            return;
        }
        self.deliver(sid, len, now);
        self.next_ssn[s] = ssn.wrapping_add(1);
        while let Some(len) = self.ready[s].remove(&self.next_ssn[s]) {
            self.ready_bytes -= len as u64;
            self.deliver(sid, len, now);
            self.next_ssn[s] = self.next_ssn[s].wrapping_add(1);
        }
    }

    fn deliver(&mut self, sid: u16, len: u32, now: Time) {
        if let Some(r) = self.reader.as_deref_mut() {
            r.fluid.deliver(len as u64, now);
        }
        self.stats.bytes_delivered += len as u64;
        self.stats.messages += 1;
        let s = sid as usize;
        if self.stats.streams.len() <= s {
            let n = self.stats.streams.len();
            self.stats.streams.extend((n..=s).map(|i| StreamStats {
                sid: i as u16,
                ..Default::default()
            }));
        }
        let st = &mut self.stats.streams[s];
        st.messages += 1;
        st.bytes += len as u64;
        let t = crate::sim::secs(now);
        st.first_delivery.get_or_insert(t);
        st.last_delivery = Some(t);
    }

    pub(super) fn send_sack(&mut self, ctx: &mut Ctx, store: &mut ChunkStore) {
        let cum = self.cum_tsn;
        let gaps = self
            .ooo
            .iter()
            .map(|&(a, b)| ((a - cum) as u32, (b - cum) as u32))
            .collect();
        let a_rwnd = self.free_space(ctx.now).min(u32::MAX as u64) as u32;
        if self.reader.is_some() {
            self.reader_advertised(a_rwnd as u64, ctx);
        }
        if let Some(r) = self.rows.as_deref_mut() {
            r.push_sack(ctx.now, 0, cum, self.ooo.len());
        }
        let sack = Chunk::Sack {
            cum_tsn: cum,
            a_rwnd,
            gaps,
            dups: std::mem::take(&mut self.dups),
        };
        self.unsacked_packets = 0;
        self.sack_timer.cancel();
        self.stats.sacks += 1;
        let to = self.reply;
        self.send(sack, to, ctx, store);
    }

    /// The delayed-SACK timer.
    pub fn on_sack_timer(&mut self, ctx: &mut Ctx, store: &mut ChunkStore) {
        if self
            .sack_timer
            .fire(ctx.now, self.flow, timers::SACK, ctx.events)
            && self.unsacked_packets > 0
        {
            self.send_sack(ctx, store);
        }
    }
}

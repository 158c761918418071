//! The SCTP endpoint that opens the association and sends the application's messages
//! (RFC 9260): stream queues and the stream scheduler, fragmentation at the fragmentation
//! point, bundling of chunks into packets up to the path MTU, the congestion rules of §7
//! per destination, fast retransmit and fast recovery (§7.2.4), T3-rtx (§6.3.3),
//! failover to an alternate destination and heartbeats (§8), and the graceful shutdown.

use super::chunk::{data_flags, Chunk, ChunkStore, DataChunk, PACKET_OVERHEAD};
use super::config::{SctpConfig, StreamScheduler};
use super::path::Path;
use super::timers;
use super::trace::ChunkRows;
use crate::sim::Time;
use crate::transport::write_times::WriteTimes;
use crate::transport::Ctx;
use std::collections::VecDeque;

/// A message the application wrote, waiting to be fragmented.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    /// Stream.
    pub stream: u16,
    /// Bytes.
    pub len: u32,
}

/// Messages made as they are needed (bulk and finite applications): `len` bytes each on
/// stream 0, `left` bytes in all (None: without end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endless {
    /// Bytes per message.
    pub len: u32,
    /// Bytes still to write (None: bulk).
    pub left: Option<u64>,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    len: u32,
    offset: u32,
    ssn: u16,
}

/// Why a chunk waits for retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rtx {
    None,
    Fast,
    Timeout,
}

/// A DATA chunk sent and not yet cumulatively acknowledged.
#[derive(Clone, Copy, Debug)]
struct Sent {
    chunk: DataChunk,
    path: u8,
    acked: bool,
    missing: u32,
    rtx: Rtx,
    fast_done: bool,
    in_flight: bool,
    round: u32,
}

/// Association state of the sending end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Not started.
    Closed,
    /// INIT sent.
    CookieWait,
    /// COOKIE ECHO sent.
    CookieEchoed,
    /// Data transfer.
    Established,
    /// SHUTDOWN sent.
    ShutdownSent,
    /// Closed after a graceful shutdown (or aborted).
    Done,
}

/// Counters of the sending end.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Packets sent.
    pub packets: u64,
    /// DATA chunks sent, retransmissions included.
    pub data_chunks: u64,
    /// User bytes sent, retransmissions included.
    pub data_bytes: u64,
    /// Chunks retransmitted by fast retransmit.
    pub rtx_fast: u64,
    /// Chunks retransmitted after a T3-rtx expiry.
    pub rtx_timeout: u64,
    /// T3-rtx expiries.
    pub timeouts: u64,
    /// Entries into fast recovery.
    pub fast_retransmits: u64,
    /// INIT / COOKIE ECHO retransmissions.
    pub init_retries: u64,
    /// When the COOKIE ACK arrived.
    pub established_at: Option<Time>,
    /// When every message was acknowledged.
    pub all_acked_at: Option<Time>,
    /// Failovers: (time, from path, to path).
    pub failovers: Vec<(Time, u8, u8)>,
    /// The association was aborted (Association.Max.Retrans exceeded).
    pub aborted: bool,
    /// Heartbeats sent.
    pub heartbeats: u64,
}

/// The sending end.
pub struct SctpSender {
    /// Configuration.
    pub cfg: SctpConfig,
    pub(crate) flow: u32,
    /// Destinations; path 0 is the primary.
    pub paths: Vec<Path>,
    /// State.
    pub state: State,
    streams: Vec<VecDeque<Pending>>,
    next_ssn: Vec<u16>,
    fcfs: VecDeque<u16>,
    rr_next: usize,
    current: Option<u16>,
    source: Option<Endless>,
    next_tsn: u64,
    /// Highest TSN cumulatively acknowledged.
    pub cum_ack: u64,
    out: VecDeque<Sent>,
    peer_rwnd: u64,
    t1: crate::sim::timer::Timer,
    t1_sent: Time,
    assoc_errors: u32,
    send_round: u32,
    fast_burst: bool,
    scratch: Vec<Chunk>,
    /// Counters.
    pub stats: SenderStats,
    /// DATA chunk rows for the trace, when tracing.
    pub rows: Option<Box<ChunkRows>>,
    /// Messages the application writes at set times, not yet written.
    timed: Option<Box<TimedMessages>>,
}

/// A writes application's schedule (`app.at`) and the messages it has still to write.
struct TimedMessages {
    times: WriteTimes,
    held: VecDeque<Message>,
}

impl SctpSender {
    /// A sender on `paths` (primary first) that will send `messages`, then what `source`
    /// makes as it goes.
    pub fn new(
        cfg: SctpConfig,
        flow: u32,
        paths: Vec<Path>,
        messages: &[Message],
        source: Option<Endless>,
        trace: bool,
    ) -> Self {
        let nstreams = messages
            .iter()
            .map(|m| m.stream as usize + 1)
            .max()
            .unwrap_or(1);
        let mut s = SctpSender {
            peer_rwnd: cfg.rcv_buf,
            cfg,
            flow,
            paths,
            state: State::Closed,
            streams: vec![VecDeque::new(); nstreams],
            next_ssn: vec![0; nstreams],
            fcfs: VecDeque::new(),
            rr_next: 0,
            current: None,
            source,
            next_tsn: 1,
            cum_ack: 0,
            out: VecDeque::new(),
            t1: Default::default(),
            t1_sent: 0,
            assoc_errors: 0,
            send_round: 1,
            fast_burst: false,
            scratch: Vec::new(),
            stats: SenderStats::default(),
            rows: trace.then(Box::default),
            timed: None,
        };
        for m in messages {
            s.queue(*m);
        }
        s
    }

    /// Write `messages` at these times from the start (one time each) instead of at once.
    pub fn send_at(&mut self, at: Vec<Time>, messages: Vec<Message>) {
        debug_assert_eq!(at.len(), messages.len());
        let n = messages
            .iter()
            .map(|m| m.stream as usize + 1)
            .max()
            .unwrap_or(1);
        if n > self.streams.len() {
            self.streams.resize(n, VecDeque::new());
            self.next_ssn.resize(n, 0);
        }
        self.timed = Some(Box::new(TimedMessages {
            times: WriteTimes::new(at),
            held: messages.into(),
        }));
    }

    /// The application writes the messages whose time has come.
    fn write_due(&mut self, ctx: &mut Ctx) {
        let Some(t) = self.timed.as_deref_mut() else {
            return;
        };
        let before = t.times.made();
        let made = t.times.advance(self.flow, timers::APP_WRITE, ctx);
        let due: Vec<Message> = t.held.drain(..made - before).collect();
        for m in due {
            self.queue(m);
        }
    }

    /// The timer of the application's next write ([`timers::APP_WRITE`]).
    pub fn on_app_write_timer(&mut self, ctx: &mut Ctx, store: &mut ChunkStore) {
        self.write_due(ctx);
        self.transmit(ctx, store);
    }

    fn queue(&mut self, m: Message) {
        let sid = m.stream as usize;
        let ssn = self.next_ssn[sid];
        self.next_ssn[sid] = ssn.wrapping_add(1);
        self.streams[sid].push_back(Pending {
            len: m.len,
            offset: 0,
            ssn,
        });
        if self.cfg.scheduler == StreamScheduler::Fcfs {
            self.fcfs.push_back(m.stream);
        }
    }

    /// Bytes outstanding on all destinations.
    fn outstanding(&self) -> u64 {
        self.paths.iter().map(|p| p.flight).sum()
    }

    /// The destination for new data: the primary while active, else the first active one.
    pub fn data_path(&self) -> usize {
        if self.paths[0].active {
            return 0;
        }
        self.paths.iter().position(|p| p.active).unwrap_or(0)
    }

    /// Open the association: send INIT.
    pub fn start(&mut self, ctx: &mut Ctx, store: &mut ChunkStore) {
        if let Some(t) = self.timed.as_deref_mut() {
            t.times.start(ctx.now);
            self.write_due(ctx);
        }
        self.state = State::CookieWait;
        self.t1_sent = ctx.now;
        self.send_control(Chunk::Init, 0, ctx, store);
        self.arm_t1(ctx);
    }

    fn arm_t1(&mut self, ctx: &mut Ctx) {
        let rto = self.paths[0].rtt.rto();
        self.t1
            .set(ctx.now + rto, self.flow, timers::T1, ctx.events);
    }

    /// Send one control chunk alone to path `path`.
    fn send_control(&mut self, c: Chunk, path: usize, ctx: &mut Ctx, store: &mut ChunkStore) {
        self.scratch.push(c);
        self.flush(path, ctx, store);
    }

    /// Put the chunks in `scratch` into a packet to `path`.
    fn flush(&mut self, path: usize, ctx: &mut Ctx, store: &mut ChunkStore) {
        if self.scratch.is_empty() {
            return;
        }
        let p = &mut self.paths[path];
        p.packets += 1;
        self.stats.packets += 1;
        let (src, dst) = (p.src, p.dst);
        super::wire::emit(self.flow, src, dst, true, &mut self.scratch, ctx, store);
    }

    /// Handle a packet from the peer, arriving on path `path`.
    pub fn on_chunks(
        &mut self,
        chunks: &[Chunk],
        path: usize,
        ctx: &mut Ctx,
        store: &mut ChunkStore,
    ) {
        for c in chunks {
            match c {
                Chunk::InitAck if self.state == State::CookieWait => {
                    self.paths[0].rtt.sample((ctx.now - self.t1_sent).max(1));
                    self.state = State::CookieEchoed;
                    self.t1_sent = ctx.now;
                    self.send_control(Chunk::CookieEcho, 0, ctx, store);
                    self.arm_t1(ctx);
                }
                Chunk::CookieAck if self.state == State::CookieEchoed => {
                    self.t1.cancel();
                    self.state = State::Established;
                    self.stats.established_at = Some(ctx.now);
                    if self.cfg.heartbeats && self.paths.len() > 1 {
                        for k in 0..self.paths.len() {
                            self.arm_heartbeat(k, ctx);
                        }
                    }
                    self.transmit(ctx, store);
                }
                Chunk::Sack {
                    cum_tsn,
                    a_rwnd,
                    gaps,
                    ..
                } if matches!(self.state, State::Established | State::ShutdownSent) => {
                    if let Some(r) = self.rows.as_deref_mut() {
                        r.push_sack(ctx.now, 1, *cum_tsn, gaps.len());
                    }
                    self.on_sack(*cum_tsn, *a_rwnd, gaps, ctx);
                    self.transmit(ctx, store);
                }
                Chunk::HeartbeatAck { path: k, sent } => {
                    let p = &mut self.paths[*k as usize];
                    p.hb_pending = false;
                    p.errors = 0;
                    p.rtt.sample((ctx.now - sent).max(1));
                    if !p.active {
                        p.active = true;
                        let to = self.data_path();
                        let from = self.stats.failovers.last().map(|f| f.2);
                        if from.is_some_and(|f| f as usize != to) {
                            self.stats
                                .failovers
                                .push((ctx.now, from.unwrap(), to as u8));
                        }
                    }
                }
                Chunk::ShutdownAck if self.state == State::ShutdownSent => {
                    self.send_control(Chunk::ShutdownComplete, path, ctx, store);
                    self.close();
                }
                _ => {}
            }
        }
    }

    fn close(&mut self) {
        self.state = State::Done;
        self.t1.cancel();
        for p in &mut self.paths {
            p.t3.cancel();
            p.hb.cancel();
        }
    }

    /// RFC 9260 §6.2.1 and §7.2: process a SACK.
    fn on_sack(&mut self, cum: u64, a_rwnd: u32, gaps: &[(u32, u32)], ctx: &mut Ctx) {
        if cum < self.cum_ack {
            return; // older than one already processed
        }
        for p in self.paths.iter_mut() {
            p.sack = Default::default();
            p.sack.full = p.flight >= p.cwnd;
        }
        let advanced = cum > self.cum_ack;
        let mut highest_new: Option<u64> = None;
        let mut round = 0;
        // Cumulatively acknowledged chunks.
        while let Some(s) = self.out.front() {
            if s.chunk.tsn > cum {
                break;
            }
            let s = self.out.pop_front().expect("front");
            self.acknowledge(&s, ctx.now);
            round = round.max(s.round);
            if !s.acked {
                highest_new = Some(s.chunk.tsn);
            }
        }
        self.cum_ack = self.cum_ack.max(cum);
        // Gap-acknowledged chunks.
        for &(a, b) in gaps {
            let (lo, hi) = (cum + a as u64, cum + b as u64);
            let i = self.out.partition_point(|s| s.chunk.tsn < lo);
            for k in i..self.out.len() {
                let s = self.out[k];
                if s.chunk.tsn > hi {
                    break;
                }
                if !s.acked {
                    self.acknowledge(&s, ctx.now);
                    round = round.max(s.round);
                    let s = &mut self.out[k];
                    s.acked = true;
                    s.in_flight = false;
                    s.rtx = Rtx::None;
                    highest_new = Some(highest_new.map_or(s.chunk.tsn, |h| h.max(s.chunk.tsn)));
                }
            }
        }
        if round > 0 {
            self.send_round = self.send_round.max(round + 1);
        }
        // Missing reports (§7.2.4, HTNA): unacknowledged chunks below the highest TSN newly
        // acknowledged by this SACK.
        if let Some(h) = highest_new {
            let thresh = self.cfg.fast_rtx_threshold;
            for s in self.out.iter_mut() {
                if s.chunk.tsn >= h {
                    break;
                }
                if s.acked || s.fast_done {
                    continue;
                }
                s.missing += 1;
                if s.missing >= thresh && s.rtx == Rtx::None {
                    s.rtx = Rtx::Fast;
                    s.fast_done = true;
                    if s.in_flight {
                        s.in_flight = false;
                        self.paths[s.path as usize].flight -= self.cfg.counted(s.chunk.len);
                    }
                    self.paths[s.path as usize].sack.new_fast = true;
                }
            }
        }
        let mtu = self.cfg.mtu as u64;
        // Congestion window (§7.2.1, §7.2.2): only when the cumulative TSN advanced.
        for p in self.paths.iter_mut() {
            let acked = p.sack.acked;
            if acked == 0 {
                continue;
            }
            p.errors = 0;
            if !advanced {
                continue;
            }
            if p.cwnd <= p.ssthresh {
                if p.sack.full && p.recovery_exit.is_none() {
                    p.cwnd += acked.min(mtu);
                }
            } else {
                p.pba += acked;
                if p.pba >= p.cwnd && p.sack.full {
                    p.pba -= p.cwnd;
                    p.cwnd += mtu;
                }
            }
        }
        if self.paths.iter().any(|p| p.sack.acked > 0) {
            self.assoc_errors = 0;
        }
        // Fast recovery: leave when the exit point is acknowledged; enter on new marks.
        let highest_out = self.out.back().map_or(cum, |s| s.chunk.tsn);
        for p in self.paths.iter_mut() {
            if p.recovery_exit.is_some_and(|x| cum >= x) {
                p.recovery_exit = None;
            }
        }
        for p in self.paths.iter_mut() {
            if p.sack.new_fast && p.recovery_exit.is_none() {
                self.stats.fast_retransmits += 1;
                p.halve(mtu);
                p.cwnd = p.ssthresh;
                p.recovery_exit = Some(highest_out);
                self.fast_burst = true;
            }
        }
        let outstanding: u64 = self.outstanding();
        self.peer_rwnd = (a_rwnd as u64).saturating_sub(outstanding);
        // Zero-window probing (RFC 9260 §6.1): a SACK that still shows a closed window with
        // only the probe outstanding says the peer is there; its unacknowledged probes do not
        // count as errors (as Linux's `sctp_check_transmitted` resets them).
        if a_rwnd == 0 && self.out.len() == 1 && !self.out[0].acked {
            self.assoc_errors = 0;
            let k = self.out[0].path as usize;
            self.paths[k].errors = 0;
        }
        // T3-rtx (§6.3.2 R2, R3): stop when nothing is outstanding on a path; restart when
        // the cumulative TSN advanced over data sent to that path.
        for (k, p) in self.paths.iter_mut().enumerate() {
            if p.flight == 0 {
                p.t3.cancel();
            } else if advanced && p.sack.acked > 0 {
                let at = ctx.now + p.rtt.rto();
                p.t3.set(at, self.flow, timers::t3(k), ctx.events);
            }
        }
        if self.out.is_empty() && self.app_done() && self.stats.all_acked_at.is_none() {
            self.stats.all_acked_at = Some(ctx.now);
        }
    }

    /// A chunk was newly acknowledged: take it out of the flight, sample the RTT.
    fn acknowledge(&mut self, s: &Sent, now: Time) {
        let p = &mut self.paths[s.path as usize];
        if s.acked {
            return;
        }
        if s.in_flight {
            p.flight -= self.cfg.counted(s.chunk.len);
        }
        p.sack.acked += self.cfg.counted(s.chunk.len);
        if let Some((tsn, t)) = p.probe {
            if tsn == s.chunk.tsn {
                if s.chunk.tx == 1 {
                    p.rtt.sample((now - t).max(1));
                }
                p.probe = None;
            }
        }
    }

    fn app_done(&self) -> bool {
        self.source.is_none_or(|s| s.left == Some(0))
            && self.timed.as_ref().is_none_or(|t| t.held.is_empty())
            && self.current.is_none()
            && self.streams.iter().all(|q| q.is_empty())
    }

    /// The next stream to take a message from.
    fn pick_stream(&mut self) -> Option<u16> {
        if let Some(s) = self.current {
            return Some(s);
        }
        let s = match self.cfg.scheduler {
            StreamScheduler::Fcfs => self.fcfs.pop_front(),
            StreamScheduler::RoundRobin => {
                let n = self.streams.len();
                (0..n)
                    .map(|i| (self.rr_next + i) % n)
                    .find(|&i| !self.streams[i].is_empty())
                    .map(|i| i as u16)
            }
        };
        let s = match (s, self.source) {
            (Some(s), _) => s,
            (None, Some(src)) if src.left != Some(0) => {
                let len = src.left.map_or(src.len, |l| l.min(src.len as u64) as u32);
                if let Some(left) = self.source.as_mut().and_then(|s| s.left.as_mut()) {
                    *left -= len as u64;
                }
                self.queue(Message { stream: 0, len });
                if self.cfg.scheduler == StreamScheduler::Fcfs {
                    self.fcfs.pop_front();
                }
                0
            }
            (None, _) => return None,
        };
        self.current = Some(s);
        Some(s)
    }

    /// User bytes of the next new DATA chunk, without taking it.
    fn peek_new(&mut self) -> Option<u32> {
        let s = self.pick_stream()? as usize;
        let m = self.streams[s]
            .front()
            .expect("picked stream has a message");
        Some((m.len - m.offset).min(self.cfg.frag_point))
    }

    /// Take the next new DATA chunk (a fragment of the current message).
    fn take_new(&mut self) -> DataChunk {
        let s = self.current.expect("peeked") as usize;
        let frag = self.cfg.frag_point;
        let m = self.streams[s].front_mut().expect("message");
        let len = (m.len - m.offset).min(frag);
        let mut flags = 0;
        if m.offset == 0 {
            flags |= data_flags::BEGIN;
        }
        if m.offset + len == m.len {
            flags |= data_flags::END;
        }
        if self.cfg.unordered {
            flags |= data_flags::UNORDERED;
        }
        m.offset += len;
        let ssn = m.ssn;
        if flags & data_flags::END != 0 {
            self.streams[s].pop_front();
            self.current = None;
            self.rr_next = (s + 1) % self.streams.len();
        }
        let tsn = self.next_tsn;
        self.next_tsn += 1;
        DataChunk {
            tsn,
            sid: s as u16,
            ssn,
            flags,
            len,
            tx: 1,
        }
    }

    /// Room for a chunk of `len` user bytes on path `k` (cwnd: a new chunk may go while the
    /// bytes outstanding are below cwnd, §6.1 B; receiver window, §6.1 A).
    fn room(&self, k: usize, len: u32) -> bool {
        let p = &self.paths[k];
        p.flight < p.cwnd && (self.peer_rwnd >= len as u64 || self.outstanding() == 0)
    }

    /// Send what the windows allow: retransmissions first, then new data, bundled.
    pub fn transmit(&mut self, ctx: &mut Ctx, store: &mut ChunkStore) {
        if !matches!(self.state, State::Established) {
            return;
        }
        let mtu = self.cfg.mtu;
        // Max.Burst (RFC 4960 §6.1 D): no more than Max.Burst packets' worth beyond the
        // flight, by lowering cwnd for this round of sending (or for good, with
        // `max_burst_cwnd = "lower"`).
        let burst = self.cfg.max_burst as u64 * mtu as u64;
        for p in self.paths.iter_mut() {
            if self.cfg.idle_decay {
                p.decay_idle(ctx.now, mtu as u64);
            }
            if p.flight + burst < p.cwnd {
                if self.cfg.max_burst_restore {
                    p.burst_limited = p.cwnd;
                }
                p.cwnd = p.flight + burst;
            }
        }
        let mut open: Option<(usize, u32)> = None; // (path, bytes in the packet so far)
                                                   // Retransmissions, in TSN order.
        let mut i = 0;
        while i < self.out.len() {
            let s = self.out[i];
            if s.rtx == Rtx::None {
                i += 1;
                continue;
            }
            let k = self.rtx_path(s.path as usize, s.rtx);
            let forced = s.rtx == Rtx::Fast && self.fast_burst;
            if !forced && !self.room(k, s.chunk.len) {
                break;
            }
            let mut c = s.chunk;
            c.tx = c.tx.saturating_add(1);
            self.place(Chunk::Data(c), k, &mut open, ctx, store);
            match s.rtx {
                Rtx::Fast => self.stats.rtx_fast += 1,
                _ => self.stats.rtx_timeout += 1,
            }
            self.account_sent(&c, k, ctx);
            let p = &mut self.paths[k];
            if p.probe.is_some_and(|(t, _)| t == c.tsn) {
                p.probe = None; // Karn: no sample from a retransmitted chunk
            }
            let round = self.send_round;
            let e = &mut self.out[i];
            e.chunk = c;
            e.path = k as u8;
            e.rtx = Rtx::None;
            e.in_flight = true;
            e.missing = 0;
            e.round = round;
            i += 1;
        }
        if self.fast_burst {
            // The first packet of a fast retransmission may exceed cwnd; later ones may not.
            self.fast_burst = false;
        }
        // New data on the data path.
        let k = self.data_path();
        while let Some(len) = self.peek_new() {
            if !self.room(k, len) {
                break;
            }
            let c = self.take_new();
            if self.paths[k].probe.is_none() {
                self.paths[k].probe = Some((c.tsn, ctx.now));
            }
            self.place(Chunk::Data(c), k, &mut open, ctx, store);
            self.account_sent(&c, k, ctx);
            self.out.push_back(Sent {
                chunk: c,
                path: k as u8,
                acked: false,
                missing: 0,
                rtx: Rtx::None,
                fast_done: false,
                in_flight: true,
                round: self.send_round,
            });
        }
        if let Some((k, _)) = open {
            self.flush(k, ctx, store);
        }
        // Max.Burst limited this round of sending only (Linux's `sctp_transport_burst_reset`
        // as its flush ends).
        for p in self.paths.iter_mut() {
            if p.burst_limited > 0 {
                p.cwnd = p.burst_limited;
                p.burst_limited = 0;
            }
        }
        if self.out.is_empty() && self.app_done() && self.state == State::Established {
            self.stats.all_acked_at.get_or_insert(ctx.now);
            self.state = State::ShutdownSent;
            let k = self.data_path();
            self.send_control(Chunk::Shutdown, k, ctx, store);
            self.arm_t1(ctx);
        }
    }

    /// Where to retransmit a chunk last sent on `last`: after a timeout, an active
    /// destination other than the one that timed out, if there is one (§6.4.1).
    fn rtx_path(&self, last: usize, why: Rtx) -> usize {
        if why == Rtx::Timeout {
            if let Some(k) = (0..self.paths.len()).find(|&k| k != last && self.paths[k].active) {
                return k;
            }
        }
        if self.paths[last].active {
            last
        } else {
            self.data_path()
        }
    }

    /// Add a chunk to the open packet for path `k`, flushing it first if it goes elsewhere
    /// or the chunk does not fit in the MTU.
    fn place(
        &mut self,
        c: Chunk,
        k: usize,
        open: &mut Option<(usize, u32)>,
        ctx: &mut Ctx,
        store: &mut ChunkStore,
    ) {
        let size = c.wire();
        if let Some((pk, bytes)) = *open {
            if pk != k || bytes + size > self.cfg.mtu {
                self.flush(pk, ctx, store);
                *open = None;
            }
        }
        let bytes = open.map_or(PACKET_OVERHEAD, |o| o.1);
        self.scratch.push(c);
        *open = Some((k, bytes + size));
    }

    fn account_sent(&mut self, c: &DataChunk, k: usize, ctx: &mut Ctx) {
        let now = ctx.now;
        let counted = self.cfg.counted(c.len);
        let p = &mut self.paths[k];
        p.flight += counted;
        p.last_sent = now;
        p.data_bytes += c.len as u64;
        self.peer_rwnd = self.peer_rwnd.saturating_sub(c.len as u64);
        self.stats.data_chunks += 1;
        self.stats.data_bytes += c.len as u64;
        if !p.t3.is_set() {
            let at = now + p.rtt.rto();
            p.t3.set(at, self.flow, timers::t3(k), ctx.events);
        }
        if let Some(r) = self.rows.as_deref_mut() {
            r.push(now, 0, c, self.send_round, k as u8, p.cwnd, p.flight);
        }
    }

    /// T1 (INIT / COOKIE ECHO / SHUTDOWN) expired.
    pub fn on_t1(&mut self, ctx: &mut Ctx, store: &mut ChunkStore) {
        if !self.t1.fire(ctx.now, self.flow, timers::T1, ctx.events) {
            return;
        }
        self.stats.init_retries += 1;
        self.paths[0].rtt.back_off();
        if self.stats.init_retries > self.cfg.assoc_max_retrans as u64 {
            self.stats.aborted = true;
            self.close();
            return;
        }
        let c = match self.state {
            State::CookieWait => Chunk::Init,
            State::CookieEchoed => Chunk::CookieEcho,
            State::ShutdownSent => Chunk::Shutdown,
            _ => return,
        };
        self.t1_sent = ctx.now;
        let k = self.data_path();
        self.send_control(c, k, ctx, store);
        self.arm_t1(ctx);
    }

    /// T3-rtx of path `k` expired (§6.3.3).
    pub fn on_t3(&mut self, k: usize, ctx: &mut Ctx, store: &mut ChunkStore) {
        if !self.paths[k]
            .t3
            .fire(ctx.now, self.flow, timers::t3(k), ctx.events)
        {
            return;
        }
        if self.state != State::Established && self.state != State::ShutdownSent {
            return;
        }
        self.stats.timeouts += 1;
        let mtu = self.cfg.mtu as u64;
        {
            let p = &mut self.paths[k];
            p.halve(mtu);
            p.cwnd = mtu;
            p.rtt.back_off();
            p.probe = None;
            p.recovery_exit = None;
        }
        for s in self.out.iter_mut() {
            if s.path as usize == k && !s.acked {
                if s.in_flight {
                    s.in_flight = false;
                    self.paths[k].flight -= self.cfg.counted(s.chunk.len);
                }
                s.rtx = Rtx::Timeout;
            }
        }
        self.path_error(k, ctx.now);
        if self.state == State::Done {
            return;
        }
        self.transmit(ctx, store);
    }

    /// Count an error against path `k` and the association (§8.1, §8.2).
    fn path_error(&mut self, k: usize, now: Time) {
        self.assoc_errors += 1;
        let before = self.data_path();
        let p = &mut self.paths[k];
        p.errors += 1;
        if p.active && p.errors > self.cfg.path_max_retrans {
            p.active = false;
            let after = self.data_path();
            if after != before || k == before {
                self.stats.failovers.push((now, before as u8, after as u8));
            }
        }
        if self.assoc_errors > self.cfg.assoc_max_retrans {
            self.stats.aborted = true;
            self.close();
        }
    }

    fn arm_heartbeat(&mut self, k: usize, ctx: &mut Ctx) {
        let at = ctx.now + self.cfg.hb_interval + self.paths[k].rtt.rto();
        self.paths[k]
            .hb
            .set(at, self.flow, timers::hb(k), ctx.events);
    }

    /// Heartbeat timer of path `k`: probe an idle or inactive destination (§8.3).
    pub fn on_heartbeat_timer(&mut self, k: usize, ctx: &mut Ctx, store: &mut ChunkStore) {
        if !self.paths[k]
            .hb
            .fire(ctx.now, self.flow, timers::hb(k), ctx.events)
            || self.state == State::Done
        {
            return;
        }
        if self.paths[k].hb_pending {
            self.paths[k].hb_pending = false;
            self.path_error(k, ctx.now);
            if self.state == State::Done {
                return;
            }
        }
        let idle = ctx.now.saturating_sub(self.paths[k].last_sent) >= self.cfg.hb_interval;
        if idle || !self.paths[k].active {
            self.paths[k].hb_pending = true;
            self.stats.heartbeats += 1;
            self.send_control(
                Chunk::Heartbeat {
                    path: k as u8,
                    sent: ctx.now,
                },
                k,
                ctx,
                store,
            );
        }
        self.arm_heartbeat(k, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SctpConfig {
        SctpConfig::default()
    }

    /// Messages written s0, s0, s1, s1: FCFS sends them in that order; round-robin takes
    /// one message per stream in turn (s0, s1, s0, s1). Each 3000-byte message is three
    /// chunks (1452, 1452, 96) sent together before the scheduler moves on.
    #[test]
    fn fcfs_and_round_robin_orders() {
        let msgs = [0u16, 0, 1, 1].map(|stream| Message { stream, len: 3000 });
        let order = |sched: StreamScheduler| -> Vec<(u16, u16)> {
            let mut c = cfg();
            c.scheduler = sched;
            let mut s = SctpSender::new(c, 0, vec![], &msgs, None, false);
            let mut out = vec![];
            while s.peek_new().is_some() {
                let d = s.take_new();
                out.push((d.sid, d.ssn));
            }
            out
        };
        let three = |x: (u16, u16)| [x; 3];
        let fcfs: Vec<_> = [(0, 0), (0, 1), (1, 0), (1, 1)]
            .into_iter()
            .flat_map(three)
            .collect();
        let rr: Vec<_> = [(0, 0), (1, 0), (0, 1), (1, 1)]
            .into_iter()
            .flat_map(three)
            .collect();
        assert_eq!(order(StreamScheduler::Fcfs), fcfs);
        assert_eq!(order(StreamScheduler::RoundRobin), rr);
    }
}

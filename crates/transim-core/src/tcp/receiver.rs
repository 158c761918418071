//! The TCP receiver: passive open, in-order delivery with an out-of-order store, the ACK
//! policy (immediate, every n-th segment, Linux quick-ACK then delayed) and the timestamp
//! echo. The application reads at once, so the advertised window is the receive buffer,
//! unless it reads at a set rate (`tcp.read_rate`, [`super::reader`]).

use super::config::{DelayedAck, TcpConfig};
use super::timers;
use super::Ctx;
use crate::net::header::tcp::flags;
use crate::net::{Header, Packet, SackBlocks, TcpHeader};
use crate::sim::events::Event;
use crate::sim::timer::Timer;
use crate::sim::Time;
use std::sync::Arc;

/// Receiver counters.
#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    /// Payload bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Payload bytes received until the transfer completed (including duplicates and
    /// out-of-order).
    pub bytes_received: u64,
    /// Segments with data received.
    pub data_segments: u64,
    /// Segments entirely below rcv_nxt (already received).
    pub duplicate_segments: u64,
    /// Segments that arrived above rcv_nxt.
    pub out_of_order_segments: u64,
    /// ACKs sent (including the SYN-ACK).
    pub acks_sent: u64,
    /// First data arrival.
    pub first_data: Option<Time>,
    /// Last arrival that advanced rcv_nxt.
    pub last_data: Option<Time>,
    /// When the FIN was received in order (all data delivered).
    pub fin_at: Option<Time>,
}

/// A block of data received above rcv_nxt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OooBlock {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// When it last changed (a counter): the most recently changed block is reported first.
    pub touched: u64,
}

/// ns-2's TCPSink/Sack1 SACK blocks (`sack_option = "ns2"`): the block holding the segment
/// that just arrived, then blocks from a stack as deep as the number of blocks an ACK may
/// carry, skipping (and dropping) those the newest block covers. A block pushed off the
/// bottom is never reported again, unlike RFC 2018's list of every block by recency.
#[derive(Clone, Debug, Default)]
pub struct Ns2Sacker {
    stack: Vec<(u64, u64)>,
    /// The blocks for the ACK of the segment that arrived last.
    blocks: SackBlocks,
}

impl Ns2Sacker {
    /// After the segment starting at `start` was stored: the blocks ns-2's sink reports.
    fn on_segment(&mut self, start: u64, rcv_nxt: u64, ooo: &[OooBlock], max: usize) {
        self.blocks = SackBlocks::default();
        let max_seen = ooo.last().map_or(rcv_nxt, |b| b.end);
        if rcv_nxt >= max_seen {
            self.stack.clear();
            return;
        }
        // A segment at or below the cumulative ACK reports no block of its own, but the
        // range up to the first hole still covers (and removes) older blocks.
        let above = start > rcv_nxt;
        let (left, right) = if above {
            let b = &ooo[ooo.partition_point(|b| b.end <= start)];
            (b.start, b.end)
        } else {
            (0, rcv_nxt)
        };
        let mut n = 0;
        if above {
            self.blocks.push(rcv_nxt, left, right);
            n = 1;
        }
        let mut k = 0;
        while n < max && k < self.stack.len() {
            let (l, r) = self.stack[k];
            if r > max_seen {
                break;
            }
            if left <= l && right >= r {
                self.stack.remove(k);
                continue;
            }
            if l >= rcv_nxt {
                self.blocks.push(rcv_nxt, l, r);
            }
            n += 1;
            k += 1;
        }
        if above {
            self.stack.insert(0, (left, right));
            self.stack.truncate(max);
        }
    }
}

/// The receiving half of a connection.
pub struct TcpReceiver {
    pub(crate) cfg: Arc<TcpConfig>,
    pub(crate) flow: u32,
    pub(crate) node: u32,
    pub(crate) peer: u32,
    /// Next byte expected.
    pub rcv_nxt: u64,
    /// Out-of-order byte ranges [start, end), sorted and disjoint, each with the time (as a
    /// counter) it last grew, which orders the SACK blocks.
    pub ooo: Vec<OooBlock>,
    /// The blocks' `touched` counters with their starts, in increasing `touched` order (a
    /// block touched gets the next counter, so it goes at the end), so the most recent
    /// blocks are found without sorting every block on every ACK. A vector rather than a
    /// map: a receiver holds a few blocks, and a map allocated and freed a node with every
    /// loss episode (343,660 removals in benchmark B4 at 10,000 flows).
    recent: Vec<(u64, u64)>,
    touch: u64,
    own_seq: u64,
    unacked_segments: u32,
    unacked_bytes: u64,
    quickacks_left: u32,
    delack: Timer,
    ts_recent: u32,
    /// RFC 7323's Last.ACK.sent: the acknowledgement number of the last ACK sent. TS.Recent
    /// takes the TSval of segments starting at or below it only.
    pub(crate) last_ack_sent: u64,
    fin_sent: bool,
    fin_at_seq: Option<u64>,
    /// Counters.
    pub stats: ReceiverStats,
    /// FUL-bit state.
    pub ful: super::ful::FulReceiverState,
    /// RFC 3168 ECN.
    pub ecn: super::ecn::EcnReceiver,
    /// ns-2's SACK-block stack, with `sack_option = "ns2"`.
    ns2_sacker: Option<Box<Ns2Sacker>>,
    /// A rounds application: the bytes delivered at which the next round's share is
    /// complete (`u64::MAX`: none left, or another application), the share, and the bytes
    /// of all rounds.
    round_mark: u64,
    round_share: u64,
    round_total: u64,
    /// The duplicate data the next ACK reports as a D-SACK block (RFC 2883), with `dsack`.
    dsack: Option<(u64, u64)>,
    /// An application that reads at a set rate (`tcp.read_rate`), and the window it leaves.
    pub(crate) reader: Option<Box<super::reader::Reader>>,
    /// The window the next ACK advertises (before scaling): the receive buffer, or with a
    /// reader what it leaves of it ([`TcpReceiver::reader_advance_window`]).
    pub(crate) window: u64,
}

impl TcpReceiver {
    /// A listening receiver.
    pub fn new(cfg: impl Into<Arc<TcpConfig>>, flow: u32, node: u32, peer: u32) -> Self {
        let cfg: Arc<TcpConfig> = cfg.into();
        let quickacks_left = match cfg.delayed_ack {
            DelayedAck::Linux { quickacks, .. } | DelayedAck::Every { quickacks, .. } => quickacks,
            DelayedAck::Off => 0,
        };
        let ns2_sacker = (cfg.sack && cfg.sack_option_ns2).then(Default::default);
        let window = cfg.rcv_buf;
        let reader = cfg
            .read_rate
            .map(|r| Box::new(super::reader::Reader::new(r)));
        TcpReceiver {
            cfg,
            flow,
            node,
            peer,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: Vec::new(),
            touch: 0,
            own_seq: 0,
            unacked_segments: 0,
            unacked_bytes: 0,
            quickacks_left,
            delack: Timer::default(),
            ts_recent: 0,
            last_ack_sent: 0,
            fin_sent: false,
            fin_at_seq: None,
            ful: Default::default(),
            ecn: Default::default(),
            stats: ReceiverStats::default(),
            ns2_sacker,
            round_mark: u64::MAX,
            dsack: None,
            round_share: 0,
            round_total: 0,
            reader,
            window,
        }
    }

    fn advertised_window(&self) -> u32 {
        self.cfg.advertisable(self.window) as u32
    }

    fn packet(&self, ctx: &mut Ctx, fl: u16, sack: SackBlocks) -> Packet {
        let syn = fl & flags::SYN != 0;
        let fl = if syn { fl } else { fl | self.ecn_ack_flags() };
        let mut opts = if syn {
            self.cfg.syn_option_bytes()
        } else {
            self.cfg.option_bytes()
        };
        if !sack.is_empty() {
            // Kind, length, 8 bytes per block, padded with two NOPs (ns-2: the blocks only).
            opts += 8 * sack.len() as u32 + if self.cfg.sack_option_ns2 { 0 } else { 4 };
        }
        Packet {
            uid: ctx.uid(),
            flow: self.flow,
            src: self.node,
            dst: self.peer,
            from_sender: false,
            wire: 40 + opts,
            lost: None,
            ecn: if self.cfg.ecn_all_packets && self.ecn.on {
                self.cfg.ect()
            } else {
                crate::net::Ecn::NotEct
            },
            hops: 0,
            hdr: Header::Tcp(TcpHeader {
                flags: fl,
                seq: self.own_seq,
                ack: self.rcv_nxt,
                wnd: self.advertised_window(),
                ts_val: if self.cfg.timestamps {
                    (ctx.now / 1_000_000) as u32
                } else {
                    0
                },
                ts_ecr: self.ts_recent,
                sack,
                ..Default::default()
            }),
        }
    }

    /// An ACK for the current state (with SACK blocks when enabled).
    pub(crate) fn ack_packet(&self, ctx: &mut Ctx, fl: u16) -> Packet {
        let sack = if let Some(ns2) = &self.ns2_sacker {
            ns2.blocks
        } else if self.cfg.sack {
            let sb = self.sack_blocks(self.cfg.sack_blocks as usize);
            if self.cfg.dsack {
                self.with_dsack(sb)
            } else {
                sb
            }
        } else {
            SackBlocks::default()
        };
        self.packet(ctx, fl, sack)
    }

    /// Reset the delayed-ACK state after an ACK went out (or was deliberately withheld).
    pub(crate) fn after_ack_sent(&mut self) {
        if self.cfg.dsack {
            self.dsack = None;
        }
        self.unacked_segments = 0;
        self.unacked_bytes = 0;
        self.delack.cancel();
    }

    /// True while received data waits for a delayed ACK.
    pub(crate) fn delayed_ack_pending(&self) -> bool {
        self.delack.is_set()
    }

    pub(crate) fn send_ack(&mut self, ctx: &mut Ctx) {
        if !self.ful_admit_ack(ctx) {
            self.after_ack_sent();
            return;
        }
        if self.reader.is_some() {
            self.reader_before_ack(ctx);
        }
        let mut fl = flags::ACK;
        if self.stats.fin_at.is_some() && !self.fin_sent {
            fl |= flags::FIN; // passive close right away: FIN with the ACK of the FIN
            self.fin_sent = true;
        }
        let p = self.ack_packet(ctx, fl);
        if fl & flags::FIN != 0 {
            self.own_seq += 1;
        }
        self.after_ack_sent();
        self.last_ack_sent = p.tcp().ack;
        self.stats.acks_sent += 1;
        ctx.out.push(p);
    }

    /// Handle a packet from the sender. Returns true when it carried bytes not received before.
    pub fn on_packet(&mut self, p: &TcpHeader, ctx: &mut Ctx) -> bool {
        if p.has(flags::SYN) {
            // A retransmitted SYN may arrive after data (its SYN-ACK was merely slow): answer
            // it again but never move rcv_nxt back.
            if self.rcv_nxt == 0 {
                self.rcv_nxt = p.seq + 1;
                self.ts_recent = p.ts_val;
            }
            let ecn = self.ecn_on_syn(p);
            if self.reader.is_some() {
                self.reader_advance_window(ctx.now);
            }
            let mut syn_ack =
                self.packet(ctx, flags::SYN | flags::ACK | ecn, SackBlocks::default());
            syn_ack.wire = 40 + self.cfg.syn_option_bytes();
            let h = syn_ack.tcp_mut();
            h.seq = 0;
            h.opt_mss = self.cfg.mss.min(u16::MAX as u32) as u16;
            h.opt_sack_ok = self.cfg.sack && p.opt_sack_ok;
            h.opt_wscale = if self.cfg.window_scale {
                self.cfg.wscale_shift()
            } else {
                0xff
            };
            self.own_seq = 1;
            self.last_ack_sent = self.rcv_nxt;
            self.stats.acks_sent += 1;
            ctx.out.push(syn_ack);
            return false;
        }
        let seq_len = p.seq_len();
        if seq_len == 0 {
            // A pure ACK (handshake completion or the final ACK of our FIN), or with a reader
            // a zero-window probe.
            if self.reader.is_some() {
                self.reader_on_bare_segment(p, ctx);
            }
            return false;
        }
        self.on_data(p, seq_len, ctx)
    }

    fn on_data(&mut self, p: &TcpHeader, seq_len: u64, ctx: &mut Ctx) -> bool {
        let (start, end) = (p.seq, p.seq + seq_len);
        if p.has(flags::FIN) {
            self.fin_at_seq = Some(p.seq + p.len as u64);
        }
        self.stats.data_segments += (p.len > 0) as u64;
        if self.stats.fin_at.is_none() {
            // Throughput is over the active time: duplicates after completion do not count.
            self.stats.bytes_received += p.len as u64;
        }
        if p.len > 0 && self.stats.first_data.is_none() {
            self.stats.first_data = Some(ctx.now);
        }
        // RFC 7323 section 4.3: a delayed ACK echoes the earliest segment it acknowledges,
        // an out-of-order segment is not echoed, the one filling the hole is.
        if start <= self.last_ack_sent {
            self.ts_recent = p.ts_val;
        }
        let immediate;
        let fresh;
        let payload_end = start + p.len as u64;
        if end <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            immediate = true;
            fresh = false;
            self.note_duplicate(start, payload_end);
        } else if start <= self.rcv_nxt {
            fresh = true;
            let before = self.rcv_nxt;
            if start < before {
                self.note_duplicate(start, payload_end.min(before));
            }
            self.rcv_nxt = end;
            let mut filled = false;
            while let Some(b) = self.ooo.first() {
                if b.start > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(b.end);
                Self::forget(&mut self.recent, b.touched);
                self.ooo.remove(0);
                filled = true;
            }
            self.deliver(before, ctx.now);
            if self.reader.is_some() {
                self.reader_deliver(ctx.now);
            }
            if self.stats.bytes_delivered >= self.round_mark {
                self.round_reached(ctx);
            }
            immediate = filled || !self.ooo.is_empty() || self.stats.fin_at.is_some();
        } else {
            self.stats.out_of_order_segments += 1;
            fresh = self.insert_ooo(start, end);
            if !fresh {
                self.note_duplicate(start, payload_end);
            }
            immediate = true;
        }
        if let Some(ns2) = self.ns2_sacker.as_deref_mut() {
            ns2.on_segment(
                start,
                self.rcv_nxt,
                &self.ooo,
                self.cfg.sack_blocks as usize,
            );
        }
        if immediate || self.ack_now_by_policy(p.len as u64, ctx) {
            self.send_ack(ctx);
        }
        fresh
    }

    /// Deliver in rounds of `share` bytes, `total` in all: the engine hears of each round's
    /// share delivered ([`Event::RoundReached`]).
    pub fn in_rounds(&mut self, share: u64, total: u64) {
        self.round_share = share;
        self.round_total = total;
        self.round_mark = share;
    }

    /// The bytes of all rounds, for a rounds application.
    pub fn rounds_total(&self) -> Option<u64> {
        (self.round_share > 0).then_some(self.round_total)
    }

    /// This round's share is delivered: tell the engine, and wait for the next one's.
    #[cold]
    #[inline(never)]
    fn round_reached(&mut self, ctx: &mut Ctx) {
        ctx.events.push(ctx.now, Event::RoundReached(self.flow));
        let next = self.round_mark + self.round_share;
        self.round_mark = if next <= self.round_total {
            next
        } else {
            u64::MAX
        };
    }

    /// Count newly in-order bytes (the FIN's sequence number is not data).
    fn deliver(&mut self, before: u64, now: Time) {
        let fin_seq = self.fin_seq();
        let data_end = fin_seq.map_or(self.rcv_nxt, |f| self.rcv_nxt.min(f));
        self.stats.bytes_delivered += data_end.saturating_sub(before);
        self.stats.last_data = Some(now);
        if let Some(f) = fin_seq {
            if self.rcv_nxt > f && self.stats.fin_at.is_none() {
                self.stats.fin_at = Some(now);
            }
        }
    }

    fn fin_seq(&self) -> Option<u64> {
        self.fin_at_seq
    }

    /// Add [start, end) to the out-of-order store; returns true if any byte was new.
    fn insert_ooo(&mut self, start: u64, end: u64) -> bool {
        let i = self.ooo.partition_point(|b| b.end < start);
        let (mut s, mut e, mut j) = (start, end, i);
        let mut covered = false;
        while j < self.ooo.len() && self.ooo[j].start <= e {
            Self::forget(&mut self.recent, self.ooo[j].touched);
            covered |= self.ooo[j].start <= start && self.ooo[j].end >= end;
            s = s.min(self.ooo[j].start);
            e = e.max(self.ooo[j].end);
            j += 1;
        }
        self.touch += 1;
        let block = OooBlock {
            start: s,
            end: e,
            touched: self.touch,
        };
        self.recent.push((self.touch, s));
        self.ooo.splice(i..j, std::iter::once(block));
        !covered
    }

    /// The blocks `sb` with the D-SACK block first if one is due (RFC 2883): the duplicate,
    /// then the usual blocks (the one holding it, if above the cumulative ACK, is the most
    /// recently touched, so it comes second), as many as the option holds.
    #[cold]
    #[inline(never)]
    fn with_dsack(&self, sb: SackBlocks) -> SackBlocks {
        let Some((left, right)) = self.dsack else {
            return sb;
        };
        let mut out = SackBlocks::default();
        out.push(self.rcv_nxt, left, right);
        let room = (self.cfg.sack_blocks as usize - 1).min(sb.len());
        for i in 0..room {
            let (l, r) = sb.get(self.rcv_nxt, i);
            out.push(self.rcv_nxt, l, r);
        }
        out
    }

    /// Data [start, end) arrived again: with D-SACK the next ACK reports it (the first
    /// duplicate since the last ACK, as Linux keeps one).
    #[cold]
    fn note_duplicate(&mut self, start: u64, end: u64) {
        if self.cfg.dsack && end > start && self.dsack.is_none() {
            self.dsack = Some((start, end));
        }
    }

    /// Drop the block touched at `touched` from `recent`.
    fn forget(recent: &mut Vec<(u64, u64)>, touched: u64) {
        if let Ok(i) = recent.binary_search_by_key(&touched, |&(t, _)| t) {
            recent.remove(i);
        }
    }

    /// SACK blocks for the next ACK (RFC 2018): the most recently changed block first, then
    /// the others most-recent-first, at most `max`.
    fn sack_blocks(&self, max: usize) -> SackBlocks {
        let mut sb = SackBlocks::default();
        if max == 0 || self.ooo.is_empty() {
            return sb;
        }
        for &(_, start) in self.recent.iter().rev().take(max.min(4)) {
            let b = &self.ooo[self.ooo.partition_point(|b| b.start < start)];
            sb.push(self.rcv_nxt, b.start, b.end);
        }
        sb
    }

    /// Delayed-ACK policy for an in-order segment: true to ACK now, else the timer is armed.
    fn ack_now_by_policy(&mut self, len: u64, ctx: &mut Ctx) -> bool {
        let (due, timeout) = match self.cfg.delayed_ack {
            DelayedAck::Off => return true,
            // The first segments of a connection (`quickacks`), in either delayed mode.
            _ if self.quickacks_left > 0 => {
                self.quickacks_left -= 1;
                return true;
            }
            DelayedAck::Every { count, timeout, .. } => {
                self.unacked_segments += 1;
                (self.unacked_segments >= count, timeout)
            }
            DelayedAck::Linux { timeout, .. } => {
                self.unacked_bytes += len;
                (self.unacked_bytes > self.cfg.mss as u64, timeout)
            }
        };
        if due {
            return true;
        }
        if !self.delack.is_set() {
            self.delack
                .set(ctx.now + timeout, self.flow, timers::DEL_ACK, ctx.events);
        }
        false
    }

    /// Handle the delayed-ACK timer.
    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        if self
            .delack
            .fire(ctx.now, self.flow, timers::DEL_ACK, ctx.events)
        {
            self.send_ack(ctx);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scenario::profiles::resolve;
    use crate::scenario::schema::TcpSpec;
    use crate::sim::events::EventQueue;

    /// A header with these flags, sequence number and length (the rest default).
    pub(crate) fn seg(fl: u16, seq: u64, len: u32) -> TcpHeader {
        TcpHeader {
            flags: fl,
            seq,
            len,
            ..Default::default()
        }
    }

    /// Transim never reorders a flow's packets, but a receiver must still not rewind when a
    /// duplicate SYN turns up after data (it answers the SYN again).
    #[test]
    fn duplicate_syn_after_data_keeps_rcv_nxt() {
        let cfg = resolve(&TcpSpec::default(), "tcp").unwrap();
        let mut r = TcpReceiver::new(cfg, 0, 1, 0);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        r.on_packet(&seg(flags::SYN, 0, 0), &mut ctx);
        r.on_packet(&seg(flags::ACK, 1, 1000), &mut ctx);
        assert_eq!(r.rcv_nxt, 1001);
        r.on_packet(&seg(flags::SYN, 0, 0), &mut ctx);
        assert_eq!(r.rcv_nxt, 1001);
        let syn_acks = out.iter().filter(|p| p.tcp().has(flags::SYN)).count();
        assert_eq!(syn_acks, 2);
    }

    /// A receiver with SACK and timestamps (three SACK blocks an ACK) that has taken the
    /// SYN (its answer dropped), and its MSS.
    fn sack_receiver() -> (TcpReceiver, u64) {
        receiver_with(TcpSpec {
            sack: Some(true),
            timestamps: Some(true),
            ..Default::default()
        })
    }

    /// A receiver past the handshake, with `spec`.
    fn receiver_with(spec: TcpSpec) -> (TcpReceiver, u64) {
        let cfg = resolve(&spec, "tcp").unwrap();
        assert_eq!(cfg.sack_blocks, 3);
        let mss = cfg.mss as u64;
        let mut r = TcpReceiver::new(cfg, 0, 1, 0);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        r.on_packet(
            &seg(flags::SYN, 0, 0),
            &mut Ctx::detached(0, &mut ev, &mut out, &mut uid),
        );
        (r, mss)
    }

    /// RFC 2883's cases (section 4): data received twice is reported in the first block of
    /// the next ACK, below the cumulative ACK or inside the block that follows it; the part
    /// of a segment already held; once, on the ACK right after it.
    #[test]
    fn dsack_reports_duplicates_first() {
        let (mut r, mss) = receiver_with(TcpSpec {
            sack: Some(true),
            timestamps: Some(true),
            dsack: Some(true),
            ..Default::default()
        });
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        let s = |k: u64| 1 + k * mss;
        let blocks = |ctx: &Ctx| {
            let h = ctx.out.last().unwrap().tcp();
            (h.ack, h.sack.to_vec(h.ack))
        };
        for k in [0, 1] {
            r.on_packet(&seg(flags::ACK, s(k), mss as u32), &mut ctx);
        }
        // Segment 0 again, below the cumulative ACK (a spurious retransmission).
        r.on_packet(&seg(flags::ACK, s(0), mss as u32), &mut ctx);
        assert_eq!(blocks(&ctx), (s(2), vec![(s(0), s(1))]));
        // Out of order: 3 and 5 held; 3 again: reported first, inside its block.
        for k in [3, 5] {
            r.on_packet(&seg(flags::ACK, s(k), mss as u32), &mut ctx);
        }
        assert_eq!(blocks(&ctx), (s(2), vec![(s(5), s(6)), (s(3), s(4))]));
        r.on_packet(&seg(flags::ACK, s(3), mss as u32), &mut ctx);
        assert_eq!(
            blocks(&ctx),
            (s(2), vec![(s(3), s(4)), (s(3), s(4)), (s(5), s(6))])
        );
        // The next ACK has no D-SACK; its wire size counts the blocks it carries (12 bytes
        // of timestamps + 2 + 8 per block + 2).
        r.on_packet(&seg(flags::ACK, s(7), mss as u32), &mut ctx);
        let p = ctx.out.last().unwrap();
        assert_eq!(
            blocks(&ctx),
            (s(2), vec![(s(7), s(8)), (s(3), s(4)), (s(5), s(6))])
        );
        assert_eq!(p.wire, 40 + 12 + 4 + 3 * 8);
        // Segments 1 and 2 in one (1 is old): the old part is reported, then the blocks
        // still out of order, most recent first (3 joined the cumulative ACK).
        r.on_packet(&seg(flags::ACK, s(1), 2 * mss as u32), &mut ctx);
        assert_eq!(
            blocks(&ctx),
            (s(4), vec![(s(1), s(2)), (s(7), s(8)), (s(5), s(6))])
        );
        // Without D-SACK, a duplicate is not reported.
        let (mut plain, _) = sack_receiver();
        for k in [0, 1, 0] {
            plain.on_packet(&seg(flags::ACK, s(k), mss as u32), &mut ctx);
        }
        assert_eq!(blocks(&ctx), (s(2), vec![]));
    }

    /// Random arrivals (holes filled, blocks grown, merged and delivered): every ACK's SACK
    /// blocks are the out-of-order blocks most recently changed first, as found by sorting
    /// all of them on each ACK.
    #[test]
    fn sack_blocks_follow_recency_through_merges_and_fills() {
        let (mut r, mss) = sack_receiver();
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        let mut x = 12345u64;
        let (mut merges, mut fills) = (0, 0);
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Mostly ahead of the cumulative ACK, sometimes filling the next hole.
            let next = (r.rcv_nxt - 1) / mss;
            let k = if x.is_multiple_of(5) {
                next
            } else {
                next + 1 + x % 40
            };
            let blocks = r.ooo.len();
            r.on_packet(&seg(flags::ACK, 1 + k * mss, mss as u32), &mut ctx);
            merges += (r.ooo.len() < blocks && k > next) as u32;
            fills += (k == next && blocks > 0) as u32;
            let h = ctx.out.last().unwrap().tcp();
            let mut by_recency = r.ooo.clone();
            by_recency.sort_by_key(|b| std::cmp::Reverse(b.touched));
            let expect: Vec<(u64, u64)> = by_recency
                .iter()
                .take(3)
                .map(|b| (b.start, b.end))
                .collect();
            assert_eq!(h.sack.to_vec(h.ack), expect, "segment {k}");
        }
        assert!(
            merges > 100 && fills > 100,
            "{merges} merges, {fills} fills"
        );
    }

    /// RFC 2018: the first block holds the segment that triggered the ACK, then the other
    /// blocks most recently changed first; at most three with timestamps.
    #[test]
    fn sack_blocks_most_recent_first() {
        let (mut r, mss) = sack_receiver();
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        let s = |k: u64| 1 + k * mss; // start of segment k (0-based)
        r.on_packet(&seg(flags::ACK, s(0), mss as u32), &mut ctx);
        assert!(ctx.out.is_empty(), "the first in-order segment's ACK waits");
        let mut last = Vec::new();
        for k in [2, 4, 3, 6, 8, 10] {
            r.on_packet(&seg(flags::ACK, s(k), mss as u32), &mut ctx);
            let p = ctx.out.last().expect("out of order: acknowledged at once");
            let h = p.tcp();
            last = h.sack.to_vec(h.ack);
        }
        // Blocks: [2,5) merged when 3 arrived, then 6, 8, 10 each alone; 10 newest.
        assert_eq!(last, vec![(s(10), s(11)), (s(8), s(9)), (s(6), s(7))]);
        // After segment 1 fills the first hole, the ACK reports what remains, newest first.
        r.on_packet(&seg(flags::ACK, s(1), mss as u32), &mut ctx);
        let p = *ctx.out.last().unwrap();
        let h = p.tcp();
        assert_eq!(h.ack, s(5));
        assert_eq!(
            h.sack.to_vec(h.ack),
            vec![(s(10), s(11)), (s(8), s(9)), (s(6), s(7))]
        );
        // The SACK option is on the wire: 12 bytes of timestamps + 2 + 3·8 + 2 padding.
        assert_eq!(p.wire, 40 + 12 + 28);
    }

    /// RFC 7323 section 4.3 (and Linux's `tcp_replace_ts_recent`, ns-3's
    /// `ProcessOptionTimestamp`): TS.Recent takes a segment's TSval only when the segment
    /// starts at or below Last.ACK.sent, so a delayed ACK echoes the *earlier* of the two
    /// segments it covers (the sender's RTT includes the time the ACK was held), an ACK for
    /// an out-of-order segment echoes the last in-order one, and the retransmission that fills
    /// the hole is echoed.
    #[test]
    fn timestamp_echo_follows_last_ack_sent() {
        let spec = TcpSpec {
            timestamps: Some(true),
            ..Default::default()
        };
        let cfg = resolve(&spec, "tcp").unwrap();
        let mss = cfg.mss;
        let mut r = TcpReceiver::new(cfg, 0, 1, 0);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        let data = |k: u64, ts: u32| TcpHeader {
            ts_val: ts,
            ..seg(flags::ACK, 1 + k * mss as u64, mss)
        };
        r.on_packet(
            &TcpHeader {
                ts_val: 5,
                ..seg(flags::SYN, 0, 0)
            },
            &mut ctx,
        );
        assert_eq!(
            ctx.out.last().unwrap().tcp().ts_ecr,
            5,
            "the SYN-ACK echoes the SYN"
        );
        // Segments 0 and 1 (TSval 10, 11): one delayed ACK for both echoes 10, not 11.
        r.on_packet(&data(0, 10), &mut ctx);
        assert_eq!(ctx.out.len(), 1, "the first segment waits for a second");
        r.on_packet(&data(1, 11), &mut ctx);
        let h = ctx.out.last().unwrap().tcp();
        assert_eq!((h.ack, h.ts_ecr), (1 + 2 * mss as u64, 10));
        // Segment 2 is lost; 3 arrives out of order and is ACKed at once, echoing 10 still
        // (segment 3 starts above Last.ACK.sent).
        r.on_packet(&data(3, 13), &mut ctx);
        let h = ctx.out.last().unwrap().tcp();
        assert_eq!((h.ack, h.ts_ecr), (1 + 2 * mss as u64, 10));
        // The retransmission of 2 (TSval 20) starts at Last.ACK.sent: echoed.
        r.on_packet(&data(2, 20), &mut ctx);
        let h = ctx.out.last().unwrap().tcp();
        assert_eq!((h.ack, h.ts_ecr), (1 + 4 * mss as u64, 20));
    }
}

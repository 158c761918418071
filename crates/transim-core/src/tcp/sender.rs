//! The TCP sender: active open, segmentation, the send test (cwnd, rwnd, Nagle, Limited
//! Transmit), RTT sampling and the RTO. Loss recovery is [`super::recovery`]'s.
//!
//! Sequence numbers are 64-bit byte offsets: the SYN is 0, data bytes are 1..=N, a FIN is N+1.

use super::cc::hystart::{Exit, HyStartMode};
use super::cc::{AckInfo, Cc, CcKind, CongestionControl, HandOver, Window};
use super::config::{ByteCounting, CwndUnit, HalvingBase, Nagle, TcpConfig};
use super::cwnd_use::{CwndUse, SendEnd};
use super::rate::RateState;
use super::rtt::RttEstimator;
use super::timers;
use super::trace::FlowTrace;
use super::Ctx;
use crate::net::header::tcp::flags;
use crate::net::{Header, Packet, TcpHeader};
use crate::sim::rng::Rng;
use crate::sim::timer::Timer;
use crate::sim::{Time, MILLISECOND, SECOND};
use std::collections::VecDeque;
use std::sync::Arc;

/// Connection state of the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Not started.
    Closed,
    /// SYN sent, waiting for SYN-ACK.
    SynSent,
    /// Data transfer.
    Established,
    /// All data and the FIN acknowledged.
    Done,
}

/// Why a segment is being retransmitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RtxKind {
    Fast,
    Timeout,
}

/// A segment sent and not yet fully acknowledged, with its scoreboard marks.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SentSeg {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) sent: Time,
    pub(crate) index: u32,
    pub(crate) tx: u16,
    /// Ever retransmitted (Karn's rule).
    pub(crate) retx: bool,
    /// Covered by a SACK block.
    pub(crate) sacked: bool,
    /// Retransmitted in the current recovery episode.
    pub(crate) rtx_episode: bool,
    /// snd_max when it was last retransmitted (SackPlus).
    pub(crate) rtx_high: u64,
    /// SackPlus found a retransmission of it lost in this episode.
    pub(crate) rtx_lost_seen: bool,
    /// Sent back to back right after the previous segment (a capacity-probe pair).
    pub(crate) paired: bool,
    /// Bytes on the wire.
    pub(crate) wire: u32,
    /// Counted as delivered by the rate sampler (ACKed or SACKed once).
    pub(crate) delivered: bool,
}

impl SentSeg {
    /// Bytes SACKed (all of it or none).
    #[inline]
    pub(crate) fn sacked_bytes(&self) -> u64 {
        if self.sacked {
            self.end - self.start
        } else {
            0
        }
    }
}

/// Sender counters.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// All segments sent (SYN, pure ACKs, data, FIN).
    pub segments_sent: u64,
    /// Segments carrying data (incl. retransmissions).
    pub data_segments_sent: u64,
    /// Payload bytes sent (incl. retransmissions).
    pub data_bytes_sent: u64,
    /// Segments retransmitted by fast retransmit / recovery.
    pub rtx_fast: u64,
    /// Segments retransmitted after a timeout.
    pub rtx_timeout: u64,
    /// Retransmission timeouts (excluding SYN).
    pub timeouts: u64,
    /// SYN retransmissions.
    pub syn_retries: u64,
    /// Fast-retransmit events (entries into loss recovery).
    pub fast_retransmits: u64,
    /// Duplicate ACKs received.
    pub dupacks: u64,
    /// Time the connection was established.
    pub established_at: Option<Time>,
    /// Time the last data byte and the FIN were acknowledged.
    pub all_acked_at: Option<Time>,
    /// Lost retransmissions detected from SACK information (SackPlus, RACK).
    pub lost_retransmissions_detected: u64,
    /// D-SACK blocks received: data the receiver got twice (a spurious retransmission).
    pub dsacks: u64,
    /// Tail loss probes sent (RACK-TLP).
    pub tlp_probes: u64,
    /// Retransmitted probes a D-SACK showed were not needed (RACK-TLP).
    pub tlp_spurious: u64,
    /// Retransmitted probes that repaired a loss, with the window reduction (RACK-TLP).
    pub tlp_recoveries: u64,
    /// When the first retransmission timeout (after the handshake) happened.
    pub first_timeout_at: Option<Time>,
    /// Congestion-control switches carried out (time, algorithm).
    pub switches: Vec<(Time, super::cc::CcKind)>,
    /// HyStart of a CUBIC the connection switched away from, with its first exit (boxed:
    /// rare, and the counters sit beside the per-ACK state).
    pub hystart_before: Option<Box<(HyStartMode, Option<Exit>)>>,
}

/// Timestamp clock tick (1 ms, as Linux at HZ=1000).
const TS_TICK: Time = MILLISECOND;

/// The sending half of a connection.
///
/// The fields an ACK and a new segment touch come first, in this order (`repr(C)`): with
/// many flows a sender is cold in the cache whenever its ACK arrives, and each cache line
/// that path reads is a miss.
#[repr(C)]
pub struct TcpSender {
    /// Configuration (shared by every flow built from the same settings, so with many flows
    /// it stays in the cache).
    pub cfg: Arc<TcpConfig>,
    pub(crate) flow: u32,
    node: u32,
    peer: u32,
    /// State.
    pub state: SenderState,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next sequence number to send.
    pub snd_nxt: u64,
    /// One past the highest sequence number sent.
    pub snd_max: u64,
    /// One past the last data byte the application will write (u64::MAX/2 for bulk).
    pub(crate) app_end: u64,
    pub(crate) finite: bool,
    /// Window state.
    pub win: Window,
    /// Congestion control.
    pub cc: Cc,
    pub(crate) rwnd: u64,
    pub(crate) dupacks: u32,
    pub(crate) lt_segments: u32,
    pub(crate) in_recovery: bool,
    /// Whether cwnd limits the sender, for `cwnd_growth` (see [`TcpSender::grow`]).
    pub(crate) cwnd_use: CwndUse,
    pub(crate) recover: u64,
    pub(crate) partial_seen: bool,
    pub(crate) gbn: Option<RtxKind>,
    pub(crate) rtx: VecDeque<SentSeg>,
    /// RTT estimator and RTO.
    pub rtt: RttEstimator,
    pub(crate) rto_timer: Timer,
    pub(crate) snd_sml: u64,
    pub(crate) next_index: u32,
    /// Optional time series.
    pub trace: Option<Box<FlowTrace>>,
    /// SACK state (used by the SACK-based recovery variants).
    pub(crate) sack: super::sack::SackState,
    /// RFC 3168 ECN.
    pub ecn: super::ecn::EcnSender,
    /// Passive loss-rate estimator.
    pub loss_est: crate::estimate::LossEstimator,
    /// When and where the last new segment was sent (to recognise back-to-back pairs).
    last_new: (Time, u64),
    /// Delivery-rate sampling.
    pub rate: RateState,
    /// Pacing: the earliest time the next data segment may leave.
    pace_next: Time,
    /// A `writes` application under write-time packetization (None: the application's
    /// bytes are one buffered stream).
    pub(crate) writes: Option<Box<super::writes::WriteApp>>,
    /// A bulk application that writes pieces of this many bytes (stream packetization).
    pub bulk_piece: Option<u64>,
    /// A writes application whose writes come at set times (None: all at the start).
    pub(crate) timed: Option<Box<super::writes::TimedWrites>>,
    /// Passive capacity estimator.
    pub capacity: crate::estimate::CapacityEstimator,
    /// FUL-bit state.
    pub ful: super::ful::FulSenderState,
    /// Counters.
    pub stats: SenderStats,
    // -- colder: what the handshake, ns-2 arithmetic, RACK-TLP, pacing and random
    // congestion control read (the counters above run into here: only their first
    // three, which every segment updates, are hot)
    syn_sent_at: Time,
    /// When a segment was last retransmitted (the last new one's time is in `last_new`).
    last_resent: Time,
    /// ns-2 arithmetic: cwnd_ during fast recovery (the halved window, without the
    /// duplicate-ACK window `dupwnd_` ns-2 keeps beside it).
    pub(crate) ns2_recovery_cwnd: f64,
    /// Duplicate-ACK recovery without SACK: the segments ns-3 would count as SACKed in its
    /// "Reno SACK" emulation (`TcpTxBuffer::AddRenoSack`), so that `halving_base = "pipe"`
    /// can take its `BytesInFlight()` on a timeout ([`crate::tcp::recovery::classic`]).
    pub(crate) reno_sacked: u32,
    /// `tcp.undo`: the window before the current recovery's reduction.
    pub(crate) undo: super::undo::Undo,
    /// RACK-TLP state (recovery = "rack-tlp").
    pub(crate) rack: super::recovery::rack_tlp::RackState,
    /// Proportional Rate Reduction's counts (`tcp.prr`; read in recovery only, so among
    /// the cold fields).
    pub(crate) prr: super::recovery::prr::PrrState,
    pace_timer: Timer,
    /// Random values handed to congestion control (seeded per flow by the scenario).
    pub(crate) cc_rng: Rng,
    /// The persist timer, for a receiver that reads at a set rate ([`super::persist`]).
    pub(crate) persist: super::persist::Persist,
}

impl TcpSender {
    /// A sender for flow `flow` at node `node` talking to `peer`, which will write
    /// `app_bytes` bytes (None = bulk, always has data).
    pub fn new(
        cfg: impl Into<Arc<TcpConfig>>,
        flow: u32,
        node: u32,
        peer: u32,
        app_bytes: Option<u64>,
        trace: Option<crate::trace::TraceWindow>,
    ) -> Self {
        let cfg: Arc<TcpConfig> = cfg.into();
        let mss = cfg.mss;
        let win = Window {
            cwnd: cfg.initial_window.bytes(mss),
            ssthresh: cfg.initial_ssthresh,
            mss,
            unit: cfg.cwnd_unit,
            ss_limit: cfg.byte_counting.limit(mss),
            after_rto: false,
            whole_cuts: cfg.cwnd_unit == CwndUnit::Packets
                || cfg.halving_base == HalvingBase::Window,
            cnt: 0,
            max_cwnd: cfg.max_cwnd,
            ns2: cfg.ns2_window,
            precision_reduce: cfg.precision_reduce,
            frac: 0.0,
            frac_at: 0,
        };
        let rtt = RttEstimator::new(
            cfg.rto_initial,
            cfg.rto_min,
            cfg.rto_max,
            cfg.clock_granularity,
        );
        let mut cc = cfg.cc.build();
        cc.set_hystart(cfg.hystart);
        let mut rate = RateState::default();
        if cc.reads_delivery() {
            rate.keep();
        }
        TcpSender {
            cc,
            flow,
            node,
            peer,
            state: SenderState::Closed,
            syn_sent_at: 0,
            last_resent: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: app_bytes.map(|b| 1 + b).unwrap_or(u64::MAX / 2),
            finite: app_bytes.is_some(),
            win,
            rwnd: 65_535,
            dupacks: 0,
            lt_segments: 0,
            in_recovery: false,
            cwnd_use: CwndUse::new(cfg.cwnd_growth),
            recover: 0,
            partial_seen: false,
            ns2_recovery_cwnd: 0.0,
            reno_sacked: 0,
            undo: Default::default(),
            gbn: None,
            rtx: VecDeque::new(),
            prr: Default::default(),
            rtt,
            rto_timer: Timer::default(),
            snd_sml: 0,
            next_index: 1,
            stats: SenderStats::default(),
            trace: trace.map(|window| {
                Box::new(FlowTrace {
                    window,
                    ..Default::default()
                })
            }),
            sack: Default::default(),
            rack: Default::default(),
            ful: Default::default(),
            ecn: Default::default(),
            capacity: Default::default(),
            loss_est: Default::default(),
            last_new: (Time::MAX, 0),
            rate,
            pace_next: 0,
            pace_timer: Timer::default(),
            cc_rng: Rng::stream(flow as u64, "cc"),
            persist: Default::default(),
            writes: None,
            bulk_piece: None,
            timed: None,
            cfg,
        }
    }

    /// Bytes in flight: sent, not acknowledged, not presumed lost by a go-back-N restart.
    #[inline]
    pub fn flight(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.snd_una)
    }

    /// Segments in flight.
    #[inline]
    pub(crate) fn flight_segments(&self) -> u64 {
        let nxt = self.snd_nxt;
        self.rtx_first_from(nxt) as u64
    }

    /// Let the application write `sizes` in pieces, each packetized at write time (Linux's
    /// `tcp_sendmsg`) rather than as one buffered stream. The pieces must sum to the
    /// `app_bytes` the sender was made with.
    pub fn write_in_pieces(&mut self, sizes: Vec<u64>) {
        debug_assert_eq!(1 + sizes.iter().sum::<u64>(), self.app_end);
        self.writes = Some(Box::new(super::writes::WriteApp::new(sizes)));
    }

    /// Make the application's writes (`sizes`, in order) at these times from the start
    /// instead of all at once: none is made before the connection starts.
    pub fn write_at(&mut self, at: Vec<Time>, sizes: &[u64]) {
        self.timed = Some(Box::new(super::writes::TimedWrites::new(at, sizes)));
        self.writes_made(0);
    }

    /// The application has made its first `n` writes: under write-time packetization the
    /// writer may take that many pieces; otherwise they are the bytes written.
    fn writes_made(&mut self, n: usize) {
        let Some(t) = self.timed.as_deref() else {
            return;
        };
        let (total, last) = t.written(n);
        match self.writes.as_deref_mut() {
            Some(w) => w.limit = n,
            None => self.release(total, last),
        }
    }

    /// The timer of the application's next write ([`timers::APP_WRITE`]).
    pub fn on_app_write_timer(&mut self, ctx: &mut Ctx) {
        let Some(t) = self.timed.as_deref_mut() else {
            return;
        };
        let n = t.times.advance(self.flow, timers::APP_WRITE, ctx);
        self.writes_made(n);
        self.try_send(ctx);
    }

    /// The application has now written `total` bytes in all; `last`: it writes no more
    /// after them, so the last of them carries the FIN. Until the last, the sender is an
    /// open-ended one whose data ends where the application's writes end.
    pub fn release(&mut self, total: u64, last: bool) {
        self.app_end = 1 + total;
        self.finite = last;
    }

    /// One past the last byte the application has placed in the send buffer.
    #[inline]
    pub(crate) fn data_end(&self) -> u64 {
        if let Some(w) = &self.writes {
            return w.write_seq;
        }
        match (self.cfg.snd_buf, self.bulk_piece) {
            // Whole pieces only: the application has written k pieces, k the most whose
            // bytes not yet acknowledged fit the buffer.
            (Some(b), Some(w)) => self.app_end.min(1 + (self.snd_una.max(1) - 1 + b) / w * w),
            (Some(b), None) => self.app_end.min(self.snd_una.max(1) + b),
            (None, _) => self.app_end,
        }
    }

    /// Bytes of a segment's TCP/IP header with its options (a SYN's, or any other's).
    pub(crate) fn header_bytes(&self, syn: bool) -> u32 {
        40 + if syn {
            self.cfg.syn_option_bytes()
        } else {
            self.cfg.option_bytes()
        }
    }

    /// A header with the fields every segment of ours carries (window, timestamp).
    pub(super) fn base_header(&self, ctx: &Ctx) -> TcpHeader {
        TcpHeader {
            wnd: self.cfg.rcv_buf.min(u32::MAX as u64) as u32,
            ts_val: if self.cfg.timestamps {
                (ctx.now / TS_TICK) as u32
            } else {
                0
            },
            ..Default::default()
        }
    }

    /// Put a segment in the outbox.
    pub(super) fn emit(&mut self, mut h: TcpHeader, wire: u32, ctx: &mut Ctx) {
        let ecn = self.ecn_mark_outgoing(&mut h);
        let uid = ctx.uid();
        ctx.out.push(Packet {
            uid,
            flow: self.flow,
            src: self.node,
            dst: self.peer,
            wire,
            from_sender: true,
            lost: None,
            ecn,
            hops: 0,
            hdr: Header::Tcp(h),
        });
    }

    /// Open the connection: send the SYN. An application with timed writes makes those due
    /// now.
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.state = SenderState::SynSent;
        if let Some(t) = self.timed.as_deref_mut() {
            t.times.start(ctx.now);
            let n = t.times.advance(self.flow, timers::APP_WRITE, ctx);
            self.writes_made(n);
        }
        self.send_syn(ctx);
    }

    fn send_syn(&mut self, ctx: &mut Ctx) {
        let mut p = self.base_header(ctx);
        p.flags = flags::SYN | self.ecn_syn_flags();
        p.seq = 0;
        p.opt_mss = self.cfg.mss.min(u16::MAX as u32) as u16;
        p.opt_sack_ok = self.cfg.sack;
        p.opt_wscale = if self.cfg.window_scale {
            self.cfg.wscale_shift()
        } else {
            0xff
        };
        self.syn_sent_at = ctx.now;
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.stats.segments_sent += 1;
        self.rto_timer
            .set(ctx.now + self.rtt.rto(), self.flow, timers::RTO, ctx.events);
        self.emit(p, self.header_bytes(true), ctx);
    }

    /// Handle a packet from the receiver.
    pub fn on_packet(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        match self.state {
            SenderState::SynSent if p.has(flags::SYN) && p.has(flags::ACK) && p.ack == 1 => {
                self.on_syn_ack(p, ctx)
            }
            SenderState::Established => {
                if p.has(flags::SYN) {
                    self.send_pure_ack(1, ctx); // our handshake ACK was lost
                    return;
                }
                if self.ful_on_ack(p, ctx) {
                    self.record(ctx.now);
                    return;
                }
                let una = self.snd_una;
                // A D-SACK block (RFC 2883) is counted and taken off: the schemes read the
                // blocks that report what the receiver holds.
                let stripped;
                let p = match self.dsack_of(p) {
                    Some(dup) => {
                        self.on_dsack(dup, p.ack);
                        stripped = TcpHeader {
                            sack: p.sack.without_first(),
                            ..*p
                        };
                        &stripped
                    }
                    None => p,
                };
                self.on_ack(p, ctx);
                self.ecn_on_ack(p, una);
                if !self.ful.frozen && !self.rto_timer.is_set() {
                    if self.snd_max > self.snd_una {
                        self.restart_rto(ctx); // resumed by a FUL = 0 that acknowledged nothing new
                    } else if self.cfg.read_rate.is_some() {
                        // Nothing in flight: the window may have opened for a probing sender.
                        self.persist_on_ack(ctx);
                    }
                }
            }
            SenderState::Done => {
                // A D-SACK can come after the last byte's ACK (a probe or retransmission of
                // the tail that was not needed).
                if let Some(dup) = self.dsack_of(p) {
                    self.on_dsack(dup, p.ack);
                }
                if p.has(flags::FIN) {
                    self.send_pure_ack(p.seq + 1, ctx);
                }
            }
            _ => {}
        }
    }

    /// The D-SACK block an ACK carries, when this connection uses D-SACK.
    #[inline]
    fn dsack_of(&self, p: &TcpHeader) -> Option<(u64, u64)> {
        self.cfg.dsack.then(|| p.sack.dsack(p.ack)).flatten()
    }

    fn on_syn_ack(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        if self.stats.syn_retries == 0 {
            self.rtt.sample(ctx.now - self.syn_sent_at);
        } else {
            // RFC 6298 §5.7 and RFC 3390: SYN was lost ⇒ RTO 3 s and IW of one segment.
            self.rtt.reset_after_syn_loss(3 * SECOND);
            self.win.set_cwnd(self.win.mss as u64);
        }
        self.rwnd = p.wnd as u64;
        self.ecn_on_syn_ack(p);
        self.state = SenderState::Established;
        self.stats.established_at = Some(ctx.now);
        self.snd_una = 1;
        self.snd_nxt = 1;
        self.snd_max = 1;
        // No loss yet: below every sequence number (ns-2's guard compares strictly).
        self.recover = 0;
        self.rto_timer.cancel();
        let h = self.hand_over_info(ctx.now);
        self.cc.start(&self.win, &h);
        if !self.cfg.ns2_handshake {
            self.send_pure_ack(1, ctx); // ns-2's one-way agent sends data at once instead
        }
        self.try_send(ctx);
        self.record(ctx.now);
    }

    /// Seed the random values handed to congestion control.
    pub fn seed_cc(&mut self, rng: Rng) {
        self.cc_rng = rng;
    }

    /// The connection state a congestion control starts from.
    fn hand_over_info(&mut self, now: Time) -> HandOver {
        HandOver {
            now,
            srtt: self.rtt.srtt,
            min_rtt: self.rtt.min_rtt,
            flight: self.flight(),
            seed: self.cc_rng.next_u64(),
        }
    }

    /// Pacing rate in payload bytes per second: congestion control's own, else Linux's
    /// default when `pacing` is on (2·cwnd/SRTT in slow start, 1.2·cwnd/SRTT after).
    #[inline]
    pub fn pacing_rate(&self) -> Option<f64> {
        if let Some(r) = self.cc.pacing_rate() {
            return Some(r);
        }
        if !self.cfg.pacing || self.rtt.srtt == 0 {
            return None;
        }
        let ratio = if self.win.in_slow_start() { 2.0 } else { 1.2 };
        Some(ratio * self.win.cwnd as f64 * 1e9 / self.rtt.srtt as f64)
    }

    /// True when pacing holds the next segment back; arms the pacing timer for its time.
    #[inline]
    pub(crate) fn paced_out(&mut self, ctx: &mut Ctx) -> bool {
        if !self.pacer_holds(ctx.now) {
            return false;
        }
        self.pace_timer
            .set(self.pace_next, self.flow, timers::PACE, ctx.events);
        true
    }

    /// The pacer holds the next segment back at `now`.
    #[inline]
    fn pacer_holds(&self, now: Time) -> bool {
        now < self.pace_next && self.pacing_rate().is_some()
    }

    /// The pacing timer fired: send what the windows allow.
    pub fn on_pace_timer(&mut self, ctx: &mut Ctx) {
        if !self
            .pace_timer
            .fire(ctx.now, self.flow, timers::PACE, ctx.events)
        {
            return;
        }
        self.recovery_send(ctx);
        self.record(ctx.now);
    }

    fn send_pure_ack(&mut self, ack: u64, ctx: &mut Ctx) {
        let mut p = self.base_header(ctx);
        p.flags = flags::ACK;
        p.seq = self.snd_nxt;
        p.ack = ack;
        self.stats.segments_sent += 1;
        self.emit(p, self.header_bytes(false), ctx);
    }

    /// Whether the congestion window admits `len` more bytes; Limited Transmit's allowance
    /// applies to new data only (RFC 3042).
    #[inline]
    fn cwnd_allows(&self, len: u64, new_data: bool) -> bool {
        // Limited Transmit sends new data only (RFC 3042); ns-2's `send_one` sends whatever
        // `t_seqno_` points at, so after a go-back-N it resends old segments too.
        let lt = if new_data || self.win.ns2 {
            self.lt_segments as u64
        } else {
            0
        };
        self.fits_cwnd(len, lt)
    }

    /// `len` more bytes fit in cwnd widened by `extra` segments.
    #[inline]
    fn fits_cwnd(&self, len: u64, extra: u64) -> bool {
        match self.cfg.cwnd_unit {
            CwndUnit::Bytes => self.flight() + len <= self.win.cwnd + extra * self.win.mss as u64,
            CwndUnit::Packets => self.flight_segments() < self.win.segments() + extra,
        }
    }

    /// Nagle's test for a sub-MSS segment of new data.
    #[inline]
    fn nagle_holds(&self) -> bool {
        match self.cfg.nagle {
            Nagle::Off => false,
            Nagle::Rfc896 => self.snd_max > self.snd_una,
            Nagle::Minshall => self.snd_sml > self.snd_una,
        }
    }

    /// The next segment of new data (start, length, FIN) if the application has data, Nagle
    /// does not hold it and the receive window admits it.
    pub(crate) fn next_new_segment(&self) -> Option<(u64, u64, bool)> {
        let mss = self.win.mss as u64;
        let data_end = self.data_end();
        let len = self.new_segment_len();
        let fin = self.finite && self.snd_max + len == self.app_end && data_end == self.app_end;
        if len == 0 && (!fin || self.snd_max > self.app_end) {
            return None;
        }
        if len < mss && !fin && self.nagle_holds() {
            return None;
        }
        // Receive window: the segment must fit below snd_una + rwnd.
        if self.snd_max + len > self.snd_una + self.rwnd.max(1) {
            return None;
        }
        Some((self.snd_max, len, fin))
    }

    /// The length of the next segment of new data the application has (0: none).
    #[inline]
    pub(crate) fn new_segment_len(&self) -> u64 {
        match &self.writes {
            Some(w) => w.next_len(self.snd_max),
            None => self
                .data_end()
                .saturating_sub(self.snd_max)
                .min(self.win.mss as u64),
        }
    }

    /// Send as much as the windows, Nagle and the application allow.
    #[inline]
    pub fn try_send(&mut self, ctx: &mut Ctx) {
        self.write_and_send(ctx, Self::send_loop);
    }

    /// With write-time packetization, the application first writes what the send buffer
    /// accepts, and the stack runs `send` after each write (Linux: `tcp_sendmsg` pushes);
    /// otherwise (or when it has nothing to write) `send` runs once.
    #[inline]
    pub(crate) fn write_and_send(&mut self, ctx: &mut Ctx, send: fn(&mut Self, &mut Ctx)) {
        let mut wrote = false;
        if self.state == SenderState::Established {
            let (una, buf, mss) = (self.snd_una, self.cfg.snd_buf, self.win.mss as u64);
            while let Some(w) = self.writes.as_mut() {
                if !w.write_next(una, buf, mss) {
                    break;
                }
                wrote = true;
                send(self, ctx);
            }
        }
        if !wrote {
            send(self, ctx);
        }
    }

    /// Send as much as the windows, Nagle and the data written allow.
    fn send_loop(&mut self, ctx: &mut Ctx) {
        if self.state != SenderState::Established || self.ful.frozen {
            return;
        }
        let mut burst = 0u32;
        let cap = self.burst_cap();
        loop {
            if cap.is_some_and(|m| burst >= m) {
                break; // ns-2's maxburst_: at most this many segments per send
            }
            let (start, len, fin, kind) = if self.snd_nxt < self.snd_max {
                // Go-back-N after a timeout (or Tahoe's fast retransmit): resend old segments,
                // skipping those the receiver has SACKed (when the scoreboard is kept).
                let nxt = self.snd_nxt;
                let i = self.rtx_first_ending_after(nxt);
                let Some(seg) = self.rtx.get(i) else { break };
                // ns-2's Sack1 resends SACKed segments too (its t_seqno_ ignores the
                // scoreboard).
                if seg.sacked && !(self.win.ns2 && self.cfg.recovery.is_sack1()) {
                    self.snd_nxt = seg.end;
                    continue;
                }
                let fin = self.finite && seg.end == self.app_end + 1;
                let len = seg.end - nxt - fin as u64;
                if nxt + len > self.snd_una + self.rwnd.max(1) {
                    break;
                }
                (nxt, len, fin, self.gbn)
            } else {
                match self.next_new_segment() {
                    Some((start, len, fin)) => (start, len, fin, None),
                    None => {
                        self.note_app_limited();
                        if self.cfg.read_rate.is_some() {
                            self.persist_after_send(ctx);
                        }
                        break;
                    }
                }
            };
            if !self.cwnd_allows(len.max(1), start >= self.snd_max) || self.paced_out(ctx) {
                break;
            }
            self.send_segment(start, len, fin, kind, ctx);
            burst += 1;
            self.snd_nxt = start + len + fin as u64;
            if self.snd_nxt >= self.snd_max {
                self.gbn = None;
            }
        }
        self.after_send(ctx.now, burst > 0);
    }

    /// The end of a send, by the sender's own loop or a SACK recovery's (`sent`: it sent
    /// anything): unless `cwnd_growth = "always"`, tell [`CwndUse`] whether cwnd limited it.
    #[inline]
    pub(crate) fn after_send(&mut self, now: Time, sent: bool) {
        if self.cwnd_use.tracks() {
            self.note_window_use(now, sent);
        }
    }

    #[cold]
    fn note_window_use(&mut self, now: Time, sent: bool) {
        let end = SendEnd {
            limited: self.no_room_in_cwnd(),
            paced: self.pacer_holds(now),
            sent,
            segments_out: self.flight_segments(),
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
        };
        self.cwnd_use.after_send(end);
    }

    /// cwnd has no room for another full segment (Linux: packets in flight ≥ snd_cwnd).
    fn no_room_in_cwnd(&self) -> bool {
        !self.fits_cwnd(self.win.mss as u64, 0)
    }

    /// Let congestion control grow the window on an ACK of new data (outside recovery, or
    /// the ACK that ends it), as `cwnd_growth` allows ([`CwndUse`]): always, or only while
    /// cwnd, not the receive window or the application, limits the sender. Linux's
    /// `tcp_reno_cong_avoid` and `bictcp_cong_avoid` return at once otherwise (slow start
    /// included), as does ns-3's `TcpCubic::IncreaseWindow`; a window grown while unused
    /// would be sent in one burst when the limit lifts.
    #[inline]
    pub(crate) fn grow(&mut self, info: &AckInfo) {
        if self.cwnd_use.allows(&self.win) {
            self.cc.on_ack(&mut self.win, info);
            self.cwnd_use.used();
        }
    }

    /// Nothing to send although the window has room: the application is the limit, and
    /// delivery-rate samples say so until the data in flight is delivered (if the
    /// connection keeps them: else there is nothing to mark, and nothing to check).
    fn note_app_limited(&mut self) {
        if !self.rate.kept() {
            return;
        }
        let mss = self.win.mss as u64;
        if self.data_end().saturating_sub(self.snd_max) < mss && self.cwnd_allows(mss, true) {
            self.rate.mark_app_limited(self.flight());
        }
    }

    /// New data leaves with nothing outstanding: congestion control that reads the delivery
    /// state may set its pacing for the restart (before this segment's gap is taken).
    #[cold]
    #[inline(never)]
    fn restart_from_idle(&mut self, now: Time) {
        if !self.rate.kept() {
            return;
        }
        let (app_limited, delivered) = (self.rate.app_limited(), self.rate.delivered());
        self.cc
            .on_restart_from_idle(&mut self.win, now, app_limited, delivered);
    }

    /// The delivery-rate snapshot of a new segment of `len` bytes sent at `now`, with the
    /// bytes in flight once it leaves (BBR v3 compares losses with them). Off the path of
    /// connections that keep no rate state.
    #[inline(never)]
    fn snapshot_new(&mut self, now: Time, idle: bool, len: u64) {
        let in_flight = self.pipe_bytes() + len;
        self.rate.on_sent_new(now, idle, in_flight);
    }

    /// The segment at position `pos` of the retransmission queue is sent again (sequence
    /// `range`): its last transmission counts as lost, and congestion control hears of it
    /// with what that transmission's snapshot saw.
    #[inline(never)]
    fn snapshot_resent(&mut self, pos: usize, now: Time, idle: bool, range: (u64, u64)) {
        let in_flight = self.pipe_bytes() + (range.1 - range.0);
        if let Some(lost) = self.rate.on_resent(pos, now, idle, range, in_flight) {
            self.cc.on_lost(&self.win, &lost, now);
        }
    }

    /// Put one data segment on the wire (new or retransmitted).
    pub(crate) fn send_segment(
        &mut self,
        start: u64,
        len: u64,
        fin: bool,
        rtx: Option<RtxKind>,
        ctx: &mut Ctx,
    ) {
        let end = start + len + fin as u64;
        let idle = self.snd_una >= self.snd_max.max(1);
        if idle {
            // Nothing is outstanding, so this segment is new data.
            self.restart_from_idle(ctx.now);
        }
        if let Some(rate) = self.pacing_rate() {
            let gap = (len.max(1) as f64 * 1e9 / rate) as Time;
            self.pace_next = self.pace_next.max(ctx.now) + gap;
        }
        let (index, tx) = if start >= self.snd_max {
            // Not for an algorithm that sets cwnd itself (BBR): Linux's
            // `tcp_slow_start_after_idle_check` returns early for a `cong_control` module.
            if idle && self.cfg.slow_start_after_idle && !self.cc.owns_window() {
                self.restart_after_idle(ctx.now);
            }
            if let Some(w) = self.writes.as_mut() {
                w.sent(start, start + len);
            }
            let index = self.next_index;
            self.next_index += 1;
            let paired = self.last_new == (ctx.now, start);
            self.last_new = (ctx.now, end);
            if self.cfg.recovery.uses_sack() {
                let segs = self.rtx.iter().map(|s| (s.index, s.sacked_bytes()));
                self.sack.index.reserve(self.rtx.len() + 1, segs);
                self.sack.index.push(index);
            }
            if self.rate.kept() {
                self.snapshot_new(ctx.now, idle, len);
            }
            self.rtx.push_back(SentSeg {
                paired,
                wire: self.header_bytes(false) + len as u32,
                start,
                end,
                sent: ctx.now,
                index,
                tx: 1,
                retx: false,
                sacked: false,
                rtx_episode: false,
                rtx_high: 0,
                rtx_lost_seen: false,
                delivered: false,
            });
            (index, 1)
        } else {
            let i = self.rtx_first_ending_after(start);
            if self.rate.kept() {
                self.snapshot_resent(i, ctx.now, idle, (start, start + len));
            }
            let seg = &mut self.rtx[i];
            seg.tx = seg.tx.saturating_add(1);
            seg.retx = true;
            seg.sent = ctx.now;
            seg.rtx_high = self.snd_max;
            self.last_resent = ctx.now;
            if self.cfg.undo {
                self.undo.on_retransmit();
            }
            let (seg_start, index, tx) = (seg.start, seg.index, seg.tx);
            self.recovery_on_resent(seg_start, self.snd_max);
            match rtx {
                Some(RtxKind::Timeout) => self.stats.rtx_timeout += 1,
                _ => self.stats.rtx_fast += 1,
            }
            (index, tx)
        };
        let mut p = self.base_header(ctx);
        p.flags = flags::ACK | if fin { flags::FIN } else { 0 };
        if start + len == self.data_end() {
            p.flags |= flags::PSH;
        }
        p.seq = start;
        p.ack = 1;
        p.len = len as u32;
        p.seg_index = index;
        p.tx_count = tx;
        p.after_rto = rtx == Some(RtxKind::Timeout);
        if len < self.win.mss as u64 {
            self.snd_sml = end;
        }
        self.snd_max = self.snd_max.max(end);
        self.stats.segments_sent += 1;
        self.stats.data_segments_sent += (len > 0) as u64;
        self.loss_est.sent += (len > 0) as u64;
        self.loss_est.retransmissions += (len > 0 && tx > 1) as u64;
        self.stats.data_bytes_sent += len;
        if !self.rto_timer.is_set() {
            self.rto_timer
                .set(ctx.now + self.rtt.rto(), self.flow, timers::RTO, ctx.events);
        }
        self.emit(p, self.header_bytes(false) + len as u32, ctx);
    }

    /// New data after idle (nothing in flight): when the last data segment left more than
    /// an RTO ago, restart from a smaller window as Linux does (`tcp_cwnd_restart`, 2.6.15):
    /// ssthresh rises to at least 3/4 of cwnd (outside recovery), and cwnd halves once per
    /// RTO of the idle time, but not below the initial window (nor above what it was). The
    /// first data after the handshake is not a restart.
    #[cold]
    #[inline(never)]
    fn restart_after_idle(&mut self, now: Time) {
        let (last_new, _) = self.last_new;
        if last_new == Time::MAX {
            return;
        }
        let rto = self.rtt.rto();
        let mut idle = now.saturating_sub(last_new.max(self.last_resent));
        if idle <= rto {
            return;
        }
        // In whole segments when the window counts packets, else in bytes.
        let unit = match self.win.unit {
            CwndUnit::Bytes => 1,
            CwndUnit::Packets => self.win.mss as u64,
        };
        let cwnd = self.win.cwnd / unit;
        if !self.in_recovery {
            self.win.ssthresh = self.win.ssthresh.max(((cwnd >> 1) + (cwnd >> 2)) * unit);
        }
        let restart = (self.cfg.initial_window.bytes(self.win.mss) / unit).min(cwnd);
        let mut w = cwnd;
        while idle > rto && w > restart {
            idle -= rto;
            w >>= 1;
        }
        self.win.cwnd = w.max(restart) * unit;
    }

    pub(crate) fn restart_rto(&mut self, ctx: &mut Ctx) {
        self.rto_timer
            .set(ctx.now + self.rtt.rto(), self.flow, timers::RTO, ctx.events);
    }

    /// A duplicate ACK: no new data acknowledged, no payload, no FIN, data outstanding.
    #[inline]
    pub(crate) fn is_dupack(&self, p: &TcpHeader) -> bool {
        p.ack == self.snd_una && p.len == 0 && !p.has(flags::FIN) && self.snd_max > self.snd_una
    }

    fn on_ack(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        if p.ack > self.snd_max {
            return; // acknowledges data never sent
        }
        self.rwnd = p.wnd as u64;
        self.recovery_on_ack(p, ctx);
        self.record(ctx.now);
    }

    /// The part of processing a new cumulative ACK every variant shares: drop acknowledged
    /// segments, take an RTT sample (Karn's rule; timestamps disambiguate), advance snd_una.
    pub(crate) fn ack_advance(&mut self, p: &TcpHeader, ctx: &mut Ctx) -> AckInfo {
        let ack = p.ack;
        let flight_before = self.flight();
        let acked_data = ack.min(self.app_end) - self.snd_una.min(self.app_end);
        let mut any_retx = false;
        let mut newest_sent = None;
        let mut popped = 0u32;
        let mut retx_popped = 0u32;
        let mut single = None;
        let min_rtt = self.rtt.min_rtt;
        let covered = if self.cfg.recovery.uses_sack() {
            self.scoreboard_on_ack(ack)
        } else {
            0
        };
        while let Some(seg) = self.rtx.front_mut() {
            if seg.end <= ack {
                if !seg.delivered {
                    self.rate
                        .on_delivered(0, seg.end - seg.start, seg.sent, ctx.now);
                }
                any_retx |= seg.retx;
                newest_sent = Some(seg.sent);
                popped += 1;
                if seg.retx {
                    self.loss_est.on_retransmitted_acked(
                        ctx.now - seg.sent,
                        min_rtt,
                        retx_popped > 0,
                    );
                    retx_popped += 1;
                } else {
                    single = Some(*seg);
                }
                self.rtx.pop_front();
                self.rate.on_popped();
            } else {
                if seg.start < ack {
                    any_retx |= seg.retx;
                    if !seg.delivered {
                        self.rate
                            .on_delivered(0, ack - seg.start, seg.sent, ctx.now);
                    }
                    seg.start = ack;
                }
                break;
            }
        }
        // A precise sample from a segment sent once; else (Karn) a timestamp sample, whole
        // ticks only: it feeds the RTO but neither the minimum RTT nor the congestion
        // control (Linux hands its CC no RTT for retransmitted data either).
        let sample = match newest_sent {
            Some(t) if !any_retx => {
                let r = (ctx.now - t).max(1);
                self.rtt.sample(r);
                Some(r)
            }
            _ if self.cfg.timestamps && p.ts_ecr != 0 => {
                let now_ticks = (ctx.now / TS_TICK) as u32;
                let r = (now_ticks.wrapping_sub(p.ts_ecr) as Time * TS_TICK).max(1);
                self.rtt.sample_coarse(r);
                None
            }
            _ => None,
        };
        match single {
            Some(s) if popped == 1 => self
                .capacity
                .on_single_ack(s.start, s.end, s.sent, ctx.now, s.wire, s.paired),
            _ => self.capacity.on_other_ack(),
        }
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        self.dupacks = 0;
        self.lt_segments = 0;
        // Counting every byte (Linux, ns-3), an ACK counts what it newly delivered: not the
        // bytes a SACK had already reported, or after a repair the ACK that fills the hole
        // would count at once all the data the receiver held beyond it.
        let counted = if self.win.ss_limit == u64::MAX {
            acked_data.saturating_sub(covered)
        } else {
            acked_data
        };
        self.observe(ctx.now, counted, sample, flight_before)
    }

    /// Tell congestion control about a duplicate ACK (for its estimators and, with SACK,
    /// the data it delivered).
    pub(crate) fn observe_duplicate(&mut self, now: Time) {
        self.observe(now, 0, None, self.flight());
    }

    /// Build the ACK's information, with its delivery-rate sample, and show it to
    /// congestion control.
    #[inline]
    fn observe(&mut self, now: Time, acked: u64, rtt: Option<Time>, flight: u64) -> AckInfo {
        let info = AckInfo {
            now,
            acked,
            rtt,
            srtt: self.rtt.srtt,
            min_rtt: self.rtt.min_rtt,
            flight,
            pipe: self.cc.reads_delivery().then(|| self.pipe_bytes()),
            recovering: self.snd_una < self.recover,
            delivered: self.rate.delivered(),
            sample: self.rate.take_sample(self.rtt.min_rtt),
        };
        self.cc.observe(&mut self.win, &info);
        if self.cc.app_limited() {
            let pipe = info.pipe.unwrap_or_else(|| self.pipe_bytes());
            self.rate.mark_app_limited(pipe);
        }
        info
    }

    /// After a new ACK: manage the RTO timer and detect completion. Returns true when the
    /// transfer is complete (nothing more to send).
    pub(crate) fn finish_ack(&mut self, restart_timer: bool, ctx: &mut Ctx) -> bool {
        if self.snd_una >= self.snd_max {
            self.rto_timer.cancel();
        } else if restart_timer {
            self.restart_rto(ctx);
        }
        if self.finite && self.snd_una > self.app_end {
            self.state = SenderState::Done;
            self.stats.all_acked_at = Some(ctx.now);
            self.rto_timer.cancel();
            return true;
        }
        false
    }

    /// The guard on a new fast retransmit: the cumulative ACK has reached `recover` (RFC
    /// 6582), or with ns-2's rule gone beyond it by a packet (`highest_ack_ > recover_`, in
    /// packet numbers: the packet sent last before the previous reduction is acknowledged and
    /// so is one more).
    pub(crate) fn fast_retransmit_allowed(&self) -> bool {
        if self.cfg.ns2_fr_guard {
            self.snd_una > self.recover
        } else {
            self.snd_una >= self.recover
        }
    }

    pub(crate) fn reduction_base(&self) -> u64 {
        match self.cfg.halving_base {
            HalvingBase::Flight => self.flight(),
            // ns-2's Reno family halves windowd() = min(cwnd_, wnd_) with cwnd_'s
            // fraction: the base is the advertised window alone (`Window::ns2_half`).
            HalvingBase::Window if self.win.ns2 && self.cc.kind() == CcKind::Reno => self.rwnd,
            HalvingBase::Window => self.win.cwnd.min(self.rwnd),
            HalvingBase::Pipe => self.flight(),
        }
    }

    /// What a timeout halves. RFC 5681's FlightSize, except with ns-3's rule (`halving_base =
    /// "pipe"`) in a duplicate-ACK recovery without SACK: `ReTxTimeout` halves
    /// `BytesInFlight()`, which leaves out the segments its duplicate ACKs counted as SACKed
    /// (the head is lost and retransmitted, so it counts once). A NewReno window inflated by
    /// many duplicate ACKs then is not halved from the data it sent on them.
    fn timeout_base(&self) -> u64 {
        if self.cfg.halving_base == HalvingBase::Pipe
            && self.in_recovery
            && !self.cfg.recovery.uses_sack()
        {
            let sacked = self.reno_sacked as u64 * self.win.mss as u64;
            return self.flight().saturating_sub(sacked);
        }
        self.reduction_base()
    }

    /// Handle the retransmission timer.
    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        if !self
            .rto_timer
            .fire(ctx.now, self.flow, timers::RTO, ctx.events)
        {
            return;
        }
        match self.state {
            SenderState::SynSent => {
                self.stats.syn_retries += 1;
                self.rtt.back_off();
                self.send_syn(ctx);
            }
            SenderState::Established if self.snd_max > self.snd_una => {
                self.stats.timeouts += 1;
                self.stats.first_timeout_at.get_or_insert(ctx.now);
                let mss = self.win.mss as u64;
                self.recovery_before_timeout();
                if self.rtt.backoff == 0 || self.win.ns2 {
                    // RFC 5681 eq. 4; a repeated timeout of the same data keeps ssthresh
                    // (ns-2 halves again: ssthresh falls to 2), and stays the same episode.
                    if self.cfg.undo {
                        self.undo
                            .start(self.win.cwnd, self.win.ssthresh, self.snd_una);
                    }
                    let base = self.timeout_base();
                    self.win.ssthresh = self.cc.ssthresh_on_loss(&self.win, base);
                }
                self.win.set_cwnd(mss);
                self.win.cnt = 0;
                self.win.after_rto = self.cfg.byte_counting == ByteCounting::Rfc3465;
                self.cc.on_timeout(&mut self.win);
                self.in_recovery = false;
                self.dupacks = 0;
                self.lt_segments = 0;
                self.recover = self.snd_max;
                self.snd_nxt = self.snd_una;
                self.gbn = Some(RtxKind::Timeout);
                self.recovery_on_timeout();
                self.rtt.back_off();
                self.restart_rto(ctx);
                self.try_send(ctx);
                self.record(ctx.now);
            }
            _ => {}
        }
    }

    /// The connection's HyStart and its first exit: of the CUBIC running now, or of one it
    /// switched away from after HyStart had ended slow start.
    pub fn hystart(&self) -> Option<(HyStartMode, Option<Exit>)> {
        self.stats
            .hystart_before
            .as_deref()
            .copied()
            .or_else(|| self.cc.hystart())
    }

    /// Change congestion control mid-session: the new algorithm initialises its private state
    /// from the connection (cwnd and ssthresh are kept); the old one is dropped.
    pub fn switch_cc(&mut self, kind: super::cc::CcKind, now: Time) {
        if let Some(h @ (_, Some(_))) = self.cc.hystart() {
            self.stats.hystart_before.get_or_insert(Box::new(h));
        }
        let mut cc = kind.build();
        cc.set_hystart(self.cfg.hystart);
        if cc.reads_delivery() && !self.rate.kept() {
            // Not foreseen when the connection started (it keeps the state from the start
            // for a scheduled or adaptive switch): the segments in flight count as sent now.
            self.rate.keep_from(now, self.rtx.len());
        }
        let h = self.hand_over_info(now);
        cc.hand_over(&self.win, &h);
        self.cc = cc;
        self.stats.switches.push((now, kind));
        self.record(now);
    }

    /// Append a row to the time series, if tracing.
    #[inline]
    pub(crate) fn record(&mut self, now: Time) {
        if !self
            .trace
            .as_deref_mut()
            .is_some_and(|tr| tr.window.admit(now))
        {
            return;
        }
        let flight = self.flight();
        let pipe = self.pipe_segments();
        let sacked = if self.cfg.recovery.uses_sack() {
            self.sacked_bytes()
        } else {
            0
        };
        let pacing = self.pacing_rate().unwrap_or(0.0);
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.pacing_rate.push(pacing);
            tr.pipe.push(pipe);
            tr.sacked.push(sacked as f64);
            tr.t.push(now as f64 * 1e-9);
            tr.cwnd.push(self.win.cwnd as f64);
            tr.ssthresh.push(self.win.ssthresh.min(1 << 40) as f64);
            tr.srtt.push(self.rtt.srtt as f64 * 1e-9);
            tr.rto.push(self.rtt.rto() as f64 * 1e-9);
            tr.flight.push(flight as f64);
            tr.snd_max.push(self.snd_max as f64);
            tr.snd_una.push(self.snd_una as f64);
        }
    }
}

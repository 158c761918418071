//! RACK-TLP (RFC 8985): time-based loss detection and tail loss probes, on RFC 6675's SACK
//! scoreboard and sending rules.
//!
//! **RACK** remembers the send time of the most recently *sent* segment that has been
//! delivered (ACKed or SACKed; `xmit_ts`, with its end and RTT). An unacknowledged segment
//! sent before it is lost once `seg.xmit_ts + RACK.rtt + reo_wnd ≤ now`; one not yet that old
//! arms the reordering timer for the rest. The reordering window is min(min_RTT/4 · m, SRTT),
//! or 0 while no reordering has been seen and the connection is in recovery or has DupThresh
//! segments SACKed (so a plain three-duplicate pattern is detected at once, as RFC 6675 would).
//! The multiplier m grows by one per round trip with a D-SACK (`tcp.dsack`: a retransmission
//! was spurious) and returns to 1 after 16 recoveries without one (`rack_reo`).
//! A retransmission is judged the same way by its own send time, so a lost retransmission is
//! found and sent again without a timeout (what SackPlus does by sequence numbers).
//!
//! Original transmissions leave in sequence order, so the segments RACK marks lost among them
//! are those below a frontier (the RFC 6675 code's `lost_to`); retransmissions of the current
//! episode are kept in send order. Each ACK costs amortised O(1) besides the segments it
//! delivers.
//!
//! Detected losses start fast recovery (the congestion control's reduction, once per episode);
//! RFC 6675's NextSeg then sends lost segments in sequence order, then new data, with pipe =
//! outstanding − lost + retransmitted-in-flight.
//!
//! **TLP**: outside recovery with data outstanding, a probe timer of 2·SRTT (plus 200 ms, the
//! worst-case delayed ACK, when one segment is in flight; never later than the RTO) sends one
//! new segment, or retransmits the last one, so that a tail loss produces the SACK that lets
//! RACK find it instead of waiting for the RTO. One probe per episode; the episode ends when
//! the probe is acknowledged. A retransmitted probe that repairs a loss takes the congestion
//! control's reduction. With D-SACK (`tcp.dsack`) the episode follows RFC 8985 §7.4.2 as
//! Linux does: a D-SACK for the probe means the original arrived (no loss), an ACK beyond the
//! probe without one is a repair, and an ACK of exactly its end waits. Without D-SACK the
//! first ACK that covers the probe is taken as the repair, needed or not.

use super::rfc6675::{self, Next, Rfc6675};
use super::sack_flow::{self, retransmit};
use super::{LossRecovery, Recovery, SackRecovery};
use crate::net::TcpHeader;
use crate::sim::timer::Timer;
use crate::sim::{Time, MILLISECOND};
use crate::tcp::cc::CongestionControl;
use crate::tcp::sender::TcpSender;
use crate::tcp::timers;
use crate::tcp::Ctx;
use std::collections::VecDeque;

/// The worst-case delayed-ACK time added to the probe timeout with one segment in flight.
pub const WC_DEL_ACK: Time = 200 * MILLISECOND;

/// RACK and TLP state.
#[derive(Clone, Debug, Default)]
pub struct RackState {
    /// Send time of the most recently sent segment delivered (RACK.xmit_ts).
    xmit_ts: Time,
    /// That segment's end (RACK.end_seq).
    end_seq: u64,
    /// That segment's RTT (RACK.rtt).
    rtt: Time,
    /// One past the highest byte ACKed or SACKed (RACK.fack).
    fack: u64,
    /// A segment never retransmitted was delivered below `fack`.
    reordering_seen: bool,
    /// Bytes of segments retransmitted in this episode, not yet delivered nor lost again.
    pub(crate) rtx_bytes: u64,
    /// This episode's retransmissions in send order: (send time, segment start).
    rtx_order: VecDeque<(Time, u64)>,
    /// The reordering timer.
    pub(crate) reo_timer: Timer,
    /// The probe timer.
    pub(crate) pto_timer: Timer,
    /// The probe in flight: (snd_max after it, whether it was a retransmission).
    tlp: Option<(u64, bool)>,
    /// Where the retransmitted probe starts.
    tlp_start: u64,
    /// The reordering window's D-SACK multiplier.
    pub(crate) reo: super::rack_reo::ReoWindow,
    /// A timeout's recovery is under way (until the cumulative ACK reaches `recover`).
    rto_recovery: bool,
}

/// RACK-TLP (marker type).
pub(crate) struct RackTlp;

impl LossRecovery for RackTlp {
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
        sack_flow::on_ack::<Self>(s, p, ctx);
        s.rack_after_ack(p.ack, ctx);
    }

    #[inline]
    fn pipe(s: &TcpSender) -> u64 {
        if s.in_recovery {
            s.rack_pipe()
        } else {
            s.flight()
        }
    }

    fn pipe_segments(s: &TcpSender) -> f64 {
        rfc6675::pipe_segments(s)
    }

    fn send(s: &mut TcpSender, ctx: &mut Ctx) {
        sack_flow::send_now::<Self>(s, ctx);
    }

    fn on_timeout(s: &mut TcpSender) {
        s.rack_on_timeout();
        s.sack_on_timeout(true);
    }

    #[inline]
    fn on_sacked(s: &mut TcpSender, i: usize, now: Time) {
        s.rack_delivered(i, now);
    }
}

impl SackRecovery for RackTlp {
    #[inline]
    fn on_cumulative(s: &mut TcpSender, ack: u64, now: Time) {
        s.rack_on_cumulative(ack, now);
    }

    fn loss_after_new_ack(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        s.rack_detect_loss(ctx)
    }

    fn dupack_counts(new_info: bool) -> bool {
        Rfc6675::dupack_counts(new_info)
    }

    /// RACK replaces the duplicate-ACK count: a segment judged lost by time.
    fn should_enter(s: &mut TcpSender, _counts: bool, ctx: &mut Ctx) -> bool {
        s.rack_detect_loss(ctx)
    }

    /// The lowest segment RACK marked lost leaves at once, whatever the pipe (RFC 6675 step
    /// 4.3); NextSeg sends the others.
    fn start_episode(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        s.rack_clear_episode();
        s.sack.rescue_rxt = u64::MAX;
        if let Some(i) = s.next_hole().filter(|&i| s.is_lost(&s.rtx[i])) {
            retransmit::<Self>(s, i, ctx);
            s.sack.high_rxt = s.rtx[i].end;
        }
        s.sack.pipe_bytes = s.rack_pipe();
        true
    }

    fn exit(s: &mut TcpSender) {
        rfc6675::exit(s);
        s.rack_clear_episode();
        s.rack.reo.on_recovery_exit(s.snd_una);
    }

    fn before_send(s: &mut TcpSender, ctx: &mut Ctx) {
        if s.in_recovery {
            s.rack_detect_loss(ctx);
            s.sack.pipe_bytes = s.rack_pipe();
        }
    }

    fn send_one(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        rfc6675::send_one::<Self>(s, ctx, next_seg)
    }

    #[inline]
    fn on_retransmitted(s: &mut TcpSender, i: usize, now: Time) {
        s.rack_retransmitted(i, now);
    }
}

/// RACK-TLP's NextSeg: the lowest segment RACK marked lost and not retransmitted since, else
/// new data (RFC 6675's rules 3 and 4 are left to the tail loss probe).
fn next_seg(s: &mut TcpSender) -> Option<Next> {
    if let Some(i) = s.next_hole().filter(|&i| s.is_lost(&s.rtx[i])) {
        return Some(Next::Retransmit {
            index: i,
            rescue: false,
        });
    }
    s.next_new_segment().map(Next::New)
}

impl TcpSender {
    /// A segment (the one at position `i`) was delivered, by a SACK or a cumulative ACK: move
    /// RACK's reference forward (RFC 8985 §6.2 steps 2–3).
    pub(crate) fn rack_delivered(&mut self, i: usize, now: Time) {
        let seg = self.rtx[i];
        if seg.rtx_episode {
            self.rack.rtx_bytes = self.rack.rtx_bytes.saturating_sub(seg.end - seg.start);
        }
        let min_rtt = self.rtt.min_rtt;
        // An ACK sooner than min_RTT after a retransmission may be for the original.
        if seg.retx && min_rtt != Time::MAX && now - seg.sent < min_rtt {
            return;
        }
        let r = &mut self.rack;
        if !seg.retx && seg.end < r.fack {
            r.reordering_seen = true;
        }
        r.fack = r.fack.max(seg.end);
        if (seg.sent, seg.end) > (r.xmit_ts, r.end_seq) {
            r.xmit_ts = seg.sent;
            r.end_seq = seg.end;
            r.rtt = now - seg.sent;
        }
    }

    /// A cumulative ACK up to `ack`: the unSACKed segments it covers are delivered.
    pub(crate) fn rack_on_cumulative(&mut self, ack: u64, now: Time) {
        let n = self.rtx_first_ending_after(ack);
        for i in 0..n {
            if !self.rtx[i].sacked {
                self.rack_delivered(i, now);
            }
        }
    }

    /// RACK.reo_wnd (RFC 8985 §6.2 step 4).
    fn rack_reo_wnd(&self) -> Time {
        let mss = self.win.mss as u64;
        if !self.rack.reordering_seen
            && (self.in_recovery || self.sacked_bytes() >= self.cfg.dupthresh as u64 * mss)
        {
            return 0;
        }
        if self.rtt.min_rtt == Time::MAX {
            return 0;
        }
        self.rack.reo.window(self.rtt.min_rtt, self.rtt.srtt.max(1))
    }

    /// The time left before the segment sent at `sent` (ending at `end`) is deemed lost, if it
    /// was sent before RACK's reference (None: sent after it, not judged yet).
    #[inline]
    fn rack_remaining(&self, sent: Time, end: u64, reo: Time, now: Time) -> Option<i128> {
        let r = &self.rack;
        ((sent, end) < (r.xmit_ts, r.end_seq))
            .then(|| sent as i128 + r.rtt as i128 + reo as i128 - now as i128)
    }

    /// RACK_detect_loss (RFC 8985 §6.2 step 5): mark lost what is old enough, re-arm the
    /// reordering timer for the rest. Returns true when something new was marked lost.
    pub(crate) fn rack_detect_loss(&mut self, ctx: &mut Ctx) -> bool {
        let now = ctx.now;
        let reo = self.rack_reo_wnd();
        let mut lost = false;
        let mut timeout: i128 = 0;
        // Original transmissions, in sequence (= send) order, from the frontier.
        loop {
            let f = self.sack.lost_to;
            let i = self.rtx_first_from(f);
            let Some(seg) = self.rtx.get(i).copied() else {
                break;
            };
            if !seg.sacked {
                match self.rack_remaining(seg.sent, seg.end, reo, now) {
                    Some(left) if left <= 0 => {
                        lost = true;
                        self.sack.marked_lost += 1;
                    }
                    Some(left) => {
                        timeout = timeout.max(self.rack_latest_remaining(i, reo, now).max(left));
                        break;
                    }
                    None => break,
                }
            }
            self.pass_frontier(i);
        }
        // Retransmissions of this episode, in send order.
        while let Some(&(sent, start)) = self.rack.rtx_order.front() {
            let i = self.rtx_first_ending_after(start);
            let current = self
                .rtx
                .get(i)
                .is_some_and(|s| s.start == start && s.sent == sent && s.rtx_episode && !s.sacked);
            if !current {
                self.rack.rtx_order.pop_front();
                continue;
            }
            let seg = self.rtx[i];
            match self.rack_remaining(sent, seg.end, reo, now) {
                Some(left) if left <= 0 => {
                    self.rack.rtx_order.pop_front();
                    self.rtx[i].rtx_episode = false;
                    self.rack.rtx_bytes = self.rack.rtx_bytes.saturating_sub(seg.end - seg.start);
                    self.sack.hole_from = self.sack.hole_from.min(seg.start);
                    self.stats.lost_retransmissions_detected += 1;
                    self.sack.marked_lost += 1;
                    lost = true;
                }
                Some(left) => {
                    timeout = timeout.max(left);
                    break;
                }
                None => break,
            }
        }
        if timeout > 0 {
            let at = now + timeout as Time;
            self.rack
                .reo_timer
                .set(at, self.flow, timers::RACK, ctx.events);
        } else {
            self.rack.reo_timer.cancel();
        }
        lost
    }

    /// The largest time left among the unSACKed original segments sent before RACK's
    /// reference: the last such one below it (found by stepping down over SACKed segments).
    fn rack_latest_remaining(&self, from: usize, reo: Time, now: Time) -> i128 {
        let top = self.rtx_first_ending_after(self.rack.end_seq);
        let mut j = top.min(self.rtx.len());
        while j > from {
            j -= 1;
            let s = &self.rtx[j];
            if !s.sacked && !s.rtx_episode {
                return self.rack_remaining(s.sent, s.end, reo, now).unwrap_or(0);
            }
        }
        0
    }

    /// Move the RFC 6675 frontier past the segment at `i` (it is SACKed or lost), keeping the
    /// counts of SACKed bytes and runs above it.
    fn pass_frontier(&mut self, i: usize) {
        let seg = self.rtx[i];
        if seg.sacked {
            let ends_run = !self.rtx.get(i + 1).is_some_and(|s| s.sacked);
            self.sack.above_bytes -= seg.end - seg.start;
            self.sack.above_blocks -= ends_run as u64;
        }
        self.sack.lost_to = seg.end;
    }

    /// A fast-recovery retransmission of the segment at `i` left now.
    pub(crate) fn rack_retransmitted(&mut self, i: usize, now: Time) {
        let seg = self.rtx[i];
        self.rack.rtx_bytes += seg.end - seg.start;
        self.rack.rtx_order.push_back((now, seg.start));
    }

    /// A new recovery episode, or a timeout: forget the episode's retransmissions.
    pub(crate) fn rack_clear_episode(&mut self) {
        self.rack.rtx_bytes = 0;
        self.rack.rtx_order.clear();
    }

    /// After a timeout: the probe episode and the reordering timer end.
    pub(crate) fn rack_on_timeout(&mut self) {
        self.rack.rto_recovery = true;
        self.rack_clear_episode();
        self.rack.tlp = None;
        self.rack.reo_timer.cancel();
        self.rack.pto_timer.cancel();
    }

    /// RFC 6675 SetPipe() with RACK's marks: outstanding, less lost, plus retransmitted.
    pub(crate) fn rack_pipe(&self) -> u64 {
        let nxt = self.snd_nxt;
        self.unsacked_below(nxt) - self.unsacked_below(self.sack.lost_to.min(nxt))
            + self.rack.rtx_bytes
    }

    /// After each ACK: end a probe episode it acknowledges (a retransmitted probe that
    /// repaired a loss takes the congestion control's reduction), then arm the probe timer.
    pub(crate) fn rack_after_ack(&mut self, ack: u64, ctx: &mut Ctx) {
        if self.rack.rto_recovery && ack >= self.recover {
            self.rack.rto_recovery = false;
            self.rack.reo.on_recovery_exit(self.snd_una);
        }
        if let Some((end, retrans)) = self.rack.tlp.filter(|&(end, _)| ack >= end) {
            if !retrans {
                self.rack.tlp = None; // a probe of new data: nothing to infer
            } else if ack > end || !self.cfg.dsack {
                // The probe repaired a loss. Without D-SACK the sender cannot tell an ACK of
                // the original from one of the probe, and takes the first as the repair.
                self.rack.tlp = None;
                if !self.in_recovery && !self.cc.owns_window() {
                    let base = self.reduction_base();
                    self.win.ssthresh = self.cc.ssthresh_on_loss(&self.win, base);
                    self.win.set_cwnd(self.win.ssthresh.min(self.win.cwnd));
                    self.stats.tlp_recoveries += 1;
                }
            }
            // Else an ACK of exactly the probe's end without a D-SACK for it: it may be the
            // original's, with the probe's D-SACK to come; wait (as Linux does).
        }
        self.rack_arm_probe(ctx);
    }

    /// A D-SACK reported [left, right) received twice on an ACK up to `ack`: if it is the
    /// retransmitted probe, the original had arrived, and the episode ends without a loss
    /// (RFC 8985 §7.4.2).
    pub(crate) fn rack_on_dsack(&mut self, (left, right): (u64, u64), ack: u64) {
        self.rack.reo.on_dsack(ack.max(self.snd_una), self.snd_max);
        if let Some((end, true)) = self.rack.tlp {
            let start = self.rack.tlp_start;
            if ack >= end && left <= start && start < right {
                self.rack.tlp = None;
                self.stats.tlp_spurious += 1;
            }
        }
    }

    /// Arm the probe timer (RFC 8985 §7.2) when the connection is open with data outstanding
    /// and no probe in flight; the RTO stays armed behind it.
    pub(crate) fn rack_arm_probe(&mut self, ctx: &mut Ctx) {
        let srtt = self.rtt.srtt;
        if self.in_recovery
            || self.rack.tlp.is_some()
            || self.snd_max <= self.snd_una
            || srtt == 0
            || self.gbn.is_some()
        {
            self.rack.pto_timer.cancel();
            return;
        }
        let mut pto = 2 * srtt;
        if self.rtx.len() <= 1 {
            pto += WC_DEL_ACK;
        }
        let at = ctx.now + pto;
        if self.rto_timer.deadline().is_some_and(|rto| rto <= at) {
            self.rack.pto_timer.cancel();
            return;
        }
        self.rack
            .pto_timer
            .set(at, self.flow, timers::TLP, ctx.events);
    }

    /// The probe timer fired: send one new segment, or retransmit the last one.
    pub fn on_probe_timer(&mut self, ctx: &mut Ctx) {
        if !self
            .rack
            .pto_timer
            .fire(ctx.now, self.flow, timers::TLP, ctx.events)
        {
            return;
        }
        if self.in_recovery || self.snd_max <= self.snd_una || self.ful.frozen {
            return;
        }
        let retrans = if let Some((start, len, fin)) = self.next_new_segment() {
            self.send_segment(start, len, fin, None, ctx);
            self.snd_nxt = start + len + fin as u64;
            false
        } else {
            let Some(seg) = self.rtx.back().copied() else {
                return;
            };
            self.resend(seg, ctx);
            self.rack.tlp_start = seg.start;
            true
        };
        self.stats.tlp_probes += 1;
        self.rack.tlp = Some((self.snd_max, retrans));
        self.restart_rto(ctx);
        self.record(ctx.now);
    }

    /// The reordering timer fired: judge the segments again; losses start (or continue)
    /// recovery.
    pub fn on_reorder_timer(&mut self, ctx: &mut Ctx) {
        if !self
            .rack
            .reo_timer
            .fire(ctx.now, self.flow, timers::RACK, ctx.events)
        {
            return;
        }
        if self.cfg.recovery != Recovery::RackTlp || self.snd_max <= self.snd_una {
            return;
        }
        if self.rack_detect_loss(ctx) {
            if self.in_recovery {
                sack_flow::send::<RackTlp>(self, ctx);
            } else if self.fast_retransmit_allowed() {
                sack_flow::enter::<RackTlp>(self, ctx);
            }
        }
        self.record(ctx.now);
    }
}

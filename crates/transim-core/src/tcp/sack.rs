//! SACK-based loss recovery: the scoreboard, Fall & Floyd's Sack1 (ns-2), SackPlus (Sack1 with
//! lost-retransmission detection) and RFC 6675.
//!
//! The scoreboard lives in the sender's retransmission queue: each [`SentSeg`] carries its
//! SACKed mark, whether it was retransmitted in the current recovery episode, RFC 6675's
//! IsLost() and, for SackPlus, the highest sequence sent when it was retransmitted.
//!
//! Sack1, as the SackPlus study states it: at the third duplicate ACK retransmit the first
//! hole, halve cwnd and set pipe = segments outstanding − 3; every further ACK in recovery
//! takes one from pipe, a partial ACK takes two; while pipe < cwnd send the next hole (lowest
//! unSACKed segment below the highest SACK, not yet retransmitted) or else new data, adding
//! one to pipe. A retransmitted hole is never sent again before a timeout; recovery ends when
//! an ACK covers everything outstanding at the fast retransmit.
//!
//! SackPlus adds: when a SACK's first block ends above the snd_max recorded at a hole's
//! retransmission while that hole is still unacknowledged, the retransmission was lost: the
//! hole leaves pipe and is sent again at once, with no further window reduction.

use super::cc::CongestionControl;
use super::config::{HalvingBase, Recovery};
use super::scoreboard::SackIndex;
use super::sender::{RtxKind, SentSeg, TcpSender};
use super::timers;
use super::Ctx;
use crate::net::{SackBlocks, TcpHeader};
use crate::sim::Time;
use std::collections::VecDeque;

/// SACK recovery state kept beside the scoreboard.
#[derive(Clone, Debug, Default)]
pub struct SackState {
    /// Sack1/SackPlus: segments believed in flight.
    pub pipe: i64,
    /// One past the highest SACKed byte.
    pub high_sacked: u64,
    /// RFC 6675 HighRxt: one past the highest byte retransmitted in this episode.
    pub high_rxt: u64,
    /// RFC 6675 RescueRxt.
    pub rescue_rxt: u64,
    /// RFC 6675 pipe in bytes (as last computed).
    pub pipe_bytes: u64,
    /// SACKed bytes and the next unSACKed segment, indexed (see [`SackIndex`]).
    pub(crate) index: SackIndex,
    /// Sack1: every segment below this sequence is SACKed or was retransmitted in this
    /// episode (where the search for the next hole resumes).
    pub(crate) hole_from: u64,
    /// SackPlus: (snd_max at the retransmission, segment start) of every retransmission
    /// since the episode began, in the order sent (so by snd_max).
    pub(crate) retransmitted: VecDeque<(u64, u64)>,
    /// RFC 6675: every unSACKed segment ending at or below this boundary is lost (IsLost is
    /// monotone in the position); `above_bytes` / `above_blocks` count the SACKed bytes and
    /// runs of segments starting at or above it.
    pub(crate) lost_to: u64,
    pub(crate) above_bytes: u64,
    pub(crate) above_blocks: u64,
    /// ns-2's Sack1 `timeout_`: after a timeout, duplicate ACKs neither update the
    /// scoreboard nor count until the next new ACK.
    ns2_after_timeout: bool,
}

/// What RFC 6675's NextSeg() chose.
enum Next {
    Retransmit { index: usize, rescue: bool },
    New(u64, u64, bool),
}

impl TcpSender {
    /// Mark segments covered by SACK blocks; returns true if any segment became SACKed.
    /// Newly SACKed segments count as delivered for the rate sampler.
    pub(crate) fn update_scoreboard(&mut self, sb: &SackBlocks, ack: u64, now: Time) -> bool {
        let mut new_info = false;
        let Some(front) = self.rtx.front().map(|s| s.index) else {
            return false;
        };
        let end = front.wrapping_add(self.rtx.len() as u32);
        for k in 0..sb.len() {
            let (left, right) = sb.get(ack, k);
            if right <= self.snd_una {
                continue; // D-SACK or stale
            }
            self.sack.high_sacked = self.sack.high_sacked.max(right);
            let mut i = self.rtx.partition_point(|s| s.start < left);
            loop {
                // Skip what is already SACKed without visiting it again.
                let at = front.wrapping_add(i as u32);
                i = self.sack.index.first_unsacked(at, end).wrapping_sub(front) as usize;
                let Some(seg) = self.rtx.get(i) else { break };
                if seg.end > right {
                    break;
                }
                self.mark_sacked(i, now);
                new_info = true;
                i += 1;
            }
        }
        new_info
    }

    /// Mark the segment at position `i` SACKed and keep the indexes in step.
    fn mark_sacked(&mut self, i: usize, now: Time) {
        let seg = &mut self.rtx[i];
        seg.sacked = true;
        let (index, start, len) = (seg.index, seg.start, seg.end - seg.start);
        if !seg.delivered {
            seg.delivered = true;
            let (sent, snap) = (seg.sent, seg.snap);
            self.rate.on_delivered(len, sent, &snap, now);
        }
        self.sack.index.mark(index, len);
        if start >= self.sack.lost_to {
            // A run of SACKed segments above the frontier: this one starts, extends or
            // joins runs.
            let prev =
                i > 0 && self.rtx[i - 1].sacked && self.rtx[i - 1].start >= self.sack.lost_to;
            let next = self.rtx.get(i + 1).is_some_and(|s| s.sacked);
            self.sack.above_bytes += len;
            self.sack.above_blocks = self.sack.above_blocks + 1 - prev as u64 - next as u64;
        }
        if self.cfg.recovery == Recovery::RackTlp {
            self.rack_delivered(i, now);
        }
    }

    /// Before a cumulative ACK removes segments below `ack`: take their SACKed bytes out of
    /// the index and the counts above the RFC 6675 frontier, and move the frontier up to
    /// `ack`. O(segments removed).
    pub(crate) fn scoreboard_on_ack(&mut self, ack: u64) {
        let (rtx, sack) = (&self.rtx, &mut self.sack);
        for (i, seg) in rtx.iter().enumerate() {
            if seg.start >= ack {
                break;
            }
            if !seg.sacked {
                continue;
            }
            let gone = seg.end.min(ack) - seg.start;
            sack.index.add(seg.index, -(gone as i64));
            if seg.start >= sack.lost_to {
                sack.above_bytes -= gone;
                let run_ends = !rtx.get(i + 1).is_some_and(|s| s.sacked);
                if seg.end <= ack && run_ends {
                    sack.above_blocks -= 1;
                }
            }
        }
        sack.lost_to = sack.lost_to.max(ack);
    }

    /// Move the RFC 6675 frontier past the segment starting at it if that segment is lost
    /// (more than (DupThresh − 1)·SMSS bytes or DupThresh runs SACKed above it). Returns
    /// false when the frontier stays.
    fn pass_lost_frontier(&mut self) -> bool {
        let f = self.sack.lost_to;
        let i = self.rtx.partition_point(|s| s.start < f);
        let Some(seg) = self.rtx.get(i) else {
            return false;
        };
        let len = seg.end - seg.start;
        let ends_run = seg.sacked && !self.rtx.get(i + 1).is_some_and(|s| s.sacked);
        let bytes = self.sack.above_bytes - if seg.sacked { len } else { 0 };
        let blocks = self.sack.above_blocks - ends_run as u64;
        let limit = (self.cfg.dupthresh as u64 - 1) * self.win.mss as u64;
        if bytes > limit || blocks >= self.cfg.dupthresh as u64 {
            self.sack.lost_to = seg.end;
            self.sack.above_bytes = bytes;
            self.sack.above_blocks = blocks;
            return true;
        }
        false
    }

    /// RFC 6675 IsLost() for an unSACKed segment.
    #[inline]
    pub(crate) fn is_lost(&self, seg: &SentSeg) -> bool {
        !seg.sacked && seg.end <= self.sack.lost_to
    }

    /// Bytes SACKed above snd_una (for the trace).
    pub(crate) fn sacked_bytes(&self) -> u64 {
        self.rtx
            .front()
            .map_or(0, |f| self.sack.index.sacked_in(f.index, self.rtx.len()))
    }

    /// Bytes of unSACKed segments starting below `x` (whole segments).
    pub(crate) fn unsacked_below(&self, x: u64) -> u64 {
        let k = self.rtx.partition_point(|s| s.start < x);
        if k == 0 {
            return 0;
        }
        let all = self.rtx[k - 1].end - self.rtx[0].start;
        all - self.sack.index.sacked_in(self.rtx[0].index, k)
    }

    /// pipe in segments, as the trace reports it.
    pub(crate) fn pipe_segments(&self) -> f64 {
        match self.cfg.recovery {
            Recovery::Sack1 | Recovery::SackPlus if self.in_recovery => self.sack.pipe as f64,
            Recovery::Rfc6675 | Recovery::RackTlp if self.in_recovery => {
                self.sack.pipe_bytes as f64 / self.win.mss as f64
            }
            _ => self.flight_segments() as f64,
        }
    }

    fn clear_episode_marks(&mut self, keep_sacked: bool) {
        for seg in self.rtx.iter_mut() {
            seg.rtx_episode = false;
            seg.rtx_lost_seen = false;
            if !keep_sacked {
                seg.sacked = false;
            }
        }
        self.sack.hole_from = 0;
        self.sack.retransmitted.clear();
        self.rack_clear_episode();
        if !keep_sacked {
            self.sack.high_sacked = 0;
            self.sack.index.clear(self.rtx.iter().map(|s| s.index));
            self.sack.lost_to = self.snd_una;
            self.sack.above_bytes = 0;
            self.sack.above_blocks = 0;
        }
    }

    /// ACK processing for the SACK-based variants.
    pub(crate) fn sack_on_ack(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        let variant = self.cfg.recovery;
        let sack1 = matches!(variant, Recovery::Sack1 | Recovery::SackPlus);
        if sack1 && self.win.ns2 && !self.in_recovery {
            self.ns2_sack1_on_ack(p, ctx);
            return;
        }
        let new_info = !p.sack.is_empty() && self.update_scoreboard(&p.sack, p.ack, ctx.now);
        if p.ack > self.snd_una {
            // A partial ACK takes two from Sack1's pipe, before congestion control sees it.
            if sack1 && self.in_recovery && p.ack < self.recover {
                self.sack.pipe -= 2;
            }
            if variant == Recovery::RackTlp {
                self.rack_on_cumulative(p.ack, ctx.now);
            }
            let info = self.ack_advance(p, ctx);
            if self.in_recovery {
                if p.ack >= self.recover {
                    // Everything outstanding at the fast retransmit is acknowledged.
                    self.in_recovery = false;
                    // ns-2's Sack1 leaves cwnd_ at the halved window (with its fraction) and
                    // does not open it on this ACK.
                    let ns2_sack1 = self.win.ns2 && sack1;
                    if !self.cc.owns_window() && !ns2_sack1 {
                        self.win.set_cwnd(self.win.ssthresh);
                    }
                    if ns2_sack1 {
                        // ns-2's Sack1 sets recover_ = 0 here: the next three duplicate
                        // ACKs may start a fast retransmit at once.
                        self.recover = 0;
                    }
                    self.clear_episode_marks(!sack1); // ns-2 Sack1 clears its scoreboard
                    if !self.finish_ack(true, ctx) {
                        self.try_send(ctx);
                    }
                    return;
                }
                // Partial ACK.
                if variant == Recovery::SackPlus {
                    self.detect_lost_retransmissions(&p.sack, p.ack);
                }
                if self.finish_ack(true, ctx) {
                    return;
                }
                self.sack_send(ctx);
            } else {
                self.cc.on_ack(&mut self.win, &info);
                if self.finish_ack(true, ctx) {
                    return;
                }
                // RACK: a cumulative ACK can show earlier segments lost too.
                if variant == Recovery::RackTlp
                    && self.rack_detect_loss(ctx)
                    && self.fast_retransmit_allowed()
                {
                    self.sack_enter(ctx);
                } else {
                    self.try_send(ctx);
                }
            }
            return;
        }
        if !self.is_dupack(p) {
            self.try_send(ctx); // window update
            return;
        }
        self.stats.dupacks += 1;
        if self.in_recovery && sack1 {
            self.sack.pipe -= 1;
        }
        self.observe_duplicate(ctx.now);
        if self.in_recovery {
            if variant == Recovery::SackPlus {
                self.detect_lost_retransmissions(&p.sack, p.ack);
            }
            self.sack_send(ctx);
            return;
        }
        // RFC 6675 counts a duplicate ACK only when it SACKs new data; Sack1 counts them all.
        let counts = sack1 || new_info;
        if counts {
            self.dupacks += 1;
        }
        let first_lost = variant == Recovery::Rfc6675 && {
            self.mark_lost();
            self.rtx.front().is_some_and(|s| self.is_lost(s))
        };
        let threshold = if variant == Recovery::RackTlp {
            // RACK replaces the duplicate-ACK count: a segment judged lost by time.
            self.rack_detect_loss(ctx)
        } else if sack1 {
            self.dupacks == self.cfg.dupthresh && counts
        } else {
            self.dupacks >= self.cfg.dupthresh || first_lost
        };
        if threshold && self.fast_retransmit_allowed() {
            self.sack_enter(ctx);
        } else if counts && self.dupacks < self.cfg.dupthresh && self.cfg.limited_transmit {
            self.lt_segments = self.dupacks.min(2);
            self.try_send(ctx);
        }
    }

    /// ns-2's Sack1 outside fast recovery (`cwnd_unit = "ns2"`): a new ACK opens cwnd and
    /// clears the scoreboard (its own SACK blocks are not read); a duplicate ACK counts only
    /// when its blocks add to the scoreboard, and not at all between a timeout and the next
    /// new ACK; the sender tries to send only while no duplicate ACK is counted.
    fn ns2_sack1_on_ack(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        if p.ack > self.snd_una {
            let info = self.ack_advance(p, ctx);
            self.cc.on_ack(&mut self.win, &info);
            self.sack.ns2_after_timeout = false;
            if self.sack.high_sacked > self.snd_una {
                self.clear_episode_marks(false);
            }
            if !self.finish_ack(true, ctx) {
                self.try_send(ctx);
            }
            return;
        }
        if self.is_dupack(p) {
            self.stats.dupacks += 1;
            self.observe_duplicate(ctx.now);
            let changed = !self.sack.ns2_after_timeout
                && !p.sack.is_empty()
                && self.update_scoreboard(&p.sack, p.ack, ctx.now);
            if changed {
                self.dupacks += 1;
                if self.dupacks == self.cfg.dupthresh {
                    if self.fast_retransmit_allowed() {
                        self.sack_enter(ctx);
                    }
                } else if self.dupacks < self.cfg.dupthresh && self.cfg.limited_transmit {
                    self.lt_segments = self.dupacks.min(2);
                    self.try_send(ctx);
                }
            }
        }
        if self.dupacks == 0 {
            self.try_send(ctx);
        }
    }

    pub(crate) fn sack_enter(&mut self, ctx: &mut Ctx) {
        self.stats.fast_retransmits += 1;
        self.lt_segments = 0;
        let base = match self.cfg.halving_base {
            HalvingBase::Pipe if self.cfg.recovery == Recovery::Rfc6675 => self.ns3_pipe(),
            _ => self.reduction_base(),
        };
        self.win.ssthresh = self.cc.ssthresh_on_loss(&self.win, base);
        if !self.cc.owns_window() {
            self.win.halve(base, 0);
        }
        self.win.cnt = 0;
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.clear_episode_marks(true);
        match self.cfg.recovery {
            Recovery::RackTlp => {
                // The lowest segment RACK marked lost leaves at once, whatever the pipe (RFC
                // 6675 step 4.3); NextSeg sends the others.
                self.sack.rescue_rxt = u64::MAX;
                if let Some(i) = self.next_hole().filter(|&i| self.is_lost(&self.rtx[i])) {
                    self.retransmit_index(i, ctx);
                    self.sack.high_rxt = self.rtx[i].end;
                }
                self.sack.pipe_bytes = self.rack_pipe();
            }
            Recovery::Rfc6675 => {
                self.retransmit_index(0, ctx);
                let end = self.rtx[0].end;
                self.sack.high_rxt = end;
                self.sack.rescue_rxt = end;
                self.mark_lost();
                self.sack.pipe_bytes = self.set_pipe();
            }
            _ => {
                // ns-2: maxseq_ − highest_ack_ − 3, every segment sent (also during a
                // go-back-N), and nothing more is sent on this ACK.
                let outstanding = if self.win.ns2 {
                    self.rtx.len() as i64
                } else {
                    self.flight_segments() as i64
                };
                self.sack.pipe = outstanding - self.cfg.dupthresh as i64;
                self.retransmit_index(0, ctx);
                if self.win.ns2 {
                    self.restart_rto(ctx);
                    return;
                }
            }
        }
        self.restart_rto(ctx);
        self.sack_send(ctx);
    }

    /// Retransmit the segment at `index` of the queue as a fast-recovery retransmission.
    fn retransmit_index(&mut self, index: usize, ctx: &mut Ctx) {
        if self.ful.frozen {
            return;
        }
        let seg: SentSeg = self.rtx[index];
        self.resend(seg, ctx);
        self.rtx[index].rtx_episode = true;
        if self.cfg.recovery == Recovery::RackTlp {
            self.rack_retransmitted(index, ctx.now);
        }
    }

    /// Send a queued segment again, as a fast retransmission (its FIN with it).
    pub(crate) fn resend(&mut self, seg: SentSeg, ctx: &mut Ctx) {
        let fin = self.finite && seg.end == self.app_end + 1;
        self.send_segment(
            seg.start,
            seg.end - seg.start - fin as u64,
            fin,
            Some(RtxKind::Fast),
            ctx,
        );
    }

    /// Sack1's next hole: the lowest unSACKed segment below the highest SACK that has not
    /// been retransmitted in this episode. Resumes where the last search stopped.
    fn next_hole(&mut self) -> Option<usize> {
        let front = self.rtx.front()?.index;
        let end = front.wrapping_add(self.rtx.len() as u32);
        let from = self.sack.hole_from;
        let mut i = self.rtx.partition_point(|s| s.start < from);
        loop {
            let at = front.wrapping_add(i as u32);
            i = self.sack.index.first_unsacked(at, end).wrapping_sub(front) as usize;
            let seg = self.rtx.get(i)?;
            self.sack.hole_from = seg.start;
            if seg.end > self.sack.high_sacked {
                return None;
            }
            if !seg.rtx_episode {
                return Some(i);
            }
            i += 1;
        }
    }

    /// SackPlus: a retransmitted hole whose recorded snd_max lies below the first SACK block's
    /// right edge was lost again: it leaves the pipe and becomes eligible at once.
    fn detect_lost_retransmissions(&mut self, sb: &SackBlocks, ack: u64) {
        if sb.is_empty() {
            return;
        }
        let first_right = sb.get(ack, 0).1;
        let once = self.cfg.sackplus_detect_once;
        while let Some(&(high, start)) = self.sack.retransmitted.front() {
            if high >= first_right {
                break;
            }
            self.sack.retransmitted.pop_front();
            let i = self.rtx.partition_point(|s| s.end <= start);
            let Some(seg) = self.rtx.get_mut(i) else {
                continue;
            };
            // Still outstanding, not SACKed, and this entry is its latest retransmission.
            if seg.start <= start
                && seg.rtx_episode
                && !seg.sacked
                && seg.rtx_high == high
                && !(once && seg.rtx_lost_seen)
            {
                seg.rtx_episode = false;
                seg.rtx_lost_seen = true;
                let s = seg.start;
                self.sack.pipe -= 1;
                self.stats.lost_retransmissions_detected += 1;
                self.sack.hole_from = self.sack.hole_from.min(s);
            }
        }
    }

    /// Send while the variant's pipe test allows (after the application's writes, if it
    /// writes in pieces).
    #[inline]
    pub(crate) fn sack_send(&mut self, ctx: &mut Ctx) {
        self.write_and_send(ctx, Self::sack_send_loop);
    }

    fn sack_send_loop(&mut self, ctx: &mut Ctx) {
        if self.ful.frozen {
            return;
        }
        match self.cfg.recovery {
            Recovery::Rfc6675 => {
                self.mark_lost();
                self.sack.pipe_bytes = self.set_pipe();
            }
            Recovery::RackTlp if self.in_recovery => {
                self.rack_detect_loss(ctx);
                self.sack.pipe_bytes = self.rack_pipe();
            }
            _ => {}
        }
        let mss = self.win.mss as u64;
        let mut burst = 0u32;
        loop {
            if self.cfg.maxburst.is_some_and(|m| burst >= m) {
                break;
            }
            burst += 1;
            match self.cfg.recovery {
                Recovery::Rfc6675 | Recovery::RackTlp => {
                    if self.win.cwnd < self.sack.pipe_bytes + mss || self.paced_out(ctx) {
                        break;
                    }
                    let next = if self.cfg.recovery == Recovery::RackTlp {
                        self.rack_next_seg()
                    } else {
                        self.next_seg()
                    };
                    let sent = match next {
                        Some(Next::Retransmit { index, rescue }) => {
                            self.retransmit_index(index, ctx);
                            let seg = self.rtx[index];
                            if rescue {
                                self.sack.rescue_rxt = self.recover;
                            } else {
                                self.sack.high_rxt = seg.end;
                            }
                            seg.end - seg.start
                        }
                        Some(Next::New(start, len, fin)) => {
                            self.send_segment(start, len, fin, None, ctx);
                            self.snd_nxt = start + len + fin as u64;
                            len.max(1)
                        }
                        None => break,
                    };
                    self.sack.pipe_bytes += sent;
                }
                _ => {
                    if self.sack.pipe >= self.win.segments() as i64 || self.paced_out(ctx) {
                        break;
                    }
                    if let Some(i) = self.next_hole() {
                        self.retransmit_index(i, ctx);
                    } else if let Some((start, len, fin)) = self.next_new_segment() {
                        self.send_segment(start, len, fin, None, ctx);
                        self.snd_nxt = start + len + fin as u64;
                    } else {
                        break;
                    }
                    self.sack.pipe += 1;
                }
            }
        }
        if !self.rto_timer.is_set() && self.snd_max > self.snd_una {
            self.rto_timer
                .set(ctx.now + self.rtt.rto(), self.flow, timers::RTO, ctx.events);
        }
    }

    /// RFC 6675 IsLost() for every unSACKed segment: lost if more than (DupThresh − 1)·SMSS
    /// bytes, or DupThresh discontiguous blocks, are SACKed above it. Both counts only fall
    /// with the position, so the lost segments are those below a frontier, which only moves
    /// up as SACKs arrive: amortised O(1) per ACK.
    fn mark_lost(&mut self) {
        while self.pass_lost_frontier() {}
    }

    /// ns-3's BytesInFlight() as fast recovery starts (`HalvingBase::Pipe`): the unSACKed
    /// data below snd_nxt less what RFC 6675's IsLost() marks lost, the head at least.
    fn ns3_pipe(&mut self) -> u64 {
        self.mark_lost();
        let nxt = self.snd_nxt;
        let head_end = self.rtx.front().map_or(nxt, |s| s.end);
        let lost_to = self.sack.lost_to.max(head_end).min(nxt);
        self.unsacked_below(nxt) - self.unsacked_below(lost_to)
    }

    /// RFC 6675 SetPipe(): bytes believed in flight: each unSACKed segment below snd_nxt counts
    /// once unless lost, and once more if retransmitted (below HighRxt).
    pub(crate) fn set_pipe(&self) -> u64 {
        let nxt = self.snd_nxt;
        self.unsacked_below(nxt) - self.unsacked_below(self.sack.lost_to.min(nxt))
            + self.unsacked_below(self.sack.high_rxt.min(nxt))
    }

    /// The first unSACKed segment starting at or above `x`.
    fn first_unsacked_from(&mut self, x: u64) -> Option<usize> {
        let front = self.rtx.front()?.index;
        let end = front.wrapping_add(self.rtx.len() as u32);
        let i = self.rtx.partition_point(|s| s.start < x);
        let at = front.wrapping_add(i as u32);
        let i = self.sack.index.first_unsacked(at, end).wrapping_sub(front) as usize;
        (i < self.rtx.len()).then_some(i)
    }

    /// RFC 6675 NextSeg().
    fn next_seg(&mut self) -> Option<Next> {
        // The first unSACKed segment above HighRxt is the only candidate for (1) and (3):
        // lost segments all lie below the frontier.
        let candidate = self
            .first_unsacked_from(self.sack.high_rxt)
            .filter(|&i| self.rtx[i].end <= self.sack.high_sacked);
        // (1) the lowest lost segment above HighRxt below the highest SACK.
        if let Some(i) = candidate.filter(|&i| self.is_lost(&self.rtx[i])) {
            return Some(Next::Retransmit {
                index: i,
                rescue: false,
            });
        }
        // (2) new data.
        if let Some((start, len, fin)) = self.next_new_segment() {
            return Some(Next::New(start, len, fin));
        }
        // (3) an unSACKed segment above HighRxt below the highest SACK, not yet deemed lost.
        if let Some(i) = candidate {
            return Some(Next::Retransmit {
                index: i,
                rescue: false,
            });
        }
        // (4) one rescue retransmission per episode of the highest outstanding unSACKed
        // segment, once the cumulative ACK has passed RescueRxt.
        if self.snd_una > self.sack.rescue_rxt {
            let below = self.rtx.partition_point(|s| s.start < self.recover);
            if let Some(i) = self.rtx.range(..below).rposition(|s| !s.sacked) {
                return Some(Next::Retransmit {
                    index: i,
                    rescue: true,
                });
            }
        }
        None
    }

    /// RACK-TLP's NextSeg: the lowest segment RACK marked lost and not retransmitted since,
    /// else new data (RFC 6675's rules 3 and 4 are left to the tail loss probe).
    fn rack_next_seg(&mut self) -> Option<Next> {
        if let Some(i) = self.next_hole().filter(|&i| self.is_lost(&self.rtx[i])) {
            return Some(Next::Retransmit {
                index: i,
                rescue: false,
            });
        }
        self.next_new_segment()
            .map(|(start, len, fin)| Next::New(start, len, fin))
    }

    /// After a retransmission timeout: Sack1 clears its scoreboard (ns-2); RFC 6675 keeps the
    /// SACKed marks so the go-back-N restart skips data the receiver already holds.
    pub(crate) fn sack_on_timeout(&mut self) {
        let keep = matches!(self.cfg.recovery, Recovery::Rfc6675 | Recovery::RackTlp);
        if self.cfg.recovery == Recovery::RackTlp {
            self.rack_on_timeout();
        }
        self.sack.ns2_after_timeout = self.win.ns2 && !keep;
        self.clear_episode_marks(keep);
        self.sack.high_rxt = self.snd_una;
        self.sack.pipe = 0;
    }
}

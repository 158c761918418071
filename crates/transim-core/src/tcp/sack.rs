//! The SACK scoreboard shared by the SACK-based recovery schemes ([`super::recovery`]).
//!
//! The scoreboard lives in the sender's retransmission queue: each `SentSeg` carries its
//! SACKed mark, whether it was retransmitted in the current recovery episode and, for
//! SackPlus, the highest sequence sent when it was retransmitted. [`SackState`] keeps the
//! counts beside it: the SACKed bytes indexed ([`SackIndex`]), the highest SACK, RFC 6675's
//! lost frontier (IsLost() holds below it; RACK moves it too), and the per-scheme counters
//! (Sack1's packet pipe, RFC 6675's HighRxt / RescueRxt / pipe, SackPlus's record of
//! retransmissions).

use super::scoreboard::SackIndex;
use super::sender::{RtxKind, SentSeg, TcpSender};
use super::Ctx;
use crate::net::SackBlocks;
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
    pub(crate) ns2_after_timeout: bool,
    /// RFC 6675 and RACK: segments marked lost so far (whether an ACK marked any).
    pub(crate) marked_lost: u64,
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
            let mut i = self.rtx_first_from(left);
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

    /// A D-SACK block (RFC 2883) reported [left, right) received twice: a spurious
    /// retransmission (counted; RACK-TLP learns whether its probe was needed).
    pub(crate) fn on_dsack(&mut self, dup: (u64, u64), ack: u64) {
        self.stats.dsacks += 1;
        if self.cfg.recovery.probes_tail() {
            self.rack_on_dsack(dup, ack);
        }
        if self.cfg.undo {
            let mss = self.win.mss as u64;
            let segments = (dup.1 - dup.0).div_ceil(mss);
            let (cwnd, ssthresh) = (self.win.cwnd, self.win.ssthresh);
            if let Some((c, t)) = self.undo.on_dsack(dup.0, segments, cwnd, ssthresh) {
                self.win.set_cwnd(c);
                self.win.ssthresh = t;
            }
        }
    }

    /// Mark the segment at position `i` SACKed and keep the indexes in step.
    fn mark_sacked(&mut self, i: usize, now: Time) {
        let seg = &mut self.rtx[i];
        seg.sacked = true;
        let (index, start, len) = (seg.index, seg.start, seg.end - seg.start);
        if !seg.delivered {
            seg.delivered = true;
            let sent = seg.sent;
            self.rate.on_delivered(i, len, sent, now);
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
        self.recovery_on_sacked(i, now);
    }

    /// Before a cumulative ACK removes segments below `ack`: take their SACKed bytes out of
    /// the index and the counts above the RFC 6675 frontier, and move the frontier up to
    /// `ack`. Returns those bytes: the part of the ACK that SACKs had already reported
    /// delivered. O(segments removed).
    pub(crate) fn scoreboard_on_ack(&mut self, ack: u64) -> u64 {
        let (rtx, sack) = (&self.rtx, &mut self.sack);
        let mut covered = 0;
        for (i, seg) in rtx.iter().enumerate() {
            if seg.start >= ack {
                break;
            }
            if !seg.sacked {
                continue;
            }
            let gone = seg.end.min(ack) - seg.start;
            covered += gone;
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
        covered
    }

    /// RFC 6675 IsLost() for an unSACKed segment.
    #[inline]
    pub(crate) fn is_lost(&self, seg: &SentSeg) -> bool {
        !seg.sacked && seg.end <= self.sack.lost_to
    }

    /// Bytes SACKed above snd_una (for the trace).
    pub(crate) fn sacked_bytes(&self) -> u64 {
        self.sack.index.total()
    }

    /// Bytes of unSACKed segments starting below `x` (whole segments).
    pub(crate) fn unsacked_below(&self, x: u64) -> u64 {
        let k = self.rtx_first_from(x);
        if k == 0 {
            return 0;
        }
        let all = self.rtx[k - 1].end - self.rtx[0].start;
        let sacked = if k == self.rtx.len() {
            self.sack.index.total()
        } else {
            self.sack.index.sacked_in(self.rtx[0].index, k)
        };
        all - sacked
    }

    /// A recovery episode begins or ends, or a timeout: forget which segments this episode
    /// retransmitted and, unless `keep_sacked`, the SACKed marks.
    pub(crate) fn clear_episode_marks(&mut self, keep_sacked: bool) {
        for seg in self.rtx.iter_mut() {
            seg.rtx_episode = false;
            seg.rtx_lost_seen = false;
            if !keep_sacked {
                seg.sacked = false;
            }
        }
        self.sack.hole_from = 0;
        self.sack.retransmitted.clear();
        if !keep_sacked {
            self.sack.high_sacked = 0;
            self.sack.index.clear(self.rtx.iter().map(|s| s.index));
            self.sack.lost_to = self.snd_una;
            self.sack.above_bytes = 0;
            self.sack.above_blocks = 0;
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
    pub(crate) fn next_hole(&mut self) -> Option<usize> {
        let front = self.rtx.front()?.index;
        let end = front.wrapping_add(self.rtx.len() as u32);
        let from = self.sack.hole_from;
        let mut i = self.rtx_first_from(from);
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

    /// The first unSACKed segment starting at or above `x`.
    pub(crate) fn first_unsacked_from(&mut self, x: u64) -> Option<usize> {
        let front = self.rtx.front()?.index;
        let end = front.wrapping_add(self.rtx.len() as u32);
        let i = self.rtx_first_from(x);
        let at = front.wrapping_add(i as u32);
        let i = self.sack.index.first_unsacked(at, end).wrapping_sub(front) as usize;
        (i < self.rtx.len()).then_some(i)
    }

    /// After a retransmission timeout: Sack1 clears its scoreboard (ns-2); RFC 6675 keeps the
    /// SACKed marks (`keep_sacked`) so the go-back-N restart skips data the receiver already
    /// holds.
    pub(crate) fn sack_on_timeout(&mut self, keep_sacked: bool) {
        self.sack.ns2_after_timeout = self.win.ns2 && !keep_sacked;
        self.clear_episode_marks(keep_sacked);
        self.sack.high_rxt = self.snd_una;
        self.sack.pipe = 0;
    }
}

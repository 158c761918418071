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
use super::config::Recovery;
use super::sender::{RtxKind, SentSeg, TcpSender};
use super::timers;
use super::Ctx;
use crate::net::header::tcp::flags;
use crate::net::{SackBlocks, TcpHeader};
use crate::sim::Time;

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
        for k in 0..sb.len() {
            let (left, right) = sb.get(ack, k);
            if right <= self.snd_una {
                continue; // D-SACK or stale
            }
            self.sack.high_sacked = self.sack.high_sacked.max(right);
            let mut i = self.rtx.partition_point(|s| s.start < left);
            while let Some(seg) = self.rtx.get_mut(i) {
                if seg.end > right {
                    break;
                }
                if !seg.sacked {
                    seg.sacked = true;
                    new_info = true;
                    if !seg.delivered {
                        seg.delivered = true;
                        self.rate
                            .on_delivered(seg.end - seg.start, seg.sent, &seg.snap, now);
                    }
                }
                i += 1;
            }
        }
        new_info
    }

    /// Bytes SACKed above snd_una (for the trace).
    pub(crate) fn sacked_bytes(&self) -> u64 {
        self.rtx
            .iter()
            .filter(|s| s.sacked)
            .map(|s| s.end - s.start)
            .sum()
    }

    /// pipe in segments, as the trace reports it.
    pub(crate) fn pipe_segments(&self) -> f64 {
        match self.cfg.recovery {
            Recovery::Sack1 | Recovery::SackPlus if self.in_recovery => self.sack.pipe as f64,
            Recovery::Rfc6675 if self.in_recovery => {
                self.sack.pipe_bytes as f64 / self.win.mss as f64
            }
            _ => self.flight_segments() as f64,
        }
    }

    fn clear_episode_marks(&mut self, keep_sacked: bool) {
        for seg in self.rtx.iter_mut() {
            seg.rtx_episode = false;
            seg.lost = false;
            if !keep_sacked {
                seg.sacked = false;
            }
        }
        if !keep_sacked {
            self.sack.high_sacked = 0;
        }
    }

    /// ACK processing for the SACK-based variants.
    pub(crate) fn sack_on_ack(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        let new_info = !p.sack.is_empty() && self.update_scoreboard(&p.sack, p.ack, ctx.now);
        let variant = self.cfg.recovery;
        let sack1 = matches!(variant, Recovery::Sack1 | Recovery::SackPlus);
        if p.ack > self.snd_una {
            // A partial ACK takes two from Sack1's pipe, before congestion control sees it.
            if sack1 && self.in_recovery && p.ack < self.recover {
                self.sack.pipe -= 2;
            }
            let info = self.ack_advance(p, ctx);
            if self.in_recovery {
                if p.ack >= self.recover {
                    // Everything outstanding at the fast retransmit is acknowledged.
                    self.in_recovery = false;
                    if !self.cc.owns_window() {
                        self.win.cwnd = self.win.ssthresh;
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
                if !self.finish_ack(true, ctx) {
                    self.try_send(ctx);
                }
            }
            return;
        }
        let dup = p.ack == self.snd_una
            && p.len == 0
            && !p.has(flags::FIN)
            && self.snd_max > self.snd_una;
        if !dup {
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
            self.rtx.front().is_some_and(|s| s.lost)
        };
        let threshold = if sack1 {
            self.dupacks == self.cfg.dupthresh && counts
        } else {
            self.dupacks >= self.cfg.dupthresh || first_lost
        };
        if threshold && self.snd_una >= self.recover {
            self.sack_enter(ctx);
        } else if counts && self.dupacks < self.cfg.dupthresh && self.cfg.limited_transmit {
            self.lt_segments = self.dupacks.min(2);
            self.try_send(ctx);
        }
    }

    fn sack_enter(&mut self, ctx: &mut Ctx) {
        self.stats.fast_retransmits += 1;
        self.lt_segments = 0;
        self.win.ssthresh = self.cc.ssthresh_on_loss(&self.win, self.reduction_base());
        if !self.cc.owns_window() {
            self.win.cwnd = self.win.ssthresh;
        }
        self.win.cnt = 0;
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.clear_episode_marks(true);
        match self.cfg.recovery {
            Recovery::Rfc6675 => {
                self.retransmit_index(0, ctx);
                let end = self.rtx[0].end;
                self.sack.high_rxt = end;
                self.sack.rescue_rxt = end;
                self.mark_lost();
                self.sack.pipe_bytes = self.set_pipe();
            }
            _ => {
                self.sack.pipe = self.flight_segments() as i64 - self.cfg.dupthresh as i64;
                self.retransmit_index(0, ctx);
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
        let fin = self.finite && seg.end == self.app_end + 1;
        self.send_segment(
            seg.start,
            seg.end - seg.start - fin as u64,
            fin,
            Some(RtxKind::Fast),
            ctx,
        );
        self.rtx[index].rtx_episode = true;
    }

    /// Sack1's next hole: the lowest unSACKed segment below the highest SACK that has not
    /// been retransmitted in this episode.
    fn next_hole(&self) -> Option<usize> {
        self.rtx
            .iter()
            .take_while(|s| s.end <= self.sack.high_sacked)
            .position(|s| !s.sacked && !s.rtx_episode)
    }

    /// SackPlus: a retransmitted hole whose recorded snd_max lies below the first SACK block's
    /// right edge was lost again: it leaves the pipe and becomes eligible at once.
    fn detect_lost_retransmissions(&mut self, sb: &SackBlocks, ack: u64) {
        if sb.is_empty() {
            return;
        }
        let first_right = sb.get(ack, 0).1;
        for seg in self.rtx.iter_mut() {
            if seg.rtx_episode && !seg.sacked && seg.rtx_high < first_right {
                seg.rtx_episode = false;
                self.sack.pipe -= 1;
                self.stats.lost_retransmissions_detected += 1;
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
        if self.cfg.recovery == Recovery::Rfc6675 {
            self.mark_lost();
            self.sack.pipe_bytes = self.set_pipe();
        }
        let mss = self.win.mss as u64;
        loop {
            match self.cfg.recovery {
                Recovery::Rfc6675 => {
                    if self.win.cwnd < self.sack.pipe_bytes + mss || self.paced_out(ctx) {
                        break;
                    }
                    let sent = match self.next_seg() {
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

    /// RFC 6675 IsLost() for every unSACKed segment, in one pass from the top: lost if more
    /// than (DupThresh − 1)·SMSS bytes, or DupThresh discontiguous blocks, are SACKed above it.
    fn mark_lost(&mut self) {
        let limit = (self.cfg.dupthresh as u64 - 1) * self.win.mss as u64;
        let dupthresh = self.cfg.dupthresh as u64;
        let (mut bytes_above, mut blocks_above, mut in_block) = (0u64, 0u64, false);
        for seg in self.rtx.iter_mut().rev() {
            if seg.sacked {
                bytes_above += seg.end - seg.start;
                if !in_block {
                    blocks_above += 1;
                    in_block = true;
                }
            } else {
                in_block = false;
                seg.lost = bytes_above > limit || blocks_above >= dupthresh;
            }
        }
    }

    /// RFC 6675 SetPipe(): bytes believed in flight.
    pub(crate) fn set_pipe(&self) -> u64 {
        let mut pipe = 0;
        for seg in self
            .rtx
            .iter()
            .filter(|s| !s.sacked && s.start < self.snd_nxt)
        {
            let len = seg.end - seg.start;
            if !seg.lost {
                pipe += len;
            }
            if seg.start < self.sack.high_rxt {
                pipe += len;
            }
        }
        pipe
    }

    /// RFC 6675 NextSeg().
    fn next_seg(&self) -> Option<Next> {
        let high_rxt = self.sack.high_rxt;
        let candidates = || {
            self.rtx.iter().enumerate().filter(move |(_, s)| {
                s.start >= high_rxt && !s.sacked && s.end <= self.sack.high_sacked
            })
        };
        // (1) the lowest lost segment above HighRxt below the highest SACK.
        if let Some((i, _)) = candidates().find(|(_, s)| s.lost) {
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
        if let Some((i, _)) = candidates().next() {
            return Some(Next::Retransmit {
                index: i,
                rescue: false,
            });
        }
        // (4) one rescue retransmission per episode of the highest outstanding unSACKed
        // segment, once the cumulative ACK has passed RescueRxt.
        if self.snd_una > self.sack.rescue_rxt {
            if let Some(i) = self
                .rtx
                .iter()
                .rposition(|s| !s.sacked && s.start < self.recover)
            {
                return Some(Next::Retransmit {
                    index: i,
                    rescue: true,
                });
            }
        }
        None
    }

    /// After a retransmission timeout: Sack1 clears its scoreboard (ns-2); RFC 6675 keeps the
    /// SACKed marks so the go-back-N restart skips data the receiver already holds.
    pub(crate) fn sack_on_timeout(&mut self) {
        let keep = self.cfg.recovery == Recovery::Rfc6675;
        self.clear_episode_marks(keep);
        self.sack.high_rxt = self.snd_una;
        self.sack.pipe = 0;
    }
}

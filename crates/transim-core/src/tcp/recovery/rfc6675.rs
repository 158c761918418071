//! RFC 6675 conservative SACK-based loss recovery: a duplicate ACK counts only when it SACKs
//! new data; recovery starts at DupThresh of them or when IsLost() holds for the first
//! segment; pipe (SetPipe) counts each unSACKed segment below snd_nxt once unless lost and
//! once more if retransmitted; NextSeg() sends lost segments, then new data, then unSACKed
//! segments not yet deemed lost, then one rescue retransmission per episode. The SACKed marks
//! survive a timeout, so the go-back-N restart skips what the receiver holds.
//!
//! IsLost() is monotone in the position: the lost segments are those below a frontier
//! (`SackState::lost_to`) that only moves up as SACKs arrive, so marking is amortised O(1)
//! per ACK.

use super::sack_flow::{self, retransmit, send_new};
use super::{LossRecovery, SackRecovery};
use crate::net::TcpHeader;
use crate::tcp::cc::CongestionControl;
use crate::tcp::config::HalvingBase;
use crate::tcp::sender::TcpSender;
use crate::tcp::Ctx;

/// RFC 6675 (marker type).
pub(crate) struct Rfc6675;

impl LossRecovery for Rfc6675 {
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
        sack_flow::on_ack::<Self>(s, p, ctx);
    }

    #[inline]
    fn pipe(s: &TcpSender) -> u64 {
        if s.in_recovery {
            s.set_pipe()
        } else {
            s.flight()
        }
    }

    fn pipe_segments(s: &TcpSender) -> f64 {
        pipe_segments(s)
    }

    fn send(s: &mut TcpSender, ctx: &mut Ctx) {
        sack_flow::send_now::<Self>(s, ctx);
    }

    fn on_timeout(s: &mut TcpSender) {
        s.sack_on_timeout(true);
    }
}

impl SackRecovery for Rfc6675 {
    fn dupack_counts(new_info: bool) -> bool {
        new_info
    }

    fn should_enter(s: &mut TcpSender, _counts: bool, _ctx: &mut Ctx) -> bool {
        s.mark_lost();
        let first_lost = s.rtx.front().is_some_and(|g| s.is_lost(g));
        s.dupacks >= s.cfg.dupthresh || first_lost
    }

    fn halving_base(s: &mut TcpSender) -> u64 {
        match s.cfg.halving_base {
            HalvingBase::Pipe => s.ns3_pipe(),
            _ => s.reduction_base(),
        }
    }

    fn start_episode(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        retransmit::<Self>(s, 0, ctx);
        let end = s.rtx[0].end;
        s.sack.high_rxt = end;
        s.sack.rescue_rxt = end;
        s.mark_lost();
        s.sack.pipe_bytes = s.set_pipe();
        true
    }

    fn exit(s: &mut TcpSender) {
        exit(s);
    }

    fn before_send(s: &mut TcpSender, _ctx: &mut Ctx) {
        s.mark_lost();
        s.sack.pipe_bytes = s.set_pipe();
    }

    fn send_one(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        send_one::<Self>(s, ctx, next_seg)
    }
}

/// pipe in segments (for the trace): the last pipe computed, in recovery.
pub(crate) fn pipe_segments(s: &TcpSender) -> f64 {
    if s.in_recovery {
        s.sack.pipe_bytes as f64 / s.win.mss as f64
    } else {
        s.flight_segments() as f64
    }
}

/// The end of recovery: cwnd = ssthresh; the SACKed marks stay.
pub(crate) fn exit(s: &mut TcpSender) {
    if !s.cc.owns_window() {
        s.win.set_cwnd(s.win.ssthresh);
    }
    s.clear_episode_marks(true);
}

/// What NextSeg() chose.
pub(crate) enum Next {
    /// Retransmit the segment at this queue position (the rescue retransmission or not).
    Retransmit { index: usize, rescue: bool },
    /// Send this segment of new data (start, length, FIN).
    New((u64, u64, bool)),
}

/// One segment if cwnd − pipe admits a whole one: the one `next` chooses.
pub(crate) fn send_one<R: SackRecovery>(
    s: &mut TcpSender,
    ctx: &mut Ctx,
    next: fn(&mut TcpSender) -> Option<Next>,
) -> bool {
    let mss = s.win.mss as u64;
    if s.win.cwnd < s.sack.pipe_bytes + mss || s.paced_out(ctx) {
        return false;
    }
    let sent = match next(s) {
        Some(Next::Retransmit { index, rescue }) => {
            retransmit::<R>(s, index, ctx);
            let seg = s.rtx[index];
            if rescue {
                s.sack.rescue_rxt = s.recover;
            } else {
                s.sack.high_rxt = seg.end;
            }
            seg.end - seg.start
        }
        Some(Next::New(seg)) => send_new(s, seg, ctx),
        None => return false,
    };
    s.sack.pipe_bytes += sent;
    true
}

/// RFC 6675 NextSeg().
fn next_seg(s: &mut TcpSender) -> Option<Next> {
    // The first unSACKed segment above HighRxt is the only candidate for (1) and (3):
    // lost segments all lie below the frontier.
    let candidate = s
        .first_unsacked_from(s.sack.high_rxt)
        .filter(|&i| s.rtx[i].end <= s.sack.high_sacked);
    // (1) the lowest lost segment above HighRxt below the highest SACK.
    if let Some(i) = candidate.filter(|&i| s.is_lost(&s.rtx[i])) {
        return Some(Next::Retransmit {
            index: i,
            rescue: false,
        });
    }
    // (2) new data.
    if let Some(seg) = s.next_new_segment() {
        return Some(Next::New(seg));
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
    if s.snd_una > s.sack.rescue_rxt {
        let below = s.rtx_first_from(s.recover);
        if let Some(i) = s.rtx.range(..below).rposition(|g| !g.sacked) {
            return Some(Next::Retransmit {
                index: i,
                rescue: true,
            });
        }
    }
    None
}

impl TcpSender {
    /// Move the RFC 6675 frontier past the segment starting at it if that segment is lost
    /// (more than (DupThresh − 1)·SMSS bytes or DupThresh runs SACKed above it). Returns
    /// false when the frontier stays.
    fn pass_lost_frontier(&mut self) -> bool {
        let f = self.sack.lost_to;
        let i = self.rtx_first_from(f);
        let Some(seg) = self.rtx.get(i) else {
            return false;
        };
        let len = seg.end - seg.start;
        let ends_run = seg.sacked && !self.rtx.get(i + 1).is_some_and(|s| s.sacked);
        let bytes = self.sack.above_bytes - if seg.sacked { len } else { 0 };
        let blocks = self.sack.above_blocks - ends_run as u64;
        let limit = (self.cfg.dupthresh as u64 - 1) * self.win.mss as u64;
        if bytes > limit || blocks >= self.cfg.dupthresh as u64 {
            self.sack.marked_lost += !seg.sacked as u64;
            self.sack.lost_to = seg.end;
            self.sack.above_bytes = bytes;
            self.sack.above_blocks = blocks;
            return true;
        }
        false
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
}

//! The duplicate-ACK flow shared by Tahoe, Reno and NewReno: count duplicate ACKs, enter
//! recovery at the threshold (Limited Transmit before it), inflate the window by one segment
//! per duplicate ACK in recovery, and hand new ACKs in recovery to the scheme.

use super::DupAckRecovery;
use crate::net::TcpHeader;
use crate::tcp::cc::CongestionControl;
use crate::tcp::config::HalvingBase;
use crate::tcp::sender::{RtxKind, TcpSender};
use crate::tcp::Ctx;

/// ACK processing for a duplicate-ACK scheme `R`.
#[inline]
pub(crate) fn on_ack<R: DupAckRecovery>(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
    if p.ack > s.snd_una {
        on_new_ack::<R>(s, p, ctx);
    } else if s.is_dupack(p) {
        on_dupack::<R>(s, ctx);
    } else {
        s.try_send(ctx); // window update
    }
}

#[inline]
fn on_new_ack<R: DupAckRecovery>(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
    let info = s.ack_advance(p, ctx);
    let restart_timer = if s.in_recovery {
        s.reno_sacks_acked(info.acked);
        R::recovery_ack(s, &info, ctx)
    } else {
        s.grow(&info);
        true
    };
    if s.finish_ack(restart_timer, ctx) {
        return;
    }
    s.try_send(ctx);
}

fn on_dupack<R: DupAckRecovery>(s: &mut TcpSender, ctx: &mut Ctx) {
    if s.ful.frozen {
        return; // a FUL = 1 holds the sender: no reaction until it resumes
    }
    s.observe_duplicate(ctx.now);
    s.dupacks += 1;
    s.stats.dupacks += 1;
    let mss = s.win.mss as u64;
    if s.in_recovery {
        s.add_reno_sack();
        if !s.cc.owns_window() {
            s.win.inflate(mss); // one segment has left the network
        }
        s.try_send(ctx);
        return;
    }
    if s.dupacks == s.cfg.dupthresh {
        // RFC 6582 §3.2 step 1: only if the ACK covers more than `recover` (HighData,
        // the last byte sent; ours is one past it), so one window's losses cause one
        // reduction (also guards Tahoe after go-back-N).
        if s.fast_retransmit_allowed() {
            enter_recovery::<R>(s, ctx);
        }
    } else if s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
        s.lt_segments = s.dupacks.min(2);
        s.try_send(ctx);
    }
}

/// The part of a fast retransmit every duplicate-ACK scheme shares: count it, set ssthresh
/// from the reduction base, remember `recover`; then the scheme's own entry.
fn enter_recovery<R: DupAckRecovery>(s: &mut TcpSender, ctx: &mut Ctx) {
    s.stats.fast_retransmits += 1;
    s.lt_segments = 0;
    let mss = s.win.mss as u64;
    // ns-3 without SACK: a "Reno SACK" per duplicate ACK (only the last one without Limited
    // Transmit); for its pipe the head is lost, then counted back in.
    let sacked = if s.cfg.limited_transmit { s.dupacks } else { 1 };
    let base = match s.cfg.halving_base {
        HalvingBase::Pipe => s.flight().saturating_sub(sacked as u64 * mss),
        _ => s.reduction_base(),
    };
    s.reno_sacked = sacked.min(s.outstanding_segments().saturating_sub(1));
    s.win.ssthresh = s.cc.ssthresh_on_loss(&s.win, base);
    s.recover = s.snd_max;
    R::enter(s, base, ctx);
}

impl TcpSender {
    /// Whole segments outstanding (snd_una to snd_max).
    fn outstanding_segments(&self) -> u32 {
        (self.flight() / self.win.mss as u64).min(u32::MAX as u64) as u32
    }

    /// ns-3's Reno SACK for a duplicate ACK in recovery: one more segment after the head
    /// counts as SACKed, if one is left.
    fn add_reno_sack(&mut self) {
        self.reno_sacked =
            (self.reno_sacked + 1).min(self.outstanding_segments().saturating_sub(1));
    }

    /// A cumulative ACK of `acked` bytes in recovery: ns-3's Reno SACKs are the segments just
    /// after the head, so those it covers leave the count, and if the new head was one of them
    /// its mark moves to the next segment (`TcpTxBuffer::DiscardUpTo`): a segments acked
    /// leave max(0, k + 1 - a) of k.
    pub(crate) fn reno_sacks_acked(&mut self, acked: u64) {
        let a = acked / self.win.mss as u64;
        if a > 0 {
            let k = (self.reno_sacked as u64 + 1).saturating_sub(a) as u32;
            self.reno_sacked = k.min(self.outstanding_segments().saturating_sub(1));
        }
    }

    /// Retransmit the segment starting at snd_una (fast retransmit, NewReno partial ACK).
    pub(crate) fn retransmit_first(&mut self, ctx: &mut Ctx) {
        if self.ful.frozen {
            return;
        }
        if let Some(seg) = self.rtx.front().copied() {
            let fin = self.finite && seg.end == self.app_end + 1;
            let start = seg.start.max(self.snd_una);
            self.send_segment(
                start,
                seg.end - start - fin as u64,
                fin,
                Some(RtxKind::Fast),
                ctx,
            );
        }
    }
}

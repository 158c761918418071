//! The ACK flow shared by the SACK schemes: update the scoreboard, count duplicate ACKs (or
//! let the scheme detect loss its own way), enter recovery once per window of data, send
//! while the scheme's pipe admits it, and leave recovery when everything outstanding at the
//! fast retransmit is acknowledged. The scheme supplies the hooks of `SackRecovery`.

use super::SackRecovery;
use crate::net::TcpHeader;
use crate::tcp::cc::CongestionControl;
use crate::tcp::sender::{SentSeg, TcpSender};
use crate::tcp::timers;
use crate::tcp::Ctx;

/// ACK processing for a SACK scheme `R`.
pub(crate) fn on_ack<R: SackRecovery>(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
    if s.cfg.prr {
        s.prr_ack_begins();
    }
    let new_info = !p.sack.is_empty() && s.update_scoreboard(&p.sack, p.ack, ctx.now);
    if p.ack > s.snd_una {
        R::on_cumulative(s, p.ack, ctx.now);
        let info = s.ack_advance(p, ctx);
        if s.in_recovery {
            if p.ack >= s.recover {
                // Everything outstanding at the fast retransmit is acknowledged.
                s.in_recovery = false;
                R::exit(s);
                if s.cfg.grow_on_exit && !s.cc.owns_window() {
                    s.grow(&info);
                }
                if !s.finish_ack(true, ctx) {
                    s.try_send(ctx);
                }
                return;
            }
            // Partial ACK.
            R::on_recovery_ack(s, p);
            let restart = s.partial_ack_restarts_timer();
            if s.finish_ack(restart, ctx) {
                return;
            }
            if s.cfg.prr {
                s.prr_on_ack::<R>(ctx);
            }
            send::<R>(s, ctx);
        } else {
            s.grow(&info);
            if s.finish_ack(true, ctx) {
                return;
            }
            // A cumulative ACK can show earlier segments lost too (RACK).
            if R::loss_after_new_ack(s, ctx) && s.fast_retransmit_allowed() {
                enter::<R>(s, ctx);
            } else {
                s.try_send(ctx);
            }
        }
        return;
    }
    if !s.is_dupack(p) {
        s.try_send(ctx); // window update
        return;
    }
    s.stats.dupacks += 1;
    if s.in_recovery {
        R::on_duplicate_in_recovery(s);
    }
    s.observe_duplicate(ctx.now);
    if s.in_recovery {
        R::on_recovery_ack(s, p);
        if s.cfg.prr {
            s.prr_on_ack::<R>(ctx);
        }
        send::<R>(s, ctx);
        return;
    }
    let counts = R::dupack_counts(new_info);
    if counts {
        s.dupacks += 1;
    }
    if R::should_enter(s, counts, ctx) && s.fast_retransmit_allowed() {
        enter::<R>(s, ctx);
    } else if counts && s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
        s.lt_segments = s.dupacks.min(2);
        s.try_send(ctx);
    }
}

/// Start a recovery episode: the congestion control's reduction, `recover` = snd_max, the
/// episode's marks cleared (SACKed marks kept), then the scheme's first retransmission.
pub(crate) fn enter<R: SackRecovery>(s: &mut TcpSender, ctx: &mut Ctx) {
    s.stats.fast_retransmits += 1;
    s.lt_segments = 0;
    if s.cfg.undo {
        s.undo.start(s.win.cwnd, s.win.ssthresh, s.snd_una);
    }
    let base = R::halving_base(s);
    s.win.ssthresh = s.cc.ssthresh_on_loss(&s.win, base);
    if !s.cc.owns_window() {
        s.win.halve(base, 0);
    }
    s.win.cnt = 0;
    s.recover = s.snd_max;
    s.in_recovery = true;
    s.partial_seen = false;
    s.clear_episode_marks(true);
    if s.cfg.prr {
        s.prr_start::<R>(ctx);
    }
    let more = R::start_episode(s, ctx);
    s.restart_rto(ctx);
    if more {
        send::<R>(s, ctx);
    }
}

/// Send now (the pacing timer fired): the scheme's rule in recovery, else the ordinary send.
pub(crate) fn send_now<R: SackRecovery>(s: &mut TcpSender, ctx: &mut Ctx) {
    if s.in_recovery {
        send::<R>(s, ctx);
    } else {
        s.try_send(ctx);
    }
}

/// Send while the scheme's pipe test allows (after the application's writes, if it writes
/// in pieces).
#[inline]
pub(crate) fn send<R: SackRecovery>(s: &mut TcpSender, ctx: &mut Ctx) {
    s.write_and_send(ctx, send_loop::<R>);
}

fn send_loop<R: SackRecovery>(s: &mut TcpSender, ctx: &mut Ctx) {
    if s.ful.frozen {
        return;
    }
    R::before_send(s, ctx);
    let mut burst = 0u32;
    let mut sent = false;
    loop {
        if s.cfg.maxburst.is_some_and(|m| burst >= m) {
            break;
        }
        burst += 1;
        if !R::send_one(s, ctx) {
            break;
        }
        sent = true;
    }
    s.after_send(ctx.now, sent);
    if !s.rto_timer.is_set() && s.snd_max > s.snd_una {
        s.rto_timer
            .set(ctx.now + s.rtt.rto(), s.flow, timers::RTO, ctx.events);
    }
}

/// Send the segment of new data (start, length, FIN) that `next_new_segment` chose; returns
/// the sequence space it takes.
pub(crate) fn send_new(
    s: &mut TcpSender,
    (start, len, fin): (u64, u64, bool),
    ctx: &mut Ctx,
) -> u64 {
    s.send_segment(start, len, fin, None, ctx);
    s.snd_nxt = start + len + fin as u64;
    if s.cfg.prr {
        s.prr.out += len.max(1);
    }
    len.max(1)
}

/// Retransmit the segment at `index` of the queue as a fast-recovery retransmission.
pub(crate) fn retransmit<R: SackRecovery>(s: &mut TcpSender, index: usize, ctx: &mut Ctx) {
    if s.ful.frozen {
        return;
    }
    let seg: SentSeg = s.rtx[index];
    s.resend(seg, ctx);
    if s.cfg.prr {
        s.prr.out += seg.end - seg.start;
    }
    s.rtx[index].rtx_episode = true;
    R::on_retransmitted(s, index, ctx.now);
}

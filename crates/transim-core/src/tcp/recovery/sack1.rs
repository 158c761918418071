//! Fall & Floyd's Sack1 (ns-2), as the SackPlus study states it: at the third duplicate ACK
//! retransmit the first hole, halve cwnd and set pipe = segments outstanding − 3; every
//! further ACK in recovery takes one from pipe, a partial ACK takes two; while pipe < cwnd
//! send the next hole (lowest unSACKed segment below the highest SACK, not yet retransmitted)
//! or else new data, adding one to pipe. A retransmitted hole is never sent again before a
//! timeout; recovery ends when an ACK covers everything outstanding at the fast retransmit.
//!
//! With ns-2's arithmetic (`cwnd_unit = "ns2"`), outside recovery Sack1 behaves as ns-2's
//! `sack1` agent: see `ns2_on_ack`. The generic functions here serve SackPlus too.

use super::sack_flow::{self, retransmit, send_new};
use super::{LossRecovery, SackRecovery};
use crate::net::TcpHeader;
use crate::tcp::cc::CongestionControl;
use crate::tcp::sender::TcpSender;
use crate::tcp::Ctx;

/// Sack1 (marker type).
pub(crate) struct Sack1;

impl LossRecovery for Sack1 {
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
        on_ack::<Self>(s, p, ctx);
    }

    /// Its packet count in recovery, else the bytes outstanding.
    #[inline]
    fn pipe(s: &TcpSender) -> u64 {
        if s.in_recovery {
            s.sack.pipe.max(0) as u64 * s.win.mss as u64
        } else {
            s.flight()
        }
    }

    fn pipe_segments(s: &TcpSender) -> f64 {
        if s.in_recovery {
            s.sack.pipe as f64
        } else {
            s.flight_segments() as f64
        }
    }

    fn send(s: &mut TcpSender, ctx: &mut Ctx) {
        sack_flow::send_now::<Self>(s, ctx);
    }

    fn on_timeout(s: &mut TcpSender) {
        s.sack_on_timeout(false);
    }
}

impl SackRecovery for Sack1 {
    /// A partial ACK takes two from pipe, before congestion control sees it.
    #[inline]
    fn on_cumulative(s: &mut TcpSender, ack: u64, _now: crate::sim::Time) {
        if s.in_recovery && ack < s.recover {
            s.sack.pipe -= 2;
        }
    }

    #[inline]
    fn on_duplicate_in_recovery(s: &mut TcpSender) {
        s.sack.pipe -= 1;
    }

    fn dupack_counts(_new_info: bool) -> bool {
        true // every duplicate ACK counts
    }

    fn should_enter(s: &mut TcpSender, counts: bool, _ctx: &mut Ctx) -> bool {
        s.dupacks == s.cfg.dupthresh && counts
    }

    fn start_episode(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        start_episode::<Self>(s, ctx)
    }

    /// The end of recovery. ns-2's Sack1 leaves cwnd_ at the halved window (with its fraction),
    /// does not open it on this ACK, sets recover_ = 0 (the next three duplicate ACKs may start a
    /// fast retransmit at once) and clears its scoreboard.
    fn exit(s: &mut TcpSender) {
        let ns2 = s.win.ns2;
        if !s.cc.owns_window() && !ns2 {
            s.win.set_cwnd(s.win.ssthresh);
        }
        if ns2 {
            s.recover = 0;
        }
        s.clear_episode_marks(false);
    }

    fn send_one(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        send_one::<Self>(s, ctx)
    }
}

/// Sack1-family ACK processing: ns-2's agent outside recovery, else the SACK flow.
pub(crate) fn on_ack<R: SackRecovery>(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
    if s.win.ns2 && !s.in_recovery {
        ns2_on_ack::<R>(s, p, ctx);
    } else {
        sack_flow::on_ack::<R>(s, p, ctx);
    }
}

/// pipe = segments outstanding − DupThresh, then the first hole. ns-2 counts every segment
/// sent (maxseq_ − highest_ack_, also during a go-back-N) and sends nothing more on this ACK.
pub(crate) fn start_episode<R: SackRecovery>(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
    let outstanding = if s.win.ns2 {
        s.rtx.len() as i64
    } else {
        s.flight_segments() as i64
    };
    s.sack.pipe = outstanding - s.cfg.dupthresh as i64;
    retransmit::<R>(s, 0, ctx);
    !s.win.ns2
}

/// While pipe < cwnd: the next hole, else new data; each adds one to pipe.
pub(crate) fn send_one<R: SackRecovery>(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
    if s.sack.pipe >= s.win.segments() as i64 || s.paced_out(ctx) {
        return false;
    }
    if let Some(i) = s.next_hole() {
        retransmit::<R>(s, i, ctx);
    } else if let Some(seg) = s.next_new_segment() {
        send_new(s, seg, ctx);
    } else {
        return false;
    }
    s.sack.pipe += 1;
    true
}

/// ns-2's Sack1 outside fast recovery (`cwnd_unit = "ns2"`): a new ACK opens cwnd and
/// clears the scoreboard (its own SACK blocks are not read); a duplicate ACK counts only
/// when its blocks add to the scoreboard, and not at all between a timeout and the next
/// new ACK; the sender tries to send only while no duplicate ACK is counted.
fn ns2_on_ack<R: SackRecovery>(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
    if p.ack > s.snd_una {
        let info = s.ack_advance(p, ctx);
        s.grow(&info);
        s.sack.ns2_after_timeout = false;
        if s.sack.high_sacked > s.snd_una {
            s.clear_episode_marks(false);
        }
        if !s.finish_ack(true, ctx) {
            s.try_send(ctx);
        }
        return;
    }
    if s.is_dupack(p) {
        s.stats.dupacks += 1;
        s.observe_duplicate(ctx.now);
        let changed = !s.sack.ns2_after_timeout
            && !p.sack.is_empty()
            && s.update_scoreboard(&p.sack, p.ack, ctx.now);
        if changed {
            s.dupacks += 1;
            if s.dupacks == s.cfg.dupthresh {
                if s.fast_retransmit_allowed() {
                    sack_flow::enter::<R>(s, ctx);
                }
            } else if s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
                s.lt_segments = s.dupacks.min(2);
                s.try_send(ctx);
            }
        }
    }
    if s.dupacks == 0 {
        s.try_send(ctx);
    }
}

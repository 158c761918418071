//! NewReno (RFC 6582): Reno's entry; a partial ACK (below `recover`) retransmits the next
//! hole and deflates the window by the amount acknowledged, adding back one segment if at
//! least one was (§3.2 step 5); the ACK that covers `recover` ends recovery with
//! cwnd = min(ssthresh, FlightSize + 1 segment) (§3.2 step 6, option 1). The timer restarts on
//! the first partial ACK only or on each ([`crate::tcp::config::PartialAckTimer`]).
//!
//! With ns-2's arithmetic a partial ACK deflates dupwnd_ first (partial_window_deflation_,
//! ns-2.35's default), keeping at least one packet, then cwnd_; ns-2's NewReno sends at most
//! two segments per ACK in recovery (`send_much(0, 0, 2)`).

use super::{classic, reno, DupAckRecovery, LossRecovery};
use crate::net::TcpHeader;
use crate::tcp::cc::{AckInfo, CongestionControl};
use crate::tcp::sender::TcpSender;
use crate::tcp::Ctx;

/// NewReno (marker type).
pub(crate) struct NewReno;

impl LossRecovery for NewReno {
    #[inline]
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
        classic::on_ack::<Self>(s, p, ctx);
    }

    #[inline]
    fn burst_cap(s: &TcpSender) -> Option<u32> {
        if s.win.ns2 && s.in_recovery {
            Some(s.cfg.maxburst.unwrap_or(2).min(2))
        } else {
            s.cfg.maxburst
        }
    }

    fn before_timeout(s: &mut TcpSender) {
        reno::restore_ns2_cwnd(s);
    }
}

impl DupAckRecovery for NewReno {
    fn enter(s: &mut TcpSender, base: u64, ctx: &mut Ctx) {
        reno::enter(s, base, ctx);
    }

    fn recovery_ack(s: &mut TcpSender, info: &AckInfo, ctx: &mut Ctx) -> bool {
        let ack = s.snd_una;
        let owns = s.cc.owns_window();
        let mss = s.win.mss as u64;
        if ack >= s.recover {
            if s.win.ns2 && !owns {
                reno::exit_ns2(s, info);
            } else {
                let flight = s.snd_max - ack;
                if !owns && s.cfg.grow_on_exit {
                    // ns-3: RFC 6582's other option, cwnd = ssthresh, and growth on this ACK.
                    s.win.set_cwnd(s.win.ssthresh);
                    s.grow(info);
                } else if !owns {
                    s.win.set_cwnd(s.win.ssthresh.min(flight.max(mss) + mss));
                }
                s.in_recovery = false;
            }
            return true;
        }
        // Partial ACK: retransmit the next hole and deflate.
        if s.win.ns2 && !owns {
            let mut cwnd = s.ns2_recovery_cwnd;
            let mut dupwnd = (s.win.pkts() - cwnd).round().max(0.0);
            let deflate = (info.acked / mss) as f64;
            if dupwnd > deflate {
                dupwnd -= deflate - 1.0;
            } else {
                cwnd -= deflate - dupwnd;
                dupwnd = 1.0;
            }
            cwnd = cwnd.max(1.0);
            s.ns2_recovery_cwnd = cwnd;
            s.win.set_pkts(cwnd + dupwnd);
            s.retransmit_first(ctx);
        } else {
            s.retransmit_first(ctx);
            if !owns {
                s.win
                    .set_cwnd(s.win.cwnd.saturating_sub(info.acked).max(mss));
                if info.acked >= mss {
                    s.win.cwnd += mss;
                }
            }
        }
        s.partial_ack_restarts_timer()
    }
}

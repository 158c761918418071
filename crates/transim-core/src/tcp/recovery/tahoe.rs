//! Tahoe: at the duplicate-ACK threshold, ssthresh from the congestion control, cwnd one
//! segment, and go-back-N from snd_una (slow start resends the window). There is no fast
//! recovery: a new ACK is an ordinary one.

use super::{classic, DupAckRecovery, LossRecovery};
use crate::net::TcpHeader;
use crate::tcp::cc::AckInfo;
use crate::tcp::sender::{RtxKind, TcpSender};
use crate::tcp::Ctx;

/// Tahoe (marker type).
pub(crate) struct Tahoe;

impl LossRecovery for Tahoe {
    #[inline]
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
        classic::on_ack::<Self>(s, p, ctx);
    }
}

impl DupAckRecovery for Tahoe {
    fn enter(s: &mut TcpSender, _base: u64, ctx: &mut Ctx) {
        s.win.set_cwnd(s.win.mss as u64);
        s.win.cnt = 0;
        s.snd_nxt = s.snd_una;
        s.gbn = Some(RtxKind::Fast);
        s.restart_rto(ctx);
        s.try_send(ctx);
    }

    fn recovery_ack(s: &mut TcpSender, info: &AckInfo, _ctx: &mut Ctx) -> bool {
        // Never in recovery: `enter` does not start an episode.
        s.grow(info);
        true
    }
}

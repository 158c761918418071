//! Reno (RFC 5681 §3.2): at the duplicate-ACK threshold retransmit the first segment, set
//! cwnd = ssthresh + 3 segments, add one segment per further duplicate ACK; the first new ACK
//! ends recovery with cwnd = ssthresh.
//!
//! With ns-2's arithmetic the window is cwnd_ (the halved window, kept in
//! `ns2_recovery_cwnd`) plus dupwnd_: the ACK that ends recovery restores cwnd_ and opens it
//! as any new ACK does, and a timeout in recovery clears dupwnd_ before halving.

use super::{classic, DupAckRecovery, LossRecovery};
use crate::net::TcpHeader;
use crate::tcp::cc::{AckInfo, CongestionControl};
use crate::tcp::sender::TcpSender;
use crate::tcp::Ctx;

/// Reno (marker type).
pub(crate) struct Reno;

impl LossRecovery for Reno {
    #[inline]
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
        classic::on_ack::<Self>(s, p, ctx);
    }

    fn before_timeout(s: &mut TcpSender) {
        restore_ns2_cwnd(s);
    }
}

impl DupAckRecovery for Reno {
    fn enter(s: &mut TcpSender, base: u64, ctx: &mut Ctx) {
        enter(s, base, ctx);
    }

    fn recovery_ack(s: &mut TcpSender, info: &AckInfo, _ctx: &mut Ctx) -> bool {
        if s.win.ns2 && !s.cc.owns_window() {
            exit_ns2(s, info);
        } else {
            if !s.cc.owns_window() {
                s.win.set_cwnd(s.win.ssthresh);
            }
            s.in_recovery = false;
        }
        true
    }
}

/// Reno's and NewReno's entry: retransmit the first segment, halve and inflate by the
/// threshold's three segments.
pub(crate) fn enter(s: &mut TcpSender, base: u64, ctx: &mut Ctx) {
    s.retransmit_first(ctx);
    if !s.cc.owns_window() {
        s.ns2_recovery_cwnd = s.win.ns2_half(base).max(1.0);
        s.win.halve(base, 3);
    }
    s.in_recovery = true;
    s.partial_seen = false;
    s.restart_rto(ctx);
    s.try_send(ctx);
}

/// ns-2's end of recovery: dupwnd_ cleared, cwnd_ opened as on any new ACK.
pub(crate) fn exit_ns2(s: &mut TcpSender, info: &AckInfo) {
    s.win.set_pkts(s.ns2_recovery_cwnd);
    s.in_recovery = false;
    s.grow(info);
}

/// ns-2's Reno/NewReno clear dupwnd_ before a timeout halves: cwnd_ alone.
pub(crate) fn restore_ns2_cwnd(s: &mut TcpSender) {
    if s.win.ns2 && s.in_recovery && !s.cc.owns_window() {
        s.win.set_pkts(s.ns2_recovery_cwnd);
    }
}

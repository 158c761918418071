//! Proportional Rate Reduction (PRR, RFC 9937; `tcp.prr`), over the SACK schemes that keep
//! RFC 6675's pipe (`rfc6675`, `rack-tlp`): how much each ACK of a recovery episode lets
//! out. RFC 6675 sets cwnd to ssthresh at once, so after a loss the sender falls silent until
//! pipe has drained below it and then sends in a burst; PRR spreads the reduction over the
//! episode in proportion to the data delivered, and lets the flight rise back towards
//! ssthresh when losses have drained it below.
//!
//! In bytes, with pipe RFC 6675's (or RACK's) after the ACK's loss marks:
//! - as recovery starts: `prr_delivered = prr_out = 0` and `RecoverFS` = the data not yet
//!   delivered before the ACK that starts it (snd.nxt − snd.una − SACKed);
//! - on every ACK of the episode that does not end it, `DeliveredData` = the change in
//!   snd.una plus the change in SACKed bytes (none: nothing changes); `prr_delivered +=
//!   DeliveredData`, then
//!   - pipe > ssthresh: `sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out`;
//!   - else `sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData)
//!     [+ SMSS])`, the SMSS added when the ACK is safe (snd.una advanced and no segment was
//!     newly marked lost: the slow-start reduction bound), else not (the conservative one);
//!   - at least one SMSS while nothing was sent in the episode (the fast retransmit);
//!   - `cwnd = pipe + sndcnt`, and `prr_out` counts every byte sent in the episode;
//! - at its end cwnd = ssthresh, as without PRR.
//!
//! Linux's `tcp_cwnd_reduction` counts the same in segments, with RecoverFS the window
//! before the reduction.

use super::SackRecovery;
use crate::tcp::cc::CongestionControl;
use crate::tcp::sender::TcpSender;
use crate::tcp::Ctx;

/// A PRR episode's counts, and where the ACK being handled started from.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrrState {
    /// Bytes delivered (cumulatively or by SACK) since the episode began.
    delivered: u64,
    /// Bytes sent (new or retransmitted) since the episode began.
    pub(crate) out: u64,
    /// The data that could be delivered during the episode.
    recover_fs: u64,
    /// Before the current ACK: snd.una plus the bytes SACKed above it.
    ack_delivered_mark: u64,
    /// Before the current ACK: snd.una.
    ack_una: u64,
    /// Before the current ACK: segments marked lost so far ([`super::super::sack::SackState`]).
    ack_lost: u64,
}

impl TcpSender {
    /// snd.una plus the bytes SACKed above it: everything the receiver is known to hold.
    fn delivered_mark(&self) -> u64 {
        self.snd_una + self.sacked_bytes()
    }

    /// An ACK arrives: remember where delivery and loss marking stood before it.
    pub(crate) fn prr_ack_begins(&mut self) {
        self.prr.ack_delivered_mark = self.delivered_mark();
        self.prr.ack_una = self.snd_una;
        self.prr.ack_lost = self.sack.marked_lost;
    }

    /// Recovery starts on the current ACK (ssthresh set, `recover` set, episode marks
    /// cleared): reset the counts, and set cwnd for what this ACK delivered.
    pub(crate) fn prr_start<R: SackRecovery>(&mut self, ctx: &mut Ctx) {
        let p = &mut self.prr;
        p.delivered = 0;
        p.out = 0;
        p.recover_fs = self.snd_nxt.saturating_sub(p.ack_delivered_mark);
        self.prr_on_ack::<R>(ctx);
    }

    /// An ACK of the episode that does not end it: cwnd = pipe + sndcnt (unchanged when the
    /// ACK delivered nothing).
    pub(crate) fn prr_on_ack<R: SackRecovery>(&mut self, ctx: &mut Ctx) {
        let delivered = self
            .delivered_mark()
            .saturating_sub(self.prr.ack_delivered_mark);
        if delivered == 0 || self.cc.owns_window() {
            return;
        }
        R::before_send(self, ctx);
        let pipe = self.sack.pipe_bytes;
        let mss = self.win.mss as u64;
        let ssthresh = self.win.ssthresh;
        let safe = self.snd_una > self.prr.ack_una && self.sack.marked_lost == self.prr.ack_lost;
        let p = &mut self.prr;
        p.delivered += delivered;
        let mut sndcnt = if pipe > ssthresh {
            let fs = p.recover_fs.max(1) as u128;
            let due = (p.delivered as u128 * ssthresh as u128).div_ceil(fs) as u64;
            due.saturating_sub(p.out)
        } else {
            let bound =
                p.delivered.saturating_sub(p.out).max(delivered) + if safe { mss } else { 0 };
            (ssthresh - pipe).min(bound)
        };
        if p.out == 0 {
            sndcnt = sndcnt.max(mss);
        }
        self.win.set_cwnd(pipe + sndcnt);
    }
}

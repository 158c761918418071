//! The sender's persist timer (RFC 9293 §3.8.6.1), for a receiver whose application reads
//! at a set rate (`tcp.read_rate`, [`super::reader`]): with nothing in flight and the next
//! segment beyond the receive window, no ACK is coming to reopen it but the receiver's
//! window update, which may be lost. The sender then probes the window: after one RTO, then
//! after twice as long each time (capped at the maximum RTO), it sends a zero-length segment
//! one below snd_una (Linux's `tcp_xmit_probe_skb`), which the receiver answers with an
//! ACK carrying its window.
//!
//! Only such flows run it: without a reader the window is the whole receive buffer, at
//! least one MSS, and never blocks a segment.

use super::sender::TcpSender;
use super::{timers, Ctx};
use crate::net::header::tcp::flags;
use crate::sim::timer::Timer;

/// The persist timer's state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Persist {
    timer: Timer,
    /// Probes sent in this episode (each doubles the interval).
    backoff: u32,
    /// Window probes sent.
    pub(crate) probes: u64,
    /// snd_max when the timer was armed: the episode of being held back it times (a later
    /// one, after data went out, starts afresh).
    episode: u64,
}

impl TcpSender {
    /// True when nothing is in flight and the application's next segment does not fit the
    /// receive window.
    fn window_blocks(&self) -> bool {
        let len = self.new_segment_len();
        self.snd_max == self.snd_una
            && len > 0
            && self.snd_max + len > self.snd_una + self.rwnd.max(1)
    }

    /// After a send stopped for want of new data to send (flows with a reader only): arm
    /// the persist timer if the receive window is what holds the data back.
    #[cold]
    #[inline(never)]
    pub(crate) fn persist_after_send(&mut self, ctx: &mut Ctx) {
        if !self.window_blocks()
            || (self.persist.timer.is_set() && self.persist.episode == self.snd_max)
        {
            return;
        }
        // Held back anew (data went out since the timer was last armed, or it never was).
        self.persist.episode = self.snd_max;
        self.persist.backoff = 0;
        self.arm_persist(ctx);
    }

    /// After an ACK with nothing in flight (flows with a reader only): a window that now
    /// admits the next segment ends the probing, and the segment goes (the next time the
    /// window holds data back is a new episode, with its backoff from zero).
    #[cold]
    #[inline(never)]
    pub(crate) fn persist_on_ack(&mut self, ctx: &mut Ctx) {
        if !self.persist.timer.is_set() || self.window_blocks() {
            return;
        }
        self.persist.timer.cancel();
        self.recovery_send(ctx);
    }

    /// The persist timer fired: probe the window while it still holds the data back.
    pub(crate) fn on_persist_timer(&mut self, ctx: &mut Ctx) {
        if !self
            .persist
            .timer
            .fire(ctx.now, self.flow, timers::PERSIST, ctx.events)
        {
            return;
        }
        if self.state != super::sender::SenderState::Established || !self.window_blocks() {
            return; // data went out since (the ACK that opened the window sent it)
        }
        let mut p = self.base_header(ctx);
        p.flags = flags::ACK;
        p.seq = self.snd_una - 1;
        p.ack = 1;
        self.stats.segments_sent += 1;
        self.persist.probes += 1;
        self.emit(p, self.header_bytes(false), ctx);
        self.persist.backoff = (self.persist.backoff + 1).min(30);
        self.arm_persist(ctx);
    }

    /// Arm the persist timer: the RTO doubled once per probe sent, at most the maximum RTO.
    fn arm_persist(&mut self, ctx: &mut Ctx) {
        let wait = self
            .rtt
            .rto()
            .saturating_mul(1 << self.persist.backoff)
            .min(self.cfg.rto_max);
        self.persist
            .timer
            .set(ctx.now + wait, self.flow, timers::PERSIST, ctx.events);
    }
}

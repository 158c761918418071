//! The FUL bit (study 5): stopping ACK-buffer overflow on asymmetric links.
//!
//! Receiver: when its uplink transmit buffer (the first-hop queue its ACKs join) is full, it
//! sends one ACK with FUL = 1 carrying the last acknowledgement number it sent. Buffer
//! accounting guarantees that notification gets through: a packet with the FUL bit is
//! admitted beyond the queue limit (a one-packet reserve). While FUL is raised it sends no
//! further ACKs (their information is cumulative and is owed). When the buffer has drained to
//! the low-water mark it sends an ACK with FUL = 0, the current cumulative ACK, and an
//! advertised window equal to the free space (in segments that can be acknowledged without
//! overflowing the buffer again).
//!
//! Sender: on FUL = 1 it stops sending, keeps cwnd, stops the retransmission timer and arms a
//! safety timer; on FUL = 0 (or when the safety timer fires, in case the FUL = 0 ACK was
//! lost) it resumes at once with the cwnd it had.

use super::config::DelayedAck;
use super::receiver::TcpReceiver;
use super::sender::TcpSender;
use super::timers;
use super::Ctx;
use crate::net::header::tcp::flags;
use crate::net::TcpHeader;
use crate::sim::timer::Timer;
use crate::sim::Time;

/// FUL settings of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FulConfig {
    /// Raise FUL when this many packets wait in the uplink buffer (None: when it is full).
    pub high: Option<u64>,
    /// Clear FUL when no more than this many wait (None: half the buffer).
    pub low: Option<u64>,
    /// Sender's safety timer: resume if no FUL = 0 arrives within this time.
    pub safety: Time,
    /// Which reserved TCP header bit carries FUL (4, 5 or 6 of byte 12), for header writers.
    pub bit: u8,
}

/// Receiver-side FUL state.
#[derive(Clone, Debug, Default)]
pub struct FulReceiverState {
    /// FUL = 1 sent and not yet cleared.
    pub raised: bool,
    /// ACKs suppressed while raised.
    pub suppressed: u64,
    /// FUL = 1 notifications sent.
    pub notifications: u64,
    /// When the first FUL = 1 was sent.
    pub first_at: Option<Time>,
    pub(crate) timer: Timer,
}

/// Sender-side FUL state.
#[derive(Clone, Debug, Default)]
pub struct FulSenderState {
    /// Sending is stopped by a FUL = 1.
    pub frozen: bool,
    /// Times the sender froze.
    pub freezes: u64,
    /// Times the safety timer (not a FUL = 0) resumed the sender.
    pub safety_resumes: u64,
    /// Total time spent frozen.
    pub frozen_ns: Time,
    frozen_since: Time,
    pub(crate) safety: Timer,
}

impl TcpReceiver {
    fn ful_marks(&self, ctx: &Ctx, cfg: FulConfig) -> (u64, u64) {
        let link = ctx.net.first_hop(self.node, self.peer, self.flow);
        let limit = link.limit_packets().unwrap_or(u64::MAX);
        (cfg.high.unwrap_or(limit), cfg.low.unwrap_or(limit / 2))
    }

    /// Packets in the uplink buffer now, counting ACKs this receiver queued in this event.
    fn uplink_occupancy(&self, ctx: &Ctx) -> u64 {
        let link = ctx.net.first_hop(self.node, self.peer, self.flow);
        link.waiting_at(ctx.now) as u64 + ctx.out.iter().filter(|p| !p.from_sender).count() as u64
    }

    /// Called before the receiver sends an ACK. Returns true if the ACK may go; otherwise it
    /// is suppressed (and may have been replaced by a FUL = 1 notification).
    pub(crate) fn ful_admit_ack(&mut self, ctx: &mut Ctx) -> bool {
        let Some(cfg) = self.cfg.ful else { return true };
        if self.ful.raised {
            self.ful.suppressed += 1;
            return false;
        }
        let (high, low) = self.ful_marks(ctx, cfg);
        if self.uplink_occupancy(ctx) < high {
            return true;
        }
        // Buffer full: notify with the last acknowledgement number, then hold ACKs.
        let mut p = self.ack_packet(ctx, flags::ACK | flags::FUL);
        p.tcp_mut().ack = self.last_ack_sent;
        ctx.out.push(p);
        self.stats.acks_sent += 1;
        self.ful.raised = true;
        self.ful.notifications += 1;
        self.ful.first_at.get_or_insert(ctx.now);
        self.ful.suppressed += 1;
        self.arm_drain_timer(ctx, low);
        false
    }

    /// Wake up when the uplink buffer should be down to `low` packets.
    fn arm_drain_timer(&mut self, ctx: &mut Ctx, low: u64) {
        let link = ctx.net.first_hop(self.node, self.peer, self.flow);
        let at = link.drain_time(ctx.now, low as usize).max(ctx.now + 1);
        self.ful.timer.set(at, self.flow, timers::FUL, ctx.events);
    }

    /// The FUL drain timer: clear FUL once the buffer is down to the low-water mark.
    pub fn on_ful_timer(&mut self, ctx: &mut Ctx) {
        if !self
            .ful
            .timer
            .fire(ctx.now, self.flow, timers::FUL, ctx.events)
            || !self.ful.raised
        {
            return;
        }
        let cfg = self.cfg.ful.expect("FUL timer without FUL");
        let (_, low) = self.ful_marks(ctx, cfg);
        let occupancy = self.uplink_occupancy(ctx);
        if occupancy > low {
            self.arm_drain_timer(ctx, low);
            return;
        }
        let limit = ctx
            .net
            .first_hop(self.node, self.peer, self.flow)
            .limit_packets()
            .unwrap_or(u64::MAX);
        let free = limit.saturating_sub(occupancy).max(1);
        let per_ack = match self.cfg.delayed_ack {
            DelayedAck::Off => 1,
            DelayedAck::Every { count, .. } => count as u64,
            DelayedAck::Linux { .. } => 2,
        };
        self.ful.raised = false;
        let mut p = self.ack_packet(ctx, flags::ACK);
        let h = p.tcp_mut();
        h.wnd = (free.saturating_mul(per_ack * self.cfg.mss as u64)).min(h.wnd as u64) as u32;
        self.last_ack_sent = h.ack;
        self.after_ack_sent();
        ctx.out.push(p);
        self.stats.acks_sent += 1;
    }
}

impl TcpSender {
    /// Handle the FUL bit of an incoming ACK. Returns true when the ACK is fully handled
    /// (a FUL = 1 notification); otherwise normal ACK processing follows.
    pub(crate) fn ful_on_ack(&mut self, p: &TcpHeader, ctx: &mut Ctx) -> bool {
        let Some(cfg) = self.cfg.ful else {
            return false;
        };
        if p.has(flags::FUL) {
            if !self.ful.frozen {
                self.ful.frozen = true;
                self.ful.freezes += 1;
                self.ful.frozen_since = ctx.now;
            }
            self.rto_timer.cancel();
            self.ful.safety.set(
                ctx.now + cfg.safety,
                self.flow,
                timers::FUL_SAFETY,
                ctx.events,
            );
            return true;
        }
        if self.ful.frozen {
            self.unfreeze(ctx);
        }
        false
    }

    fn unfreeze(&mut self, ctx: &mut Ctx) {
        self.ful.frozen = false;
        self.ful.frozen_ns += ctx.now - self.ful.frozen_since;
        self.ful.safety.cancel();
        if self.snd_max > self.snd_una {
            self.restart_rto(ctx);
        }
    }

    /// The safety timer: no FUL = 0 came; resume as if it had.
    pub fn on_ful_safety(&mut self, ctx: &mut Ctx) {
        if !self
            .ful
            .safety
            .fire(ctx.now, self.flow, timers::FUL_SAFETY, ctx.events)
            || !self.ful.frozen
        {
            return;
        }
        self.ful.safety_resumes += 1;
        self.unfreeze(ctx);
        self.try_send(ctx);
    }

    /// True while a FUL = 1 has stopped sending.
    #[inline]
    pub fn frozen(&self) -> bool {
        self.ful.frozen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use crate::scenario::profiles::resolve;
    use crate::scenario::schema::TcpSpec;
    use crate::sim::events::{Event, EventQueue};
    use crate::sim::{MILLISECOND, SECOND};

    struct Harness {
        s: TcpSender,
        ev: EventQueue,
        out: Vec<Packet>,
        uid: u64,
    }

    impl Harness {
        fn new() -> Self {
            let spec = TcpSpec {
                ful: Some(true),
                ..Default::default()
            };
            let cfg = resolve(&spec, "tcp").unwrap();
            Harness {
                s: TcpSender::new(cfg, 0, 0, 1, None, None),
                ev: EventQueue::new(),
                out: vec![],
                uid: 0,
            }
        }
        /// Run `f` on the sender with a context at time `now`.
        fn with(&mut self, now: Time, f: impl FnOnce(&mut TcpSender, &mut Ctx)) {
            let mut ctx = Ctx::detached(now, &mut self.ev, &mut self.out, &mut self.uid);
            f(&mut self.s, &mut ctx);
        }
        fn ack(&mut self, now: Time, ack: u64, fl: u16) {
            let p = TcpHeader {
                flags: fl,
                ack,
                wnd: 1 << 20,
                ..Default::default()
            };
            let mut ctx = Ctx::detached(now, &mut self.ev, &mut self.out, &mut self.uid);
            self.s.on_packet(&p, &mut ctx);
        }
        fn data_sent(&self) -> usize {
            self.out.iter().filter(|p| p.tcp().len > 0).count()
        }
    }

    fn established() -> Harness {
        let mut h = Harness::new();
        h.with(0, |s, ctx| s.start(ctx));
        h.ack(10 * MILLISECOND, 1, flags::SYN | flags::ACK);
        assert!(h.data_sent() > 0);
        h
    }

    #[test]
    fn ful_freezes_keeps_cwnd_stops_the_timer_and_ful0_resumes() {
        let mut h = established();
        let cwnd = h.s.win.cwnd;
        let sent = h.data_sent();
        h.ack(30 * MILLISECOND, 1, flags::ACK | flags::FUL);
        assert!(h.s.frozen());
        assert!(!h.s.rto_timer.is_set(), "retransmission timer stopped");
        assert_eq!(h.s.win.cwnd, cwnd, "cwnd kept");
        assert_eq!(h.data_sent(), sent, "nothing sent on FUL = 1");
        assert_eq!(
            h.s.stats.dupacks, 0,
            "a FUL notification is not a duplicate ACK"
        );
        // FUL = 0 acknowledging one segment: resume at once with the cwnd we had.
        h.ack(60 * MILLISECOND, 1 + h.s.win.mss as u64, flags::ACK);
        assert!(!h.s.frozen());
        assert!(h.data_sent() > sent, "sending resumes");
        assert!(h.s.rto_timer.is_set());
        assert!(h.s.win.cwnd >= cwnd);
    }

    #[test]
    fn safety_timer_resumes_when_ful0_is_lost() {
        let mut h = established();
        let sent = h.data_sent();
        h.ack(30 * MILLISECOND, 1, flags::ACK | flags::FUL);
        // Pop events until the safety timer (1 s after the FUL = 1) fires.
        let mut fired_at = None;
        while let Some((t, ev)) = h.ev.pop() {
            if let Event::Timer {
                timer: timers::FUL_SAFETY,
                ..
            } = ev
            {
                h.with(t, |s, ctx| s.on_ful_safety(ctx));
                if !h.s.frozen() {
                    fired_at = Some(t);
                    break;
                }
            }
        }
        assert_eq!(fired_at, Some(30 * MILLISECOND + SECOND));
        assert_eq!(h.s.ful.safety_resumes, 1);
        assert!(
            h.s.rto_timer.is_set(),
            "the retransmission timer runs again"
        );
        // Everything was in flight already, so the resumed sender may not be allowed more
        // by cwnd; an ACK now releases data again.
        h.ack(
            fired_at.unwrap() + MILLISECOND,
            1 + h.s.win.mss as u64,
            flags::ACK,
        );
        assert!(h.data_sent() > sent);
    }
}

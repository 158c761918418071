//! A TCP connection as the engine sees it: the [`Transport`] made of one sender and one
//! receiver, its scheduled congestion-control switches, and the ground-truth counters only a
//! simulator can keep (which dropped segments were repaired and how; ACKs lost at the
//! receiver's own uplink).

use super::adaptive::Adaptive;
use super::cc::{CcKind, CongestionControl};
use super::receiver::TcpReceiver;
use super::sender::TcpSender;
use super::timers;
use super::trace::FlowTrace;
use crate::net::{DropCause, Packet};
use crate::sim::events::{Event, EventQueue};
use crate::sim::Time;
use crate::transport::{
    Ctx, Detail, DropSite, FlowFacts, Series, TimerId, Transport, VolumeHint, WindowFacts,
};
use std::collections::BTreeMap;

/// One TCP connection: both ends and their books.
///
/// In this order (`repr(C)`): a data packet reads the receiver and then `unrepaired`, which
/// follows it within the lines fetched ahead of a delivery ([`Transport::hot_state`]); with
/// the compiler's order it lay alone on a line of its own, a cache miss per data packet
/// with many flows.
#[repr(C)]
pub struct TcpConnection {
    /// Receiving endpoint.
    pub receiver: TcpReceiver,
    /// Dropped transmissions per data segment not yet repaired (ground truth for N_R).
    pub unrepaired: BTreeMap<u32, u64>,
    /// Flow index.
    pub flow: u32,
    /// Sending endpoint.
    pub sender: TcpSender,
    /// Scheduled congestion-control switches (time, algorithm).
    pub switches: Vec<(Time, CcKind)>,
    /// Dropped data packets repaired by a retransmission sent in fast recovery (N_R).
    pub recovered_fast: u64,
    /// Dropped data packets repaired by a retransmission sent after a timeout.
    pub recovered_timeout: u64,
    /// ACKs dropped at the receiver's own uplink buffer (its first-hop queue).
    pub ack_drops_uplink: u64,
    /// The adaptive framework (`cc = "adaptive"`), if on.
    pub adaptive: Option<Adaptive>,
}

impl TcpConnection {
    /// A connection from its two ends and its switch schedule.
    pub fn new(
        flow: u32,
        sender: TcpSender,
        receiver: TcpReceiver,
        switches: Vec<(Time, CcKind)>,
    ) -> Self {
        TcpConnection {
            flow,
            sender,
            receiver,
            switches,
            unrepaired: BTreeMap::new(),
            recovered_fast: 0,
            recovered_timeout: 0,
            ack_drops_uplink: 0,
            adaptive: None,
        }
    }

    /// The path as the framework sees it: the truth for the oracle, else the estimators
    /// (None until the capacity estimate has its samples and a hundred segments were sent).
    fn path_estimate(&self) -> Option<[f64; 3]> {
        let a = self.adaptive.as_ref()?;
        if let Some(truth) = a.oracle {
            return Some(truth);
        }
        let s = &self.sender;
        let capacity = s.capacity.capacity_bps.filter(|_| s.capacity.ready())?;
        let min_rtt = (s.rtt.min_rtt != Time::MAX).then_some(s.rtt.min_rtt)?;
        (s.loss_est.sent >= 100).then(|| [capacity, min_rtt as f64 * 0.5e-9, s.loss_est.rate()])
    }

    /// A look-up of the decision map; switches when it says so, then schedules the next.
    fn adapt(&mut self, ctx: &mut Ctx) {
        if let Some(est) = self.path_estimate() {
            let current = self.sender.cc.kind();
            let a = self.adaptive.as_mut().expect("adaptive");
            if let Some(to) = a.decide(ctx.now, est, current) {
                self.sender.switch_cc(to, ctx.now);
            }
        }
        let a = self.adaptive.as_ref().expect("adaptive");
        let timer = timers::ADAPT;
        ctx.events.push(
            ctx.now + a.interval,
            Event::Timer {
                flow: self.flow,
                timer,
            },
        );
    }
}

impl Transport for TcpConnection {
    fn protocol(&self) -> &'static str {
        "tcp"
    }

    fn hot_state(&self, from_sender: bool) -> (usize, usize) {
        if from_sender {
            (&self.receiver as *const TcpReceiver as usize, 0)
        } else {
            // An ACK first walks the segments it acknowledges, from the oldest: written a
            // round trip ago, so with many flows out of the cache.
            let oldest = self
                .sender
                .rtx
                .front()
                .map_or(0, |s| s as *const _ as usize);
            (&self.sender as *const TcpSender as usize, oldest)
        }
    }

    fn receiver_timers(&self) -> u16 {
        1 << timers::DEL_ACK | 1 << timers::FUL | 1 << timers::WINDOW_UPDATE
    }

    fn schedule(&mut self, flow: u32, events: &mut EventQueue) {
        for (k, &(at, _)) in self.switches.iter().enumerate() {
            let timer = timers::SWITCH + k as TimerId; // count bounded when the scenario is built
            events.push(at, Event::Timer { flow, timer });
        }
    }

    fn start(&mut self, ctx: &mut Ctx) {
        // A congestion control switched to later may read the delivery-rate state, which
        // covers every segment in flight: keep it from the first one.
        if self.adaptive.is_some()
            || self
                .switches
                .iter()
                .any(|&(_, kind)| kind.build().reads_delivery())
        {
            self.sender.rate.keep();
        }
        if let Some(a) = &self.adaptive {
            if a.oracle.is_some() {
                // The oracle knows the path before the first packet.
                self.adapt(ctx);
            } else {
                let at = ctx.now + a.interval;
                ctx.events.push(
                    at,
                    Event::Timer {
                        flow: self.flow,
                        timer: timers::ADAPT,
                    },
                );
            }
        }
        self.sender.start(ctx);
    }

    #[inline]
    fn on_packet(&mut self, p: &Packet, ctx: &mut Ctx) {
        let h = p.tcp();
        if p.from_sender {
            self.receiver.ecn_on_data(h, p.ecn, ctx);
            let fresh = self.receiver.on_packet(h, ctx);
            if fresh && !self.unrepaired.is_empty() {
                if let Some(n) = self.unrepaired.remove(&h.seg_index) {
                    if h.after_rto {
                        self.recovered_timeout += n;
                    } else {
                        self.recovered_fast += n;
                    }
                }
            }
        } else {
            self.sender.on_packet(h, ctx);
        }
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Ctx) {
        match timer {
            timers::RTO => self.sender.on_timer(ctx),
            timers::FUL_SAFETY => self.sender.on_ful_safety(ctx),
            timers::PACE => self.sender.on_pace_timer(ctx),
            timers::RACK => self.sender.on_reorder_timer(ctx),
            timers::TLP => self.sender.on_probe_timer(ctx),
            timers::ADAPT => self.adapt(ctx),
            timers::DEL_ACK => self.receiver.on_timer(ctx),
            timers::FUL => self.receiver.on_ful_timer(ctx),
            timers::WINDOW_UPDATE => self.receiver.on_window_timer(ctx),
            timers::PERSIST => self.sender.on_persist_timer(ctx),
            timers::APP_WRITE => self.sender.on_app_write_timer(ctx),
            k if k >= timers::SWITCH => {
                let kind = self.switches[(k - timers::SWITCH) as usize].1;
                self.sender.switch_cc(kind, ctx.now);
            }
            other => unreachable!("TCP has no timer {other}"),
        }
    }

    fn on_drop(&mut self, p: &Packet, cause: DropCause, site: DropSite) {
        if p.from_sender {
            let h = p.tcp();
            if h.seg_index != 0 {
                *self.unrepaired.entry(h.seg_index).or_insert(0) += 1;
            }
        } else if cause == DropCause::Queue && site.from == self.receiver.node {
            self.ack_drops_uplink += 1;
        }
    }

    fn results(&mut self, facts: &FlowFacts) -> Detail {
        Detail::new(super::results::collect(self, facts))
    }

    fn take_trace(&mut self) -> Option<Box<dyn Series>> {
        self.sender.trace.take().map(|t| t as Box<dyn Series>)
    }

    fn window_facts(&self) -> Option<WindowFacts> {
        Some(self.sender.cfg.window_facts())
    }

    fn volume_hint(&self) -> VolumeHint {
        let cfg = &self.sender.cfg;
        let end = self.sender.app_end;
        VolumeHint {
            packet_bytes: cfg.mss as u64 + 40,
            // What the receiver can advertise (at most 65,535 bytes without window
            // scaling), or the cwnd cap if lower.
            window_bytes: Some(cfg.window_facts().window),
            // A rounds application's sender knows only the rounds written so far.
            app_bytes: self
                .receiver
                .rounds_total()
                .or((end < u64::MAX / 4).then(|| end - 1)),
        }
    }

    fn app_release(&mut self, total: u64, last: bool, ctx: &mut Ctx) {
        self.sender.release(total, last);
        self.sender.try_send(ctx);
    }

    fn trace_rows(&self) -> usize {
        self.sender.trace.as_ref().map_or(0, |t| t.t.len())
    }

    fn drain_trace(&mut self) -> Option<Box<dyn Series>> {
        let tr = self.sender.trace.as_deref_mut()?;
        let empty = FlowTrace {
            window: tr.window,
            ..Default::default()
        };
        Some(Box::new(std::mem::replace(tr, empty)))
    }

    fn wire_bytes(&self, p: &Packet, src: [u8; 4], dst: [u8; 4], out: &mut Vec<u8>) -> Option<u8> {
        super::wire::render(&self.sender.cfg, self.flow, p, src, dst, out);
        Some(6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::profiles::resolve;
    use crate::scenario::schema::TcpSpec;

    fn inside<T>(addr: usize, x: &T) -> bool {
        let at = x as *const T as usize;
        (at..at + std::mem::size_of::<T>()).contains(&addr)
    }

    /// The cache hints ahead of a delivery name the end that will handle the packet: the
    /// receiver for data, the sender and its oldest unacknowledged segment for an ACK.
    #[test]
    fn delivery_hints_name_the_end_that_handles_the_packet() {
        let cfg = resolve(&TcpSpec::default(), "tcp").unwrap();
        let sender = TcpSender::new(cfg.clone(), 0, 0, 1, None, None);
        let mut c = TcpConnection::new(0, sender, TcpReceiver::new(cfg, 0, 1, 0), vec![]);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        c.start(&mut Ctx::detached(0, &mut ev, &mut out, &mut uid));
        // The handshake, then data in flight.
        for _ in 0..4 {
            let sent = std::mem::take(&mut out);
            for p in &sent {
                c.on_packet(p, &mut Ctx::detached(0, &mut ev, &mut out, &mut uid));
            }
        }
        assert!(!c.sender.rtx.is_empty(), "data waits for its ACK");
        let (data, none) = c.hot_state(true);
        assert!(inside(data, &c.receiver) && none == 0);
        let (ack, oldest) = c.hot_state(false);
        assert!(inside(ack, &c.sender));
        assert!(inside(oldest, c.sender.rtx.front().unwrap()));
    }

    /// A connection of `cc` with the given switch schedule, after its handshake and a few
    /// rounds of data, and the packets it has in flight.
    fn running(cc: &str, switches: Vec<(Time, CcKind)>) -> (TcpConnection, Vec<Packet>) {
        let spec = TcpSpec {
            cc: Some(cc.into()),
            ..Default::default()
        };
        let cfg = resolve(&spec, "tcp").unwrap();
        let sender = TcpSender::new(cfg.clone(), 0, 0, 1, None, None);
        let mut c = TcpConnection::new(0, sender, TcpReceiver::new(cfg, 0, 1, 0), switches);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        c.start(&mut Ctx::detached(0, &mut ev, &mut out, &mut uid));
        for round in 1..6 {
            let sent = std::mem::take(&mut out);
            for p in &sent {
                c.on_packet(p, &mut Ctx::detached(round, &mut ev, &mut out, &mut uid));
            }
        }
        assert!(!c.sender.rtx.is_empty(), "data in flight");
        (c, out)
    }

    /// The delivery-rate state is kept only for a congestion control that reads it or that a
    /// scheduled switch will hand the connection to, and then it holds a snapshot for every
    /// segment in flight; a switch nobody foresaw starts it with one for each as well.
    #[test]
    fn the_delivery_rate_state_is_kept_only_where_it_is_read() {
        let in_step = |c: &TcpConnection| {
            assert!(c.sender.rate.kept());
            assert_eq!(c.sender.rate.snapshots(), c.sender.rtx.len());
        };
        assert!(!running("reno", vec![]).0.sender.rate.kept());
        assert!(!running("cubic", vec![(1_000, CcKind::Reno)])
            .0
            .sender
            .rate
            .kept());
        in_step(&running("bbr", vec![]).0);
        in_step(&running("reno", vec![(1_000_000_000, CcKind::Bbr)]).0);
        let (mut c, mut out) = running("reno", vec![]);
        c.sender.switch_cc(CcKind::Bbr, 10);
        in_step(&c);
        // Four more half-rounds under BBR: segments acknowledged and new ones sent.
        let (mut ev, mut uid, acked) = (EventQueue::new(), 1 << 20, c.sender.snd_una);
        for round in 11..15 {
            let sent = std::mem::take(&mut out);
            for p in &sent {
                c.on_packet(p, &mut Ctx::detached(round, &mut ev, &mut out, &mut uid));
            }
            in_step(&c);
        }
        assert!(c.sender.snd_una > acked && !c.sender.rtx.is_empty());
    }
}

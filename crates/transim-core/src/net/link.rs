//! One direction of a point-to-point link: a rate, a propagation delay, a finite drop-tail
//! queue and optional loss models.
//!
//! With a FIFO discipline a packet's departure is known the moment it is accepted
//! (`max(now, busy_until) + size/rate`), so the link keeps every accepted packet in one FIFO
//! delay line ordered by arrival time at the far end and schedules an event only for its head.
//! Each packet therefore costs one event per hop, and the number of pending events grows with
//! the number of busy links, not with the packets in flight. The line holds each packet's
//! slot in the simulation's [`PacketStore`], not the packet.
//!
//! A link with a scheduler ([`Sched`]: fair queueing, ACK filtering) cannot know departures in
//! advance: it transmits one packet at a time and picks the next when the line is free (one
//! more event per packet), then hands it to the same delay line.
//!
//! A packet carrying the FUL bit is admitted even to a full queue: the receiver's FUL
//! notification must get through (a one-packet reserve, study 5).

use super::atm::layer::AtmNet;
use super::atm::port::CellPort;
use super::backlog::Backlog;
use super::loss::{DropCause, LossModel, ScriptedDrops};
use super::qdisc::{Sched, Scheduler};
use super::store::HOP_UNKNOWN;
use super::store::{InFlight, Offered, PacketStore};
use super::Header;
use super::Packet;
use crate::sim::events::{Event, EventQueue};
use crate::sim::rng::Rng;
use crate::sim::{tx_time, Time};

/// A queue limit: a whole number of packets or of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets waiting (the one being transmitted not counted).
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Counters kept by a link direction, in the order an enqueue reaches them (`repr(C)` keeps
/// it): the two every packet offered updates, then those a packet that has to wait updates,
/// so that they share the cache lines a link's enqueue touches anyway (see [`Link`]). None is
/// updated when a packet reaches the far end: the packets that did are those offered less
/// those dropped and those still inside ([`Link::packets_out`]), so an arrival reads only
/// the delay line's cache line.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    /// Packets offered to the link.
    pub packets_in: u64,
    /// Total serialisation time of accepted packets (ns).
    pub busy_ns: u64,
    /// Integral of the waiting-queue length over time (packet·ns).
    pub queue_area: u128,
    /// Integral of the waiting-queue size in bytes over time (byte·ns).
    pub queue_byte_area: u128,
    /// Largest number of packets waiting.
    pub queue_max: u64,
    /// Largest number of bytes waiting.
    pub queue_max_bytes: u64,
    /// Drops by cause (indexed by [`DropCause::index`]).
    pub drops: [u64; DropCause::COUNT],
}

/// The serialisation time of `size` bytes at `rate` bit/s, from a link's two-entry cache if it
/// holds the size.
#[inline(always)]
fn cached_tx(sizes: &[u16; 2], times: &[Time; 2], size: u32, rate: &f64) -> Time {
    if size < NO_SIZE && sizes[0] as u32 == size {
        times[0]
    } else if size < NO_SIZE && sizes[1] as u32 == size {
        times[1]
    } else {
        tx_time(size, *rate)
    }
}

/// The sizes the serialisation cache holds are below this (its empty entries hold it).
const NO_SIZE: u32 = u16::MAX as u32;

// A packet's arrival at the far end reads the delay line and `to` and `cells` only: all in
// the second cache line (see [`Link`]).
const _: () = assert!(std::mem::offset_of!(Link, head) == Link::ARRIVAL_LINE);
const _: () = assert!(std::mem::offset_of!(Link, cells) < Link::ARRIVAL_LINE + 64);

/// One direction of a link.
///
/// The fields a FIFO link's enqueue and arrival touch come first and in this order
/// (`repr(C)`): with many flows each has its own access links, which are cold in the cache
/// whenever one of its packets passes, so every cache line the per-packet path reads is a miss.
///
/// A link direction is eight cache lines, aligned: its fields fit in seven, but with seven
/// benchmark B4 at 10,000 flows (40,000 link directions) ran 2–4 % slower than with eight or
/// twelve (measured in alternating runs; the cause, perhaps the hardware prefetcher's pairs
/// of lines, is not known).
#[repr(C, align(512))]
pub struct Link {
    /// When the last accepted packet finishes serialisation.
    busy_until: Time,
    /// The FIFO's packets still waiting for the line.
    waiting: Backlog,
    // -- second cache line: all an arrival at the far end reads (`ARRIVAL_LINE`)
    /// The delay line, packets in order of arrival at the far end: the head (valid while
    /// `on_line > 0`); each packet's store slot names the one after it, and `tail` is the
    /// slot of the last. So an arrival reads the next packet's time and slot from the slot
    /// it reads anyway, not from a buffer of the link's own (a cache miss with many links).
    head: InFlight,
    tail: u32,
    on_line: u32,
    /// Propagation delay.
    pub delay: Time,
    /// Serialisation times of the two most recent packet sizes (data and ACKs, typically),
    /// and the sizes (those below `NO_SIZE` only: 16 bits leave room for `cells` here).
    tx_times: [Time; 2],
    tx_sizes: [u16; 2],
    /// Index of this link direction.
    pub id: u32,
    /// Node at the receiving end.
    pub to: u32,
    /// An ATM link: it carries cells (its queue limit and counters are in cells).
    pub cells: bool,
    // -- third cache line: the flags, the framing and the counters every packet offered
    // updates
    /// Bytes of framing added to every packet on this link (counted for serialisation only).
    pub overhead: u32,
    /// The enqueue takes the special path: some check runs before the queue (ns-2's limit,
    /// a scripted drop at the enqueue), or the delay has a random part (`jitter`).
    before_queue: bool,
    /// Something rare happens when a transmission starts: a capture tap, outages, a scripted
    /// drop on the wire (see [`Link::refresh_rare`]).
    rare: bool,
    /// A scheduler decides the departure order (`sched` is set).
    scheduled: bool,
    /// The loss model can lose packets (it is not `LossModel::None`).
    lossy: bool,
    /// Record every packet as its transmission starts (for packet captures).
    tap: bool,
    /// ns-2's DropTail rule: the arriving packet counts against the limit, so a limit of L
    /// admits L − 1 waiting packets (and a limit of 1 none, even on an idle link).
    ns2_limit: bool,
    /// Each packet's propagation delay has a random part (`jitter`, in the extras).
    jitter: bool,
    /// ... and packets may overtake one another: each arrives by its own event, not on the
    /// ordered delay line.
    reorder: bool,
    /// Queue limit (read when a packet has to wait).
    pub limit: QueueLimit,
    /// Counters (16-byte aligned): the two every packet offered updates and the queue's
    /// packet integral share the third cache line with the flags and the limit; the rest of
    /// what a packet that waits updates fills the fourth.
    pub stats: LinkStats,
    // -- colder: what only a cell link, a loss process, a drop or a serialisation-cache
    // miss reads
    /// An ATM switch's output port: the cell discipline deciding admission (cell links only).
    pub port: Option<Box<CellPort>>,
    /// Random loss process.
    loss: LossModel,
    /// Rate in bit/s.
    pub rate_bps: f64,
    /// Node at the sending end.
    pub from: u32,
    /// The random stream of this link's loss model.
    rng: Rng,
    /// The scheduler and its state, for links whose departure order is decided at dequeue
    /// time (`scheduled`).
    sched: Option<Box<Scheduled>>,
    /// Scripted drops, outages and captured packets, when the link has any.
    extras: Option<Box<Extras>>,
}

/// What only a link with a scheduler holds. Boxed: most links are FIFOs, and with 100,000
/// flows a dumbbell has 400,000 link directions, whose memory the kernel zeroes as the
/// builder first writes it.
struct Scheduled {
    /// The discipline.
    sched: Sched,
    /// The packet being serialised.
    current: Option<Packet>,
    /// Last time the queue integrals were brought up to date (a FIFO adds each packet's wait
    /// when it accepts the packet).
    stats_t: Time,
}

impl Scheduled {
    /// `sched` on an idle link.
    fn idle(sched: Sched) -> Box<Scheduled> {
        Box::new(Scheduled {
            sched,
            current: None,
            stats_t: 0,
        })
    }
}

/// What few links have (boxed, for the same reason as [`Scheduled`]).
#[derive(Default)]
struct Extras {
    /// Scripted drops.
    script: ScriptedDrops,
    /// Intervals [from, to) during which the link is down: a packet whose transmission
    /// starts then is lost ([`DropCause::LinkDown`]).
    down: Vec<(Time, Time)>,
    /// Packets recorded since the engine last took them: (transmission start, packet).
    tapped: Vec<(Time, Packet)>,
    /// A random part of the propagation delay.
    jitter: Option<Jitter>,
}

/// A link direction's random delay: each packet's propagation delay is the link's `delay`
/// plus a draw uniform in [0, `max`) ns (netem's `delay D J` with its default uniform
/// distribution).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JitterSpec {
    /// The draws lie in [0, max) ns.
    pub max: Time,
    /// Packets may overtake one another. Without it a packet that would arrive before the
    /// one sent ahead of it arrives with it instead (the order is kept).
    pub reorder: bool,
}

/// [`JitterSpec`] in force on a link: its random stream and what it has put on the line.
struct Jitter {
    spec: JitterSpec,
    rng: Rng,
    /// Without reordering: the latest arrival time given so far.
    last: Time,
    /// With reordering: the store slots of the packets propagating (each has its own event).
    inside: std::collections::BTreeSet<u32>,
}

/// No scripted drops (for links without [`Extras`]).
static NO_SCRIPT: ScriptedDrops = ScriptedDrops {
    packets: Vec::new(),
    segments: Vec::new(),
    at_enqueue: false,
};

impl Link {
    /// Byte offset of the cache line that is all a packet's arrival at the far end reads
    /// (the delay line, `to` and `cells`).
    pub const ARRIVAL_LINE: usize = 64;

    /// A new idle link direction.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        from: u32,
        to: u32,
        rate_bps: f64,
        delay: Time,
        limit: QueueLimit,
        loss: LossModel,
        script: ScriptedDrops,
        overhead: u32,
        rng: Rng,
        sched: Option<Sched>,
    ) -> Self {
        let before_queue = script.at_enqueue;
        let mut link = Link {
            busy_until: 0,
            waiting: Backlog::default(),
            id,
            to,
            head: InFlight::default(),
            tail: 0,
            on_line: 0,
            delay,
            tx_sizes: [u16::MAX; 2],
            tx_times: [0; 2],
            limit,
            overhead,
            before_queue,
            rare: false,
            scheduled: sched.is_some(),
            lossy: !matches!(loss, LossModel::None),
            tap: false,
            cells: false,
            ns2_limit: false,
            jitter: false,
            reorder: false,
            port: None,
            stats: LinkStats::default(),
            loss,
            rate_bps,
            from,
            rng,
            sched: sched.map(Scheduled::idle),
            extras: None,
        };
        if !script.is_empty() || script.at_enqueue {
            link.extras_mut().script = script;
        }
        link.refresh_rare();
        link
    }

    /// Recompute the flag that sends a transmission start down the rare path.
    fn refresh_rare(&mut self) {
        let (down, script) = (self.down(), self.script());
        self.rare = self.tap || !down.is_empty() || (!script.is_empty() && !script.at_enqueue);
    }

    /// Give every packet a random extra propagation delay (`spec`), drawn from `rng`.
    pub fn set_jitter(&mut self, spec: JitterSpec, rng: Rng) {
        debug_assert!(self.on_line() == 0, "jitter is set before the run");
        self.jitter = spec.max > 0;
        self.reorder = self.jitter && spec.reorder;
        // A jittered FIFO enqueues by the special path ([`Link::enqueue_special`]), so the
        // others' fast path has no test for it.
        self.before_queue |= self.jitter;
        self.extras_mut().jitter = self.jitter.then(|| Jitter {
            spec,
            rng,
            last: 0,
            inside: Default::default(),
        });
    }

    /// The random part of the propagation delay, if the link has one.
    pub fn jitter(&self) -> Option<JitterSpec> {
        self.extras.as_ref()?.jitter.as_ref().map(|j| j.spec)
    }

    /// The extras, made on first use.
    fn extras_mut(&mut self) -> &mut Extras {
        self.extras.get_or_insert_with(Box::default)
    }

    /// True when the capture tap holds packets the engine has not taken yet.
    #[inline]
    pub fn has_tapped(&self) -> bool {
        self.tap && self.extras.as_ref().is_some_and(|x| !x.tapped.is_empty())
    }

    /// The captured packets the engine has not taken yet (transmission start, packet); give
    /// the emptied buffer back with [`Link::return_tapped`].
    pub fn take_tapped(&mut self) -> Vec<(Time, Packet)> {
        self.extras
            .as_mut()
            .map_or_else(Vec::new, |x| std::mem::take(&mut x.tapped))
    }

    /// Hand back the buffer [`Link::take_tapped`] gave, emptied, to be filled again.
    pub fn return_tapped(&mut self, mut buffer: Vec<(Time, Packet)>) {
        buffer.clear();
        self.extras_mut().tapped = buffer;
    }

    /// Record every packet as its transmission starts (for packet captures), or stop.
    pub fn set_tap(&mut self, on: bool) {
        self.tap = on;
        self.refresh_rare();
    }

    /// True when every packet is recorded as its transmission starts.
    pub fn tap(&self) -> bool {
        self.tap
    }

    /// Set the intervals [from, to) during which the link is down: a packet whose
    /// transmission starts then is lost ([`DropCause::LinkDown`]).
    pub fn set_down(&mut self, spans: Vec<(Time, Time)>) {
        if !spans.is_empty() || self.extras.is_some() {
            self.extras_mut().down = spans;
        }
        self.refresh_rare();
    }

    /// The intervals during which the link is down.
    pub fn down(&self) -> &[(Time, Time)] {
        self.extras.as_ref().map_or(&[], |x| &x.down)
    }

    /// The random loss process.
    pub fn loss(&self) -> &LossModel {
        &self.loss
    }

    /// The scripted drops.
    pub fn script(&self) -> &ScriptedDrops {
        self.extras.as_ref().map_or(&NO_SCRIPT, |x| &x.script)
    }

    /// Bring the waiting queue and its time integrals up to `now`: packets whose transmission
    /// has started leave the waiting queue.
    #[inline(always)]
    fn advance(&mut self, now: Time) {
        if self.scheduled {
            self.integrate_scheduled(now);
            return;
        }
        // A FIFO packet's wait went into the queue integrals when it was accepted.
        if self.busy_until <= now {
            // Idle: every waiting packet has started (the last one starts before the link
            // falls idle), so empty the queue without reading it, which with many links is
            // a cache miss.
            self.waiting.clear();
            return;
        }
        // The rate lies in a cold line: read only for a size the cache does not hold.
        let (sizes, times, rate) = (&self.tx_sizes, &self.tx_times, &self.rate_bps);
        self.waiting
            .advance(now, |size| cached_tx(sizes, times, size, rate));
    }

    /// Packets and bytes waiting (not being transmitted), as last brought up to date.
    #[inline]
    fn waiting_counts(&self) -> (usize, u64) {
        if !self.scheduled {
            return (self.waiting.len(), self.waiting.bytes());
        }
        self.scheduled_counts()
    }

    /// [`Link::waiting_counts`] of a link with a scheduler: out of line, so that the
    /// dispatch over the disciplines stays out of the FIFO links' per-packet code.
    #[inline(never)]
    fn scheduled_counts(&self) -> (usize, u64) {
        let s = self
            .sched
            .as_ref()
            .expect("a scheduled link has a scheduler");
        (s.sched.len(), s.sched.bytes())
    }

    /// Bring a scheduled link's queue integrals up to `t` (a FIFO's must not be: they hold
    /// its packets' whole waits already). Out of line, as [`Link::scheduled_counts`].
    #[inline(never)]
    fn integrate_scheduled(&mut self, t: Time) {
        debug_assert!(self.scheduled, "a FIFO's waits are added at acceptance");
        let (n, b) = self.waiting_counts();
        let s = self
            .sched
            .as_mut()
            .expect("a scheduled link has a scheduler");
        if n > 0 {
            let dt = (t - s.stats_t) as u128;
            self.stats.queue_area += n as u128 * dt;
            self.stats.queue_byte_area += b as u128 * dt;
        }
        s.stats_t = t;
    }

    fn note_queue_peak(&mut self) {
        let (n, b) = self.waiting_counts();
        self.stats.queue_max = self.stats.queue_max.max(n as u64);
        self.stats.queue_max_bytes = self.stats.queue_max_bytes.max(b);
    }

    /// Serialisation time of a size on this link, computed (the waiting queue's rarer reads;
    /// the same values the cache of [`Link::serialise`] holds).
    fn tx_of(&self) -> impl Fn(u32) -> Time {
        let rate = self.rate_bps;
        move |size| tx_time(size, rate)
    }

    /// Serialisation time of `size` bytes, from a two-entry cache.
    #[inline]
    fn serialise(&mut self, size: u32) -> Time {
        if size < NO_SIZE && self.tx_sizes[0] as u32 == size {
            return self.tx_times[0];
        }
        if size < NO_SIZE && self.tx_sizes[1] as u32 == size {
            self.tx_sizes.swap(0, 1);
            self.tx_times.swap(0, 1);
            return self.tx_times[0];
        }
        let t = tx_time(size, self.rate_bps);
        self.tx_sizes = [size.min(NO_SIZE) as u16, self.tx_sizes[0]];
        self.tx_times = [t, self.tx_times[0]];
        t
    }

    /// Give the link a scheduler (or none: FIFO). Only before the run starts.
    pub fn set_scheduler(&mut self, sched: Option<Sched>) {
        debug_assert!(self.sched.as_ref().is_none_or(|s| s.current.is_none()));
        debug_assert!(self.on_line == 0);
        self.scheduled = sched.is_some();
        self.sched = sched.map(Scheduled::idle);
    }

    /// Packets waiting (not counting the one being transmitted) at `now`, without changing
    /// the link.
    pub fn waiting_at(&self, now: Time) -> usize {
        match &self.sched {
            None => self.waiting.waiting_at(now, self.tx_of()),
            Some(s) => s.sched.len(),
        }
    }

    /// The time at which no more than `target` packets will be waiting if nothing else
    /// arrives.
    pub fn drain_time(&self, now: Time, target: usize) -> Time {
        let waiting = self.waiting_at(now);
        if waiting <= target {
            return now;
        }
        match &self.sched {
            // The entry whose start of transmission leaves `target` behind it.
            None => self
                .waiting
                .start_of(self.waiting.len() - target - 1, self.tx_of()),
            Some(s) => {
                let per = s.sched.bytes() / s.sched.len().max(1) as u64;
                let each = tx_time(per as u32 + self.overhead, self.rate_bps);
                self.busy_until.max(now) + each * (waiting - target - 1) as u64
            }
        }
    }

    /// The queue discipline's scenario name: `"droptail"`, `"droptail_ns2"`, `"fq"` or
    /// `"ack_filter"`.
    pub fn discipline(&self) -> &'static str {
        match (&self.sched, self.ns2_limit) {
            (Some(s), _) => s.sched.name(),
            (None, true) => "droptail_ns2",
            (None, false) => "droptail",
        }
    }

    /// How many packets may wait, when the limit is given in packets: the limit itself, or
    /// one fewer under ns-2's DropTail rule (`qdisc = "droptail_ns2"`), which drops an arrival
    /// once `limit − 1` packets wait.
    pub fn limit_packets(&self) -> Option<u64> {
        match self.limit {
            QueueLimit::Packets(n) if self.ns2_limit => Some(n.saturating_sub(1)),
            QueueLimit::Packets(n) => Some(n),
            QueueLimit::Bytes(_) => None,
        }
    }

    /// Mark a packet lost by script or loss model (it still uses the link).
    #[inline(always)]
    fn decide_loss(&mut self, p: &mut Packet) {
        let script = self.script();
        if !script.is_empty() && !script.at_enqueue && script.matches(self.stats.packets_in, p) {
            p.lost = Some(DropCause::Script);
        } else if self.lossy && self.loss.lose(&mut self.rng) {
            p.lost = Some(DropCause::LossModel);
        }
    }

    /// Offer a packet to the link at `now`. Packets the queue refuses (or, with a scheduler,
    /// other packets it discards to make room) are pushed onto `dropped` with their cause.
    /// Packets chosen by a loss model or script are accepted (they use the link) but are
    /// marked lost and discarded at the far end.
    #[inline(always)]
    pub fn enqueue(
        &mut self,
        now: Time,
        p: &Packet,
        events: &mut EventQueue,
        dropped: &mut Vec<(Packet, DropCause)>,
        store: &mut PacketStore,
    ) {
        let given = Offered::Given(p);
        self.enqueue_or_pass::<false>(now, given, HOP_UNKNOWN, events, dropped, store, 0);
    }

    /// [`Link::enqueue`] of a packet in hand or resting, unchanged, in a store slot (it has
    /// just left another link): a FIFO link keeps a held packet where it is instead of
    /// copying it into a new slot, and reads of it only what a hop reads; otherwise the slot
    /// is freed. `hop` is the link direction the packet will take at the far end if the
    /// caller knows it ([`HOP_UNKNOWN`] if not): a FIFO link hands it back with the arrival
    /// ([`Link::take_arrival`]).
    ///
    /// With `PASS`, a drop-tail FIFO link hands back an intact packet that reaches the far
    /// end before `pass_before` instead of putting it on its line: (its arrival time there,
    /// its slot). The caller then offers it to the next link at that time
    /// ([`crate::engine`]'s hops without an event). 0, or `PASS` false: nothing is handed
    /// back (and with `PASS` false, nothing is checked).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue_or_pass<const PASS: bool>(
        &mut self,
        now: Time,
        p: Offered,
        hop: u32,
        events: &mut EventQueue,
        dropped: &mut Vec<(Packet, DropCause)>,
        store: &mut PacketStore,
        pass_before: Time,
    ) -> Option<(Time, u32)> {
        let wire = p.get(store).wire;
        self.advance(now);
        self.stats.packets_in += 1;
        // (Ports exist on cell links only: `cells` stands in for `port.is_some()` here, so the
        // fast path reads no cold field.)
        debug_assert!(self.port.is_none() || self.cells, "a port on a packet link");
        if self.cells || self.before_queue || self.scheduled {
            let q = *p.get(store);
            store.release(p.held());
            self.enqueue_special(now, q, events, dropped, store);
            None
        } else {
            self.enqueue_fifo::<false, PASS>(now, p, wire, hop, events, dropped, store, pass_before)
        }
    }

    /// Enqueue through an ATM port, the checks before the queue or a scheduler.
    #[inline(never)]
    fn enqueue_special(
        &mut self,
        now: Time,
        mut p: Packet,
        events: &mut EventQueue,
        dropped: &mut Vec<(Packet, DropCause)>,
        store: &mut PacketStore,
    ) {
        if self.port.is_some() && !self.port_admits(now, &mut p, dropped) {
            return;
        }
        if self.before_queue && !self.admit_before_queue(&p, dropped) {
            return;
        }
        if self.scheduled {
            self.enqueue_scheduled(now, p, events, dropped);
            return;
        }
        let (wire, given) = (p.wire, Offered::Given(&p));
        if self.jitter {
            self.enqueue_fifo::<true, false>(
                now,
                given,
                wire,
                HOP_UNKNOWN,
                events,
                dropped,
                store,
                0,
            );
        } else {
            self.enqueue_fifo::<false, false>(
                now,
                given,
                wire,
                HOP_UNKNOWN,
                events,
                dropped,
                store,
                0,
            );
        }
    }

    /// The drop-tail FIFO: admit or drop, then put the packet (of `wire` bytes) on the line
    /// with its arrival time (`JITTER`: with a random part, see [`Link::put_on_line`]), or
    /// hand it back if it arrives intact before `pass_before` (see [`Link::enqueue_or_pass`]).
    /// The packet is copied at most once, into the store (not at all when held), and its
    /// header is read only when the queue is full.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn enqueue_fifo<const JITTER: bool, const PASS: bool>(
        &mut self,
        now: Time,
        p: Offered,
        wire: u32,
        hop: u32,
        events: &mut EventQueue,
        dropped: &mut Vec<(Packet, DropCause)>,
        store: &mut PacketStore,
        pass_before: Time,
    ) -> Option<(Time, u32)> {
        let size = wire + self.overhead;
        let busy = self.busy_until > now;
        if busy && self.fifo_full(size) && !p.get(store).is_ful() {
            self.stats.drops[DropCause::Queue.index()] += 1;
            dropped.push((*p.get(store), DropCause::Queue));
            store.release(p.held());
            return None;
        }
        let start = if busy { self.busy_until } else { now };
        let lost = if self.rare {
            self.rare_start(start, p.get(store))
        } else if self.lossy && self.loss.lose(&mut self.rng) {
            Some(DropCause::LossModel)
        } else {
            p.get(store).lost
        };
        let end = start + self.serialise(size);
        self.busy_until = end;
        self.stats.busy_ns += end - start;
        if busy {
            // The queue integrals (packet·ns, byte·ns) are the sums of every packet's wait:
            // a FIFO knows it now, `start − now` ([`Link::finish`] takes off what lies past
            // the end of the run).
            let wait = (start - now) as u128;
            self.stats.queue_area += wait;
            self.stats.queue_byte_area += size as u128 * wait;
            debug_assert!(
                self.waiting.is_empty()
                    || start == self.waiting.start_of(self.waiting.len(), self.tx_of()),
                "a waiting packet starts when the last one ends"
            );
            self.waiting.push(start, size);
            self.note_queue_peak();
        }
        let slot = store.keep(p, lost);
        let arrive = end + self.delay;
        if PASS && lost.is_none() && arrive < pass_before {
            return Some((arrive, slot));
        }
        self.put_on_line::<JITTER>(arrive, slot, hop, events, store);
        None
    }

    /// Whether the waiting queue has no room for a packet of `size` bytes on the wire.
    #[inline(always)]
    fn fifo_full(&self, size: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.waiting.len() as u64 >= n,
            QueueLimit::Bytes(b) => self.waiting.bytes() + size as u64 > b,
        }
    }

    /// A FIFO transmission starting at `start` on a link with a scripted drop on the wire,
    /// outages or a capture tap: whether (and why) the packet is lost.
    #[cold]
    #[inline(never)]
    fn rare_start(&mut self, start: Time, p: &Packet) -> Option<DropCause> {
        let mut q = *p;
        self.decide_loss(&mut q);
        self.on_transmission_start(start, &mut q);
        q.lost
    }

    /// The rarely used checks before the queue: a scripted drop placed at the enqueue
    /// (ns-2's error module: the packet never uses the link) and ns-2's DropTail rule, which
    /// counts the arriving packet against the limit, also on an idle link. (A packet it
    /// admits always passes the ordinary check after it.)
    #[cold]
    #[inline(never)]
    fn admit_before_queue(&mut self, p: &Packet, dropped: &mut Vec<(Packet, DropCause)>) -> bool {
        let script = self.script();
        let cause = if script.at_enqueue && script.matches(self.stats.packets_in, p) {
            DropCause::Script
        } else if self.ns2_limit && !p.is_ful() && self.ns2_full(p) {
            DropCause::Queue
        } else {
            return true;
        };
        self.stats.drops[cause.index()] += 1;
        dropped.push((*p, cause));
        false
    }

    /// ns-2's `length + 1 >= limit` (bytes: `length + size >= limit`).
    /// (After `advance(now)` an idle link has nothing waiting.)
    fn ns2_full(&self, p: &Packet) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.waiting.len() as u64 + 1 >= n,
            QueueLimit::Bytes(b) => self.waiting.bytes() + (p.wire + self.overhead) as u64 >= b,
        }
    }

    /// Use ns-2's DropTail rule for the queue limit.
    pub fn use_ns2_limit(&mut self) {
        self.ns2_limit = true;
        self.before_queue = true;
    }

    /// An ATM switch port decides whether it takes the cell (it may mark it).
    #[inline]
    fn port_admits(
        &mut self,
        now: Time,
        p: &mut Packet,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) -> bool {
        let waiting = self.waiting_counts().0;
        let port = self.port.as_deref_mut().expect("checked by the caller");
        let Header::Cell(c) = &mut p.hdr else {
            return true;
        };
        let vc = AtmNet::index(p.flow, p.from_sender);
        match port.admit(now, vc, c, waiting) {
            Ok(()) => true,
            Err(cause) => {
                self.stats.drops[cause.index()] += 1;
                dropped.push((*p, cause));
                false
            }
        }
    }

    /// Put the packet in store slot `slot` on the line, to arrive at `arrive` (an event only
    /// for a new head); with `JITTER` (links with a random delay) plus a random part.
    #[inline(always)]
    fn put_on_line<const JITTER: bool>(
        &mut self,
        arrive: Time,
        slot: u32,
        hop: u32,
        events: &mut EventQueue,
        store: &mut PacketStore,
    ) {
        if JITTER {
            self.put_on_jittered_line(arrive, slot, hop, events, store);
            return;
        }
        let x = InFlight { arrive, slot, hop };
        if self.on_line == 0 {
            events.push(arrive, Event::LinkArrival(self.id, slot, hop));
            self.head = x;
        } else {
            store.set_next(self.tail, x);
        }
        self.tail = slot;
        self.on_line += 1;
    }

    /// The rarely used work when a transmission starts: lose the packet if the link is
    /// down, record it for a capture.
    #[cold]
    #[inline(never)]
    fn on_transmission_start(&mut self, start: Time, p: &mut Packet) {
        if p.lost.is_none() && self.down().iter().any(|&(a, b)| a <= start && start < b) {
            p.lost = Some(DropCause::LinkDown);
        }
        if self.tap {
            self.extras_mut().tapped.push((start, *p));
        }
    }

    fn start_transmission(&mut self, now: Time, mut p: Packet, events: &mut EventQueue) {
        if self.rare {
            self.on_transmission_start(now, &mut p);
        }
        let t = self.serialise(p.wire + self.overhead);
        self.busy_until = now + t;
        self.stats.busy_ns += t;
        self.sched.as_mut().expect("scheduled link").current = Some(p);
        events.push(self.busy_until, Event::LinkTxDone(self.id));
    }

    fn enqueue_scheduled(
        &mut self,
        now: Time,
        mut p: Packet,
        events: &mut EventQueue,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        // Taken by this link (a FIFO counts it as it keeps the packet in the store).
        p.hops = p.hops.wrapping_add(1);
        self.decide_loss(&mut p);
        let limit = if p.is_ful() {
            QueueLimit::Packets(u64::MAX)
        } else {
            self.limit
        };
        let s = self.sched.as_mut().expect("scheduled link");
        if s.current.is_none() && !s.sched.sees_idle_arrivals() {
            self.start_transmission(now, p, events);
            return;
        }
        let before = dropped.len();
        s.sched.enqueue(now, p, limit, dropped);
        // An idle link whose discipline saw the arrival: it may send it at once.
        let next = match s.current {
            None => s.sched.dequeue(now, dropped),
            Some(_) => None,
        };
        if let Some(next) = next {
            self.start_transmission(now, next, events);
        }
        for (_, cause) in &dropped[before..] {
            self.stats.drops[cause.index()] += 1;
        }
        self.note_queue_peak();
    }

    /// Scheduler path: the current packet has been serialised at `now`; send it down the
    /// line and start the next one. Packets the discipline discards on the way out go onto
    /// `dropped`.
    pub fn tx_done(
        &mut self,
        now: Time,
        events: &mut EventQueue,
        dropped: &mut Vec<(Packet, DropCause)>,
        store: &mut PacketStore,
    ) {
        self.advance(now);
        let p = self
            .sched
            .as_mut()
            .and_then(|s| s.current.take())
            .expect("transmission end without a packet");
        let slot = store.put(p);
        let arrive = now + self.delay;
        if self.jitter {
            self.put_on_line::<true>(arrive, slot, HOP_UNKNOWN, events, store);
        } else {
            self.put_on_line::<false>(arrive, slot, HOP_UNKNOWN, events, store);
        }
        let before = dropped.len();
        let next = self
            .sched
            .as_mut()
            .expect("scheduled link")
            .sched
            .dequeue(now, dropped);
        for (_, cause) in &dropped[before..] {
            self.stats.drops[cause.index()] += 1;
        }
        if let Some(next) = next {
            self.start_transmission(now, next, events);
        }
    }

    /// Packets the discipline marked Congestion Experienced instead of dropping.
    pub fn ecn_marks(&self) -> u64 {
        self.sched.as_ref().map_or(0, |s| s.sched.marks())
    }

    /// What a DualPI2 discipline's two queues saw (None for other links).
    pub fn dual_queue(&self) -> Option<crate::net::qdisc::DualQueueStats> {
        self.sched.as_ref().and_then(|s| s.sched.dual_queue())
    }

    /// True when the link's queue discipline may mark ECN-capable packets Congestion
    /// Experienced (an AQM with `ecn = true`, or DCTCP's step marking).
    pub fn may_mark_ecn(&self) -> bool {
        self.sched.as_ref().is_some_and(|s| s.sched.may_mark())
    }

    /// True when an active queue manager (RED, CoDel, FQ-CoDel, PIE) runs this link's queue.
    pub fn is_aqm(&self) -> bool {
        self.sched.as_ref().is_some_and(|s| s.sched.is_aqm())
    }

    /// [`Link::put_on_line`] with a random part of the delay: the packet joins the ordered
    /// line (arriving no earlier than the one ahead), or with reordering gets its own event.
    #[cold]
    #[inline(never)]
    fn put_on_jittered_line(
        &mut self,
        arrive: Time,
        slot: u32,
        hop: u32,
        events: &mut EventQueue,
        store: &mut PacketStore,
    ) {
        let j = self
            .extras
            .as_mut()
            .and_then(|x| x.jitter.as_mut())
            .expect("a jittered link has its jitter");
        let extra = (j.rng.uniform() * j.spec.max as f64) as Time;
        let mut arrive = arrive + extra.min(j.spec.max - 1);
        if self.reorder {
            j.inside.insert(slot);
            events.push(arrive, Event::ReorderedArrival(self.id, slot, hop));
            return;
        }
        arrive = arrive.max(j.last);
        j.last = arrive;
        self.put_on_line::<false>(arrive, slot, hop, events, store);
    }

    /// The store slot of the last packet on the line, if any: putting another packet on
    /// the line writes into it (the chain of the delay line).
    #[inline(always)]
    pub fn line_tail(&self) -> Option<u32> {
        (self.on_line > 0).then_some(self.tail)
    }

    /// The head packet reaches the far end at `now`; schedules the next head. The caller
    /// discards the packet if it is marked lost.
    #[inline]
    pub fn pop_arrival(
        &mut self,
        now: Time,
        events: &mut EventQueue,
        store: &mut PacketStore,
    ) -> Packet {
        let p = store.take(self.take_arrival(now, store).slot);
        if let Some(x) = self.next_arrival() {
            events.push(x.arrive, Event::LinkArrival(self.id, x.slot, x.hop));
        }
        p
    }

    /// A plain drop-tail FIFO: no cells, no checks before the queue (ns-2's limit rule,
    /// scripted drops at the enqueue), no scheduler or queue discipline (fair queueing, AQM,
    /// ECN marking), no jitter, and nothing rare at a transmission's start (capture tap,
    /// outages, scripted drops on the wire). Its state is a function of its own arrivals, in
    /// order.
    pub fn plain_fifo(&self) -> bool {
        !(self.cells || self.before_queue || self.scheduled || self.jitter || self.rare)
    }

    /// The next packet on the line (when it reaches the far end, its slot and its hop there),
    /// if there is one.
    #[inline]
    pub fn next_arrival(&self) -> Option<InFlight> {
        (self.on_line > 0).then_some(self.head)
    }

    /// The head packet reaches the far end at `now`: its store slot, which the caller reads
    /// and then frees or hands to the next link ([`Link::enqueue_or_pass`]), and the hop it
    /// takes there if known. The caller schedules (or handles at once) the next head's
    /// arrival.
    #[inline]
    pub fn take_arrival(&mut self, now: Time, store: &PacketStore) -> InFlight {
        assert!(self.on_line > 0, "arrival event without a packet");
        let head = self.head;
        debug_assert_eq!(head.arrive, now);
        self.on_line -= 1;
        if self.on_line > 0 {
            self.head = store.next_of(head.slot);
            store.prefetch(self.head.slot);
        }
        self.count_arrival(store, head.slot);
        head
    }

    /// The packet in `slot` of a link whose packets overtake one another reaches the far end
    /// ([`Event::ReorderedArrival`]); the caller reads it and frees it or hands it on.
    pub fn take_reordered(&mut self, store: &PacketStore, slot: u32) {
        let j = self.extras.as_mut().and_then(|x| x.jitter.as_mut());
        let found = j.is_some_and(|j| self.reorder && j.inside.remove(&slot));
        assert!(found, "arrival event without a packet");
        self.count_arrival(store, slot);
    }

    /// Count the packet in `slot` out of the link if it was marked lost (one that arrives
    /// intact is counted by [`Link::packets_out`]).
    #[inline(always)]
    fn count_arrival(&mut self, store: &PacketStore, slot: u32) {
        let packet = store.get(slot);
        if let Some(cause) = packet.lost {
            self.stats.drops[cause.index()] += 1;
        }
    }

    /// Packets (or cells) that reached the far end intact: those offered, less those dropped
    /// and those still inside (waiting, being transmitted or propagating). Counted here, not
    /// as each arrives, so that an arrival does not touch the counters' cache line.
    pub fn packets_out(&self, store: &PacketStore) -> u64 {
        let mut inside = 0;
        self.for_each_inside(store, &mut |_| inside += 1);
        let dropped: u64 = self.stats.drops.iter().sum();
        self.stats.packets_in - dropped - inside
    }

    /// Packets on the delay line (each resting in a slot of the store).
    pub fn on_line(&self) -> usize {
        self.on_line as usize + self.reordered().map_or(0, |j| j.inside.len())
    }

    /// The jitter of a link whose packets overtake one another.
    fn reordered(&self) -> Option<&Jitter> {
        if !self.reorder {
            return None;
        }
        self.extras.as_ref()?.jitter.as_ref()
    }

    /// Every packet inside the link: waiting, being transmitted, or propagating.
    pub fn for_each_inside(&self, store: &PacketStore, f: &mut dyn FnMut(&Packet)) {
        let mut x = self.head;
        for k in 0..self.on_line {
            if k > 0 {
                x = store.next_of(x.slot);
            }
            f(store.get(x.slot));
        }
        for &slot in self.reordered().map(|j| &j.inside).into_iter().flatten() {
            f(store.get(slot));
        }
        if let Some(s) = &self.sched {
            if let Some(p) = &s.current {
                f(p);
            }
            s.sched.for_each(f);
        }
    }

    /// Close the books at the end of the run: bring integrals to `end` and remove the part of
    /// the busy time that lies after `end`.
    pub fn finish(&mut self, end: Time) {
        self.advance(end);
        let tx_of = self.tx_of();
        for (start, size) in self.waiting.packets(tx_of) {
            let after = (start - end) as u128;
            self.stats.queue_area -= after;
            self.stats.queue_byte_area -= size as u128 * after;
        }
        if self.busy_until > end {
            self.stats.busy_ns -= self.busy_until - end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{MILLISECOND, SECOND};

    fn link(limit: QueueLimit) -> Link {
        Link::new(
            0,
            0,
            1,
            8e6, // 1 byte per microsecond
            10 * MILLISECOND,
            limit,
            LossModel::None,
            ScriptedDrops::default(),
            0,
            Rng::stream(1, "t"),
            None,
        )
    }

    fn pkt(wire: u32) -> Packet {
        Packet {
            wire,
            ..Default::default()
        }
    }

    /// A link (1 ms per 1000-byte packet, 10 ms delay) offered `n` 1000-byte packets at
    /// t = 0, none dropped, with its event queue and store.
    fn loaded(limit: QueueLimit, n: usize) -> (Link, EventQueue, PacketStore) {
        let (mut l, mut ev, mut st) = (link(limit), EventQueue::new(), PacketStore::new());
        let mut dropped = vec![];
        for _ in 0..n {
            l.enqueue(0, &pkt(1000), &mut ev, &mut dropped, &mut st);
        }
        assert!(dropped.is_empty());
        (l, ev, st)
    }

    #[test]
    fn an_idle_fifo_hop_reads_three_cache_lines() {
        use std::mem::offset_of;
        // Line 1: the queue's timing; line 2: the delay line, serialisation cache, `to` and
        // `cells`, all that an arrival at the far end reads.
        assert!(offset_of!(Link, waiting) + std::mem::size_of::<Backlog>() <= 64);
        assert!(offset_of!(Link, head) == Link::ARRIVAL_LINE && Link::ARRIVAL_LINE == 64);
        for field in [offset_of!(Link, to) + 3, offset_of!(Link, cells)] {
            assert!((64..128).contains(&field));
        }
        // Line 3: the other flags, the framing and the two counters a packet offered
        // updates.
        let stats = |field: usize| offset_of!(Link, stats) + field;
        for field in [
            offset_of!(Link, before_queue),
            offset_of!(Link, scheduled),
            offset_of!(Link, rare),
            offset_of!(Link, lossy),
            offset_of!(Link, overhead),
            stats(offset_of!(LinkStats, packets_in)),
            stats(offset_of!(LinkStats, busy_ns)) + 7,
        ] {
            assert!((128..192).contains(&field), "{field}");
        }
    }

    #[test]
    fn a_busy_fifo_hop_reads_a_fourth_cache_line_only() {
        use std::mem::{offset_of, size_of};
        // What a packet that has to wait reads and updates besides: the limit, the queue's
        // integrals and peaks, in lines 3 and 4 (not a fifth).
        let stats = |field: usize| offset_of!(Link, stats) + field;
        let first = offset_of!(Link, limit);
        let last = stats(offset_of!(LinkStats, queue_max_bytes)) + 7;
        assert!(first >= 128 && last < 256, "{first}..={last}");
        assert!(offset_of!(Link, limit) + size_of::<QueueLimit>() <= 192);
        assert!(stats(offset_of!(LinkStats, queue_area)) + 16 <= 192);
    }

    /// An idle FIFO link direction of `rate_bps`, no delay, a ten-packet queue.
    fn bare(rate_bps: f64) -> Link {
        Link::new(
            0,
            0,
            1,
            rate_bps,
            0,
            QueueLimit::Packets(10),
            LossModel::None,
            ScriptedDrops::default(),
            0,
            Rng::stream(1, "t"),
            None,
        )
    }

    #[test]
    fn the_serialisation_cache_gives_every_size_its_own_time() {
        let mut l = bare(1e6);
        // Sizes the 16-bit cache holds, one it cannot (computed each time) and the value
        // that marks its empty entries, in an order that makes every entry move.
        for size in [
            1500, 40, 1500, 70_000, 65_535, 40, 0, 65_534, 1500, 70_000, 53,
        ] {
            let want = tx_time(size, 1e6);
            let cache = (l.tx_sizes, l.tx_times);
            assert_eq!(
                cached_tx(&cache.0, &cache.1, size, &l.rate_bps),
                want,
                "{size}"
            );
            assert_eq!(l.serialise(size), want, "{size}");
        }
    }

    #[test]
    fn a_fifo_link_direction_fits_eight_cache_lines() {
        // A scheduler's state and the rare extras live in boxes: a dumbbell of 100,000
        // flows has 400,000 link directions (768 bytes each before, 307 MB).
        assert_eq!(std::mem::size_of::<Link>(), 8 * 64);
        let mut l = bare(1e9);
        assert!(l.sched.is_none() && l.extras.is_none());
        assert!(l.script().is_empty() && l.down().is_empty() && !l.has_tapped());
        l.set_down(vec![]);
        assert!(l.extras.is_none(), "no outage, no extras");
        l.set_down(vec![(5, 10)]);
        assert_eq!(l.down(), &[(5, 10)]);
        assert!(l.rare);
    }

    #[test]
    fn back_to_back_packets_arrive_one_serialisation_apart() {
        let (mut l, mut ev, mut st) = loaded(QueueLimit::Packets(10), 3);
        // First arrival at 1 ms serialisation + 10 ms delay; only the head is scheduled.
        assert_eq!(ev.len(), 1);
        let (t, _) = ev.pop().unwrap();
        assert_eq!(t, 11 * MILLISECOND);
        l.pop_arrival(t, &mut ev, &mut st);
        let (t2, _) = ev.pop().unwrap();
        assert_eq!(t2, 12 * MILLISECOND);
    }

    /// The line's tail (which the next packet put on the line writes into) is the slot of
    /// the last packet enqueued while any is on the line, and none once all have arrived.
    #[test]
    fn the_line_tail_is_the_last_packet_enqueued() {
        let mut l = link(QueueLimit::Packets(10));
        let (mut ev, mut st, mut dropped) = (EventQueue::new(), PacketStore::new(), vec![]);
        assert_eq!(l.line_tail(), None);
        let mut slots = vec![];
        for uid in 1..=3 {
            let p = Packet { uid, ..pkt(1000) };
            l.enqueue(0, &p, &mut ev, &mut dropped, &mut st);
            let tail = l.line_tail().expect("a packet on the line");
            assert_eq!(st.get(tail).uid, uid);
            slots.push(tail);
        }
        while let Some((t, _)) = ev.pop() {
            assert_eq!(l.line_tail(), Some(slots[2]));
            l.pop_arrival(t, &mut ev, &mut st);
        }
        assert_eq!(l.line_tail(), None);
    }

    /// The delay line is chained through the store's slots: a packet handed on to a second
    /// link in its own slot (becoming that line's tail and head) must not disturb the order
    /// of the packets still behind it on the first line, and each arrival names the hop
    /// given at the enqueue.
    #[test]
    fn a_chained_line_keeps_its_order_while_its_head_moves_on() {
        let mut a = link(QueueLimit::Packets(10));
        let mut b = link(QueueLimit::Packets(10));
        b.id = 1;
        let (mut ev, mut st, mut dropped) = (EventQueue::new(), PacketStore::new(), vec![]);
        for uid in 1..=4 {
            let p = Packet { uid, ..pkt(1000) };
            let given = Offered::Given(&p);
            a.enqueue_or_pass::<false>(
                0,
                given,
                10 + uid as u32,
                &mut ev,
                &mut dropped,
                &mut st,
                0,
            );
        }
        assert_eq!((a.on_line(), st.len()), (4, 4));
        let mut arrived = vec![];
        while let Some((t, e)) = ev.pop() {
            let Event::LinkArrival(id, slot_hint, hop_hint) = e else {
                panic!("only arrivals are scheduled")
            };
            let link = if id == 0 { &mut a } else { &mut b };
            let InFlight { slot, hop, .. } = link.take_arrival(t, &st);
            assert_eq!(
                (slot, hop),
                (slot_hint, hop_hint),
                "the event names the head"
            );
            let p = *st.get(slot);
            if let Some(x) = link.next_arrival() {
                ev.push(x.arrive, Event::LinkArrival(id, x.slot, x.hop));
            }
            if id == 0 {
                assert_eq!(hop, 10 + p.uid as u32);
                // On to the second link in the same slot, while the first still holds the
                // packets behind it.
                b.enqueue_or_pass::<false>(
                    t,
                    Offered::Held(slot),
                    20 + p.uid as u32,
                    &mut ev,
                    &mut dropped,
                    &mut st,
                    0,
                );
            } else {
                assert_eq!(hop, 20 + p.uid as u32);
                arrived.push((t, p.uid));
                st.free(slot);
            }
        }
        // Each packet crosses b 1 ms of serialisation and 10 ms after it left a; a sends
        // one every millisecond.
        let ms = MILLISECOND;
        assert_eq!(
            arrived,
            vec![(22 * ms, 1), (23 * ms, 2), (24 * ms, 3), (25 * ms, 4)]
        );
        assert!(dropped.is_empty());
        assert_eq!((a.on_line(), b.on_line(), st.len()), (0, 0, 0));
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let mut l = link(QueueLimit::Packets(2));
        let mut ev = EventQueue::new();
        let mut st = PacketStore::new();
        // One in service + two waiting fit; the fourth is dropped.
        for i in 0..4 {
            let mut dropped = vec![];
            l.enqueue(0, &pkt(1000), &mut ev, &mut dropped, &mut st);
            assert_eq!(!dropped.is_empty(), i == 3, "packet {i}");
        }
        // After the first two have started transmission there is room again.
        let mut dropped = vec![];
        l.enqueue(1_000_001, &pkt(1000), &mut ev, &mut dropped, &mut st);
        assert!(dropped.is_empty());
        assert_eq!(l.stats.drops[DropCause::Queue.index()], 1);
    }

    #[test]
    fn byte_limited_queue() {
        let mut l = link(QueueLimit::Bytes(1500));
        let mut ev = EventQueue::new();
        let mut st = PacketStore::new();
        let mut offer = |size| {
            let mut dropped = vec![];
            l.enqueue(0, &pkt(size), &mut ev, &mut dropped, &mut st);
            dropped.is_empty()
        };
        assert!(offer(1000)); // in service
        assert!(offer(1000)); // waiting 1000
        assert!(!offer(600)); // 1600 > 1500
        assert!(offer(500)); // 1500
    }

    #[test]
    fn utilisation_and_mean_queue() {
        // Two packets at t=0: the second waits 1 ms.
        let (mut l, _, _) = loaded(QueueLimit::Packets(100), 2);
        l.finish(SECOND);
        assert_eq!(l.stats.busy_ns, 2 * MILLISECOND);
        assert_eq!(l.stats.queue_area, MILLISECOND as u128);
        assert_eq!(l.stats.queue_max, 1);
    }

    #[test]
    fn queue_integrals_stop_at_the_end_of_the_run() {
        // Three 1000-byte packets at t=0 (1 ms each): the second waits 0–1 ms, the third
        // 0–2 ms, cut at the end, 1.5 ms: 2.5 ms of one packet waiting in all.
        let (mut l, _, _) = loaded(QueueLimit::Packets(100), 3);
        l.finish(3 * MILLISECOND / 2);
        assert_eq!(l.stats.queue_area, (5 * MILLISECOND / 2) as u128);
        assert_eq!(
            l.stats.queue_byte_area,
            1000 * (5 * MILLISECOND / 2) as u128
        );
        assert_eq!(l.stats.busy_ns, 3 * MILLISECOND / 2);
    }
}

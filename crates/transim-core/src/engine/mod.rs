//! The simulation: nodes with static routes, link directions, flows, and the event loop
//! that moves packets between them. Built from a scenario by [`crate::scenario::build()`].
//!
//! The engine knows no protocol: each flow's endpoints are a [`Transport`], and the engine
//! keeps only the books every protocol shares (packets injected, delivered, dropped by cause).

mod atm;
pub mod flow_paths;
mod hints;
mod pass_through;
mod rounds;
pub mod routes;

pub use rounds::{RoundGroup, RoundsResult, NO_GROUP};
pub use routes::{Routes, NO_ROUTE};

use crate::net::atm::layer::AtmNet;
use crate::net::host::Processor;
use crate::net::store::{deliver_hop, delivered_to, InFlight, Offered, HOP_DELIVER, HOP_UNKNOWN};
use crate::net::Header;
use crate::net::{DropCause, Link, Packet, PacketStore};
use crate::sim::events::{Event, EventQueue};
use crate::sim::Time;
use crate::trace::pcap::{node_ip, PcapSet};
use crate::trace::{packet_event, PacketTrace, TraceWindow};
use crate::transport::{Ctx, DropSite, NetView, Transport};

/// The context an endpoint runs in, borrowing the simulation's parts field by field (so the
/// flows stay free to borrow mutably beside it).
macro_rules! endpoint_ctx {
    ($sim:ident) => {
        Ctx {
            now: $sim.now,
            events: &mut $sim.events,
            out: &mut $sim.out,
            next_uid: &mut $sim.next_uid,
            net: NetView {
                links: &$sim.links,
                routes: &$sim.routes,
            },
        }
    };
}

/// The run loop calls its watcher every this many events.
pub const WATCH_EVERY: u32 = 1 << 14;

/// A flow between two nodes: its transport and the engine's books.
///
/// What every packet of the flow reads or updates comes first, in one cache line
/// (`repr(C)`, aligned to a line): with many flows each flow is out of the cache whenever one
/// of its packets arrives, and a delivery should cost one missed line here, not two.
#[repr(C, align(64))]
pub struct Flow {
    /// Both endpoints.
    pub transport: Box<dyn Transport>,
    /// Packets created by either endpoint.
    pub injected: u64,
    /// Packets that reached their destination endpoint.
    pub delivered: u64,
    /// Node of the initiating end.
    pub src: u32,
    /// Node of the responding end.
    pub dst: u32,
    // -- colder: set up once, or counted only on a drop
    /// The group of rounds the flow waits in ([`NO_GROUP`]: none).
    pub group: u32,
    /// Display name.
    pub name: String,
    /// Start time.
    pub start: Time,
    /// Drops by cause, both directions.
    pub drops: [u64; DropCause::COUNT],
    /// Drops of data-direction packets by cause.
    pub data_drops: [u64; DropCause::COUNT],
}

impl Flow {
    /// A flow with empty books.
    pub fn new(
        name: String,
        start: Time,
        src: u32,
        dst: u32,
        transport: Box<dyn Transport>,
    ) -> Self {
        Flow {
            name,
            start,
            transport,
            src,
            dst,
            group: NO_GROUP,
            injected: 0,
            delivered: 0,
            drops: [0; DropCause::COUNT],
            data_drops: [0; DropCause::COUNT],
        }
    }
}

/// Up to this many link directions and flows together, the run loop gives no cache hints
/// (their state fits in the L2 cache many times over).
const SMALL_NET: usize = 64;

/// A packet a link hands straight on ([`pass_through`]): its arrival time at the far end,
/// its store slot, and the link direction it takes there.
#[derive(Clone, Copy, Debug)]
struct Handed {
    at: Time,
    slot: u32,
    next: u32,
}

/// Trace rows handed over while a run goes on (see [`Simulation::run_streamed`]).
pub struct TraceChunk {
    /// Per traced flow: its index and the rows since the last chunk.
    pub flows: Vec<(u32, Box<dyn crate::transport::Series>)>,
    /// Packet events since the last chunk.
    pub packets: Option<PacketTrace>,
}

/// Trace rows buffered before they are handed over (about 1.5–3 MB).
pub const CHUNK_ROWS: usize = 1 << 15;

/// Packet totals checked at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Conservation {
    /// Packets created by endpoints.
    pub sent: u64,
    /// Packets delivered to endpoints.
    pub delivered: u64,
    /// Packets dropped.
    pub dropped: u64,
    /// Packets still in links at the end.
    pub in_flight: u64,
}

/// A runnable simulation.
pub struct Simulation {
    /// Current time.
    pub now: Time,
    /// End of the run.
    pub end: Time,
    /// Pending events.
    pub events: EventQueue,
    /// Node names.
    pub node_names: Vec<String>,
    /// Next hops toward every destination in use.
    pub routes: Routes,
    /// Link directions.
    pub links: Vec<Link>,
    /// Display names of link directions.
    pub link_names: Vec<String>,
    /// Flows.
    pub flows: Vec<Flow>,
    /// Optional per-packet event log.
    pub packet_trace: Option<PacketTrace>,
    /// Packet captures to write: the folder and which link directions.
    pub pcap_request: Option<(std::path::PathBuf, Vec<bool>)>,
    /// When a watcher stopped the run (None: it ran to its end).
    pub stopped_at: Option<Time>,
    /// The ATM layer (VCs), when some links carry cells.
    pub atm: Option<Box<AtmNet>>,
    /// Per node, the processor its endpoints' packets pass before the network (when the
    /// scenario gives hosts a processing time).
    pub processors: Vec<Option<Processor>>,
    /// Which router hops go without an event of their own ([`pass_through`]).
    pass: pass_through::PassThrough,
    /// Groups of flows in barrier-synchronised rounds.
    pub rounds: Vec<RoundGroup>,
    /// The packets links carry (their delay lines hold slots in it).
    pub(crate) store: PacketStore,
    /// Packet capture files, while the run writes them.
    pcap: Option<Box<PcapSet>>,
    pcap_error: Option<String>,
    out: Vec<Packet>,
    dropped: Vec<(Packet, DropCause)>,
    next_uid: u64,
    /// Events left before the watcher is called.
    countdown: u32,
    /// Per flow, what a delivery reads first, for cache hints: filled when the run starts,
    /// if hints are on.
    hints: hints::DeliveryHints,
}

/// A small network's packet store above this many bytes is worth handing back to the system
/// when the network is dropped ([`Simulation::frees_much_memory`]).
const STORE_WORTH_TRIMMING: usize = 32 << 20;

impl Simulation {
    /// True when dropping this network frees enough memory to hand back to the system at once
    /// (`sim::huge_pages::give_back_freed`): a large network (more link directions and flows
    /// than `SMALL_NET`) or a packet store past 32 MB. What a small network frees, the next
    /// run reuses; handing it back took 0.08–0.16 ms, 2–4 % of benchmark B1's whole call.
    pub fn frees_much_memory(&self) -> bool {
        self.links.len() + self.flows.len() > SMALL_NET
            || self.store.allocated_bytes() > STORE_WORTH_TRIMMING
    }

    /// Assemble a simulation from its parts.
    pub fn new(
        end: Time,
        node_names: Vec<String>,
        routes: Routes,
        links: Vec<Link>,
        link_names: Vec<String>,
        flows: Vec<Flow>,
        trace_packets: Option<(TraceWindow, Option<Vec<bool>>)>,
    ) -> Self {
        Simulation {
            now: 0,
            end,
            events: EventQueue::new(),
            node_names,
            routes,
            links,
            link_names,
            flows,
            packet_trace: trace_packets.map(|(w, f)| PacketTrace::new(w, f)),
            pcap_request: None,
            stopped_at: None,
            atm: None,
            processors: Vec::new(),
            pass: pass_through::PassThrough::default(),
            rounds: Vec::new(),
            store: PacketStore::new(),
            pcap: None,
            pcap_error: None,
            out: Vec::with_capacity(64),
            dropped: Vec::with_capacity(8),
            next_uid: 0,
            countdown: WATCH_EVERY,
            hints: hints::DeliveryHints::default(),
        }
    }

    /// Whether a router hop onto a link direction that only one link direction feeds may go
    /// without an event of its own, worked out when the packet leaves the link before (on
    /// unless set off). Off, every hop is an event: the results are the same, but for the
    /// order of equal-time ties. Large networks, and runs with a packet trace, packet
    /// captures or ATM cells, keep every event either way.
    pub fn set_pass_through(&mut self, on: bool) {
        self.pass.allowed = on;
    }

    /// Run to the end time (or until nothing is left to do). Returns the packet totals, or
    /// an error if conservation does not hold.
    pub fn run(&mut self) -> Result<Conservation, crate::Error> {
        self.run_watched(&mut |_, _| true)
    }

    /// Run as [`Simulation::run`] does, calling `watch(now, events so far)` every
    /// [`WATCH_EVERY`] events; when it returns false the run stops there (an interrupt, a
    /// wall-time limit) and the results cover the time simulated so far (`stopped_at`).
    pub fn run_watched(
        &mut self,
        watch: &mut dyn FnMut(Time, u64) -> bool,
    ) -> Result<Conservation, crate::Error> {
        self.run_streamed(watch, None)
    }

    /// Rows the traces hold now.
    fn trace_rows(&self) -> usize {
        let packets = self.packet_trace.as_ref().map_or(0, |t| t.len());
        packets
            + self
                .flows
                .iter()
                .map(|f| f.transport.trace_rows())
                .sum::<usize>()
    }

    /// Hand over the rows the traces hold; recording goes on. At the end (`last`), series
    /// that transports build only once the run is over are handed over too.
    fn drain_traces(&mut self, last: bool) -> TraceChunk {
        TraceChunk {
            flows: self
                .flows
                .iter_mut()
                .enumerate()
                .filter_map(|(i, f)| {
                    let t = f.transport.drain_trace();
                    let t = if last {
                        t.or_else(|| f.transport.take_trace())
                    } else {
                        t
                    };
                    t.map(|t| (i as u32, t))
                })
                .collect(),
            packets: self.packet_trace.as_mut().map(|t| t.drain()),
        }
    }

    /// Run as [`Simulation::run_watched`] does; with a `sink`, trace rows are handed to it in
    /// chunks of about [`CHUNK_ROWS`] as the run goes (and the rest at the end), so memory
    /// stays flat however long the run: the traces left in the results are then empty.
    pub fn run_streamed(
        &mut self,
        watch: &mut dyn FnMut(Time, u64) -> bool,
        mut sink: Option<&mut dyn FnMut(TraceChunk)>,
    ) -> Result<Conservation, crate::Error> {
        if let Some((dir, chosen)) = self.pcap_request.clone() {
            let set = PcapSet::create(&dir, &self.link_names, &chosen).map_err(|e| {
                crate::Error::Output(format!(
                    "cannot write packet captures into {}: {e}",
                    dir.display()
                ))
            })?;
            for (l, &on) in self.links.iter_mut().zip(&chosen) {
                l.set_tap(on);
            }
            self.pcap = Some(Box::new(set));
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            self.events.push(f.start, Event::FlowStart(i as u32));
            f.transport.schedule(i as u32, &mut self.events);
        }
        self.countdown = WATCH_EVERY;
        // With a handful of links and flows everything stays in the cache and the hints
        // below would be pure overhead (measured: 3 % of benchmark B1's run).
        self.store
            .set_hints(self.links.len() + self.flows.len() > SMALL_NET);
        // Hops without events only where everything stays in the cache: in a large
        // network the next link, handed a packet that reaches it only later, is touched
        // then and again when the packet leaves it (B4 at 10,000 flows was 1.15x slower
        // with them, B5 no faster).
        let traced = self.packet_trace.is_some() || self.pcap.is_some();
        self.pass.allowed &= !traced && self.atm.is_none() && !self.store.hints();
        self.pass.start(
            &self.flows,
            &self.links,
            &self.routes,
            &self.processors,
            self.end,
        );
        // Stopped by the watcher while packets handed on are due later: run on to the
        // latest of them, handing on no more (see below).
        let mut running_on = false;
        // Counting trace rows visits every flow: do it every `stride` watch points, so it
        // costs at most about a quarter of a flow visit per event however many flows run.
        let stride = (self.flows.len() / 4096).max(1) as u64;
        let mut watch_points = 0u64;
        if self.store.hints() {
            self.hints = hints::DeliveryHints::fill(&self.flows, &self.links, &self.routes);
        }
        while let Some((t, ev)) = self.events.pop_until(self.end) {
            self.now = t;
            // Fetch what an event soon to come will read while this one runs.
            if self.store.hints() {
                self.hint_next();
            }
            self.dispatch(ev);
            self.countdown -= 1;
            if self.countdown == 0 {
                self.countdown = WATCH_EVERY;
                watch_points += 1;
                self.events.adapt();
                if let Some(sink) = sink.as_mut() {
                    if watch_points.is_multiple_of(stride) && self.trace_rows() >= CHUNK_ROWS {
                        sink(self.drain_traces(false));
                    }
                }
                if !running_on && !watch(self.now, self.events.popped) {
                    if self.pass.latest <= self.now {
                        self.stopped_at = Some(self.now);
                        self.end = self.now;
                        break;
                    }
                    // Packets already handed on join their next link later than now: stop
                    // only once every enqueue up to the latest of them has happened, as
                    // though the watcher had been asked then.
                    running_on = true;
                    self.pass.stop();
                    self.end = self.pass.latest;
                }
            }
        }
        if running_on {
            self.stopped_at = Some(self.end);
        }
        if self.stopped_at.is_none() && self.events.is_empty() && self.now < self.end {
            // Nothing left to happen: the run is complete early.
            self.end = self.now;
        }
        if let Some(sink) = sink.as_mut() {
            sink(self.drain_traces(true));
        }
        let end = self.end;
        for l in &mut self.links {
            l.finish(end);
        }
        if let Some(p) = self.pcap.as_mut() {
            if let Err(e) = p.finish() {
                self.pcap_error.get_or_insert(e.to_string());
            }
        }
        if let Some(e) = &self.pcap_error {
            return Err(crate::Error::Output(format!(
                "writing the packet captures failed: {e}"
            )));
        }
        self.check_conservation().map_err(crate::Error::Engine)
    }

    /// Fetch what an event soon to come ([`EventQueue::peek_ahead`]: the next, or in a busy
    /// network the one after) will most likely read: the packet it hands over, the one
    /// cache line of its link that an arrival reads, and the three of the link it goes on to
    /// that an enqueue reads (with many links they are usually out of the cache by now); or
    /// for a timer, the state of the end that handles it.
    #[inline(always)]
    fn hint_next(&mut self) {
        let ahead = self.events.peek_ahead();
        if let Some(Event::Timer { flow, timer }) = ahead {
            self.hints.prefetch_timer(flow, timer);
        } else if let Some(Event::LinkArrival(l, slot, hop)) = ahead {
            self.hint_arrival(l, slot, hop);
        }
    }

    /// [`Simulation::hint_next`] for a link arrival `(l, slot, hop)`.
    #[inline(always)]
    fn hint_arrival(&mut self, l: u32, slot: u32, hop: u32) {
        if hop < HOP_DELIVER {
            // Passing through: the hop reads only the slot's second line.
            self.store.prefetch_hop_line(slot);
        } else {
            self.store.prefetch(slot);
        }
        if let Some(link) = self.links.get(l as usize) {
            let line = link as *const Link as usize + Link::ARRIVAL_LINE;
            crate::sim::prefetch::prefetch_addr(line, 1);
        }
        if let Some(link) = self.links.get(hop as usize) {
            crate::sim::prefetch::prefetch(link, hints::LINK_LINES);
        } else if let Some((flow, from_sender)) = delivered_to(hop) {
            self.hints.prefetch(flow, from_sender);
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::LinkArrival(l, _, hop) => {
                if self.store.hints() {
                    // The link onward was fetched one event ago; the slot its line's last
                    // packet rests in, which the hand-over writes, was not.
                    if let Some(tail) = self.links.get(hop as usize).and_then(Link::line_tail) {
                        self.store.prefetch_hop_line(tail);
                    }
                }
                // A train of packets (a frame's cells, a window's segments) on one link: while
                // the next arrival is strictly earlier than every pending event, the heap
                // would hand it back next anyway, so handle it here without a push and a pop.
                // The order of everything is unchanged (ties still go through the heap).
                loop {
                    let link = &mut self.links[l as usize];
                    let InFlight { slot, hop, .. } = link.take_arrival(self.now, &self.store);
                    // The next packet on the line, read before this one is handed on: one
                    // put on an empty line meanwhile (handed on to this link from elsewhere)
                    // has an event of its own.
                    let next = link.next_arrival();
                    let (to, cells) = (link.to, link.cells);
                    let q = self.store.get(slot);
                    if q.lost.is_none() && !cells && q.dst != to {
                        // Passing through a router (cells travel on cell links only): the
                        // packet stays in its slot, and only the slot's second line is read.
                        debug_assert!(
                            !matches!(q.hdr, Header::Cell(_)),
                            "a cell off a packet link"
                        );
                        debug_assert!(
                            self.pass.feeds(l, hop),
                            "link {hop} has another sole feeder than link {l}"
                        );
                        self.forward(to, Offered::Held(slot), hop);
                    } else {
                        let p = *q;
                        if let Some(cause) = p.lost {
                            self.store.free(slot);
                            self.count_drop(&p, cause, l);
                        } else {
                            self.arrive(to, &p, Some(slot), hop);
                        }
                    }
                    let Some(InFlight {
                        arrive: t,
                        slot,
                        hop,
                    }) = next
                    else {
                        break;
                    };
                    let earliest = self.events.peek_time().is_none_or(|h| t < h);
                    // Each one counts as an event, also towards the watcher's cadence.
                    if self.countdown > 1 && earliest && t <= self.end {
                        self.countdown -= 1;
                        self.now = t;
                        self.events.popped += 1;
                    } else {
                        self.events.push(t, Event::LinkArrival(l, slot, hop));
                        break;
                    }
                }
            }
            Event::LinkTxDone(l) => {
                let link = &mut self.links[l as usize];
                link.tx_done(
                    self.now,
                    &mut self.events,
                    &mut self.dropped,
                    &mut self.store,
                );
                if link.has_tapped() {
                    self.capture(l);
                }
                while let Some((d, cause)) = self.dropped.pop() {
                    self.count_drop(&d, cause, l);
                }
            }
            Event::FlowStart(f) => {
                let mut ctx = endpoint_ctx!(self);
                self.flows[f as usize].transport.start(&mut ctx);
                self.flush();
            }
            Event::Timer { flow, timer } => {
                let mut ctx = endpoint_ctx!(self);
                self.flows[flow as usize]
                    .transport
                    .on_timer(timer, &mut ctx);
                self.flush();
            }
            Event::CellSend(vc) => self.abr_send(vc),
            Event::HostReady(node) => {
                let pr = self.processors[node as usize]
                    .as_mut()
                    .expect("events only for hosts with a processor");
                let p = pr.pop(self.now, &mut self.events);
                self.forward(node, Offered::Given(&p), HOP_UNKNOWN);
            }
            Event::NextRound(g) => self.next_round(g),
            Event::RoundReached(f) => self.round_progress(f),
            Event::ReorderedArrival(l, slot, hop) => self.reordered_arrival(l, slot, hop),
            Event::DropNotice(l, slot) => self.drop_notice(l, slot),
        }
    }

    /// A packet of a link whose packets overtake one another reaches the far end (its own
    /// event): handed on or delivered as the run loop does a line's head.
    #[cold]
    #[inline(never)]
    fn reordered_arrival(&mut self, l: u32, slot: u32, hop: u32) {
        let link = &mut self.links[l as usize];
        link.take_reordered(&self.store, slot);
        let to = link.to;
        let p = *self.store.get(slot);
        if let Some(cause) = p.lost {
            self.store.free(slot);
            self.count_drop(&p, cause, l);
        } else if p.dst != to {
            self.forward(to, Offered::Held(slot), hop);
        } else {
            self.arrive(to, &p, Some(slot), hop);
        }
    }

    /// A packet arrives at `node`, from a link that kept it in store slot `held` if any:
    /// deliver it to its endpoint or forward it (in the same slot, and by link direction
    /// `hop` if it names one: below [`HOP_DELIVER`]).
    #[inline(always)]
    fn arrive(&mut self, node: u32, p: &Packet, held: Option<u32>, hop: u32) {
        if let Header::Cell(c) = p.hdr {
            self.store.release(held);
            self.cell_arrive(node, *p, c);
        } else if node == p.dst {
            self.store.release(held);
            let f = &mut self.flows[p.flow as usize];
            f.delivered += 1;
            if let Some(tr) = self.packet_trace.as_mut() {
                tr.record(self.now, packet_event::DELIVER, p, -1, -1);
            }
            let mut ctx = endpoint_ctx!(self);
            f.transport.on_packet(p, &mut ctx);
            self.hints
                .refresh(p.flow, p.from_sender, f.transport.as_ref());
            self.flush();
        } else {
            let p = match held {
                Some(slot) => Offered::Held(slot),
                None => Offered::Given(p),
            };
            self.forward(node, p, hop);
        }
    }

    /// Send `p` on from `node` by its route (`hop`, when the link it came by had looked it
    /// up already; any value from [`HOP_DELIVER`] up, [`HOP_UNKNOWN`] included, names no
    /// link). A packet that has just left a link is still in its store slot
    /// ([`Offered::Held`]) and is read there, not copied.
    #[inline(always)]
    fn forward(&mut self, node: u32, p: Offered, hop: u32) {
        let q = p.get(&self.store);
        let (dst, flow) = (q.dst, q.flow);
        let l = if hop < HOP_DELIVER {
            debug_assert_eq!(hop, self.routes.next_packet(node, dst, flow, q.uid));
            hop
        } else {
            self.routes.next_at(node, dst, flow, q.hops as u32, &q.uid)
        };
        debug_assert_ne!(
            l, NO_ROUTE,
            "routes are validated when the scenario is built"
        );
        if self.links[l as usize].cells {
            // The packet enters its VC here: the adapter turns it into cells.
            let q = *p.get(&self.store);
            self.store.release(p.held());
            self.segment(q);
            return;
        }
        self.offer(l, p);
    }

    /// Offer a packet (or cell) to link direction `l`; count what the link drops.
    #[inline(always)]
    fn enqueue_on(&mut self, l: u32, p: &Packet) {
        self.offer(l, Offered::Given(p));
    }

    /// [`Simulation::enqueue_on`] of a packet in hand or still in a store slot. The route
    /// onward from the far end is looked up here rather than on arrival, so that the
    /// arrival event can name the next link for the prefetch.
    #[inline(always)]
    fn offer(&mut self, l: u32, p: Offered) {
        if !self.pass.active() {
            self.offer_at::<false>(l, p, self.now);
        } else if let Some(handed) = self.offer_at::<true>(l, p, self.now) {
            self.pass.latest = self.pass.latest.max(handed.at);
            self.pass_on(handed);
        }
    }

    /// Offer a packet to link direction `l` at time `at` (now, or later for a packet handed
    /// on: [`pass_through`]). If `l` hands it straight on: (its arrival at the far end, its
    /// slot, the link direction it takes there). `PASS` false: no hop passes through (none
    /// is even looked for).
    #[inline(always)]
    fn offer_at<const PASS: bool>(&mut self, l: u32, p: Offered, at: Time) -> Option<Handed> {
        let q = p.get(&self.store);
        let (dst, flow, from_sender, hops) = (q.dst, q.flow, q.from_sender, q.hops);
        let link = &self.links[l as usize];
        let hop = if link.cells {
            HOP_UNKNOWN
        } else if link.to == dst {
            if self.store.hints() && link.delay == 0 {
                // Without propagation delay the delivery is likely the very next event, too
                // late for the run loop's hint one event ahead: fetch what it reads now.
                self.hints.prefetch(flow, from_sender);
                if let Some(slot) = p.held() {
                    self.store.prefetch(slot);
                }
            }
            deliver_hop(flow, from_sender)
        } else {
            // The link about to take it is its hop number `hops`; the far end's is the next.
            let l = self
                .routes
                .next_at(link.to, dst, flow, hops as u32 + 1, &q.uid);
            debug_assert_eq!(l, self.routes.next_packet(link.to, dst, flow, q.uid));
            l
        };
        let pass_before = if PASS { self.pass.before(l, hop) } else { 0 };
        let link = &mut self.links[l as usize];
        let handed = link.enqueue_or_pass::<PASS>(
            at,
            p,
            hop,
            &mut self.events,
            &mut self.dropped,
            &mut self.store,
            pass_before,
        );
        if link.has_tapped() {
            self.capture(l);
        }
        while let Some((d, cause)) = self.dropped.pop() {
            if PASS && at > self.now {
                // Taken ahead of time: its flow hears of the drop when it happens.
                let slot = self.store.keep(Offered::Given(&d), Some(cause));
                self.events.push(at, Event::DropNotice(l, slot));
            } else {
                self.count_drop(&d, cause, l);
            }
        }
        handed.map(|(at, slot)| Handed {
            at,
            slot,
            next: hop,
        })
    }

    /// A packet link direction `l` dropped when it took it ahead of time (in `slot`, its
    /// cause as `lost`) would have reached `l` now: count the drop, and tell its flow.
    #[cold]
    #[inline(never)]
    fn drop_notice(&mut self, l: u32, slot: u32) {
        let p = *self.store.get(slot);
        self.store.free(slot);
        let cause = p.lost.expect("a drop notice carries its cause");
        self.count_drop(&p, cause, l);
    }

    /// Carry a packet that a link direction handed on ([`Simulation::offer_at`]) to each
    /// next link in turn, at its arrival there, for as long as they hand it on.
    fn pass_on(&mut self, mut handed: Handed) {
        loop {
            let Handed { at, slot, next } = handed;
            match self.offer_at::<true>(next, Offered::Held(slot), at) {
                Some(h) => {
                    self.pass.latest = self.pass.latest.max(h.at);
                    handed = h;
                }
                None => return,
            }
        }
    }

    /// Write the packets link `l` started transmitting into its capture file.
    #[cold]
    fn capture(&mut self, l: u32) {
        let Some(pcap) = self.pcap.as_mut() else {
            return;
        };
        let mut tapped = self.links[l as usize].take_tapped();
        for (t, p) in tapped.drain(..) {
            let (src, dst) = (node_ip(p.src), node_ip(p.dst));
            let transport = &self.flows[p.flow as usize].transport;
            let proto = match transport.wire_bytes(&p, src, dst, pcap.transport_buf()) {
                Some(proto) => proto,
                None => match p.hdr {
                    Header::Datagram(d) => pcap.udp(&p, d.seq, d.len),
                    _ => continue,
                },
            };
            if let Err(e) = pcap.write(l, t, &p, proto) {
                self.pcap_error.get_or_insert(e.to_string());
            }
        }
        self.links[l as usize].return_tapped(tapped);
    }

    /// Paths of the packet captures written.
    pub fn pcap_paths(&self) -> Vec<std::path::PathBuf> {
        self.pcap.as_ref().map_or(vec![], |p| p.paths.clone())
    }

    fn count_drop(&mut self, p: &Packet, cause: DropCause, link: u32) {
        if let Header::Cell(_) = p.hdr {
            let atm = self
                .atm
                .as_mut()
                .expect("cells exist only with an ATM layer");
            atm.dir_mut(p.flow, p.from_sender).books.dropped[cause.index()] += 1;
            return;
        }
        let f = &mut self.flows[p.flow as usize];
        f.drops[cause.index()] += 1;
        if p.from_sender {
            f.data_drops[cause.index()] += 1;
        }
        let site = DropSite {
            link,
            from: self.links[link as usize].from,
        };
        f.transport.on_drop(p, cause, site);
        if let Some(tr) = self.packet_trace.as_mut() {
            tr.record(
                self.now,
                packet_event::DROP,
                p,
                link as i32,
                cause.index() as i8,
            );
        }
    }

    /// Inject the packets endpoints produced.
    #[inline]
    fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        // By reference: the link copies each packet once, into the store.
        for p in &out {
            self.flows[p.flow as usize].injected += 1;
            if let Some(tr) = self.packet_trace.as_mut() {
                tr.record(self.now, packet_event::SEND, p, -1, -1);
            }
            match self.processors.get_mut(p.src as usize) {
                Some(Some(pr)) => pr.accept(self.now, *p, &mut self.events),
                _ => self.forward(p.src, Offered::Given(p), HOP_UNKNOWN),
            }
        }
        out.clear();
        // Endpoints never produce packets while we forward (forwarding is immediate), so the
        // buffer we took is still the one to keep.
        debug_assert!(self.out.is_empty());
        self.out = out;
    }

    /// Every packet created is delivered, dropped, or still inside a link.
    pub fn check_conservation(&self) -> Result<Conservation, String> {
        let mut in_flight = vec![0u64; self.flows.len()];
        let mut cells_inside = vec![0u64; 2 * self.flows.len()];
        for l in &self.links {
            l.for_each_inside(&self.store, &mut |p| match p.hdr {
                Header::Cell(_) => cells_inside[AtmNet::index(p.flow, p.from_sender) as usize] += 1,
                _ => in_flight[p.flow as usize] += 1,
            });
        }
        if let Some(atm) = &self.atm {
            self.check_cells(atm, &cells_inside, &mut in_flight)?;
        }
        for pr in self.processors.iter().flatten() {
            pr.inside().for_each(|p| in_flight[p.flow as usize] += 1);
        }
        // Every packet on a delay line rests in one store slot, and no other slot is held:
        // a slot passed from link to link is neither lost nor kept twice.
        let on_lines: usize = self.links.iter().map(|l| l.on_line()).sum();
        if on_lines != self.store.len() {
            return Err(format!(
                "packet store holds {} packets but the links' delay lines {}",
                self.store.len(),
                on_lines
            ));
        }
        let mut total = Conservation::default();
        for (i, f) in self.flows.iter().enumerate() {
            let dropped: u64 = f.drops.iter().sum();
            if f.injected != f.delivered + dropped + in_flight[i] {
                return Err(format!(
                    "packet conservation violated for flow {:?}: sent {} != delivered {} + dropped {} + in flight {}",
                    f.name, f.injected, f.delivered, dropped, in_flight[i]
                ));
            }
            total.sent += f.injected;
            total.delivered += f.delivered;
            total.dropped += dropped;
            total.in_flight += in_flight[i];
        }
        Ok(total)
    }
}

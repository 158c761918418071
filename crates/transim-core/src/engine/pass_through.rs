//! Router hops worked out without an event of their own.
//!
//! A packet's arrival at a router is an event so that it joins its next link's queue at the
//! right moment among packets from other links. When only one link direction ever feeds
//! that next link (every route through it comes in by that one), nothing competes there:
//! a drop-tail FIFO's state is a function of its own arrivals, in order, and they come in
//! the order the feeder sends them. So when the feeder puts an intact packet on its line,
//! its arrival time at the router is known, and the next link can take it then, at that
//! (later) time, with the same outcome. In a dumbbell with one flow that is two thirds of
//! all events.
//!
//! Only in small networks (at most 64 link directions and flows, whose state stays in the
//! cache): in a large one, the next link would be touched when the packet is handed to it,
//! long before the packet leaves it, and again then, each time out of the cache. Measured
//! with hops handed on there too: B4 at 10,000 flows (a third of its events are hops onto
//! an exit link) took 1.12–1.17× as long, and B5 gained at most 6 %, whether the next
//! link took the packet at once or one event later (so that it could be fetched first).
//!
//! What keeps its event: a packet marked lost on the feeder (its drop is told at its
//! arrival), one arriving at the run's end or later, one delivered at the far end, and
//! every hop onto a link that is not a plain drop-tail FIFO ([`Link::plain_fifo`]) or whose
//! feeder's far end has a processor. Runs with packets sprayed over equal-cost paths, a
//! packet trace, packet captures or ATM cells keep every event. A packet the next link
//! drops is dropped when it is handed on, but its flow hears of it at its own time
//! ([`crate::sim::events::Event::DropNotice`]).
//!
//! A watcher that stops the run (an interrupt, a wall-time limit) stops it once every
//! packet already handed on has reached its next link, a moment later.
//!
//! Equal-time ties can come out in another order than with every hop an event, since the
//! next link's events are scheduled at other moments; each run stays deterministic.

use super::routes::Routes;
use super::Flow;
use crate::net::host::Processor;
use crate::net::Link;
use crate::sim::Time;

/// No link direction feeds this one alone (or hops onto it keep their events).
const NO_FEEDER: u32 = u32::MAX;
/// Fed by an endpoint, or by several link directions.
const SHARED: u32 = u32::MAX - 1;

/// Which link directions hand their packets straight on, and until when.
#[derive(Debug)]
pub(super) struct PassThrough {
    /// Per link direction, the one link direction that feeds it and hands packets straight
    /// on to it, or [`NO_FEEDER`]; empty when nothing passes through.
    feeder: Vec<u32>,
    /// Packets are handed on only if they arrive strictly before this time (0: none).
    before: Time,
    /// The latest arrival time a packet was handed on at.
    pub(super) latest: Time,
    /// Whether hops may pass through at all ([`super::Simulation::set_pass_through`]).
    pub(super) allowed: bool,
}

impl Default for PassThrough {
    fn default() -> Self {
        PassThrough {
            feeder: Vec::new(),
            before: 0,
            latest: 0,
            allowed: true,
        }
    }
}

impl PassThrough {
    /// As a run starts (ending at `end`): find each link direction's sole feeder from the
    /// routes of every flow, both ways along every pair of nodes its packets travel.
    pub(super) fn start(
        &mut self,
        flows: &[Flow],
        links: &[Link],
        routes: &Routes,
        processors: &[Option<Processor>],
        end: Time,
    ) {
        self.feeder.clear();
        self.latest = 0;
        self.before = end.saturating_add(1);
        if !self.allowed || routes.per_packet() {
            // Sprayed packets of one flow reach a link by several ways.
            return;
        }
        let mut feeder = vec![NO_FEEDER; links.len()];
        let mut hops = Vec::new();
        for (i, f) in flows.iter().enumerate() {
            let mut pairs = f.transport.other_node_pairs();
            pairs.push((f.src, f.dst));
            for (a, b) in pairs {
                for (from, to) in [(a, b), (b, a)] {
                    walk(&mut feeder, links, routes, (i as u32, from, to), &mut hops);
                }
            }
        }
        let with_processor = |node: u32| processors.get(node as usize).is_some_and(Option::is_some);
        for (l, f) in feeder.iter_mut().enumerate() {
            let keeps = *f >= links.len() as u32
                || !links[l].plain_fifo()
                || with_processor(links[*f as usize].to);
            if keeps {
                *f = NO_FEEDER;
            }
        }
        if feeder.iter().any(|&f| f != NO_FEEDER) {
            self.feeder = feeder;
        }
    }

    /// Whether any hop passes through in this run.
    #[inline(always)]
    pub(super) fn active(&self) -> bool {
        !self.feeder.is_empty()
    }

    /// Hand no more packets on (a watcher stopped the run).
    pub(super) fn stop(&mut self) {
        self.before = 0;
    }

    /// For a packet link direction `l` takes that goes on by `hop` at its far end: the time
    /// before which `l` hands it straight on ([`Link::enqueue_or_pass`]), or 0.
    #[inline(always)]
    pub(super) fn before(&self, l: u32, hop: u32) -> Time {
        if self.feeder.get(hop as usize) == Some(&l) {
            self.before
        } else {
            0
        }
    }

    /// Whether link direction `l` may feed `hop` (false: `hop` was found to have another
    /// sole feeder, which a route left out of [`PassThrough::start`] would cause).
    pub(super) fn feeds(&self, l: u32, hop: u32) -> bool {
        self.feeder
            .get(hop as usize)
            .is_none_or(|&f| f == NO_FEEDER || f == l)
    }

    /// Whether hops onto link direction `l` pass through, and from which link direction.
    #[cfg(test)]
    pub(super) fn feeder_of(&self, l: u32) -> Option<u32> {
        self.feeder
            .get(l as usize)
            .copied()
            .filter(|&f| f != NO_FEEDER)
    }
}

/// Note, for every link direction on the route of flow `flow` from node `from` to node
/// `to` (as far as it goes), the link direction that fed it there ([`SHARED`] after a second
/// one, or when an endpoint feeds it). `hops` is scratch space.
fn walk(
    feeder: &mut [u32],
    links: &[Link],
    routes: &Routes,
    (flow, from, to): (u32, u32, u32),
    hops: &mut Vec<(u32, u32)>,
) {
    routes.follow(|l| links[l as usize].to, flow, from, to, hops);
    let mut came_by = SHARED;
    for &(_, l) in hops.iter() {
        let f = &mut feeder[l as usize];
        if *f == NO_FEEDER {
            *f = came_by;
        } else if *f != came_by {
            *f = SHARED;
        }
        came_by = l;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A multi-homed association between s1/s2 and c1/c2 over two disjoint paths
    /// (s1 – r1 – c1, s2 – r2 – c2); `trace`: with a packet trace.
    fn two_paths(trace: bool) -> crate::engine::Simulation {
        let sc = crate::scenario::parse(json!({
            "duration": "1s",
            "topology": {"kind": "explicit", "nodes": ["s1", "s2", "r1", "r2", "c1", "c2"],
                "links": [
                {"between": ["s1", "r1"], "rate": "100Mbps"},
                {"between": ["r1", "c1"], "rate": "10Mbps", "delay": "10ms"},
                {"between": ["s2", "r2"], "rate": "100Mbps"},
                {"between": ["r2", "c2"], "rate": "10Mbps", "delay": "25ms"}]},
            "flows": [{"src": "s1", "dst": "c1", "protocol": "sctp",
                       "paths": [{"src": "s2", "dst": "c2"}]}],
            "trace": {"packets": trace}
        }))
        .unwrap();
        crate::scenario::build(&sc).unwrap()
    }

    /// Each link after a router is fed by the link into that router alone, on the
    /// association's second path as on its first (its packets use both); a link an
    /// endpoint feeds has no sole feeder.
    #[test]
    fn every_path_of_a_flow_counts() {
        let mut sim = two_paths(false);
        sim.run().unwrap();
        let id = |name: &str| sim.link_names.iter().position(|n| n == name).unwrap() as u32;
        let feeder = |name: &str| sim.pass.feeder_of(id(name));
        assert_eq!(feeder("r1->c1"), Some(id("s1->r1")));
        assert_eq!(feeder("r2->c2"), Some(id("s2->r2")));
        assert_eq!(feeder("r1->s1"), Some(id("c1->r1")));
        assert_eq!(feeder("r2->s2"), Some(id("c2->r2")));
        for endpoint_fed in ["s1->r1", "s2->r2", "c1->r1", "c2->r2"] {
            assert_eq!(feeder(endpoint_fed), None, "{endpoint_fed}");
        }
    }

    /// With a packet trace every hop keeps its event (the trace records each arrival).
    #[test]
    fn a_packet_trace_keeps_every_event() {
        let mut sim = two_paths(true);
        sim.run().unwrap();
        assert!((0..sim.links.len() as u32).all(|l| sim.pass.feeder_of(l).is_none()));
    }
}

//! Cache hints ahead of a delivery. With many flows, the state a delivered packet's handler
//! reads first is out of the cache: the endpoint itself, a place in it that moves as the
//! transfer goes on (TCP's oldest unacknowledged segment, which an ACK walks first), the link
//! its reply leaves by, and the flow's hot line (its transport and counters). The run loop
//! sees the delivery one event ahead (its delay-line entry names the flow) and fetches all of
//! them then, so the loads overlap with the current event's work; and when the packet enters
//! the link that delivers it, in case that link has no delay and the delivery comes next.

use super::routes::{Routes, NO_ROUTE};
use super::Flow;
use crate::net::Link;
use crate::sim::events::TimerId;
use crate::sim::prefetch::prefetch_addr;
use crate::transport::Transport;

/// Cache lines fetched of the handling endpoint's state. A TCP sender's fields an ACK reads
/// span its first 14 lines and a receiver is 6; 8 (B4 at 10,000 flows 0.967 ± 0.013 of the
/// run time with 4, B5 0.973 ± 0.012) did better than 4 or all 14 (0.991 ± 0.014).
const STATE_LINES: usize = 8;
/// Cache lines fetched at the place in it that moves.
const MOVING_LINES: usize = 2;
/// Cache lines fetched of a link (the ones a FIFO hop reads: see [`Link`]'s layout).
pub(super) const LINK_LINES: usize = 3;

/// Where the handling of a packet in one direction reads first (0: no hint).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ahead {
    /// The endpoint's state ([`Transport::hot_state`]).
    state: usize,
    /// The place in it that moves ([`Transport::hot_state`]).
    moving: usize,
    /// The link its reply leaves by.
    uplink: usize,
}

/// One flow's hints, a cache line of its own: for a packet from the receiver (`dir[0]`,
/// handled by the sender) and from the sender (`dir[1]`), and the flow's hot line (its
/// transport and counters: see [`Flow`]).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct FlowHints {
    dir: [Ahead; 2],
    flow: usize,
    /// The timers the receiving end handles ([`Transport::receiver_timers`]).
    receiver_timers: u16,
}

/// Every flow's hints (none until [`DeliveryHints::fill`]).
#[derive(Debug, Default)]
pub(super) struct DeliveryHints {
    flows: Vec<FlowHints>,
}

impl DeliveryHints {
    /// The hints of every flow, as the run starts.
    pub(super) fn fill(flows: &[Flow], links: &[Link], routes: &Routes) -> Self {
        let uplink = |i: usize, from: u32, to: u32| match routes.next(from, to, i as u32) {
            NO_ROUTE => 0,
            l => links
                .get(l as usize)
                .map_or(0, |l| l as *const Link as usize),
        };
        let flows = flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let ahead = |from_sender: bool, node: u32, peer: u32| {
                    let (state, moving) = f.transport.hot_state(from_sender);
                    Ahead {
                        state,
                        moving,
                        uplink: uplink(i, node, peer),
                    }
                };
                FlowHints {
                    // A packet from the receiver is handled at the sender's node, which
                    // answers towards the receiver's, and the other way round.
                    dir: [ahead(false, f.src, f.dst), ahead(true, f.dst, f.src)],
                    flow: f as *const Flow as usize,
                    receiver_timers: f.transport.receiver_timers(),
                }
            })
            .collect();
        DeliveryHints { flows }
    }

    /// After `transport` handled a packet of flow `flow` (from its sender or not): ask it
    /// again where that direction's handling reads first.
    #[inline(always)]
    pub(super) fn refresh(&mut self, flow: u32, from_sender: bool, transport: &dyn Transport) {
        if let Some(h) = self.flows.get_mut(flow as usize) {
            let d = &mut h.dir[from_sender as usize];
            (d.state, d.moving) = transport.hot_state(from_sender);
        }
    }

    /// Fetch what the delivery of a packet of flow `flow` (from its sender or not) reads
    /// first.
    #[inline(always)]
    pub(super) fn prefetch(&self, flow: u32, from_sender: bool) {
        let Some(h) = self.flows.get(flow as usize) else {
            return;
        };
        let d = h.dir[from_sender as usize];
        for (addr, lines) in [
            (h.flow, 1),
            (d.state, STATE_LINES),
            (d.moving, MOVING_LINES),
            (d.uplink, LINK_LINES),
        ] {
            if addr != 0 {
                prefetch_addr(addr, lines);
            }
        }
    }

    /// Fetch what timer `timer` of flow `flow` reads when it fires: the state of the end
    /// that handles it, as for a packet delivered there. With many flows a timer finds
    /// its flow as cold as a delivery does (a delayed ACK, a retransmission timer that
    /// fires only to be set again).
    #[inline(always)]
    pub(super) fn prefetch_timer(&self, flow: u32, timer: TimerId) {
        if let Some([flow, state]) = self.timer_addresses(flow, timer) {
            for (addr, lines) in [(flow, 1), (state, STATE_LINES)] {
                if addr != 0 {
                    prefetch_addr(addr, lines);
                }
            }
        }
    }

    /// What [`DeliveryHints::prefetch_timer`] fetches: the flow's hot line and the state of
    /// the end that handles the timer.
    #[inline(always)]
    fn timer_addresses(&self, flow: u32, timer: TimerId) -> Option<[usize; 2]> {
        let h = self.flows.get(flow as usize)?;
        let at_receiver = timer < 16 && h.receiver_timers & (1 << timer) != 0;
        Some([h.flow, h.dir[at_receiver as usize].state])
    }

    /// The addresses fetched ahead of such a delivery (for tests).
    #[cfg(test)]
    pub(super) fn addresses(&self, flow: u32, from_sender: bool) -> [usize; 4] {
        let h = self.flows[flow as usize];
        let d = h.dir[from_sender as usize];
        [h.flow, d.state, d.moving, d.uplink]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One flow from A to B across router R, built, and its hints.
    fn one_flow_across_a_router() -> (crate::engine::Simulation, DeliveryHints) {
        let sc = crate::scenario::parse(json!({
            "duration": "1s",
            "topology": {"kind": "explicit", "nodes": ["A", "R", "B"], "links": [
                {"between": ["A", "R"], "rate": "100Mbps", "delay": "1ms"},
                {"between": ["R", "B"], "rate": "10Mbps", "delay": "10ms"}]},
            "flows": [{"src": "A", "dst": "B"}]
        }))
        .unwrap();
        let sim = crate::scenario::build(&sc).unwrap();
        let hints = DeliveryHints::fill(&sim.flows, &sim.links, &sim.routes);
        (sim, hints)
    }

    /// A flow across a router: a data packet's hints name the receiver's state and the
    /// receiver host's uplink, an ACK's the sender's state, its oldest unacknowledged segment
    /// and the sender host's uplink; both the flow's hot line.
    #[test]
    fn each_direction_names_its_own_end_and_uplink() {
        let (sim, hints) = one_flow_across_a_router();
        let f = &sim.flows[0];
        let link = |from: u32, to: u32| &sim.links[sim.routes.next(from, to, 0) as usize];
        let [flow, state, moving, uplink] = hints.addresses(0, true);
        assert_eq!(flow, f as *const Flow as usize);
        assert_eq!((state, moving), f.transport.hot_state(true));
        assert_eq!(uplink, link(f.dst, f.src) as *const Link as usize);
        let [flow, state, moving, uplink] = hints.addresses(0, false);
        assert_eq!(flow, f as *const Flow as usize);
        assert_eq!((state, moving), f.transport.hot_state(false));
        assert_eq!(uplink, link(f.src, f.dst) as *const Link as usize);
        assert_ne!(hints.addresses(0, true)[3], uplink);
        assert_ne!(hints.addresses(0, true)[1], state);
    }

    /// A TCP flow's delayed-ACK timer is fetched ahead as the receiver's, its retransmission
    /// timer as the sender's; a flow that does not exist names nothing.
    #[test]
    fn a_timer_names_the_end_that_handles_it() {
        use crate::tcp::timers;
        let (sim, hints) = one_flow_across_a_router();
        let f = &sim.flows[0];
        let flow = f as *const Flow as usize;
        let receiver = f.transport.hot_state(true).0;
        let sender = f.transport.hot_state(false).0;
        assert_ne!(receiver, sender);
        for t in [timers::DEL_ACK, timers::FUL, timers::WINDOW_UPDATE] {
            assert_eq!(
                hints.timer_addresses(0, t),
                Some([flow, receiver]),
                "timer {t}"
            );
        }
        for t in [
            timers::RTO,
            timers::PACE,
            timers::RACK,
            timers::TLP,
            timers::PERSIST,
        ] {
            assert_eq!(
                hints.timer_addresses(0, t),
                Some([flow, sender]),
                "timer {t}"
            );
        }
        // A switch of congestion control (ids from 16 up) is the sender's.
        assert_eq!(hints.timer_addresses(0, 40), Some([flow, sender]));
        assert_eq!(hints.timer_addresses(1, timers::RTO), None);
    }

    /// The one line fetched of a flow holds everything a delivery and a send read of it.
    #[test]
    fn a_flow_s_hot_fields_share_its_first_line() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Flow>(), 64);
        for end in [
            offset_of!(Flow, transport) + size_of::<Box<dyn Transport>>(),
            offset_of!(Flow, injected) + 8,
            offset_of!(Flow, delivered) + 8,
        ] {
            assert!(end <= 64, "a hot field of Flow ends at byte {end}");
        }
    }
}

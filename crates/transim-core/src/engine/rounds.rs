//! Barrier-synchronised rounds (`app.kind = "rounds"`): the partition/aggregate workload of
//! incast studies. Every flow of a group writes its bytes of a round; when the last of them
//! has delivered its bytes to the receiving application, every flow of the group writes the
//! next round's at that instant. The request that would carry the news from the aggregator
//! to the workers is not modelled: the workers learn it when it happens, as in ns-2 incast
//! scripts whose receiving agent's callback starts the senders.

use super::Simulation;
use crate::sim::events::Event;
use crate::sim::Time;
use crate::transport::{Ctx, NetView};
use serde::Serialize;

/// A flow outside any group of rounds.
pub const NO_GROUP: u32 = u32::MAX;

/// One group of flows that wait for each other.
#[derive(Clone, Debug)]
pub struct RoundGroup {
    /// The group's name (None: the flows that named none).
    pub name: Option<String>,
    /// Rounds in all.
    pub rounds: u32,
    /// The member flows, in flow order.
    pub flows: Vec<u32>,
    /// Each member's bytes per round.
    pub bytes: Vec<u64>,
    /// Members that have delivered the current round's bytes (each receiver tells of a
    /// round once, and cannot deliver a round before it is written).
    reached: usize,
    /// When each finished round ended.
    pub completed: Vec<Time>,
}

impl RoundGroup {
    /// A group with no round done yet.
    pub fn new(name: Option<String>, rounds: u32) -> Self {
        RoundGroup {
            name,
            rounds,
            flows: Vec::new(),
            bytes: Vec::new(),
            reached: 0,
            completed: Vec::new(),
        }
    }

    /// Add flow `flow`, sending `bytes` a round.
    pub fn join(&mut self, flow: u32, bytes: u64) {
        self.flows.push(flow);
        self.bytes.push(bytes);
    }

    /// The round under way (0-based; `rounds` once all are done).
    fn round(&self) -> u32 {
        self.completed.len() as u32
    }

    /// The group's results.
    pub fn result(&self) -> RoundsResult {
        RoundsResult {
            group: self.name.clone(),
            flows: self.flows.len(),
            rounds: self.rounds,
            bytes_per_round: self.bytes.iter().sum(),
            completed: self.completed.iter().map(|&t| t as f64 * 1e-9).collect(),
        }
    }
}

/// A group's rounds as results.json gives them.
#[derive(Clone, Debug, Serialize)]
pub struct RoundsResult {
    /// The group's name (null: the flows that named none).
    pub group: Option<String>,
    /// Member flows.
    pub flows: usize,
    /// Rounds asked for.
    pub rounds: u32,
    /// Bytes of one round, all members together.
    pub bytes_per_round: u64,
    /// When each finished round ended (s): the instant its last byte reached the last
    /// member's receiver.
    pub completed: Vec<f64>,
}

impl Simulation {
    /// `flow`'s receiver has delivered its bytes of a round ([`Event::RoundReached`]): count
    /// the flow in, and when it is the group's last, start the next round on every member.
    #[cold]
    #[inline(never)]
    pub(super) fn round_progress(&mut self, flow: u32) {
        let group = self.flows[flow as usize].group;
        let Some(g) = self.rounds.get_mut(group as usize) else {
            return;
        };
        let round = g.round();
        if round >= g.rounds {
            return;
        }
        g.reached += 1;
        if g.reached < g.flows.len() {
            return;
        }
        g.reached = 0;
        g.completed.push(self.now);
        if round + 1 < g.rounds {
            // The writes are an event of their own at this instant: a member's sender may
            // send on the very link whose arrival the run loop is handling now.
            self.events.push(self.now, Event::NextRound(group));
        }
    }

    /// Start group `group`'s next round: every member writes its bytes of it.
    #[cold]
    #[inline(never)]
    pub(super) fn next_round(&mut self, group: u32) {
        let g = &self.rounds[group as usize];
        let next = g.round();
        let last = next + 1 == g.rounds;
        let writes: Vec<(u32, u64)> = g
            .flows
            .iter()
            .zip(&g.bytes)
            .map(|(&fl, &b)| (fl, b * (next as u64 + 1)))
            .collect();
        for (fl, total) in writes {
            let mut ctx = Ctx {
                now: self.now,
                events: &mut self.events,
                out: &mut self.out,
                next_uid: &mut self.next_uid,
                net: NetView {
                    links: &self.links,
                    routes: &self.routes,
                },
            };
            self.flows[fl as usize]
                .transport
                .app_release(total, last, &mut ctx);
            self.flush();
        }
    }
}

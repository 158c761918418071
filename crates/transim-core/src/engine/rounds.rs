//! Barrier-synchronised rounds (`app.kind = "rounds"`): the partition/aggregate workload of
//! incast studies. Every flow of a group writes its bytes of a round; when the last of them
//! has delivered its bytes to the receiving application, every flow of the group writes the
//! next round's at that instant. The request that would carry the news from the aggregator
//! to the workers is not modelled: the workers learn it when it happens, as in ns-2 incast
//! scripts whose receiving agent's callback starts the senders. A flow with a `jitter`
//! writes each round after the first a random time after the barrier instead (uniform in
//! [0, jitter), drawn from the group's own random stream, member by member in flow order).

use super::Simulation;
use crate::sim::events::Event;
use crate::sim::rng::Rng;
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
    /// Each member's response jitter (0: it writes at the barrier).
    jitter: Vec<Time>,
    /// The group's random stream for the jitter.
    rng: Rng,
    /// Members whose writes of the round under way wait for their jitter: (when, member),
    /// in the order their [`Event::NextRound`] events come.
    pending: std::collections::VecDeque<(Time, usize)>,
    /// Members that have delivered the current round's bytes (each receiver tells of a
    /// round once, and cannot deliver a round before it is written).
    reached: usize,
    /// When each finished round ended.
    pub completed: Vec<Time>,
}

impl RoundGroup {
    /// A group with no round done yet, drawing its jitter from `rng`.
    pub fn new(name: Option<String>, rounds: u32, rng: Rng) -> Self {
        RoundGroup {
            name,
            rounds,
            flows: Vec::new(),
            bytes: Vec::new(),
            jitter: Vec::new(),
            rng,
            pending: Default::default(),
            reached: 0,
            completed: Vec::new(),
        }
    }

    /// Add flow `flow`, sending `bytes` a round, each after the first up to `jitter` ns
    /// after the barrier.
    pub fn join(&mut self, flow: u32, bytes: u64, jitter: Time) {
        self.flows.push(flow);
        self.bytes.push(bytes);
        self.jitter.push(jitter);
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

    /// Group `group`'s [`Event::NextRound`]: a jittered member's write falls due, or else the
    /// next round starts: every member writes its bytes of it, now or, with a jitter, at a
    /// random instant within it (an event of the same kind, so that the run loop's dispatch
    /// has no arm for it). A round starts only when every member has delivered the one before,
    /// so no write of it is pending then.
    #[cold]
    #[inline(never)]
    pub(super) fn next_round(&mut self, group: u32) {
        let g = &mut self.rounds[group as usize];
        if let Some((at, k)) = g.pending.pop_front() {
            debug_assert_eq!(at, self.now, "a jittered write out of order");
            self.round_write(group, k);
            return;
        }
        let mut now = Vec::with_capacity(g.flows.len());
        let mut later = Vec::new();
        for (k, &jitter) in g.jitter.iter().enumerate() {
            if jitter == 0 {
                now.push(k);
            } else {
                later.push((self.now + (g.rng.uniform() * jitter as f64) as Time, k));
            }
        }
        // Events at one instant come in the order they were pushed: push in time order,
        // members in order within an instant (a stable sort), as `pending` keeps them.
        later.sort_by_key(|&(at, _)| at);
        for &(at, _) in &later {
            self.events.push(at, Event::NextRound(group));
        }
        g.pending.extend(later);
        for k in now {
            self.round_write(group, k);
        }
    }

    /// Member `k` of group `group` writes its bytes of the round under way.
    fn round_write(&mut self, group: u32, k: usize) {
        let g = &self.rounds[group as usize];
        let next = g.round();
        let (flow, total, last) = (
            g.flows[k],
            g.bytes[k] * (next as u64 + 1),
            next + 1 == g.rounds,
        );
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
        self.flows[flow as usize]
            .transport
            .app_release(total, last, &mut ctx);
        self.flush();
    }
}

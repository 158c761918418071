//! A host's packet processing: every packet its endpoints send waits its turn in a FIFO and
//! takes a processing time before it reaches the network interface (YATS' PROCTIM, the
//! per-packet cost of an end system's protocol stack). Departures are known on arrival, so
//! the processor schedules one event for its head only, like a link's delay line.

use super::Packet;
use crate::sim::events::{Event, EventQueue};
use crate::sim::rng::Rng;
use crate::sim::Time;
use std::collections::VecDeque;

/// One host's processor.
#[derive(Debug)]
pub struct Processor {
    node: u32,
    time: Time,
    spread: f64,
    rng: Rng,
    busy_until: Time,
    queue: VecDeque<(Time, Packet)>,
    /// Packets processed.
    pub processed: u64,
}

impl Processor {
    /// A processor at `node` taking `time` per packet, each drawn from [t, t·(1 + spread)].
    pub fn new(node: u32, time: Time, spread: f64, rng: Rng) -> Self {
        Processor {
            node,
            time,
            spread,
            rng,
            busy_until: 0,
            queue: VecDeque::new(),
            processed: 0,
        }
    }

    /// A packet the host's endpoint sent at `now` joins the queue.
    pub fn accept(&mut self, now: Time, p: Packet, events: &mut EventQueue) {
        let t = if self.spread > 0.0 {
            (self.time as f64 * (1.0 + self.spread * self.rng.uniform())).round() as Time
        } else {
            self.time
        };
        let done = self.busy_until.max(now) + t;
        self.busy_until = done;
        if self.queue.is_empty() {
            events.push(done, Event::HostReady(self.node));
        }
        self.queue.push_back((done, p));
    }

    /// The head packet is processed at `now`: it leaves for the network.
    pub fn pop(&mut self, now: Time, events: &mut EventQueue) -> Packet {
        let (t, p) = self.queue.pop_front().expect("an event for every head");
        debug_assert_eq!(t, now);
        if let Some(&(next, _)) = self.queue.front() {
            events.push(next, Event::HostReady(self.node));
        }
        self.processed += 1;
        p
    }

    /// Packets waiting or in processing.
    pub fn inside(&self) -> impl Iterator<Item = &Packet> {
        self.queue.iter().map(|(_, p)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_leave_one_processing_time_apart() {
        let mut pr = Processor::new(3, 300_000, 0.0, Rng::stream(1, "p"));
        let mut ev = EventQueue::new();
        for _ in 0..3 {
            pr.accept(1_000, Packet::default(), &mut ev);
        }
        pr.accept(2_000_000, Packet::default(), &mut ev);
        let mut out = vec![];
        while let Some((t, e)) = ev.pop() {
            assert_eq!(e, Event::HostReady(3));
            pr.pop(t, &mut ev);
            out.push(t);
        }
        assert_eq!(out, vec![301_000, 601_000, 901_000, 2_300_000]);
    }

    #[test]
    fn spread_stays_within_bounds() {
        let mut pr = Processor::new(0, 1_000, 0.1, Rng::stream(1, "p"));
        let mut ev = EventQueue::new();
        let mut last = 0;
        for _ in 0..1000 {
            pr.accept(0, Packet::default(), &mut ev);
        }
        while let Some((t, _)) = ev.pop() {
            pr.pop(t, &mut ev);
            let gap = t - last;
            assert!((1_000..=1_100).contains(&gap), "{gap}");
            last = t;
        }
    }
}

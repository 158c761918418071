//! One direction of a point-to-point link: a rate, a propagation delay, a finite drop-tail
//! queue and optional loss models.
//!
//! With a FIFO discipline a packet's departure is known the moment it is accepted
//! (`max(now, busy_until) + size/rate`), so the link keeps every accepted packet in one FIFO
//! delay line ordered by arrival time at the far end and schedules an event only for its head.
//! Each packet therefore costs one event per hop, and the number of pending events grows with
//! the number of busy links, not with the packets in flight.

use super::loss::{DropCause, LossModel, ScriptedDrops};
use super::Packet;
use crate::scenario::units::QueueLimit;
use crate::sim::events::{Event, EventQueue};
use crate::sim::rng::Rng;
use crate::sim::{tx_time, Time};
use std::collections::VecDeque;

/// Counters kept by a link direction.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Packets offered to the link.
    pub packets_in: u64,
    /// Bytes offered (IP layer).
    pub bytes_in: u64,
    /// Packets that reached the far end intact.
    pub packets_out: u64,
    /// Bytes that reached the far end intact.
    pub bytes_out: u64,
    /// Drops by cause (indexed by [`DropCause::index`]).
    pub drops: [u64; 3],
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
}

/// A packet accepted by the link, with the time it reaches the far end.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    arrive: Time,
    packet: Packet,
}

/// One direction of a link.
pub struct Link {
    /// Index of this link direction.
    pub id: u32,
    /// Node at the sending end.
    pub from: u32,
    /// Node at the receiving end.
    pub to: u32,
    /// Rate in bit/s.
    pub rate_bps: f64,
    /// Propagation delay.
    pub delay: Time,
    /// Bytes of framing added to every packet on this link (counted for serialisation only).
    pub overhead: u32,
    /// Queue limit.
    pub limit: QueueLimit,
    /// Random loss process.
    pub loss: LossModel,
    /// Scripted drops.
    pub script: ScriptedDrops,
    /// The random stream of this link's loss model.
    rng: Rng,
    /// Accepted packets in order of arrival at the far end.
    line: VecDeque<InFlight>,
    /// Start-of-transmission time and size of packets still waiting in the queue.
    waiting: VecDeque<(Time, u32)>,
    waiting_bytes: u64,
    /// When the last accepted packet finishes serialisation.
    busy_until: Time,
    /// Last time the queue integrals were brought up to date.
    stats_t: Time,
    /// Serialisation times of the two most recent packet sizes (data and ACKs, typically).
    tx_cache: [(u32, Time); 2],
    /// Counters.
    pub stats: LinkStats,
}

impl Link {
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
    ) -> Self {
        Link {
            id,
            from,
            to,
            rate_bps,
            delay,
            overhead,
            limit,
            loss,
            script,
            rng,
            line: VecDeque::new(),
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            busy_until: 0,
            stats_t: 0,
            tx_cache: [(u32::MAX, 0); 2],
            stats: LinkStats::default(),
        }
    }

    /// Bring the waiting queue and its time integrals up to `now`: packets whose transmission
    /// has started leave the waiting queue.
    #[inline]
    fn advance(&mut self, now: Time) {
        while let Some(&(start, size)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.integrate(start);
            self.waiting.pop_front();
            self.waiting_bytes -= size as u64;
        }
        self.integrate(now);
    }

    #[inline]
    fn integrate(&mut self, t: Time) {
        if !self.waiting.is_empty() {
            let dt = (t - self.stats_t) as u128;
            self.stats.queue_area += self.waiting.len() as u128 * dt;
            self.stats.queue_byte_area += self.waiting_bytes as u128 * dt;
        }
        self.stats_t = t;
    }

    /// Serialisation time of `size` bytes, from a two-entry cache.
    #[inline]
    fn serialise(&mut self, size: u32) -> Time {
        if self.tx_cache[0].0 == size {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 == size {
            self.tx_cache.swap(0, 1);
            return self.tx_cache[0].1;
        }
        let t = tx_time(size, self.rate_bps);
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, t);
        t
    }

    /// Number of packets waiting (not counting the one being transmitted) at `now`.
    pub fn queue_len(&mut self, now: Time) -> usize {
        self.advance(now);
        self.waiting.len()
    }

    /// Offer a packet to the link at `now`. Returns the drop cause if the queue refuses it.
    /// Packets chosen by a loss model or script are accepted (they use the link) but are
    /// marked lost and discarded at the far end.
    #[inline]
    pub fn enqueue(
        &mut self,
        now: Time,
        mut p: Packet,
        events: &mut EventQueue,
    ) -> Result<(), DropCause> {
        self.advance(now);
        self.stats.packets_in += 1;
        self.stats.bytes_in += p.wire as u64;
        let size = p.wire + self.overhead;
        let busy = self.busy_until > now;
        if busy {
            let full = match self.limit {
                QueueLimit::Packets(n) => self.waiting.len() as u64 >= n,
                QueueLimit::Bytes(b) => self.waiting_bytes + size as u64 > b,
            };
            if full {
                self.stats.drops[DropCause::Queue.index()] += 1;
                return Err(DropCause::Queue);
            }
        }
        if !self.script.is_empty() && self.script.matches(self.stats.packets_in, &p) {
            p.lost = Some(DropCause::Script);
        } else if self.loss.lose(&mut self.rng) {
            p.lost = Some(DropCause::LossModel);
        }
        let start = if busy { self.busy_until } else { now };
        let end = start + self.serialise(size);
        self.busy_until = end;
        self.stats.busy_ns += end - start;
        if busy {
            self.waiting.push_back((start, size));
            self.waiting_bytes += size as u64;
            self.stats.queue_max = self.stats.queue_max.max(self.waiting.len() as u64);
            self.stats.queue_max_bytes = self.stats.queue_max_bytes.max(self.waiting_bytes);
        }
        let arrive = end + self.delay;
        if self.line.is_empty() {
            events.push(arrive, Event::LinkArrival(self.id));
        }
        self.line.push_back(InFlight { arrive, packet: p });
        Ok(())
    }

    /// The head packet reaches the far end at `now`; schedules the next head. The caller
    /// discards the packet if it is marked lost.
    #[inline]
    pub fn pop_arrival(&mut self, now: Time, events: &mut EventQueue) -> Packet {
        let head = self
            .line
            .pop_front()
            .expect("arrival event without a packet");
        debug_assert_eq!(head.arrive, now);
        if let Some(next) = self.line.front() {
            events.push(next.arrive, Event::LinkArrival(self.id));
        }
        match head.packet.lost {
            Some(cause) => self.stats.drops[cause.index()] += 1,
            None => {
                self.stats.packets_out += 1;
                self.stats.bytes_out += head.packet.wire as u64;
            }
        }
        head.packet
    }

    /// Packets accepted but not yet at the far end.
    pub fn in_flight(&self) -> impl Iterator<Item = &Packet> {
        self.line.iter().map(|f| &f.packet)
    }

    /// Close the books at the end of the run: bring integrals to `end` and remove the part of
    /// the busy time that lies after `end`.
    pub fn finish(&mut self, end: Time) {
        self.advance(end);
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
        )
    }

    fn pkt(wire: u32) -> Packet {
        Packet {
            wire,
            ..Default::default()
        }
    }

    #[test]
    fn back_to_back_packets_arrive_one_serialisation_apart() {
        let mut l = link(QueueLimit::Packets(10));
        let mut ev = EventQueue::new();
        for _ in 0..3 {
            l.enqueue(0, pkt(1000), &mut ev).unwrap();
        }
        // First arrival at 1 ms serialisation + 10 ms delay; only the head is scheduled.
        assert_eq!(ev.len(), 1);
        let (t, _) = ev.pop().unwrap();
        assert_eq!(t, 11 * MILLISECOND);
        l.pop_arrival(t, &mut ev);
        let (t2, _) = ev.pop().unwrap();
        assert_eq!(t2, 12 * MILLISECOND);
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let mut l = link(QueueLimit::Packets(2));
        let mut ev = EventQueue::new();
        // One in service + two waiting fit; the fourth is dropped.
        for i in 0..4 {
            let r = l.enqueue(0, pkt(1000), &mut ev);
            assert_eq!(r.is_err(), i == 3, "packet {i}");
        }
        // After the first two have started transmission there is room again.
        assert!(l.enqueue(1_000_001, pkt(1000), &mut ev).is_ok());
        assert_eq!(l.stats.drops[DropCause::Queue.index()], 1);
    }

    #[test]
    fn byte_limited_queue() {
        let mut l = link(QueueLimit::Bytes(1500));
        let mut ev = EventQueue::new();
        assert!(l.enqueue(0, pkt(1000), &mut ev).is_ok()); // in service
        assert!(l.enqueue(0, pkt(1000), &mut ev).is_ok()); // waiting 1000
        assert!(l.enqueue(0, pkt(600), &mut ev).is_err()); // 1600 > 1500
        assert!(l.enqueue(0, pkt(500), &mut ev).is_ok()); // 1500
    }

    #[test]
    fn utilisation_and_mean_queue() {
        let mut l = link(QueueLimit::Packets(100));
        let mut ev = EventQueue::new();
        // Two packets at t=0: the second waits 1 ms.
        l.enqueue(0, pkt(1000), &mut ev).unwrap();
        l.enqueue(0, pkt(1000), &mut ev).unwrap();
        l.finish(SECOND);
        assert_eq!(l.stats.busy_ns, 2 * MILLISECOND);
        assert_eq!(l.stats.queue_area, MILLISECOND as u128);
        assert_eq!(l.stats.queue_max, 1);
    }
}

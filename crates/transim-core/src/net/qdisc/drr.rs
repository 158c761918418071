//! Per-flow fair queueing: deficit round robin with longest-queue drop.

use super::{exceeds, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Packet, QueueLimit};
use crate::sim::Time;
use std::collections::VecDeque;

/// Per-flow fair queueing by deficit round robin (Shreedhar & Varghese), one sub-queue per
/// flow and a shared buffer. When the buffer is full the packet at the tail of the longest
/// sub-queue is dropped (longest-queue drop), which may be the arriving packet.
#[derive(Clone, Debug)]
pub struct Drr {
    queues: Vec<VecDeque<Packet>>,
    qbytes: Vec<u64>,
    deficit: Vec<u64>,
    active: VecDeque<u32>,
    quantum: u64,
    len: usize,
    bytes: u64,
}

impl Drr {
    /// A DRR scheduler giving each flow `quantum` bytes per round.
    pub fn new(quantum: u64) -> Self {
        Drr {
            queues: Vec::new(),
            qbytes: Vec::new(),
            deficit: Vec::new(),
            active: VecDeque::new(),
            quantum,
            len: 0,
            bytes: 0,
        }
    }

    fn push(&mut self, p: Packet) {
        let f = p.flow as usize;
        if f >= self.queues.len() {
            self.queues.resize_with(f + 1, VecDeque::new);
            self.qbytes.resize(f + 1, 0);
            self.deficit.resize(f + 1, 0);
        }
        if self.queues[f].is_empty() {
            self.active.push_back(f as u32);
            self.deficit[f] = 0;
        }
        self.len += 1;
        self.bytes += p.wire as u64;
        self.qbytes[f] += p.wire as u64;
        self.queues[f].push_back(p);
    }
}

impl Scheduler for Drr {
    fn enqueue(
        &mut self,
        _now: Time,
        p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        self.push(p);
        while exceeds(limit, self.len, self.bytes) {
            // Longest sub-queue in bytes; ties go to the arriving packet's flow.
            let mut longest = p.flow as usize;
            for (i, &b) in self.qbytes.iter().enumerate() {
                if b > self.qbytes[longest] {
                    longest = i;
                }
            }
            let victim = self.queues[longest]
                .pop_back()
                .expect("longest queue is not empty");
            self.len -= 1;
            self.bytes -= victim.wire as u64;
            self.qbytes[longest] -= victim.wire as u64;
            if self.queues[longest].is_empty() {
                self.active.retain(|&a| a as usize != longest);
            }
            dropped.push((victim, DropCause::Queue));
            if victim.uid == p.uid {
                break;
            }
        }
    }

    fn dequeue(&mut self, _now: Time, _: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        while let Some(&f) = self.active.front() {
            let f = f as usize;
            let head = self.queues[f]
                .front()
                .expect("active flows have packets")
                .wire as u64;
            if self.deficit[f] >= head {
                self.deficit[f] -= head;
                let p = self.queues[f].pop_front().expect("checked");
                self.len -= 1;
                self.bytes -= p.wire as u64;
                self.qbytes[f] -= p.wire as u64;
                if self.queues[f].is_empty() {
                    self.active.pop_front();
                    self.deficit[f] = 0;
                }
                return Some(p);
            }
            self.deficit[f] += self.quantum;
            self.active.rotate_left(1);
        }
        None
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.queues.iter().flatten().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: u32, uid: u64, wire: u32) -> Packet {
        Packet {
            flow,
            uid,
            wire,
            from_sender: true,
            ..Default::default()
        }
    }

    #[test]
    fn drr_serves_backlogged_flows_equal_bytes() {
        let mut d = Drr::new(1500);
        let mut dropped = vec![];
        // Flow 0 sends 1500-byte packets, flow 1 sends 500-byte packets, both backlogged.
        for i in 0..100 {
            d.enqueue(
                0,
                pkt(0, i, 1500),
                QueueLimit::Packets(10_000),
                &mut dropped,
            );
        }
        for i in 0..300 {
            d.enqueue(
                0,
                pkt(1, 1000 + i, 500),
                QueueLimit::Packets(10_000),
                &mut dropped,
            );
        }
        let mut bytes = [0u64; 2];
        for _ in 0..200 {
            let p = d.dequeue(0, &mut vec![]).unwrap();
            bytes[p.flow as usize] += p.wire as u64;
        }
        let ratio = bytes[0] as f64 / bytes[1] as f64;
        assert!((ratio - 1.0).abs() < 0.05, "{bytes:?}");
    }

    #[test]
    fn drr_drops_from_the_longest_queue() {
        let mut d = Drr::new(1500);
        let mut dropped = vec![];
        for i in 0..8 {
            d.enqueue(0, pkt(0, i, 1000), QueueLimit::Packets(10), &mut dropped);
        }
        d.enqueue(0, pkt(1, 100, 1000), QueueLimit::Packets(10), &mut dropped);
        d.enqueue(0, pkt(1, 101, 1000), QueueLimit::Packets(10), &mut dropped);
        assert!(dropped.is_empty());
        // Full: a packet of the short flow arrives; flow 0's tail is dropped instead.
        d.enqueue(0, pkt(1, 102, 1000), QueueLimit::Packets(10), &mut dropped);
        assert_eq!(dropped.len(), 1);
        assert_eq!((dropped[0].0.flow, dropped[0].0.uid), (0, 7));
        assert_eq!(d.len(), 10);
    }
}

//! Queue disciplines whose departure order is decided at dequeue time. Drop-tail FIFO links
//! never come here (they know each departure when a packet arrives, see [`super::link`]);
//! links with one of these schedulers serialise one packet at a time and ask the scheduler
//! for the next when the line is free. New disciplines (RED, CoDel, …) are one more
//! [`Scheduler`] implementation and one arm of [`Sched`].

use super::loss::DropCause;
use super::Packet;
use super::QueueLimit;
use std::collections::VecDeque;

/// A queue discipline driven by enqueue and dequeue.
pub trait Scheduler {
    /// Accept `p`; push every packet the discipline discards (the arriving one or others)
    /// onto `dropped` with its cause.
    fn enqueue(&mut self, p: Packet, limit: QueueLimit, dropped: &mut Vec<(Packet, DropCause)>);
    /// Next packet to transmit.
    fn dequeue(&mut self) -> Option<Packet>;
    /// Packets waiting.
    fn len(&self) -> usize;
    /// True when nothing waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    /// Every waiting packet (for the end-of-run conservation check).
    fn for_each(&self, f: &mut dyn FnMut(&Packet));
}

/// True when `len` packets / `bytes` bytes exceed the limit.
fn exceeds(limit: QueueLimit, len: usize, bytes: u64) -> bool {
    match limit {
        QueueLimit::Packets(n) => len as u64 > n,
        QueueLimit::Bytes(b) => bytes > b,
    }
}

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
    fn enqueue(&mut self, p: Packet, limit: QueueLimit, dropped: &mut Vec<(Packet, DropCause)>) {
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

    fn dequeue(&mut self) -> Option<Packet> {
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

/// A FIFO that filters ACKs: a pure cumulative ACK (no data, no SACK blocks, no SYN/FIN/FUL)
/// replaces an older such ACK of the same flow still waiting, which is discarded
/// ([`DropCause::Filtered`]); the new one joins the tail.
#[derive(Clone, Debug, Default)]
pub struct AckFilter {
    q: VecDeque<Packet>,
    bytes: u64,
}

fn filterable(p: &Packet) -> bool {
    !p.from_sender && p.as_tcp().is_some_and(|h| h.is_pure_ack())
}

impl Scheduler for AckFilter {
    fn enqueue(&mut self, p: Packet, limit: QueueLimit, dropped: &mut Vec<(Packet, DropCause)>) {
        if filterable(&p) {
            if let Some(i) = self
                .q
                .iter()
                .position(|o| o.flow == p.flow && filterable(o))
            {
                let old = self.q.remove(i).expect("index from position");
                self.bytes -= old.wire as u64;
                dropped.push((old, DropCause::Filtered));
            }
        }
        if exceeds(limit, self.q.len() + 1, self.bytes + p.wire as u64) {
            dropped.push((p, DropCause::Queue));
            return;
        }
        self.bytes += p.wire as u64;
        self.q.push_back(p);
    }

    fn dequeue(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.wire as u64;
        Some(p)
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.iter().for_each(f);
    }
}

/// The schedulers a link can use (static dispatch).
#[derive(Clone, Debug)]
pub enum Sched {
    /// Per-flow fair queueing (DRR).
    Fq(Drr),
    /// FIFO with ACK filtering.
    AckFilter(AckFilter),
}

macro_rules! each {
    ($s:expr, $q:ident => $e:expr) => {
        match $s {
            Sched::Fq($q) => $e,
            Sched::AckFilter($q) => $e,
        }
    };
}

impl Scheduler for Sched {
    fn enqueue(&mut self, p: Packet, limit: QueueLimit, dropped: &mut Vec<(Packet, DropCause)>) {
        each!(self, q => q.enqueue(p, limit, dropped))
    }
    fn dequeue(&mut self) -> Option<Packet> {
        each!(self, q => q.dequeue())
    }
    fn len(&self) -> usize {
        each!(self, q => q.len())
    }
    fn bytes(&self) -> u64 {
        each!(self, q => q.bytes())
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        each!(self, q => q.for_each(f))
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
            d.enqueue(pkt(0, i, 1500), QueueLimit::Packets(10_000), &mut dropped);
        }
        for i in 0..300 {
            d.enqueue(
                pkt(1, 1000 + i, 500),
                QueueLimit::Packets(10_000),
                &mut dropped,
            );
        }
        let mut bytes = [0u64; 2];
        for _ in 0..200 {
            let p = d.dequeue().unwrap();
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
            d.enqueue(pkt(0, i, 1000), QueueLimit::Packets(10), &mut dropped);
        }
        d.enqueue(pkt(1, 100, 1000), QueueLimit::Packets(10), &mut dropped);
        d.enqueue(pkt(1, 101, 1000), QueueLimit::Packets(10), &mut dropped);
        assert!(dropped.is_empty());
        // Full: a packet of the short flow arrives; flow 0's tail is dropped instead.
        d.enqueue(pkt(1, 102, 1000), QueueLimit::Packets(10), &mut dropped);
        assert_eq!(dropped.len(), 1);
        assert_eq!((dropped[0].0.flow, dropped[0].0.uid), (0, 7));
        assert_eq!(d.len(), 10);
    }

    #[test]
    fn ack_filter_keeps_only_the_newest_ack_per_flow() {
        let mut q = AckFilter::default();
        let mut dropped = vec![];
        let ack = |flow, uid, ack| Packet {
            flow,
            uid,
            wire: 40,
            hdr: crate::net::Header::Tcp(crate::net::TcpHeader {
                ack,
                flags: crate::net::header::tcp::flags::ACK,
                ..Default::default()
            }),
            ..Default::default()
        };
        q.enqueue(ack(0, 1, 1001), QueueLimit::Packets(10), &mut dropped);
        q.enqueue(ack(1, 2, 5001), QueueLimit::Packets(10), &mut dropped);
        q.enqueue(ack(0, 3, 2001), QueueLimit::Packets(10), &mut dropped);
        assert_eq!(
            dropped.iter().map(|d| (d.0.uid, d.1)).collect::<Vec<_>>(),
            vec![(1, DropCause::Filtered)]
        );
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue())
            .map(|p| p.tcp().ack)
            .collect();
        assert_eq!(order, vec![5001, 2001]);
    }
}

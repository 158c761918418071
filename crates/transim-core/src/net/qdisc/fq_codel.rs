//! FQ-CoDel (RFC 8290): packets are hashed by flow into `buckets` queues, each with its own
//! CoDel; a deficit round robin serves them, new (sparse) flows before old ones. When the
//! whole queue is over its limit the packet at the head of the flow with the largest backlog
//! is dropped.
//!
//! Choices where implementations differ: a flow is transim's flow and direction (there are
//! no 5-tuples to collide, but flows still share a bucket when there are more of them than
//! buckets, as with a hash); each bucket's CoDel checks MAXPACKET against its own backlog
//! (ns-3's `FqCoDelQueueDisc` with CoDel children; Linux checks the whole qdisc's); one
//! packet is dropped per overflow (RFC 8290 section 4.1; Linux drops a batch).

use super::codel::{CoDel, CoDelParams};
use super::{exceeds, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Packet, QueueLimit};
use crate::sim::Time;
use std::collections::VecDeque;

/// FQ-CoDel's parameters (defaults: RFC 8290 section 5 and Linux).
#[derive(Clone, Debug, PartialEq)]
pub struct FqCoDelParams {
    /// Each bucket's CoDel.
    pub codel: CoDelParams,
    /// Bytes a flow may send per round.
    pub quantum: u64,
    /// Number of flow queues.
    pub buckets: u32,
}

impl Default for FqCoDelParams {
    fn default() -> Self {
        FqCoDelParams {
            codel: CoDelParams::default(),
            quantum: 1514,
            buckets: 1024,
        }
    }
}

/// Which list a bucket is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    Idle,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct Bucket {
    codel: CoDel,
    deficit: i64,
    list: List,
}

/// An FQ-CoDel queue.
#[derive(Clone, Debug)]
pub struct FqCoDel {
    params: FqCoDelParams,
    /// Buckets, created when first used.
    buckets: Vec<Option<Box<Bucket>>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
    marks: u64,
}

impl FqCoDel {
    /// An empty FQ-CoDel queue.
    pub fn new(params: FqCoDelParams) -> Self {
        FqCoDel {
            buckets: vec![None; params.buckets as usize],
            params,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            marks: 0,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &FqCoDelParams {
        &self.params
    }

    /// The bucket of `p`'s flow and direction.
    fn bucket_of(&self, p: &Packet) -> u32 {
        ((2 * p.flow as u64 + p.from_sender as u64) % self.params.buckets as u64) as u32
    }

    fn bucket(&mut self, b: u32) -> &mut Bucket {
        let codel = self.params.codel.clone();
        let quantum = self.params.quantum as i64;
        self.buckets[b as usize].get_or_insert_with(|| {
            Box::new(Bucket {
                codel: CoDel::new(codel),
                deficit: quantum,
                list: List::Idle,
            })
        })
    }

    /// Drop the head packet of the bucket with the most bytes (RFC 8290 section 4.1).
    fn drop_from_fattest(&mut self, now: Time, dropped: &mut Vec<(Packet, DropCause)>) {
        let fattest = self
            .buckets
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.as_ref().map(|b| (i, b.codel.bytes())))
            .max_by_key(|&(i, bytes)| (bytes, std::cmp::Reverse(i)))
            .map(|(i, _)| i)
            .expect("an over-limit queue has a bucket");
        let b = self.buckets[fattest].as_mut().expect("exists");
        if let Some(p) = b.codel.take_head(now) {
            self.len -= 1;
            self.bytes -= p.wire as u64;
            dropped.push((p, DropCause::Queue));
        }
    }
}

impl Scheduler for FqCoDel {
    fn enqueue(
        &mut self,
        now: Time,
        p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        let b = self.bucket_of(&p);
        let quantum = self.params.quantum as i64;
        let wire = p.wire as u64;
        let bucket = self.bucket(b);
        bucket
            .codel
            .enqueue(now, p, QueueLimit::Packets(u64::MAX), dropped);
        let joins = bucket.list == List::Idle;
        if joins {
            bucket.list = List::New;
            bucket.deficit = quantum;
        }
        if joins {
            self.new_flows.push_back(b);
        }
        self.len += 1;
        self.bytes += wire;
        if exceeds(limit, self.len, self.bytes) {
            self.drop_from_fattest(now, dropped);
        }
    }

    fn dequeue(&mut self, now: Time, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        loop {
            let (b, from_new) = match self.new_flows.front() {
                Some(&b) => (b, true),
                None => (*self.old_flows.front()?, false),
            };
            let quantum = self.params.quantum as i64;
            let bucket = self.buckets[b as usize].as_mut().expect("listed");
            if bucket.deficit <= 0 {
                bucket.deficit += quantum;
                bucket.list = List::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(b);
                continue;
            }
            let before = dropped.len();
            let marks_before = bucket.codel.marks();
            let p = bucket.codel.dequeue(now, dropped);
            self.marks += bucket.codel.marks() - marks_before;
            for (d, _) in &dropped[before..] {
                self.len -= 1;
                self.bytes -= d.wire as u64;
            }
            match p {
                Some(p) => {
                    bucket.deficit -= p.wire as i64;
                    self.len -= 1;
                    self.bytes -= p.wire as u64;
                    return Some(p);
                }
                None => {
                    // Empty: a new flow moves to the old list (so that it cannot come back
                    // as new at once), an old flow leaves the lists.
                    if from_new {
                        self.new_flows.pop_front();
                        if !self.old_flows.is_empty() {
                            bucket.list = List::Old;
                            self.old_flows.push_back(b);
                            continue;
                        }
                    } else {
                        self.old_flows.pop_front();
                    }
                    bucket.list = List::Idle;
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        for b in self.buckets.iter().flatten() {
            b.codel.for_each(f);
        }
    }

    fn marks(&self) -> u64 {
        self.marks
    }

    fn may_mark(&self) -> bool {
        self.params.codel.ecn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MILLISECOND;

    fn pkt(flow: u32, uid: u64) -> Packet {
        Packet {
            flow,
            uid,
            wire: 1000,
            from_sender: true,
            ..Default::default()
        }
    }

    const LIMIT: QueueLimit = QueueLimit::Packets(10_240);

    /// A sparse flow's packet overtakes a backlogged flow's queue: it is served at the next
    /// dequeue (new-flow priority), while in a FIFO it would wait behind the whole backlog.
    #[test]
    fn a_sparse_flow_is_served_first() {
        let mut q = FqCoDel::new(FqCoDelParams::default());
        for i in 0..100 {
            q.enqueue(0, pkt(0, i), LIMIT, &mut vec![]);
        }
        // Flow 0 has been served once and used its quantum.
        assert_eq!(q.dequeue(MILLISECOND, &mut vec![]).unwrap().flow, 0);
        q.enqueue(MILLISECOND, pkt(1, 1000), LIMIT, &mut vec![]);
        // Flow 0 still has deficit 514 > 0, so it sends once more; then flow 1 (new).
        let order: Vec<u32> = (0..4)
            .map(|k| q.dequeue(MILLISECOND * (2 + k), &mut vec![]).unwrap().flow)
            .collect();
        assert_eq!(order, vec![0, 1, 0, 0]);
    }

    /// Backlogged flows share by bytes: two flows of 1000- and 500-byte packets get equal
    /// bytes per round.
    #[test]
    fn backlogged_flows_share_bytes_equally() {
        let mut q = FqCoDel::new(FqCoDelParams::default());
        for i in 0..300 {
            q.enqueue(0, pkt(0, i), LIMIT, &mut vec![]);
            let mut small = pkt(1, 10_000 + i);
            small.wire = 500;
            q.enqueue(0, small, LIMIT, &mut vec![]);
        }
        let mut bytes = [0u64; 2];
        for k in 0..200 {
            // Dequeue quickly (sojourn below target: no CoDel drops).
            let p = q.dequeue(k * 10_000, &mut vec![]).unwrap();
            bytes[p.flow as usize] += p.wire as u64;
        }
        let ratio = bytes[0] as f64 / bytes[1] as f64;
        assert!((ratio - 1.0).abs() < 0.1, "{bytes:?}");
    }

    /// Over the limit, the fattest flow loses its head packet, not the arriving one of a
    /// small flow.
    #[test]
    fn overflow_drops_from_the_fattest_flow() {
        let mut q = FqCoDel::new(FqCoDelParams::default());
        let limit = QueueLimit::Packets(10);
        let mut dropped = vec![];
        for i in 0..8 {
            q.enqueue(0, pkt(0, i), limit, &mut dropped);
        }
        q.enqueue(0, pkt(1, 100), limit, &mut dropped);
        q.enqueue(0, pkt(1, 101), limit, &mut dropped);
        assert!(dropped.is_empty());
        q.enqueue(0, pkt(1, 102), limit, &mut dropped);
        assert_eq!(dropped.len(), 1);
        assert_eq!((dropped[0].0.flow, dropped[0].0.uid), (0, 0));
        assert_eq!(q.len(), 10);
    }

    /// Each flow has its own CoDel: a flow whose packets wait long is dropped, a flow
    /// served promptly beside it is not.
    #[test]
    fn codel_runs_per_flow() {
        let mut q = FqCoDel::new(FqCoDelParams::default());
        let mut dropped = vec![];
        let mut uid = 0;
        // Flow 0 offers 2 packets per ms, flow 1 one packet every 4 ms; the link sends one
        // packet per ms. Flow 1 is served as it arrives, flow 0's queue grows.
        for ms in 0..2000u64 {
            let now = ms * MILLISECOND;
            for _ in 0..2 {
                q.enqueue(now, pkt(0, uid), LIMIT, &mut dropped);
                uid += 1;
            }
            if ms % 4 == 0 {
                q.enqueue(now, pkt(1, uid), LIMIT, &mut dropped);
                uid += 1;
            }
            q.dequeue(now, &mut dropped);
        }
        assert!(dropped.iter().any(|d| d.0.flow == 0));
        assert!(dropped.iter().all(|d| d.0.flow == 0), "flow 1 untouched");
    }
}

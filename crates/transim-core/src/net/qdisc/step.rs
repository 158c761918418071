//! Step marking, the switch side of DCTCP (RFC 8257 section 3.1): a FIFO that marks an
//! ECN-capable arrival Congestion Experienced whenever `k` or more packets are waiting (the
//! instantaneous queue, no averaging); a packet that is not ECN-capable is dropped instead,
//! as RED configured with min = max = K does in Linux and ns-3.

use super::{try_mark, Fifo, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Packet, QueueLimit};
use crate::sim::Time;

/// A step-marking FIFO.
#[derive(Clone, Debug)]
pub struct Step {
    /// The marking threshold (packets waiting).
    pub k: u64,
    q: Fifo,
    marks: u64,
}

impl Step {
    /// An empty queue marking from `k` packets on.
    pub fn new(k: u64) -> Self {
        Step {
            k,
            q: Fifo::default(),
            marks: 0,
        }
    }
}

impl Scheduler for Step {
    fn enqueue(
        &mut self,
        now: Time,
        mut p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        if !self.q.admits(limit, &p) {
            dropped.push((p, DropCause::Queue));
            return;
        }
        if self.q.len() as u64 >= self.k {
            if try_mark(&mut p, true) {
                self.marks += 1;
            } else {
                dropped.push((p, DropCause::Aqm));
                return;
            }
        }
        self.q.push(now, p);
    }

    fn dequeue(&mut self, _now: Time, _: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        self.q.pop().map(|(_, p)| p)
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    fn bytes(&self) -> u64 {
        self.q.bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.for_each(f);
    }

    fn marks(&self) -> u64 {
        self.marks
    }

    fn may_mark(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Ecn;

    #[test]
    fn marks_from_k_waiting_packets_on() {
        let mut q = Step::new(3);
        let limit = QueueLimit::Packets(100);
        let mut dropped = vec![];
        for uid in 0..6 {
            let p = Packet {
                uid,
                wire: 1000,
                ecn: Ecn::Ect0,
                ..Default::default()
            };
            q.enqueue(0, p, limit, &mut dropped);
        }
        let marks: Vec<bool> = (0..6)
            .map(|_| q.dequeue(0, &mut dropped).unwrap().ecn == Ecn::Ce)
            .collect();
        assert_eq!(marks, [false, false, false, true, true, true]);
        // Not ECN-capable above the threshold: dropped.
        for uid in 10..14 {
            let p = Packet {
                uid,
                wire: 1000,
                ..Default::default()
            };
            q.enqueue(0, p, limit, &mut dropped);
        }
        assert_eq!(dropped.len(), 1);
        assert_eq!((dropped[0].0.uid, dropped[0].1), (13, DropCause::Aqm));
    }
}

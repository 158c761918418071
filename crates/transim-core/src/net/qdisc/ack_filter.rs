//! A FIFO that filters pure ACKs (a newer one replaces an older one of the same flow).

use super::{Fifo, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Packet, QueueLimit};
use crate::sim::Time;

/// A FIFO that filters ACKs: a pure cumulative ACK (no data, no SACK blocks, no SYN/FIN/FUL)
/// replaces an older such ACK of the same flow still waiting, which is discarded
/// ([`DropCause::Filtered`]); the new one joins the tail.
#[derive(Clone, Debug, Default)]
pub struct AckFilter {
    q: Fifo,
}

fn filterable(p: &Packet) -> bool {
    !p.from_sender && p.as_tcp().is_some_and(|h| h.is_pure_ack())
}

impl Scheduler for AckFilter {
    fn enqueue(
        &mut self,
        now: Time,
        p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        if filterable(&p) {
            if let Some(old) = self.q.remove_first(|o| o.flow == p.flow && filterable(o)) {
                dropped.push((old, DropCause::Filtered));
            }
        }
        if !self.q.admits(limit, &p) {
            dropped.push((p, DropCause::Queue));
            return;
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
        q.enqueue(0, ack(0, 1, 1001), QueueLimit::Packets(10), &mut dropped);
        q.enqueue(0, ack(1, 2, 5001), QueueLimit::Packets(10), &mut dropped);
        q.enqueue(0, ack(0, 3, 2001), QueueLimit::Packets(10), &mut dropped);
        assert_eq!(
            dropped.iter().map(|d| (d.0.uid, d.1)).collect::<Vec<_>>(),
            vec![(1, DropCause::Filtered)]
        );
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue(0, &mut vec![]))
            .map(|p| p.tcp().ack)
            .collect();
        assert_eq!(order, vec![5001, 2001]);
    }
}

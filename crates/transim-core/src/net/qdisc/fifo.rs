//! The queue every single-queue discipline keeps: packets in arrival order with their arrival
//! times, and the bytes they hold.

use super::exceeds;
use crate::net::{Packet, QueueLimit};
use crate::sim::Time;
use std::collections::VecDeque;

/// A FIFO of packets with their arrival times and a running byte count.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    q: VecDeque<(Time, Packet)>,
    bytes: u64,
}

impl Fifo {
    /// True when `p` fits under `limit` (the tail-drop test).
    #[inline]
    pub fn admits(&self, limit: QueueLimit, p: &Packet) -> bool {
        !exceeds(limit, self.q.len() + 1, self.bytes + p.wire as u64)
    }

    /// Append `p`, arrived at `now`.
    #[inline]
    pub fn push(&mut self, now: Time, p: Packet) {
        self.bytes += p.wire as u64;
        self.q.push_back((now, p));
    }

    /// Take the head packet with its arrival time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Packet)> {
        let (t, p) = self.q.pop_front()?;
        self.bytes -= p.wire as u64;
        Some((t, p))
    }

    /// The head packet's arrival time (None when empty).
    #[inline]
    pub fn head_time(&self) -> Option<Time> {
        self.q.front().map(|(t, _)| *t)
    }

    /// Remove the first packet that satisfies `f`.
    pub fn remove_first(&mut self, f: impl Fn(&Packet) -> bool) -> Option<Packet> {
        let i = self.q.iter().position(|(_, p)| f(p))?;
        let (_, p) = self.q.remove(i)?;
        self.bytes -= p.wire as u64;
        Some(p)
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// True when nothing waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Every waiting packet, head first.
    pub fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.iter().for_each(|(_, p)| f(p));
    }
}

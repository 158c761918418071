//! Where packets rest while links carry them.
//!
//! A packet (112 bytes) is written once into a slot here and stays there on its way through
//! the network; links hold only slot numbers. A link's delay line is chained through the
//! slots: the 16 bytes each slot has beside its packet name the next packet on the same line
//! (its arrival time, slot and next link), so an arrival reads the packet after it from the
//! slot it reads anyway instead of from a buffer of the link's own, which with many links
//! is a cache miss. The store hands out the most recently freed slot first.

use super::Packet;
use crate::sim::Time;

/// An [`InFlight::hop`] nobody worked out: the engine looks the route up at the far end.
pub const HOP_UNKNOWN: u32 = u32::MAX;

/// Set in an [`InFlight::hop`] that names no link but the flow the packet is delivered to
/// at the far end ([`deliver_hop`]): a hint for fetching that endpoint's state ahead. Every
/// hop below it is a link direction.
pub const HOP_DELIVER: u32 = 1 << 31;
/// With [`HOP_DELIVER`]: the packet comes from the flow's sender.
const HOP_FROM_SENDER: u32 = 1 << 30;

/// The hop of a packet of flow `flow` (from its sender or not) that the far end delivers:
/// [`HOP_DELIVER`] with the flow, or [`HOP_UNKNOWN`] for a flow index too large to carry.
#[inline(always)]
pub fn deliver_hop(flow: u32, from_sender: bool) -> u32 {
    // (The largest flow index, from the sender, would spell HOP_UNKNOWN.)
    if flow < HOP_FROM_SENDER - 1 {
        HOP_DELIVER | ((from_sender as u32) * HOP_FROM_SENDER) | flow
    } else {
        HOP_UNKNOWN
    }
}

/// The flow and direction a [`deliver_hop`] names, if `hop` is one.
#[inline(always)]
pub fn delivered_to(hop: u32) -> Option<(u32, bool)> {
    (hop >= HOP_DELIVER && hop != HOP_UNKNOWN)
        .then_some((hop & (HOP_FROM_SENDER - 1), hop & HOP_FROM_SENDER != 0))
}

/// A packet on a link's delay line: when it reaches the far end, its slot here, and the
/// link direction it takes there (a [`deliver_hop`] when the far end delivers it,
/// [`HOP_UNKNOWN`] when the sender did not look it up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InFlight {
    /// Arrival time at the far end.
    pub arrive: Time,
    /// Slot in the store.
    pub slot: u32,
    /// The link direction onward from the far end, if known (or the flow delivered to).
    pub hop: u32,
}

/// One slot, aligned to cache lines so that a packet (112 bytes) spans two lines, never
/// three; the 16 bytes left name the packet after it on its link's delay line. The second
/// line holds those 16 bytes and every field a hop reads (see [`Packet`]'s layout), so a
/// packet passing through a router touches only that line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Slot(Packet, InFlight);

/// Offset of a slot's second cache line.
const HOP_LINE: usize = 64;

const _: () = assert!(std::mem::size_of::<Slot>() == 128);

/// A packet offered to a link: in hand (from an endpoint, a host's processor, an ATM
/// adapter), or resting unchanged in a store slot (it has just left another link).
#[derive(Clone, Copy, Debug)]
pub enum Offered<'a> {
    /// A packet not kept in the store.
    Given(&'a Packet),
    /// The packet in this slot.
    Held(u32),
}

impl<'a> Offered<'a> {
    /// The packet (read from its slot when held: a read of one field touches only the cache
    /// line that field is in).
    #[inline(always)]
    pub fn get<'s>(self, store: &'s PacketStore) -> &'s Packet
    where
        'a: 's,
    {
        match self {
            Offered::Given(p) => p,
            Offered::Held(i) => store.get(i),
        }
    }

    /// The slot it rests in, if held.
    #[inline(always)]
    pub fn held(self) -> Option<u32> {
        match self {
            Offered::Given(_) => None,
            Offered::Held(i) => Some(i),
        }
    }
}

/// A slab of packets with a last-in, first-out free list.
#[derive(Debug, Default)]
pub struct PacketStore {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Give cache hints ([`PacketStore::prefetch`]); off for small networks, whose state
    /// stays in the cache anyway.
    hints: bool,
}

impl PacketStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep `p`; returns its slot.
    #[inline(always)]
    pub fn put(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize].0 = p;
                i
            }
            None => {
                self.slots.push(Slot(p, InFlight::default()));
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Take the packet out of slot `i` (which becomes free).
    #[inline(always)]
    pub fn take(&mut self, i: u32) -> Packet {
        self.free.push(i);
        self.slots[i as usize].0
    }

    /// Free slot `i` without reading it.
    #[inline(always)]
    pub fn free(&mut self, i: u32) {
        self.free.push(i);
    }

    /// Free the slot a packet that goes no further rests in, if it rests in one.
    #[inline(always)]
    pub fn release(&mut self, held: Option<u32>) {
        if let Some(i) = held {
            self.free(i);
        }
    }

    /// Keep the packet offered, marked `lost` and counted as taken by one more link
    /// ([`Packet::hops`], which wraps after 255 to a count that names no place on a path):
    /// in the slot it already rests in (a packet passed on from one link to the next), or
    /// else in a new slot. Returns the slot.
    #[inline(always)]
    pub fn keep(&mut self, p: Offered, lost: Option<super::DropCause>) -> u32 {
        match p {
            Offered::Held(i) => {
                let q = &mut self.slots[i as usize].0;
                q.lost = lost;
                q.hops = q.hops.wrapping_add(1);
                i
            }
            Offered::Given(p) => self.put(Packet {
                lost,
                hops: p.hops.wrapping_add(1),
                ..*p
            }),
        }
    }

    /// Turn the cache hints on or off.
    pub fn set_hints(&mut self, on: bool) {
        self.hints = on;
    }

    /// True when the store and the run loop give cache hints.
    #[inline(always)]
    pub fn hints(&self) -> bool {
        self.hints
    }

    /// Ask the CPU to bring slot `i` into the cache (when hints are on): the link whose line
    /// it heads will hand it over next, typically after thousands of other packets' work, and
    /// a random slot (unlike the old delay-line buffers, read in order) is not something the
    /// hardware prefetcher predicts.
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        if !self.hints {
            return;
        }
        self.prefetch_lines(i, 0, 2);
    }

    /// [`PacketStore::prefetch`] of only the line of slot `i` that a hop reads and that
    /// [`PacketStore::set_next`] writes: for a packet passing through, or the last packet on
    /// a line that another will follow.
    #[inline(always)]
    pub fn prefetch_hop_line(&self, i: u32) {
        if !self.hints {
            return;
        }
        self.prefetch_lines(i, HOP_LINE, 1);
    }

    /// Fetch `lines` cache lines of slot `i` from byte `from` of the slot, if it exists.
    #[inline(always)]
    fn prefetch_lines(&self, i: u32, from: usize, lines: usize) {
        if let Some(slot) = self.slots.get(i as usize) {
            crate::sim::prefetch::prefetch_addr(slot as *const Slot as usize + from, lines);
        }
    }

    /// Record that `next` follows the packet in slot `i` on its delay line.
    #[inline(always)]
    pub fn set_next(&mut self, i: u32, next: InFlight) {
        self.slots[i as usize].1 = next;
    }

    /// The packet after the one in slot `i` on its delay line (as [`PacketStore::set_next`]
    /// last recorded).
    #[inline(always)]
    pub fn next_of(&self, i: u32) -> InFlight {
        self.slots[i as usize].1
    }

    /// The packet in slot `i`.
    #[inline]
    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize].0
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// True when no packet is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the slots allocated (held or free).
    pub fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>() + self.free.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(uid: u64) -> Packet {
        Packet {
            uid,
            ..Default::default()
        }
    }

    /// A delivery hop gives back its flow and direction, is never taken for a link
    /// direction (all below `HOP_DELIVER`), and a flow too large to carry is no hint.
    #[test]
    fn a_delivery_hop_names_its_flow_and_no_link() {
        for flow in [0, 1, 12_345, HOP_FROM_SENDER - 2] {
            for from_sender in [false, true] {
                let hop = deliver_hop(flow, from_sender);
                assert!(hop >= HOP_DELIVER && hop != HOP_UNKNOWN);
                assert_eq!(delivered_to(hop), Some((flow, from_sender)));
            }
        }
        assert_eq!(deliver_hop(HOP_FROM_SENDER - 1, true), HOP_UNKNOWN);
        assert_eq!(deliver_hop(HOP_FROM_SENDER, false), HOP_UNKNOWN);
        assert_eq!(delivered_to(HOP_UNKNOWN), None);
        assert_eq!(delivered_to(HOP_DELIVER - 1), None);
        assert_eq!(delivered_to(0), None);
    }

    #[test]
    fn a_freed_slot_is_reused_first() {
        let mut s = PacketStore::new();
        let a = s.put(pkt(1));
        let b = s.put(pkt(2));
        assert_ne!(a, b);
        assert_eq!(s.take(a).uid, 1);
        // The slot just freed is the next one handed out.
        assert_eq!(s.put(pkt(3)), a);
        assert_eq!(s.get(a).uid, 3);
        assert_eq!(s.get(b).uid, 2);
        assert_eq!(s.len(), 2);
        s.take(b);
        s.take(a);
        assert!(s.is_empty());
    }

    #[test]
    fn a_held_packet_stays_in_its_slot() {
        let mut s = PacketStore::new();
        let a = s.put(pkt(1));
        let b = s.put(pkt(2));
        let p = *s.get(b);
        // Passed on unchanged: the same slot, only the loss mark rewritten.
        let lost = Some(crate::net::DropCause::LossModel);
        assert_eq!(s.keep(Offered::Held(b), lost), b);
        assert_eq!(Offered::Held(b).get(&s).uid, p.uid);
        assert_eq!(s.get(b).lost, lost);
        assert_eq!(s.len(), 2);
        // Not held: a new slot (the one freed last first).
        s.free(a);
        assert_eq!(s.len(), 1);
        assert_eq!(s.keep(Offered::Given(&pkt(3)), None), a);
        assert_eq!(s.get(a).uid, 3);
        assert_eq!(s.len(), 2);
    }

    /// What a packet passing through reads of its slot (the flow, the addresses, the size,
    /// the loss mark) and what the delay line writes lie in the slot's second cache line;
    /// only the transport header, which endpoints read, is in the first.
    #[test]
    fn a_hop_reads_one_line_of_the_slot() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<Slot>(), 2 * HOP_LINE);
        assert_eq!(offset_of!(Slot, 0), 0);
        assert_eq!(offset_of!(Slot, 1), size_of::<Packet>());
        for (field, at) in [
            ("uid", offset_of!(Packet, uid)),
            ("flow", offset_of!(Packet, flow)),
            ("src", offset_of!(Packet, src)),
            ("dst", offset_of!(Packet, dst)),
            ("wire", offset_of!(Packet, wire)),
            ("from_sender", offset_of!(Packet, from_sender)),
            ("lost", offset_of!(Packet, lost)),
            ("ecn", offset_of!(Packet, ecn)),
        ] {
            assert!(
                at >= HOP_LINE,
                "Packet::{field} at byte {at}, in the first line"
            );
        }
    }
}

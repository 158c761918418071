//! The pending-event set, ordered by (time, insertion sequence), so events at the same instant
//! run in the order they were scheduled — a deterministic tie-break.
//!
//! Near events live in a 4-ary min-heap (bottom-up pops, one 128-bit key comparison per
//! child); events beyond the current slot (~4 ms at first) wait in a timing wheel of 4,096
//! slots (~17 s), and anything later in an overflow heap; the search
//! for the next slot with events skips empty ones through a bitmap. A slot's
//! events join the heap (keeping their sequence numbers) before any event at or after its
//! start is taken, so the order is exactly the single heap's. With thousands of flows the
//! heap then holds the packets about to arrive rather than every flow's retransmission and
//! delayed-ACK timer, and its depth stops growing with the number of flows.
//!
//! The slot width adapts ([`EventQueue::adapt`]): a busy fabric has thousands of packets
//! about to arrive within one 4 ms slot, and there slots of tens of nanoseconds keep the heap
//! small (measured: benchmark B5 0.89–0.92× run time); a handful of flows keeps the widest.
//!
//! A slot at most 2^8 ns wide (`RUN_BITS`) does not go through the heap: its entries take
//! at most that many distinct times, so a counting sort on the time within the slot lines
//! them up (a run) in one pass, and a pop takes the run's next entry whenever the heap is
//! empty. The heap then takes only events pushed since that come before the run's next
//! entry (later ones join the run in place), so it still holds the earliest event whenever
//! it holds any, and a wide slot's pops run exactly as before. In a fat tree a 64 ns slot
//! holds a couple of hundred arrivals at a few dozen instants, for each of which a heap
//! push and pop cost a hundred instructions and several unpredictable branches.

use super::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens when an event fires. Kept to a few bytes: payloads live in the objects the
/// event names (links hold their packets, endpoints their timers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of a link direction's delay line reaches the far end: (the link
    /// direction, the packet's slot in the store, the link direction it takes next, or the
    /// flow the far end delivers it to ([`crate::net::store::deliver_hop`]), or
    /// [`crate::net::store::HOP_UNKNOWN`]). Slot and hop are hints only, to fetch the packet
    /// and the next link or endpoint into the cache while the event before it runs (the
    /// link's line decides what arrives).
    LinkArrival(u32, u32, u32),
    /// A link direction with a scheduler finishes serialising its current packet.
    LinkTxDone(u32),
    /// A flow starts (opens its connection).
    FlowStart(u32),
    /// One of a flow's timers may be due.
    Timer {
        /// Flow index.
        flow: u32,
        /// Which of its timers: the flow's transport names them.
        timer: TimerId,
    },
    /// An ABR adapter may send its next cell (the VC direction's index).
    CellSend(u32),
    /// A host's processor finishes its head packet (the node).
    HostReady(u32),
    /// A group of flows in barrier-synchronised rounds starts its next round (the group).
    NextRound(u32),
    /// A flow's receiver has delivered its share of a round to the application (the flow).
    RoundReached(u32),
    /// A packet on a link direction whose packets overtake one another (`reorder`) reaches
    /// the far end: (the link direction, the packet's slot, its hop onward, as for
    /// [`Event::LinkArrival`]). Each such packet has its own event, and here the slot names
    /// the packet.
    ReorderedArrival(u32, u32, u32),
    /// A packet that a link dropped when it took it ahead of time (a router hop worked out
    /// without an event) would have reached that link now: tell its flow. (The link
    /// direction, the store slot holding the packet with its cause as `lost`.)
    DropNotice(u32, u32),
}

/// A transport's own name for one of its timers.
pub type TimerId = u16;

/// An event's place in the order: its time in the high 64 bits, its insertion sequence
/// number in the low 64, so that one 128-bit comparison orders by (time, sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u128);

impl Key {
    #[inline(always)]
    fn new(time: Time, seq: u64) -> Key {
        Key(((time as u128) << 64) | seq as u128)
    }

    #[inline(always)]
    fn time(self) -> Time {
        (self.0 >> 64) as Time
    }
}

/// A 4-ary min-heap of entries: half the levels of a binary heap, and a node's four children
/// share two cache lines. Keys are unique (time, sequence), so the pop order is the same as
/// any other priority queue's.
#[derive(Default)]
struct QuadHeap {
    v: Vec<Entry>,
}

impl QuadHeap {
    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.v.is_empty()
    }

    #[inline]
    fn peek(&self) -> Option<&Entry> {
        self.v.first()
    }

    #[inline(always)]
    fn push(&mut self, key: Key, ev: Packed) {
        let mut i = self.v.len();
        // A placeholder of constants (not the new entry, which would be copied through the
        // stack): the entry is written once, where it settles.
        self.v.push(Entry::HOLE);
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.v[parent].key <= key {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i].set(key, ev);
    }

    /// Take the minimum out. Bottom-up: the hole left at the root first descends to a leaf
    /// along the smaller children (three comparisons per level, none against the moved
    /// entry), then the last entry rises from there, which it rarely does far since it came
    /// from the bottom.
    #[inline(always)]
    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        let n = self.v.len();
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            let c = if first + 4 <= n {
                let k = &self.v[first..first + 4];
                let a = if k[1].key < k[0].key { 1 } else { 0 };
                let b = if k[3].key < k[2].key { 3 } else { 2 };
                first + if k[b].key < k[a].key { b } else { a }
            } else if first < n {
                let mut c = first;
                for k in first + 1..n {
                    if self.v[k].key < self.v[c].key {
                        c = k;
                    }
                }
                c
            } else {
                break;
            };
            self.v[i] = self.v[c];
            i = c;
        }
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.v[parent].key <= last.key {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i] = last;
        Some(top)
    }
}

/// log2 of a wheel slot's widest width in ns (2^22 ns ≈ 4.2 ms), which a queue starts with.
const SLOT_BITS: u32 = 22;
/// log2 of a wheel slot's narrowest width in ns.
const MIN_SLOT_BITS: u32 = 3;
/// More heap entries than this on average narrow the slots ([`EventQueue::adapt`]). Measured
/// on benchmark B5's fat tree at other sizes: with 256, a k = 8 fabric (about a hundred
/// packets about to arrive) kept wide slots and a heap of that depth, and ran 1.25–1.30×
/// slower than with 64; a k = 4 one (a few dozen) ran 8–9 % slower with 32 than with 64.
const CROWDED: u64 = 64;
/// Fewer heap entries than this on average, with the heap running dry every few pops,
/// widen them.
const SPARSE: u64 = 8;
/// End of a wheel slot's list.
const NIL: u32 = u32::MAX;
/// log2 of the widest slot (in ns) whose entries are sorted into a run by counting (their
/// times within the slot take at most 2^RUN_BITS values); wider slots' entries go into the
/// heap.
const RUN_BITS: u32 = 8;
/// Slots in the wheel: at a quarter of a millisecond each, it reaches 4.2 s ahead, past the
/// retransmission timers of many flows (1 s and more away). With 4,096 B4's 10,000 flows
/// could not narrow below 1 ms (the timers would have overflowed the wheel) and ran 3–4 %
/// slower.
const SLOTS: u64 = 16384;

/// A narrow slot's entries in key order, served from the front (`at`).
#[derive(Default)]
struct Run {
    v: Vec<Entry>,
    /// The next entry; entries before it were taken.
    at: usize,
}

impl Run {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.at == self.v.len()
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.v.len() - self.at
    }

    /// The next entry.
    #[inline(always)]
    fn first(&self) -> Option<&Entry> {
        self.v.get(self.at)
    }

    /// Take the next entry (the storage is reused once all are taken).
    #[inline(always)]
    fn pop_first(&mut self) -> Option<Entry> {
        let e = *self.v.get(self.at)?;
        self.at += 1;
        if self.at == self.v.len() {
            self.v.clear();
            self.at = 0;
        }
        Some(e)
    }

    /// Put `e` in its place: after every entry with a smaller key. A new event comes after
    /// every entry at its time, which mostly puts it near the end.
    fn insert(&mut self, e: Entry) {
        let at = self.at + self.v[self.at..].partition_point(|r| r.key < e.key);
        self.v.insert(at, e);
    }

    /// Move the entries not yet taken to `out`.
    fn drain_into(&mut self, out: &mut Vec<Entry>) {
        out.extend(self.v.drain(self.at..));
        self.v.clear();
        self.at = 0;
    }

    /// Fill the run (empty) with a wheel slot's entries in key order: a counting sort on
    /// the time within the slot (fewer than 2^`bits` values) straight from the slot's list
    /// (from `head`, through the pool `q`), whose entries it hands back to the free list.
    /// Each time's places are filled from the back, so entries at the same time come out in
    /// the reverse of the list's order, which holds the last filed first: ascending
    /// sequence, unless the slot was re-filed (checked).
    #[inline(always)]
    fn fill_sorted(&mut self, head: u32, bits: u32, q: &mut Pool) {
        debug_assert!(self.at == 0 && self.v.is_empty());
        let mask = (1u64 << bits) - 1;
        let mut end = [0u32; 1 << RUN_BITS];
        let mut n = 0usize;
        let mut i = head;
        while i != NIL {
            end[(q.entries[i as usize].key.time() & mask) as usize] += 1;
            n += 1;
            i = q.next[i as usize];
        }
        let mut sum = 0;
        for a in end.iter_mut().take(mask as usize + 1) {
            sum += *a;
            *a = sum;
        }
        self.v.reserve(n);
        let out = &mut self.v.spare_capacity_mut()[..n];
        let mut i = head;
        while i != NIL {
            let e = q.entries[i as usize];
            let k = &mut end[(e.key.time() & mask) as usize];
            *k -= 1;
            out[*k as usize].write(e);
            i = q.release(i);
        }
        // SAFETY: each time's entries fill the places from the sum of the counts before it
        // up to (not including) the sum through it, each place once, so all of the first n
        // places were written just above.
        unsafe { self.v.set_len(n) };
        // A list holds same-time entries in descending sequence when they were filed as they
        // were pushed; a re-filing ([`EventQueue::rewidth`]) files them in any order.
        if !self.v.windows(2).all(|w| w[0].key < w[1].key) {
            self.v.sort_unstable_by_key(|e| e.key);
        }
    }
}

/// The wheel's entries: every slot's list, and the free list, run through one pool.
struct Pool {
    entries: Vec<Entry>,
    /// Per entry: the next entry of its slot's list, or of the free list.
    next: Vec<u32>,
    /// First free entry (or `NIL`).
    free: u32,
    /// Entries in slots' lists.
    in_use: usize,
}

impl Default for Pool {
    fn default() -> Self {
        Pool {
            entries: Vec::new(),
            next: Vec::new(),
            free: NIL,
            in_use: 0,
        }
    }
}

impl Pool {
    /// Return entry `i` to the free list; the next entry of its slot's list.
    #[inline(always)]
    fn release(&mut self, i: u32) -> u32 {
        self.in_use -= 1;
        let next = self.next[i as usize];
        self.next[i as usize] = self.free;
        self.free = i;
        next
    }
}

/// A deterministic priority queue of events.
pub struct EventQueue {
    /// The rest of the last narrow slot moved out of the wheel, in order: its next entry is
    /// popped whenever the heap is empty.
    run: Run,
    /// Every pending event before `heap_limit`.
    heap: QuadHeap,
    /// Events before this time go straight into the heap: the horizon, or while a run is
    /// served, the time of its next entry (later ones before the horizon join the run). So
    /// the heap, when it holds anything, holds the earliest event.
    heap_limit: Time,
    /// Events in the slots from `horizon`'s on, for `SLOTS` slots: slot k's entries form a
    /// list starting at `wheel[k % SLOTS]` through `pool` (one shared pool, so a slot costs
    /// no allocation of its own; freed entries are reused first, while still cached).
    wheel: Vec<u32>,
    pool: Pool,
    /// One bit per wheel slot: set when the slot holds events.
    occupied: Vec<u64>,
    /// Events beyond the wheel.
    far: BinaryHeap<Reverse<Entry>>,
    /// Start of the first slot not yet moved into the heap (a multiple of the slot width).
    horizon: Time,
    /// log2 of the slot width in ns.
    slot_bits: u32,
    /// Since the last [`EventQueue::adapt`]: pops, the sum of the events before the horizon
    /// (in the heap and the run) at each pop,
    /// and refills.
    pops: u64,
    heap_sum: u64,
    refills: u64,
    /// Pops since the slot width last changed.
    since_rewidth: u64,
    /// log2 of the narrowest slot width allowed (raised when a narrowing overflowed).
    floor_bits: u32,
    next_seq: u64,
    /// Number of events popped so far (for profiling and the benchmark report).
    pub popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            run: Run::default(),
            heap: QuadHeap::default(),
            heap_limit: 1 << SLOT_BITS,
            wheel: vec![NIL; SLOTS as usize],
            pool: Pool::default(),
            occupied: vec![0; (SLOTS / 64) as usize],
            far: BinaryHeap::new(),
            horizon: 1 << SLOT_BITS,
            slot_bits: SLOT_BITS,
            pops: 0,
            heap_sum: 0,
            refills: 0,
            since_rewidth: 0,
            floor_bits: MIN_SLOT_BITS,
            next_seq: 0,
            popped: 0,
        }
    }
}

/// One pending event with its key, the event packed into two words ([`Packed`]). Aligned
/// to 32 bytes so that no entry straddles a cache line: measured 5 % less wall time on
/// benchmark B2.
///
/// Plain words rather than the `Event` enum, so that an entry is built in registers: an
/// enum is assembled in memory by stores of 2, 4 and 8 bytes, and copying it into the heap
/// then reads it back with 16-byte loads that cannot be forwarded from those stores (a stall
/// of a dozen cycles or more per push; perf put 14 % of benchmark B2's time there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
struct Entry {
    key: Key,
    ev: Packed,
}

// An event bigger than 16 bytes would make every heap entry 64.
const _: () = assert!(std::mem::size_of::<Entry>() == 32);

impl Entry {
    /// A heap place about to be filled.
    const HOLE: Entry = Entry {
        key: Key(0),
        ev: Packed(0, 0),
    };

    /// Overwrite with `key` and `ev` by two 16-byte stores. Assigned plainly, the entry is
    /// written by four 8-byte stores, and the next move of it (often the next pop, which
    /// takes the last entry) reads it back with 16-byte loads that cannot be forwarded from
    /// them: measured 10 % of the run loop on benchmark B2.
    #[inline(always)]
    fn set(&mut self, key: Key, ev: Packed) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{__m128i, _mm_set_epi64x, _mm_store_si128};
            let p = self as *mut Entry as *mut __m128i;
            // SAFETY: `p` points at this entry, which is 32 bytes long and 32-byte aligned
            // (`repr(C, align(32))`: the key's 16 bytes, then the event's), so both stores
            // are aligned and in bounds; every bit pattern is a valid `Entry`. SSE2 is part
            // of x86_64.
            unsafe {
                _mm_store_si128(p, _mm_set_epi64x((key.0 >> 64) as i64, key.0 as i64));
                _mm_store_si128(p.add(1), _mm_set_epi64x(ev.1 as i64, ev.0 as i64));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            *self = Entry { key, ev };
        }
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Entries order by their keys alone (unique, so no two entries are equal in order).
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// An [`Event`] as two words: the variant's tag in the low byte of the first and its first
/// field in the high half; the second and third fields in the second word's halves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
struct Packed(u64, u64);

impl Packed {
    const LINK_ARRIVAL: u64 = 0;
    const LINK_TX_DONE: u64 = 1;
    const FLOW_START: u64 = 2;
    const TIMER: u64 = 3;
    const CELL_SEND: u64 = 4;
    const HOST_READY: u64 = 5;
    const NEXT_ROUND: u64 = 6;
    const ROUND_REACHED: u64 = 7;
    const REORDERED_ARRIVAL: u64 = 8;
    const DROP_NOTICE: u64 = 9;

    #[inline(always)]
    fn new(tag: u64, a: u32, b: u32, c: u32) -> Packed {
        Packed(tag | (a as u64) << 32, b as u64 | (c as u64) << 32)
    }

    #[inline(always)]
    fn pack(ev: Event) -> Packed {
        match ev {
            Event::LinkArrival(l, slot, hop) => Packed::new(Self::LINK_ARRIVAL, l, slot, hop),
            Event::LinkTxDone(l) => Packed::new(Self::LINK_TX_DONE, l, 0, 0),
            Event::FlowStart(f) => Packed::new(Self::FLOW_START, f, 0, 0),
            Event::Timer { flow, timer } => Packed::new(Self::TIMER, flow, timer as u32, 0),
            Event::CellSend(vc) => Packed::new(Self::CELL_SEND, vc, 0, 0),
            Event::HostReady(node) => Packed::new(Self::HOST_READY, node, 0, 0),
            Event::NextRound(g) => Packed::new(Self::NEXT_ROUND, g, 0, 0),
            Event::RoundReached(f) => Packed::new(Self::ROUND_REACHED, f, 0, 0),
            Event::ReorderedArrival(l, slot, hop) => {
                Packed::new(Self::REORDERED_ARRIVAL, l, slot, hop)
            }
            Event::DropNotice(l, slot) => Packed::new(Self::DROP_NOTICE, l, slot, 0),
        }
    }

    #[inline(always)]
    fn unpack(self) -> Event {
        let a = (self.0 >> 32) as u32;
        let (b, c) = (self.1 as u32, (self.1 >> 32) as u32);
        match self.0 & 0xff {
            Self::LINK_ARRIVAL => Event::LinkArrival(a, b, c),
            Self::LINK_TX_DONE => Event::LinkTxDone(a),
            Self::FLOW_START => Event::FlowStart(a),
            Self::TIMER => Event::Timer {
                flow: a,
                timer: b as TimerId,
            },
            Self::CELL_SEND => Event::CellSend(a),
            Self::HOST_READY => Event::HostReady(a),
            Self::NEXT_ROUND => Event::NextRound(a),
            Self::ROUND_REACHED => Event::RoundReached(a),
            Self::DROP_NOTICE => Event::DropNotice(a, b),
            _ => Event::ReorderedArrival(a, b, c),
        }
    }
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `ev` at absolute time `time`.
    #[inline(always)]
    pub fn push(&mut self, time: Time, ev: Event) {
        let key = Key::new(time, self.next_seq);
        self.next_seq += 1;
        self.insert(key, Packed::pack(ev));
    }

    /// File an entry where its time belongs: the heap, a wheel slot or the overflow.
    #[inline(always)]
    fn insert(&mut self, key: Key, ev: Packed) {
        if key.time() < self.heap_limit {
            self.heap.push(key, ev);
        } else {
            self.insert_later(key, ev);
        }
    }

    /// File an entry the heap does not take: into the run being served, a wheel slot or
    /// the overflow.
    /// (Only the wheel's case is handled here: the other two call out, so that this common
    /// one saves few registers.)
    #[inline(never)]
    fn insert_later(&mut self, key: Key, ev: Packed) {
        let t = key.time();
        let bits = self.slot_bits;
        if t < self.horizon {
            // Only while a run is served is the heap's limit below the horizon.
            return self.insert_into_run(key, ev);
        }
        if (t >> bits) >= (self.horizon >> bits) + SLOTS {
            return self.insert_far(key, ev);
        }
        let slot = ((t >> bits) % SLOTS) as usize;
        let i = self.pool.free;
        if i == NIL {
            return self.insert_new_entry(key, ev, slot);
        }
        self.pool.free = self.pool.next[i as usize];
        self.pool.entries[i as usize].set(key, ev);
        self.pool.next[i as usize] = self.wheel[slot];
        self.wheel[slot] = i;
        self.occupied[slot / 64] |= 1 << (slot % 64);
        self.pool.in_use += 1;
    }

    /// [`EventQueue::insert_later`] into the run being served.
    #[inline(never)]
    fn insert_into_run(&mut self, key: Key, ev: Packed) {
        self.run.insert(Entry { key, ev });
    }

    /// [`EventQueue::insert_later`] beyond the wheel.
    #[inline(never)]
    fn insert_far(&mut self, key: Key, ev: Packed) {
        self.far.push(Reverse(Entry { key, ev }));
    }

    /// [`EventQueue::insert_later`] into wheel slot `slot` when no pool entry is free.
    #[inline(never)]
    fn insert_new_entry(&mut self, key: Key, ev: Packed, slot: usize) {
        self.pool.entries.push(Entry { key, ev });
        self.pool.next.push(self.wheel[slot]);
        self.wheel[slot] = (self.pool.entries.len() - 1) as u32;
        self.occupied[slot / 64] |= 1 << (slot % 64);
        self.pool.in_use += 1;
    }

    /// Move the next slot holding events out of the wheel (a narrow one sorted into the
    /// run, a wide one into the heap), if the heap and the run are empty and anything is
    /// left.
    #[inline]
    fn refill(&mut self) {
        let bits = self.slot_bits;
        while self.heap.is_empty() && self.run.is_empty() {
            if self.pool.in_use == 0 && self.far.is_empty() {
                return;
            }
            self.refills += 1;
            // Jump over empty slots to the next one holding events (the wheel's come before
            // any in the overflow).
            let cur = self.horizon >> bits;
            let target = if self.pool.in_use > 0 {
                cur + self.empty_slots_from(cur)
            } else {
                let Reverse(e) = self.far.peek().expect("non-empty");
                cur.max(e.key.time() >> bits)
            };
            let slot = (target % SLOTS) as usize;
            let mut i = std::mem::replace(&mut self.wheel[slot], NIL);
            self.occupied[slot / 64] &= !(1 << (slot % 64));
            self.horizon = (target + 1) << bits;
            self.heap_limit = self.horizon;
            if bits <= RUN_BITS {
                self.run.fill_sorted(i, bits, &mut self.pool);
                self.heap_limit = self.run.first().map_or(self.horizon, |e| e.key.time());
            } else {
                while i != NIL {
                    // Keys are unique, so the order the slot's entries enter the heap in
                    // does not matter.
                    let e = self.pool.entries[i as usize];
                    self.heap.push(e.key, e.ev);
                    i = self.pool.release(i);
                }
            }
            // The wheel now reaches one slot further: take what the overflow has there (all
            // of it after this slot, unless the slot came from the overflow, when the wheel
            // and so the run were empty).
            while let Some(&Reverse(e)) = self.far.peek() {
                if (e.key.time() >> bits) >= (self.horizon >> bits) + SLOTS {
                    break;
                }
                self.far.pop();
                self.insert(e.key, e.ev);
            }
        }
    }

    /// Empty slots from absolute slot `cur` on before one that holds events (the wheel is
    /// not empty).
    fn empty_slots_from(&self, cur: u64) -> u64 {
        let words = self.occupied.len();
        let start = (cur % SLOTS) as usize;
        let (mut w, bit) = (start / 64, start % 64);
        let mut word = self.occupied[w] & (!0u64 << bit);
        let mut base = (w * 64) as u64;
        for _ in 0..=words {
            if word != 0 {
                let at = base + word.trailing_zeros() as u64;
                return (at + SLOTS - start as u64) % SLOTS;
            }
            w = (w + 1) % words;
            base = (w * 64) as u64;
            word = self.occupied[w];
        }
        unreachable!("the wheel holds events")
    }

    /// Fit the slot width to how crowded the queue has been since the last call (the
    /// engine calls this every few thousand events). A heap that holds hundreds of entries
    /// on average (a busy network with thousands of packets about to arrive within one
    /// slot) makes every pop walk a deep heap through the cache: narrower slots keep in it
    /// only the events of the next few nanoseconds to microseconds. A heap that holds a few
    /// entries and runs dry every few pops (a handful of flows) pays a refill for most
    /// events: wider slots. The order of events is the same whatever the width.
    pub fn adapt(&mut self) {
        if self.pops < 1024 {
            return;
        }
        let avg = self.heap_sum / self.pops;
        let dry = self.refills * 8 > self.pops;
        let bits = if avg > CROWDED && !dry {
            self.slot_bits.saturating_sub(2).max(self.floor_bits)
        } else if avg < SPARSE && dry {
            (self.slot_bits + 2).min(SLOT_BITS)
        } else {
            self.slot_bits
        };
        self.since_rewidth += self.pops;
        (self.pops, self.heap_sum, self.refills) = (0, 0, 0);
        // Re-filing costs a push per pending event: at most one per four events popped (with
        // 100,000 flows some 200,000 events are pending, and bursts of flow starts could
        // otherwise swing the width back and forth, re-filing them all each time).
        if bits != self.slot_bits && self.since_rewidth >= 4 * self.len() as u64 {
            self.since_rewidth = 0;
            let before = self.slot_bits;
            self.rewidth(bits);
            // Slots so narrow that the wheel no longer reaches most pending events (the
            // timers) would send them all through the overflow, a binary heap (with 100,000
            // flows, B4 1.12x slower): go back, and never narrow that far again.
            if bits < before && self.far.len() > self.pool.in_use + self.near() {
                self.floor_bits = before;
                self.rewidth(before);
            }
        }
    }

    /// Re-file every pending event for slots 2^`bits` ns wide: the horizon becomes the end of
    /// the earliest event's slot.
    #[cold]
    fn rewidth(&mut self, bits: u32) {
        let mut all = std::mem::take(&mut self.heap.v);
        self.run.drain_into(&mut all);
        for head in self.wheel.iter_mut() {
            let mut i = std::mem::replace(head, NIL);
            while i != NIL {
                all.push(self.pool.entries[i as usize]);
                i = self.pool.next[i as usize];
            }
        }
        all.extend(self.far.drain().map(|Reverse(e)| e));
        self.pool.entries.clear();
        self.pool.next.clear();
        self.pool.free = NIL;
        self.pool.in_use = 0;
        self.occupied.iter_mut().for_each(|w| *w = 0);
        self.slot_bits = bits;
        let first = all.iter().map(|e| e.key).min().map_or(0, Key::time);
        self.horizon = ((first >> bits) + 1) << bits;
        self.heap_limit = self.horizon;
        for e in all {
            self.insert(e.key, e.ev);
        }
    }

    /// log2 of the current slot width in ns.
    pub fn slot_bits(&self) -> u32 {
        self.slot_bits
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if self.heap.is_empty() {
            if self.run.is_empty() {
                return self.pop_after_refill();
            }
            return self.pop_run();
        }
        self.pop_heap()
    }

    /// Remove and return the earliest event if it is due at or before `end`; otherwise leave
    /// it pending. One look at the front instead of a [`EventQueue::peek_time`] and then a
    /// [`EventQueue::pop`], which would each find the front again.
    #[inline]
    pub fn pop_until(&mut self, end: Time) -> Option<(Time, Event)> {
        if self.heap.is_empty() && self.run.is_empty() {
            self.refill();
        }
        // The heap, when it holds anything, holds the earliest event.
        match self.heap.peek() {
            Some(e) if e.key.time() <= end => self.pop_heap(),
            Some(_) => None,
            None => match self.run.first() {
                Some(e) if e.key.time() <= end => self.pop_run(),
                _ => None,
            },
        }
    }

    /// [`EventQueue::pop`] of the heap's first entry.
    #[inline(always)]
    fn pop_heap(&mut self) -> Option<(Time, Event)> {
        self.pops += 1;
        self.heap_sum += self.near() as u64;
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.key.time(), e.ev.unpack()))
    }

    /// [`EventQueue::pop`] of the run's next entry (the heap is empty).
    #[inline(always)]
    fn pop_run(&mut self) -> Option<(Time, Event)> {
        self.pops += 1;
        self.heap_sum += self.near() as u64;
        let e = self.run.pop_first()?;
        self.heap_limit = self.run.first().map_or(self.horizon, |r| r.key.time());
        self.popped += 1;
        Some((e.key.time(), e.ev.unpack()))
    }

    /// [`EventQueue::pop`] with the heap and the run empty.
    #[inline(never)]
    fn pop_after_refill(&mut self) -> Option<(Time, Event)> {
        self.refill();
        if self.heap.is_empty() {
            return self.pop_run();
        }
        self.pop_heap()
    }

    /// Pending events before the horizon (in the heap and the run).
    #[inline(always)]
    fn near(&self) -> usize {
        self.heap.len() + self.run.len()
    }

    /// The event whose state the engine should fetch ahead (no refill from the wheel: for
    /// hints only). With the heap empty and a run being served (narrow slots: a busy network,
    /// whose state is out of the cache), the event *after* next: its data then has two
    /// events' work to arrive in, and the next event's was asked for one event ago.
    /// Otherwise the next event, if the heap or the run holds it.
    #[inline(always)]
    pub fn peek_ahead(&self) -> Option<Event> {
        let e = if self.heap.is_empty() {
            self.run.v.get(self.run.at + 1).or(self.run.first())
        } else {
            self.heap.peek()
        };
        e.map(|e| e.ev.unpack())
    }

    /// The earliest entry before the horizon: the heap's first, or else the run's next.
    #[inline(always)]
    fn first_near(&self) -> Option<&Entry> {
        self.heap.peek().or(self.run.first())
    }

    /// Time of the earliest event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        match self.first_near() {
            Some(e) => Some(e.key.time()),
            None => self.peek_after_refill(),
        }
    }

    /// [`EventQueue::peek_time`] with the heap and the run empty.
    #[inline(never)]
    fn peek_after_refill(&mut self) -> Option<Time> {
        self.refill();
        self.first_near().map(|e| e.key.time())
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.near() + self.pool.in_use + self.far.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator of test inputs, seeded with `x` (not zero).
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// The wheel and the overflow give exactly a single heap's order: random times from
    /// now to far beyond the wheel, pushed while popping, against a plain sort.
    #[test]
    fn order_matches_a_single_heap() {
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = vec![];
        let mut seq = 0u64;
        let mut rnd = xorshift(12345);
        let mut now = 0;
        let mut popped = vec![];
        for round in 0..20_000 {
            for _ in 0..(rnd() % 3) {
                let span = [1_000, 5_000_000, 2_000_000_000, 20_000_000_000][(rnd() % 4) as usize];
                let t = now + rnd() % span;
                q.push(t, Event::FlowStart(seq as u32));
                reference.push((t, seq));
                seq += 1;
            }
            if round % 2 == 0 {
                if let Some((t, Event::FlowStart(s))) = q.pop() {
                    assert!(t >= now);
                    now = t;
                    popped.push((t, s as u64));
                }
            }
        }
        while let Some((t, Event::FlowStart(s))) = q.pop() {
            popped.push((t, s as u64));
        }
        // Every event once, and each pop was the earliest then pending: so the sequence of
        // pops is sorted by (time, seq) within what was pending; check against the rule
        // directly by replaying with a plain heap.
        let mut heap = BinaryHeap::new();
        let mut i = 0;
        let mut expect = vec![];
        let mut now2 = 0;
        let mut x2: u64 = 12345;
        let mut rnd2 = || {
            x2 ^= x2 << 13;
            x2 ^= x2 >> 7;
            x2 ^= x2 << 17;
            x2
        };
        for round in 0..20_000 {
            for _ in 0..(rnd2() % 3) {
                let span = [1_000, 5_000_000, 2_000_000_000, 20_000_000_000][(rnd2() % 4) as usize];
                let t = now2 + rnd2() % span;
                heap.push(Reverse((t, reference[i].1)));
                i += 1;
            }
            if round % 2 == 0 {
                if let Some(Reverse(e)) = heap.pop() {
                    now2 = e.0;
                    expect.push(e);
                }
            }
        }
        while let Some(Reverse(e)) = heap.pop() {
            expect.push(e);
        }
        assert_eq!(popped.len(), reference.len());
        assert_eq!(popped, expect);
        assert!(q.is_empty());
    }

    /// Every kind of event comes out of the queue as it went in, with fields at their
    /// extremes (so no field spills into another's bits in the packed entry).
    #[test]
    fn every_event_kind_survives_the_packing() {
        let events = [
            Event::LinkArrival(u32::MAX, 0, u32::MAX - 1),
            Event::LinkArrival(7, u32::MAX, 0),
            Event::LinkTxDone(u32::MAX),
            Event::FlowStart(3),
            Event::Timer {
                flow: u32::MAX,
                timer: TimerId::MAX,
            },
            Event::Timer { flow: 0, timer: 1 },
            Event::CellSend(u32::MAX - 2),
            Event::HostReady(u32::MAX),
            Event::NextRound(u32::MAX),
            Event::RoundReached(5),
            Event::ReorderedArrival(u32::MAX, u32::MAX - 1, 9),
            Event::DropNotice(u32::MAX - 3, u32::MAX),
        ];
        let mut q = EventQueue::new();
        for (i, ev) in events.iter().enumerate() {
            // Near, in the wheel and beyond it.
            q.push([5, 9_000_000, 40_000_000_000][i % 3], *ev);
        }
        let out: Vec<(Time, Event)> = std::iter::from_fn(|| q.pop()).collect();
        // By time, then in the order pushed.
        let mut order: Vec<usize> = (0..events.len()).collect();
        order.sort_by_key(|&i| (i % 3, i));
        let expect: Vec<(Time, Event)> = order
            .iter()
            .map(|&i| ([5, 9_000_000, 40_000_000_000][i % 3], events[i]))
            .collect();
        assert_eq!(out, expect);
    }

    /// Slots narrowed for a crowded queue and widened again for a sparse one keep exactly
    /// a single heap's order: phases of dense traffic (hundreds of events within
    /// microseconds) and sparse traffic (a few events milliseconds apart, timers seconds
    /// away), with `adapt` called as the engine does.
    #[test]
    fn adapting_the_slot_width_keeps_the_order() {
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut rnd = xorshift(99);
        let (mut now, mut seq, mut widths) = (0u64, 0u32, vec![q.slot_bits()]);
        for phase in 0..6 {
            let dense = phase % 2 == 0;
            // Keep about 2,000 events pending while dense, 3 while sparse.
            let target = if dense { 2_000 } else { 3 };
            for step in 0..60_000 {
                while q.len() < target {
                    let t = if dense {
                        now + rnd() % 20_000
                    } else if rnd().is_multiple_of(4) {
                        now + rnd() % 3_000_000_000
                    } else {
                        now + rnd() % 5_000_000
                    };
                    q.push(t, Event::FlowStart(seq));
                    reference.push(Reverse((t, seq)));
                    seq += 1;
                }
                let (t, ev) = q.pop().expect("pending");
                let Reverse(expect) = reference.pop().expect("pending");
                assert_eq!((t, ev), (expect.0, Event::FlowStart(expect.1)));
                now = t;
                if step % 4_096 == 0 {
                    q.adapt();
                    widths.push(q.slot_bits());
                }
            }
        }
        while let Some((t, ev)) = q.pop() {
            let Reverse(expect) = reference.pop().expect("pending");
            assert_eq!((t, ev), (expect.0, Event::FlowStart(expect.1)));
        }
        assert!(reference.is_empty());
        // The width went down and came back up.
        let narrowest = *widths.iter().min().expect("widths");
        assert!(narrowest < SLOT_BITS, "never narrowed: {widths:?}");
        let back = widths.iter().rposition(|&w| w == narrowest).expect("seen");
        assert!(
            widths[back..].iter().any(|&w| w > narrowest),
            "never widened: {widths:?}"
        );
    }

    /// About a hundred events pending within the next 100 µs (a mid-size fat tree's packets
    /// about to arrive) narrow the slots; two dozen (a small one) stay in the heap of the
    /// widest slot.
    #[test]
    fn about_a_hundred_near_events_narrow_the_slots() {
        for (pending, narrows) in [(100, true), (24, false)] {
            let mut q = EventQueue::new();
            let mut rnd = xorshift(7);
            let mut now = 0;
            for seq in 0..50_000u32 {
                while q.len() < pending {
                    q.push(now + rnd() % 100_000, Event::FlowStart(seq));
                }
                now = q.pop().expect("pending").0;
                if seq % 4_096 == 4_095 {
                    q.adapt();
                }
            }
            assert_eq!(
                q.slot_bits() < SLOT_BITS,
                narrows,
                "{pending} pending: slots of 2^{} ns",
                q.slot_bits()
            );
        }
    }

    /// Narrowing stops where the wheel would no longer reach most pending events: with
    /// thousands of timers a second away and a crowded heap of packets, the slots narrow
    /// but never so far that the timers fill the overflow heap.
    #[test]
    fn narrowing_stops_before_the_timers_overflow() {
        let mut q = EventQueue::new();
        let (mut now, mut seq) = (0u64, 0u32);
        for i in 0..3_000u64 {
            q.push(1_000_000_000 + i * 300_000, Event::FlowStart(seq));
            seq += 1;
        }
        let mut widths = vec![];
        for round in 0..400_000u64 {
            while q.len() < 6_000 {
                q.push(
                    now + (round * 7_919 + seq as u64) % 10_000,
                    Event::FlowStart(seq),
                );
                seq += 1;
            }
            now = q.pop().expect("pending").0;
            if round % 16_384 == 0 {
                q.adapt();
                widths.push(q.slot_bits());
                assert!(
                    q.far.len() <= q.pool.in_use + q.near(),
                    "overflow {} beyond wheel {} and heap {} at {} bits",
                    q.far.len(),
                    q.pool.in_use,
                    q.near(),
                    q.slot_bits()
                );
            }
        }
        assert!(
            widths.iter().any(|&w| w < SLOT_BITS),
            "never narrowed: {widths:?}"
        );
    }

    /// With ten thousand flows' retransmission timers a second or more away (B4's), a
    /// crowded heap still narrows the slots to a quarter of a millisecond: the wheel then
    /// still reaches the timers. (With 4,096 slots it reached 1.05 s, the timers went to the
    /// overflow, and the narrowing was undone for good: 1 ms slots and a deeper heap.)
    #[test]
    fn the_wheel_reaches_timers_a_second_away_at_quarter_millisecond_slots() {
        let mut q = EventQueue::new();
        let mut rnd = xorshift(11);
        let (mut now, mut seq) = (0u64, 0u32);
        for i in 0..10_000u64 {
            q.push(1_000_000_000 + i * 50_000, Event::FlowStart(seq));
            seq += 1;
        }
        for round in 0..200_000u64 {
            while q.len() < 10_400 {
                q.push(now + rnd() % 1_000_000, Event::FlowStart(seq));
                seq += 1;
            }
            now = q.pop().expect("pending").0;
            if round % 4_096 == 4_095 {
                q.adapt();
            }
        }
        assert!(now < 1_000_000_000, "the timers are still ahead");
        assert!(
            q.slot_bits() <= 18,
            "slots of 2^{} ns, {} events in the overflow",
            q.slot_bits(),
            q.far.len()
        );
    }

    #[test]
    fn narrow_slots_pop_same_time_events_in_order() {
        // Slots narrow enough to be sorted into runs by counting, many events at each of a
        // few instants (as a fat tree's links deliver), pushes into the slot being popped,
        // and re-filings at other widths in between (which file a slot's entries in any
        // order): against a single heap.
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut rnd = xorshift(7);
        let (mut now, mut seq) = (0u64, 0u32);
        let push = |q: &mut EventQueue, r: &mut BinaryHeap<_>, seq: &mut u32, t: u64| {
            q.push(t, Event::FlowStart(*seq));
            r.push(Reverse((t, *seq)));
            *seq += 1;
        };
        q.rewidth(RUN_BITS - 2);
        let mut from_runs = 0;
        for step in 0..200_000u64 {
            while q.len() < 3_000 {
                // Instants 2 ns apart, up to 40 µs ahead; a few far beyond the wheel.
                let t = if rnd().is_multiple_of(64) {
                    now + rnd() % 50_000_000
                } else {
                    ((now + rnd() % 40_000) & !1).max(now)
                };
                push(&mut q, &mut reference, &mut seq, t);
            }
            if rnd().is_multiple_of(4) {
                // A peek may move the next slot out of the wheel before the pushes below.
                let Reverse((t, _)) = *reference.peek().expect("pending");
                assert_eq!(q.peek_time(), Some(t), "step {step}");
            }
            if rnd().is_multiple_of(8) {
                // Into the slot being popped, at or just after now.
                push(&mut q, &mut reference, &mut seq, now + rnd() % 3);
            }
            from_runs += !q.run.is_empty() as u32;
            if q.heap.is_empty() && q.run.len() >= 2 {
                // The hints' look ahead: the event after next.
                let mut two = reference.clone();
                two.pop();
                let Reverse((_, after)) = two.pop().expect("two pending");
                assert_eq!(q.peek_ahead(), Some(Event::FlowStart(after)), "step {step}");
            }
            let (t, ev) = q.pop().expect("pending");
            let Reverse(expect) = reference.pop().expect("pending");
            assert_eq!(
                (t, ev),
                (expect.0, Event::FlowStart(expect.1)),
                "step {step}"
            );
            now = t;
            if step % 20_000 == 10_000 {
                q.rewidth([RUN_BITS, RUN_BITS - 4, 12, 1][(step / 20_000 % 4) as usize]);
            }
        }
        assert!(from_runs > 50_000, "runs served only {from_runs} pops");
    }

    #[test]
    fn pop_until_takes_only_events_due_by_the_end() {
        // Random ends around the next event's time, at wide and narrow slot widths: an event
        // comes out exactly when it is due by the end, and one left pending comes out later.
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut rnd = xorshift(11);
        let (mut now, mut seq, mut taken, mut refused) = (0u64, 0u32, 0u32, 0u32);
        for step in 0..60_000u64 {
            while q.len() < 500 {
                let t = now + rnd() % 20_000;
                q.push(
                    t,
                    Event::Timer {
                        flow: seq,
                        timer: 1,
                    },
                );
                reference.push(Reverse((t, seq)));
                seq += 1;
            }
            let Reverse((next, flow)) = *reference.peek().expect("pending");
            let end = (next + rnd() % 5).saturating_sub(2);
            match q.pop_until(end) {
                Some((t, ev)) => {
                    assert!(next <= end, "step {step}: {next} popped before {end}");
                    assert_eq!(
                        (t, ev),
                        (next, Event::Timer { flow, timer: 1 }),
                        "step {step}"
                    );
                    reference.pop();
                    now = t;
                    taken += 1;
                }
                None => {
                    assert!(
                        next > end,
                        "step {step}: {next} due by {end} but not popped"
                    );
                    refused += 1;
                }
            }
            if step % 10_000 == 5_000 {
                q.rewidth([RUN_BITS - 2, 14, RUN_BITS, 3][(step / 10_000 % 4) as usize]);
            }
        }
        assert!(
            taken > 20_000 && refused > 10_000,
            "{taken} taken, {refused} refused"
        );
        let mut empty = EventQueue::new();
        assert_eq!(empty.pop_until(Time::MAX), None);
    }

    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(10, Event::FlowStart(2));
        q.push(5, Event::FlowStart(9));
        q.push(10, Event::FlowStart(1));
        q.push(10, Event::FlowStart(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::FlowStart(9)),
                (10, Event::FlowStart(2)),
                (10, Event::FlowStart(1)),
                (10, Event::FlowStart(3)),
            ]
        );
    }
}

//! A FIFO link's waiting packets, kept as runs of equal-size packets sent back to back.
//!
//! A packet waits in a drop-tail FIFO only if the link was busy when it was accepted, and then
//! its transmission starts the moment the previous packet's ends. So the start times of the
//! waiting packets follow from the first one and the serialisation times, and the queue need
//! only hold runs of equal sizes: (size, count), 8 bytes for a whole run.
//!
//! The first run lives in the link itself, in its first cache line, so a link whose queue
//! holds one packet size (data one way, ACKs the other) reads no memory of its own beyond that
//! line. The later runs (mixed sizes) go into a ring whose header is in the same line. Before,
//! a buffer of every packet's start time (16 bytes each, in its own allocation) was a cache
//! miss on most enqueues once many links were busy: 6-8 % of the fat-tree benchmark's time.
//!
//! The serialisation time of a size is the link's to give (`tx_of`): the backlog does not keep
//! it, which keeps a run at 8 bytes and the whole backlog beside the link's other hot fields.

use crate::sim::Time;

/// Packets of one size transmitted back to back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
struct Run {
    /// Size of each (bytes, framing included).
    size: u32,
    /// How many.
    count: u32,
}

/// A first-in first-out ring of runs; its capacity is a power of two, doubled when full.
#[derive(Debug, Default)]
#[repr(C)]
struct Ring {
    /// Index of the first run.
    first: u32,
    /// Runs held.
    n: u32,
    buf: Box<[Run]>,
}

impl Ring {
    #[inline(always)]
    fn at(&self, k: u32) -> usize {
        (self.first.wrapping_add(k) as usize) & (self.buf.len() - 1)
    }

    fn push_back(&mut self, r: Run) {
        if self.n as usize == self.buf.len() {
            let mut bigger = vec![Run::default(); (self.buf.len() * 2).max(4)].into_boxed_slice();
            for (k, r) in self.iter().enumerate() {
                bigger[k] = *r;
            }
            self.buf = bigger;
            self.first = 0;
        }
        let i = self.at(self.n);
        self.buf[i] = r;
        self.n += 1;
    }

    #[inline(always)]
    fn back_mut(&mut self) -> Option<&mut Run> {
        let i = self.n.checked_sub(1).map(|k| self.at(k))?;
        Some(&mut self.buf[i])
    }

    fn pop_front(&mut self) -> Option<Run> {
        self.n = self.n.checked_sub(1)?;
        let r = self.buf[self.at(0)];
        self.first = self.first.wrapping_add(1) & (self.buf.len() as u32 - 1);
        Some(r)
    }

    fn iter(&self) -> impl Iterator<Item = &Run> {
        (0..self.n).map(|k| &self.buf[self.at(k)])
    }
}

/// The waiting packets of a FIFO link (not counting the one being transmitted), in order of
/// transmission. 56 bytes, so that it shares a cache line with the link's busy time.
#[derive(Debug, Default)]
#[repr(C)]
pub struct Backlog {
    /// Start of transmission of the first waiting packet (meaningless while `len` is 0).
    front_start: Time,
    /// Bytes waiting.
    bytes: u64,
    /// The run the first waiting packet belongs to.
    head: Run,
    /// The runs after `head`, in order.
    later: Ring,
    /// Packets waiting.
    len: u32,
}

impl Backlog {
    /// Packets waiting.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether nothing is waiting.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes waiting.
    #[inline(always)]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Forget every waiting packet (the link went idle: all of them have started).
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
        self.bytes = 0;
        self.later.n = 0;
    }

    /// Add a packet of `size` bytes whose transmission starts at `start`: the moment the last
    /// waiting packet's ends, if any waits.
    #[inline(always)]
    pub fn push(&mut self, start: Time, size: u32) {
        if self.len == 0 {
            self.front_start = start;
            self.head = Run { size, count: 1 };
        } else {
            let tail = match self.later.back_mut() {
                Some(r) => r,
                None => &mut self.head,
            };
            if tail.size == size {
                tail.count += 1;
            } else {
                self.later.push_back(Run { size, count: 1 });
            }
        }
        self.len += 1;
        self.bytes += size as u64;
    }

    /// Remove the packets whose transmission has started by `now`; `tx_of` gives the
    /// serialisation time of a size.
    #[inline(always)]
    pub fn advance(&mut self, now: Time, tx_of: impl Fn(u32) -> Time) {
        while self.len > 0 && self.front_start <= now {
            self.front_start += tx_of(self.head.size);
            self.bytes -= self.head.size as u64;
            self.len -= 1;
            self.head.count -= 1;
            if self.head.count == 0 && self.len > 0 {
                self.next_run();
            }
        }
    }

    /// The head run is spent: the next one takes its place.
    #[cold]
    fn next_run(&mut self) {
        self.head = self
            .later
            .pop_front()
            .expect("packets beyond the head run are in later runs");
    }

    /// The runs in order.
    fn runs(&self) -> impl Iterator<Item = &Run> {
        std::iter::once(&self.head)
            .filter(|_| self.len > 0)
            .chain(self.later.iter())
    }

    /// Every waiting packet in order: (start of transmission, size).
    pub fn packets<F: Fn(u32) -> Time>(
        &self,
        tx_of: F,
    ) -> impl Iterator<Item = (Time, u32)> + use<'_, F> {
        let mut start = self.front_start;
        self.runs().flat_map(move |r| {
            let (first, tx) = (start, tx_of(r.size));
            start += tx * r.count as u64;
            (0..r.count as u64).map(move |i| (first + i * tx, r.size))
        })
    }

    /// Packets still waiting at `now` (whose transmission starts after `now`), without removing
    /// those that have started.
    pub fn waiting_at(&self, now: Time, tx_of: impl Fn(u32) -> Time) -> usize {
        let mut started = 0usize;
        let mut start = self.front_start;
        for r in self.runs() {
            if start > now {
                break;
            }
            let tx = tx_of(r.size);
            let k = (now - start)
                .checked_div(tx)
                .map_or(r.count as u64, |k| (k + 1).min(r.count as u64));
            started += k as usize;
            if k < r.count as u64 {
                break;
            }
            start += tx * r.count as u64;
        }
        self.len() - started
    }

    /// Start of transmission of the `i`-th waiting packet (0 is the first; `len()` is the
    /// moment the last one ends).
    pub fn start_of(&self, i: usize, tx_of: impl Fn(u32) -> Time) -> Time {
        let mut left = i as u64;
        let mut start = self.front_start;
        for r in self.runs() {
            if left == 0 {
                break;
            }
            let n = left.min(r.count as u64);
            start += n * tx_of(r.size);
            left -= n;
        }
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A reference: every packet's start and size in a plain queue.
    #[derive(Default)]
    struct Plain(VecDeque<(Time, u32)>);

    impl Plain {
        fn advance(&mut self, now: Time) {
            while self.0.front().is_some_and(|&(s, _)| s <= now) {
                self.0.pop_front();
            }
        }
        fn bytes(&self) -> u64 {
            self.0.iter().map(|&(_, b)| b as u64).sum()
        }
    }

    #[test]
    fn the_backlog_leaves_room_in_its_cache_line() {
        assert_eq!(std::mem::size_of::<Backlog>(), 56);
    }

    /// A link at 1 byte/ns fed packets of three sizes in random order and at random times: the
    /// runs agree with a queue of every start time at every step.
    #[test]
    fn runs_agree_with_a_queue_of_start_times() {
        let tx = |size: u32| size as Time;
        let mut rng = crate::sim::rng::Rng::stream(7, "backlog");
        let (mut b, mut plain) = (Backlog::default(), Plain::default());
        let (mut now, mut busy_until) = (0 as Time, 0 as Time);
        let mut most_runs = 0;
        for step in 0..20_000 {
            now += (rng.uniform() * 900.0) as Time;
            // Long stretches of one size, then mixed sizes.
            let size = if (step / 2000) % 2 == 0 {
                1000
            } else {
                [40u32, 1000, 1500][(rng.uniform() * 3.0) as usize]
            };
            b.advance(now, tx);
            plain.advance(now);
            if busy_until <= now {
                b.clear();
                plain.0.clear();
            }
            assert_eq!(
                (b.len(), b.bytes()),
                (plain.0.len(), plain.bytes()),
                "step {step}"
            );
            let probe = now + (rng.uniform() * 3000.0) as Time;
            let ahead = plain.0.iter().filter(|&&(s, _)| s > probe).count();
            assert_eq!(b.waiting_at(probe, tx), ahead, "step {step}");
            if b.len() >= 64 {
                continue; // a full queue drops it
            }
            let start = busy_until.max(now);
            busy_until = start + tx(size);
            if start > now {
                b.push(start, size);
                plain.0.push_back((start, size));
                most_runs = most_runs.max(b.later.n);
            }
            if step < 2000 {
                assert!(
                    b.later.buf.is_empty(),
                    "one size needs no ring (step {step})"
                );
            }
            assert!(b.packets(tx).eq(plain.0.iter().copied()), "step {step}");
            for (i, &(s, _)) in plain.0.iter().enumerate() {
                assert_eq!(b.start_of(i, tx), s);
            }
            if !b.is_empty() {
                assert_eq!(b.start_of(b.len(), tx), busy_until);
            }
        }
        assert!(
            most_runs > 20,
            "the mixed phase kept {most_runs} runs at most"
        );
    }
}

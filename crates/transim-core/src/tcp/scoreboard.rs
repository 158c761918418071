//! Index structures over the retransmission queue that keep SACK processing O(log n) per ACK
//! however large the window or the scoreboard grows.
//!
//! The queue holds consecutive segments with consecutive indices (`SentSeg::index`), so a
//! segment's slot in a power-of-two ring is `index & mask` as long as the ring is at least as
//! long as the queue. Two structures share the ring:
//! - a Fenwick tree of SACKed bytes per slot: the SACKed bytes below any point in O(log n);
//! - a disjoint-set forest "first unSACKed segment at or after i": SACKed segments point past
//!   themselves, with path compression, so walking a SACK block or looking for the next hole
//!   skips runs already SACKed in amortised constant time instead of rescanning them.
//!
//! Without them, every ACK in recovery rescanned the window (issue 16: wall time quadratic in
//! simulated time with 256 MiB windows).

/// Ring-indexed Fenwick tree and next-unSACKed forest over the retransmission queue.
#[derive(Clone, Debug, Default)]
pub struct SackIndex {
    /// Ring length − 1 (the ring length is a power of two); unused while `tree` is empty.
    mask: u32,
    /// Fenwick tree (1-based) of SACKed bytes per slot; wrapping sums (deltas may be negative).
    tree: Vec<u64>,
    /// Per slot: the index of a later segment that is a better answer for "first unSACKed at
    /// or after" (itself when the segment is not SACKed).
    next: Vec<u32>,
    /// SACKed bytes of the whole queue (the tree's sum, kept beside it: RFC 6675's pipe asks
    /// for it on every ACK in recovery, and the tree's walk reads several cold lines).
    total: u64,
}

impl SackIndex {
    /// Ring length.
    #[inline]
    fn cap(&self) -> usize {
        self.tree.len().saturating_sub(1)
    }

    #[inline]
    fn slot(&self, index: u32) -> usize {
        (index & self.mask) as usize
    }

    /// Make room for a queue of `len` segments, rebuilding from `segs` (index, SACKed bytes)
    /// when the ring must grow. Amortised O(1) per segment (the ring doubles).
    pub fn reserve(&mut self, len: usize, segs: impl Iterator<Item = (u32, u64)>) {
        if len <= self.cap() {
            return;
        }
        let cap = len.next_power_of_two().max(64);
        self.mask = cap as u32 - 1;
        self.tree = vec![0; cap + 1];
        self.next = (0..cap as u32).collect();
        self.total = 0;
        for (index, sacked) in segs {
            let s = self.slot(index);
            self.next[s] = index.wrapping_add((sacked > 0) as u32);
            if sacked > 0 {
                self.add(index, sacked as i64);
            }
        }
    }

    /// A new segment entered the queue: not SACKed.
    #[inline]
    pub fn push(&mut self, index: u32) {
        let s = self.slot(index);
        self.next[s] = index;
    }

    /// Add `delta` SACKed bytes to segment `index`.
    pub fn add(&mut self, index: u32, delta: i64) {
        let cap = self.cap();
        if cap == 0 {
            return; // no queue indexed: nothing SACKed is counted (as `sacked_in` reads)
        }
        self.total = self.total.wrapping_add(delta as u64);
        let mut i = self.slot(index) + 1;
        while i <= cap {
            self.tree[i] = self.tree[i].wrapping_add(delta as u64);
            i += i & i.wrapping_neg();
        }
    }

    /// Mark segment `index` SACKed with `bytes` bytes.
    pub fn mark(&mut self, index: u32, bytes: u64) {
        self.add(index, bytes as i64);
        let s = self.slot(index);
        self.next[s] = index.wrapping_add(1);
    }

    /// Forget every mark (the queue keeps `segs`, none SACKed any more).
    pub fn clear(&mut self, segs: impl Iterator<Item = u32>) {
        self.tree.iter_mut().for_each(|v| *v = 0);
        self.total = 0;
        for index in segs {
            let s = self.slot(index);
            self.next[s] = index;
        }
    }

    /// Sum of slots [0, k).
    fn prefix(&self, mut k: usize) -> u64 {
        let mut sum = 0u64;
        while k > 0 {
            sum = sum.wrapping_add(self.tree[k]);
            k &= k - 1;
        }
        sum
    }

    /// SACKed bytes of the whole queue: `sacked_in(first, len)` for a queue whose first
    /// segment is `first` and whose length is `len`, without walking the tree.
    #[inline]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// SACKed bytes of the `count` segments starting at index `from`.
    pub fn sacked_in(&self, from: u32, count: usize) -> u64 {
        if count == 0 || self.tree.is_empty() {
            return 0;
        }
        let cap = self.cap();
        let s0 = self.slot(from);
        let s1 = s0 + count;
        if s1 <= cap {
            self.prefix(s1).wrapping_sub(self.prefix(s0))
        } else {
            self.prefix(cap)
                .wrapping_sub(self.prefix(s0))
                .wrapping_add(self.prefix(s1 - cap))
        }
    }

    /// The index of the first segment at or after `index` that is not SACKed, or `end` (one
    /// past the last segment in the queue) if there is none.
    pub fn first_unsacked(&mut self, index: u32, end: u32) -> u32 {
        if self.tree.is_empty() {
            return index;
        }
        // Find the root, then compress the path behind it.
        let mut root = index;
        while root != end {
            let n = self.next[self.slot(root)];
            if n == root {
                break;
            }
            root = n;
        }
        let mut i = index;
        while i != root {
            let s = self.slot(i);
            let n = self.next[s];
            self.next[s] = root;
            i = n;
        }
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_skips_across_the_ring_boundary() {
        let mut ix = SackIndex::default();
        ix.reserve(10, std::iter::empty());
        let base = 60u32; // slots 60..63 then 0.. : the window wraps the 64-slot ring
        for i in base..base + 10 {
            ix.push(i);
        }
        for i in [base + 2, base + 3, base + 4, base + 7] {
            ix.mark(i, 100);
        }
        assert_eq!(ix.sacked_in(base, 10), 400);
        assert_eq!(ix.total(), 400);
        assert_eq!(ix.sacked_in(base, 3), 100);
        assert_eq!(ix.sacked_in(base + 3, 5), 300);
        assert_eq!(ix.first_unsacked(base + 2, base + 10), base + 5);
        assert_eq!(ix.first_unsacked(base + 7, base + 10), base + 8);
        assert_eq!(ix.first_unsacked(base + 1, base + 10), base + 1);
        ix.mark(base + 9, 100);
        ix.mark(base + 8, 100);
        assert_eq!(ix.first_unsacked(base + 7, base + 10), base + 10);
        // Popping a SACKed segment takes its bytes out.
        ix.add(base + 2, -100);
        assert_eq!(ix.sacked_in(base + 3, 7), 500);
        assert_eq!(ix.total(), 500);
        ix.clear(base + 3..base + 10);
        assert_eq!((ix.total(), ix.sacked_in(base + 3, 7)), (0, 0));
        ix.mark(base + 4, 30);
        assert_eq!(ix.total(), 30);
    }

    /// Without a ring (a queue never indexed) nothing counts as SACKed, in the sum either.
    #[test]
    fn an_unindexed_queue_sums_to_nothing() {
        let mut ix = SackIndex::default();
        ix.add(3, 100);
        assert_eq!((ix.total(), ix.sacked_in(3, 1)), (0, 0));
    }

    #[test]
    fn growing_keeps_the_marks() {
        let mut ix = SackIndex::default();
        ix.reserve(4, std::iter::empty());
        for i in 0..64 {
            ix.push(i);
        }
        ix.mark(5, 10);
        ix.mark(6, 10);
        let segs: Vec<(u32, u64)> = (0..100)
            .map(|i| (i, if i == 5 || i == 6 { 10 } else { 0 }))
            .collect();
        ix.reserve(100, segs.into_iter());
        for i in 64..100 {
            ix.push(i);
        }
        assert_eq!(ix.sacked_in(0, 100), 20);
        assert_eq!(ix.total(), 20);
        assert_eq!(ix.first_unsacked(5, 100), 7);
    }
}

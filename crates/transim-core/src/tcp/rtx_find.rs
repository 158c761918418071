//! Finding a sequence number's place in the retransmission queue.
//!
//! The queue holds the segments sent and not yet acknowledged, contiguous and in order, and
//! in a bulk transfer all but the last are one MSS long. So the place is first guessed from
//! the distance to the first segment and checked against the two segments around it; a
//! binary search runs only when the guess is wrong (short segments, application writes).
//! With a large window a binary search touches a cold cache line at nearly every step; the
//! guess touches one or two.

use super::sender::{SentSeg, TcpSender};
use std::collections::VecDeque;

impl TcpSender {
    /// Index of the first segment starting at or above `x` (the queue's length if none):
    /// `rtx.partition_point(|s| s.start < x)`.
    #[inline]
    pub(crate) fn rtx_first_from(&self, x: u64) -> usize {
        let guess = self.rtx.front().map_or(0, |f| {
            let d = x.saturating_sub(f.start);
            d.div_ceil(self.win.mss.max(1) as u64)
        });
        partition_guessed(&self.rtx, guess, |s| s.start < x)
    }

    /// Index of the first segment ending above `x` (the queue's length if none):
    /// `rtx.partition_point(|s| s.end <= x)`.
    #[inline]
    pub(crate) fn rtx_first_ending_after(&self, x: u64) -> usize {
        let guess = self.rtx.front().map_or(0, |f| {
            let d = x.saturating_sub(f.start);
            d / self.win.mss.max(1) as u64
        });
        partition_guessed(&self.rtx, guess, |s| s.end <= x)
    }
}

/// `q.partition_point(before)`, trying index `guess` first: it is the answer exactly when
/// the segment before it satisfies `before` and the segment at it does not (`before` is
/// monotone over the queue, true then false).
#[inline]
fn partition_guessed(
    q: &VecDeque<SentSeg>,
    guess: u64,
    before: impl Fn(&SentSeg) -> bool,
) -> usize {
    let n = q.len();
    let g = guess.min(n as u64) as usize;
    let low_ok = g == 0 || before(&q[g - 1]);
    if low_ok && (g == n || !before(&q[g])) {
        return g;
    }
    q.partition_point(before)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(start: u64, end: u64) -> SentSeg {
        SentSeg {
            start,
            end,
            ..Default::default()
        }
    }

    /// A queue of MSS-sized segments with one short one in the middle, and the answer of
    /// the plain binary search at every byte from before the first to past the last.
    #[test]
    fn the_guess_agrees_with_the_binary_search_everywhere() {
        let mss = 100;
        let mut q = VecDeque::new();
        let mut at = 1_000;
        for k in 0..20 {
            let len = if k == 7 { 40 } else { mss };
            q.push_back(seg(at, at + len));
            at += len;
        }
        for x in 900..at + 200 {
            for guess in [0, (x.saturating_sub(1_000)) / mss, 5, 19, 20, 1_000] {
                assert_eq!(
                    partition_guessed(&q, guess, |s| s.start < x),
                    q.partition_point(|s| s.start < x),
                    "start < {x}, guess {guess}"
                );
                assert_eq!(
                    partition_guessed(&q, guess, |s| s.end <= x),
                    q.partition_point(|s| s.end <= x),
                    "end <= {x}, guess {guess}"
                );
            }
        }
        let empty = VecDeque::new();
        assert_eq!(partition_guessed(&empty, 3, |s| s.start < 5), 0);
    }
}

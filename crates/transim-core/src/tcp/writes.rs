//! An application that writes in pieces, under Linux's write-time packetization
//! (`tcp_sendmsg` in 2.6.15): each write appends to the tail segment of the send queue only
//! while that segment is unsent and below the size goal (the MSS), otherwise it starts a new
//! segment; the stack tries to send after each write (`tcp_push`). The application writes a
//! piece when the send buffer has room for it (payload bytes written and not yet
//! acknowledged, a piece at a time; a piece larger than the whole buffer goes when the buffer
//! is empty). Segments once sent keep their size: the sender's retransmission queue holds
//! them as they left.

use crate::sim::Time;
use crate::transport::write_times::WriteTimes;
use std::collections::VecDeque;

/// The writer and the segments it has formed that are not yet sent.
#[derive(Clone, Debug)]
pub struct WriteApp {
    sizes: Vec<u64>,
    next: usize,
    /// Writes the application has made by now (all, unless they come at set times).
    pub limit: usize,
    /// One past the last byte written (sequence space: the first data byte is 1).
    pub write_seq: u64,
    /// Segments formed but not yet sent, as (start, end): contiguous and in order; all but
    /// the last are full.
    unsent: VecDeque<(u64, u64)>,
}

impl WriteApp {
    /// A writer of these pieces, in order.
    pub fn new(sizes: Vec<u64>) -> Self {
        WriteApp {
            sizes,
            next: 0,
            limit: usize::MAX,
            write_seq: 1,
            unsent: VecDeque::new(),
        }
    }

    /// Write the next piece if the send buffer has room; returns true if it did.
    pub fn write_next(&mut self, snd_una: u64, snd_buf: Option<u64>, mss: u64) -> bool {
        let Some(&size) = self.sizes.get(self.next) else {
            return false;
        };
        if self.next >= self.limit {
            return false;
        }
        let buffered = self.write_seq - snd_una.max(1);
        if snd_buf.is_some_and(|b| buffered > 0 && buffered + size > b) {
            return false;
        }
        self.next += 1;
        let mut left = size;
        while left > 0 {
            let room = match self.unsent.back() {
                Some(&(s, e)) if e - s < mss => mss - (e - s),
                _ => {
                    self.unsent.push_back((self.write_seq, self.write_seq));
                    mss
                }
            };
            let n = room.min(left);
            self.unsent.back_mut().expect("a tail segment").1 += n;
            self.write_seq += n;
            left -= n;
        }
        true
    }

    /// Payload bytes of the first unsent segment (0 when none).
    #[inline]
    pub fn next_len(&self, snd_max: u64) -> u64 {
        match self.unsent.front() {
            Some(&(s, e)) => {
                debug_assert_eq!(s, snd_max, "unsent segments start where sending stopped");
                e - s
            }
            None => 0,
        }
    }

    /// The first unsent segment, [start, end), has been sent.
    #[inline]
    pub fn sent(&mut self, start: u64, end: u64) {
        if self.unsent.front() == Some(&(start, end)) {
            self.unsent.pop_front();
        }
    }
}

/// A writes application whose writes come at set times (`app.at`): its schedule and the
/// bytes written in all after each write.
pub(crate) struct TimedWrites {
    pub(crate) times: WriteTimes,
    totals: Box<[u64]>,
}

impl TimedWrites {
    /// Writes of `sizes` at the times `at` (one each) from the start.
    pub fn new(at: Vec<Time>, sizes: &[u64]) -> Self {
        let totals = sizes
            .iter()
            .scan(0, |sum, &b| {
                *sum += b;
                Some(*sum)
            })
            .collect();
        TimedWrites {
            times: WriteTimes::new(at),
            totals,
        }
    }

    /// After the first `n` writes: the bytes written in all, and whether that was the last.
    pub fn written(&self, n: usize) -> (u64, bool) {
        (
            n.checked_sub(1).map_or(0, |k| self.totals[k]),
            n == self.totals.len(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_only_to_an_unsent_tail_below_the_mss() {
        let mut w = WriteApp::new(vec![1460, 1460, 100]);
        assert!(w.write_next(1, None, 1448));
        assert_eq!(w.unsent, [(1, 1449), (1449, 1461)]);
        w.sent(1, 1449);
        w.sent(1449, 1461);
        // The 12-byte segment was sent: the next write starts a new segment.
        assert!(w.write_next(1, None, 1448));
        assert_eq!(w.unsent, [(1461, 2909), (2909, 2921)]);
        // Unsent 12-byte tail: topped up.
        assert!(w.write_next(1, None, 1448));
        assert_eq!(w.unsent, [(1461, 2909), (2909, 3021)]);
        assert!(!w.write_next(1, None, 1448), "no writes left");
        assert_eq!(w.write_seq, 3021);
    }

    #[test]
    fn writes_only_what_the_application_has_made() {
        let mut w = WriteApp::new(vec![1000, 1000]);
        w.limit = 1;
        assert!(w.write_next(1, None, 1448));
        assert!(
            !w.write_next(1, None, 1448),
            "the second write is not made yet"
        );
        w.limit = 2;
        assert!(w.write_next(1, None, 1448));
        assert_eq!(w.write_seq, 2001);
        let t = TimedWrites::new(vec![0, 5], &[1000, 300]);
        assert_eq!(t.written(0), (0, false));
        assert_eq!(t.written(1), (1000, false));
        assert_eq!(t.written(2), (1300, true));
    }

    #[test]
    fn waits_for_room_in_the_send_buffer() {
        let mut w = WriteApp::new(vec![1000, 1000, 5000]);
        assert!(w.write_next(1, Some(1500), 1448));
        assert!(!w.write_next(1, Some(1500), 1448), "1000 + 1000 > 1500");
        assert!(
            w.write_next(1001, Some(1500), 1448),
            "the first write was acknowledged"
        );
        assert!(
            w.write_next(2001, Some(1500), 1448),
            "an empty buffer takes any piece"
        );
        assert_eq!(w.write_seq, 7001);
    }
}

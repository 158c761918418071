//! A receiving application that reads at a constant rate while anything waits in its receive
//! buffer (a fluid reader: a video player draining at its bit rate, a disk writer, a slow
//! consumer). TCP (`tcp.read_rate`) and SCTP (`sctp.read_rate`) build their flow control on
//! it; each decides itself what window the unread bytes leave.
//!
//! The state is exact in whole bytes: the bytes read by time t are ⌊R·(t − t₀)/8⌋ after the
//! instant t₀ the reader last started from an empty buffer, capped at the bytes delivered.

use crate::sim::Time;

/// The reader's position.
#[derive(Clone, Debug)]
pub struct FluidReader {
    /// Read rate, bit/s.
    rate_bps: f64,
    /// Bytes read by `since`, the instant the reader last started on an empty buffer.
    read_base: u64,
    since: Time,
    /// Bytes handed to the buffer in order so far.
    delivered: u64,
}

impl FluidReader {
    /// A reader taking `rate_bps` bit/s, with nothing delivered yet.
    pub fn new(rate_bps: f64) -> FluidReader {
        FluidReader {
            rate_bps,
            read_base: 0,
            since: 0,
            delivered: 0,
        }
    }

    /// The read rate, bit/s.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// Bytes handed to the buffer so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Bytes the application has read by `now`.
    pub fn read_by(&self, now: Time) -> u64 {
        let bytes = (now.saturating_sub(self.since) as f64 * self.rate_bps / 8e9).floor();
        // (A float beyond u64's range saturates in the cast.)
        self.read_base
            .saturating_add(bytes as u64)
            .min(self.delivered)
    }

    /// Bytes in the buffer, not yet read, at `now`.
    pub fn unread(&self, now: Time) -> u64 {
        self.delivered - self.read_by(now)
    }

    /// `bytes` more arrive at `now`. A reader that had emptied the buffer starts on them
    /// now; one still reading goes on at its rate.
    pub fn deliver(&mut self, bytes: u64, now: Time) {
        if self.read_by(now) >= self.delivered {
            self.read_base = self.delivered;
            self.since = now;
        }
        self.delivered += bytes;
    }

    /// The first instant from `now` on by which the application will have read `need`
    /// bytes in all, if no more arrive (`need` at most what has been delivered). Later than
    /// `now` whenever it has not read them yet.
    pub fn time_read(&self, need: u64, now: Time) -> Time {
        if self.read_by(now) >= need {
            return now;
        }
        let wait = ((need - self.read_base) as f64 * 8e9 / self.rate_bps).ceil();
        self.since.saturating_add(wait as Time).max(now + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MILLISECOND;

    /// 8 Mb/s reads a byte per microsecond.
    const MBPS8: f64 = 8e6;

    #[test]
    fn reads_at_its_rate_and_never_more_than_delivered() {
        let mut r = FluidReader::new(MBPS8);
        r.deliver(10_000, 0);
        assert_eq!(r.read_by(MILLISECOND), 1_000);
        assert_eq!(r.unread(MILLISECOND), 9_000);
        assert_eq!(r.read_by(20 * MILLISECOND), 10_000);
        // Empty from 10 ms; new bytes at 30 ms are read from 30 ms on, not from 10 ms.
        r.deliver(5_000, 30 * MILLISECOND);
        assert_eq!(r.read_by(31 * MILLISECOND), 11_000);
        // Bytes arriving while it reads do not restart it.
        r.deliver(5_000, 32 * MILLISECOND);
        assert_eq!(r.read_by(33 * MILLISECOND), 13_000);
    }

    #[test]
    fn the_time_a_count_is_read_by() {
        let mut r = FluidReader::new(MBPS8);
        r.deliver(10_000, 5 * MILLISECOND);
        // 2,500 bytes take 2.5 ms from the start at 5 ms.
        assert_eq!(r.time_read(2_500, 0), 7_500_000);
        assert_eq!(r.read_by(7_500_000), 2_500);
        assert_eq!(r.read_by(7_499_999), 2_499);
        // Already read: now.
        assert_eq!(r.time_read(2_500, 8 * MILLISECOND), 8 * MILLISECOND);
    }
}

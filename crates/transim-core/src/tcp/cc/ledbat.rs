//! LEDBAT (RFC 6817), a scavenger: it steers the queueing delay it measures towards
//! `TARGET` (100 ms, the RFC's maximum, ns-3's default) and yields to standard TCP, which
//! keeps queues longer. Per ACK, `cwnd += GAIN · off_target · bytes_acked · MSS / cwnd` with
//! `off_target = (TARGET − queuing_delay)/TARGET`, capped at the flight size plus one
//! segment (ALLOWED_INCREASE) and floored at 2 segments (MIN_CWND). The queueing delay is the
//! minimum of the last 4 delay samples (NOISE_FILTER) minus the base delay, the minimum over
//! the last 10 one-minute intervals (BASE_HISTORY).
//!
//! The delay samples are RTT samples: transim's clocks agree, but the one-way delay RFC 6817
//! measures needs the receiver's timestamps of each segment, which TCP does not carry; on a
//! path whose ACKs do not queue the two are equal. As ns-3's `TcpLedbat` (its default
//! `DO_SLOWSTART`), LEDBAT starts with standard slow start and halves on a loss; a window
//! LEDBAT lowers takes ssthresh down with it, so that slow start does not resume.

use super::{AckInfo, CongestionControl, Window};
use crate::sim::{Time, MILLISECOND, SECOND};

/// Target queueing delay.
pub const TARGET: Time = 100 * MILLISECOND;
/// Samples the current-delay filter keeps.
const NOISE_FILTER: usize = 4;
/// One-minute intervals the base-delay history keeps.
const BASE_HISTORY: usize = 10;
const GAIN: f64 = 1.0;

/// LEDBAT's state.
#[derive(Clone, Debug, Default)]
pub struct Ledbat {
    current: Vec<Time>,
    /// Per-minute minima, oldest first.
    base: Vec<Time>,
    /// The minute of the last base-history entry.
    minute: Option<u64>,
}

impl Ledbat {
    /// The queueing delay as LEDBAT measures it, once it has a sample.
    pub fn queuing_delay(&self) -> Option<Time> {
        let cur = self.current.iter().min()?;
        let base = self.base.iter().min()?;
        Some(cur.saturating_sub(*base))
    }

    fn sample(&mut self, now: Time, delay: Time) {
        if self.current.len() == NOISE_FILTER {
            self.current.remove(0);
        }
        self.current.push(delay);
        let minute = now / (60 * SECOND);
        if self.minute != Some(minute) {
            self.minute = Some(minute);
            if self.base.len() == BASE_HISTORY {
                self.base.remove(0);
            }
            self.base.push(delay);
        } else if let Some(last) = self.base.last_mut() {
            *last = (*last).min(delay);
        }
    }
}

impl CongestionControl for Ledbat {
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if let Some(rtt) = a.rtt {
            self.sample(a.now, rtt);
        }
        if w.in_slow_start() {
            w.slow_start(a.acked);
            return;
        }
        let Some(q) = self.queuing_delay() else {
            return;
        };
        let mss = w.mss as f64;
        let off_target = (TARGET as f64 - q as f64) / TARGET as f64;
        let cwnd = w.cwnd as f64 + GAIN * off_target * a.acked as f64 * mss / w.cwnd as f64;
        let max_allowed = (a.flight + w.mss as u64) as f64;
        w.cwnd = cwnd.min(max_allowed).max(2.0 * mss) as u64;
        // Slow start is only for the start: a window LEDBAT lowered stays in its control.
        w.ssthresh = w.ssthresh.min(w.cwnd);
        w.clamp();
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        (base / 2).max(2 * w.mss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::{ack, window};

    fn ack_at(now: Time, acked: u64, rtt: Time, flight: u64) -> AckInfo {
        AckInfo {
            now,
            rtt: Some(rtt),
            flight,
            ..ack(acked, 0)
        }
    }

    /// Below target the window grows by off_target·MSS per cwnd acknowledged; at target it
    /// holds; above it shrinks in proportion.
    #[test]
    fn window_moves_with_the_distance_to_target() {
        let mut l = Ledbat::default();
        let mut w = window(50, 10);
        let base = 40 * MILLISECOND;
        // Base 40 ms, then samples 90 ms: queueing delay 50 ms, off_target 0.5.
        l.on_ack(&mut w, &ack_at(0, 1000, base, 1 << 30));
        let before = w.cwnd;
        for k in 1..=4 {
            l.on_ack(&mut w, &ack_at(k, 1000, base + 50 * MILLISECOND, 1 << 30));
        }
        assert_eq!(l.queuing_delay(), Some(50 * MILLISECOND));
        // The 40 ms sample is still among the last four for the first three ACKs (queueing
        // delay 0, off_target 1), the fourth sees 50 ms.
        let mut expect = before as f64;
        for off in [1.0, 1.0, 1.0, 0.5] {
            expect += off * 1000.0 * 1000.0 / expect.floor();
            expect = expect.floor();
        }
        assert_eq!(w.cwnd, expect as u64);
        // 100 ms of queueing: no change. 150 ms: off_target −0.5.
        for k in 5..=8 {
            l.on_ack(&mut w, &ack_at(k, 1000, base + TARGET, 1 << 30));
        }
        let at_target = w.cwnd;
        l.on_ack(&mut w, &ack_at(9, 1000, base + TARGET, 1 << 30));
        assert_eq!(w.cwnd, at_target);
        for k in 10..=13 {
            l.on_ack(
                &mut w,
                &ack_at(k, 1000, base + TARGET + 50 * MILLISECOND, 1 << 30),
            );
        }
        let c = w.cwnd;
        l.on_ack(
            &mut w,
            &ack_at(14, 1000, base + TARGET + 50 * MILLISECOND, 1 << 30),
        );
        assert_eq!(w.cwnd, (c as f64 - 0.5 * 1000.0 * 1000.0 / c as f64) as u64);
    }

    /// The window never exceeds the flight size plus one segment, nor falls below two.
    #[test]
    fn allowed_increase_and_floor() {
        let mut l = Ledbat::default();
        let mut w = window(50, 10);
        l.on_ack(&mut w, &ack_at(0, 1000, 10 * MILLISECOND, 20_000));
        assert_eq!(w.cwnd, 21_000);
        let mut w = window(3, 2);
        for k in 1..=5 {
            l.on_ack(&mut w, &ack_at(k, 1000, 10 * SECOND, 1 << 30));
        }
        assert_eq!(w.cwnd, 2000);
    }
}

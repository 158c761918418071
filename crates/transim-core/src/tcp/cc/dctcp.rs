//! DCTCP (RFC 8257): Reno's growth and loss response, and an ECN response proportional to
//! the extent of congestion. Over each observation window (about one RTT: until snd_una
//! reaches the snd_nxt of the window's start, Linux's `!before(snd_una, next_seq)`) the
//! sender counts the bytes acknowledged and
//! those acknowledged with ECE; at the window's end `F = marked/acked` and
//! `α ← (1 − g)·α + g·F` (g = 1/16, α starts at 1). An echo cuts the window once per window
//! of data to `cwnd·(1 − α/2)`. DCTCP needs ECN (the connection negotiates it) and a
//! receiver that echoes each CE mark exactly (see [`crate::tcp::ecn`]); switches mark at a
//! queue threshold (`qdisc = "step"`).

use super::{AckInfo, CongestionControl, Window};

/// DCTCP's estimation gain g (RFC 8257 section 4.2: 1/16).
pub const G: f64 = 1.0 / 16.0;

/// DCTCP's state.
#[derive(Clone, Debug)]
pub struct Dctcp {
    /// The estimate of the fraction of bytes marked.
    pub alpha: f64,
    acked: u64,
    marked: u64,
    /// The observation window ends when snd_una reaches this (0: not started).
    window_end: u64,
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp {
            alpha: 1.0,
            acked: 0,
            marked: 0,
            window_end: 0,
        }
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        w.reno_on_ack(a.acked);
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        (base / 2).max(2 * w.mss as u64)
    }

    fn ssthresh_on_ecn(&mut self, w: &Window, _base: u64) -> u64 {
        ((w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64).max(2 * w.mss as u64)
    }

    fn on_ecn_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        if self.window_end == 0 {
            self.window_end = snd_nxt;
        }
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
        if snd_una >= self.window_end {
            if self.acked > 0 {
                let f = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - G) * self.alpha + G * f;
            }
            self.acked = 0;
            self.marked = 0;
            self.window_end = snd_nxt;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::window;

    /// α follows α ← (15/16)·α + F/16 window by window: from 1, a window with every byte
    /// marked keeps it at 1, a window with none marked brings it to 15/16, one with half
    /// marked to (15/16)² + 1/32.
    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction() {
        let mut d = Dctcp::default();
        let mss = 1000;
        // Window 1: segments 1..=10 (snd_nxt 10,001 when it starts).
        d.on_ecn_feedback(0, false, 1, 10_001);
        for k in 1..=10u64 {
            d.on_ecn_feedback(mss, true, 1 + k * mss, 10_001 + k * mss);
        }
        // The ACK reaching 10,001 closes the window: F = 1.
        assert!((d.alpha - 1.0).abs() < 1e-12);
        // Window 2: ends when snd_una reaches 20,001; no marks.
        for k in 11..=20u64 {
            d.on_ecn_feedback(mss, false, 1 + k * mss, 10_001 + k * mss);
        }
        assert!((d.alpha - 15.0 / 16.0).abs() < 1e-12, "{}", d.alpha);
        // Window 3: half of the bytes marked.
        for k in 21..=30u64 {
            d.on_ecn_feedback(mss, k % 2 == 0, 1 + k * mss, 10_001 + k * mss);
        }
        let expect = (15.0 / 16.0) * (15.0 / 16.0) + 0.5 / 16.0;
        assert!((d.alpha - expect).abs() < 1e-12, "{} vs {expect}", d.alpha);
    }

    /// The window after an echo is cwnd·(1 − α/2): half at α = 1, 7/8 at α = 1/4.
    #[test]
    fn echo_cuts_by_half_alpha() {
        let mut d = Dctcp::default();
        let w = window(40, 1000);
        assert_eq!(d.ssthresh_on_ecn(&w, 0), 20 * w.mss as u64);
        d.alpha = 0.25;
        assert_eq!(d.ssthresh_on_ecn(&w, 0), 35 * w.mss as u64);
        d.alpha = 0.0;
        assert_eq!(d.ssthresh_on_ecn(&w, 0), 40 * w.mss as u64);
    }
}

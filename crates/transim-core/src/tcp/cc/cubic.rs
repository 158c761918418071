//! CUBIC (RFC 9438). The window follows W(t) = C·(t − K)³ + W_max after a reduction, with
//! K = ∛((W_max − cwnd_epoch)/C), t the time since the congestion-avoidance epoch began; per
//! ACK cwnd moves towards W(t + RTT) (clamped to [cwnd, 1.5·cwnd]). In the Reno-friendly
//! region (W_cubic below the estimate W_est of a Reno flow's window) cwnd follows W_est.
//! Fast convergence lowers W_max when a loss comes before the previous W_max was reached.
//!
//! Two parameter sets: RFC 9438 (β = 0.7) and Linux 2.6.2x (β = 819/1024, the module ns-2
//! ships), chosen by the names "cubic" and "cubic-2.6". Either may leave slow start early by
//! [`super::hystart`] (`tcp.hystart`; off by default: RFC 9438 makes it optional).

use super::hystart::HyStart;
use super::{AckInfo, CongestionControl, HandOver, Window};
use crate::sim::Time;

/// CUBIC's scaling constant C (segments / s³), the same in RFC 9438 and Linux.
pub const C: f64 = 0.4;

/// CUBIC state, in segments.
#[derive(Clone, Debug)]
pub struct Cubic {
    /// Multiplicative decrease factor β.
    pub beta: f64,
    /// W_max (segments): the window before the last reduction, lowered by fast convergence.
    pub w_max: f64,
    /// cwnd_prior (segments): the window before the last reduction, as it was (RFC 9438
    /// §4.3: the Reno-friendly estimate grows at α = 1 once it reaches this, not W_max).
    pub cwnd_prior: f64,
    /// K (s) of the current epoch.
    pub k: f64,
    epoch_start: Option<Time>,
    cwnd_epoch: f64,
    w_est: f64,
    /// cwnd in segments with its fraction (the shared window holds whole bytes).
    cwnd: f64,
    /// HyStart, if this flow uses it (boxed: the congestion-control enum is as large as its
    /// largest variant, and every flow's sender holds one).
    pub hystart: Option<Box<HyStart>>,
}

impl Cubic {
    /// RFC 9438 constants: β = 0.7, C = 0.4.
    pub fn rfc9438() -> Self {
        Self::with_beta(0.7)
    }

    /// Linux 2.6.2x constants: β = 819/1024, C = 0.4.
    pub fn linux26() -> Self {
        Self::with_beta(819.0 / 1024.0)
    }

    fn with_beta(beta: f64) -> Self {
        Cubic {
            beta,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            cwnd: 0.0,
            hystart: None,
        }
    }

    /// W_cubic(t) in segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }

    /// The Reno-friendly estimate's growth per window (RFC 9438 §4.3): 3(1 − β)/(1 + β)
    /// until the estimate reaches cwnd_prior, then 1. (Until W_max, as a draft had it, would
    /// raise it sooner after fast convergence had lowered W_max: faster growth just where
    /// CUBIC should yield.)
    fn alpha(&self) -> f64 {
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        }
    }

    fn sync(&mut self, w: &Window) {
        let seg = w.cwnd as f64 / w.mss as f64;
        // Adopt the shared window if something else (recovery, a timeout) changed it.
        if (self.cwnd.floor() - seg.floor()).abs() >= 1.0 {
            self.cwnd = seg;
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if let Some(h) = &mut self.hystart {
            h.on_ack(w, a, self.epoch_start.map(|e| a.now - e));
        }
        if w.in_slow_start() {
            let before = w.cwnd;
            w.slow_start(a.acked);
            if let Some(h) = &mut self.hystart {
                h.after_slow_start_growth(w, a, before);
            }
            self.cwnd = w.cwnd as f64 / w.mss as f64;
            return;
        }
        self.sync(w);
        let mss = w.mss as f64;
        let acked_segs = (a.acked as f64 / mss).max(1.0);
        let epoch = *self.epoch_start.get_or_insert_with(|| {
            if self.cwnd < self.w_max {
                self.k = ((self.w_max - self.cwnd) / C).cbrt();
            } else {
                self.k = 0.0;
                self.w_max = self.cwnd;
            }
            self.cwnd_epoch = self.cwnd;
            self.w_est = self.cwnd;
            a.now
        });
        let t = (a.now - epoch) as f64 * 1e-9;
        let rtt = if a.srtt > 0 {
            a.srtt as f64 * 1e-9
        } else {
            0.0
        };
        let target = self.w_cubic(t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
        let alpha = self.alpha();
        self.w_est += alpha * acked_segs / self.cwnd;
        if self.w_cubic(t) < self.w_est {
            self.cwnd = self.cwnd.max(self.w_est);
        } else {
            self.cwnd += (target - self.cwnd) / self.cwnd * acked_segs;
        }
        let bytes = (self.cwnd * mss) as u64;
        w.cwnd = match w.unit {
            super::super::config::CwndUnit::Bytes => bytes,
            super::super::config::CwndUnit::Packets => (bytes / w.mss as u64) * w.mss as u64,
        }
        .max(w.cwnd);
        w.clamp();
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        let seg = w.cwnd as f64 / w.mss as f64;
        self.cwnd_prior = seg;
        if let Some(h) = &mut self.hystart {
            h.on_reduction();
        }
        // Fast convergence (RFC 9438 §4.7).
        self.w_max = if seg < self.w_max {
            seg * (1.0 + self.beta) / 2.0
        } else {
            seg
        };
        self.epoch_start = None;
        let mss = w.mss as u64;
        let ss = if w.whole_cuts {
            // Linux's and ns-3's arithmetic: β times the whole segments of the window.
            (((base / mss) as f64 * self.beta) as u64).max(2) * mss
        } else {
            ((base as f64 * self.beta) as u64).max(2 * mss)
        };
        self.cwnd = ss as f64 / w.mss as f64;
        ss
    }

    fn on_timeout(&mut self, w: &mut Window) {
        if let Some(h) = &mut self.hystart {
            h.on_timeout();
        }
        // RFC 9438 §4.8: the first congestion avoidance after a timeout starts with K = 0
        // and W_max at the window it starts from (Linux's and ns-3's reset of W_max on a
        // timeout come to the same); the old W_max would make it climb concavely towards the
        // window that had just overflowed.
        self.w_max = 0.0;
        self.epoch_start = None;
        self.cwnd = w.cwnd as f64 / w.mss as f64;
    }

    fn hand_over(&mut self, w: &Window, _h: &HandOver) {
        // Start a fresh epoch at the current window: it is W_max, and growth is convex.
        self.cwnd = w.cwnd as f64 / w.mss as f64;
        self.w_max = self.cwnd;
        self.cwnd_prior = self.cwnd;
        self.epoch_start = None;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{ack, window};
    use super::*;

    /// RFC 9438 §4.8: after a timeout the first congestion avoidance starts with K = 0 and
    /// W_max at the window it starts from, so it grows convexly from there. A loss at 100
    /// segments, then a timeout, then avoidance from 40 segments: without the reset K would
    /// be ∛((100 − 40) / 0.4) = 5.3 s, a concave climb back towards 100.
    #[test]
    fn the_first_epoch_after_a_timeout_starts_at_its_own_window() {
        let mut c = Cubic::rfc9438();
        let mut w = window(100, 1000);
        w.ssthresh = c.ssthresh_on_loss(&w, w.cwnd);
        assert_eq!(c.w_max, 100.0);
        w.set_cwnd(1000);
        c.on_timeout(&mut w);
        w.cwnd = 40_000;
        w.ssthresh = 40_000;
        c.on_ack(&mut w, &ack(1000, 0));
        assert_eq!((c.k, c.w_max), (0.0, 40.0));

        // A loss without a timeout keeps W_max: K from the gap to it.
        let mut c = Cubic::rfc9438();
        let mut w = window(100, 1000);
        c.ssthresh_on_loss(&w, w.cwnd);
        w.cwnd = 40_000;
        w.ssthresh = 40_000;
        c.on_ack(&mut w, &ack(1000, 0));
        assert!((c.k - (60.0f64 / 0.4).cbrt()).abs() < 1e-9, "K {}", c.k);
    }

    /// Fast convergence lowers W_max, not the point where the Reno-friendly estimate speeds
    /// up: a loss at 100 segments, then one at 80 (W_max (1 + 0.7) / 2 · 80 = 68); the
    /// estimate grows at 3 · 0.3 / 1.7 = 0.53 per window until it reaches 80.
    #[test]
    fn the_reno_friendly_estimate_speeds_up_at_the_window_before_the_loss() {
        let mut c = Cubic::rfc9438();
        let mut w = window(100, 1000);
        c.ssthresh_on_loss(&w, w.cwnd);
        w.cwnd = 80_000;
        c.ssthresh_on_loss(&w, w.cwnd);
        assert!((c.w_max - 68.0).abs() < 1e-9 && c.cwnd_prior == 80.0);
        let slow = 3.0 * (1.0 - 0.7) / (1.0 + 0.7);
        for (w_est, alpha) in [(56.0, slow), (70.0, slow), (79.9, slow), (80.0, 1.0)] {
            c.w_est = w_est;
            assert_eq!(c.alpha(), alpha, "W_est {w_est}");
        }
    }
}

//! BIC TCP (Xu, Harfoush & Rhee, INFOCOM 2004), as in Linux's tcp_bic: below the window of
//! the last loss (W_max) cwnd grows by binary search — half the distance per RTT, at most
//! S_max = 16 segments and slowly (smoothing) within one B-th of it; above W_max it probes
//! slowly, then faster. A loss cuts to β = 819/1024 (fast convergence lowers W_max when a
//! loss comes before it was reached). Below 14 segments it behaves as Reno.

use super::{AckInfo, CongestionControl, HandOver, Window};

/// BIC state.
#[derive(Clone, Debug, Default)]
pub struct Bic {
    /// Window of the last loss (segments).
    pub w_max: f64,
    acks: f64,
}

const BETA: f64 = 819.0 / 1024.0;
const LOW_WINDOW: f64 = 14.0;
const MAX_INCREMENT: f64 = 16.0;
const B: f64 = 4.0;
const SMOOTH: f64 = 20.0;

impl Bic {
    /// ACKs needed per one-segment increase at window `w` (segments).
    pub fn acks_per_increment(&self, w: f64) -> f64 {
        if w <= LOW_WINDOW {
            return w;
        }
        if w < self.w_max {
            let dist = (self.w_max - w) / B;
            if dist > MAX_INCREMENT {
                w / MAX_INCREMENT
            } else if dist <= 1.0 {
                w * SMOOTH / B
            } else {
                w / dist
            }
        } else if w < self.w_max + B {
            w * SMOOTH / B
        } else if w < self.w_max + MAX_INCREMENT * (B - 1.0) {
            w * (B - 1.0) / (w - self.w_max)
        } else {
            w / MAX_INCREMENT
        }
    }
}

impl CongestionControl for Bic {
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if w.in_slow_start() {
            w.slow_start(a.acked);
            return;
        }
        let seg = w.cwnd as f64 / w.mss as f64;
        self.acks += (a.acked as f64 / w.mss as f64).max(1.0);
        let need = self.acks_per_increment(seg).max(1.0);
        if self.acks >= need {
            self.acks = 0.0;
            w.cwnd += w.mss as u64;
            w.clamp();
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        let seg = w.cwnd as f64 / w.mss as f64;
        self.w_max = if seg < self.w_max {
            seg * (1.0 + BETA) / 2.0
        } else {
            seg
        };
        self.acks = 0.0;
        let cut = if seg <= LOW_WINDOW { 0.5 } else { BETA };
        ((w.cwnd as f64 * cut) as u64).max(2 * w.mss as u64)
    }

    fn hand_over(&mut self, w: &Window, _h: &HandOver) {
        self.w_max = w.cwnd as f64 / w.mss as f64;
        self.acks = 0.0;
    }
}

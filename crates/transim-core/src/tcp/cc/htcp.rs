//! H-TCP (Leith & Shorten, 2004). The increase grows with Δ, the time since the last
//! congestion event: α(Δ) = 1 for Δ ≤ Δ_L = 1 s, else 1 + 10(Δ − Δ_L) + 0.25(Δ − Δ_L)²
//! segments per RTT, scaled by 2(1 − β) so that flows with different β stay fair. The
//! decrease β = RTT_min/RTT_max (adaptive backoff, kept within [0.5, 0.8]).

use super::{AckInfo, CongestionControl, HandOver, Window};
use crate::sim::{Time, SECOND};

/// H-TCP state.
#[derive(Clone, Debug)]
pub struct Htcp {
    last_congestion: Option<Time>,
    min_rtt: Time,
    max_rtt: Time,
    /// Current backoff factor β.
    pub beta: f64,
    frac: f64,
}

impl Default for Htcp {
    fn default() -> Self {
        Htcp {
            last_congestion: None,
            min_rtt: Time::MAX,
            max_rtt: 0,
            beta: 0.5,
            frac: 0.0,
        }
    }
}

/// α(Δ) of H-TCP, Δ in seconds (before the 2(1 − β) scaling).
pub fn alpha(delta: f64) -> f64 {
    let d = delta - 1.0;
    if d <= 0.0 {
        1.0
    } else {
        1.0 + 10.0 * d + 0.25 * d * d
    }
}

impl CongestionControl for Htcp {
    fn observe(&mut self, _w: &mut Window, a: &AckInfo) {
        if let Some(r) = a.rtt {
            self.min_rtt = self.min_rtt.min(r);
            self.max_rtt = self.max_rtt.max(r);
        }
        self.last_congestion.get_or_insert(a.now);
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if w.in_slow_start() {
            w.slow_start(a.acked);
            return;
        }
        let delta = (a.now - self.last_congestion.unwrap_or(a.now)) as f64 / SECOND as f64;
        let al = 2.0 * (1.0 - self.beta) * alpha(delta);
        let seg = w.cwnd as f64 / w.mss as f64;
        w.grow(
            &mut self.frac,
            al / seg * (a.acked as f64 / w.mss as f64).max(1.0),
        );
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        if self.max_rtt > 0 && self.min_rtt != Time::MAX {
            self.beta = (self.min_rtt as f64 / self.max_rtt as f64).clamp(0.5, 0.8);
        }
        self.max_rtt = self.min_rtt; // start a new measurement period
        self.last_congestion = None;
        self.frac = 0.0;
        ((w.cwnd as f64 * self.beta) as u64).max(2 * w.mss as u64)
    }

    fn hand_over(&mut self, _w: &Window, h: &HandOver) {
        self.last_congestion = Some(h.now);
        self.min_rtt = h.min_rtt;
        self.max_rtt = h
            .srtt
            .max(if h.min_rtt == Time::MAX { 0 } else { h.min_rtt });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn alpha_function() {
        assert_eq!(super::alpha(0.5), 1.0);
        assert_eq!(super::alpha(1.0), 1.0);
        assert!((super::alpha(3.0) - (1.0 + 20.0 + 1.0)).abs() < 1e-12);
    }
}

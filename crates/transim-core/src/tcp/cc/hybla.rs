//! TCP Hybla (Caini & Firrincieli, 2004): removes the RTT bias for long-delay (satellite)
//! paths. With ρ = RTT/RTT₀ (RTT₀ = 25 ms, ρ ≥ 1) slow start adds 2^ρ − 1 segments per ACK
//! and congestion avoidance ρ²/cwnd per ACK (ρ² segments per RTT). Losses halve as Reno.

use super::{AckInfo, CongestionControl, Window};
use crate::sim::{Time, MILLISECOND};

/// Hybla state.
#[derive(Clone, Debug, Default)]
pub struct Hybla {
    /// ρ of the path (from the smallest RTT seen).
    pub rho: f64,
    frac: f64,
}

/// Reference RTT₀.
pub const RTT0: Time = 25 * MILLISECOND;

impl CongestionControl for Hybla {
    fn observe(&mut self, _w: &mut Window, a: &AckInfo) {
        if a.min_rtt != Time::MAX {
            self.rho = (a.min_rtt as f64 / RTT0 as f64).max(1.0);
        }
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        let rho = self.rho.max(1.0);
        let seg = w.cwnd as f64 / w.mss as f64;
        let inc = if w.in_slow_start() {
            rho.exp2() - 1.0
        } else {
            rho * rho / seg
        };
        let in_ss = w.in_slow_start();
        w.grow(
            &mut self.frac,
            inc * (a.acked as f64 / w.mss as f64).max(1.0),
        );
        if in_ss {
            w.cwnd = w.cwnd.min(w.ssthresh); // slow start never overshoots ssthresh
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        self.frac = 0.0;
        (base / 2).max(2 * w.mss as u64)
    }
}

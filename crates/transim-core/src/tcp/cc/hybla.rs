//! TCP Hybla (Caini & Firrincieli, 2004): removes the RTT bias for long-delay (satellite)
//! paths. With ρ = RTT/RTT₀ (RTT₀ = 25 ms, ρ ≥ 1) slow start adds 2^ρ − 1 segments per ACK
//! and congestion avoidance ρ²/cwnd per segment acknowledged (ρ² segments per RTT). Losses halve as Reno.

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
        let in_ss = w.in_slow_start();
        // Slow start grows once per ACK, however many segments it covers (the paper's
        // per-ACK rule, as Linux's hybla_cong_avoid and ns-3's TcpHybla::SlowStart apply it);
        // congestion avoidance adds ρ²/cwnd per segment acknowledged.
        let inc = if in_ss {
            rho.exp2() - 1.0
        } else {
            rho * rho / seg * (a.acked as f64 / w.mss as f64).max(1.0)
        };
        w.grow(&mut self.frac, inc);
        if in_ss {
            w.cwnd = w.cwnd.min(w.ssthresh); // slow start never overshoots ssthresh
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        self.frac = 0.0;
        (base / 2).max(2 * w.mss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::{ack as ack_of, window};

    fn ack(acked: u64) -> AckInfo {
        ack_of(acked, 2 * RTT0)
    }

    /// ρ = 2 (RTT = 50 ms): slow start adds 2² − 1 = 3 segments per ACK also when a delayed
    /// ACK covers two segments; avoidance adds ρ²/cwnd = 4/40 per segment acknowledged.
    #[test]
    fn slow_start_per_ack_avoidance_per_segment() {
        let mut h = Hybla::default();
        let mut w = window(10, 1000);
        h.observe(&mut w, &ack(2000));
        assert_eq!(h.rho, 2.0);
        h.on_ack(&mut w, &ack(2000));
        assert_eq!(
            w.cwnd, 13_000,
            "one increment of 2^rho - 1 for a two-segment ACK"
        );
        let mut w = window(40, 40);
        for _ in 0..5 {
            h.on_ack(&mut w, &ack(2000)); // 5 ACKs x 2 segments x 4/40 = 1 segment
        }
        assert_eq!(w.cwnd, 41_000);
    }
}

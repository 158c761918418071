//! H-TCP (Leith & Shorten, 2004). The increase grows with Δ, the time since the last
//! congestion event: α(Δ) = 1 for Δ ≤ Δ_L = 1 s, else 1 + 10(Δ − Δ_L) + 0.25(Δ − Δ_L)²
//! segments per RTT, scaled by 2(1 − β) so that flows with different β stay fair. The
//! decrease β = RTT_min/RTT_max (adaptive backoff, kept within [0.5, 0.8]), except that when
//! the throughput of the epoch ending differs from the previous epoch's by more than 20 %
//! (the bandwidth switch of draft-leith-tcp-htcp and Linux's `use_bandwidth_switch`), or
//! there is no previous epoch, β = 0.5: the path changed, so back off as Reno.

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
    /// Bytes acknowledged since the last congestion event, and when the last of them was.
    epoch_bytes: u64,
    last_ack: Time,
    /// Throughput of the previous epoch (bytes/s), once there was one.
    last_throughput: Option<f64>,
}

/// Largest relative change of throughput between epochs that keeps the adaptive backoff.
pub const THROUGHPUT_SWITCH: f64 = 0.2;

impl Default for Htcp {
    fn default() -> Self {
        Htcp {
            last_congestion: None,
            min_rtt: Time::MAX,
            max_rtt: 0,
            beta: 0.5,
            frac: 0.0,
            epoch_bytes: 0,
            last_ack: 0,
            last_throughput: None,
        }
    }
}

impl Htcp {
    /// β for the congestion event ending the current epoch (see the module comment).
    fn backoff(&mut self) -> f64 {
        let start = self.last_congestion.unwrap_or(self.last_ack);
        let span = self.last_ack.saturating_sub(start);
        let throughput = (span > 0).then(|| self.epoch_bytes as f64 / span as f64);
        let steady = match (throughput, self.last_throughput) {
            (Some(now), Some(before)) if before > 0.0 => {
                ((now - before) / before).abs() <= THROUGHPUT_SWITCH
            }
            _ => false,
        };
        self.last_throughput = throughput.or(self.last_throughput);
        if steady && self.max_rtt > 0 && self.min_rtt != Time::MAX {
            (self.min_rtt as f64 / self.max_rtt as f64).clamp(0.5, 0.8)
        } else {
            0.5
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
        self.epoch_bytes += a.acked;
        self.last_ack = a.now;
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
        self.beta = self.backoff();
        self.max_rtt = self.min_rtt; // start a new measurement period
        self.last_congestion = None;
        self.epoch_bytes = 0;
        self.frac = 0.0;
        ((w.cwnd as f64 * self.beta) as u64).max(2 * w.mss as u64)
    }

    fn hand_over(&mut self, _w: &Window, h: &HandOver) {
        self.last_congestion = Some(h.now);
        self.last_ack = h.now;
        self.epoch_bytes = 0;
        self.last_throughput = None;
        self.min_rtt = h.min_rtt;
        self.max_rtt = h
            .srtt
            .max(if h.min_rtt == Time::MAX { 0 } else { h.min_rtt });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An epoch of `seconds` in which `bytes` were acknowledged, RTTs 40 and 50 ms, ending
    /// in a loss: the β it cuts with.
    fn epoch(h: &mut Htcp, start: Time, seconds: u64, bytes: u64) -> f64 {
        h.last_congestion = Some(start);
        h.min_rtt = 40_000_000;
        h.max_rtt = 50_000_000;
        h.epoch_bytes = bytes;
        h.last_ack = start + seconds * SECOND;
        h.backoff()
    }

    /// The bandwidth switch: β = RTT_min/RTT_max = 0.8 only while the epoch's throughput is
    /// within 20 % of the previous one's; the first epoch and a change beyond 20 % give 0.5.
    #[test]
    fn adaptive_backoff_only_at_steady_throughput() {
        let mut h = Htcp::default();
        assert_eq!(epoch(&mut h, 0, 2, 2_000_000), 0.5); // no previous epoch
        assert_eq!(epoch(&mut h, 2 * SECOND, 2, 2_300_000), 0.8); // +15 %
        assert_eq!(epoch(&mut h, 4 * SECOND, 1, 1_500_000), 0.5); // +30 % (1.5 MB/s)
        assert_eq!(epoch(&mut h, 5 * SECOND, 2, 2_000_000), 0.5); // -33 %
        assert_eq!(epoch(&mut h, 7 * SECOND, 1, 900_000), 0.8); // -10 %
    }

    #[test]
    fn alpha_function() {
        assert_eq!(super::alpha(0.5), 1.0);
        assert_eq!(super::alpha(1.0), 1.0);
        assert!((super::alpha(3.0) - (1.0 + 20.0 + 1.0)).abs() < 1e-12);
    }
}

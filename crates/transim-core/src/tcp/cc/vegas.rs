//! TCP Vegas (Brakmo & Peterson, 1995). Once per round trip it compares the expected rate
//! cwnd/BaseRTT with the actual rate cwnd/RTT; diff = cwnd·(RTT − BaseRTT)/RTT estimates the
//! packets the flow keeps queued. Below α it adds one segment per RTT, above β it removes
//! one, in between it holds. Slow start ends once diff exceeds γ. Losses halve as Reno.

use super::{AckInfo, CongestionControl, HandOver, Window};
use crate::sim::Time;

/// Vegas state.
#[derive(Clone, Debug)]
pub struct Vegas {
    /// Smallest RTT ever seen.
    pub base_rtt: Time,
    round_min: Time,
    round_start: Option<Time>,
    /// Queue estimate of the last round (packets).
    pub diff: f64,
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas {
            base_rtt: Time::MAX,
            round_min: Time::MAX,
            round_start: None,
            diff: 0.0,
        }
    }
}

impl Vegas {
    /// Lower threshold α (packets queued).
    pub const ALPHA: f64 = 2.0;
    /// Upper threshold β.
    pub const BETA: f64 = 4.0;
    /// Slow-start exit threshold γ.
    pub const GAMMA: f64 = 1.0;
}

impl CongestionControl for Vegas {
    fn observe(&mut self, _w: &mut Window, a: &AckInfo) {
        if let Some(r) = a.rtt {
            self.base_rtt = self.base_rtt.min(r);
            self.round_min = self.round_min.min(r);
        }
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        let start = *self.round_start.get_or_insert(a.now);
        let round_over = a.srtt > 0 && a.now - start >= a.srtt && self.round_min != Time::MAX;
        if round_over {
            let rtt = self.round_min as f64;
            let cwnd = w.cwnd as f64 / w.mss as f64;
            self.diff = cwnd * (rtt - self.base_rtt as f64) / rtt;
            self.round_min = Time::MAX;
            self.round_start = Some(a.now);
        }
        let mss = w.mss as u64;
        if w.in_slow_start() {
            if round_over && self.diff > Self::GAMMA {
                // Leave slow start at the window the path holds without queueing.
                let target =
                    (w.cwnd as f64 * self.base_rtt as f64 / self.round_min_or(a) as f64) as u64;
                w.cwnd = w.cwnd.min(target + mss).max(2 * mss);
                w.ssthresh = w.cwnd;
            } else {
                w.slow_start(a.acked);
            }
            return;
        }
        if round_over {
            if self.diff < Self::ALPHA {
                w.cwnd += mss;
            } else if self.diff > Self::BETA {
                // Decrease and keep ssthresh with it, so the next ACK is not slow start.
                w.cwnd = (w.cwnd - mss).max(2 * mss);
                w.ssthresh = w.ssthresh.min(w.cwnd);
            }
            w.clamp();
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        (base / 2).max(2 * w.mss as u64)
    }

    fn hand_over(&mut self, _w: &Window, h: &HandOver) {
        self.base_rtt = h.min_rtt;
        self.round_start = Some(h.now);
    }
}

impl Vegas {
    fn round_min_or(&self, a: &AckInfo) -> Time {
        a.rtt.unwrap_or(a.srtt).max(1)
    }
}

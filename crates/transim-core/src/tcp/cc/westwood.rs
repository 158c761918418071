//! Westwood+ (Grieco & Mascolo, CCR 2004): one bandwidth sample per RTT — the bytes
//! acknowledged in the last RTT (duplicate ACKs count one segment each) over that RTT —
//! low-pass filtered with an EWMA of weight α = 0.9. After a loss ssthresh = BWE·RTT_min
//! (at least two segments); window growth is Reno's.

use super::{AckInfo, CongestionControl, HandOver, PathModel, Window};
use crate::sim::{Time, MILLISECOND};

/// Westwood+ state.
#[derive(Clone, Debug)]
pub struct Westwood {
    /// Bandwidth estimate (bytes/s); 0 before the first sample.
    pub bwe: f64,
    /// Smallest RTT seen (`Time::MAX` before the first sample).
    pub min_rtt: Time,
    acked: u64,
    window_start: Option<Time>,
}

impl Default for Westwood {
    fn default() -> Self {
        Westwood {
            bwe: 0.0,
            min_rtt: Time::MAX,
            acked: 0,
            window_start: None,
        }
    }
}

impl Westwood {
    /// EWMA weight of the previous estimate.
    pub const ALPHA: f64 = 0.9;
}

impl CongestionControl for Westwood {
    fn observe(&mut self, w: &mut Window, a: &AckInfo) {
        self.min_rtt = self.min_rtt.min(a.min_rtt);
        let start = *self.window_start.get_or_insert(a.now);
        self.acked += if a.acked == 0 { w.mss as u64 } else { a.acked };
        // One sample per RTT (at least 50 ms, as Linux does).
        let span = a.srtt.max(50 * MILLISECOND);
        let elapsed = a.now - start;
        if a.srtt > 0 && elapsed >= span {
            let sample = self.acked as f64 / (elapsed as f64 * 1e-9);
            self.bwe = if self.bwe == 0.0 {
                sample
            } else {
                Self::ALPHA * self.bwe + (1.0 - Self::ALPHA) * sample
            };
            self.acked = 0;
            self.window_start = Some(a.now);
        }
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        w.reno_on_ack(a.acked);
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        if self.bwe == 0.0 || self.min_rtt == Time::MAX {
            return (base / 2).max(2 * w.mss as u64);
        }
        ((self.bwe * self.min_rtt as f64 * 1e-9) as u64).max(2 * w.mss as u64)
    }

    fn model(&self) -> Option<PathModel> {
        (self.bwe > 0.0).then_some(PathModel {
            bandwidth: self.bwe,
            min_rtt: self.min_rtt,
            state: "estimating",
        })
    }

    fn hand_over(&mut self, w: &Window, h: &HandOver) {
        self.min_rtt = h.min_rtt;
        // Seed the estimate with the current sending rate, cwnd / srtt.
        if h.srtt > 0 {
            self.bwe = w.cwnd as f64 / (h.srtt as f64 * 1e-9);
        }
        self.acked = 0;
        self.window_start = Some(h.now);
    }
}

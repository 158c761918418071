//! Westwood+ (Grieco & Mascolo, CCR 2004): one bandwidth sample per RTT — the bytes
//! acknowledged in the last RTT (duplicate ACKs count one segment each) over that RTT —
//! low-pass filtered with an EWMA of weight α = 0.9. After a loss ssthresh = BWE·RTT_min
//! (at least two segments); window growth is Reno's.
//!
//! Each segment is counted once: a duplicate ACK counts one segment on credit, and the
//! cumulative ACK that ends the recovery counts only what the duplicates did not ([`Delivered`],
//! the accounting of the Westwood+ paper and Linux's `westwood_acked_count`).

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
    delivered: Delivered,
}

/// Westwood's ssthresh after a loss: the estimated bandwidth-delay product BWE·RTT_min (at
/// least two segments); half of `base` before there is an estimate.
pub fn bdp_ssthresh(bwe: f64, min_rtt: Time, w: &Window, base: u64) -> u64 {
    if bwe == 0.0 || min_rtt == Time::MAX {
        return (base / 2).max(2 * w.mss as u64);
    }
    ((bwe * min_rtt as f64 * 1e-9) as u64).max(2 * w.mss as u64)
}

/// The estimate as a path model, once there is one.
pub fn estimate_model(bwe: f64, min_rtt: Time) -> Option<PathModel> {
    (bwe > 0.0).then_some(PathModel {
        bandwidth: bwe,
        min_rtt,
        state: "estimating",
    })
}

/// Bytes an ACK tells were delivered, each segment counted once: a duplicate ACK stands for one
/// segment that left the network and is remembered as `credit`; a cumulative ACK then counts
/// only the bytes beyond the credit it consumes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delivered {
    credit: u64,
}

impl Delivered {
    /// Bytes delivered by an ACK that newly acknowledged `acked` bytes (0: a duplicate).
    pub fn count(&mut self, acked: u64, mss: u64) -> u64 {
        if acked == 0 {
            self.credit += mss;
            return mss;
        }
        if acked <= mss {
            // One segment or less: an ordinary ACK, counted as it is.
            return acked;
        }
        if self.credit >= acked {
            // Everything it covers was counted already by duplicates: count one segment.
            self.credit -= acked;
            mss
        } else {
            let fresh = acked - self.credit;
            self.credit = 0;
            fresh
        }
    }
}

impl Default for Westwood {
    fn default() -> Self {
        Westwood {
            bwe: 0.0,
            min_rtt: Time::MAX,
            acked: 0,
            window_start: None,
            delivered: Delivered::default(),
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
        self.acked += self.delivered.count(a.acked, w.mss as u64);
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
        bdp_ssthresh(self.bwe, self.min_rtt, w, base)
    }

    fn model(&self) -> Option<PathModel> {
        estimate_model(self.bwe, self.min_rtt)
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

#[cfg(test)]
mod tests {
    use super::Delivered;

    /// A loss of one segment among ten: nine duplicates (counted on credit) and the
    /// cumulative ACK of all ten; delayed ACKs of two segments. Each segment counts once.
    #[test]
    fn each_segment_is_counted_once() {
        let mss = 1000;
        let mut d = Delivered::default();
        let dup: u64 = (0..9).map(|_| d.count(0, mss)).sum();
        assert_eq!(dup, 9000);
        assert_eq!(
            d.count(10_000, mss),
            1000,
            "only the retransmitted segment is new"
        );
        assert_eq!(d.count(2000, mss), 2000);
        assert_eq!(d.count(500, mss), 500);
        // Credit larger than a partial ACK: one segment, the rest kept for the next ACK.
        let mut d = Delivered::default();
        for _ in 0..5 {
            d.count(0, mss);
        }
        assert_eq!(d.count(3000, mss), 1000);
        assert_eq!(d.count(4000, mss), 2000);
    }
}

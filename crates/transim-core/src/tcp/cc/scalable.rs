//! Scalable TCP (Kelly, CCR 2003), as in Linux: above the legacy window each segment
//! acknowledged adds 0.01 segment (one segment per 100, i.e. about 1 % per RTT); a loss cuts
//! cwnd by 1/8. Below 100 segments it grows like Reno (one segment per cwnd acknowledged).
//! Linux counts segments, not ACKs (`tcp_cong_avoid_ai(tp, min(cwnd, 100), acked)`), so a
//! delayed ACK of two segments counts two.

use super::{AckInfo, CongestionControl, Window};

/// Scalable TCP.
#[derive(Clone, Debug, Default)]
pub struct Scalable;

/// ACKs per one-segment increase above the legacy window.
const AI_CNT: u64 = 100;

impl CongestionControl for Scalable {
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if w.in_slow_start() {
            w.slow_start(a.acked);
            return;
        }
        w.cnt += (a.acked / w.mss as u64).max(1);
        let per = w.segments().clamp(1, AI_CNT);
        if w.cnt >= per {
            w.cwnd += w.cnt / per * w.mss as u64;
            w.cnt %= per;
            w.clamp();
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        (w.cwnd - w.cwnd / 8).max(2 * w.mss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::{ack, window};

    /// Above 100 segments one segment per 100 acknowledged: 50 delayed ACKs of two segments
    /// each add one, as Linux's tcp_cong_avoid_ai(tp, 100, acked) does.
    #[test]
    fn counts_segments_acknowledged_not_acks() {
        let mut w = window(200, 100);
        let mut s = Scalable;
        for _ in 0..49 {
            s.on_ack(&mut w, &ack(2000, 0));
        }
        assert_eq!(w.cwnd, 200 * 1000);
        s.on_ack(&mut w, &ack(2000, 0));
        assert_eq!(w.cwnd, 201 * 1000);
    }
}

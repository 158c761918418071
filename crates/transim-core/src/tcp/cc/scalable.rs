//! Scalable TCP (Kelly, CCR 2003), as in Linux: above the legacy window each ACK adds 0.01
//! segment (one segment per 100 ACKs, i.e. about 1 % per RTT); a loss cuts cwnd by 1/8.
//! Below 100 segments it grows like Reno (one segment per cwnd ACKs).

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
        w.cnt += 1;
        if w.cnt >= w.segments().min(AI_CNT) {
            w.cnt = 0;
            w.cwnd += w.mss as u64;
            w.clamp();
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        (w.cwnd - w.cwnd / 8).max(2 * w.mss as u64)
    }
}

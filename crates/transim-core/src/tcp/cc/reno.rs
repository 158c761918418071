//! Reno congestion control (RFC 5681): slow start, then one segment per RTT; halve on loss.

use super::{AckInfo, CongestionControl, Window};

/// Reno AIMD; stateless beyond the window.
#[derive(Clone, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        w.reno_on_ack(a.acked);
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        if w.ns2 {
            return w.ns2_ssthresh(base);
        }
        (base / 2).max(2 * w.mss as u64)
    }
}

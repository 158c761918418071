//! Reno as Linux (and ns-3's `TcpLinuxReno`) counts: slow start adds the segments
//! acknowledged up to ssthresh (`tcp_slow_start`) and hands the rest to congestion avoidance,
//! which adds one segment per cwnd segments acknowledged (`tcp_cong_avoid_ai(tp, cwnd,
//! acked)`). Unlike RFC 5681's byte counting per ACK (`reno`), a delayed or stretch ACK of n
//! segments counts n, so delayed ACKs do not halve the growth.

use super::{AckInfo, CongestionControl, Window};

/// Linux-style Reno.
#[derive(Clone, Debug, Default)]
pub struct LinuxReno;

impl CongestionControl for LinuxReno {
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        let mss = w.mss as u64;
        let mut segs = (a.acked / mss).max(1);
        if w.in_slow_start() {
            let cur = w.cwnd / mss;
            let new = (cur + segs).min((w.ssthresh / mss).max(cur));
            segs -= new - cur;
            w.cwnd = new * mss;
            w.clamp();
            if segs == 0 {
                return;
            }
        }
        let per = w.segments().max(1);
        if w.cnt >= per {
            w.cnt = 0;
            w.cwnd += mss;
        }
        w.cnt += segs;
        if w.cnt >= per {
            w.cwnd += w.cnt / per * mss;
            w.cnt %= per;
        }
        w.clamp();
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        (base / 2).max(2 * w.mss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::{ack, window};

    /// A stretch ACK of 4 segments at cwnd 10, ssthresh 12: slow start takes 2, the other 2
    /// count towards congestion avoidance.
    #[test]
    fn slow_start_leftover_goes_to_avoidance() {
        let mut w = window(10, 12);
        LinuxReno.on_ack(&mut w, &ack(4000, 0));
        assert_eq!((w.cwnd, w.cnt), (12_000, 2));
    }

    /// At cwnd 20, ten delayed ACKs of two segments each add one segment (RFC 5681's byte
    /// counting would add about half of one).
    #[test]
    fn counts_segments_acknowledged() {
        let mut w = window(20, 10);
        for k in 0..10 {
            assert_eq!(w.cwnd, 20_000, "ACK {k}");
            LinuxReno.on_ack(&mut w, &ack(2000, 0));
        }
        assert_eq!(w.cwnd, 21_000);
    }
}

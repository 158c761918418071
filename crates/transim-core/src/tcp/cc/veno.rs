//! TCP Veno (Fu & Liew, JSAC 2003). From BaseRTT (the smallest RTT ever) and RTT (the
//! smallest RTT of the last round trip) it estimates the packets the flow keeps queued,
//! N = cwnd·(RTT − BaseRTT)/RTT. A loss with N < β (3 packets) is taken as random:
//! ssthresh = 4/5·cwnd; otherwise congestive: ssthresh = cwnd/2 (both at least two
//! segments). In congestion avoidance cwnd grows one segment per RTT while N < β and one
//! segment every other RTT once the flow is backlogged. Slow start is Reno's.

use super::{AckInfo, CongestionControl, HandOver, Window};
use crate::sim::Time;

/// Veno state.
#[derive(Clone, Debug)]
pub struct Veno {
    /// Smallest RTT ever seen.
    pub base_rtt: Time,
    /// Smallest RTT in the current round trip.
    round_min: Time,
    /// Smallest RTT of the last completed round trip.
    pub rtt: Time,
    round_start: Option<Time>,
    /// Backlog estimate N (packets) from the last round.
    pub backlog: f64,
    /// Backlogged flows grow only on alternate windows.
    inc: bool,
}

impl Default for Veno {
    fn default() -> Self {
        Veno {
            base_rtt: Time::MAX,
            round_min: Time::MAX,
            rtt: 0,
            round_start: None,
            backlog: 0.0,
            inc: true,
        }
    }
}

impl Veno {
    /// Backlog threshold β (packets).
    pub const BETA: f64 = 3.0;
}

impl CongestionControl for Veno {
    fn observe(&mut self, w: &mut Window, a: &AckInfo) {
        let Some(r) = a.rtt else { return };
        self.base_rtt = self.base_rtt.min(r);
        self.round_min = self.round_min.min(r);
        let start = *self.round_start.get_or_insert(a.now);
        if a.now - start >= a.srtt.max(1) {
            self.rtt = self.round_min;
            self.round_min = Time::MAX;
            self.round_start = Some(a.now);
            let cwnd = w.cwnd as f64 / w.mss as f64;
            self.backlog = cwnd * (self.rtt - self.base_rtt) as f64 / self.rtt.max(1) as f64;
        }
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if w.in_slow_start() {
            w.slow_start(a.acked);
            return;
        }
        // One segment per cwnd ACKs; when backlogged only on every other such window.
        w.cnt += 1;
        if w.cnt >= w.segments() {
            w.cnt = 0;
            if self.backlog < Self::BETA || self.inc {
                w.cwnd += w.mss as u64;
                w.clamp();
            }
            self.inc = self.backlog < Self::BETA || !self.inc;
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        let cut = if self.backlog < Self::BETA {
            w.cwnd * 4 / 5
        } else {
            w.cwnd / 2
        };
        cut.max(2 * w.mss as u64)
    }

    fn hand_over(&mut self, _w: &Window, h: &HandOver) {
        self.base_rtt = h.min_rtt;
        self.round_start = Some(h.now);
        self.round_min = Time::MAX;
    }
}

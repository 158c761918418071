//! TCP-LP (Kuzmanovic & Knightly, INFOCOM 2003), a low-priority transport: it infers early
//! congestion from delay and backs off before standard TCP sees any loss.
//!
//! The smoothed delay (EWMA of weight 1/8) is compared with the range of delays seen:
//! above `d_min + δ·(d_max − d_min)`, δ = 0.15, is an early congestion indication. The first
//! one halves cwnd and opens an inference period of three RTTs in which the window does not
//! grow; a second one inside that period takes cwnd to one segment. Growth then resumes in
//! congestion avoidance (ssthresh follows the window down), as the paper's AIMD does; Linux
//! leaves ssthresh, so a connection that never lost a packet slow-starts again after each. Each indication restarts
//! the range from the smoothed delay (d_min = it, d_max = twice it), and the range's maximum
//! forgets its largest outlier (it is the second largest sample), as Linux's `tcp_lp` and
//! ns-3's `TcpLp` do. Losses are handled as Reno.
//!
//! As with LEDBAT, the delay samples are RTT samples where the paper measures the one-way
//! delay from timestamps; on a path whose ACKs do not queue they move together. Unlike Linux,
//! no indication is taken before the samples have spread at all (d_max > d_min): Linux's very
//! first sample already reads as an indication and halves the initial window.

use super::{AckInfo, CongestionControl, Window};
use crate::sim::Time;

/// Threshold of the delay range that signals congestion (δ).
pub const DELTA: f64 = 0.15;
/// Inference period in RTTs.
const INFERENCE_RTTS: Time = 3;

/// TCP-LP's state.
#[derive(Clone, Debug, Default)]
pub struct Lp {
    /// Smoothed delay (ns), 0 before the first sample.
    sowd: f64,
    owd_min: Option<Time>,
    owd_max: Time,
    owd_max_rsv: Time,
    last_indication: Option<Time>,
    inference: Time,
    within_inference: bool,
    /// Early congestion indications so far.
    pub indications: u64,
}

impl Lp {
    fn sample(&mut self, d: Time) {
        self.owd_min = Some(self.owd_min.map_or(d, |m| m.min(d)));
        if d > self.owd_max {
            if d > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 {
                    d
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = d;
            } else {
                self.owd_max = d;
            }
        }
        self.sowd = if self.sowd == 0.0 {
            d as f64
        } else {
            self.sowd + (d as f64 - self.sowd) / 8.0
        };
    }

    /// The smoothed delay is in the top 85 % of the range seen.
    fn congested(&self) -> bool {
        let Some(min) = self.owd_min else {
            return false;
        };
        if self.owd_max <= min {
            return false;
        }
        self.sowd >= min as f64 + DELTA * (self.owd_max - min) as f64
    }
}

impl CongestionControl for Lp {
    fn observe(&mut self, w: &mut Window, a: &AckInfo) {
        let Some(rtt) = a.rtt else {
            return;
        };
        self.sample(rtt);
        self.inference = INFERENCE_RTTS * rtt;
        self.within_inference = self
            .last_indication
            .is_some_and(|t| a.now - t < self.inference);
        if a.recovering || !self.congested() {
            return;
        }
        self.indications += 1;
        self.owd_min = Some(self.sowd as Time);
        self.owd_max = 2 * self.sowd as Time;
        self.owd_max_rsv = self.owd_max;
        let mss = w.mss as u64;
        let cwnd = if self.within_inference {
            mss
        } else {
            (w.cwnd / 2 / mss).max(1) * mss
        };
        w.set_cwnd(cwnd);
        // Back to AIMD's additive increase (the paper), not slow start.
        w.ssthresh = w.ssthresh.min(cwnd.max(2 * mss));
        self.last_indication = Some(a.now);
        self.within_inference = true;
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if !self.within_inference {
            w.reno_on_ack(a.acked);
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        (base / 2).max(2 * w.mss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MILLISECOND;
    use crate::tcp::cc::test_support::{ack, window};

    const MS: Time = MILLISECOND;

    fn ack_at(now: Time, rtt: Time) -> AckInfo {
        AckInfo {
            now,
            rtt: Some(rtt),
            ..ack(1000, 0)
        }
    }

    /// Delays of 40 and 50 ms set the range; more 50-ms samples pull the smoothed delay past
    /// the threshold: the first indication halves cwnd, a second within three RTTs
    /// takes it to one segment, and the window does not grow inside the inference period.
    #[test]
    fn halves_then_drops_to_one_segment_within_inference() {
        let mut lp = Lp::default();
        let mut w = window(40, 20);
        let mut now = 0;
        let mut feed = |lp: &mut Lp, w: &mut Window, rtt: Time, n: usize| {
            for _ in 0..n {
                now += MS;
                let a = ack_at(now, rtt);
                lp.observe(w, &a);
                lp.on_ack(w, &a);
            }
            now
        };
        feed(&mut lp, &mut w, 40 * MS, 1);
        feed(&mut lp, &mut w, 50 * MS, 1);
        assert_eq!(lp.indications, 0);
        // sowd = 41.25 ms, range [40, 50]: threshold 41.5 ms. The next 50-ms sample moves
        // sowd to 42.34 ms: an indication.
        let before = w.cwnd;
        feed(&mut lp, &mut w, 50 * MS, 1);
        assert_eq!(lp.indications, 1);
        assert_eq!(w.cwnd, before / 2 / 1000 * 1000);
        // The range restarts at [sowd, 2·sowd]; 100-ms samples take sowd past its 15 %
        // within a few ACKs, inside the inference period (3 × 100 ms): one segment.
        let halved = w.cwnd;
        let mut acks = 0;
        while lp.indications == 1 {
            let t = feed(&mut lp, &mut w, 100 * MS, 1);
            acks += 1;
            assert!(acks < 20 && t < 300 * MS);
            if lp.indications == 1 {
                assert_eq!(w.cwnd, halved, "no growth inside the inference period");
            }
        }
        assert_eq!(w.cwnd, 1000);
    }

    /// Outside the inference period and below the threshold the window grows as Reno's.
    #[test]
    fn grows_as_reno_when_uncongested() {
        let mut lp = Lp::default();
        let mut w = window(10, 100);
        for k in 1..=5 {
            let a = ack_at(k * MS, 40 * MS);
            lp.observe(&mut w, &a);
            lp.on_ack(&mut w, &a);
        }
        assert_eq!(w.cwnd, 15_000);
        assert_eq!(lp.indications, 0);
    }
}

//! RTT estimation and the retransmission timeout (RFC 6298), with exponential backoff.

use crate::sim::Time;

/// RFC 6298 estimator state.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Smoothed RTT (ns), 0 before the first sample.
    pub srtt: Time,
    /// RTT variation (ns).
    pub rttvar: Time,
    /// Smallest RTT sample seen (ns), `Time::MAX` before the first.
    pub min_rtt: Time,
    /// Most recent sample.
    pub latest: Time,
    /// Current RTO before backoff.
    base_rto: Time,
    /// Backoff multiplier exponent (RTO doubles per timeout).
    pub backoff: u32,
    /// True once a sample has been taken.
    pub has_sample: bool,
    min: Time,
    max: Time,
    granularity: Time,
}

impl RttEstimator {
    /// A new estimator with the given initial, minimum and maximum RTO and clock granularity.
    pub fn new(initial: Time, min: Time, max: Time, granularity: Time) -> Self {
        RttEstimator {
            srtt: 0,
            rttvar: 0,
            min_rtt: Time::MAX,
            latest: 0,
            base_rto: initial,
            backoff: 0,
            has_sample: false,
            min,
            max,
            granularity,
        }
    }

    /// Feed one RTT sample (RFC 6298 §2.2–2.3); clears the backoff (Karn: samples only come
    /// from segments that were not retransmitted).
    pub fn sample(&mut self, r: Time) {
        self.min_rtt = self.min_rtt.min(r);
        self.sample_coarse(r);
    }

    /// Feed a sample measured on a coarse clock (TCP timestamps count whole ticks): it
    /// updates SRTT, RTTVAR and the RTO but not the minimum RTT, which a truncated sample
    /// would put below the propagation delay (even at 0).
    pub fn sample_coarse(&mut self, r: Time) {
        self.latest = r;
        if !self.has_sample {
            self.srtt = r;
            self.rttvar = r / 2;
            self.has_sample = true;
        } else {
            let diff = self.srtt.abs_diff(r);
            // RTTVAR ← 3/4 RTTVAR + 1/4 |SRTT − R'|; SRTT ← 7/8 SRTT + 1/8 R'.
            self.rttvar = (3 * self.rttvar + diff) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        self.base_rto =
            (self.srtt + self.granularity.max(4 * self.rttvar)).clamp(self.min, self.max);
        self.backoff = 0;
    }

    /// Current RTO including backoff.
    pub fn rto(&self) -> Time {
        let r = self.base_rto.saturating_mul(1u64 << self.backoff.min(30));
        r.min(self.max)
    }

    /// Double the RTO after a timeout (capped at the maximum).
    pub fn back_off(&mut self) {
        if self.rto() < self.max {
            self.backoff += 1;
        }
    }

    /// RFC 6298 §5.7: after the SYN's timer expired, the first RTO once data flows is reset
    /// to 3 s unless a sample says otherwise.
    pub fn reset_after_syn_loss(&mut self, rto: Time) {
        if !self.has_sample {
            self.base_rto = rto.clamp(self.min, self.max);
        }
        self.backoff = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{MILLISECOND, SECOND};

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = RttEstimator::new(SECOND, 200 * MILLISECOND, 60 * SECOND, MILLISECOND);
        assert_eq!(e.rto(), SECOND);
        e.sample(100 * MILLISECOND);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4·50 = 300 ms.
        assert_eq!(e.rto(), 300 * MILLISECOND);
        e.sample(200 * MILLISECOND);
        // RTTVAR = 3/4·50 + 1/4·100 = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5; RTO = 362.5 ms.
        assert_eq!(e.rttvar, 62_500_000);
        assert_eq!(e.srtt, 112_500_000);
        assert_eq!(e.rto(), 362_500_000);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = RttEstimator::new(SECOND, SECOND, 60 * SECOND, MILLISECOND);
        let mut seen = vec![];
        for _ in 0..8 {
            seen.push(e.rto() / SECOND);
            e.back_off();
        }
        assert_eq!(seen, vec![1, 2, 4, 8, 16, 32, 60, 60]);
        e.sample(10 * MILLISECOND);
        assert_eq!(
            e.rto(),
            SECOND,
            "minimum RTO applies and backoff is cleared"
        );
    }
}

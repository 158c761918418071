//! Westwood as first published (Mascolo, Casetti, Gerla, Sanadidi & Wang, MobiCom 2001): a
//! bandwidth sample on every ACK, b_k = d_k / Δt_k (the bytes it acknowledged — one segment
//! for a duplicate, each segment counted once as Westwood+ does — over the time since the
//! previous ACK), low-pass filtered by the
//! discretised (Tustin) first-order filter
//! b̂_k = a_k·b̂_{k−1} + (1 − a_k)·(b_k + b_{k−1})/2 with a_k = (2τ − Δt_k)/(2τ + Δt_k).
//! When no ACK arrives for a while, virtual null samples every τ/m keep the filter sampled
//! above the Nyquist rate of its cut-off 1/τ. After a loss ssthresh = BWE·RTT_min (at least two
//! segments); growth is Reno's.
//!
//! The paper leaves τ to the implementer; transim uses τ = 0.5 s and m = 2. Per-ACK samples
//! over-estimate when ACKs are compressed, which Westwood+ (`westwood`) was made to fix.

use super::westwood::{bdp_ssthresh, estimate_model, Delivered};
use super::{AckInfo, CongestionControl, HandOver, PathModel, Window};
use crate::sim::{Time, MILLISECOND};

/// Filter time constant τ (cut-off frequency 1/τ).
pub const TAU: Time = 500 * MILLISECOND;
/// Null samples are inserted every τ/m without ACKs.
const M: Time = 2;

/// Classic Westwood's state.
#[derive(Clone, Debug)]
pub struct WestwoodClassic {
    /// Bandwidth estimate (bytes/s); 0 before the first sample.
    pub bwe: f64,
    /// Smallest RTT seen (`Time::MAX` before the first sample).
    pub min_rtt: Time,
    /// The previous sample b_{k−1}.
    last_sample: f64,
    /// Time of the previous (real or virtual) sample.
    last_at: Option<Time>,
    /// Bytes acknowledged by ACKs that arrived at the same instant as the last sample.
    pending: u64,
    delivered: Delivered,
}

impl Default for WestwoodClassic {
    fn default() -> Self {
        WestwoodClassic {
            bwe: 0.0,
            min_rtt: Time::MAX,
            last_sample: 0.0,
            last_at: None,
            pending: 0,
            delivered: Delivered::default(),
        }
    }
}

impl WestwoodClassic {
    /// One filter step: sample `b` (bytes/s) taken `dt` after the previous one.
    fn filter(&mut self, b: f64, dt: Time) {
        let (tau2, dt) = (2.0 * TAU as f64, dt as f64);
        let a = (tau2 - dt) / (tau2 + dt);
        self.bwe = a * self.bwe + (1.0 - a) * (b + self.last_sample) / 2.0;
        self.last_sample = b;
    }

    /// Account `bytes` delivered by an ACK at `now`.
    fn sample(&mut self, now: Time, bytes: u64) {
        let Some(mut last) = self.last_at else {
            self.last_at = Some(now);
            return;
        };
        self.pending += bytes;
        if now == last {
            return;
        }
        // Virtual null samples while the gap holds at least two more periods of τ/m.
        let period = TAU / M;
        while now - last >= 2 * period {
            self.filter(0.0, period);
            last += period;
        }
        let dt = now - last;
        self.filter(self.pending as f64 / (dt as f64 * 1e-9), dt);
        self.pending = 0;
        self.last_at = Some(now);
    }
}

impl CongestionControl for WestwoodClassic {
    fn observe(&mut self, w: &mut Window, a: &AckInfo) {
        self.min_rtt = self.min_rtt.min(a.min_rtt);
        let bytes = self.delivered.count(a.acked, w.mss as u64);
        self.sample(a.now, bytes);
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
        if h.srtt > 0 {
            self.bwe = w.cwnd as f64 / (h.srtt as f64 * 1e-9);
            self.last_sample = self.bwe;
        }
        self.last_at = Some(h.now);
        self.pending = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::{ack, window};

    fn ack_at(now: Time, acked: u64) -> AckInfo {
        AckInfo {
            now,
            min_rtt: 40 * MILLISECOND,
            ..ack(acked, 40 * MILLISECOND)
        }
    }

    /// ACKs of 1000 bytes every millisecond: the samples are 1 MB/s and the estimate follows
    /// the filter's step response 1 − Π a_k, reaching 1 − e^{−t/τ} within a fraction of a
    /// percent; ssthresh is then BWE·RTT_min.
    #[test]
    fn per_ack_samples_converge_as_the_filter_predicts() {
        let mut ww = WestwoodClassic::default();
        let mut w = window(10, 5);
        let ms = MILLISECOND;
        ww.observe(&mut w, &ack_at(0, 1000));
        let a = (1000.0 - 1.0) / (1000.0 + 1.0); // 2τ = 1000 ms, Δt = 1 ms
        let mut expect = 0.0;
        let mut prev = 0.0;
        for k in 1..=1000u64 {
            ww.observe(&mut w, &ack_at(k * ms, 1000));
            expect = a * expect + (1.0 - a) * (1e6 + prev) / 2.0;
            prev = 1e6;
            assert!((ww.bwe - expect).abs() < 1e-6 * 1e6, "k={k}");
        }
        // After 1 s = 2τ: 1 − e^{−2} of the rate.
        assert!(
            (ww.bwe / 1e6 - (1.0 - (-2.0f64).exp())).abs() < 0.002,
            "{}",
            ww.bwe
        );
        let ss = ww.ssthresh_on_loss(&w, 10_000);
        assert_eq!(ss, (ww.bwe * 0.040) as u64);
    }

    /// An ACK arriving at the same instant as the previous sample is counted in the next
    /// one (no division by zero, no byte lost); a silence of a second inserts null samples
    /// every 250 ms but the last, so the estimate decays.
    #[test]
    fn simultaneous_acks_carry_over_and_silence_decays() {
        let ms = MILLISECOND;
        let mut ww = WestwoodClassic::default();
        let mut w = window(10, 5);
        ww.observe(&mut w, &ack_at(0, 1000));
        ww.observe(&mut w, &ack_at(ms, 1000));
        let mut manual = ww.clone();
        ww.observe(&mut w, &ack_at(ms, 1000));
        assert_eq!(ww.bwe, manual.bwe);
        ww.observe(&mut w, &ack_at(2 * ms, 1000));
        manual.filter(2e6, ms);
        assert_eq!(ww.bwe, manual.bwe);
        for k in 3..=500 {
            ww.observe(&mut w, &ack_at(k * ms, 1000));
        }
        let one = ww.bwe;
        // 1 s later: three null samples of 250 ms, then the real one over the last 250 ms.
        let mut manual = ww.clone();
        ww.observe(&mut w, &ack_at(1500 * ms, 1000));
        for _ in 0..3 {
            manual.filter(0.0, 250 * ms);
        }
        manual.filter(1000.0 / 0.25, 250 * ms);
        assert_eq!(ww.bwe, manual.bwe);
        assert!(ww.bwe < one);
    }
}

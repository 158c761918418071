//! TCP Illinois (Liu, Başar & Srikant, 2006): AIMD whose increase α and decrease β depend
//! on the average queueing delay d_a of the last RTT relative to the largest seen, d_m.
//! α = α_max = 10 while d_a ≤ d₁ = 0.01·d_m, then κ₁/(κ₂ + d_a) down to α_min = 0.3 at d_m;
//! β = β_min = 1/8 while d_a ≤ d₂ = 0.1·d_m, β_max = 1/2 from d₃ = 0.8·d_m, linear between.
//! Per ACK cwnd grows α/cwnd; a loss cuts it by β. Below 15 segments it behaves as Reno.
//! Once the delay has risen above d₁, α returns to α_max only after θ = 5 rounds below d₁
//! (counted as Linux's `tcp_illinois` counts them: since the delay rose, not necessarily in a
//! row), so one quiet round does not bring a sudden burst; a timeout puts α and β back to
//! their base values (1, ½), as Linux does on entering the Loss state.

use super::{AckInfo, CongestionControl, HandOver, Window};
use crate::sim::Time;

/// Illinois state.
#[derive(Clone, Debug)]
pub struct Illinois {
    base_rtt: Time,
    max_rtt: Time,
    sum_rtt: f64,
    cnt_rtt: u32,
    round_start: Option<Time>,
    /// Current increase (segments per RTT).
    pub alpha: f64,
    /// Current decrease factor.
    pub beta: f64,
    frac: f64,
    /// The delay has been above d₁ since α last returned to α_max.
    rtt_above: bool,
    /// Consecutive rounds with the delay below d₁ (while `rtt_above`).
    rtt_low: u32,
}

impl Default for Illinois {
    fn default() -> Self {
        Illinois {
            base_rtt: Time::MAX,
            max_rtt: 0,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            round_start: None,
            alpha: ALPHA_MAX,
            beta: BETA_MIN,
            frac: 0.0,
            rtt_above: false,
            rtt_low: 0,
        }
    }
}

const ALPHA_MAX: f64 = 10.0;
const ALPHA_MIN: f64 = 0.3;
const BETA_MIN: f64 = 0.125;
const BETA_MAX: f64 = 0.5;
const WIN_THRESH: f64 = 15.0;
/// Rounds the delay must stay below d₁ before α returns to α_max.
const THETA: u32 = 5;

/// α and β for average queueing delay `da` and largest queueing delay `dm` (same units).
pub fn alpha_beta(da: f64, dm: f64) -> (f64, f64) {
    if dm <= 0.0 {
        return (ALPHA_MAX, BETA_MIN);
    }
    alpha_beta_curves(da, dm)
}

/// Below this largest queueing delay the path is taken as unqueued (serialisation jitter
/// alone would otherwise make d_a/d_m arbitrary).
const MIN_QUEUEING: f64 = 1e6; // 1 ms in ns

fn alpha_beta_curves(da: f64, dm: f64) -> (f64, f64) {
    let (d1, d2, d3) = (0.01 * dm, 0.1 * dm, 0.8 * dm);
    let alpha = if da <= d1 {
        ALPHA_MAX
    } else {
        let k1 = (dm - d1) * ALPHA_MIN * ALPHA_MAX / (ALPHA_MAX - ALPHA_MIN);
        let k2 = (dm - d1) * ALPHA_MIN / (ALPHA_MAX - ALPHA_MIN) - d1;
        (k1 / (k2 + da)).clamp(ALPHA_MIN, ALPHA_MAX)
    };
    let beta = if da <= d2 {
        BETA_MIN
    } else if da >= d3 {
        BETA_MAX
    } else {
        BETA_MIN + (BETA_MAX - BETA_MIN) * (da - d2) / (d3 - d2)
    };
    (alpha, beta)
}

impl Illinois {
    /// θ's guard: a round below d₁ (`low`) restores α_max only when the delay never rose
    /// above d₁ or on the θ-th such round since it did; meanwhile α keeps its value.
    fn guard_alpha(&mut self, alpha: f64, low: bool) -> f64 {
        if !low {
            self.rtt_above = true;
            return alpha;
        }
        if !self.rtt_above {
            return ALPHA_MAX;
        }
        self.rtt_low += 1;
        if self.rtt_low < THETA {
            return self.alpha;
        }
        self.rtt_low = 0;
        self.rtt_above = false;
        ALPHA_MAX
    }
}

impl CongestionControl for Illinois {
    fn observe(&mut self, _w: &mut Window, a: &AckInfo) {
        let Some(r) = a.rtt else { return };
        self.base_rtt = self.base_rtt.min(r);
        self.max_rtt = self.max_rtt.max(r);
        self.sum_rtt += r as f64;
        self.cnt_rtt += 1;
        let start = *self.round_start.get_or_insert(a.now);
        if a.now - start >= a.srtt.max(1) {
            let avg = self.sum_rtt / self.cnt_rtt as f64;
            let da = avg - self.base_rtt as f64;
            let dm = (self.max_rtt - self.base_rtt) as f64;
            let (alpha, beta) = if dm < MIN_QUEUEING {
                (ALPHA_MAX, BETA_MIN)
            } else {
                alpha_beta(da, dm)
            };
            self.beta = beta;
            self.alpha = self.guard_alpha(alpha, da <= 0.01 * dm || dm < MIN_QUEUEING);
            self.sum_rtt = 0.0;
            self.cnt_rtt = 0;
            self.round_start = Some(a.now);
        }
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if w.in_slow_start() {
            w.slow_start(a.acked);
            return;
        }
        let seg = w.cwnd as f64 / w.mss as f64;
        let alpha = if seg < WIN_THRESH { 1.0 } else { self.alpha };
        w.grow(
            &mut self.frac,
            alpha / seg * (a.acked as f64 / w.mss as f64).max(1.0),
        );
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        let seg = w.cwnd as f64 / w.mss as f64;
        let beta = if seg < WIN_THRESH { 0.5 } else { self.beta };
        self.frac = 0.0;
        ((w.cwnd as f64 * (1.0 - beta)) as u64).max(2 * w.mss as u64)
    }

    fn on_timeout(&mut self, _w: &mut Window) {
        self.alpha = 1.0;
        self.beta = BETA_MAX;
        self.rtt_above = false;
        self.rtt_low = 0;
        self.sum_rtt = 0.0;
        self.cnt_rtt = 0;
    }

    fn hand_over(&mut self, _w: &Window, h: &HandOver) {
        self.base_rtt = h.min_rtt;
        self.max_rtt = h
            .srtt
            .max(if h.min_rtt == Time::MAX { 0 } else { h.min_rtt });
        self.round_start = Some(h.now);
    }
}

#[cfg(test)]
mod tests {
    use super::{alpha_beta, Illinois};
    use crate::tcp::cc::test_support::window;
    use crate::tcp::cc::CongestionControl;

    #[test]
    fn alpha_max_returns_after_theta_quiet_rounds() {
        let mut il = Illinois::default();
        assert_eq!(
            il.guard_alpha(10.0, true),
            10.0,
            "never above d1: alpha max at once"
        );
        il.alpha = il.guard_alpha(2.0, false);
        assert_eq!(il.alpha, 2.0);
        for round in 1..5 {
            il.alpha = il.guard_alpha(10.0, true);
            assert_eq!(il.alpha, 2.0, "quiet round {round} of 5 keeps alpha");
        }
        il.alpha = il.guard_alpha(10.0, true);
        assert_eq!(il.alpha, 10.0, "the fifth quiet round restores alpha max");
        assert_eq!(il.guard_alpha(10.0, true), 10.0);
        let mut w = window(30, 20);
        il.on_timeout(&mut w);
        assert_eq!(
            (il.alpha, il.beta),
            (1.0, 0.5),
            "a timeout restores the base values"
        );
    }

    #[test]
    fn alpha_and_beta_curves() {
        assert_eq!(alpha_beta(0.0, 100.0), (10.0, 0.125));
        let (a, b) = alpha_beta(100.0, 100.0);
        assert!((a - 0.3).abs() < 1e-9 && b == 0.5);
        let (a1, _) = alpha_beta(1.0, 100.0);
        assert!((a1 - 10.0).abs() < 1e-9, "α is continuous at d₁: {a1}");
        let (_, b_mid) = alpha_beta(45.0, 100.0);
        assert!(
            (b_mid - 0.3125).abs() < 1e-9,
            "β halfway between d₂ and d₃: {b_mid}"
        );
    }
}

//! YeAH-TCP (Baiocchi, Castellani & Vacirca, PFLDnet 2007): Yet Another Highspeed TCP. Two
//! modes, chosen once per round trip from the queue the flow estimates it keeps,
//! Q = cwnd·(RTT − RTT_base)/RTT (RTT the round's smallest sample, RTT_base the smallest ever),
//! and the queueing delay relative to the base, L = (RTT − RTT_base)/RTT_base:
//!
//! - **fast** while Q < Q_max (80 packets) and L < 1/φ (φ = 8): Scalable TCP's increase
//!   (one segment per 100 acknowledged, about 1 % per RTT);
//! - **slow** otherwise: Reno's increase, and when Q > Q_max a *precautionary decongestion*
//!   removes min(Q/γ, cwnd/2^ε) segments (γ = 1, ε = 1) and sets ssthresh to the result.
//!
//! A loss in fast mode cuts only the queue it measured, clamped to [cwnd/8, cwnd/2]; after
//! ρ = 16 slow rounds in a row (it is competing with Reno flows, whose queue it cannot drain)
//! it halves as Reno. Decongestion never takes cwnd below `reno_count`, the window a Reno
//! flow would have (half the window when slow mode began, then +1 per slow round; reset after
//! ζ = 50 fast rounds). Constants as in Linux's `tcp_yeah` and ns-3's `TcpYeah`.

use super::linux_reno::LinuxReno;
use super::scalable::Scalable;
use super::{AckInfo, CongestionControl, HandOver, Window};
use crate::sim::Time;

/// Q_max: packets queued that end fast mode.
pub const Q_MAX: u64 = 80;
/// φ: fast mode needs RTT − RTT_base below RTT_base/φ.
const PHI: Time = 8;
/// γ: decongestion removes Q/γ.
const GAMMA: u64 = 1;
/// ε: decongestion removes at most cwnd/2^ε.
const EPSILON: u32 = 1;
/// δ: a fast-mode loss removes at least cwnd/2^δ.
const DELTA: u32 = 3;
/// ρ: slow rounds after which a loss halves as Reno.
const RHO: u64 = 16;
/// ζ: fast rounds after which `reno_count` is reset.
const ZETA: u64 = 50;

/// YeAH's state.
#[derive(Clone, Debug)]
pub struct Yeah {
    base_rtt: Time,
    round_min: Time,
    round_samples: u32,
    round_start: Option<Time>,
    /// Consecutive slow rounds (0: fast mode).
    pub slow_rounds: u64,
    fast_rounds: u64,
    /// The window a competing Reno flow would have (segments).
    pub reno_count: u64,
    /// The queue estimated in the last round (segments).
    pub last_q: u64,
    /// Precautionary decongestions so far.
    pub decongestions: u64,
}

impl Default for Yeah {
    fn default() -> Self {
        Yeah {
            base_rtt: Time::MAX,
            round_min: Time::MAX,
            round_samples: 0,
            round_start: None,
            slow_rounds: 0,
            fast_rounds: 0,
            reno_count: 2,
            last_q: 0,
            decongestions: 0,
        }
    }
}

impl Yeah {
    /// True in fast (Scalable) mode.
    pub fn fast(&self) -> bool {
        self.slow_rounds == 0
    }

    /// The end of a round: estimate the queue and choose the mode.
    fn end_round(&mut self, w: &mut Window) {
        let (rtt, base) = (self.round_min, self.base_rtt);
        let mss = w.mss as u64;
        let cwnd = w.segments();
        let queue = (cwnd as u128 * (rtt - base) as u128 / rtt as u128) as u64;
        if queue > Q_MAX || rtt - base > base / PHI {
            if queue > Q_MAX && cwnd > self.reno_count {
                let reduction = (queue / GAMMA).min(cwnd >> EPSILON);
                let new = (cwnd - reduction).max(self.reno_count);
                w.set_cwnd(new * mss);
                w.ssthresh = w.cwnd;
                self.decongestions += 1;
            }
            if self.reno_count <= 2 {
                self.reno_count = (w.segments() / 2).max(2);
            } else {
                self.reno_count += 1;
            }
            self.slow_rounds += 1;
        } else {
            self.fast_rounds += 1;
            if self.fast_rounds > ZETA {
                self.reno_count = 2;
                self.fast_rounds = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_q = queue;
    }
}

impl CongestionControl for Yeah {
    fn observe(&mut self, _w: &mut Window, a: &AckInfo) {
        if let Some(r) = a.rtt {
            self.base_rtt = self.base_rtt.min(r);
            self.round_min = self.round_min.min(r);
            self.round_samples += 1;
        }
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        if w.in_slow_start() {
            w.slow_start(a.acked);
        } else if self.fast() {
            Scalable.on_ack(w, a);
        } else {
            LinuxReno.on_ack(w, a);
        }
        let start = *self.round_start.get_or_insert(a.now);
        if a.srtt > 0 && a.now - start >= a.srtt {
            // Three samples at least, as Vegas asks, for a meaningful minimum.
            if self.round_samples > 2 {
                self.end_round(w);
            }
            self.round_start = Some(a.now);
            self.round_min = Time::MAX;
            self.round_samples = 0;
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        let cwnd = w.segments();
        let half = (cwnd / 2).max(2);
        let reduction = if self.slow_rounds < RHO {
            self.last_q.min(half).max(cwnd >> DELTA)
        } else {
            half
        };
        cwnd.saturating_sub(reduction).max(2) * w.mss as u64
    }

    fn hand_over(&mut self, _w: &Window, h: &HandOver) {
        self.base_rtt = h.min_rtt;
        self.round_start = Some(h.now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MILLISECOND;
    use crate::tcp::cc::test_support::{ack, window};

    const MS: Time = MILLISECOND;

    /// Feed `rounds` rounds of `per_round` one-segment ACKs with this RTT (srtt = RTT).
    fn rounds(y: &mut Yeah, w: &mut Window, now: &mut Time, rtt: Time, per_round: u64, n: u64) {
        for _ in 0..n {
            for _ in 0..per_round {
                *now += rtt / per_round;
                let a = AckInfo {
                    now: *now,
                    rtt: Some(rtt),
                    srtt: rtt,
                    ..ack(1000, 0)
                };
                y.observe(w, &a);
                y.on_ack(w, &a);
            }
        }
    }

    /// No queueing: fast mode, Scalable's +1 segment per 100 acknowledged; a loss then cuts
    /// only cwnd/8 (the queue measured, 0, raised to the floor).
    #[test]
    fn fast_mode_grows_as_scalable_and_cuts_an_eighth() {
        let mut y = Yeah::default();
        let mut w = window(400, 400);
        let mut now = 0;
        rounds(&mut y, &mut w, &mut now, 40 * MS, 200, 3);
        assert!(y.fast());
        assert_eq!(w.cwnd, 406_000, "600 segments acknowledged: +6");
        assert_eq!(y.ssthresh_on_loss(&w, w.cwnd), (406 - 406 / 8) * 1000);
    }

    /// RTT 60 ms over a 40-ms base at cwnd ~400: Q = cwnd·20/60 ≈ 133 > 80 — at the end of
    /// the first round made only of 60-ms samples, a decongestion of min(Q, cwnd/2) segments
    /// and ssthresh = cwnd; growth becomes Reno's.
    #[test]
    fn a_standing_queue_triggers_decongestion_and_slow_mode() {
        let mut y = Yeah::default();
        let mut w = window(400, 400);
        let mut now = 0;
        rounds(&mut y, &mut w, &mut now, 40 * MS, 100, 2);
        assert!(y.fast());
        let mut acks = 0;
        let (before, q) = loop {
            let before = w.segments();
            // One ACK every 0.6 ms: 100 per round.
            now += 600 * MILLISECOND / 1000;
            let a = AckInfo {
                now,
                rtt: Some(60 * MS),
                srtt: 60 * MS,
                ..ack(1000, 0)
            };
            y.observe(&mut w, &a);
            y.on_ack(&mut w, &a);
            acks += 1;
            assert!(acks < 300, "no decongestion");
            if y.decongestions == 1 {
                break (before, y.last_q);
            }
        };
        assert_eq!(q, before * 20 / 60);
        assert_eq!(w.segments(), before - q.min(before / 2));
        assert_eq!(w.ssthresh, w.cwnd);
        assert!(!y.fast());
        // Reno growth now: one segment per cwnd acknowledged.
        let before = w.segments();
        rounds(&mut y, &mut w, &mut now, 40 * MS, before, 1);
        assert_eq!(w.segments(), before + 1);
        // A loss after fewer than ρ slow rounds cuts the measured queue, within [1/8, 1/2].
        let s = y.ssthresh_on_loss(&w, w.cwnd) / 1000;
        let c = w.segments();
        assert_eq!(s, c - y.last_q.min(c / 2).max(c / 8));
    }
}

//! PIE, "Proportional Integral controller Enhanced" (RFC 8033): a drop probability updated
//! every `t_update` from the queueing delay's distance to `target` (the proportional term,
//! `alpha`) and its change since the last update (the integral-like term, `beta`), scaled
//! down while the probability is small (section 4.2's auto-tuning table) and capped at a 2 %
//! step above 10 %; arrivals are dropped (or, with ECN and a probability up to 10 %,
//! marked) with that probability once the burst allowance is spent, except when the delay
//! is well below target or the queue holds at most two packets.
//!
//! The queueing delay is the sojourn time of the last packet dequeued (timestamps, ns-3's
//! and Linux's default rather than the departure-rate estimate); an empty queue measures 0.
//! The periodic update runs at multiples of `t_update`, caught up before each enqueue and
//! dequeue: it reads the delay as of the last dequeue, exactly as a timer would.

use super::{try_mark, Fifo, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Packet, QueueLimit};
use crate::sim::rng::Rng;
use crate::sim::{Time, MILLISECOND};

/// PIE's parameters (defaults: RFC 8033 section 5 / ns-3's `PieQueueDisc`).
#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    /// Target queueing delay (QDELAY_REF).
    pub target: Time,
    /// Period of the drop-probability update.
    pub t_update: Time,
    /// Weight of the delay's distance to target (per second).
    pub alpha: f64,
    /// Weight of the delay's change (per second).
    pub beta: f64,
    /// Burst allowance after an idle period.
    pub max_burst: Time,
    /// Mark ECN-capable packets (while the probability is at most 10 %) instead of dropping.
    pub ecn: bool,
    /// Mean packet size: no early drop while at most two of these wait.
    pub mean_packet: u64,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: 15 * MILLISECOND,
            t_update: 15 * MILLISECOND,
            alpha: 0.125,
            beta: 1.25,
            max_burst: 150 * MILLISECOND,
            ecn: false,
            mean_packet: 1000,
        }
    }
}

/// Above this probability PIE drops even ECN-capable packets (RFC 8033 section 5.1).
const MARK_ECN_THRESHOLD: f64 = 0.1;

/// A PIE queue.
#[derive(Clone, Debug)]
pub struct Pie {
    params: PieParams,
    q: Fifo,
    drop_prob: f64,
    /// Queueing delay measured at the last dequeue.
    qdelay: Time,
    /// The delay the last update saw.
    qdelay_old: Time,
    burst_allowance: Time,
    /// Time of the next periodic update.
    next_update: Time,
    rng: Rng,
    marks: u64,
}

impl Pie {
    /// An empty PIE queue drawing its decisions from `rng`.
    pub fn new(params: PieParams, rng: Rng) -> Self {
        Pie {
            burst_allowance: params.max_burst,
            next_update: params.t_update,
            params,
            q: Fifo::default(),
            drop_prob: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            rng,
            marks: 0,
        }
    }

    /// Draw the decisions from `rng` from now on (the builder names the stream after the
    /// link).
    pub fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// The parameters.
    pub fn params(&self) -> &PieParams {
        &self.params
    }

    /// The current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// Run the periodic updates due by `now`.
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            self.update();
            self.next_update += self.params.t_update;
        }
    }

    /// RFC 8033 section 4.2, `calculate_drop_prob`, and section 4.3's burst allowance.
    fn update(&mut self) {
        let ns = 1e-9;
        let cur = self.qdelay;
        let target = self.params.target;
        let mut p = self.params.alpha * (cur as f64 - target as f64) * ns
            + self.params.beta * (cur as f64 - self.qdelay_old as f64) * ns;
        let scale = [
            (0.000_001, 2048.0),
            (0.000_01, 512.0),
            (0.000_1, 128.0),
            (0.001, 32.0),
            (0.01, 8.0),
            (0.1, 2.0),
        ];
        if let Some(&(_, div)) = scale.iter().find(|&&(below, _)| self.drop_prob < below) {
            p /= div;
        }
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        if cur == 0 && self.qdelay_old == 0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(self.params.t_update);
        if self.drop_prob == 0.0 && cur < target / 2 && self.qdelay_old < target / 2 {
            self.burst_allowance = self.params.max_burst;
        }
        self.qdelay_old = cur;
    }

    /// RFC 8033 section 4.1, `drop_early`: whether to drop (or mark) an arrival.
    fn drop_early(&mut self) -> bool {
        if self.burst_allowance > 0 {
            return false;
        }
        if self.qdelay_old < self.params.target / 2 && self.drop_prob < 0.2 {
            return false;
        }
        if self.q.bytes() <= 2 * self.params.mean_packet {
            return false;
        }
        self.rng.uniform() < self.drop_prob
    }
}

impl Scheduler for Pie {
    fn enqueue(
        &mut self,
        now: Time,
        mut p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        self.catch_up(now);
        if !self.q.admits(limit, &p) {
            dropped.push((p, DropCause::Queue));
            return;
        }
        if self.drop_early() {
            if self.drop_prob <= MARK_ECN_THRESHOLD && try_mark(&mut p, self.params.ecn) {
                self.marks += 1;
            } else {
                dropped.push((p, DropCause::Aqm));
                return;
            }
        }
        self.q.push(now, p);
    }

    fn dequeue(&mut self, now: Time, _: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        self.catch_up(now);
        let Some((arrived, p)) = self.q.pop() else {
            self.qdelay = 0;
            return None;
        };
        self.qdelay = now - arrived;
        Some(p)
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    fn bytes(&self) -> u64 {
        self.q.bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.for_each(f);
    }

    fn sees_idle_arrivals(&self) -> bool {
        true
    }

    fn marks(&self) -> u64 {
        self.marks
    }

    fn may_mark(&self) -> bool {
        self.params.ecn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pie() -> Pie {
        Pie::new(PieParams::default(), Rng::stream(3, "pie-test"))
    }

    /// With the delay held at 30 ms (15 ms over target, no change), each update adds
    /// α·0.015 = 0.001875 scaled by the table for the probability reached so far:
    /// /2048 below 1e-6, /512 below 1e-5, /128 below 1e-4, /32 below 1e-3, /8 below 1e-2,
    /// /2 below 0.1, whole above (capped at 0.02 per step from 0.1 on).
    #[test]
    fn drop_probability_follows_the_auto_tuning_table() {
        let mut q = pie();
        q.qdelay = 30 * MILLISECOND;
        q.qdelay_old = 30 * MILLISECOND;
        let step = 0.125 * 0.015;
        let mut expect = 0.0f64;
        for k in 0..400 {
            q.update();
            let div = if expect < 1e-6 {
                2048.0
            } else if expect < 1e-5 {
                512.0
            } else if expect < 1e-4 {
                128.0
            } else if expect < 1e-3 {
                32.0
            } else if expect < 1e-2 {
                8.0
            } else if expect < 0.1 {
                2.0
            } else {
                1.0
            };
            expect = (expect + step / div).min(1.0);
            assert!((q.drop_prob() - expect).abs() < 1e-12, "update {k}");
        }
        assert!(q.drop_prob() > 0.1);
    }

    /// The β term reacts to the delay's change: a delay rising from 10 to 20 ms adds
    /// (0.125·0.005 + 1.25·0.010)/2048 on a zero probability.
    #[test]
    fn the_delay_change_term() {
        let mut q = pie();
        q.qdelay_old = 10 * MILLISECOND;
        q.qdelay = 20 * MILLISECOND;
        q.update();
        let expect = (0.125 * 0.005 + 1.25 * 0.010) / 2048.0;
        assert!((q.drop_prob() - expect).abs() < 1e-15);
    }

    /// With no delay at all the probability decays by 2 % per update.
    #[test]
    fn idle_decay() {
        let mut q = pie();
        q.drop_prob = 0.5;
        q.update();
        // p = α·(0 − 0.015) = −0.001875 (no scaling above 0.1), then × 0.98.
        assert!((q.drop_prob() - (0.5 - 0.001875) * 0.98).abs() < 1e-15);
    }

    /// No early drop during the burst allowance (150 ms from the start), however high the
    /// probability.
    #[test]
    fn burst_allowance_then_drops() {
        let mut q = pie();
        q.drop_prob = 0.5;
        q.qdelay = 50 * MILLISECOND;
        q.qdelay_old = 50 * MILLISECOND;
        let limit = QueueLimit::Packets(100_000);
        let mut dropped = vec![];
        let pkt = |uid| Packet {
            uid,
            wire: 1000,
            ..Default::default()
        };
        for uid in 0..100 {
            q.enqueue(uid * MILLISECOND, pkt(uid), limit, &mut dropped);
        }
        // Updates at 15, 30, …, 135 ms spend 9 × 15 ms of the 150 ms: no drop yet.
        assert!(dropped.is_empty());
        for uid in 150..1150 {
            q.enqueue(uid * MILLISECOND, pkt(uid), limit, &mut dropped);
        }
        assert!(!dropped.is_empty());
        assert!(dropped
            .iter()
            .all(|d| d.1 == DropCause::Aqm && d.0.uid >= 150));
    }
}

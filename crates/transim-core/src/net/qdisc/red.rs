//! Random Early Detection (Floyd & Jacobson 1993), with the gentle variant (Floyd 2000) and
//! Adaptive RED's automatic max_p (Floyd, Gummadi & Shenker 2001), in packet mode.
//!
//! At every arrival the average queue is brought up to date the way ns-2's `REDQueue` does
//! it: `avg ← avg·(1 − w_q)^(m+1) + w_q·q`, where `q` is the number of packets waiting and
//! `m` the number of packets the link could have sent while it was idle (0 when it was not).
//! Then, with `avg` between `min_th` and `max_th`, the packet is dropped (or, for an
//! ECN-capable packet with `ecn`, marked) with probability
//! `p_a = p_b / (1 − count·p_b)`, `p_b = max_p·(avg − min_th)/(max_th − min_th)`, `count`
//! being the packets accepted since the last drop; gentle RED continues `p_b` linearly from
//! `max_p` at `max_th` to 1 at `2·max_th`. Above the last threshold every arrival is dropped
//! (marking is not enough there: "hard drop", as ns-3's default). The queue limit still
//! applies after that (a tail drop, cause `Queue`).

use super::{try_mark, Fifo, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Packet, QueueLimit};
use crate::sim::rng::Rng;
use crate::sim::{Time, SECOND};

/// RED's parameters (defaults: ns-3's `RedQueueDisc`, packet mode).
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Lower threshold of the average queue (packets).
    pub min_th: f64,
    /// Upper threshold of the average queue (packets).
    pub max_th: f64,
    /// Drop probability at `max_th` (the initial value, with `adaptive`).
    pub max_p: f64,
    /// Weight of the average queue's moving average.
    pub w_q: f64,
    /// Gentle RED: the drop probability rises from `max_p` to 1 between `max_th` and
    /// `2·max_th` instead of jumping to 1.
    pub gentle: bool,
    /// Adaptive RED: `max_p` follows the average queue into the middle of the thresholds,
    /// every `interval`.
    pub adaptive: bool,
    /// ns-3's `Wait`: after a drop, wait about `1/p_b` arrivals before the next
    /// (`p_a = p_b/(2 − count·p_b)`, 0 while `count·p_b < 1`).
    pub wait: bool,
    /// Mark ECN-capable packets instead of dropping them (below the hard-drop threshold).
    pub ecn: bool,
    /// Packets per second the link sends (its rate over the mean packet size): how many
    /// packets an idle period is worth in the moving average.
    pub packets_per_second: f64,
}

impl RedParams {
    /// ns-3's defaults (MinTh 5, MaxTh 15, QW 0.002, LInterm 50, gentle) for a link that
    /// sends `packets_per_second`.
    pub fn defaults(packets_per_second: f64) -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 1.0 / 50.0,
            w_q: 0.002,
            gentle: true,
            adaptive: false,
            wait: false,
            ecn: false,
            packets_per_second,
        }
    }

    /// The probability `p_b` at average queue `avg` (before the count correction), or None
    /// above the last threshold (every arrival is dropped).
    pub fn p_b(&self, avg: f64, max_p: f64) -> Option<f64> {
        if avg < self.min_th {
            Some(0.0)
        } else if avg < self.max_th {
            Some(max_p * (avg - self.min_th) / (self.max_th - self.min_th))
        } else if self.gentle && avg < 2.0 * self.max_th {
            Some(max_p + (1.0 - max_p) * (avg - self.max_th) / self.max_th)
        } else {
            None
        }
    }
}

/// Adaptive RED's period for adjusting max_p.
const ADAPT_INTERVAL: Time = SECOND / 2;

/// A RED queue.
#[derive(Clone, Debug)]
pub struct Red {
    params: RedParams,
    q: Fifo,
    /// The moving average of the queue (packets).
    avg: f64,
    /// Arrivals since the last early drop or mark (−1: below `min_th`).
    count: i64,
    /// When the link went idle, while it is.
    idle_since: Option<Time>,
    /// The current max_p (Adaptive RED changes it).
    max_p: f64,
    /// Last time Adaptive RED changed max_p.
    adapted_at: Time,
    rng: Rng,
    marks: u64,
}

impl Red {
    /// An empty RED queue drawing its decisions from `rng`.
    pub fn new(params: RedParams, rng: Rng) -> Self {
        Red {
            max_p: params.max_p,
            params,
            q: Fifo::default(),
            avg: 0.0,
            count: -1,
            idle_since: Some(0),
            adapted_at: 0,
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
    pub fn params(&self) -> &RedParams {
        &self.params
    }

    /// The average queue (packets) as of the last arrival.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The current max_p.
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// Bring the average up to date for an arrival at `now` (ns-2's estimator).
    fn update_avg(&mut self, now: Time) {
        let w = self.params.w_q;
        let m = match self.idle_since.take() {
            Some(t) => ((now - t) as f64 * 1e-9 * self.params.packets_per_second) as i32,
            None => 0,
        };
        self.avg = self.avg * (1.0 - w).powi(m + 1) + w * self.q.len() as f64;
    }

    /// Adaptive RED (Floyd, Gummadi & Shenker 2001, Fig. 5): every half second, move max_p
    /// so that the average settles between 40 % and 60 % of the way from min_th to max_th.
    fn adapt(&mut self, now: Time) {
        if now < self.adapted_at + ADAPT_INTERVAL {
            return;
        }
        self.adapted_at = now;
        let (lo, hi) = (self.params.min_th, self.params.max_th);
        let (target_lo, target_hi) = (lo + 0.4 * (hi - lo), lo + 0.6 * (hi - lo));
        if self.avg > target_hi && self.max_p <= 0.5 {
            self.max_p += (self.max_p / 4.0).min(0.01);
        } else if self.avg < target_lo && self.max_p >= 0.01 {
            self.max_p *= 0.9;
        }
    }

    /// The early decision for an arrival: None to accept, Some(hard) to drop or mark it
    /// (`hard`: above the last threshold, drop even an ECN-capable packet).
    fn early(&mut self) -> Option<bool> {
        let Some(p_b) = self.params.p_b(self.avg, self.max_p) else {
            self.count = 0;
            return Some(true);
        };
        if self.avg < self.params.min_th {
            self.count = -1;
            return None;
        }
        self.count += 1;
        let c = self.count as f64 * p_b;
        let p_a = if self.params.wait {
            if c < 1.0 {
                0.0
            } else if c < 2.0 {
                p_b / (2.0 - c)
            } else {
                1.0
            }
        } else if c < 1.0 {
            p_b / (1.0 - c)
        } else {
            1.0
        };
        if self.rng.uniform() < p_a {
            self.count = 0;
            Some(false)
        } else {
            None
        }
    }
}

impl Scheduler for Red {
    fn enqueue(
        &mut self,
        now: Time,
        mut p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        self.update_avg(now);
        if self.params.adaptive {
            self.adapt(now);
        }
        match self.early() {
            Some(false) if try_mark(&mut p, self.params.ecn) => self.marks += 1,
            Some(_) => {
                dropped.push((p, DropCause::Aqm));
                return;
            }
            None => {}
        }
        if !self.q.admits(limit, &p) {
            dropped.push((p, DropCause::Queue));
            return;
        }
        self.q.push(now, p);
    }

    fn dequeue(&mut self, now: Time, _: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        let Some((_, p)) = self.q.pop() else {
            self.idle_since.get_or_insert(now);
            return None;
        };
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
    use crate::net::Ecn;

    fn pkt(uid: u64, ecn: Ecn) -> Packet {
        Packet {
            uid,
            wire: 1000,
            ecn,
            ..Default::default()
        }
    }

    fn red(params: RedParams) -> Red {
        Red::new(params, Rng::stream(7, "red-test"))
    }

    const BIG: QueueLimit = QueueLimit::Packets(1_000_000);

    /// The moving average follows avg_n = (1 − w)·avg_{n−1} + w·q: with q arrivals and no
    /// departures, after n arrivals avg = w·Σ_{k<n} k·(1 − w)^(n−1−k).
    #[test]
    fn average_queue_is_the_ewma_of_the_queue_seen_at_arrivals() {
        let mut params = RedParams::defaults(1000.0);
        params.min_th = 1e9; // never drop
        params.max_th = 2e9;
        let mut r = red(params);
        let w = 0.002;
        let mut expect = 0.0f64;
        for n in 0..300u64 {
            // Busy link: no idle decay after the first arrival (idle since 0, arriving at 0).
            r.enqueue(0, pkt(n, Ecn::NotEct), BIG, &mut vec![]);
            expect = (1.0 - w) * expect + w * n as f64;
            assert!((r.avg() - expect).abs() < 1e-9, "arrival {n}");
        }
        // Closed form of the same sum.
        let n = 300.0;
        let closed: f64 = (0..300)
            .map(|k| w * k as f64 * (1.0 - w).powf(n - 1.0 - k as f64))
            .sum();
        assert!((r.avg() - closed).abs() < 1e-9);
    }

    /// An idle period decays the average by (1 − w)^m, m = idle time × packets per second.
    #[test]
    fn idle_time_decays_the_average() {
        let mut params = RedParams::defaults(1000.0);
        params.min_th = 1e9;
        params.max_th = 2e9;
        let mut r = red(params);
        for n in 0..100 {
            r.enqueue(0, pkt(n, Ecn::NotEct), BIG, &mut vec![]);
        }
        let before = r.avg();
        for _ in 0..100 {
            assert!(r.dequeue(0, &mut vec![]).is_some());
        }
        assert!(r.dequeue(SECOND, &mut vec![]).is_none()); // idle from 1 s
                                                           // 0.25 s idle at 1,000 packets/s = 250 packets' worth, plus the arrival's own step.
        r.enqueue(
            SECOND + SECOND / 4,
            pkt(1000, Ecn::NotEct),
            BIG,
            &mut vec![],
        );
        let expect = before * (1.0 - 0.002f64).powi(251);
        assert!((r.avg() - expect).abs() < 1e-12, "{} vs {expect}", r.avg());
    }

    /// p_b rises linearly from 0 at min_th to max_p at max_th, then (gentle) to 1 at
    /// 2·max_th; plain RED drops everything from max_th on.
    #[test]
    fn drop_probability_curve() {
        let g = RedParams::defaults(1000.0);
        assert_eq!(g.p_b(4.9, 0.02), Some(0.0));
        assert!((g.p_b(5.0, 0.02).unwrap() - 0.0).abs() < 1e-15);
        assert!((g.p_b(10.0, 0.02).unwrap() - 0.01).abs() < 1e-15);
        assert!((g.p_b(15.0, 0.02).unwrap() - 0.02).abs() < 1e-15);
        assert!((g.p_b(22.5, 0.02).unwrap() - (0.02 + 0.98 * 0.5)).abs() < 1e-15);
        assert_eq!(g.p_b(30.0, 0.02), None);
        let plain = RedParams { gentle: false, ..g };
        assert_eq!(plain.p_b(15.0, 0.02), None);
    }

    /// Holding the average at a fixed level, the gaps between early drops are uniform on
    /// 1..=1/p_b (Floyd & Jacobson section 7), so the fraction dropped is 2/(1/p_b + 1).
    #[test]
    fn early_drops_are_spaced_uniformly() {
        let mut params = RedParams::defaults(1000.0);
        params.w_q = 0.0; // the average stays where it is set
        let mut r = red(params);
        r.avg = 10.0; // p_b = 0.01
        let n = 200_000u64;
        let mut dropped = vec![];
        for i in 0..n {
            r.enqueue(0, pkt(i, Ecn::NotEct), BIG, &mut dropped);
            r.q = Fifo::default();
        }
        let frac = dropped.len() as f64 / n as f64;
        let expect = 2.0 / (1.0 / 0.01 + 1.0);
        assert!((frac - expect).abs() < 0.05 * expect, "{frac} vs {expect}");
        assert!(dropped.iter().all(|d| d.1 == DropCause::Aqm));
    }

    /// With ECN, an ECT packet is marked and queued instead of dropped below the hard-drop
    /// threshold; above it, it is dropped.
    #[test]
    fn ecn_marks_below_the_hard_drop_threshold() {
        let mut params = RedParams::defaults(1000.0);
        params.w_q = 0.0;
        params.ecn = true;
        let mut r = red(params);
        r.avg = 14.0;
        let mut dropped = vec![];
        for i in 0..10_000 {
            r.enqueue(0, pkt(i, Ecn::Ect0), BIG, &mut dropped);
        }
        assert!(dropped.is_empty());
        // p_b = 0.02·9/10: about 2/(1/p_b + 1) ≈ 3.5 % of the arrivals are marked.
        assert!((250..450).contains(&r.marks()), "{}", r.marks());
        let mut ce = 0;
        r.q.for_each(&mut |p| ce += (p.ecn == Ecn::Ce) as u64);
        assert_eq!(ce, r.marks());
        r.avg = 31.0;
        r.enqueue(0, pkt(99_999, Ecn::Ect0), BIG, &mut dropped);
        assert_eq!(dropped.len(), 1);
    }

    /// Adaptive RED raises max_p while the average sits above the target band and lowers it
    /// below, by the paper's steps.
    #[test]
    fn adaptive_max_p_steps() {
        let mut params = RedParams::defaults(1000.0);
        params.adaptive = true;
        params.w_q = 0.0;
        params.max_p = 0.02;
        let mut r = red(params);
        r.avg = 14.0; // above 5 + 0.6·10 = 11
        r.enqueue(SECOND, pkt(0, Ecn::NotEct), BIG, &mut vec![]);
        assert!((r.max_p() - 0.025).abs() < 1e-15); // + min(0.01, 0.02/4)
        r.enqueue(SECOND + SECOND / 4, pkt(1, Ecn::NotEct), BIG, &mut vec![]);
        assert!((r.max_p() - 0.025).abs() < 1e-15); // not yet half a second
        r.avg = 6.0; // below 5 + 0.4·10 = 9
        r.enqueue(2 * SECOND, pkt(2, Ecn::NotEct), BIG, &mut vec![]);
        assert!((r.max_p() - 0.0225).abs() < 1e-15); // × 0.9
    }
}

//! DualPI2, the coupled dual-queue AQM of L4S (RFC 9332): two FIFOs behind one link.
//!
//! - **Classifier.** A packet whose ECN field is ECT(1) or CE (the L4S identifier, RFC
//!   9331) joins the L queue; Not-ECT and ECT(0) join the C (Classic) queue. The queue limit
//!   counts both together (tail drop on arrival).
//! - **Base AQM (PI2).** Every `t_update` the base probability p′ moves by
//!   `alpha`·(q − `target`) + `beta`·(q − q_prev), q the queueing delay in seconds, clamped
//!   to [0, 1]. q is the larger of the two head packets' sojourn times, as Linux's
//!   `sch_dualpi2` reads it (RFC 9332 lets either queue's delay drive it).
//! - **Coupling.** The Classic queue drops (ECT(0): marks) with p_C = p′², drawn as
//!   p′ > max(u₁, u₂) with two uniform draws as the RFC's pseudocode does. The L queue
//!   marks with p_L = max(p_native, min(k·p′, 1)), k = `coupling`, at the RFC's
//!   deterministic spacing (`recur`: a running sum of p_L, one mark each time it reaches 1).
//!   p_native is the L queue's own shallow AQM on the dequeued packet's sojourn time s: 0
//!   below `l4s_threshold`, 1 from `l4s_threshold` + `l4s_range` on, a linear ramp between
//!   (a step when the range is 0, Linux's default).
//! - **Overload.** While k·p′ ≥ 1 the coupled probability saturates; L packets are then
//!   dropped with p_C instead of marked (RFC 9332 section 4.2.2's overload rule), so an
//!   unresponsive L flow cannot take the link.
//! - **Scheduler.** Linux's weighted round robin by bytes: while both queues hold packets
//!   the Classic queue gets `c_protection` (10 %) of the bytes sent, the L queue the rest,
//!   and either alone gets the link. Or, with `tshift`, a time-shifted FIFO (RFC 9332
//!   section 4.2.1 names both among its conditional-priority schedulers): the L head goes
//!   first unless the C head has waited more than `tshift` longer.
//!
//! Every packet passes through the queues (an idle link's arrival too), so the coupled
//! marking sees every L packet. The periodic update runs at multiples of `t_update`, caught
//! up before each enqueue and dequeue, reading the queues as they stood then.

use super::{exceeds, try_mark, Fifo, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Ecn, Packet, QueueLimit};
use crate::sim::rng::Rng;
use crate::sim::{Time, MILLISECOND};
use serde::Serialize;

/// DualPI2's parameters. Defaults: Linux's `sch_dualpi2` (target 15 ms, update every
/// 16 ms with gains 0.16 and 3.2 per second, coupling 2, L4S step at 1 ms).
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Params {
    /// The Classic queue's target delay.
    pub target: Time,
    /// Period of the base probability's update.
    pub t_update: Time,
    /// Integral gain: weight of the delay's distance to target (per second).
    pub alpha: f64,
    /// Proportional gain: weight of the delay's change (per second).
    pub beta: f64,
    /// The coupling factor k: the L queue's coupled marking is k·p′.
    pub coupling: f64,
    /// The L queue's native AQM starts marking at this sojourn time.
    pub l4s_threshold: Time,
    /// Width of the native AQM's ramp above the threshold (0: a step).
    pub l4s_range: Time,
    /// The Classic queue's share of the link while both queues hold packets (Linux's
    /// `c_protection`): a weighted round robin by bytes. Unused with `tshift`.
    pub c_protection: f64,
    /// With Some: a time-shifted FIFO instead, the C head going first once it has waited
    /// this much longer than the L head.
    pub tshift: Option<Time>,
}

impl Default for DualPi2Params {
    fn default() -> Self {
        DualPi2Params {
            target: 15 * MILLISECOND,
            t_update: 16 * MILLISECOND,
            alpha: 0.16,
            beta: 3.2,
            coupling: 2.0,
            l4s_threshold: MILLISECOND,
            l4s_range: 0,
            c_protection: 0.1,
            tshift: None,
        }
    }
}

/// What each of the two queues saw over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DualQueueStats {
    /// Packets that left the L queue.
    pub l_packets: u64,
    /// Packets that left the C queue (the AQM's drops at dequeue included).
    pub c_packets: u64,
    /// Mean sojourn time in the L queue (s; 0 when none left it).
    pub l_mean_sojourn: f64,
    /// Mean sojourn time in the C queue (s).
    pub c_mean_sojourn: f64,
    /// Largest sojourn time in the L queue (s).
    pub l_max_sojourn: f64,
    /// Largest sojourn time in the C queue (s).
    pub c_max_sojourn: f64,
    /// L packets marked CE (native or coupled).
    pub l_marks: u64,
    /// C packets (ECT(0)) marked CE.
    pub c_marks: u64,
    /// C packets dropped by the AQM.
    pub c_drops: u64,
    /// L packets dropped by the overload rule.
    pub l_drops: u64,
    /// The base probability p′ at the end.
    pub base_prob: f64,
}

/// One queue's running sums.
#[derive(Clone, Debug, Default)]
struct Side {
    q: Fifo,
    left: u64,
    sojourn_sum: u128,
    sojourn_max: Time,
    marks: u64,
    drops: u64,
}

impl Side {
    /// Take the head packet, counting its sojourn time.
    fn pop(&mut self, now: Time) -> Option<(Time, Packet)> {
        let (arrived, p) = self.q.pop()?;
        let s = now - arrived;
        self.left += 1;
        self.sojourn_sum += s as u128;
        self.sojourn_max = self.sojourn_max.max(s);
        Some((s, p))
    }

    fn mean(&self) -> f64 {
        if self.left == 0 {
            0.0
        } else {
            self.sojourn_sum as f64 / self.left as f64 * 1e-9
        }
    }
}

/// A DualPI2 queue.
#[derive(Clone, Debug)]
pub struct DualPi2 {
    params: DualPi2Params,
    l: Side,
    c: Side,
    /// The base probability p′.
    prob: f64,
    /// The queueing delay the last update read.
    prev_qdelay: Time,
    /// Time of the next update.
    next_update: Time,
    /// The L queue's running sum for deterministic marking (the RFC's `recur`).
    recur: f64,
    /// The round robin's credit (bytes × weight): L goes first while it is at most 0.
    credit: f64,
    rng: Rng,
}

/// True for the L4S identifier (ECT(1) or CE).
#[inline]
fn is_l4s(ecn: Ecn) -> bool {
    matches!(ecn, Ecn::Ect1 | Ecn::Ce)
}

impl DualPi2 {
    /// An empty DualPI2 drawing its Classic decisions from `rng`.
    pub fn new(params: DualPi2Params, rng: Rng) -> Self {
        DualPi2 {
            next_update: params.t_update,
            params,
            l: Side::default(),
            c: Side::default(),
            prob: 0.0,
            prev_qdelay: 0,
            recur: 0.0,
            credit: 0.0,
            rng,
        }
    }

    /// Draw the decisions from `rng` from now on (the builder names the stream after the
    /// link).
    pub fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// The parameters.
    pub fn params(&self) -> &DualPi2Params {
        &self.params
    }

    /// The base probability p′.
    pub fn base_prob(&self) -> f64 {
        self.prob
    }

    /// What the two queues saw.
    pub fn stats(&self) -> DualQueueStats {
        DualQueueStats {
            l_packets: self.l.left,
            c_packets: self.c.left,
            l_mean_sojourn: self.l.mean(),
            c_mean_sojourn: self.c.mean(),
            l_max_sojourn: self.l.sojourn_max as f64 * 1e-9,
            c_max_sojourn: self.c.sojourn_max as f64 * 1e-9,
            l_marks: self.l.marks,
            c_marks: self.c.marks,
            c_drops: self.c.drops,
            l_drops: self.l.drops,
            base_prob: self.prob,
        }
    }

    /// Run the updates due by `now`.
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let at = self.next_update;
            self.update(at);
            self.next_update += self.params.t_update;
        }
    }

    /// The PI2 update at `at`: p′ += α·(q − target) + β·(q − q_prev), clamped to [0, 1].
    fn update(&mut self, at: Time) {
        let head = |s: &Side| s.q.head_time().map_or(0, |t| at - t);
        let q = head(&self.l).max(head(&self.c));
        let ns = 1e-9;
        let delta = self.params.alpha * (q as f64 - self.params.target as f64) * ns
            + self.params.beta * (q as f64 - self.prev_qdelay as f64) * ns;
        self.prob = (self.prob + delta).clamp(0.0, 1.0);
        self.prev_qdelay = q;
    }

    /// The L queue's native marking probability for a packet that waited `sojourn`.
    fn native(&self, sojourn: Time) -> f64 {
        let th = self.params.l4s_threshold;
        if sojourn < th {
            0.0
        } else if sojourn >= th + self.params.l4s_range {
            1.0
        } else {
            (sojourn - th) as f64 / self.params.l4s_range as f64
        }
    }

    /// The scheduler: true when the L queue's head goes next.
    fn l_first(&self) -> bool {
        match (self.l.q.head_time(), self.c.q.head_time()) {
            (None, _) => false,
            (Some(_), None) => true,
            // Earlier arrival = longer wait: L goes unless C's head came more than tshift
            // before L's.
            (Some(l), Some(c)) => match self.params.tshift {
                Some(shift) => c + shift >= l,
                None => self.credit <= 0.0,
            },
        }
    }

    /// The round robin's account of a packet of `wire` bytes leaving the L queue (or the C
    /// queue), while the other queue holds packets: L's turns raise the credit by the C
    /// share, C's lower it by the L share, so that C gets `c_protection` of the bytes.
    fn charge(&mut self, from_l: bool, wire: u32) {
        let other_waits = if from_l {
            !self.c.q.is_empty()
        } else {
            !self.l.q.is_empty()
        };
        if other_waits {
            let c = self.params.c_protection;
            self.credit += wire as f64 * if from_l { c } else { c - 1.0 };
        }
    }

    /// The RFC's `recur`: true at evenly spaced calls whose share is `likelihood` (a running
    /// sum, one mark each time it reaches 1; so a likelihood of 1 marks every packet).
    fn recur(&mut self, likelihood: f64) -> bool {
        self.recur += likelihood;
        if self.recur >= 1.0 {
            self.recur -= 1.0;
            true
        } else {
            false
        }
    }

    /// p′ > max(u₁, u₂), which holds with probability p′².
    fn squared_chance(&mut self) -> bool {
        let (a, b) = (self.rng.uniform(), self.rng.uniform());
        self.prob > a.max(b)
    }
}

impl Scheduler for DualPi2 {
    fn enqueue(
        &mut self,
        now: Time,
        p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        self.catch_up(now);
        let (len, bytes) = (self.len() + 1, self.bytes() + p.wire as u64);
        if exceeds(limit, len, bytes) {
            dropped.push((p, DropCause::Queue));
            return;
        }
        if is_l4s(p.ecn) {
            self.l.q.push(now, p);
        } else {
            self.c.q.push(now, p);
        }
    }

    fn dequeue(&mut self, now: Time, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        self.catch_up(now);
        loop {
            if self.l_first() {
                let (sojourn, mut p) = self.l.pop(now)?;
                self.charge(true, p.wire);
                let coupled = self.params.coupling * self.prob;
                if coupled >= 1.0 && self.squared_chance() {
                    self.l.drops += 1;
                    dropped.push((p, DropCause::Aqm));
                    continue;
                }
                let p_l = self.native(sojourn).max(coupled.min(1.0));
                if p_l > 0.0 && self.recur(p_l) && try_mark(&mut p, true) {
                    self.l.marks += 1;
                }
                return Some(p);
            }
            let (_, mut p) = self.c.pop(now)?;
            self.charge(false, p.wire);
            if self.prob > 0.0 && self.squared_chance() {
                if try_mark(&mut p, true) {
                    self.c.marks += 1;
                } else {
                    self.c.drops += 1;
                    dropped.push((p, DropCause::Aqm));
                    continue;
                }
            }
            return Some(p);
        }
    }

    fn len(&self) -> usize {
        self.l.q.len() + self.c.q.len()
    }

    fn bytes(&self) -> u64 {
        self.l.q.bytes() + self.c.q.bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.l.q.for_each(f);
        self.c.q.for_each(f);
    }

    fn sees_idle_arrivals(&self) -> bool {
        true
    }

    fn marks(&self) -> u64 {
        self.l.marks + self.c.marks
    }

    fn may_mark(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MICROSECOND;

    fn dualpi2() -> DualPi2 {
        DualPi2::new(DualPi2Params::default(), Rng::stream(5, "dualpi2-test"))
    }

    fn pkt(uid: u64, ecn: Ecn) -> Packet {
        Packet {
            uid,
            wire: 1500,
            ecn,
            ..Default::default()
        }
    }

    const BIG: QueueLimit = QueueLimit::Packets(100_000);

    /// ECT(1) and CE go to the L queue, Not-ECT and ECT(0) to the C queue. The round robin
    /// serves L first (its credit starts at 0), then C, whose turn puts the credit below 0,
    /// so L again, and C alone.
    #[test]
    fn classifies_by_the_l4s_identifier() {
        let mut q = dualpi2();
        let mut dropped = vec![];
        let codes = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce];
        for (uid, ecn) in codes.into_iter().enumerate() {
            q.enqueue(0, pkt(uid as u64, ecn), BIG, &mut dropped);
        }
        assert_eq!((q.l.q.len(), q.c.q.len()), (2, 2));
        let order: Vec<u64> = (0..4)
            .map(|_| q.dequeue(0, &mut dropped).unwrap().uid)
            .collect();
        assert_eq!(order, [2, 0, 3, 1]);
        assert!(dropped.is_empty());
    }

    /// With `tshift` (30 ms here) the C head goes first once it has waited more than that
    /// longer than the L head: at 0 and 31 ms, not at 0 and 30 ms.
    #[test]
    fn time_shifted_fifo() {
        for (l_at, c_first) in [(30 * MILLISECOND, false), (31 * MILLISECOND, true)] {
            let mut q = dualpi2();
            q.params.tshift = Some(30 * MILLISECOND);
            q.next_update = Time::MAX; // no AQM action: the scheduler alone
            let mut dropped = vec![];
            q.enqueue(0, pkt(0, Ecn::NotEct), BIG, &mut dropped);
            q.enqueue(l_at, pkt(1, Ecn::Ect1), BIG, &mut dropped);
            let first = q.dequeue(l_at, &mut dropped).unwrap().uid;
            assert_eq!(first == 0, c_first, "L arrived at {l_at} ns");
        }
    }

    /// The PI2 update on a hand-worked sequence: a C head waiting 25 ms at the first update
    /// (here at 25 ms) adds 0.16·(0.025 − 0.015) + 3.2·(0.025 − 0) = 0.0816; at the next
    /// (41 ms) the same head has waited 41 ms: + 0.16·0.026 + 3.2·0.016 = 0.05536.
    #[test]
    fn pi2_update_by_hand() {
        let mut q = dualpi2();
        let mut dropped = vec![];
        // The first update moved to 25 ms, so that the head has waited 25 ms there.
        q.next_update = 25 * MILLISECOND;
        q.enqueue(0, pkt(0, Ecn::NotEct), BIG, &mut dropped);
        q.catch_up(25 * MILLISECOND);
        let first = 0.16 * 0.010 + 3.2 * 0.025;
        assert!((q.base_prob() - first).abs() < 1e-12, "{}", q.base_prob());
        q.catch_up(41 * MILLISECOND);
        let second = first + 0.16 * 0.026 + 3.2 * 0.016;
        assert!((q.base_prob() - second).abs() < 1e-12, "{}", q.base_prob());
        // Emptied: the delay reads 0, and p′ falls by 0.16·0.015 + 3.2·0.041.
        q.dequeue(41 * MILLISECOND, &mut dropped);
        q.catch_up(57 * MILLISECOND);
        let third = second - 0.16 * 0.015 - 3.2 * 0.041;
        assert!((q.base_prob() - third).abs() < 1e-12, "{}", q.base_prob());
        // Two more updates on the empty queue take 0.0024 each: 0.00336 → 0.00096 → 0.
        q.catch_up(73 * MILLISECOND);
        assert!((q.base_prob() - (third - 0.0024)).abs() < 1e-12);
        q.catch_up(89 * MILLISECOND);
        assert_eq!(q.base_prob(), 0.0, "clamped at zero");
    }

    /// The L4S head's sojourn counts too: the delay is the larger of the two heads'.
    #[test]
    fn pi2_reads_the_larger_head() {
        let mut q = dualpi2();
        let mut dropped = vec![];
        q.enqueue(0, pkt(0, Ecn::Ect1), BIG, &mut dropped);
        q.enqueue(10 * MILLISECOND, pkt(1, Ecn::NotEct), BIG, &mut dropped);
        q.catch_up(16 * MILLISECOND);
        let expect = 0.16 * (0.016 - 0.015) + 3.2 * 0.016;
        assert!((q.base_prob() - expect).abs() < 1e-12);
    }

    /// Classic packets are dropped with p′²: at p′ = 0.3 about 9 % of 200,000 Not-ECT
    /// packets (standard error 0.064 %), and ECT(0) ones marked at the same rate instead.
    #[test]
    fn classic_drops_and_marks_with_the_square() {
        for (ecn, marks) in [(Ecn::NotEct, false), (Ecn::Ect0, true)] {
            let mut q = dualpi2();
            q.next_update = Time::MAX;
            q.prob = 0.3;
            let mut dropped = vec![];
            let n = 200_000u64;
            let mut marked = 0u64;
            for uid in 0..n {
                q.enqueue(0, pkt(uid, ecn), BIG, &mut dropped);
                if let Some(p) = q.dequeue(0, &mut dropped) {
                    marked += (p.ecn == Ecn::Ce) as u64;
                }
            }
            let share = if marks { marked } else { dropped.len() as u64 } as f64 / n as f64;
            assert!((share - 0.09).abs() < 0.003, "{ecn:?}: {share}");
            if marks {
                assert!(dropped.is_empty());
                assert_eq!(q.stats().c_marks, marked);
            } else {
                assert_eq!(marked, 0);
                assert!(dropped.iter().all(|d| d.1 == DropCause::Aqm));
                assert_eq!(q.stats().c_drops, dropped.len() as u64);
            }
        }
    }

    /// The coupled marking of L packets is k·p′ at even spacing: at p′ = 0.1 (k = 2),
    /// exactly every fifth packet; 2,000 of 10,000.
    #[test]
    fn coupled_marking_is_k_times_the_base() {
        let mut q = dualpi2();
        q.next_update = Time::MAX;
        q.prob = 0.1;
        let mut dropped = vec![];
        let mut marked = vec![];
        for uid in 0..10_000 {
            q.enqueue(0, pkt(uid, Ecn::Ect1), BIG, &mut dropped);
            let p = q.dequeue(0, &mut dropped).unwrap();
            if p.ecn == Ecn::Ce {
                marked.push(uid);
            }
        }
        // A running sum of 0.2 reaches 1 at the fifth packet, then at every fifth (in floating
        // point within one packet of that).
        assert!((1999..=2000).contains(&marked.len()), "{}", marked.len());
        let gaps: Vec<u64> = marked.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|&g| g == 5), "{:?}", &gaps[..10]);
        assert!(dropped.is_empty());
    }

    /// The native AQM: no mark below the threshold, every packet at or above it (a step),
    /// and with a ramp the share between.
    #[test]
    fn native_step_and_ramp() {
        let q = dualpi2();
        assert_eq!(q.native(999 * MICROSECOND), 0.0);
        assert_eq!(q.native(MILLISECOND), 1.0);
        let ramp = DualPi2::new(
            DualPi2Params {
                l4s_threshold: 800 * MICROSECOND,
                l4s_range: 400 * MICROSECOND,
                ..Default::default()
            },
            Rng::stream(1, "x"),
        );
        assert_eq!(ramp.native(800 * MICROSECOND), 0.0);
        assert!((ramp.native(900 * MICROSECOND) - 0.25).abs() < 1e-12);
        assert_eq!(ramp.native(1200 * MICROSECOND), 1.0);
        // A packet that waited 2 ms in the L queue is marked.
        let mut q = dualpi2();
        q.next_update = Time::MAX;
        let mut dropped = vec![];
        q.enqueue(0, pkt(0, Ecn::Ect1), BIG, &mut dropped);
        q.enqueue(0, pkt(1, Ecn::Ect1), BIG, &mut dropped);
        assert_eq!(
            q.dequeue(500 * MICROSECOND, &mut dropped).unwrap().ecn,
            Ecn::Ect1
        );
        assert_eq!(
            q.dequeue(2 * MILLISECOND, &mut dropped).unwrap().ecn,
            Ecn::Ce
        );
        assert_eq!(q.stats().l_marks, 1);
    }

    /// Overload: with k·p′ ≥ 1, L packets are dropped with p′² (here 0.64) instead of
    /// all being marked.
    #[test]
    fn overload_drops_l4s_packets() {
        let mut q = dualpi2();
        q.next_update = Time::MAX;
        q.prob = 0.8;
        let mut dropped = vec![];
        let n = 100_000u64;
        let mut out = 0u64;
        for uid in 0..n {
            q.enqueue(0, pkt(uid, Ecn::Ect1), BIG, &mut dropped);
            if let Some(p) = q.dequeue(0, &mut dropped) {
                assert_eq!(p.ecn, Ecn::Ce, "what passes is marked (k·p′ = 1.6)");
                out += 1;
            }
        }
        let share = dropped.len() as f64 / n as f64;
        assert!((share - 0.64).abs() < 0.005, "{share}");
        assert_eq!(out + dropped.len() as u64, n);
    }

    /// The round robin: with both queues full, one packet in ten (of equal sizes) comes from
    /// the C queue. The credit starts at 0, so L goes first (+150), then C (−1,350), then
    /// nine of L to bring the credit above 0 again: C at turns 1, 11, 21, … With the L queue
    /// empty the C queue gets every turn, and runs up no debt for it.
    #[test]
    fn round_robin_protects_the_classic_queue() {
        let mut q = dualpi2();
        q.next_update = Time::MAX;
        let mut dropped = vec![];
        for uid in 0..100 {
            q.enqueue(0, pkt(uid, Ecn::Ect1), BIG, &mut dropped);
            q.enqueue(0, pkt(1000 + uid, Ecn::NotEct), BIG, &mut dropped);
        }
        let order: Vec<bool> = (0..50)
            .map(|_| q.dequeue(0, &mut dropped).unwrap().uid >= 1000)
            .collect();
        let classic: Vec<usize> = (0..50).filter(|&i| order[i]).collect();
        assert_eq!(classic, [1, 11, 21, 31, 41], "{order:?}");
        // Drain L alone, then C alone: C's turns without L waiting leave the credit alone.
        let mut q = dualpi2();
        q.next_update = Time::MAX;
        for uid in 0..20 {
            q.enqueue(0, pkt(1000 + uid, Ecn::NotEct), BIG, &mut dropped);
        }
        for _ in 0..20 {
            q.dequeue(0, &mut dropped);
        }
        assert_eq!(q.credit, 0.0);
        assert!(dropped.is_empty());
    }

    /// The limit counts both queues: a limit of 3 packets admits three, whatever their
    /// queues, and refuses the fourth.
    #[test]
    fn one_limit_for_both_queues() {
        let mut q = dualpi2();
        let mut dropped = vec![];
        let limit = QueueLimit::Packets(3);
        for (uid, ecn) in [Ecn::Ect1, Ecn::NotEct, Ecn::Ect1, Ecn::Ect0]
            .into_iter()
            .enumerate()
        {
            q.enqueue(0, pkt(uid as u64, ecn), limit, &mut dropped);
        }
        assert_eq!(q.len(), 3);
        assert_eq!(dropped.len(), 1);
        assert_eq!((dropped[0].0.uid, dropped[0].1), (3, DropCause::Queue));
    }

    /// Sojourn statistics per queue: two L packets waiting 0.5 and 1.5 ms, one C packet 10 ms.
    #[test]
    fn per_queue_sojourn() {
        let mut q = dualpi2();
        q.next_update = Time::MAX;
        q.params.tshift = Some(30 * MILLISECOND); // L's two packets first
        let mut dropped = vec![];
        q.enqueue(0, pkt(0, Ecn::Ect1), BIG, &mut dropped);
        q.enqueue(0, pkt(1, Ecn::Ect1), BIG, &mut dropped);
        q.enqueue(0, pkt(2, Ecn::NotEct), BIG, &mut dropped);
        q.dequeue(MILLISECOND / 2, &mut dropped);
        q.dequeue(MILLISECOND / 2 * 3, &mut dropped);
        q.dequeue(10 * MILLISECOND, &mut dropped);
        let s = q.stats();
        assert_eq!((s.l_packets, s.c_packets), (2, 1));
        assert!((s.l_mean_sojourn - 0.001).abs() < 1e-12);
        assert!((s.l_max_sojourn - 0.0015).abs() < 1e-12);
        assert!((s.c_mean_sojourn - 0.010).abs() < 1e-12);
    }
}

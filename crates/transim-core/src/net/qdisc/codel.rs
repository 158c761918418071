//! CoDel, "Controlled Delay" (RFC 8289): a FIFO that timestamps packets on arrival and, at
//! dequeue, drops (or, with ECN, marks) once the sojourn time has stayed above `target` for
//! `interval`; while that lasts it drops again at intervals shrinking as `interval/√count`
//! (the control law). The state machine is RFC 8289's pseudo-code (section 5), with Linux's
//! choices where the RFC leaves them: the count carried over from the last dropping state
//! when it ended less than 16 intervals ago, the signed time comparison there, and a marked
//! packet leaving the queue instead of being dropped.

use super::{try_mark, Fifo, Scheduler};
use crate::net::loss::DropCause;
use crate::net::{Packet, QueueLimit};
use crate::sim::{Time, MILLISECOND};

/// CoDel's parameters (defaults: RFC 8289 section 4.4; MAXPACKET an Ethernet MTU).
#[derive(Clone, Debug, PartialEq)]
pub struct CoDelParams {
    /// Acceptable standing queue delay.
    pub target: Time,
    /// The window over which the queue delay must stay above `target` before drops start
    /// (about a worst-case RTT).
    pub interval: Time,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Bytes at or below which the queue is never considered standing (MAXPACKET).
    pub max_packet: u64,
}

impl Default for CoDelParams {
    fn default() -> Self {
        CoDelParams {
            target: 5 * MILLISECOND,
            interval: 100 * MILLISECOND,
            ecn: false,
            max_packet: 1500,
        }
    }
}

/// A CoDel queue.
#[derive(Clone, Debug)]
pub struct CoDel {
    params: CoDelParams,
    /// Waiting packets with their arrival times.
    q: Fifo,
    /// When the sojourn time will have been above target for an interval (0: it is not
    /// above target).
    first_above_time: Time,
    /// When the next drop is due, while dropping.
    drop_next: Time,
    count: u32,
    lastcount: u32,
    dropping: bool,
    marks: u64,
}

impl CoDel {
    /// An empty CoDel queue.
    pub fn new(params: CoDelParams) -> Self {
        CoDel {
            params,
            q: Fifo::default(),
            first_above_time: 0,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
            marks: 0,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &CoDelParams {
        &self.params
    }

    /// Remove the head packet without CoDel's decision (an overflow drop by FQ-CoDel).
    pub(crate) fn take_head(&mut self, _now: Time) -> Option<Packet> {
        self.q.pop().map(|(_, p)| p)
    }

    /// RFC 8289's control law: the next drop `interval/√count` after `t`.
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        t + (self.params.interval as f64 / (count.max(1) as f64).sqrt()) as Time
    }

    /// Take the head packet; says whether the queue delay has been above target for an
    /// interval (`dodequeue`).
    fn dodequeue(&mut self, now: Time) -> (Option<Packet>, bool) {
        let Some((arrived, p)) = self.q.pop() else {
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn = now - arrived;
        let mut ok_to_drop = false;
        if sojourn < self.params.target || self.q.bytes() <= self.params.max_packet {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + self.params.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(p), ok_to_drop)
    }
}

impl Scheduler for CoDel {
    fn enqueue(
        &mut self,
        now: Time,
        p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        if !self.q.admits(limit, &p) {
            dropped.push((p, DropCause::Queue));
            return;
        }
        self.q.push(now, p);
    }

    fn dequeue(&mut self, now: Time, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        let (mut p, mut ok_to_drop) = self.dodequeue(now);
        let ecn = self.params.ecn;
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                let mut head = p.expect("ok_to_drop implies a packet");
                self.count += 1;
                if try_mark(&mut head, ecn) {
                    self.marks += 1;
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    return Some(head);
                }
                dropped.push((head, DropCause::Aqm));
                (p, ok_to_drop) = self.dodequeue(now);
                if ok_to_drop {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            let mut head = p.expect("ok_to_drop implies a packet");
            if try_mark(&mut head, ecn) {
                self.marks += 1;
                p = Some(head);
            } else {
                dropped.push((head, DropCause::Aqm));
                (p, _) = self.dodequeue(now);
            }
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            let since = now as i128 - self.drop_next as i128;
            self.count = if delta > 1 && since < 16 * self.params.interval as i128 {
                delta
            } else {
                1
            };
            self.lastcount = self.count;
            self.drop_next = self.control_law(now, self.count);
        }
        p
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

    const MS: Time = MILLISECOND;

    /// A link draining one 1000-byte packet every `service` while packets arrive every
    /// `arrival` (an overload), simulated directly on the queue: returns the drop times.
    fn overload(params: CoDelParams, arrival: Time, service: Time, until: Time) -> Vec<Time> {
        let mut c = CoDel::new(params);
        let limit = QueueLimit::Packets(1_000_000);
        let (mut next_arrival, mut next_service, mut uid) = (0, service, 0);
        let mut drops = vec![];
        while next_service < until {
            while next_arrival <= next_service {
                let p = Packet {
                    uid,
                    wire: 1000,
                    ..Default::default()
                };
                uid += 1;
                c.enqueue(next_arrival, p, limit, &mut vec![]);
                next_arrival += arrival;
            }
            let mut dropped = vec![];
            c.dequeue(next_service, &mut dropped);
            drops.extend(dropped.iter().map(|_| next_service));
            next_service += service;
        }
        drops
    }

    /// RFC 8289's control law on a queue growing without bound: the first drop comes one
    /// interval after the sojourn time first exceeds target, then the gaps between drops
    /// are interval/√2, interval/√3, … (each rounded to the next dequeue).
    #[test]
    fn drops_follow_the_control_law() {
        // Arrivals every 0.5 ms, service every 1 ms: the packet leaving at k ms arrived at
        // (k − 1)/2 ms, so its sojourn time (k + 1)/2 ms reaches the 5 ms target at k = 9.
        let drops = overload(CoDelParams::default(), MS / 2, MS, 3000 * MS);
        assert_eq!(drops[0], 109 * MS, "first drop: 9 ms + 100 ms");
        // Entering the dropping state sets count = 1 and the next drop interval/√1 later;
        // each drop after that raises count and schedules the next interval/√count after
        // the previous due time. With dequeues every millisecond a drop happens at the
        // first dequeue at or after its due time.
        let mut due = 109 * MS;
        for (k, &t) in drops.iter().enumerate().skip(1).take(40) {
            due += (100.0 * MS as f64 / (k as f64).sqrt()) as Time;
            assert_eq!(t, due.div_ceil(MS) * MS, "drop {}", k + 1);
        }
        assert!(drops.len() > 41);
    }

    /// Below target nothing is dropped, however long the queue lasts.
    #[test]
    fn no_drops_below_target() {
        // Arrivals every 1.0 ms, service every 0.999 ms: the queue never builds.
        let drops = overload(CoDelParams::default(), MS, MS - 1000, 2000 * MS);
        assert!(drops.is_empty());
    }

    /// With ECN, an ECN-capable head packet is marked and sent instead of dropped, and the
    /// marks follow the same schedule.
    #[test]
    fn ecn_marks_instead_of_dropping() {
        let mut c = CoDel::new(CoDelParams {
            ecn: true,
            ..Default::default()
        });
        let limit = QueueLimit::Packets(1_000_000);
        let mut marked_at = vec![];
        let (mut next_arrival, mut uid) = (0, 0);
        for k in 1..=400 {
            let now = k * MS;
            while next_arrival <= now {
                let p = Packet {
                    uid,
                    wire: 1000,
                    ecn: Ecn::Ect0,
                    ..Default::default()
                };
                uid += 1;
                c.enqueue(next_arrival, p, limit, &mut vec![]);
                next_arrival += MS / 2;
            }
            let mut dropped = vec![];
            let p = c.dequeue(now, &mut dropped).expect("backlogged");
            assert!(dropped.is_empty());
            if p.ecn == Ecn::Ce {
                marked_at.push(now);
            }
        }
        assert_eq!(marked_at[..2], [109 * MS, 209 * MS]);
        assert_eq!(marked_at[2], (209 * MS + 70_710_678).div_ceil(MS) * MS); // 100/√2 ms
        assert_eq!(c.marks(), marked_at.len() as u64);
    }
}

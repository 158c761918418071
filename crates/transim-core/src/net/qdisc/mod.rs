//! Queue disciplines whose departure order or admission is decided per packet: fair queueing,
//! ACK filtering and the active queue managers (RED, CoDel, FQ-CoDel, PIE, DualPI2). Drop-tail FIFO links never come
//! here (they know each departure when a packet arrives, see [`super::link`]); links with one
//! of these schedulers serialise one packet at a time and ask the scheduler for the next when
//! the line is free. A new discipline is one more [`Scheduler`] implementation (one file) and
//! one arm of [`Sched`].

mod ack_filter;
mod codel;
mod drr;
mod dualpi2;
mod fifo;
mod fq_codel;
mod pie;
mod red;
mod step;

pub use ack_filter::AckFilter;
pub use codel::{CoDel, CoDelParams};
pub use drr::Drr;
pub use dualpi2::{DualPi2, DualPi2Params, DualQueueStats};
pub use fifo::Fifo;
pub use fq_codel::{FqCoDel, FqCoDelParams};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};
pub use step::Step;

use super::loss::DropCause;
use super::Packet;
use super::QueueLimit;
use crate::sim::Time;

/// A queue discipline driven by enqueue and dequeue.
pub trait Scheduler {
    /// Accept `p` at `now`; push every packet the discipline discards (the arriving one or
    /// others) onto `dropped` with its cause.
    fn enqueue(
        &mut self,
        now: Time,
        p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    );
    /// Next packet to transmit at `now`; packets the discipline discards on the way out
    /// (CoDel) go onto `dropped`.
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet>;
    /// Packets waiting.
    fn len(&self) -> usize;
    /// True when nothing waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    /// Every waiting packet (for the end-of-run conservation check).
    fn for_each(&self, f: &mut dyn FnMut(&Packet));
    /// True when a packet arriving at an idle link must still pass through the discipline
    /// (an AQM's estimate sees every arrival); otherwise it is transmitted at once.
    fn sees_idle_arrivals(&self) -> bool {
        false
    }
    /// Packets marked Congestion Experienced instead of dropped so far.
    fn marks(&self) -> u64 {
        0
    }
    /// True when the discipline may mark ECN-capable packets instead of dropping them.
    fn may_mark(&self) -> bool {
        false
    }
}

/// True when `len` packets / `bytes` bytes exceed the limit.
pub(crate) fn exceeds(limit: QueueLimit, len: usize, bytes: u64) -> bool {
    match limit {
        QueueLimit::Packets(n) => len as u64 > n,
        QueueLimit::Bytes(b) => bytes > b,
    }
}

/// Mark `p` Congestion Experienced when it is ECN-capable and the discipline may mark;
/// returns false when it must be dropped instead.
#[inline]
pub(crate) fn try_mark(p: &mut Packet, ecn: bool) -> bool {
    if ecn && p.ecn.capable() {
        p.ecn = super::Ecn::Ce;
        true
    } else {
        false
    }
}

/// The schedulers a link can use (static dispatch).
#[derive(Clone, Debug)]
pub enum Sched {
    /// Per-flow fair queueing (DRR).
    Fq(Drr),
    /// FIFO with ACK filtering.
    AckFilter(AckFilter),
    /// Random Early Detection (with its gentle and adaptive variants).
    Red(Box<Red>),
    /// CoDel (RFC 8289).
    CoDel(Box<CoDel>),
    /// FQ-CoDel (RFC 8290).
    FqCoDel(Box<FqCoDel>),
    /// PIE (RFC 8033).
    Pie(Box<Pie>),
    /// Step marking at a threshold (DCTCP's switch).
    Step(Step),
    /// DualPI2, L4S's coupled dual queue (RFC 9332).
    DualPi2(Box<DualPi2>),
}

macro_rules! each {
    ($s:expr, $q:ident => $e:expr) => {
        match $s {
            Sched::Fq($q) => $e,
            Sched::AckFilter($q) => $e,
            Sched::Red($q) => $e,
            Sched::CoDel($q) => $e,
            Sched::FqCoDel($q) => $e,
            Sched::Pie($q) => $e,
            Sched::Step($q) => $e,
            Sched::DualPi2($q) => $e,
        }
    };
}

impl Sched {
    /// True for the active queue managers (they may drop before the queue is full).
    pub fn is_aqm(&self) -> bool {
        matches!(
            self,
            Sched::Red(_)
                | Sched::CoDel(_)
                | Sched::FqCoDel(_)
                | Sched::Pie(_)
                | Sched::Step(_)
                | Sched::DualPi2(_)
        )
    }

    /// Give a randomised discipline its random stream (the builder names it after the link).
    pub fn reseed(&mut self, rng: crate::sim::rng::Rng) {
        match self {
            Sched::Red(r) => r.reseed(rng),
            Sched::Pie(p) => p.reseed(rng),
            Sched::DualPi2(d) => d.reseed(rng),
            _ => {}
        }
    }

    /// The discipline's scenario name.
    pub fn name(&self) -> &'static str {
        match self {
            Sched::Fq(_) => "fq",
            Sched::AckFilter(_) => "ack_filter",
            Sched::Red(_) => "red",
            Sched::CoDel(_) => "codel",
            Sched::FqCoDel(_) => "fq_codel",
            Sched::Pie(_) => "pie",
            Sched::Step(_) => "step",
            Sched::DualPi2(_) => "dualpi2",
        }
    }

    /// What DualPI2's two queues saw (None for the other disciplines).
    pub fn dual_queue(&self) -> Option<DualQueueStats> {
        match self {
            Sched::DualPi2(d) => Some(d.stats()),
            _ => None,
        }
    }
}

impl Scheduler for Sched {
    fn enqueue(
        &mut self,
        now: Time,
        p: Packet,
        limit: QueueLimit,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) {
        each!(self, q => q.enqueue(now, p, limit, dropped))
    }
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        each!(self, q => q.dequeue(now, dropped))
    }
    fn len(&self) -> usize {
        each!(self, q => q.len())
    }
    fn bytes(&self) -> u64 {
        each!(self, q => q.bytes())
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        each!(self, q => q.for_each(f))
    }
    fn sees_idle_arrivals(&self) -> bool {
        each!(self, q => q.sees_idle_arrivals())
    }
    fn marks(&self) -> u64 {
        each!(self, q => q.marks())
    }
    fn may_mark(&self) -> bool {
        each!(self, q => q.may_mark())
    }
}

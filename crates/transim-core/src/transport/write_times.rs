//! When a `writes` application makes each of its writes (`app.at`): offsets from the moment
//! the application opens its connection (the flow's start), in order. A write is made at its
//! time or, while the ones before it are still waiting for room in the send buffer, after
//! them. TCP and SCTP share it: each asks how many writes have been made by now, and sets a
//! one-shot timer for the next one.

use crate::sim::events::TimerId;
use crate::sim::Time;
use crate::transport::Ctx;

/// The schedule of an application's writes and how far it has got.
#[derive(Clone, Debug)]
pub struct WriteTimes {
    /// Offsets of the writes from the start, in order (non-decreasing).
    at: Box<[Time]>,
    /// When the application started (the flow's start).
    base: Time,
    /// Writes made so far.
    made: usize,
}

impl WriteTimes {
    /// Writes at these offsets from the start (non-decreasing; the scenario checks).
    pub fn new(at: Vec<Time>) -> Self {
        debug_assert!(
            at.windows(2).all(|w| w[0] <= w[1]),
            "write times out of order"
        );
        WriteTimes {
            at: at.into(),
            base: 0,
            made: 0,
        }
    }

    /// The application starts at `now`: the times count from there. (Then
    /// [`WriteTimes::advance`] makes the writes due at once.)
    pub fn start(&mut self, now: Time) {
        self.base = now;
    }

    /// The writes due by now are made (the timer set for the next is the only one pending,
    /// so each firing finds at least one due). Returns the writes made in all.
    pub fn advance(&mut self, flow: u32, timer: TimerId, ctx: &mut Ctx) -> usize {
        while self.made < self.at.len() && self.base + self.at[self.made] <= ctx.now {
            self.made += 1;
        }
        if let Some(&next) = self.at.get(self.made) {
            ctx.schedule(self.base + next, flow, timer);
        }
        self.made
    }

    /// Writes made so far.
    pub fn made(&self) -> usize {
        self.made
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::events::{Event, EventQueue};

    #[test]
    fn makes_the_writes_due_and_sets_one_timer_for_the_next() {
        let mut events = EventQueue::default();
        let (mut out, mut uid) = (Vec::new(), 0);
        let mut w = WriteTimes::new(vec![0, 0, 5, 9, 9]);
        let mut ctx = Ctx::detached(100, &mut events, &mut out, &mut uid);
        w.start(100);
        assert_eq!(w.advance(7, 3, &mut ctx), 2);
        assert_eq!(w.made(), 2);
        let (at, ev) = events.pop().expect("a timer for the third write");
        assert_eq!(at, 105);
        assert!(matches!(ev, Event::Timer { flow: 7, timer: 3 }));
        assert!(events.pop().is_none(), "one timer at a time");
        let mut ctx = Ctx::detached(105, &mut events, &mut out, &mut uid);
        assert_eq!(w.advance(7, 3, &mut ctx), 3);
        assert_eq!(
            events.pop().map(|e| e.0),
            Some(109),
            "the fourth and fifth writes' timer"
        );
        let mut ctx = Ctx::detached(109, &mut events, &mut out, &mut uid);
        assert_eq!(w.advance(7, 3, &mut ctx), 5);
        assert!(events.pop().is_none(), "no timer after the last write");
    }
}

//! A lazily rescheduled timer. Restarting a timer to a later deadline (the RTO on every ACK)
//! pushes no event: the pending event, when it fires early, re-arms itself at the deadline.
//! Only moving a deadline earlier pushes a new event; stale events are recognised and ignored.

use crate::sim::events::{Event, EventQueue, TimerId};
use crate::sim::Time;

/// One timer of one flow (its transport names it with a [`TimerId`]).
#[derive(Clone, Debug, Default)]
pub struct Timer {
    deadline: Option<Time>,
    scheduled: Option<Time>,
}

impl Timer {
    /// Arm (or re-arm) the timer to fire at `at`.
    #[inline]
    pub fn set(&mut self, at: Time, flow: u32, kind: TimerId, events: &mut EventQueue) {
        self.deadline = Some(at);
        if self.scheduled.is_none_or(|s| s > at) {
            events.push(at, Event::Timer { flow, timer: kind });
            self.scheduled = Some(at);
        }
    }

    /// Disarm.
    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// When it is due, if armed.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// True when armed.
    pub fn is_set(&self) -> bool {
        self.deadline.is_some()
    }

    /// Handle a timer event firing at `now`. Returns true when the timer is really due.
    #[inline]
    pub fn fire(&mut self, now: Time, flow: u32, kind: TimerId, events: &mut EventQueue) -> bool {
        if self.scheduled != Some(now) {
            return false; // stale event
        }
        self.scheduled = None;
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                true
            }
            Some(d) => {
                events.push(d, Event::Timer { flow, timer: kind });
                self.scheduled = Some(d);
                false
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(t: &mut Timer, q: &mut EventQueue) -> Vec<u64> {
        let mut fired = vec![];
        while let Some((now, _)) = q.pop() {
            if t.fire(now, 0, 0, q) {
                fired.push(now);
            }
        }
        fired
    }

    #[test]
    fn pushing_deadline_later_fires_once_at_the_new_deadline() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(10, 0, 0, &mut q);
        t.set(20, 0, 0, &mut q);
        t.set(30, 0, 0, &mut q);
        assert_eq!(q.len(), 1);
        assert_eq!(run(&mut t, &mut q), vec![30]);
    }

    #[test]
    fn moving_earlier_and_cancelling() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(30, 0, 0, &mut q);
        t.set(5, 0, 0, &mut q);
        assert_eq!(run(&mut t, &mut q), vec![5]);
        t.set(40, 0, 0, &mut q);
        t.cancel();
        assert_eq!(run(&mut t, &mut q), Vec::<u64>::new());
    }
}

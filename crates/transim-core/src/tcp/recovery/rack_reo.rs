//! RACK's adaptive reordering window (RFC 8985 §6.2 step 4): the window is min_RTT/4 times a
//! multiplier that grows by one for each round trip in which a D-SACK arrives (the sender
//! learns that it retransmitted what was only reordered), and falls back to one after 16
//! recoveries without one.

use crate::sim::Time;

/// Recoveries without a D-SACK after which the multiplier falls back to one.
pub const PERSIST: i32 = 16;

/// RACK.reo_wnd_mult, RACK.reo_wnd_persist and RACK.dsack_round.
#[derive(Clone, Debug)]
pub struct ReoWindow {
    /// RACK.reo_wnd_mult.
    mult: u32,
    /// RACK.reo_wnd_persist.
    persist: i32,
    /// RACK.dsack_round: SND.NXT when the multiplier last grew; it grows again only on a
    /// D-SACK after SND.UNA has reached it.
    round: Option<u64>,
    /// The cumulative ACK of the ACK whose D-SACK last grew the multiplier: leaving a
    /// recovery on that same ACK does not count as a recovery without one ("else if").
    grew_on: Option<u64>,
}

impl Default for ReoWindow {
    fn default() -> Self {
        ReoWindow {
            mult: 1,
            persist: 0,
            round: None,
            grew_on: None,
        }
    }
}

impl ReoWindow {
    /// An ACK up to `una` carrying a D-SACK, with `nxt` the next sequence number to send:
    /// grow the multiplier if this is the round's first. Returns whether it grew.
    pub fn on_dsack(&mut self, una: u64, nxt: u64) -> bool {
        if self.round.is_some_and(|r| una >= r) {
            self.round = None;
        }
        if self.round.is_some() {
            return false;
        }
        self.round = Some(nxt);
        self.mult += 1;
        self.persist = PERSIST;
        self.grew_on = Some(una);
        true
    }

    /// Fast or timeout recovery ends on an ACK up to `una`.
    pub fn on_recovery_exit(&mut self, una: u64) {
        if self.grew_on == Some(una) {
            return;
        }
        self.persist -= 1;
        if self.persist <= 0 {
            self.mult = 1;
        }
    }

    /// The multiplier (1 until a D-SACK arrives).
    pub fn mult(&self) -> u32 {
        self.mult
    }

    /// RACK.reo_wnd once reordering has been seen: min_RTT/4 times the multiplier, at most
    /// SRTT.
    pub fn window(&self, min_rtt: Time, srtt: Time) -> Time {
        (min_rtt / 4).saturating_mul(self.mult as Time).min(srtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn one_growth_per_round_trip_with_a_dsack() {
        let mut w = ReoWindow::default();
        assert_eq!(w.window(40 * MS, 60 * MS), 10 * MS);
        // A D-SACK with 100 acknowledged and 200 sent: the round ends when 200 is acked.
        assert!(w.on_dsack(100, 200));
        assert_eq!((w.mult(), w.window(40 * MS, 60 * MS)), (2, 20 * MS));
        assert!(!w.on_dsack(150, 260), "same round");
        assert!(!w.on_dsack(199, 300), "same round");
        assert!(w.on_dsack(200, 320), "SND.UNA reached the round's end");
        assert_eq!(w.mult(), 3);
        // Capped at SRTT.
        assert_eq!(w.window(40 * MS, 25 * MS), 25 * MS);
    }

    #[test]
    fn sixteen_recoveries_without_a_dsack_reset_the_multiplier() {
        let mut w = ReoWindow::default();
        w.on_dsack(100, 200);
        w.on_dsack(200, 300);
        assert_eq!(w.mult(), 3);
        for k in 1..PERSIST {
            w.on_recovery_exit(1_000 + k as u64);
            assert_eq!(w.mult(), 3, "after {k} recoveries");
        }
        w.on_recovery_exit(2_000);
        assert_eq!(w.mult(), 1);
    }

    #[test]
    fn a_recovery_that_ends_on_the_growing_ack_does_not_count() {
        let mut w = ReoWindow::default();
        w.on_dsack(500, 600);
        for _ in 0..2 * PERSIST {
            w.on_recovery_exit(500);
        }
        assert_eq!(w.mult(), 2);
        w.on_dsack(600, 700);
        assert_eq!(w.mult(), 3, "a new round");
        for k in 0..PERSIST {
            w.on_recovery_exit(701 + k as u64);
        }
        assert_eq!(w.mult(), 1);
    }

    #[test]
    fn without_dsacks_the_window_stays_a_quarter_of_min_rtt() {
        let mut w = ReoWindow::default();
        for k in 0..40 {
            w.on_recovery_exit(k);
        }
        assert_eq!(w.window(8 * MS, 100 * MS), 2 * MS);
    }
}

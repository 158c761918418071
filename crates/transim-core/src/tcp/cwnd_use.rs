//! Whether cwnd is what limits the sender, for `tcp.cwnd_growth`: congestion control grows
//! the window only while it does (or always, RFC 5681's text and ns-2).
//!
//! Each send (the sender's own loop, or a SACK recovery's) ends with a finding: whether cwnd
//! had no room left for another full segment (Linux: packets in flight ≥ snd_cwnd). Then:
//! - `"cwnd_limited"` (Linux 2.6's `tcp_is_cwnd_limited` without TSO; ns-3's `TcpCubic`):
//!   an ACK grows cwnd only if the last send found it full, and a growth uses the finding
//!   up, so that the next ACK grows only after a send has filled the larger window (Linux
//!   2.6 compares the packets in flight before each ACK with cwnd as it then is). A send the
//!   pacer cut short leaves the finding as it was.
//! - `"linux"` (Linux from 3.16, `tcp_cwnd_validate` and `tcp_is_cwnd_limited`): a finding of
//!   "full" holds until the data then outstanding is acknowledged, and so does the most
//!   segments in flight in that window; slow start also grows while cwnd is below twice
//!   that most.

use super::cc::Window;
use super::config::CwndGrowth;

/// The findings of the last sends, and what they allow.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CwndUse {
    /// An ACK may grow cwnd: always true with `"always"`; with the others, cwnd limited the
    /// last send (`"cwnd_limited"`) or the current window's (`"linux"`).
    pub(crate) full: bool,
    mode: CwndGrowth,
    /// `"linux"`: the most segments in flight after a send in the current window, and the
    /// sequence number that ends that window (`max_packets_out`, `cwnd_usage_seq`).
    max_out: u32,
    until: u64,
}

/// What a send left: cwnd had no room for another full segment (`limited`), the pacer cut
/// it short (`paced`), it sent anything (`sent`), segments and sequence numbers in flight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SendEnd {
    pub limited: bool,
    pub paced: bool,
    pub sent: bool,
    pub segments_out: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
}

impl CwndUse {
    /// The state of a new connection: its first ACKs may grow the initial window.
    pub(crate) fn new(mode: CwndGrowth) -> Self {
        CwndUse {
            full: true,
            mode,
            max_out: 0,
            until: 0,
        }
    }

    /// Sends must report their ends ([`CwndUse::after_send`]).
    #[inline]
    pub(crate) fn tracks(&self) -> bool {
        self.mode != CwndGrowth::Always
    }

    /// Take a send's finding.
    pub(crate) fn after_send(&mut self, e: SendEnd) {
        match self.mode {
            CwndGrowth::Always => {}
            CwndGrowth::CwndLimited => {
                if e.limited || !e.paced {
                    self.full = e.limited;
                }
            }
            CwndGrowth::Linux => {
                // tcp_write_xmit validates only after a send that sent or hit cwnd.
                if !(e.sent || e.limited) {
                    return;
                }
                let out = e.segments_out.min(u32::MAX as u64) as u32;
                if e.snd_una >= self.until || e.limited || (!self.full && out > self.max_out) {
                    self.full = e.limited;
                    self.max_out = out;
                    self.until = e.snd_nxt;
                }
            }
        }
    }

    /// Whether congestion control may grow `w` on this ACK (when [`CwndUse::full`] is not
    /// set: `"linux"`'s slow start below twice the most segments in flight).
    #[inline]
    pub(crate) fn allows(&self, w: &Window) -> bool {
        self.full
            || (self.mode == CwndGrowth::Linux
                && w.in_slow_start()
                && w.cwnd < 2 * self.max_out as u64 * w.mss as u64)
    }

    /// Congestion control grew the window on the last finding.
    #[inline]
    pub(crate) fn used(&mut self) {
        if self.mode == CwndGrowth::CwndLimited {
            self.full = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::window;

    fn end(limited: bool, sent: bool, out: u64, una: u64, nxt: u64) -> SendEnd {
        SendEnd {
            limited,
            paced: false,
            sent,
            segments_out: out,
            snd_una: una,
            snd_nxt: nxt,
        }
    }

    #[test]
    fn always_grows_whatever_the_sends_found() {
        let mut u = CwndUse::new(CwndGrowth::Always);
        u.after_send(end(false, true, 3, 0, 3000));
        u.used();
        assert!(u.allows(&window(40, 20)) && !u.tracks());
    }

    #[test]
    fn cwnd_limited_grows_once_per_full_send() {
        let mut u = CwndUse::new(CwndGrowth::CwndLimited);
        let w = window(10, 100);
        u.after_send(end(true, true, 10, 0, 10_000));
        assert!(u.allows(&w));
        u.used();
        assert!(!u.allows(&w), "the growth used the finding up");
        u.after_send(end(false, true, 9, 1000, 10_000));
        assert!(!u.allows(&w));
        // The pacer cut a send short with room in cwnd: the finding stays.
        u.after_send(end(true, true, 11, 1000, 12_000));
        u.after_send(SendEnd {
            paced: true,
            ..end(false, true, 10, 2000, 12_000)
        });
        assert!(u.allows(&w));
    }

    /// Linux's tcp_cwnd_validate, step by step: a window in which cwnd limited a send stays
    /// limited until its data is acknowledged; after that the next send's finding counts.
    #[test]
    fn linux_keeps_a_limited_finding_for_the_window() {
        let mut u = CwndUse::new(CwndGrowth::Linux);
        let ca = window(20, 10); // congestion avoidance: no slow-start clause
        u.after_send(end(true, true, 20, 0, 20_000));
        assert!(u.allows(&ca));
        u.used();
        // The receive window holds later sends below cwnd, inside the window: still limited.
        u.after_send(end(false, true, 18, 5_000, 23_000));
        assert!(u.allows(&ca));
        // Once snd_una passes 20,000 the next send's finding replaces it.
        u.after_send(end(false, true, 18, 20_000, 38_000));
        assert!(!u.allows(&ca));
        // A send that neither sent nor hit cwnd is not a finding.
        u.after_send(end(false, false, 0, 40_000, 40_000));
        assert_eq!((u.max_out, u.until), (18, 38_000));
    }

    /// Slow start grows while cwnd is below twice the most segments in flight in the window,
    /// limited or not: 18 out lets cwnd grow to 36 segments, not to 37.
    #[test]
    fn linux_slow_start_grows_to_twice_the_most_in_flight() {
        let mut u = CwndUse::new(CwndGrowth::Linux);
        u.after_send(end(false, true, 18, 0, 18_000));
        assert!(u.allows(&window(35, 1000)));
        assert!(!u.allows(&window(36, 1000)));
        assert!(!u.allows(&window(30, 20)), "only in slow start");
        // A larger flight inside the same window raises the most.
        u.after_send(end(false, true, 20, 1_000, 21_000));
        assert!(u.allows(&window(39, 1000)) && !u.allows(&window(40, 1000)));
    }
}

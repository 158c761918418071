//! HyStart++ (RFC 9406), the IETF's way of leaving slow start before the first loss, which
//! RFC 9438 §4.10 recommends for CUBIC (`tcp.hystart = "rfc9406"`). Each round of slow
//! start (the ACKs up to the data outstanding when the round began) keeps the least RTT
//! sample it saw. Once a round has 8 samples and its least exceeds the previous round's by
//! clamp(that / 8, 4 ms, 16 ms), slow start turns into Conservative Slow Start (CSS): the
//! window grows at a quarter of slow start's rate. If a later round's least RTT falls below
//! the one that started CSS, the rise was a fluke and slow start resumes; after 5 rounds of
//! CSS, ssthresh is set to cwnd and congestion avoidance begins. A loss in slow start or in
//! CSS ends both as usual. As the RFC recommends, only the connection's first slow start
//! uses it: after a reduction or a timeout, slow start is RFC 5681's.
//!
//! The RFC also caps each ACK's growth at L = 8 SMSS (unpaced); here a slow-start ACK grows
//! the window as `tcp.byte_counting` says, which is tighter unless that is "full".

use super::Window;
use crate::sim::Time;
use crate::tcp::config::CwndUnit;

const MS: Time = 1_000_000;
/// RTT samples a round needs before its least is compared (N_RTT_SAMPLE).
const N_RTT_SAMPLE: u32 = 8;
/// The rise that counts is the previous round's least RTT / 8 (MIN_RTT_DIVISOR) …
const MIN_RTT_DIVISOR: Time = 8;
/// … at least 4 ms (MIN_RTT_THRESH) …
const MIN_RTT_THRESH: Time = 4 * MS;
/// … and at most 16 ms (MAX_RTT_THRESH).
const MAX_RTT_THRESH: Time = 16 * MS;
/// CSS grows the window at slow start's rate / 4 (CSS_GROWTH_DIVISOR).
const CSS_GROWTH_DIVISOR: u64 = 4;
/// Rounds of CSS before congestion avoidance (CSS_ROUNDS).
const CSS_ROUNDS: u8 = 5;

/// HyStart++'s state for one connection.
#[derive(Clone, Debug)]
pub struct PlusPlus {
    /// Bytes of the round not yet acknowledged (the round ends when an ACK covers more).
    left: u64,
    /// The least RTT sample of the previous round (`Time::MAX`: none).
    last_round_min: Time,
    /// The least RTT sample of this round so far (`Time::MAX`: none).
    round_min: Time,
    /// RTT samples this round.
    samples: u32,
    /// In CSS: the least RTT of the round that began it (`Time::MAX`: not in CSS).
    css_baseline: Time,
    /// Rounds begun in CSS.
    css_rounds: u8,
    /// Slow-start growth not yet added in CSS (bytes × CSS_GROWTH_DIVISOR owed).
    owed: u64,
    /// After the first slow start: standard slow start from then on.
    done: bool,
}

impl Default for PlusPlus {
    fn default() -> Self {
        PlusPlus {
            left: 0,
            last_round_min: Time::MAX,
            round_min: Time::MAX,
            samples: 0,
            css_baseline: Time::MAX,
            css_rounds: 0,
            owed: 0,
            done: false,
        }
    }
}

impl PlusPlus {
    /// True in Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.css_baseline != Time::MAX
    }

    /// True once the first slow start is over (HyStart++ no longer looks).
    pub fn done(&self) -> bool {
        self.done
    }

    /// A slow-start ACK of `acked` new bytes with `flight` bytes out before it and its RTT
    /// sample, if any, before the window grows. Returns true when CSS's rounds have run out:
    /// slow start ends (the caller sets ssthresh).
    pub fn on_ack(&mut self, acked: u64, flight: u64, rtt: Option<Time>) -> bool {
        if self.done {
            return false;
        }
        if acked > self.left {
            // A new round: it runs to the last byte sent so far.
            self.left = flight.saturating_sub(acked);
            self.last_round_min = self.round_min;
            self.round_min = Time::MAX;
            self.samples = 0;
            if self.in_css() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    self.done = true;
                    return true;
                }
            }
        } else {
            self.left -= acked;
        }
        if let Some(rtt) = rtt {
            self.round_min = self.round_min.min(rtt);
            self.samples += 1;
        }
        if self.samples < N_RTT_SAMPLE
            || self.round_min == Time::MAX
            || self.last_round_min == Time::MAX
        {
            return false;
        }
        if !self.in_css() {
            let thresh =
                (self.last_round_min / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
            if self.round_min >= self.last_round_min.saturating_add(thresh) {
                self.css_baseline = self.round_min;
                self.css_rounds = 0;
            }
        } else if self.round_min < self.css_baseline {
            self.css_baseline = Time::MAX;
        }
        false
    }

    /// After slow start grew `w` from `before` bytes on one ACK: in CSS, keep a quarter of
    /// that growth (the rest is owed, so a quarter of the sum is always added).
    pub fn grow(&mut self, w: &mut Window, before: u64) {
        if !self.in_css() || w.cwnd <= before {
            return;
        }
        self.owed += w.cwnd - before;
        let step = match w.unit {
            CwndUnit::Bytes => 1,
            CwndUnit::Packets => w.mss as u64,
        };
        let add = self.owed / (CSS_GROWTH_DIVISOR * step) * step;
        self.owed -= add * CSS_GROWTH_DIVISOR;
        w.cwnd = before + add;
    }

    /// The first slow start is over (a reduction or a timeout): standard slow start from now.
    pub fn end(&mut self) {
        self.done = true;
        self.css_baseline = Time::MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::window;
    use super::*;

    /// Rounds of `n` ACKs of one segment each, every one with RTT `rtt_ms`; the round's data
    /// is `n` segments. Returns whether CSS's rounds ran out during them.
    fn rounds(p: &mut PlusPlus, rtts_ms: &[f64], n: u64) -> bool {
        let mut ended = false;
        for &ms in rtts_ms {
            let rtt = Some((ms * MS as f64) as Time);
            // The round's first ACK covers what was left of the last one and a segment, with
            // the round's other n - 1 segments out beyond it.
            let first = p.left + 1000;
            ended |= p.on_ack(first, first + (n - 1) * 1000, rtt);
            for _ in 1..n {
                ended |= p.on_ack(1000, 0, rtt);
            }
        }
        ended
    }

    /// Minimum RTT 40 ms: the threshold is clamp(40 / 8 = 5 ms, 4, 16). A round at 44.9 ms
    /// stays in slow start; one at 45 ms enters CSS.
    #[test]
    fn a_round_whose_least_rtt_rises_by_the_threshold_enters_css() {
        let mut p = PlusPlus::default();
        rounds(&mut p, &[40.0, 44.9], 10);
        assert!(!p.in_css());
        rounds(&mut p, &[45.0], 10);
        assert!(!p.in_css(), "44.9 -> 45.0 is no rise of 4 ms");
        let mut p = PlusPlus::default();
        rounds(&mut p, &[40.0, 45.0], 10);
        assert!(p.in_css());
        // Short and long paths: the threshold is at least 4 ms and at most 16.
        let mut p = PlusPlus::default();
        rounds(&mut p, &[8.0, 11.9], 10);
        assert!(!p.in_css(), "8 ms: 1 ms by the /8, clamped to 4");
        let mut p = PlusPlus::default();
        rounds(&mut p, &[400.0, 415.9], 10);
        assert!(!p.in_css(), "400 ms: 50 ms by the /8, clamped to 16");
        rounds(&mut p, &[432.0], 10);
        assert!(p.in_css());
    }

    /// Fewer than 8 samples in a round: nothing is compared.
    #[test]
    fn a_round_of_seven_samples_is_not_compared() {
        let mut p = PlusPlus::default();
        rounds(&mut p, &[40.0, 60.0], 7);
        assert!(!p.in_css());
        rounds(&mut p, &[80.0], 8);
        assert!(
            p.in_css(),
            "60 was the last round's least; 80 rises by 20 > 7.5"
        );
    }

    /// A CSS round whose least RTT falls below the baseline resumes slow start; five rounds
    /// of CSS end slow start, after which HyStart++ no longer looks.
    #[test]
    fn css_resumes_slow_start_or_ends_it_after_five_rounds() {
        let mut p = PlusPlus::default();
        rounds(&mut p, &[40.0, 50.0], 10);
        assert!(p.in_css());
        assert!(!rounds(&mut p, &[49.0], 10));
        assert!(!p.in_css(), "49 < 50: back to slow start");
        rounds(&mut p, &[60.0], 10);
        assert!(p.in_css());
        // The rounds that begin in CSS: the fifth ends it.
        assert!(!rounds(&mut p, &[60.0, 61.0, 62.0, 63.0], 10));
        assert!(rounds(&mut p, &[64.0], 10));
        assert!(p.done());
        assert!(
            !rounds(&mut p, &[40.0, 90.0, 90.0], 10),
            "done: no more CSS"
        );
    }

    /// In CSS a quarter of slow start's growth is kept: one MSS per ACK becomes one MSS per
    /// four ACKs (counting bytes, 250 bytes each; counting packets, a whole segment every
    /// fourth).
    #[test]
    fn css_grows_at_a_quarter_of_slow_starts_rate() {
        for packets in [false, true] {
            let mut p = PlusPlus::default();
            rounds(&mut p, &[40.0, 50.0], 10);
            let mut w = window(20, 1000);
            if packets {
                w.unit = CwndUnit::Packets;
            }
            let mut seen = vec![];
            for _ in 0..8 {
                let before = w.cwnd;
                w.slow_start(1000);
                p.grow(&mut w, before);
                seen.push(w.cwnd);
            }
            let want: Vec<u64> = if packets {
                vec![
                    20_000, 20_000, 20_000, 21_000, 21_000, 21_000, 21_000, 22_000,
                ]
            } else {
                (1..=8).map(|i| 20_000 + 250 * i).collect()
            };
            assert_eq!(seen, want, "packets {packets}");
        }
        // Outside CSS slow start is untouched.
        let mut p = PlusPlus::default();
        let mut w = window(20, 1000);
        let before = w.cwnd;
        w.slow_start(1000);
        p.grow(&mut w, before);
        assert_eq!(w.cwnd, 21_000);
    }
}

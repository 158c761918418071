//! HyStart (Ha and Rhee, "Taming the Elephants: New TCP Slow Start", 2008): CUBIC's way of
//! leaving slow start before the first loss. Once cwnd reaches 16 segments, each round of
//! slow start (the ACKs up to the data outstanding when the round began) is watched two ways:
//!
//! - **ACK train**: ACKs that arrive at most 2 ms apart, from the round's first on, stretch
//!   beyond a part of the minimum RTT: the round's data has filled the path.
//! - **Delay**: the smallest of the round's first 8 RTT samples exceeds the minimum RTT by a
//!   threshold: a queue is building.
//!
//! Either sets ssthresh to cwnd, so the window continues by congestion avoidance. Two sets of
//! constants, which tools disagree on:
//!
//! | | train | delay threshold | samples ignored after a reduction |
//! |---|---|---|---|
//! | `linux` (Linux's `tcp_cubic`, 2.6.29 to 5.x) | min RTT / 2 | clamp(min RTT / 8, 4 ms, 16 ms) | 1 s |
//! | `ns3` (ns-3's `TcpCubic`) | min RTT | clamp(min RTT, 4 ms, 1 s) | 10 ms |
//!
//! The minimum RTT here is HyStart's own: the least RTT sample of an ACK of new data outside
//! loss recovery since the connection began or the last timeout, which also clears a
//! detection (Linux's and ns-3's `CA_LOSS`). Linux and ns-3 take samples in recovery too;
//! those waited behind the lost segment, so they are not the least, and leaving them out
//! keeps HyStart off the path every other algorithm's ACKs take. Linux keeps time in
//! milliseconds (jiffies) there; transim keeps its exact time.
//!
//! `rfc9406` is HyStart++ ([`super::hystart_pp`]): it keeps its own rounds and samples, and
//! shares only the record of the exit with these.

use super::hystart_pp::PlusPlus;
use super::{AckInfo, Window};
use crate::sim::Time;

const MS: Time = 1_000_000;

/// Which HyStart a CUBIC flow uses (`tcp.hystart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HyStartMode {
    /// None: RFC 5681's slow start, which ends at ssthresh or at a loss.
    #[default]
    Off,
    /// Linux's constants (2.6.29 to 5.x).
    Linux,
    /// ns-3's `TcpCubic` constants (its default).
    Ns3,
    /// HyStart++ (RFC 9406; [`super::hystart_pp`]).
    Rfc9406,
}

impl HyStartMode {
    /// Scenario names.
    pub const NAMES: &'static [(&'static str, HyStartMode)] = &[
        ("off", HyStartMode::Off),
        ("linux", HyStartMode::Linux),
        ("ns3", HyStartMode::Ns3),
        ("rfc9406", HyStartMode::Rfc9406),
    ];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }
}

/// The constants of one HyStart.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Constants {
    /// The train is found once it lasts longer than min RTT × this.
    train_of_min: f64,
    /// The delay threshold is min RTT × this, clamped to [`Self::delay_lo`, `Self::delay_hi`].
    delay_of_min: f64,
    delay_lo: Time,
    delay_hi: Time,
    /// RTT samples this soon after an avoidance epoch began are ignored.
    quiet_after_epoch: Time,
}

/// Below this cwnd (segments) HyStart does not look.
const LOW_WINDOW: u64 = 16;
/// ACKs at most this far apart continue a train.
const ACK_DELTA: Time = 2 * MS;
/// RTT samples a round takes before its delay is compared.
const MIN_SAMPLES: u8 = 8;

/// Which detection ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detection {
    /// The ACK train stretched past its share of the minimum RTT.
    Train,
    /// The round's RTT rose above the minimum by the threshold.
    Delay,
    /// HyStart++: the rounds of Conservative Slow Start ran out.
    Css,
}

impl Detection {
    /// The name results use.
    pub fn name(self) -> &'static str {
        match self {
            Detection::Train => "train",
            Detection::Delay => "delay",
            Detection::Css => "css",
        }
    }
}

/// When HyStart first ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exit {
    /// The time.
    pub at: Time,
    /// cwnd then (bytes), which became ssthresh.
    pub cwnd: u64,
    /// Which detection it was.
    pub by: Detection,
}

/// HyStart's state for one connection.
#[derive(Clone, Debug)]
pub struct HyStart {
    mode: HyStartMode,
    k: Constants,
    /// HyStart++'s own state (with [`HyStartMode::Rfc9406`], which uses nothing else here
    /// but the exit's record).
    pp: Option<PlusPlus>,
    /// The first exit (kept through timeouts).
    first_exit: Option<Exit>,
    /// A detection ended slow start (cleared by a timeout).
    found: bool,
    round_start: Time,
    last_ack: Time,
    /// Bytes of the round not yet acknowledged: the round ends when an ACK covers more (its
    /// cumulative ACK passes what had been sent when it began).
    left: u64,
    /// The least RTT sample of the round's first [`MIN_SAMPLES`].
    curr_rtt: Time,
    samples: u8,
    /// The least RTT sample since the start or the last timeout (`Time::MAX`: none yet).
    delay_min: Time,
}

impl HyStart {
    /// HyStart with `mode`'s constants, or `None` for [`HyStartMode::Off`].
    pub fn new(mode: HyStartMode) -> Option<Self> {
        let k = match mode {
            HyStartMode::Off => return None,
            HyStartMode::Linux | HyStartMode::Rfc9406 => Constants {
                train_of_min: 0.5,
                delay_of_min: 0.125,
                delay_lo: 4 * MS,
                delay_hi: 16 * MS,
                quiet_after_epoch: 1000 * MS,
            },
            HyStartMode::Ns3 => Constants {
                train_of_min: 1.0,
                delay_of_min: 1.0,
                delay_lo: 4 * MS,
                delay_hi: 1000 * MS,
                quiet_after_epoch: 10 * MS,
            },
        };
        Some(HyStart {
            mode,
            k,
            pp: (mode == HyStartMode::Rfc9406).then(PlusPlus::default),
            first_exit: None,
            found: false,
            round_start: 0,
            last_ack: 0,
            left: 0,
            curr_rtt: Time::MAX,
            samples: 0,
            delay_min: Time::MAX,
        })
    }

    /// Which constants these are.
    pub fn mode(&self) -> HyStartMode {
        self.mode
    }

    /// An ACK of new data, before the window grows; `since_epoch` is the time since
    /// congestion avoidance's epoch began, if one runs. HyStart takes the ACK's RTT sample
    /// ([`HyStart::on_sample`]); HyStart++ looks at slow-start ACKs only, and when
    /// Conservative Slow Start's rounds run out, ssthresh becomes cwnd.
    #[inline(never)]
    pub fn on_ack(&mut self, w: &mut Window, a: &AckInfo, since_epoch: Option<Time>) {
        let Some(pp) = &mut self.pp else {
            if let Some(rtt) = a.rtt {
                self.on_sample(w, a.now, rtt, since_epoch);
            }
            return;
        };
        if w.in_slow_start() && pp.on_ack(a.acked, a.flight, a.rtt) {
            self.found = true;
            w.ssthresh = w.cwnd;
            self.first_exit.get_or_insert(Exit {
                at: a.now,
                cwnd: w.cwnd,
                by: Detection::Css,
            });
        }
    }

    /// After slow start grew `w` from `before` bytes on ACK `a`: HyStart counts the ACK
    /// towards its round ([`HyStart::on_slow_start_ack`]); HyStart++ keeps a quarter of the
    /// growth in Conservative Slow Start.
    pub fn after_slow_start_growth(&mut self, w: &mut Window, a: &AckInfo, before: u64) {
        match &mut self.pp {
            Some(pp) => pp.grow(w, before),
            None => self.on_slow_start_ack(a.now, a.acked, a.flight),
        }
    }

    /// A reduction (a loss or ECN): HyStart++ leaves the later slow starts to RFC 5681.
    pub fn on_reduction(&mut self) {
        if let Some(pp) = &mut self.pp {
            pp.end();
        }
    }

    /// True once a detection has ended slow start (until a timeout).
    pub fn found(&self) -> bool {
        self.found
    }

    /// When HyStart first ended slow start, if it has.
    pub fn first_exit(&self) -> Option<Exit> {
        self.first_exit
    }

    /// A slow-start ACK of `acked` new bytes, with `flight` bytes out before it, before the
    /// window grows: once it passes the end of the round, a new round begins and runs to
    /// the last byte sent so far (`flight − acked` bytes beyond this ACK).
    #[inline(never)]
    pub fn on_slow_start_ack(&mut self, now: Time, acked: u64, flight: u64) {
        if acked > self.left {
            self.round_start = now;
            self.last_ack = now;
            self.left = flight.saturating_sub(acked);
            self.curr_rtt = Time::MAX;
            self.samples = 0;
        } else {
            self.left -= acked;
        }
    }

    /// An ACK of new data outside recovery with an RTT sample, before the window grows;
    /// `since_epoch` is the time since congestion avoidance's epoch began, if one runs. In
    /// slow start from 16 segments on, a detection sets ssthresh to cwnd.
    #[inline(never)]
    pub fn on_sample(&mut self, w: &mut Window, now: Time, rtt: Time, since_epoch: Option<Time>) {
        if since_epoch.is_some_and(|t| t < self.k.quiet_after_epoch) {
            return;
        }
        self.delay_min = self.delay_min.min(rtt);
        if self.found || !w.in_slow_start() || w.segments() < LOW_WINDOW {
            return;
        }
        let mut by = None;
        if now - self.last_ack <= ACK_DELTA {
            self.last_ack = now;
            if (now - self.round_start) as f64 > self.delay_min as f64 * self.k.train_of_min {
                by = Some(Detection::Train);
            }
        }
        if self.samples < MIN_SAMPLES {
            self.curr_rtt = self.curr_rtt.min(rtt);
            self.samples += 1;
        } else if self.curr_rtt > self.delay_min + self.delay_threshold() {
            by = by.or(Some(Detection::Delay));
        }
        if let Some(by) = by {
            self.found = true;
            w.ssthresh = w.cwnd;
            self.first_exit.get_or_insert(Exit {
                at: now,
                cwnd: w.cwnd,
                by,
            });
        }
    }

    /// How far above the minimum RTT the round's delay must be.
    fn delay_threshold(&self) -> Time {
        ((self.delay_min as f64 * self.k.delay_of_min) as Time)
            .clamp(self.k.delay_lo, self.k.delay_hi)
    }

    /// A retransmission timeout: the detection and the minimum RTT are forgotten, and the
    /// next slow-start ACK begins a new round (Linux and ns-3 begin it at the timeout; the
    /// first ACK after it comes one RTT later, before cwnd can reach 16 segments again).
    pub fn on_timeout(&mut self) {
        self.on_reduction();
        self.found = false;
        self.delay_min = Time::MAX;
        self.left = 0;
        self.curr_rtt = Time::MAX;
        self.samples = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::window;
    use super::*;

    /// A round of slow start at cwnd 20 (≥ 16) with the minimum RTT 40 ms: ACKs 2.4 ms apart
    /// (no train) whose RTT is `rtt_ms`. Returns the index of the ACK that ended slow start.
    fn delay_round(mode: HyStartMode, rtt_ms: f64) -> Option<usize> {
        let mut h = HyStart::new(mode).unwrap();
        let mut w = window(20, 1000);
        // The minimum: one sample of 40 ms during the previous round.
        h.on_sample(&mut w, 0, 40 * MS, None);
        let t0 = 100 * MS;
        h.on_slow_start_ack(t0, 1000, 30_000);
        for i in 0..20 {
            let now = t0 + (i as f64 * 2.4 * MS as f64) as Time;
            h.on_sample(&mut w, now, (rtt_ms * MS as f64) as Time, None);
            if h.found() {
                assert_eq!(w.ssthresh, w.cwnd, "a detection ends slow start at cwnd");
                let exit = Exit {
                    at: now,
                    cwnd: w.cwnd,
                    by: Detection::Delay,
                };
                assert_eq!(h.first_exit(), Some(exit));
                return Some(i);
            }
        }
        assert_eq!(w.ssthresh, 1_000_000);
        None
    }

    /// Linux: threshold clamp(40/8 = 5 ms, 4, 16) → a round at 45 ms stays, 45.1 ms ends it
    /// on its ninth sample (the first 8 are only collected). ns-3: clamp(40 ms, 4 ms, 1 s)
    /// → 80 ms.
    #[test]
    fn the_delay_threshold_follows_each_tools_constants() {
        assert_eq!(delay_round(HyStartMode::Linux, 45.0), None);
        assert_eq!(delay_round(HyStartMode::Linux, 45.1), Some(8));
        assert_eq!(delay_round(HyStartMode::Ns3, 79.9), None);
        assert_eq!(delay_round(HyStartMode::Ns3, 80.1), Some(8));
        // Short paths: Linux's threshold is at least 4 ms (min RTT 8 ms → 1 ms by the /8).
        let mut h = HyStart::new(HyStartMode::Linux).unwrap();
        h.delay_min = 8 * MS;
        assert_eq!(h.delay_threshold(), 4 * MS);
        h.delay_min = 400 * MS;
        assert_eq!(h.delay_threshold(), 16 * MS, "and at most 16 ms");
    }

    /// ACKs 1 ms apart from the round's start: the train is found on the first ACK more than
    /// min RTT / 2 (Linux) or min RTT (ns-3) after it; RTT samples stay at the minimum.
    #[test]
    fn an_ack_train_longer_than_its_share_of_the_rtt_ends_slow_start() {
        for (mode, expect_ms) in [(HyStartMode::Linux, 21), (HyStartMode::Ns3, 41)] {
            let mut h = HyStart::new(mode).unwrap();
            let mut w = window(32, 1000);
            h.on_sample(&mut w, 0, 40 * MS, None);
            let t0 = 100 * MS;
            h.on_slow_start_ack(t0, 1000, 50_000);
            let mut at = None;
            for ms in 1..60 {
                h.on_sample(&mut w, t0 + ms * MS, 40 * MS, None);
                if h.found() {
                    at = Some(ms);
                    break;
                }
            }
            assert_eq!(at, Some(expect_ms), "{mode:?}");
            assert_eq!(h.first_exit().unwrap().by, Detection::Train);
        }
    }

    /// ACKs more than 2 ms apart never make a train; below 16 segments nothing is looked at;
    /// a new round restarts the samples; a timeout clears a detection.
    #[test]
    fn gaps_small_windows_rounds_and_timeouts() {
        let mut h = HyStart::new(HyStartMode::Linux).unwrap();
        let mut w = window(32, 1000);
        h.on_sample(&mut w, 0, 40 * MS, None);
        h.on_slow_start_ack(100 * MS, 1000, 50_000);
        for i in 1..60 {
            h.on_sample(&mut w, 100 * MS + i * 3 * MS, 40 * MS, None);
        }
        assert!(!h.found(), "3-ms gaps are no train");

        let mut small = window(15, 1000);
        let mut h = HyStart::new(HyStartMode::Linux).unwrap();
        h.on_sample(&mut small, 0, 40 * MS, None);
        h.on_slow_start_ack(100 * MS, 1000, 50_000);
        for i in 0..20 {
            h.on_sample(&mut small, 100 * MS + i * 3 * MS, 90 * MS, None);
        }
        assert!(!h.found(), "15 segments: below the low window");

        // Eight high samples, then a new round: its first eight are collected afresh.
        let mut h = HyStart::new(HyStartMode::Linux).unwrap();
        h.on_sample(&mut w, 0, 40 * MS, None);
        h.on_slow_start_ack(100 * MS, 1000, 50_000);
        for i in 0..8 {
            h.on_sample(&mut w, 100 * MS + i * 3 * MS, 60 * MS, None);
        }
        // Up to the round's end (49,000 bytes beyond its first ACK) the round goes on.
        h.on_slow_start_ack(150 * MS, 49_000, 60_000);
        assert_eq!((h.round_start, h.samples), (100 * MS, 8));
        h.on_slow_start_ack(200 * MS, 1000, 90_000);
        h.on_sample(&mut w, 203 * MS, 60 * MS, None);
        assert!(!h.found(), "the new round's first sample is only collected");
        assert_eq!(h.samples, 1);

        for i in 1..9 {
            h.on_sample(&mut w, 203 * MS + i * 3 * MS, 60 * MS, None);
        }
        assert!(h.found());
        let exit = h.first_exit().unwrap();
        h.on_timeout();
        assert!(!h.found() && h.delay_min == Time::MAX);
        assert_eq!(h.first_exit(), Some(exit), "the first exit is kept");
        h.on_slow_start_ack(500 * MS, 1000, 120_000);
        assert_eq!(
            (h.round_start, h.left),
            (500 * MS, 119_000),
            "the next ACK starts a round"
        );
    }

    /// Samples soon after an avoidance epoch began do not lower the minimum: 1 s for Linux,
    /// 10 ms for ns-3.
    #[test]
    fn samples_right_after_a_reduction_are_ignored() {
        for (mode, quiet) in [(HyStartMode::Linux, 1000 * MS), (HyStartMode::Ns3, 10 * MS)] {
            let mut h = HyStart::new(mode).unwrap();
            let mut w = window(20, 10);
            h.on_sample(&mut w, 0, 40 * MS, None);
            h.on_sample(&mut w, MS, 30 * MS, Some(quiet - 1));
            assert_eq!(h.delay_min, 40 * MS, "{mode:?}");
            h.on_sample(&mut w, MS, 30 * MS, Some(quiet));
            assert_eq!(h.delay_min, 30 * MS, "{mode:?}");
        }
        assert!(HyStart::new(HyStartMode::Off).is_none());
    }
}

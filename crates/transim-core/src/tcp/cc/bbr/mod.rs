//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, ACM Queue 14(5) 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00; Linux `tcp_bbr.c` where the draft is
//! silent).
//!
//! BBR keeps a model of the path — the bottleneck bandwidth BtlBw (the maximum delivery rate
//! of the last 10 round trips) and the propagation delay RTprop (the minimum RTT of the last
//! 10 s) — and paces at `pacing_gain · BtlBw` with at most `cwnd_gain · BtlBw · RTprop` (plus
//! a small quantisation budget) in flight. Its modes:
//! - **Startup**: gains 2/ln 2 ≈ 2.885, until BtlBw grows by less than 25 % in three
//!   consecutive rounds ("the pipe is full");
//! - **Drain**: pacing gain 1/2.885 until the data in flight falls to one BDP;
//! - **ProbeBW**: pacing gain cycling 5/4, 3/4, 1, 1, 1, 1, 1, 1, one phase per RTprop,
//!   starting at a random phase other than 3/4;
//! - **ProbeRTT**: when RTprop has not fallen for 10 s, cwnd 4 segments for 200 ms and one
//!   round, then back.
//!
//! Loss does not reduce the model. In loss recovery BBR applies packet conservation for the
//! first round (cwnd = data in flight + data delivered), and restores the pre-loss cwnd when
//! recovery ends; after a timeout the sender's cwnd of one segment grows by the data
//! delivered, up to the target. As in Linux, a new RTT sample replaces RTprop only when it is
//! strictly lower (or the old one expired), so a path whose RTT never falls below the
//! estimate probes every 10 s.
//!
//! Deliberate simplifications: no idle-restart logic for applications that pause; the
//! ProbeBW loss test uses "a loss was detected since the last ACK"; the switch at one phase
//! of the cycle to the next happens on an ACK, not a timer.

pub(super) mod filter;

use super::{AckInfo, CongestionControl, HandOver, PathModel, Window};
use crate::sim::rng::Rng;
use crate::sim::{Time, MILLISECOND, SECOND};
use filter::RoundMax;

/// Startup's gain, 2/ln 2: the smallest that doubles the delivery rate each round.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_926_8;
/// Drain's pacing gain.
pub const DRAIN_GAIN: f64 = 1.0 / HIGH_GAIN;
/// cwnd gain in ProbeBW.
pub const CWND_GAIN: f64 = 2.0;
/// ProbeBW's pacing-gain cycle.
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Rounds the bandwidth filter spans.
pub const BW_WINDOW_ROUNDS: usize = 10;
/// How long an RTprop estimate lasts without being lowered.
pub const MIN_RTT_WINDOW: Time = 10 * SECOND;
/// Time spent at the minimum cwnd in ProbeRTT.
pub const PROBE_RTT_DURATION: Time = 200 * MILLISECOND;
/// The smallest cwnd, in segments (also ProbeRTT's cwnd).
pub const MIN_PIPE_SEGMENTS: u64 = 4;
/// BtlBw must grow by this factor within [`FULL_BW_ROUNDS`] rounds to stay in Startup.
pub const FULL_BW_GROWTH: f64 = 1.25;
/// Rounds without enough growth that end Startup.
pub const FULL_BW_ROUNDS: u32 = 3;

/// BBR's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exponential search for the bottleneck rate.
    Startup,
    /// Drain the queue Startup built.
    Drain,
    /// Cruise at BtlBw, probing up and draining once per cycle.
    ProbeBw,
    /// Drain the pipe briefly to measure the propagation delay.
    ProbeRtt,
}

impl Mode {
    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

/// BBR's state.
#[derive(Clone, Debug)]
pub struct Bbr {
    /// Current mode.
    pub mode: Mode,
    bw: RoundMax<BW_WINDOW_ROUNDS>,
    /// BtlBw: payload bytes per second (0 before the first valid sample).
    pub btl_bw: f64,
    /// RTprop (`Time::MAX` before the first sample).
    pub min_rtt: Time,
    min_rtt_stamp: Time,
    /// Current pacing gain.
    pub pacing_gain: f64,
    cwnd_gain: f64,
    /// Pacing rate in payload bytes per second (0 before the connection starts).
    pub pacing_rate: f64,
    /// Round trips counted so far.
    pub rounds: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// Startup has found the bottleneck's rate.
    pub filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,
    cycle_index: usize,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    packet_conservation: bool,
    prev_recovering: bool,
    after_timeout: bool,
    loss_seen: bool,
    initial_cwnd: u64,
    rng: Rng,
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr {
            mode: Mode::Startup,
            bw: RoundMax::default(),
            btl_bw: 0.0,
            min_rtt: Time::MAX,
            min_rtt_stamp: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: 0.0,
            rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            packet_conservation: false,
            prev_recovering: false,
            after_timeout: false,
            loss_seen: false,
            initial_cwnd: 0,
            rng: Rng::stream(0, "bbr"),
        }
    }
}

impl Bbr {
    /// Initialise from the connection (Linux `bbr_init`): Startup, RTprop from the smallest
    /// RTT seen, pacing at 2.885 · cwnd / SRTT (1 ms when no RTT is known).
    fn init(&mut self, w: &Window, h: &HandOver) {
        *self = Bbr {
            min_rtt: h.min_rtt,
            min_rtt_stamp: h.now,
            initial_cwnd: w.cwnd,
            rng: Rng::stream(h.seed, "bbr"),
            ..Bbr::default()
        };
        let srtt = if h.srtt > 0 { h.srtt } else { MILLISECOND };
        self.pacing_rate = HIGH_GAIN * w.cwnd as f64 * 1e9 / srtt as f64;
    }

    /// Bytes in flight that `gain` times the BDP allows, plus the quantisation budget of
    /// three send quanta (draft §4.2.3.2); the initial window while RTprop is unknown.
    fn inflight(&self, gain: f64, mss: u32) -> u64 {
        if self.min_rtt == Time::MAX || self.btl_bw == 0.0 {
            return self.initial_cwnd;
        }
        let bdp = self.btl_bw * self.min_rtt as f64 * 1e-9;
        (gain * bdp) as u64 + 3 * self.send_quantum(mss)
    }

    /// The draft's send quantum: one segment below 1.2 Mbps, two below 24 Mbps, else 1 ms
    /// of data up to 64 KB.
    fn send_quantum(&self, mss: u32) -> u64 {
        let mss = mss as u64;
        let rate_bps = self.pacing_rate * 8.0;
        if rate_bps < 1.2e6 {
            mss
        } else if rate_bps < 24e6 {
            2 * mss
        } else {
            ((self.pacing_rate * 1e-3) as u64).clamp(2 * mss, 65_536)
        }
    }

    fn save_cwnd(&mut self, cwnd: u64) {
        if !self.prev_recovering && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = CWND_GAIN;
        // A random start phase, never the draining 3/4 one: index 7 − U{0..6}, then advance.
        let r = (self.rng.next_u64() % 7) as usize;
        self.cycle_index = GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    fn is_next_cycle_phase(&self, a: &AckInfo, mss: u32) -> bool {
        let full_length = a.now.saturating_sub(self.cycle_stamp) > self.min_rtt;
        if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (self.loss_seen || a.flight >= self.inflight(self.pacing_gain, mss))
        } else {
            full_length || a.flight <= self.inflight(1.0, mss)
        }
    }

    /// Count round trips and feed the bandwidth filter (Linux skips invalid samples for
    /// both).
    fn update_bw(&mut self, a: &AckInfo) -> bool {
        self.round_start = false;
        let Some(rs) = a.sample else { return false };
        let Some(rate) = rs.rate() else { return false };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.delivered;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if !rs.app_limited || rate >= self.btl_bw {
            self.btl_bw = self.bw.update(self.rounds, rate);
        } else {
            self.btl_bw = self.bw.max(self.rounds);
        }
        rs.app_limited
    }

    fn check_full_pipe(&mut self, app_limited: bool) {
        if self.filled_pipe || !self.round_start || app_limited {
            return;
        }
        if self.btl_bw >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = self.btl_bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.filled_pipe = self.full_bw_count >= FULL_BW_ROUNDS;
    }

    fn check_drain(&mut self, a: &AckInfo, mss: u32) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = DRAIN_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain && a.pipe() <= self.inflight(1.0, mss) {
            self.enter_probe_bw(a.now);
        }
    }

    /// RTprop and ProbeRTT (Linux `bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, w: &mut Window, a: &AckInfo) {
        let expired = a.now > self.min_rtt_stamp.saturating_add(MIN_RTT_WINDOW);
        if let Some(rtt) = a.rtt {
            if rtt < self.min_rtt || expired {
                self.min_rtt = rtt;
                self.min_rtt_stamp = a.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        let floor = MIN_PIPE_SEGMENTS * w.mss as u64;
        match self.probe_rtt_done {
            None if a.pipe() <= floor => {
                self.probe_rtt_done = Some(a.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = a.delivered;
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && a.now >= done {
                    self.min_rtt_stamp = a.now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(a.now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
            None => {}
        }
    }

    fn set_pacing_rate(&mut self) {
        let rate = self.pacing_gain * self.btl_bw;
        if rate > 0.0 && (self.filled_pipe || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// cwnd (draft §4.2.3.4–6, Linux `bbr_set_cwnd`).
    fn set_cwnd(&mut self, w: &mut Window, a: &AckInfo) {
        let mss = w.mss as u64;
        let acked = a.sample.map_or(0, |s| s.newly_delivered);
        let mut cwnd = w.cwnd;
        if a.recovering && !self.prev_recovering {
            if !self.after_timeout {
                // First round of fast recovery: packet conservation.
                self.packet_conservation = true;
                self.next_round_delivered = a.delivered;
                // At least the segment being retransmitted (Linux counts it in flight;
                // after Tahoe's go-back-N our pipe is empty until it leaves).
                cwnd = (a.pipe() + acked).max(mss);
            }
        } else if !a.recovering && self.prev_recovering {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
            self.after_timeout = false;
        }
        self.prev_recovering = a.recovering;
        if self.packet_conservation {
            cwnd = cwnd.max(a.pipe() + acked).max(mss);
        } else if acked > 0 {
            let target = self.inflight(self.cwnd_gain, w.mss);
            if self.filled_pipe {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || a.delivered < self.initial_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(MIN_PIPE_SEGMENTS * mss);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(MIN_PIPE_SEGMENTS * mss);
        }
        w.cwnd = cwnd;
        w.clamp();
    }
}

impl CongestionControl for Bbr {
    fn observe(&mut self, w: &mut Window, a: &AckInfo) {
        let app_limited = self.update_bw(a);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(a, w.mss) {
            self.advance_cycle_phase(a.now);
        }
        self.check_full_pipe(app_limited);
        self.check_drain(a, w.mss);
        self.update_min_rtt(w, a);
        self.set_pacing_rate();
        self.set_cwnd(w, a);
        self.loss_seen = false;
    }

    fn on_ack(&mut self, _w: &mut Window, _a: &AckInfo) {}

    fn start(&mut self, w: &Window, h: &HandOver) {
        self.init(w, h);
    }

    fn hand_over(&mut self, w: &Window, h: &HandOver) {
        self.init(w, h);
    }

    fn owns_window(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        (self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }

    fn app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }

    fn reads_delivery(&self) -> bool {
        true
    }

    fn model(&self) -> Option<PathModel> {
        (self.btl_bw > 0.0).then_some(PathModel {
            bandwidth: self.btl_bw,
            min_rtt: self.min_rtt,
            state: self.mode.name(),
        })
    }

    /// Loss does not change BBR's model; the pre-loss cwnd is saved to be restored when
    /// recovery ends. ssthresh is left as it is.
    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        self.save_cwnd(w.cwnd);
        self.loss_seen = true;
        w.ssthresh
    }

    /// A timeout ends the round and restarts the full-pipe test's reference (Linux).
    fn on_timeout(&mut self, _w: &mut Window) {
        self.after_timeout = true;
        self.full_bw = 0.0;
        self.round_start = true;
        self.loss_seen = true;
    }
}

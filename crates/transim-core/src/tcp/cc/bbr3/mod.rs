//! BBR v3 (draft-ietf-ccwg-bbr-04, October 2025; Linux's `tcp_bbr.c` of the v3 branch where
//! the draft leaves a choice).
//!
//! Like BBR v1 ([`super::bbr`]) it paces at a gain times its bandwidth estimate and bounds the
//! data in flight by a gain times the estimated BDP. What v3 adds is a response to loss:
//! - **A long-term bound on the data in flight**, `inflight_longterm`: when a round in which
//!   the flow probed for bandwidth loses more than 2 % of what was in flight, the bound is set
//!   to the volume at which the loss rate crossed 2 % (at least 0.7 of the BDP), and grows
//!   again only while probing finds no such loss (by 1, 2, 4, … segments per round).
//! - **A short-term model** (`bw_shortterm`, `inflight_shortterm`): outside probing, each
//!   round with a loss cuts both to the larger of 0.7 times themselves and what the last
//!   round delivered. Probing starts by forgetting them.
//! - **Startup ends on loss** too: after a round of recovery that lost more than 2 % in at
//!   least six separate ranges.
//!
//! The states and their gains (pacing, cwnd):
//! - Startup (2.77, 2), until the bandwidth grows less than 25 % in three rounds, or on loss;
//! - Drain (0.35, 2), until the data in flight is at most one BDP;
//! - ProbeBW, a cycle: DOWN (0.9, 2) until in flight ≤ BDP and below the headroom bound;
//!   CRUISE (1.0, 2) until 2–3 s (random) or min(BDP in segments, 63) rounds after DOWN
//!   began; REFILL (1.0, 2) for one round; UP (1.25, 2.25) until the bandwidth stops
//!   growing or a loss rate above 2 %; then DOWN again. The bandwidth filter spans two of
//!   these cycles;
//! - ProbeRTT (1.0, 0.5) when the minimum RTT of the last 5 s is 5 s old: cwnd at half the
//!   BDP for 200 ms and a round.
//!
//! The pacing rate is 1 % below gain · bandwidth. cwnd adds the recent ACK aggregation
//! (`extra_acked`) to gain · BDP.
//!
//! Here a transmission counts as lost when the sender sends its data again (the per-loss
//! step runs then, with what that transmission's snapshot saw): the sender's recovery
//! variant decides, as Linux's loss marking does. A restart after the application left the
//! connection idle paces at the bandwidth estimate and skips ProbeRTT (§5.4). Not modelled:
//! ECN; "cwnd-limited in the round" is judged from the data in flight before each ACK
//! (within a segment of cwnd).

mod cycle;
mod loss;

use super::bbr::filter::RoundMax;
use super::{AckInfo, CongestionControl, HandOver, PathModel, Window};
use crate::sim::rng::Rng;
use crate::sim::{Time, MILLISECOND, SECOND};

/// Startup's pacing gain (4 ln 2 rounded as the draft and Linux do).
pub const STARTUP_PACING_GAIN: f64 = 2.77;
/// Drain's pacing gain.
pub const DRAIN_PACING_GAIN: f64 = 0.35;
/// cwnd gain everywhere but ProbeBW_UP and ProbeRTT.
pub const DEFAULT_CWND_GAIN: f64 = 2.0;
/// ProbeBW_DOWN's pacing gain.
pub const DOWN_PACING_GAIN: f64 = 0.9;
/// ProbeBW_UP's pacing gain.
pub const UP_PACING_GAIN: f64 = 1.25;
/// ProbeBW_UP's cwnd gain.
pub const UP_CWND_GAIN: f64 = 2.25;
/// ProbeRTT's cwnd gain.
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// The pacing rate's margin below gain · bandwidth.
pub const PACING_MARGIN: f64 = 0.01;
/// The loss rate per round above which the data in flight is too high.
pub const LOSS_THRESH: f64 = 0.02;
/// The multiplicative decrease of the loss responses.
pub const BETA: f64 = 0.7;
/// The share of `inflight_longterm` left free in ProbeBW_CRUISE and ProbeRTT.
pub const HEADROOM: f64 = 0.15;
/// The smallest cwnd, in segments.
pub const MIN_PIPE_SEGMENTS: u64 = 4;
/// BBR.max_bw must grow by this factor in a round to count as growing.
pub const FULL_BW_GROWTH: f64 = 1.25;
/// Rounds without growth that mean the pipe is full.
pub const FULL_BW_ROUNDS: u32 = 3;
/// Separate lost ranges in a round of recovery that can end Startup.
pub const STARTUP_FULL_LOSS_COUNT: u32 = 6;
/// Rounds the ACK-aggregation filter spans once the pipe is full.
pub const EXTRA_ACKED_ROUNDS: u64 = 10;
/// How long a minimum RTT lasts.
pub const MIN_RTT_FILTER_LEN: Time = 10 * SECOND;
/// How often ProbeRTT comes when the RTT never falls.
pub const PROBE_RTT_INTERVAL: Time = 5 * SECOND;
/// Time spent at ProbeRTT's cwnd.
pub const PROBE_RTT_DURATION: Time = 200 * MILLISECOND;
/// The Reno-coexistence bound on rounds between bandwidth probes.
pub const RENO_ROUNDS_BOUND: u64 = 63;

/// BBR v3's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Exponential search for the bottleneck rate.
    Startup,
    /// Drain the queue Startup built.
    Drain,
    /// Send below the estimated rate until the queue is gone.
    ProbeBwDown,
    /// Send at the estimated rate, leaving headroom.
    ProbeBwCruise,
    /// Refill the pipe for a round before probing.
    ProbeBwRefill,
    /// Probe for more bandwidth.
    ProbeBwUp,
    /// Drain the pipe to measure the propagation delay.
    ProbeRtt,
}

impl State {
    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            State::Startup => "startup",
            State::Drain => "drain",
            State::ProbeBwDown => "probe_bw_down",
            State::ProbeBwCruise => "probe_bw_cruise",
            State::ProbeBwRefill => "probe_bw_refill",
            State::ProbeBwUp => "probe_bw_up",
            State::ProbeRtt => "probe_rtt",
        }
    }

    /// (pacing gain, cwnd gain).
    pub fn gains(self) -> (f64, f64) {
        match self {
            State::Startup => (STARTUP_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::Drain => (DRAIN_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::ProbeBwDown => (DOWN_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::ProbeBwCruise | State::ProbeBwRefill => (1.0, DEFAULT_CWND_GAIN),
            State::ProbeBwUp => (UP_PACING_GAIN, UP_CWND_GAIN),
            State::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        }
    }

    /// One of the four ProbeBW states.
    pub fn probe_bw(self) -> bool {
        matches!(
            self,
            State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp
        )
    }
}

/// Where the ACKs stand relative to a bandwidth probe (for the bandwidth filter's clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
    Refilling,
}

/// One ACK's rate sample, as the draft's pseudocode reads it (`RS`).
#[derive(Clone, Copy, Debug, Default)]
struct Rs {
    has_data: bool,
    /// 0 when the interval was too short to be a rate.
    delivery_rate: f64,
    delivered: u64,
    prior_delivered: u64,
    newly_acked: u64,
    app_limited: bool,
    tx_in_flight: u64,
    lost: u64,
}

impl Rs {
    fn of(a: &AckInfo) -> Rs {
        a.sample.map_or(Rs::default(), |s| Rs {
            has_data: true,
            delivery_rate: s.rate().unwrap_or(0.0),
            delivered: s.delivered,
            prior_delivered: s.prior_delivered,
            newly_acked: s.newly_delivered,
            app_limited: s.app_limited,
            tx_in_flight: s.tx_in_flight,
            lost: s.lost,
        })
    }

    /// The draft's `IsInflightTooHigh`.
    fn inflight_too_high(&self) -> bool {
        self.lost as f64 > self.tx_in_flight as f64 * LOSS_THRESH
    }
}

/// The bandwidth filter: the largest sample of this ProbeBW cycle and the one before.
#[derive(Clone, Copy, Debug, Default)]
struct TwoCycleMax {
    prev: f64,
    cur: f64,
}

impl TwoCycleMax {
    fn update(&mut self, v: f64) {
        self.cur = self.cur.max(v);
    }

    fn max(&self) -> f64 {
        self.prev.max(self.cur)
    }

    /// A new cycle: a cycle without samples keeps the older one (Linux).
    fn advance(&mut self) {
        if self.cur > 0.0 {
            self.prev = self.cur;
            self.cur = 0.0;
        }
    }
}

/// BBR v3's state.
#[derive(Clone, Debug)]
pub struct Bbr3 {
    /// Current state.
    pub state: State,
    /// Pacing rate in payload bytes per second (0 before the connection starts).
    pub pacing_rate: f64,
    /// BBR.max_bw: payload bytes per second.
    pub max_bw: f64,
    /// BBR.bw = min(max_bw, bw_shortterm).
    pub bw: f64,
    /// BBR.min_rtt (`Time::MAX` before the first sample).
    pub min_rtt: Time,
    /// The long-term bound on the data in flight (`u64::MAX`: none).
    pub inflight_longterm: u64,
    /// The short-term bound on the data in flight (`u64::MAX`: none).
    pub inflight_shortterm: u64,
    /// The short-term bound on the bandwidth (infinite: none).
    pub bw_shortterm: f64,
    /// Packet-timed rounds so far.
    pub round_count: u64,
    /// Startup has ever found the pipe full.
    pub full_bw_reached: bool,
    max_bw_filter: TwoCycleMax,
    min_rtt_stamp: Time,
    probe_rtt_min_delay: Time,
    probe_rtt_min_stamp: Time,
    probe_rtt_expired: bool,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    next_round_delivered: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    // The short-term model's signals.
    bw_latest: f64,
    inflight_latest: u64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    // Startup's exit on loss.
    loss_ranges_in_round: u32,
    last_lost_end: u64,
    // ProbeBW.
    ack_phase: AckPhase,
    cycle_stamp: Time,
    bw_probe_wait: Time,
    rounds_since_bw_probe: u64,
    bw_probe_samples: bool,
    bw_probe_up_rounds: u32,
    bw_probe_up_acks: u64,
    probe_up_cnt: u64,
    cwnd_limited_in_round: bool,
    // ACK aggregation.
    extra_acked_filter: RoundMax<{ EXTRA_ACKED_ROUNDS as usize }>,
    extra_acked: u64,
    extra_acked_start: Time,
    extra_acked_delivered: u64,
    // cwnd across recovery and ProbeRTT.
    prior_cwnd: u64,
    /// Restarting after the application left the connection idle (until data is delivered).
    idle_restart: bool,
    /// Leaving ProbeRTT: restore the saved cwnd on this ACK.
    restore_cwnd_later: bool,
    prev_recovering: bool,
    initial_cwnd: u64,
    rng: Rng,
}

impl Default for Bbr3 {
    fn default() -> Self {
        Bbr3 {
            state: State::Startup,
            pacing_rate: 0.0,
            max_bw: 0.0,
            bw: 0.0,
            min_rtt: Time::MAX,
            inflight_longterm: u64::MAX,
            inflight_shortterm: u64::MAX,
            bw_shortterm: f64::INFINITY,
            round_count: 0,
            full_bw_reached: false,
            max_bw_filter: TwoCycleMax::default(),
            min_rtt_stamp: 0,
            probe_rtt_min_delay: Time::MAX,
            probe_rtt_min_stamp: 0,
            probe_rtt_expired: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            next_round_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            bw_latest: 0.0,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_ranges_in_round: 0,
            last_lost_end: u64::MAX,
            ack_phase: AckPhase::Init,
            cycle_stamp: 0,
            bw_probe_wait: 0,
            rounds_since_bw_probe: 0,
            bw_probe_samples: false,
            bw_probe_up_rounds: 0,
            bw_probe_up_acks: 0,
            probe_up_cnt: u64::MAX,
            cwnd_limited_in_round: false,
            extra_acked_filter: RoundMax::default(),
            extra_acked: 0,
            extra_acked_start: 0,
            extra_acked_delivered: 0,
            prior_cwnd: 0,
            idle_restart: false,
            restore_cwnd_later: false,
            prev_recovering: false,
            initial_cwnd: 0,
            rng: Rng::stream(0, "bbr3"),
        }
    }
}

impl Bbr3 {
    /// The draft's `BBROnInit`, from the connection: Startup, the minimum RTT seen, pacing at
    /// 2.77 · cwnd / SRTT (1 ms when no RTT is known).
    fn init(&mut self, w: &Window, h: &HandOver) {
        *self = Bbr3 {
            min_rtt: h.min_rtt,
            min_rtt_stamp: h.now,
            probe_rtt_min_delay: h.min_rtt,
            probe_rtt_min_stamp: h.now,
            extra_acked_start: h.now,
            initial_cwnd: w.cwnd,
            rng: Rng::stream(h.seed, "bbr3"),
            ..Bbr3::default()
        };
        let srtt = if h.srtt > 0 { h.srtt } else { MILLISECOND };
        self.pacing_rate = STARTUP_PACING_GAIN * w.cwnd as f64 * 1e9 / srtt as f64;
    }

    /// BBR.bdp: bw · min_rtt in bytes (0 before an RTT is known).
    fn bdp(&self) -> f64 {
        if self.min_rtt == Time::MAX {
            return 0.0;
        }
        self.bw * self.min_rtt as f64 * 1e-9
    }

    /// `BBRBDPMultiple`: `gain` · BDP, with `bw` as the rate; the initial window while the
    /// minimum RTT is unknown.
    fn bdp_multiple(&self, bw: f64, gain: f64) -> u64 {
        if self.min_rtt == Time::MAX {
            return self.initial_cwnd;
        }
        (gain * bw * self.min_rtt as f64 * 1e-9) as u64
    }

    /// `BBRSetSendQuantum`: 1 ms at the pacing rate, between two segments and 64 KB.
    fn send_quantum(&self, mss: u64) -> u64 {
        ((self.pacing_rate * 1e-3) as u64).clamp(2 * mss, 65_536.max(2 * mss))
    }

    /// `BBRQuantizationBudget`: room for three send quanta and the smallest pipe; two
    /// segments more in ProbeBW_UP.
    fn quantization_budget(&self, cap: u64, mss: u64) -> u64 {
        let cap = cap
            .max(3 * self.send_quantum(mss))
            .max(MIN_PIPE_SEGMENTS * mss);
        if self.state == State::ProbeBwUp {
            cap + 2 * mss
        } else {
            cap
        }
    }

    /// `BBRInflight(bw, gain)`.
    fn inflight(&self, bw: f64, gain: f64, mss: u64) -> u64 {
        self.quantization_budget(self.bdp_multiple(bw, gain), mss)
    }

    /// `BBRTargetInflight`: the BDP, unless congestion cut cwnd.
    fn target_inflight(&self, cwnd: u64) -> u64 {
        (self.bdp() as u64).min(cwnd)
    }

    /// `BBRInflightWithHeadroom`: `inflight_longterm` less 15 % (at least a segment), no
    /// less than the smallest pipe.
    fn inflight_with_headroom(&self, mss: u64) -> u64 {
        if self.inflight_longterm == u64::MAX {
            return u64::MAX;
        }
        let headroom = ((HEADROOM * self.inflight_longterm as f64) as u64).max(mss);
        self.inflight_longterm
            .saturating_sub(headroom)
            .max(MIN_PIPE_SEGMENTS * mss)
    }

    fn start_round(&mut self, delivered: u64) {
        self.next_round_delivered = delivered;
    }

    /// `BBRUpdateRound`, then the bandwidth filter (`BBRUpdateMaxBw`).
    fn update_max_bw(&mut self, rs: &Rs, delivered: u64) {
        self.round_start = false;
        if !rs.has_data {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.start_round(delivered);
            self.round_count += 1;
            self.rounds_since_bw_probe += 1;
            self.round_start = true;
        }
        if rs.delivery_rate > 0.0 && (rs.delivery_rate >= self.max_bw || !rs.app_limited) {
            self.max_bw_filter.update(rs.delivery_rate);
            self.max_bw = self.max_bw_filter.max();
        }
    }

    /// `BBRAdvanceMaxBwFilter`.
    fn advance_max_bw_filter(&mut self) {
        self.max_bw_filter.advance();
        self.max_bw = self.max_bw_filter.max();
    }

    /// `BBRUpdateACKAggregation`.
    fn update_ack_aggregation(&mut self, rs: &Rs, now: Time, cwnd: u64) {
        let interval = now.saturating_sub(self.extra_acked_start) as f64 * 1e-9;
        let mut expected = (self.bw * interval) as u64;
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0;
            self.extra_acked_start = now;
            expected = 0;
        }
        self.extra_acked_delivered += rs.newly_acked;
        let extra = self
            .extra_acked_delivered
            .saturating_sub(expected)
            .min(cwnd);
        let window = if self.full_bw_reached {
            EXTRA_ACKED_ROUNDS
        } else {
            1
        };
        self.extra_acked_filter
            .update(self.round_count, extra as f64);
        self.extra_acked = self.extra_acked_filter.max_within(self.round_count, window) as u64;
    }

    /// `BBRResetFullBW`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// `BBRCheckFullBWReached`, comparing BBR.max_bw as Linux does (the draft's pseudocode
    /// reads the round's first sample, which an ACK-interval artefact can lower).
    fn check_full_bw_reached(&mut self, rs: &Rs) {
        if self.full_bw_now || !self.round_start || rs.app_limited {
            return;
        }
        if self.max_bw >= self.full_bw * FULL_BW_GROWTH {
            self.reset_full_bw();
            self.full_bw = self.max_bw;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_ROUNDS;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    fn enter_startup(&mut self) {
        self.state = State::Startup;
    }

    fn enter_drain(&mut self) {
        self.state = State::Drain;
    }

    /// `BBRCheckStartupDone`.
    fn check_startup_done(&mut self, rs: &Rs, a: &AckInfo) {
        self.check_startup_high_loss(rs, a);
        if self.state == State::Startup && self.full_bw_reached {
            self.enter_drain();
        }
    }

    /// `BBRCheckDrainDone`.
    fn check_drain_done(&mut self, a: &AckInfo, mss: u64) {
        if self.state == State::Drain && a.pipe() <= self.inflight(self.bw, 1.0, mss) {
            self.enter_probe_bw(a.now, a.delivered);
        }
    }

    /// `BBRUpdateMinRTT`.
    fn update_min_rtt(&mut self, a: &AckInfo) {
        self.probe_rtt_expired =
            a.now > self.probe_rtt_min_stamp.saturating_add(PROBE_RTT_INTERVAL);
        if let Some(rtt) = a.rtt {
            if rtt < self.probe_rtt_min_delay || self.probe_rtt_expired {
                self.probe_rtt_min_delay = rtt;
                self.probe_rtt_min_stamp = a.now;
            }
        }
        let min_rtt_expired = a.now > self.min_rtt_stamp.saturating_add(MIN_RTT_FILTER_LEN);
        if self.probe_rtt_min_delay < self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min_delay;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
    }

    /// `BBRProbeRTTCwnd`: half the BDP, at least the smallest pipe.
    fn probe_rtt_cwnd(&self, mss: u64) -> u64 {
        self.bdp_multiple(self.bw, PROBE_RTT_CWND_GAIN)
            .max(MIN_PIPE_SEGMENTS * mss)
    }

    /// `BBRCheckProbeRTT` with `BBRHandleProbeRTT`. A restart from idle does not enter
    /// ProbeRTT: the idle time drained the queue as ProbeRTT would have.
    fn check_probe_rtt(&mut self, w: &Window, a: &AckInfo, rs: &Rs) {
        self.check_probe_rtt_state(w, a);
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn check_probe_rtt_state(&mut self, w: &Window, a: &AckInfo) {
        let mss = w.mss as u64;
        if self.state != State::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.state = State::ProbeRtt;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round(a.delivered);
        }
        if self.state != State::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if a.pipe() <= self.probe_rtt_cwnd(mss) => {
                self.probe_rtt_done = Some(a.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.start_round(a.delivered);
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && a.now > done {
                    self.probe_rtt_min_stamp = a.now;
                    self.restore_cwnd_later = true;
                    self.exit_probe_rtt(a.now, a.delivered);
                }
            }
            None => {}
        }
    }

    /// `BBRExitProbeRTT`.
    fn exit_probe_rtt(&mut self, now: Time, delivered: u64) {
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down(now, delivered);
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }

    /// `BBRBoundBWForModel`.
    fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw.min(self.bw_shortterm);
    }

    /// `BBRSetPacingRate`: 1 % below gain · bw; lowered only once the pipe was full.
    fn set_pacing_rate(&mut self) {
        let rate = self.state.gains().0 * self.bw * (1.0 - PACING_MARGIN);
        if rate > 0.0 && (self.full_bw_reached || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// `BBRSaveCwnd`.
    fn save_cwnd(&mut self, cwnd: u64) {
        if !self.prev_recovering && self.state != State::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `BBRSetCwnd` with its bounds (`BBRBoundCwndForProbeRTT`, `BBRBoundCwndForModel`).
    fn set_cwnd(&mut self, w: &mut Window, a: &AckInfo, rs: &Rs) {
        let mss = w.mss as u64;
        let mut cwnd = w.cwnd;
        let leaving_recovery = !a.recovering && self.prev_recovering;
        self.prev_recovering = a.recovering;
        if leaving_recovery || std::mem::take(&mut self.restore_cwnd_later) {
            cwnd = cwnd.max(self.prior_cwnd);
        }
        let gain = self.state.gains().1;
        let max_inflight =
            self.quantization_budget(self.bdp_multiple(self.bw, gain) + self.extra_acked, mss);
        if self.full_bw_reached {
            cwnd = (cwnd + rs.newly_acked).min(max_inflight);
        } else if cwnd < max_inflight || a.delivered < self.initial_cwnd {
            cwnd += rs.newly_acked;
        }
        cwnd = cwnd.max(MIN_PIPE_SEGMENTS * mss);
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd(mss));
        }
        let mut cap = u64::MAX;
        if self.state.probe_bw() && self.state != State::ProbeBwCruise {
            cap = self.inflight_longterm;
        } else if matches!(self.state, State::ProbeRtt | State::ProbeBwCruise) {
            cap = self.inflight_with_headroom(mss);
        }
        cap = cap
            .min(self.inflight_shortterm)
            .max(MIN_PIPE_SEGMENTS * mss);
        w.cwnd = cwnd.min(cap);
        w.clamp();
    }
}

impl CongestionControl for Bbr3 {
    /// The draft's `BBRUpdateOnACK`.
    fn observe(&mut self, w: &mut Window, a: &AckInfo) {
        let mss = w.mss as u64;
        let rs = Rs::of(a);
        if a.flight + mss > w.cwnd {
            self.cwnd_limited_in_round = true;
        }
        self.update_latest_delivery_signals(&rs, a.delivered);
        self.update_congestion_signals(&rs, a.delivered, w.cwnd);
        self.update_ack_aggregation(&rs, a.now, w.cwnd);
        self.check_full_bw_reached(&rs);
        self.check_startup_done(&rs, a);
        self.check_drain_done(a, mss);
        self.update_probe_bw_cycle_phase(&rs, w, a);
        self.update_min_rtt(a);
        self.check_probe_rtt(w, a, &rs);
        self.advance_latest_delivery_signals(&rs);
        self.bound_bw_for_model();
        self.set_pacing_rate();
        self.set_cwnd(w, a, &rs);
        if self.round_start {
            self.cwnd_limited_in_round = a.flight + mss > w.cwnd;
        }
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

    /// ProbeRTT's samples are application-limited (`MarkConnectionAppLimited`).
    fn app_limited(&self) -> bool {
        self.state == State::ProbeRtt
    }

    fn reads_delivery(&self) -> bool {
        true
    }

    fn model(&self) -> Option<PathModel> {
        (self.max_bw > 0.0).then_some(PathModel {
            bandwidth: self.max_bw,
            min_rtt: self.min_rtt,
            state: self.state.name(),
        })
    }

    /// Entering recovery or a timeout: the cwnd is saved to be restored when recovery ends
    /// (`BBROnEnterFastRecovery`, `BBROnEnterRTO`); ssthresh is left as it is.
    fn ssthresh_on_loss(&mut self, w: &Window, _base: u64) -> u64 {
        self.save_cwnd(w.cwnd);
        w.ssthresh
    }

    /// `BBRHandleRestartFromIdle`: in ProbeBW, pace the restart at exactly the bandwidth
    /// estimate (gain 1); in ProbeRTT, leave it if its time is up.
    fn on_restart_from_idle(
        &mut self,
        w: &mut Window,
        now: Time,
        app_limited: bool,
        delivered: u64,
    ) {
        if !app_limited {
            return;
        }
        self.idle_restart = true;
        self.extra_acked_start = now;
        if self.state.probe_bw() {
            let rate = self.bw * (1.0 - PACING_MARGIN);
            if rate > 0.0 && (self.full_bw_reached || rate > self.pacing_rate) {
                self.pacing_rate = rate;
            }
        } else if self.state == State::ProbeRtt && self.probe_rtt_done.is_some_and(|d| now > d) {
            self.probe_rtt_min_stamp = now;
            w.cwnd = w.cwnd.max(self.prior_cwnd);
            self.exit_probe_rtt(now, delivered);
        }
    }

    fn on_lost(&mut self, w: &Window, lost: &crate::tcp::rate::LostTransmission, now: Time) {
        self.handle_lost(w, lost, now);
    }
}

#[cfg(test)]
mod tests;

//! BBR v3's ProbeBW cycle (draft-ietf-ccwg-bbr-04 §5.3.3): DOWN, CRUISE, REFILL, UP, and
//! the long-term model it adapts: the bandwidth filter's clock and `inflight_longterm`.

use super::{AckPhase, Bbr3, Rs, State, RENO_ROUNDS_BOUND};
use crate::sim::{Time, SECOND};
use crate::tcp::cc::{AckInfo, Window};

/// The longest wait for a bandwidth probe (`BBRPickProbeWait`): 2 s plus up to 1 s.
const PROBE_WAIT_BASE: Time = 2 * SECOND;

impl Bbr3 {
    /// `BBREnterProbeBW`.
    pub(super) fn enter_probe_bw(&mut self, now: Time, delivered: u64) {
        self.start_probe_bw_down(now, delivered);
    }

    /// `BBRPickProbeWait`: 0 or 1 rounds already counted, and 2–3 s of wall clock.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_bw_probe = self.rng.next_u64() % 2;
        self.bw_probe_wait = PROBE_WAIT_BASE + self.rng.next_u64() % SECOND;
    }

    /// `BBRStartProbeBW_DOWN`.
    pub(super) fn start_probe_bw_down(&mut self, now: Time, delivered: u64) {
        self.reset_congestion_signals();
        self.probe_up_cnt = u64::MAX;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round(delivered);
        self.state = State::ProbeBwDown;
    }

    /// `BBRStartProbeBW_CRUISE`.
    pub(super) fn start_probe_bw_cruise(&mut self) {
        self.state = State::ProbeBwCruise;
    }

    /// `BBRStartProbeBW_REFILL`.
    fn start_probe_bw_refill(&mut self, delivered: u64) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0;
        self.ack_phase = AckPhase::Refilling;
        self.start_round(delivered);
        self.state = State::ProbeBwRefill;
    }

    /// `BBRStartProbeBW_UP`.
    fn start_probe_bw_up(&mut self, rs: &Rs, cwnd: u64, delivered: u64, mss: u64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round(delivered);
        self.reset_full_bw();
        self.full_bw = rs.delivery_rate;
        self.state = State::ProbeBwUp;
        self.raise_inflight_longterm_slope(cwnd, mss);
    }

    /// `BBRUpdateProbeBWCyclePhase`: on every ACK once the pipe was full.
    pub(super) fn update_probe_bw_cycle_phase(&mut self, rs: &Rs, w: &Window, a: &AckInfo) {
        if !self.full_bw_reached {
            return;
        }
        let mss = w.mss as u64;
        self.adapt_long_term_model(rs, w.cwnd, mss);
        let state = self.state;
        if state == State::ProbeBwDown {
            if !self.time_to_probe_bw(w.cwnd, a, mss) && self.time_to_cruise(a.pipe(), mss) {
                self.start_probe_bw_cruise();
            }
        } else if state == State::ProbeBwCruise {
            self.time_to_probe_bw(w.cwnd, a, mss);
        } else if state == State::ProbeBwRefill && self.round_start {
            // After one round of REFILL, probe.
            self.bw_probe_samples = true;
            self.start_probe_bw_up(rs, w.cwnd, a.delivered, mss);
        } else if state == State::ProbeBwUp && self.time_to_go_down(rs, w.cwnd) {
            self.start_probe_bw_down(a.now, a.delivered);
        }
    }

    /// `BBRIsTimeToProbeBW`: the wall-clock wait is over, or as many rounds as Reno would
    /// need to regrow the BDP (at most 63).
    fn time_to_probe_bw(&mut self, cwnd: u64, a: &AckInfo, mss: u64) -> bool {
        let waited = a.now > self.cycle_stamp + self.bw_probe_wait;
        let reno_rounds = (self.target_inflight(cwnd) / mss).min(RENO_ROUNDS_BOUND);
        if waited || self.rounds_since_bw_probe >= reno_rounds {
            self.start_probe_bw_refill(a.delivered);
            return true;
        }
        false
    }

    /// `BBRIsTimeToCruise`: headroom left, and no more than the BDP in flight.
    fn time_to_cruise(&self, inflight: u64, mss: u64) -> bool {
        inflight <= self.inflight_with_headroom(mss)
            && inflight <= self.inflight(self.max_bw, 1.0, mss)
    }

    /// `BBRIsTimeToGoDown`.
    fn time_to_go_down(&mut self, rs: &Rs, cwnd: u64) -> bool {
        if self.cwnd_limited_in_round && cwnd >= self.inflight_longterm {
            // The bandwidth is limited by inflight_longterm: keep probing.
            self.reset_full_bw();
            self.full_bw = rs.delivery_rate;
            false
        } else {
            self.full_bw_now
        }
    }

    /// `BBRRaiseInflightLongtermSlope`: the bound grows by 1, 2, 4, … segments a round.
    pub(super) fn raise_inflight_longterm_slope(&mut self, cwnd: u64, mss: u64) {
        let growth = mss << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_cnt = (cwnd / growth).max(1);
    }

    /// `BBRProbeInflightLongtermUpward`.
    pub(super) fn probe_inflight_longterm_upward(&mut self, rs: &Rs, cwnd: u64, mss: u64) {
        if !self.cwnd_limited_in_round || cwnd < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acks += rs.newly_acked;
        if self.bw_probe_up_acks >= self.probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.probe_up_cnt;
            self.inflight_longterm = self.inflight_longterm.saturating_add(delta);
        }
        if self.round_start {
            self.raise_inflight_longterm_slope(cwnd, mss);
        }
    }

    /// `BBRAdaptLongTermModel`.
    fn adapt_long_term_model(&mut self, rs: &Rs, cwnd: u64, mss: u64) {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The round after a probe ends: its samples are in, so the filter's window moves
            // on, once. The draft's pseudocode stays in ProbeStopping and would move it every
            // round of CRUISE, forgetting the probe's bandwidth two rounds later; Linux (and
            // the draft's later text, which drops the ACK phases) moves it once, and ends the
            // probe's loss accounting here.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.state.probe_bw() && !rs.app_limited {
                self.advance_max_bw_filter();
            }
        }
        if rs.inflight_too_high() || self.inflight_longterm == u64::MAX {
            return;
        }
        if rs.tx_in_flight > self.inflight_longterm {
            self.inflight_longterm = rs.tx_in_flight;
        }
        if self.state == State::ProbeBwUp {
            self.probe_inflight_longterm_upward(rs, cwnd, mss);
        }
    }
}

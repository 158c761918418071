//! BBR v3's responses to loss (draft-ietf-ccwg-bbr-04 §5.3.1.3 and §5.5.10): the short-term
//! model cut once a round outside probing, `inflight_longterm` set when probing lost too
//! much, and Startup's exit on loss.

use super::{Bbr3, Rs, State, BETA, LOSS_THRESH, STARTUP_FULL_LOSS_COUNT};
use crate::sim::Time;
use crate::tcp::cc::{AckInfo, Window};
use crate::tcp::rate::LostTransmission;

/// `BBRInflightAtLoss`: the volume in flight at which the loss rate crossed
/// [`LOSS_THRESH`], part way through the lost transmission of `size` bytes that left
/// `tx_in_flight` in flight, with `lost` bytes (its own included) lost since it was sent.
pub fn inflight_at_loss(tx_in_flight: u64, lost: u64, size: u64) -> u64 {
    let inflight_prev = tx_in_flight.saturating_sub(size) as f64;
    let lost_prev = lost.saturating_sub(size) as f64;
    let lost_prefix = (LOSS_THRESH * inflight_prev - lost_prev) / (1.0 - LOSS_THRESH);
    (inflight_prev + lost_prefix).max(0.0) as u64
}

impl Bbr3 {
    /// `BBRResetCongestionSignals`.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// `BBRResetShortTermModel`.
    pub(super) fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = u64::MAX;
    }

    /// `BBRUpdateLatestDeliverySignals`: the last round's largest rate and volume, and the
    /// loss round's start.
    pub(super) fn update_latest_delivery_signals(&mut self, rs: &Rs, delivered: u64) {
        self.loss_round_start = false;
        if !rs.has_data {
            return;
        }
        self.bw_latest = self.bw_latest.max(rs.delivery_rate);
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = delivered;
            self.loss_round_start = true;
        }
    }

    /// `BBRAdvanceLatestDeliverySignals`.
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &Rs) {
        if self.loss_round_start {
            self.bw_latest = rs.delivery_rate;
            self.inflight_latest = rs.delivered;
        }
    }

    /// `BBRUpdateCongestionSignals`: the bandwidth filter, then once a round the short-term
    /// model (`BBRAdaptLowerBoundsFromCongestion`).
    pub(super) fn update_congestion_signals(&mut self, rs: &Rs, delivered: u64, cwnd: u64) {
        self.update_max_bw(rs, delivered);
        if !self.loss_round_start {
            return;
        }
        let probing = matches!(
            self.state,
            State::Startup | State::ProbeBwRefill | State::ProbeBwUp
        );
        if !probing && self.loss_in_round {
            if self.bw_shortterm.is_infinite() {
                self.bw_shortterm = self.max_bw;
            }
            if self.inflight_shortterm == u64::MAX {
                self.inflight_shortterm = cwnd;
            }
            self.bw_shortterm = self.bw_latest.max(BETA * self.bw_shortterm);
            self.inflight_shortterm = self
                .inflight_latest
                .max((BETA * self.inflight_shortterm as f64) as u64);
        }
        self.loss_in_round = false;
    }

    /// `BBRCheckStartupHighLoss`: after a round of recovery, a loss rate above 2 % in at
    /// least six separate ranges ends Startup, with `inflight_longterm` at the larger of the
    /// BDP and what the last round delivered.
    pub(super) fn check_startup_high_loss(&mut self, rs: &Rs, a: &AckInfo) {
        if self.full_bw_reached || self.state != State::Startup {
            return;
        }
        if self.loss_round_start
            && a.recovering
            && self.loss_ranges_in_round >= STARTUP_FULL_LOSS_COUNT
            && rs.inflight_too_high()
        {
            self.full_bw_reached = true;
            self.inflight_longterm = (self.bdp() as u64).max(self.inflight_latest);
        }
        if self.loss_round_start {
            self.loss_ranges_in_round = 0;
        }
    }

    /// `BBRHandleLostPacket`: the per-loss step.
    pub(super) fn handle_lost(&mut self, w: &Window, lost: &LostTransmission, now: Time) {
        if !self.loss_in_round {
            self.loss_round_delivered = lost.delivered;
        }
        self.loss_in_round = true;
        if lost.range.0 != self.last_lost_end {
            self.loss_ranges_in_round = self.loss_ranges_in_round.saturating_add(1);
        }
        self.last_lost_end = lost.range.1;
        if !self.bw_probe_samples {
            return;
        }
        let rs = Rs {
            tx_in_flight: lost.tx_in_flight,
            lost: lost.lost_since,
            ..Rs::default()
        };
        if rs.inflight_too_high() {
            let at_loss = inflight_at_loss(lost.tx_in_flight, lost.lost_since, lost.bytes());
            self.handle_inflight_too_high(at_loss, lost.app_limited, w.cwnd, now, lost.delivered);
        }
    }

    /// `BBRHandleInflightTooHigh`: once per probe, bound the data in flight where the loss
    /// rate crossed 2 % (at least 0.7 of the target), and stop probing.
    fn handle_inflight_too_high(
        &mut self,
        tx_in_flight: u64,
        app_limited: bool,
        cwnd: u64,
        now: Time,
        delivered: u64,
    ) {
        self.bw_probe_samples = false;
        if !app_limited {
            let floor = (self.target_inflight(cwnd) as f64 * BETA) as u64;
            self.inflight_longterm = tx_in_flight.max(floor);
        }
        if self.state == State::ProbeBwUp {
            self.start_probe_bw_down(now, delivered);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The draft's algebra: with 100 segments (of 1000 bytes) in flight before the lost one
    /// and one lost among them, the loss rate reaches 2 % after a further
    /// (0.02 · 100,000 − 1,000) / 0.98 = 1,020.4 bytes.
    #[test]
    fn inflight_at_loss_solves_for_the_two_percent_crossing() {
        assert_eq!(inflight_at_loss(101_000, 2_000, 1_000), 101_020);
        // No earlier loss: 2 % of 50,000 bytes, over 0.98.
        assert_eq!(inflight_at_loss(51_000, 1_000, 1_000), 51_020);
        // Already far beyond 2 % before it: the crossing lies below inflight_prev.
        assert!(inflight_at_loss(11_000, 6_000, 1_000) < 10_000);
    }
}

//! Passive, sender-side path estimators: capacity (TCP-Probe: CapProbe's packet-pair idea on
//! TCP's own data and ACKs) and loss rate (LEAST-style: retransmissions corrected for the
//! needless ones). RTT estimates come from the sender's RFC 6298 estimator.

use crate::sim::Time;

/// Capacity from back-to-back pairs of data segments, each acknowledged by its own ACK.
/// Queueing can stretch or compress a pair's dispersion but always adds to its delay sum, so
/// the pair with the smallest delay sum (RTT of the first + RTT of the second) is the one
/// that saw no queueing: capacity = its size / its ACK dispersion (Kapoor et al., 2004).
#[derive(Clone, Debug, Default)]
pub struct CapacityEstimator {
    /// The last ACK that acknowledged exactly one segment: (its end, arrival, RTT).
    last_single: Option<(u64, Time, Time)>,
    best_delay_sum: Option<Time>,
    /// Capacity estimate in bit/s (IP bytes).
    pub capacity_bps: Option<f64>,
    /// Pairs measured.
    pub samples: u64,
}

impl CapacityEstimator {
    /// Samples needed before the estimate is reported as ready.
    pub const READY: u64 = 10;

    /// An ACK acknowledged exactly one segment [start, end) sent at `sent` with `wire`
    /// bytes on the wire; `paired` says it left back to back right after the previous one.
    pub fn on_single_ack(
        &mut self,
        start: u64,
        end: u64,
        sent: Time,
        now: Time,
        wire: u32,
        paired: bool,
    ) {
        let rtt = now - sent;
        if paired {
            if let Some((prev_end, t1, rtt1)) = self.last_single {
                let dispersion = now - t1;
                if prev_end == start && dispersion > 0 {
                    self.samples += 1;
                    let sum = rtt + rtt1;
                    if self.best_delay_sum.is_none_or(|b| sum < b) {
                        self.best_delay_sum = Some(sum);
                        self.capacity_bps = Some(wire as f64 * 8.0 * 1e9 / dispersion as f64);
                    }
                }
            }
        }
        self.last_single = Some((end, now, rtt));
    }

    /// Any other ACK breaks the chain of single-segment ACKs.
    pub fn on_other_ack(&mut self) {
        self.last_single = None;
    }

    /// True once enough pairs were seen.
    pub fn ready(&self) -> bool {
        self.samples >= Self::READY && self.capacity_bps.is_some()
    }
}

/// Loss rate from the sender's retransmissions, corrected for needless ones (after LEAST,
/// Allman, Eddy & Ostermann 2003). A retransmission repaired no loss when (1) its segment is
/// acknowledged sooner than 0.9·RTT_min after it was re-sent — an earlier transmission got
/// there — or (2) one ACK covers several retransmitted segments: one arriving segment fills
/// one hole, so all but the lowest were already at the receiver (go-back-N after a timeout).
#[derive(Clone, Debug, Default)]
pub struct LossEstimator {
    /// Data segments sent, retransmissions included.
    pub sent: u64,
    /// Retransmissions.
    pub retransmissions: u64,
    /// Retransmissions judged needless.
    pub needless: u64,
}

impl LossEstimator {
    /// Data segments sent before the estimate is reported as ready.
    pub const READY: u64 = 1000;

    /// Loss-rate estimate.
    pub fn rate(&self) -> f64 {
        if self.sent == 0 {
            return 0.0;
        }
        self.retransmissions.saturating_sub(self.needless) as f64 / self.sent as f64
    }

    /// A retransmitted segment was acknowledged `since_rtx` after its last retransmission;
    /// `earlier_in_ack` says a lower retransmitted segment was covered by the same ACK.
    pub fn on_retransmitted_acked(&mut self, since_rtx: Time, min_rtt: Time, earlier_in_ack: bool) {
        let too_soon = min_rtt != Time::MAX && (since_rtx as f64) < 0.9 * min_rtt as f64;
        if too_soon || earlier_in_ack {
            self.needless += 1;
        }
    }

    /// True once enough data was sent.
    pub fn ready(&self) -> bool {
        self.sent >= Self::READY
    }
}

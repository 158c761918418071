//! One destination of a (possibly multi-homed) association, as its sender sees it: the
//! address pair, its congestion state (RFC 9260 §7: cwnd, ssthresh, partial_bytes_acked and
//! flight size are per destination), its RTT and RTO, its T3-rtx and heartbeat timers, and
//! its error counter (§8.2: inactive once the errors exceed Path.Max.Retrans).

use super::config::SctpConfig;
use crate::sim::timer::Timer;
use crate::sim::Time;
use crate::transport::rtt::RttEstimator;

/// A destination transport address with its state.
#[derive(Clone, Debug)]
pub struct Path {
    /// Local node (the source address).
    pub src: u32,
    /// Peer node (the destination address).
    pub dst: u32,
    /// Congestion window (bytes).
    pub cwnd: u64,
    /// Slow-start threshold (bytes).
    pub ssthresh: u64,
    /// partial_bytes_acked (congestion avoidance).
    pub pba: u64,
    /// Bytes outstanding on this destination.
    pub flight: u64,
    /// RTT estimator and RTO (RFC 9260 §6.3: the TCP formulas, RTO.Min 1 s).
    pub rtt: RttEstimator,
    /// T3-rtx timer.
    pub t3: Timer,
    /// Heartbeat timer.
    pub hb: Timer,
    /// A heartbeat is unanswered.
    pub hb_pending: bool,
    /// Consecutive errors (timeouts, unanswered heartbeats).
    pub errors: u32,
    /// Reachable, as far as the sender knows.
    pub active: bool,
    /// Last time DATA was sent here.
    pub last_sent: Time,
    /// The idle time before this has lowered cwnd already (RFC 9260 §7.2.1).
    pub idle_counted: Time,
    /// Times cwnd was lowered for idleness.
    pub idle_decays: u64,
    /// cwnd before Max.Burst limited it for one round of sending (0: not limited).
    pub burst_limited: u64,
    /// The one RTT measurement in progress: (TSN, send time).
    pub probe: Option<(u64, Time)>,
    /// Fast recovery: the highest TSN outstanding when it began.
    pub recovery_exit: Option<u64>,
    /// Packets sent here.
    pub packets: u64,
    /// User-data bytes sent here (retransmissions included).
    pub data_bytes: u64,
    /// What the SACK being processed did to this destination.
    pub sack: SackEffect,
}

/// The effect of one SACK on one destination (reset for every SACK).
#[derive(Clone, Copy, Debug, Default)]
pub struct SackEffect {
    /// cwnd was fully used before the SACK.
    pub full: bool,
    /// Bytes it newly acknowledged.
    pub acked: u64,
    /// It marked a chunk sent here for fast retransmission.
    pub new_fast: bool,
}

impl Path {
    /// A fresh destination.
    pub fn new(src: u32, dst: u32, cfg: &SctpConfig) -> Self {
        Path {
            src,
            dst,
            cwnd: cfg.initial_cwnd,
            ssthresh: cfg.rcv_buf.max(cfg.initial_cwnd),
            pba: 0,
            flight: 0,
            rtt: RttEstimator::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max, 1),
            t3: Timer::default(),
            hb: Timer::default(),
            hb_pending: false,
            errors: 0,
            active: true,
            last_sent: 0,
            idle_counted: 0,
            idle_decays: 0,
            burst_limited: 0,
            probe: None,
            recovery_exit: None,
            packets: 0,
            data_bytes: 0,
            sack: SackEffect::default(),
        }
    }

    /// RFC 9260 §7.2.1: for each whole RTO in which no DATA was sent here (since the last
    /// DATA sent, once any was), cwnd = max(cwnd/2, 4·MTU), without ever raising it (a
    /// cwnd of 4·MTU or less stays). ns-2's `CwndDegradeTimer` does this by a timer
    /// restarted on every send; here it is worked out when the sender next looks at the
    /// window, with the RTO it has then, so the two differ only if the RTO changed while the
    /// destination was idle.
    pub fn decay_idle(&mut self, now: Time, mtu: u64) {
        let from = self.last_sent.max(self.idle_counted);
        let rto = self.rtt.rto();
        if self.data_bytes == 0 || now < from + rto {
            return;
        }
        let periods = (now - from) / rto;
        self.idle_counted = from + periods * rto;
        for _ in 0..periods {
            let lower = (self.cwnd / 2).max(4 * mtu);
            if lower >= self.cwnd {
                break;
            }
            self.cwnd = lower;
            self.idle_decays += 1;
        }
    }

    /// RFC 9260 §7.2.3 / §7.2.4: the reduction on loss, ssthresh = max(cwnd/2, 4·MTU).
    pub fn halve(&mut self, mtu: u64) {
        self.ssthresh = (self.cwnd / 2).max(4 * mtu);
        self.pba = 0;
    }
}

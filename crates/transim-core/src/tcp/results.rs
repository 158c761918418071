//! TCP's results for one flow: the connection's counters, its estimators beside the truth
//! the simulator knows, and the study counters (N_R, ACK drops at the uplink, FUL).

use super::cc::CongestionControl;
use super::connection::TcpConnection;
use crate::sim::{secs, Time};
use crate::transport::{bits_per_second, Detail, FlowFacts};
use serde::Serialize;

/// Tail loss probes of a RACK-TLP sender.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TlpResult {
    /// Probes sent.
    pub probes: u64,
    /// Retransmitted probes taken as a repaired loss (with D-SACK: acknowledged beyond the
    /// probe without a D-SACK for it; without: acknowledged).
    pub recoveries: u64,
    /// With D-SACK: retransmitted probes a D-SACK showed were not needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spurious: Option<u64>,
}

/// A receiving application that reads at a set rate (`tcp.read_rate`), and the flow control
/// it caused.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReaderResult {
    /// The application's read rate (bit/s).
    pub read_rate_bps: f64,
    /// Bytes the application read by the end of the run.
    pub bytes_read: u64,
    /// Bytes in order in the receive buffer, not yet read, at the end of the run.
    pub unread_at_end: u64,
    /// ACKs that advertised a zero window.
    pub zero_window_acks: u64,
    /// ACKs the receiver sent only to report a window the application opened.
    pub window_updates: u64,
    /// Window probes the sender's persist timer sent.
    pub window_probes: u64,
}

/// A flow's ECN counters.
#[derive(Clone, Debug, Serialize)]
pub struct EcnResult {
    /// Both ends agreed to use ECN.
    pub negotiated: bool,
    /// Data packets the receiver got marked CE.
    pub ce_received: u64,
    /// Window reductions the sender made on ECN echoes.
    pub reductions: u64,
}

/// TCP's results for one flow (flattened beside the engine's fields in the run's results).
#[derive(Clone, Debug, Serialize)]
pub struct TcpFlowResult {
    /// Profile.
    pub profile: String,
    /// Congestion control at the end of the run.
    pub cc: String,
    /// Congestion-control switches carried out: (time in s, algorithm).
    pub switches: Vec<(f64, String)>,
    /// The adaptive framework's look-ups: estimate, map cell, priority, switch (cc =
    /// "adaptive" only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<Vec<super::adaptive::Decision>>,
    /// Loss recovery.
    pub recovery: String,
    /// Proportional Rate Reduction paces the recovery (`tcp.prr`; absent when off).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prr: bool,
    /// MSS (bytes).
    pub mss: u32,
    /// Time the handshake completed (s).
    pub established: Option<f64>,
    /// Finite transfers: time from start until the receiver had every byte (s).
    pub completion_time: Option<f64>,
    /// Finite transfers (not rounds): the completion time the transfer would have alone on
    /// idle links with no window limit, handshake included (s); completion time over it is
    /// the flow's slowdown. Absent for open-ended applications and across ATM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_completion_time: Option<f64>,
    /// First data arrival to last new-data arrival at the receiver (s).
    pub transfer_time: Option<f64>,
    /// Unique bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// Data segments that reached the receiver (duplicates included).
    pub data_packets_delivered: u64,
    /// Goodput (bit/s) over the flow's active time.
    pub goodput_bps: f64,
    /// Payload arriving at the receiver, duplicates included (bit/s).
    pub throughput_bps: f64,
    /// Seconds the flow was active (start to completion or end of run).
    pub active_time: f64,
    /// All segments the sender sent.
    pub segments_sent: u64,
    /// Data segments sent (incl. retransmissions).
    pub data_segments_sent: u64,
    /// Retransmitted segments.
    pub retransmissions: u64,
    /// Retransmissions by fast retransmit / recovery.
    pub retransmissions_fast: u64,
    /// Retransmissions after timeouts.
    pub retransmissions_timeout: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Entries into fast retransmit.
    pub fast_retransmits: u64,
    /// Duplicate ACKs received.
    pub dupacks: u64,
    /// SYN retransmissions.
    pub syn_retries: u64,
    /// ECN (`tcp.ecn = true` only): whether the handshake negotiated it, data packets that
    /// arrived marked Congestion Experienced, and the sender's window reductions on echoes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn: Option<EcnResult>,
    /// Dropped data packets repaired by a fast-recovery retransmission: the study's N_R.
    pub drops_recovered_fast: u64,
    /// Dropped data packets repaired by a retransmission after a timeout.
    pub drops_recovered_timeout: u64,
    /// Lost retransmissions detected from SACK information (SackPlus) or by RACK's clock.
    pub lost_retransmissions_detected: u64,
    /// With D-SACK (`tcp.dsack`): D-SACK blocks received, each a segment the receiver got
    /// twice (a spurious retransmission).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dsacks_received: Option<u64>,
    /// With `tcp.undo`: window reductions undone because D-SACKs reported every
    /// retransmission of their recovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reductions_undone: Option<u64>,
    /// With `tcp.read_rate`: what the receiving application read, and the flow control.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reader: Option<ReaderResult>,
    /// RACK-TLP only: tail loss probes sent, and retransmitted probes that repaired a loss.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tlp: Option<TlpResult>,
    /// With CUBIC's `tcp.hystart`: which HyStart, and when it first ended slow start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hystart: Option<HyStartResult>,
    /// ACKs dropped at the receiver's own uplink buffer.
    pub ack_drops_uplink: u64,
    /// ACKs the receiver sent (SYN-ACK and FUL notifications included).
    pub acks_sent: u64,
    /// Time of the first retransmission timeout (s).
    pub first_timeout: Option<f64>,
    /// FUL = 1 notifications the receiver sent.
    pub ful_notifications: u64,
    /// Time of the first FUL = 1 (s).
    pub first_ful: Option<f64>,
    /// ACKs the receiver withheld while FUL was raised.
    pub ful_suppressed_acks: u64,
    /// Times the sender froze on FUL = 1.
    pub ful_freezes: u64,
    /// Times the safety timer (not a FUL = 0) resumed the sender.
    pub ful_safety_resumes: u64,
    /// Total time the sender was frozen (s).
    pub ful_frozen_time: f64,
    /// cwnd at the end (bytes).
    pub final_cwnd: u64,
    /// ssthresh at the end (bytes; null when never set).
    pub final_ssthresh: Option<u64>,
    /// Smoothed RTT at the end (s).
    pub srtt: f64,
    /// Smallest RTT sample (s).
    pub min_rtt: Option<f64>,
    /// RTO at the end (s).
    pub rto: f64,
    /// Path estimators beside the truth the simulator knows.
    pub estimators: Estimates,
    /// The congestion control's own path model at the end (BBR, Westwood+), if it keeps one.
    pub cc_model: Option<CcModel>,
    /// Pacing rate at the end (bit/s of payload), when the sender paces.
    pub pacing_rate_bps: Option<f64>,
}

/// HyStart's part in a flow (`tcp.hystart`).
#[derive(Clone, Debug, Serialize)]
pub struct HyStartResult {
    /// "linux" or "ns3".
    pub mode: String,
    /// When HyStart first ended slow start (s); null if slow start ended otherwise (a loss,
    /// or ssthresh) or had not ended.
    pub exit_at: Option<f64>,
    /// cwnd then, in segments (it became ssthresh).
    pub exit_cwnd_segments: Option<f64>,
    /// Which detection: "train" or "delay".
    pub exit_by: Option<String>,
}

/// A congestion control's path model.
#[derive(Clone, Debug, Serialize)]
pub struct CcModel {
    /// Bottleneck bandwidth estimate (bit/s of payload).
    pub bandwidth_bps: f64,
    /// Propagation-delay estimate (s); null when unknown.
    pub min_rtt: Option<f64>,
    /// The algorithm's state ("startup", "probe_bw", "avoidance", …).
    pub state: String,
}

/// The sender's passive path estimates and the true values.
#[derive(Clone, Debug, Serialize)]
pub struct Estimates {
    /// Estimated propagation RTT: the smallest RTT sample (s).
    pub min_rtt: Option<f64>,
    /// True propagation RTT: the sum of the link delays along the route and back (s).
    pub true_rtt: f64,
    /// Estimated bottleneck capacity (bit/s, IP bytes).
    pub capacity_bps: Option<f64>,
    /// Packet pairs the capacity estimate drew on.
    pub capacity_samples: u64,
    /// Enough pairs for the capacity estimate to be trusted.
    pub capacity_ready: bool,
    /// True bottleneck capacity: the slowest link rate on the forward route (bit/s).
    pub true_capacity_bps: f64,
    /// Estimated loss rate of the data direction.
    pub loss_rate: f64,
    /// Enough data sent for the loss estimate to be trusted.
    pub loss_ready: bool,
    /// True loss rate: data packets dropped / data packets sent.
    pub true_loss_rate: f64,
}

impl Detail {
    /// TCP's results for a flow (`flow_result.detail.tcp()`). Panics if the flow is not TCP.
    pub fn tcp(&self) -> &TcpFlowResult {
        self.downcast::<TcpFlowResult>()
            .expect("the flow is not a TCP flow")
    }
}

/// Collect a connection's results at the end of a run.
pub(crate) fn collect(c: &TcpConnection, facts: &FlowFacts) -> TcpFlowResult {
    let end: Time = facts.end;
    let start = facts.start;
    let s = &c.sender;
    let r = &c.receiver.stats;
    let completion = r.fin_at.map(|t| t - start.min(t));
    let active = completion.unwrap_or(end.saturating_sub(start));
    let cfg = &s.cfg;
    let cc_model = s.cc.model().map(|m| CcModel {
        bandwidth_bps: m.bandwidth * 8.0,
        min_rtt: (m.min_rtt != Time::MAX).then(|| secs(m.min_rtt)),
        state: m.state.to_string(),
    });
    TcpFlowResult {
        profile: cfg.profile.to_string(),
        cc: s.cc.kind().name().to_string(),
        switches: s
            .stats
            .switches
            .iter()
            .map(|&(t, k)| (secs(t), k.name().to_string()))
            .collect(),
        adaptive: c.adaptive.as_ref().map(|a| a.decisions.clone()),
        recovery: cfg.recovery.name().to_string(),
        prr: cfg.prr,
        mss: cfg.mss,
        established: s.stats.established_at.map(secs),
        completion_time: completion.map(secs),
        ideal_completion_time: facts
            .idle_path
            .as_ref()
            .and_then(|path| super::ideal::completion(c, path))
            .map(secs),
        transfer_time: match (r.first_data, r.last_data) {
            (Some(a), Some(b)) => Some(secs(b - a)),
            _ => None,
        },
        bytes_delivered: r.bytes_delivered,
        data_packets_delivered: r.data_segments,
        goodput_bps: bits_per_second(r.bytes_delivered, secs(active)),
        throughput_bps: bits_per_second(r.bytes_received, secs(active)),
        active_time: secs(active),
        segments_sent: s.stats.segments_sent,
        data_segments_sent: s.stats.data_segments_sent,
        retransmissions: s.stats.rtx_fast + s.stats.rtx_timeout,
        retransmissions_fast: s.stats.rtx_fast,
        retransmissions_timeout: s.stats.rtx_timeout,
        timeouts: s.stats.timeouts,
        fast_retransmits: s.stats.fast_retransmits,
        dupacks: s.stats.dupacks,
        syn_retries: s.stats.syn_retries,
        ecn: s.cfg.ecn.then_some(EcnResult {
            negotiated: s.ecn.on,
            ce_received: c.receiver.ecn.ce_received,
            reductions: s.ecn.reductions,
        }),
        drops_recovered_fast: c.recovered_fast,
        drops_recovered_timeout: c.recovered_timeout,
        lost_retransmissions_detected: s.stats.lost_retransmissions_detected,
        dsacks_received: s.cfg.dsack.then_some(s.stats.dsacks),
        reductions_undone: s.cfg.undo.then_some(s.undo.undone),
        reader: c.receiver.reader.as_deref().map(|rd| ReaderResult {
            read_rate_bps: rd.rate_bps(),
            bytes_read: rd.read_by(end),
            unread_at_end: rd.unread(end),
            zero_window_acks: rd.zero_window_acks,
            window_updates: rd.window_updates,
            window_probes: s.persist.probes,
        }),
        tlp: s.cfg.recovery.probes_tail().then_some(TlpResult {
            probes: s.stats.tlp_probes,
            recoveries: s.stats.tlp_recoveries,
            spurious: s.cfg.dsack.then_some(s.stats.tlp_spurious),
        }),
        ack_drops_uplink: c.ack_drops_uplink,
        acks_sent: r.acks_sent,
        first_timeout: s.stats.first_timeout_at.map(secs),
        ful_notifications: c.receiver.ful.notifications,
        first_ful: c.receiver.ful.first_at.map(secs),
        ful_suppressed_acks: c.receiver.ful.suppressed,
        ful_freezes: s.ful.freezes,
        ful_safety_resumes: s.ful.safety_resumes,
        ful_frozen_time: secs(s.ful.frozen_ns),
        final_cwnd: s.win.cwnd,
        final_ssthresh: (s.win.ssthresh < u64::MAX / 4).then_some(s.win.ssthresh),
        srtt: secs(s.rtt.srtt),
        min_rtt: s.rtt.has_sample.then(|| secs(s.rtt.min_rtt)),
        rto: secs(s.rtt.rto()),
        estimators: Estimates {
            min_rtt: s.rtt.has_sample.then(|| secs(s.rtt.min_rtt)),
            true_rtt: secs(facts.true_rtt),
            capacity_bps: s.capacity.capacity_bps,
            capacity_samples: s.capacity.samples,
            capacity_ready: s.capacity.ready(),
            true_capacity_bps: facts.true_capacity_bps,
            loss_rate: s.loss_est.rate(),
            loss_ready: s.loss_est.ready(),
            true_loss_rate: if s.stats.data_segments_sent > 0 {
                facts.data_packets_dropped as f64 / s.stats.data_segments_sent as f64
            } else {
                0.0
            },
        },
        cc_model,
        hystart: s.hystart().map(|(mode, exit)| HyStartResult {
            mode: mode.name().to_string(),
            exit_at: exit.map(|e| secs(e.at)),
            exit_cwnd_segments: exit.map(|e| e.cwnd as f64 / cfg.mss as f64),
            exit_by: exit.map(|e| e.by.name().to_string()),
        }),
        pacing_rate_bps: s.pacing_rate().map(|r| r * 8.0),
    }
}

//! Results of a run: per-flow and per-link summaries (serialisable), and the optional traces.

use crate::engine::{Conservation, Simulation};
use crate::net::loss::gilbert_elliott_stats;
use crate::net::{DropCause, LossModel};
use crate::scenario::units::QueueLimit;
use crate::sim::{secs, Time};
use crate::tcp::cc::CongestionControl;
use crate::trace::{FlowTrace, PacketTrace};
use serde::Serialize;
use std::collections::BTreeMap;

/// Drops by cause.
pub type Drops = BTreeMap<&'static str, u64>;

fn drops(a: &[u64; 4]) -> Drops {
    DropCause::ALL
        .iter()
        .map(|c| (c.name(), a[c.index()]))
        .collect()
}

/// Summary of one flow.
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Name.
    pub name: String,
    /// Sender node.
    pub src: String,
    /// Receiver node.
    pub dst: String,
    /// Profile.
    pub profile: String,
    /// Congestion control at the end of the run.
    pub cc: String,
    /// Congestion-control switches carried out: (time in s, algorithm).
    pub switches: Vec<(f64, String)>,
    /// Loss recovery.
    pub recovery: String,
    /// MSS (bytes).
    pub mss: u32,
    /// Start time (s).
    pub start: f64,
    /// Time the handshake completed (s).
    pub established: Option<f64>,
    /// Finite transfers: time from start until the receiver had every byte (s).
    pub completion_time: Option<f64>,
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
    /// Data-direction drops by cause.
    pub data_drops: Drops,
    /// All drops of this flow (data and ACKs) by cause.
    pub drops: Drops,
    /// Data packets dropped (all causes): the study's N_D.
    pub data_packets_dropped: u64,
    /// Dropped data packets repaired by a fast-recovery retransmission: the study's N_R.
    pub drops_recovered_fast: u64,
    /// Dropped data packets repaired by a retransmission after a timeout.
    pub drops_recovered_timeout: u64,
    /// Lost retransmissions detected from SACK information (SackPlus).
    pub lost_retransmissions_detected: u64,
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
    /// Packets created by both endpoints.
    pub packets_sent: u64,
    /// Packets delivered to endpoints.
    pub packets_delivered: u64,
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

/// Link directions from `a` to `b` along the routes.
fn route(sim: &Simulation, mut a: u32, b: u32) -> Vec<usize> {
    let mut out = vec![];
    while a != b && out.len() <= sim.links.len() {
        let l = sim.routes[a as usize][b as usize] as usize;
        out.push(l);
        a = sim.links[l].to;
    }
    out
}

/// Summary of one link direction.
#[derive(Clone, Debug, Serialize)]
pub struct LinkResult {
    /// "from->to".
    pub name: String,
    /// Rate (bit/s).
    pub rate_bps: f64,
    /// Propagation delay (s).
    pub delay: f64,
    /// Queue limit ("100pkt" or "64000B").
    pub queue_limit: String,
    /// Fraction of the run the link was transmitting.
    pub utilisation: f64,
    /// Packets offered.
    pub packets_in: u64,
    /// Packets delivered to the far end.
    pub packets_out: u64,
    /// Drops by cause.
    pub drops: Drops,
    /// Time-averaged packets waiting.
    pub mean_queue_packets: f64,
    /// Largest number of packets waiting.
    pub max_queue_packets: u64,
    /// Time-averaged bytes waiting.
    pub mean_queue_bytes: f64,
    /// Largest number of bytes waiting.
    pub max_queue_bytes: u64,
    /// Loss model ("none", "bernoulli", "gilbert_elliott").
    pub loss_model: String,
    /// Stationary loss rate the model implies.
    pub loss_rate_implied: f64,
    /// Mean loss-burst length the model implies (packets).
    pub loss_burst_implied: Option<f64>,
    /// Loss-model drops / packets offered.
    pub loss_rate_measured: f64,
}

/// Summary of a run.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Scenario name.
    pub name: String,
    /// Seed.
    pub seed: u64,
    /// Simulated time (s).
    pub simulated_time: f64,
    /// Events processed.
    pub events: u64,
    /// Flows.
    pub flows: Vec<FlowResult>,
    /// Link directions.
    pub links: Vec<LinkResult>,
    /// Packet totals.
    pub conservation: Conservation,
}

/// A run's summary plus its traces.
pub struct RunOutput {
    /// Summary.
    pub result: RunResult,
    /// Per-flow time series (when asked for).
    pub flow_traces: Vec<Option<FlowTrace>>,
    /// Per-packet events (when asked for).
    pub packet_trace: Option<PacketTrace>,
}

fn rate(bytes: u64, t: f64) -> f64 {
    if t > 0.0 {
        bytes as f64 * 8.0 / t
    } else {
        0.0
    }
}

/// Collect results from a finished simulation.
pub fn collect(mut sim: Simulation, name: String, seed: u64, cons: Conservation) -> RunOutput {
    let end: Time = sim.end;
    let mut flows = Vec::new();
    let paths: Vec<(Vec<usize>, Vec<usize>)> = sim
        .flows
        .iter()
        .map(|f| (route(&sim, f.src, f.dst), route(&sim, f.dst, f.src)))
        .collect();
    let mut traces = Vec::new();
    for (fi, f) in sim.flows.iter_mut().enumerate() {
        let (fwd, rev) = &paths[fi];
        let true_rtt: Time = fwd.iter().chain(rev).map(|&l| sim.links[l].delay).sum();
        let true_capacity = fwd
            .iter()
            .map(|&l| sim.links[l].rate_bps)
            .fold(f64::INFINITY, f64::min);
        let s = &f.sender;
        let r = &f.receiver.stats;
        let completion = r.fin_at.map(|t| t - f.start.min(t));
        let active = completion.unwrap_or(end.saturating_sub(f.start));
        let cfg = &s.cfg;
        let cc_model = s.cc.model().map(|m| CcModel {
            bandwidth_bps: m.bandwidth * 8.0,
            min_rtt: (m.min_rtt != Time::MAX).then(|| secs(m.min_rtt)),
            state: m.state.to_string(),
        });
        flows.push(FlowResult {
            name: f.name.clone(),
            src: sim.node_names[f.src as usize].clone(),
            dst: sim.node_names[f.dst as usize].clone(),
            profile: cfg.profile.to_string(),
            cc: s.cc.kind().name().to_string(),
            switches: s
                .stats
                .switches
                .iter()
                .map(|&(t, k)| (secs(t), k.name().to_string()))
                .collect(),
            recovery: cfg.recovery.name().to_string(),
            mss: cfg.mss,
            start: secs(f.start),
            established: s.stats.established_at.map(secs),
            completion_time: completion.map(secs),
            transfer_time: match (r.first_data, r.last_data) {
                (Some(a), Some(b)) => Some(secs(b - a)),
                _ => None,
            },
            bytes_delivered: r.bytes_delivered,
            data_packets_delivered: r.data_segments,
            goodput_bps: rate(r.bytes_delivered, secs(active)),
            throughput_bps: rate(r.bytes_received, secs(active)),
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
            data_drops: drops(&f.data_drops),
            drops: drops(&f.drops),
            data_packets_dropped: f.data_drops.iter().sum(),
            drops_recovered_fast: f.recovered_fast,
            drops_recovered_timeout: f.recovered_timeout,
            lost_retransmissions_detected: s.stats.lost_retransmissions_detected,
            ack_drops_uplink: f.ack_drops_uplink,
            acks_sent: r.acks_sent,
            first_timeout: s.stats.first_timeout_at.map(secs),
            ful_notifications: f.receiver.ful.notifications,
            first_ful: f.receiver.ful.first_at.map(secs),
            ful_suppressed_acks: f.receiver.ful.suppressed,
            ful_freezes: s.ful.freezes,
            ful_safety_resumes: s.ful.safety_resumes,
            ful_frozen_time: secs(s.ful.frozen_ns),
            packets_sent: f.injected,
            packets_delivered: f.delivered,
            final_cwnd: s.win.cwnd,
            final_ssthresh: (s.win.ssthresh < u64::MAX / 4).then_some(s.win.ssthresh),
            srtt: secs(s.rtt.srtt),
            min_rtt: s.rtt.has_sample.then(|| secs(s.rtt.min_rtt)),
            rto: secs(s.rtt.rto()),
            estimators: Estimates {
                min_rtt: s.rtt.has_sample.then(|| secs(s.rtt.min_rtt)),
                true_rtt: secs(true_rtt),
                capacity_bps: s.capacity.capacity_bps,
                capacity_samples: s.capacity.samples,
                capacity_ready: s.capacity.ready(),
                true_capacity_bps: true_capacity,
                loss_rate: s.loss_est.rate(),
                loss_ready: s.loss_est.ready(),
                true_loss_rate: if s.stats.data_segments_sent > 0 {
                    f.data_drops.iter().sum::<u64>() as f64 / s.stats.data_segments_sent as f64
                } else {
                    0.0
                },
            },
            cc_model,
            pacing_rate_bps: s.pacing_rate().map(|r| r * 8.0),
        });
        traces.push(f.sender.trace.take().map(|b| *b));
    }
    let dur = secs(end).max(1e-12);
    let links = sim
        .links
        .iter()
        .zip(&sim.link_names)
        .map(|(l, name)| {
            let st = &l.stats;
            let (model, burst) = match l.loss {
                LossModel::None => ("none", None),
                LossModel::Bernoulli { p } => ("bernoulli", Some(1.0 / (1.0 - p).max(1e-12))),
                LossModel::GilbertElliott {
                    p_gb,
                    p_bg,
                    loss_good,
                    loss_bad,
                    ..
                } => (
                    "gilbert_elliott",
                    Some(gilbert_elliott_stats(p_gb, p_bg, loss_good, loss_bad).mean_burst),
                ),
            };
            let admitted = st.packets_in - st.drops[DropCause::Queue.index()];
            LinkResult {
                name: name.clone(),
                rate_bps: l.rate_bps,
                delay: secs(l.delay),
                queue_limit: match l.limit {
                    QueueLimit::Packets(n) => format!("{n}pkt"),
                    QueueLimit::Bytes(b) => format!("{b}B"),
                },
                utilisation: st.busy_ns as f64 / end.max(1) as f64,
                packets_in: st.packets_in,
                packets_out: st.packets_out,
                drops: drops(&st.drops),
                mean_queue_packets: st.queue_area as f64 / 1e9 / dur,
                max_queue_packets: st.queue_max,
                mean_queue_bytes: st.queue_byte_area as f64 / 1e9 / dur,
                max_queue_bytes: st.queue_max_bytes,
                loss_model: model.to_string(),
                loss_rate_implied: l.loss.mean_loss_rate(),
                loss_burst_implied: burst,
                loss_rate_measured: if admitted > 0 {
                    st.drops[DropCause::LossModel.index()] as f64 / admitted as f64
                } else {
                    0.0
                },
            }
        })
        .collect();
    RunOutput {
        result: RunResult {
            name,
            seed,
            simulated_time: secs(end),
            events: sim.events.popped,
            flows,
            links,
            conservation: cons,
        },
        flow_traces: traces,
        packet_trace: sim.packet_trace.take(),
    }
}

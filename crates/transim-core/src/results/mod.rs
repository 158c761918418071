//! Results of a run: per-flow and per-link summaries (serialisable), and the optional traces.
//! Names no transport: each flow's transport adds its own results and series.

use crate::engine::{Conservation, Simulation};
use crate::net::atm::results::VcResult;
use crate::net::idle_path::{Hop, IdlePath};
use crate::net::loss::gilbert_elliott_stats;
use crate::net::{DropCause, LossModel};
use crate::net::{Link, QueueLimit};
use crate::sim::{secs, Time};
use crate::trace::PacketTrace;
use crate::transport::{Detail, FlowFacts, Series};
use serde::Serialize;

pub mod csv_table;
pub mod digest;
mod drops;
pub mod fct;
pub mod files;
pub mod json_text;
mod summary_text;
pub use drops::{Causes, Drops};

/// Summary of one flow: the engine's books, and the transport's own results beside them
/// (flattened into the same JSON object; typed access through `detail`, e.g. `detail.tcp()`).
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Name.
    pub name: String,
    /// Transport protocol ("tcp").
    pub protocol: &'static str,
    /// Initiating node.
    pub src: String,
    /// Responding node.
    pub dst: String,
    /// Start time (s).
    pub start: f64,
    /// Packets created by both endpoints.
    pub packets_sent: u64,
    /// Packets delivered to endpoints.
    pub packets_delivered: u64,
    /// All drops of this flow (both directions) by cause.
    pub drops: Drops,
    /// Data-direction drops by cause.
    pub data_drops: Drops,
    /// Data-direction packets dropped (all causes): study 4's N_D.
    pub data_packets_dropped: u64,
    /// The flow's ATM virtual circuit, when it crosses ATM links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atm: Option<VcResult>,
    /// The transport's own results.
    #[serde(flatten)]
    pub detail: Detail,
}

/// Link directions from `a` to `b` along `flow`'s route.
pub(crate) fn route(sim: &Simulation, mut a: u32, b: u32, flow: u32) -> Vec<usize> {
    let mut out = vec![];
    while a != b && out.len() <= sim.links.len() {
        let l = sim.routes.next(a, b, flow) as usize;
        out.push(l);
        a = sim.links[l].to;
    }
    out
}

/// A link direction's queue limit as the summary writes it: "100pkt", "64000B", "4096cells"
/// or "unlimited" (written straight into the output: no string per link direction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimitText {
    /// A limit in packets.
    Packets(u64),
    /// A limit in bytes.
    Bytes(u64),
    /// A limit in ATM cells.
    Cells(u64),
    /// An ATM port without a limit.
    Unlimited,
}

impl std::fmt::Display for QueueLimitText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueueLimitText::Packets(n) => write!(f, "{n}pkt"),
            QueueLimitText::Bytes(n) => write!(f, "{n}B"),
            QueueLimitText::Cells(n) => write!(f, "{n}cells"),
            QueueLimitText::Unlimited => f.write_str("unlimited"),
        }
    }
}

impl Serialize for QueueLimitText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
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
    /// Queue limit ("100pkt", "64000B", or "4096cells" on ATM links).
    pub queue_limit: QueueLimitText,
    /// What the packet counts of this link count: "packets", or "cells" on ATM links.
    pub unit: &'static str,
    /// An ATM switch port's counters (frames refused by EPD, cut by PPD, cells marked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<crate::net::atm::port::PortStats>,
    /// Queue discipline ("droptail", "red", "codel", …).
    pub qdisc: &'static str,
    /// Packets an active queue manager marked Congestion Experienced instead of dropping
    /// (links with RED or CoDel only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_marks: Option<u64>,
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
    pub loss_model: &'static str,
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
    /// The simulated time at which the run was stopped early (an interrupt or a wall-time
    /// limit; the results cover the run up to it), null when it ran to its end.
    pub stopped_at: Option<f64>,
    /// Groups of flows in barrier-synchronised rounds (left out when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<crate::engine::RoundsResult>,
}

impl RunResult {
    /// The summary as compact JSON text: the same bytes as `serde_json::to_string(self)`,
    /// with a fifth fewer instructions (see [`json_text`]), and on two threads when large
    /// (the link directions written beside the flows).
    pub fn to_json_text(&self) -> Result<String, serde_json::Error> {
        summary_text::to_text(self)
    }
}

/// A run's summary plus its traces.
pub struct RunOutput {
    /// Summary.
    pub result: RunResult,
    /// Per-flow time series, each the transport's own (when asked for).
    pub flow_traces: Vec<Option<Box<dyn Series>>>,
    /// Per-packet events (when asked for).
    pub packet_trace: Option<PacketTrace>,
    /// Wall time of each stage (not part of the result, which depends only on the scenario
    /// and seed).
    pub stages: StageTimes,
}

/// Wall-clock seconds a run spent in each stage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// Checking the scenario and filling in its defaults (zero when it came parsed).
    pub parse: f64,
    /// Building the network, routes and endpoints.
    pub build: f64,
    /// The simulation itself.
    pub run: f64,
    /// Collecting the results.
    pub collect: f64,
}

/// A route both ways as idle links serve it, unless packets cross a link of it as cells.
fn idle_path(links: &[Link], there: &[usize], back: &[usize]) -> Option<IdlePath> {
    let hops = |route: &[usize]| route.iter().map(|&l| Hop::of(&links[l])).collect();
    let cells = there.iter().chain(back).any(|&l| links[l].cells);
    (!cells).then(|| IdlePath {
        there: hops(there),
        back: hops(back),
    })
}

/// Collect results from a finished simulation.
pub fn collect(mut sim: Simulation, name: String, seed: u64, cons: Conservation) -> RunOutput {
    let end: Time = sim.end;
    let atm = sim.atm.is_some();
    let causes = Causes {
        atm,
        aqm: sim.links.iter().any(|l| l.is_aqm()),
    };
    let mut flows = Vec::new();
    let paths: Vec<(Vec<usize>, Vec<usize>)> = sim
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let i = i as u32;
            (route(&sim, f.src, f.dst, i), route(&sim, f.dst, f.src, i))
        })
        .collect();
    let mut traces = Vec::new();
    for (fi, f) in sim.flows.iter_mut().enumerate() {
        let (fwd, rev) = &paths[fi];
        let data_packets_dropped = f.data_drops.iter().sum();
        let facts = FlowFacts {
            start: f.start,
            end,
            true_rtt: fwd.iter().chain(rev).map(|&l| sim.links[l].delay).sum(),
            true_capacity_bps: fwd
                .iter()
                .map(|&l| sim.links[l].rate_bps)
                .fold(f64::INFINITY, f64::min),
            data_packets_dropped,
            idle_path: idle_path(&sim.links, fwd, rev),
        };
        flows.push(FlowResult {
            name: f.name.clone(),
            protocol: f.transport.protocol(),
            src: sim.node_names[f.src as usize].clone(),
            dst: sim.node_names[f.dst as usize].clone(),
            start: secs(f.start),
            packets_sent: f.injected,
            packets_delivered: f.delivered,
            drops: Drops::new(&f.drops, causes),
            data_drops: Drops::new(&f.data_drops, causes),
            data_packets_dropped,
            atm: sim.atm.as_ref().and_then(|a| a.result(fi, end)),
            detail: f.transport.results(&facts),
        });
        traces.push(f.transport.take_trace());
    }
    let dur = secs(end).max(1e-12);
    let link_names = std::mem::take(&mut sim.link_names);
    let links = sim
        .links
        .iter()
        .zip(link_names)
        .map(|(l, name)| {
            let st = &l.stats;
            let (model, burst) = match *l.loss() {
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
                name,
                rate_bps: l.rate_bps,
                delay: secs(l.delay),
                queue_limit: match l.limit {
                    QueueLimit::Packets(n) if l.cells && n >= u64::MAX / 2 => {
                        QueueLimitText::Unlimited
                    }
                    QueueLimit::Packets(n) if l.cells => QueueLimitText::Cells(n),
                    QueueLimit::Packets(n) => QueueLimitText::Packets(n),
                    QueueLimit::Bytes(b) => QueueLimitText::Bytes(b),
                },
                unit: if l.cells { "cells" } else { "packets" },
                port: l.port.as_ref().map(|p| p.stats),
                qdisc: l.discipline(),
                ecn_marks: l.is_aqm().then(|| l.ecn_marks()),
                utilisation: st.busy_ns as f64 / end.max(1) as f64,
                packets_in: st.packets_in,
                packets_out: st.packets_out,
                drops: Drops::new(&st.drops, causes),
                mean_queue_packets: st.queue_area as f64 / 1e9 / dur,
                max_queue_packets: st.queue_max,
                mean_queue_bytes: st.queue_byte_area as f64 / 1e9 / dur,
                max_queue_bytes: st.queue_max_bytes,
                loss_model: model,
                loss_rate_implied: l.loss().mean_loss_rate(),
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
            stopped_at: sim.stopped_at.map(secs),
            rounds: sim.rounds.iter().map(|g| g.result()).collect(),
        },
        flow_traces: traces,
        packet_trace: sim.packet_trace.take(),
        stages: StageTimes::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::QueueLimitText;

    /// Each limit is written as the string the summary has always carried.
    #[test]
    fn queue_limits_are_written_as_their_strings() {
        for (limit, text) in [
            (QueueLimitText::Packets(100), "\"100pkt\""),
            (QueueLimitText::Bytes(64_000), "\"64000B\""),
            (QueueLimitText::Cells(4096), "\"4096cells\""),
            (QueueLimitText::Unlimited, "\"unlimited\""),
            (
                QueueLimitText::Packets(u64::MAX),
                "\"18446744073709551615pkt\"",
            ),
        ] {
            assert_eq!(serde_json::to_string(&limit).unwrap(), text);
        }
    }
}

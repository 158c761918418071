//! Results of a run: per-flow and per-link summaries (serialisable), and the optional traces.
//! Names no transport: each flow's transport adds its own results and series.

use crate::engine::routes::Routes;
use crate::engine::{Conservation, Simulation};
use crate::net::atm::results::VcResult;
use crate::net::Link;
use crate::trace::PacketTrace;
use crate::transport::{Detail, Series};
use serde::Serialize;

mod collect;
pub mod csv_table;
pub mod digest;
mod drops;
pub mod fct;
pub mod files;
pub mod json_text;
pub mod records;
pub use collect::collect;
pub mod slim;
mod summary_text;
mod two_threads;
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
pub(crate) fn route(sim: &Simulation, a: u32, b: u32, flow: u32) -> Vec<usize> {
    route_on(&sim.routes, &sim.links, a, b, flow)
}

/// [`route`] on the network's `routes` and `links`: the link directions as far as the route
/// goes ([`Routes::follow`]; a built scenario's routes all reach their end).
pub(crate) fn route_on(routes: &Routes, links: &[Link], a: u32, b: u32, flow: u32) -> Vec<usize> {
    let mut hops = Vec::new();
    routes.follow(|l| links[l as usize].to, flow, a, b, &mut hops);
    hops.iter().map(|&(_, l)| l as usize).collect()
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
    /// DualPI2's two queues (`qdisc = "dualpi2"` only): packets, sojourn times, marks and
    /// drops of the L4S and Classic queues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dual_queue: Option<crate::net::qdisc::DualQueueStats>,
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
    /// Findings on a scenario that is valid but probably not what was meant (left out when
    /// there are none, or when they were not asked for): see [`crate::scenario::advice`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::scenario::advice::Advice>,
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

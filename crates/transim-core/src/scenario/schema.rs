//! The scenario schema: the one definition of what a scenario file may contain. Every table
//! rejects unknown keys. Variant choices are plain `kind`/`model` strings rather than tagged
//! enums so that every error keeps its full field path.

pub use super::schema_atm::*;
pub use super::schema_sctp::*;
use super::units::{Duration, Probability, QueueLimit, Rate, Size};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

fn default_seed() -> u64 {
    1
}

/// A whole scenario.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name shown in results.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// Seed of every random stream in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time to run (the run ends earlier if nothing is left to do).
    pub duration: Duration,
    /// TCP options shared by every flow (a flow's own `tcp` table overrides them).
    #[serde(default)]
    pub tcp: TcpSpec,
    /// SCTP options shared by every SCTP flow (a flow's own `sctp` table overrides them).
    #[serde(default)]
    pub sctp: SctpSpec,
    /// Nodes and links.
    pub topology: TopologySpec,
    /// Connections.
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Flows generated from a traffic pattern.
    #[serde(default)]
    pub traffic: Option<TrafficSpec>,
    /// What to record.
    #[serde(default)]
    pub trace: TraceSpec,
    /// ATM: cells, VCs and switches (see [`AtmSpec`]).
    #[serde(default)]
    pub atm: Option<AtmSpec>,
    /// What every host does to the packets it sends.
    #[serde(default)]
    pub endpoints: Option<EndpointsSpec>,
    /// For each flow, the `[[flows]]` entry it was copied from, once an entry's `count` has
    /// made copies (empty when none did): errors name the entry as written.
    #[serde(skip)]
    pub flow_entries: Vec<u32>,
    /// The flows a `[traffic]` pattern made: the first one's index and how many (errors in
    /// them name `traffic`).
    #[serde(skip)]
    pub traffic_flows: Option<(usize, usize)>,
}

/// The `[endpoints]` table.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointsSpec {
    /// Processing time per packet sent: packets leave a host one at a time, each after this
    /// long (a FIFO server in front of its interface; YATS' PROCTIM).
    #[serde(default)]
    pub processing: Option<Duration>,
    /// Spread of the processing time: each is drawn uniformly from [t, t·(1 + spread)]
    /// (YATS' phase-effect option uses 10 %; default 0).
    #[serde(default)]
    pub processing_spread: Option<Probability>,
}

/// Topology kinds.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// n senders and n receivers around one bottleneck, with per-flow access links.
    Dumbbell,
    /// An explicit list of nodes and links with static routes.
    Explicit,
    /// A k-ary fat tree (`k`, `host_link`, `fabric_link`), made explicit with ECMP on.
    FatTree,
    /// Leaves joined to every spine (`leaves`, `spines`, `hosts_per_leaf`), ECMP on.
    LeafSpine,
    /// A chain of `hops` router links with a long path and one cross path per hop.
    ParkingLot,
}

/// The topology table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// `dumbbell` or `explicit`.
    pub kind: TopologyKind,
    /// Dumbbell: the router-to-router link (forward = towards the receivers).
    #[serde(default)]
    pub bottleneck: Option<LinkSpec>,
    /// Dumbbell: default access link for both sides (default: 10× the bottleneck rate, no
    /// delay, 1000-packet queues).
    #[serde(default)]
    pub access: Option<LinkSpec>,
    /// Dumbbell: access link of every sender (forward = sender → router).
    #[serde(default)]
    pub sender_access: Option<LinkSpec>,
    /// Dumbbell: access link of every receiver (forward = router → receiver).
    #[serde(default)]
    pub receiver_access: Option<LinkSpec>,
    /// Explicit: node names.
    #[serde(default)]
    pub nodes: Option<Vec<String>>,
    /// Explicit: links, each with `between = [a, b]` (forward = a → b); `atm = true` makes
    /// a link carry cells.
    #[serde(default)]
    pub links: Option<Vec<LinkSpec>>,
    /// Explicit: static routes overriding the shortest-hop default.
    #[serde(default)]
    pub routes: Option<Vec<RouteSpec>>,
    /// Spread flows over equal-cost shortest paths (`true` or `"flow"`: a per-flow hash at
    /// every node; `"packet"`: a per-packet hash, packet spraying) instead of taking the
    /// first link in order (`false`, the default; `true` for fat_tree and leaf_spine).
    #[serde(default)]
    pub ecmp: Option<EcmpSpec>,
    /// Generated topologies: the links between hosts and switches.
    #[serde(default)]
    pub host_link: Option<LinkSpec>,
    /// Generated topologies: the links between switches (default: as host_link).
    #[serde(default)]
    pub fabric_link: Option<LinkSpec>,
    /// fat_tree: the arity k (even): k³/4 hosts.
    #[serde(default)]
    pub k: Option<u32>,
    /// leaf_spine: leaf switches.
    #[serde(default)]
    pub leaves: Option<u32>,
    /// leaf_spine: spine switches.
    #[serde(default)]
    pub spines: Option<u32>,
    /// leaf_spine: hosts on each leaf.
    #[serde(default)]
    pub hosts_per_leaf: Option<u32>,
    /// parking_lot: router-to-router links.
    #[serde(default)]
    pub hops: Option<u32>,
}

/// A traffic pattern that generates flows between hosts.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TrafficPattern {
    /// Every host sends to one other host and receives from one (a random derangement).
    Permutation,
    /// `senders` hosts (default all others) send to one `receiver` (default the first host).
    Incast,
    /// Every host sends to every other host.
    AllToAll,
    /// `flows` flows arrive as a Poisson process, each between a random pair of distinct
    /// hosts, with a size drawn from `sizes`, at a rate that offers `load` of the hosts'
    /// access capacity: the datacenter workload of flow-completion-time studies.
    Poisson,
}

/// `traffic.hosts`: the hosts a pattern runs between.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(
    untagged,
    expecting = "expected a list of host names or a count of hosts"
)]
pub enum HostChoice {
    /// The first N of a generated topology's hosts (`h0`, `h1`, … in a fat tree).
    Count(u64),
    /// These hosts, by name.
    Names(Vec<String>),
}

/// The `[traffic]` table: flows from a pattern (added to any `[[flows]]`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// Which pattern.
    pub pattern: TrafficPattern,
    /// The hosts it runs between (default: a generated topology's hosts): a list of
    /// names, or a count N for the first N of a generated topology's hosts.
    #[serde(default)]
    pub hosts: Option<HostChoice>,
    /// incast: how many senders.
    #[serde(default)]
    pub senders: Option<u32>,
    /// incast: the receiving host.
    #[serde(default)]
    pub receiver: Option<String>,
    /// Every generated flow's application.
    #[serde(default)]
    pub app: AppSpec,
    /// When the flows start.
    #[serde(default)]
    pub start: Option<Duration>,
    /// TCP options for the generated flows.
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    /// poisson: the offered load, a fraction of the hosts' access capacity (0 < load ≤ 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// poisson: the access rate of each host that `load` is a fraction of (default:
    /// `topology.host_link.rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_rate: Option<Rate>,
    /// poisson: flow sizes, `"web_search"`, `"hadoop"` or a table `[[bytes, fraction], ...]`
    /// of the cumulative distribution ([`super::flow_sizes::SizeCdf`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<serde_json::Value>,
    /// poisson: how many flows arrive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
}

/// A static route: at node `at`, packets for `to` go to neighbour `via`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    /// Node where the route applies.
    pub at: String,
    /// Destination node.
    pub to: String,
    /// Next hop (a neighbour of `at`).
    pub via: String,
}

/// A bidirectional link; `forward` and `reverse` override fields per direction.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Explicit topologies: the two end nodes; forward is from the first to the second.
    #[serde(default)]
    pub between: Option<Vec<String>>,
    /// Explicit topologies: the link carries ATM cells (needs an `[atm]` table).
    #[serde(default)]
    pub atm: Option<bool>,
    /// Rate of both directions.
    pub rate: Rate,
    /// One-way propagation delay of both directions.
    #[serde(default)]
    pub delay: Option<Duration>,
    /// Queue limit of both directions (default 100 packets).
    #[serde(default)]
    pub queue: Option<QueueLimit>,
    /// Queue discipline of both directions (default drop-tail).
    #[serde(default)]
    pub qdisc: Option<QdiscSpec>,
    /// Parameters of the active queue manager (`qdisc = "red"` or `"codel"`) of both
    /// directions.
    #[serde(default)]
    pub aqm: Option<AqmSpec>,
    /// Framing bytes added to every packet for serialisation (default 0).
    #[serde(default)]
    pub overhead: Option<Size>,
    /// Failures of both directions (packets whose transmission starts while down are lost).
    #[serde(default)]
    pub down: Option<Vec<DownSpec>>,
    /// A random part of both directions' propagation delay: each packet's delay is `delay`
    /// plus a draw uniform in [0, jitter) (default none).
    #[serde(default)]
    pub jitter: Option<Duration>,
    /// With `jitter`, packets may overtake one another (default false: a packet arrives no
    /// earlier than the one sent ahead of it).
    #[serde(default)]
    pub reorder: Option<bool>,
    /// Overrides for the forward direction.
    #[serde(default)]
    pub forward: Option<DirectionSpec>,
    /// Overrides for the reverse direction.
    #[serde(default)]
    pub reverse: Option<DirectionSpec>,
}

/// One direction of a link: overrides and what only a direction can have (loss, drops).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    /// Rate of this direction.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// Delay of this direction.
    #[serde(default)]
    pub delay: Option<Duration>,
    /// Queue limit of this direction.
    #[serde(default)]
    pub queue: Option<QueueLimit>,
    /// Queue discipline of this direction.
    #[serde(default)]
    pub qdisc: Option<QdiscSpec>,
    /// Parameters of this direction's active queue manager (replaces the link's table).
    #[serde(default)]
    pub aqm: Option<AqmSpec>,
    /// Framing bytes per packet on this direction.
    #[serde(default)]
    pub overhead: Option<Size>,
    /// The random part of this direction's propagation delay.
    #[serde(default)]
    pub jitter: Option<Duration>,
    /// Whether this direction's packets may overtake one another (with `jitter`).
    #[serde(default)]
    pub reorder: Option<bool>,
    /// Random loss model.
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Scripted drops.
    #[serde(default)]
    pub drops: Option<DropScriptSpec>,
}

/// Queue disciplines.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum QdiscSpec {
    /// FIFO, drop the arriving packet when full.
    #[serde(rename = "droptail")]
    DropTail,
    /// Per-flow fair queueing (deficit round robin, longest-queue drop).
    Fq,
    /// FIFO where a newer pure ACK replaces an older queued one of the same flow.
    AckFilter,
    /// ns-2's `Queue/DropTail`: a limit of L admits L − 1 waiting packets, because its check
    /// counts the arriving packet (`length + 1 >= limit` drops), also when the link is idle.
    #[serde(rename = "droptail_ns2")]
    DropTailNs2,
    /// Random Early Detection (gentle by default; `aqm.adaptive` for Adaptive RED).
    Red,
    /// CoDel (RFC 8289).
    Codel,
    /// FQ-CoDel (RFC 8290): per-flow queues with CoDel each, new flows first.
    FqCodel,
    /// PIE (RFC 8033).
    Pie,
    /// Step marking at `aqm.k` waiting packets (DCTCP's switch).
    Step,
    /// DualPI2 (RFC 9332): L4S's coupled dual queue.
    Dualpi2,
}

impl QdiscSpec {
    /// The name as scenarios write it.
    pub fn name(self) -> &'static str {
        match self {
            QdiscSpec::DropTail => "droptail",
            QdiscSpec::Fq => "fq",
            QdiscSpec::AckFilter => "ack_filter",
            QdiscSpec::DropTailNs2 => "droptail_ns2",
            QdiscSpec::Red => "red",
            QdiscSpec::Codel => "codel",
            QdiscSpec::FqCodel => "fq_codel",
            QdiscSpec::Pie => "pie",
            QdiscSpec::Step => "step",
            QdiscSpec::Dualpi2 => "dualpi2",
        }
    }
}

/// Parameters of an active queue manager; each field belongs to one discipline (the build
/// refuses the others' fields). Defaults: ns-3's `RedQueueDisc` (gentle, packet mode) and
/// RFC 8289 for CoDel.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AqmSpec {
    /// Mark ECN-capable packets Congestion Experienced instead of dropping them (both).
    #[serde(default)]
    pub ecn: Option<bool>,
    /// RED: lower threshold of the average queue, packets (default 5).
    #[serde(default)]
    pub min_th: Option<f64>,
    /// RED: upper threshold of the average queue, packets (default 15).
    #[serde(default)]
    pub max_th: Option<f64>,
    /// RED: drop probability at max_th (default 1/50).
    #[serde(default)]
    pub max_p: Option<Probability>,
    /// RED: weight of the average queue (default 0.002).
    #[serde(default)]
    pub w_q: Option<f64>,
    /// RED: gentle RED (default true).
    #[serde(default)]
    pub gentle: Option<bool>,
    /// RED: Adaptive RED's automatic max_p (default false).
    #[serde(default)]
    pub adaptive: Option<bool>,
    /// RED: ns-3's `Wait` rule between drops (default false: Floyd & Jacobson's).
    #[serde(default)]
    pub wait: Option<bool>,
    /// RED: mean packet size for the idle-time decay (default 500 bytes, as ns-2 and ns-3);
    /// PIE: no early drop while at most two such packets wait (default 1000 bytes).
    #[serde(default)]
    pub mean_packet: Option<Size>,
    /// CoDel, FQ-CoDel: target queue delay (default 5 ms); PIE: QDELAY_REF (default 15 ms);
    /// DualPI2: the Classic queue's target (default 15 ms).
    #[serde(default)]
    pub target: Option<Duration>,
    /// CoDel, FQ-CoDel: interval (default 100 ms).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// FQ-CoDel: bytes per flow per round (default 1514).
    #[serde(default)]
    pub quantum: Option<Size>,
    /// FQ-CoDel: number of flow queues (default 1024).
    #[serde(default)]
    pub flows: Option<u32>,
    /// PIE: update period (default 15 ms); DualPI2: 16 ms.
    #[serde(default)]
    pub t_update: Option<Duration>,
    /// PIE: weight of the delay's distance to target, per second (default 0.125); DualPI2:
    /// 0.16.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// PIE: weight of the delay's change, per second (default 1.25); DualPI2: 3.2.
    #[serde(default)]
    pub beta: Option<f64>,
    /// PIE: burst allowance (default 150 ms).
    #[serde(default)]
    pub max_burst: Option<Duration>,
    /// Step: marking threshold in waiting packets (default 20, the DCTCP paper's for
    /// 1 Gbps; it suggests K > C·RTT/7).
    #[serde(default)]
    pub k: Option<u64>,
    /// DualPI2: the coupling factor k between the Classic and L4S probabilities (default 2).
    #[serde(default)]
    pub coupling: Option<f64>,
    /// DualPI2: the L4S queue marks packets that waited this long (default 1 ms).
    #[serde(default)]
    pub l4s_threshold: Option<Duration>,
    /// DualPI2: width of the L4S marking ramp above the threshold (default 0: a step).
    #[serde(default)]
    pub l4s_range: Option<Duration>,
    /// DualPI2: the Classic queue's share of the link while both queues hold packets
    /// (Linux's `c_protection`, default 0.1), by weighted round robin.
    #[serde(default)]
    pub c_protection: Option<Probability>,
    /// DualPI2: schedule by a time-shifted FIFO with this shift instead of the round robin.
    #[serde(default)]
    pub tshift: Option<Duration>,
}

/// The ECN-capable codepoint a TCP flow sends (`tcp.ecn_codepoint`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcnCodepointSpec {
    /// ECT(0), RFC 3168's.
    Ect0,
    /// ECT(1), the L4S identifier (RFC 9331).
    Ect1,
}

/// Loss model names.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// No random loss.
    None,
    /// Independent per-packet loss with probability `p`.
    Bernoulli,
    /// Simple Gilbert chain: `p` = P(good→bad), `q` = P(bad→good); every packet in the bad
    /// state is lost, none in the good state.
    Gilbert,
    /// General Gilbert–Elliott: `p_gb`, `p_bg`, `loss_good` (default 0), `loss_bad` (default 1).
    GilbertElliott,
}

/// A random loss model.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    /// Which model.
    pub model: LossKind,
    /// Bernoulli: loss probability. Gilbert: P(good → bad).
    #[serde(default)]
    pub p: Option<Probability>,
    /// Gilbert: P(bad → good).
    #[serde(default)]
    pub q: Option<Probability>,
    /// Gilbert–Elliott: P(good → bad).
    #[serde(default)]
    pub p_gb: Option<Probability>,
    /// Gilbert–Elliott: P(bad → good).
    #[serde(default)]
    pub p_bg: Option<Probability>,
    /// Gilbert–Elliott: loss probability in the good state.
    #[serde(default)]
    pub loss_good: Option<Probability>,
    /// Gilbert–Elliott: loss probability in the bad state.
    #[serde(default)]
    pub loss_bad: Option<Probability>,
}

/// Scripted drops on one link direction.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DropScriptSpec {
    /// 1-based numbers of packets (all packets offered to this direction) to drop.
    #[serde(default)]
    pub packets: Vec<u64>,
    /// Segment transmissions to drop.
    #[serde(default)]
    pub segments: Vec<SegmentDropSpec>,
    /// Where the drop happens: "wire" (default: the packet is sent and lost on the link) or
    /// "enqueue" (discarded before the queue, never occupying the link, as ns-2's error
    /// module placed in front of a link's queue does).
    #[serde(default)]
    pub at: Option<DropAtSpec>,
}

/// Where a scripted drop happens.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DropAtSpec {
    /// On the link: the packet is transmitted and lost.
    Wire,
    /// Before the queue: the packet never uses the link.
    Enqueue,
}

/// "Drop the k-th transmission of segment n of flow f".
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentDropSpec {
    /// Flow index (0-based, in the order of `flows`).
    #[serde(default)]
    pub flow: u32,
    /// 1-based data segment number, in order of first transmission.
    pub segment: u32,
    /// Which transmission (1 = the original).
    #[serde(default = "one")]
    pub transmission: u16,
}

fn one() -> u16 {
    1
}

/// Application kinds.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// Always has data.
    #[default]
    Bulk,
    /// Sends `bytes` bytes, then closes.
    Finite,
    /// Issues writes of the given `sizes` in order (as the send buffer allows, each at its
    /// time in `at` if given), then closes.
    Writes,
    /// Study 1's server: `count` files of `size` bytes, written round-robin in pieces of at
    /// most `piece` bytes (piece 1 of each file, then piece 2, …). SCTP puts file k on
    /// stream k, one message per piece; TCP writes the pieces into its one stream.
    Files,
    /// Barrier-synchronised rounds (TCP; incast studies): `bytes` per round for `rounds`
    /// rounds; the next round is written on every flow of the `group` the instant the last
    /// of them has delivered its bytes of this one.
    Rounds,
}

/// The application driving a flow.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    /// `bulk`, `finite`, `writes`, `files` or `rounds`.
    #[serde(default)]
    pub kind: AppKind,
    /// Finite: bytes to send. Rounds: bytes per round.
    #[serde(default)]
    pub bytes: Option<Size>,
    /// Writes: sizes of the writes, in order.
    #[serde(default)]
    pub sizes: Option<Box<[Size]>>,
    /// Writes: when each write is made, from the flow's start (one per size,
    /// non-decreasing; default: all at the start). A write waits for the ones before it.
    /// (A boxed list: rare, and a flow's spec stays within its size budget.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Box<Vec<Duration>>>,
    /// Files: how many.
    #[serde(default)]
    pub count: Option<u32>,
    /// Files: bytes each (boxed: rare, and a flow's spec stays within its size budget).
    #[serde(default)]
    pub size: Option<Box<Size>>,
    /// Files: largest piece per write (default 1460). Bulk (TCP, stream packetization): the
    /// application writes pieces of this size, each when the send buffer has room for it
    /// (study 2's 4 KB frames; default: it fills the buffer byte by byte).
    #[serde(default)]
    pub piece: Option<Size>,
    /// Rounds: how many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Rounds: the flows that wait for each other (default: every rounds flow without a
    /// group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<Box<str>>,
    /// Rounds: each flow writes every round after the first a random time after the
    /// barrier, uniform in [0, jitter) and drawn anew per flow and round (the response
    /// jitter incast studies apply; default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Box<Duration>>,
}

/// One connection.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Display name (default `"flow<i>"`).
    #[serde(default)]
    pub name: Option<String>,
    /// How many such flows the entry stands for (default 1): as if it were written that many
    /// times (in a dumbbell each has its own hosts). Copies of a named entry are named
    /// `<name><j>`, j counting from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// With a `count`: how far apart the copies start (copy j at `start` + j × `stagger`;
    /// default together).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stagger: Option<Duration>,
    /// Each copy (the only one, without a `count`) starts later by a time drawn uniformly
    /// from [0, `jitter`) (from the scenario's seed), after any `stagger`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Duration>,
    /// Explicit topologies: sender node.
    #[serde(default)]
    pub src: Option<String>,
    /// Explicit topologies: receiver node.
    #[serde(default)]
    pub dst: Option<String>,
    /// Transport protocol (default TCP).
    #[serde(default)]
    pub protocol: Protocol,
    /// When the connection opens.
    #[serde(default)]
    pub start: Option<Duration>,
    /// Application.
    #[serde(default)]
    pub app: AppSpec,
    /// TCP options for this flow only.
    #[serde(default)]
    pub tcp: Option<Box<TcpSpec>>,
    /// SCTP options for this flow only.
    #[serde(default)]
    pub sctp: Option<Box<SctpSpec>>,
    /// SCTP multi-homing: further (src, dst) address pairs after the primary (src, dst).
    #[serde(default)]
    pub paths: Option<Vec<PathSpec>>,
    /// Mid-session changes of congestion control, in time order.
    #[serde(default)]
    pub switch: Option<Box<[SwitchSpec]>>,
    /// Dumbbell: this flow's sender access link.
    #[serde(default)]
    pub sender_access: Option<Box<LinkSpec>>,
    /// Dumbbell: this flow's receiver access link.
    #[serde(default)]
    pub receiver_access: Option<Box<LinkSpec>>,
}

/// A flow's transport protocol.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// TCP, configured by `[tcp]` and the flow's own `tcp` table.
    #[default]
    Tcp,
    /// SCTP, configured by `[sctp]` and the flow's own `sctp` table.
    Sctp,
}

/// "At this time, switch this flow's congestion control to that one."
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// When (from the start of the run).
    pub at: Duration,
    /// The congestion control to switch to.
    pub cc: String,
}

/// What to record during the run.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Per-flow time series (cwnd, ssthresh, srtt, rto, flight, sequence numbers).
    #[serde(default)]
    pub flows: bool,
    /// Per-packet events (send, deliver, drop).
    #[serde(default)]
    pub packets: bool,
    /// Packet captures (pcap files Wireshark opens).
    #[serde(default)]
    pub pcap: Option<PcapSpec>,
    /// Trace only these flows (indices into `flows`); default every flow.
    #[serde(default)]
    pub only_flows: Option<Vec<u32>>,
    /// Keep trace rows from this time on (default the start).
    #[serde(default)]
    pub start: Option<Duration>,
    /// Keep trace rows up to this time (default the end).
    #[serde(default)]
    pub end: Option<Duration>,
    /// Per-flow series: at most one row per this interval (default every ACK).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Refuse to run when the traces are estimated to exceed this many bytes (default 2 GiB).
    #[serde(default)]
    pub max_bytes: Option<Size>,
}

/// Which link directions to capture, and where.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Folder for the files (one per link direction, named after it: r1_to_r2.pcap).
    pub dir: String,
    /// Link directions by name ("r1->r2"); default every one.
    #[serde(default)]
    pub links: Option<Vec<String>>,
}

/// Named sets of defaults.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub enum Profile {
    /// Current RFCs.
    #[default]
    #[serde(rename = "rfc")]
    Rfc,
    /// Linux 2.6 (c. 2.6.15).
    #[serde(rename = "linux-2.6")]
    Linux26,
    /// ns-2.35 defaults.
    #[serde(rename = "ns2")]
    Ns2,
}

/// Loss-recovery names.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RecoverySpec {
    /// Tahoe.
    Tahoe,
    /// Reno.
    Reno,
    /// NewReno.
    Newreno,
    /// Sack1 (ns-2 / Fall & Floyd).
    Sack1,
    /// SackPlus.
    Sackplus,
    /// RFC 6675.
    Rfc6675,
    /// RACK-TLP (RFC 8985).
    #[serde(rename = "rack-tlp")]
    RackTlp,
}

/// cwnd counting unit.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CwndUnitSpec {
    /// Bytes.
    Bytes,
    /// Packets.
    Packets,
    /// Packets with ns-2's arithmetic: a fractional cwnd (+1/cwnd per ACK in avoidance) of
    /// which the whole part is sent; ssthresh max(2, ⌊window / 2⌋) packets.
    Ns2,
}

/// Halving base.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HalvingSpec {
    /// FlightSize.
    Flight,
    /// min(cwnd, rwnd).
    Window,
    /// ns-3's rule: the data in flight as RFC 6675's pipe counts it when recovery starts.
    Pipe,
}

/// Delayed-ACK policy names.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DelayedAckSpec {
    /// ACK every segment.
    Off,
    /// ACK every `delayed_ack_count` segments or on the timer.
    On,
    /// Linux quick-ACK then delayed.
    Linux,
}

/// Nagle names.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NagleSpec {
    /// Off.
    Off,
    /// RFC 896.
    Rfc896,
    /// Minshall's variant (Linux).
    Minshall,
}

/// Packetization names.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PacketizationSpec {
    /// Segment the buffered byte stream.
    Stream,
    /// Form segments at write time (Linux `tcp_sendmsg`).
    Write,
}

/// Partial-ACK timer rule names (NewReno, and the SACK schemes).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimerSpec {
    /// Restart the RTO only on the first partial ACK.
    Impatient,
    /// Restart the RTO on every partial ACK.
    SlowButSteady,
}

/// Slow start's byte counting names ([`crate::tcp::config::ByteCounting`]).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ByteCountingSpec {
    /// One SMSS per ACK at most (RFC 5681).
    Off,
    /// At most 2·SMSS per ACK (RFC 3465).
    Rfc3465,
    /// Every byte acknowledged.
    Full,
}

/// Which ACKs may grow cwnd ([`crate::tcp::config::CwndGrowth`]).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CwndGrowthSpec {
    /// Every ACK of new data.
    Always,
    /// Only while cwnd limits the sender.
    CwndLimited,
    /// Linux's rule from 3.16.
    Linux,
}

/// CUBIC's HyStart names ([`crate::tcp::cc::hystart`]).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HyStartSpec {
    /// No HyStart: RFC 5681's slow start.
    Off,
    /// Linux's constants.
    Linux,
    /// ns-3's `TcpCubic` constants.
    Ns3,
    /// HyStart++ (RFC 9406).
    Rfc9406,
}

/// How a connection is set up.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HandshakeSpec {
    /// Three-way handshake with options on the SYN and SYN-ACK.
    Rfc,
    /// ns-2's one-way TCP: 40-byte SYN and reply, no third-leg ACK.
    Ns2,
}

/// The guard on a new fast retransmit after a reduction.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FrGuardSpec {
    /// RFC 6582: the cumulative ACK covers the high mark (snd_una >= recover).
    Rfc6582,
    /// ns-2: `highest_ack_ > recover_` in packet numbers (one packet beyond).
    Ns2,
}

/// How SACK blocks are laid out in an ACK's size.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SackOptionSpec {
    /// RFC 2018: kind and length (2 bytes) plus 8 per block, padded with two NOPs (4 + 8n).
    Rfc2018,
    /// ns-2's TCPSink/Sack1: 8 bytes per block, nothing else (8n).
    Ns2,
}

/// How often SackPlus may detect a lost retransmission of the same hole per recovery episode.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SackPlusDetectSpec {
    /// Every time a SACK shows the hole's latest retransmission lost.
    Every,
    /// Once per hole per episode; a second lost retransmission waits for the timeout.
    Once,
}

/// `topology.ecmp`: how equal-cost shortest paths are shared out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcmpSpec {
    /// The first link in each node's order (`false`).
    Off,
    /// One path per flow, by a hash of the flow and the node (`true` or `"flow"`).
    Flow,
    /// One path per packet, by a hash of the packet and the node (`"packet"`).
    Packet,
}

impl EcmpSpec {
    /// Whether equal-cost paths are shared out at all.
    pub fn spreads(self) -> bool {
        self != EcmpSpec::Off
    }
}

const ECMP_EXPECT: &str = "true, false, \"flow\" or \"packet\"";

impl Serialize for EcmpSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EcmpSpec::Off => s.serialize_bool(false),
            EcmpSpec::Flow => s.serialize_bool(true),
            EcmpSpec::Packet => s.serialize_str("packet"),
        }
    }
}

impl<'de> Deserialize<'de> for EcmpSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = EcmpSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(ECMP_EXPECT)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<EcmpSpec, E> {
                Ok(if v { EcmpSpec::Flow } else { EcmpSpec::Off })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<EcmpSpec, E> {
                match v {
                    "flow" => Ok(EcmpSpec::Flow),
                    "packet" => Ok(EcmpSpec::Packet),
                    _ => Err(E::custom(format!("got {v:?}; expected {ECMP_EXPECT}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// Initial window: a number of segments or a rule name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum IwSpec {
    /// Fixed number of segments.
    Segments(u32),
    /// A named rule.
    Rule(IwRule),
}

/// Named initial-window rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum IwRule {
    /// RFC 3390.
    Rfc3390,
    /// Linux 2.6 table.
    Linux26,
    /// RFC 6928.
    Rfc6928,
}

const IW_EXPECT: &str =
    "a number of segments (1 to 100) or one of \"rfc3390\", \"linux-2.6\", \"rfc6928\"";

impl<'de> Deserialize<'de> for IwSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = IwSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(IW_EXPECT)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IwSpec, E> {
                if (1..=100).contains(&v) {
                    Ok(IwSpec::Segments(v as u32))
                } else {
                    Err(E::custom(format!("got {v}; expected {IW_EXPECT}")))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IwSpec, E> {
                if v < 0 {
                    return Err(E::custom(format!("got {v}; expected {IW_EXPECT}")));
                }
                self.visit_u64(v as u64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<IwSpec, E> {
                if v.fract() == 0.0 && v >= 0.0 {
                    return self.visit_u64(v as u64);
                }
                Err(E::custom(format!("got {v}; expected {IW_EXPECT}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IwSpec, E> {
                match v {
                    "rfc3390" => Ok(IwSpec::Rule(IwRule::Rfc3390)),
                    "linux-2.6" => Ok(IwSpec::Rule(IwRule::Linux26)),
                    "rfc6928" => Ok(IwSpec::Rule(IwRule::Rfc6928)),
                    _ => match v.parse::<u64>() {
                        Ok(n) => self.visit_u64(n),
                        Err(_) => Err(E::custom(format!("got {v:?}; expected {IW_EXPECT}"))),
                    },
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// TCP options; every field is optional and falls back to the flow-level, then scenario-level
/// table, then the profile's default.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Defaults profile: "rfc" (default), "linux-2.6", "ns2".
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Congestion control name.
    #[serde(default)]
    pub cc: Option<String>,
    /// Loss recovery: tahoe, reno, newreno.
    #[serde(default)]
    pub recovery: Option<RecoverySpec>,
    /// Payload bytes per full segment (default: MTU − 40 − options).
    #[serde(default)]
    pub mss: Option<Size>,
    /// Path MTU (default 1500).
    #[serde(default)]
    pub mtu: Option<Size>,
    /// Timestamps option.
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// SACK-permitted (default: on for SACK-based recovery, else the profile's).
    #[serde(default)]
    pub sack: Option<bool>,
    /// Most SACK blocks per ACK (default 3 with timestamps, else 4).
    #[serde(default)]
    pub sack_blocks: Option<u8>,
    /// Window scaling.
    #[serde(default)]
    pub window_scale: Option<bool>,
    /// Receive buffer (the advertised window).
    #[serde(default)]
    pub rcv_buf: Option<Size>,
    /// The receiving application reads at this rate (default: at once, so the window is
    /// the whole buffer); the window is then what the unread bytes leave of the buffer.
    #[serde(default)]
    pub read_rate: Option<Rate>,
    /// Send buffer (limits how far ahead of the ACKs the application can write).
    #[serde(default)]
    pub snd_buf: Option<Size>,
    /// Initial window.
    #[serde(default)]
    pub initial_window: Option<IwSpec>,
    /// Initial ssthresh (default: unlimited).
    #[serde(default)]
    pub initial_ssthresh: Option<Size>,
    /// Cap on cwnd.
    #[serde(default)]
    pub max_cwnd: Option<Size>,
    /// "bytes" or "packets".
    #[serde(default)]
    pub cwnd_unit: Option<CwndUnitSpec>,
    /// "flight", "window" or "pipe".
    #[serde(default)]
    pub halving_base: Option<HalvingSpec>,
    /// "off", "on", "linux".
    #[serde(default)]
    pub delayed_ack: Option<DelayedAckSpec>,
    /// Delayed-ACK timer.
    #[serde(default)]
    pub delayed_ack_timeout: Option<Duration>,
    /// Segments per delayed ACK ("on").
    #[serde(default)]
    pub delayed_ack_count: Option<u32>,
    /// Linux quick-ACK segments at connection start.
    #[serde(default)]
    pub quickacks: Option<u32>,
    /// "off", "rfc896", "minshall".
    #[serde(default)]
    pub nagle: Option<NagleSpec>,
    /// How a `writes` application's data becomes segments: "write" (Linux: at write time,
    /// appending only to an unsent tail segment) or "stream".
    #[serde(default)]
    pub packetization: Option<PacketizationSpec>,
    /// RFC 3042.
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// After more than an RTO without sending, with nothing in flight, restart from a smaller
    /// window (Linux's `tcp_slow_start_after_idle`: cwnd halved per RTO idle, down to the
    /// initial window; RFC 5681 §4.1). Default on in the linux-2.6 profile, off elsewhere.
    #[serde(default)]
    pub slow_start_after_idle: Option<bool>,
    /// Proportional Rate Reduction (RFC 9937, Linux since 3.2, ns-3's default recovery): in
    /// SACK recovery (`rfc6675`, `rack-tlp`) each ACK lets out data in proportion to what it
    /// delivered, so the flight falls smoothly to ssthresh, instead of cwnd = ssthresh at
    /// once. Default off.
    #[serde(default)]
    pub prr: Option<bool>,
    /// D-SACK (RFC 2883): the receiver reports data that arrives twice in the first SACK
    /// block, and the sender counts the spurious retransmissions it shows (RACK-TLP also
    /// learns from it that a probe was not needed). Default on in the linux-2.6 profile
    /// (`tcp_dsack = 1`), off elsewhere.
    #[serde(default)]
    pub dsack: Option<bool>,
    /// Pace transmissions as Linux does without a pacing congestion control: 2·cwnd/SRTT in
    /// slow start, 1.2·cwnd/SRTT after (BBR always paces at its own rate).
    #[serde(default)]
    pub pacing: Option<bool>,
    /// Explicit Congestion Notification (RFC 3168): negotiate it in the handshake, send data
    /// ECN-capable, echo Congestion Experienced marks (ECE) and halve the window once per
    /// window of data on an echo (CWR). Default false (ns-3's `UseEcn` default).
    #[serde(default)]
    pub ecn: Option<bool>,
    /// With ECN: every packet ECN-capable (ECT(0)), the SYN, SYN-ACK, pure ACKs and
    /// retransmissions too, as Linux's DCTCP sends them (a marking switch then marks them
    /// rather than dropping them). Default on for DCTCP, else off: RFC 3168 sends only new
    /// data ECN-capable (6.1.4, 6.1.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_all_packets: Option<bool>,
    /// With ECN: the codepoint ECN-capable packets carry, "ect0" (RFC 3168, the default) or
    /// "ect1" (the L4S identifier of RFC 9331: DualPI2 puts the flow in its L queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_codepoint: Option<EcnCodepointSpec>,
    /// Use the FUL bit (study 5): the receiver signals a full uplink buffer, the sender
    /// freezes.
    #[serde(default)]
    pub ful: Option<bool>,
    /// FUL: raise at this many packets waiting in the uplink buffer (default: when full).
    #[serde(default)]
    pub ful_high: Option<u64>,
    /// FUL: clear at this many packets waiting (default: half the buffer).
    #[serde(default)]
    pub ful_low: Option<u64>,
    /// FUL: the sender's safety timer (default 1 s).
    #[serde(default)]
    pub ful_safety_timer: Option<Duration>,
    /// FUL: which reserved header bit carries it, 4, 5 or 6 of byte 12 (default 4).
    #[serde(default)]
    pub ful_bit: Option<u8>,
    /// NewReno: "impatient" (RFC 6582) or "slow_but_steady" (ns-2).
    #[serde(default)]
    pub partial_ack_timer: Option<PartialAckTimerSpec>,
    /// SACK recovery and NewReno: leave recovery as ns-3 does, cwnd = ssthresh and congestion
    /// control's growth on that same ACK (RFC 6675 does not grow there; RFC 6582's first
    /// option, transim's default, takes min(ssthresh, FlightSize + MSS)). Default false.
    #[serde(default)]
    pub grow_on_exit: Option<bool>,
    /// CUBIC: leave slow start by HyStart, "off" (default), "linux" or "ns3" (each tool's
    /// constants).
    #[serde(default)]
    pub hystart: Option<HyStartSpec>,
    /// Slow start's growth per ACK: "off" (default: at most one MSS, RFC 5681), "rfc3465"
    /// (bytes acknowledged, at most two MSS) or "full" (every byte acknowledged, as Linux's
    /// slow start and ns-3's CUBIC).
    #[serde(default)]
    pub byte_counting: Option<ByteCountingSpec>,
    /// Which ACKs grow cwnd: "always" (rfc and ns2 profiles), "cwnd_limited" (linux-2.6:
    /// only while cwnd, not the receive window or the application, limits the sender) or
    /// "linux" (Linux from 3.16: cwnd-limited over a window, and slow start up to twice the
    /// most in flight).
    #[serde(default)]
    pub cwnd_growth: Option<CwndGrowthSpec>,
    /// SACK recovery with D-SACK: undo a recovery's window reduction once D-SACKs report
    /// every retransmission of it as received twice (RFC 3708's detection, Linux's
    /// response). Default false.
    #[serde(default)]
    pub undo: Option<bool>,
    /// SackPlus: detect a hole's lost retransmission "every" time (default) or "once" per
    /// recovery episode.
    #[serde(default)]
    pub sackplus_detect: Option<SackPlusDetectSpec>,
    /// Bytes SACK blocks add to an ACK: "rfc2018" (4 + 8n) or "ns2" (8n; the ns2 profile's).
    #[serde(default)]
    pub sack_option: Option<SackOptionSpec>,
    /// ns-2's `maxburst_`: at most this many segments sent per ACK (default: no cap).
    #[serde(default)]
    pub maxburst: Option<u32>,
    /// ns-2's `precision_reduce_` (needs cwnd_unit = "ns2"): halving keeps the fraction of
    /// window / 2 in cwnd (ssthresh stays whole).
    #[serde(default)]
    pub precision_reduce: Option<bool>,
    /// The guard on a second fast retransmit: "rfc6582" (the ACK reaches the high mark of the
    /// last reduction) or "ns2" (it passes it by a packet: `highest_ack_ > recover_`).
    #[serde(default)]
    pub fr_guard: Option<FrGuardSpec>,
    /// The connection set-up: "rfc" (SYN and SYN-ACK with options, then a third-leg ACK) or
    /// "ns2" (ns-2's one-way agent: 40-byte SYN and reply, no third-leg ACK).
    #[serde(default)]
    pub handshake: Option<HandshakeSpec>,
    /// Duplicate-ACK threshold.
    #[serde(default)]
    pub dupthresh: Option<u32>,
    /// Fast retransmit and recovery on duplicate ACKs (default true); false leaves loss to
    /// the retransmission timer (YATS' FRETR switch, study 2's "FRR off").
    #[serde(default)]
    pub fast_retransmit: Option<bool>,
    /// Initial RTO.
    #[serde(default)]
    pub rto_initial: Option<Duration>,
    /// Minimum RTO.
    #[serde(default)]
    pub rto_min: Option<Duration>,
    /// Maximum RTO.
    #[serde(default)]
    pub rto_max: Option<Duration>,
    /// Clock granularity G (RFC 6298).
    #[serde(default)]
    pub clock_granularity: Option<Duration>,
    /// The adaptive framework (with `cc = "adaptive"`).
    #[serde(default)]
    pub adaptive: Option<AdaptiveSpec>,
}

/// `tcp.adaptive`: study 3's framework.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveSpec {
    /// The decision map (a file `transim decision-map build` wrote).
    pub map: String,
    /// Time between look-ups (default 1 s).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// The variant to start with (default "reno").
    #[serde(default)]
    pub start: Option<String>,
    /// Look up the true path instead of the estimates (an ablation).
    #[serde(default)]
    pub oracle: Option<bool>,
}

macro_rules! merge_fields {
    ($over:expr, $base:expr, $($f:ident),*) => {
        TcpSpec { $($f: $over.$f.clone().or_else(|| $base.$f.clone()),)* }
    };
}

impl TcpSpec {
    /// Fields of `self` where set, else those of `base`.
    pub fn over(&self, base: &TcpSpec) -> TcpSpec {
        merge_fields!(
            self,
            base,
            profile,
            cc,
            recovery,
            mss,
            mtu,
            timestamps,
            sack,
            sack_blocks,
            window_scale,
            rcv_buf,
            read_rate,
            snd_buf,
            initial_window,
            initial_ssthresh,
            max_cwnd,
            cwnd_unit,
            halving_base,
            delayed_ack,
            delayed_ack_timeout,
            delayed_ack_count,
            quickacks,
            nagle,
            packetization,
            limited_transmit,
            slow_start_after_idle,
            prr,
            dsack,
            pacing,
            ecn,
            ecn_all_packets,
            ecn_codepoint,
            partial_ack_timer,
            grow_on_exit,
            hystart,
            byte_counting,
            cwnd_growth,
            undo,
            sackplus_detect,
            sack_option,
            maxburst,
            precision_reduce,
            fr_guard,
            handshake,
            ful,
            ful_high,
            ful_low,
            ful_safety_timer,
            ful_bit,
            dupthresh,
            fast_retransmit,
            rto_initial,
            rto_min,
            rto_max,
            clock_granularity,
            adaptive
        )
    }
}

#[cfg(test)]
mod size_tests {
    #[test]
    fn a_flows_spec_keeps_its_rare_tables_in_boxes() {
        // A scenario of 100,000 flows keeps its specs through the run: with the TCP, SCTP
        // and two access-link tables inline (2.5 kB of them) the list took 535 MB.
        assert!(std::mem::size_of::<super::FlowSpec>() <= 320);
        assert!(
            std::mem::size_of::<super::LinkSpec>() > 1000,
            "boxed for a reason"
        );
    }
}

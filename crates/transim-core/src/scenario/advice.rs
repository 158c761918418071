//! Advice on a scenario that is valid but probably does not measure what was meant: a
//! receive window too small for the flow to reach its share of the path, ECN negotiated
//! where no queue marks, a run too short for a flow to get data through. Each finding is
//! worked out from the built network (its routes, rates and delays) and each flow's options
//! after its profile ([`crate::transport::Transport::window_facts`]: TCP and SCTP), before
//! the run; none changes what is simulated.
//!
//! The figures are lower bounds on what a flow needs: the base round-trip time counts the
//! links' propagation and serialisation only (queueing makes it longer), and a flow's fair
//! share divides each link of its path among all the flows whose data crosses it, whether
//! they overlap in time or not.

use super::schema::{AppKind, AppSpec, Scenario};
use crate::engine::Simulation;
use crate::results::route;
use crate::sim::{secs, Time};
use crate::transport::{WindowFacts, WindowLimit};
use serde::Serialize;

/// A window that holds a flow below this fraction of its fair share is reported.
pub const SHARE_FRACTION: f64 = 0.9;

/// One finding: what it is about, how many flows it concerns, and a message with the figures
/// of the first of them and what to change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Advice {
    /// What the finding is about: `"window_below_share"`, `"ecn_without_marking"` or
    /// `"run_too_short"`.
    pub code: &'static str,
    /// How many flows it concerns.
    pub flows: usize,
    /// What was found, with the first such flow's figures, and what to change.
    pub message: String,
}

/// Seconds to send `bytes` (plus the link's framing) at link direction `l`'s rate, and to
/// carry them across it.
fn crossing(sim: &Simulation, l: usize, bytes: u32) -> f64 {
    let link = &sim.links[l];
    (bytes + link.overhead) as f64 * 8.0 / link.rate_bps + secs(link.delay)
}

/// The most bytes an application hands TCP at once, if bounded: a window that holds it all
/// does not limit the transfer. (A files application sends its files one after another, a
/// rounds application one round at a time.)
fn largest_transfer(app: &AppSpec) -> Option<u64> {
    match app.kind {
        AppKind::Bulk => None,
        AppKind::Finite | AppKind::Rounds => app.bytes.map(|b| b.0),
        AppKind::Writes => app.sizes.as_ref().map(|s| s.iter().map(|b| b.0).sum()),
        AppKind::Files => app.size.as_ref().map(|b| b.0),
    }
}

/// What one flow's findings are computed from.
struct FlowView<'a> {
    name: &'a str,
    /// Its protocol's name, which prefixes its options' fields (`tcp.rcv_buf`).
    protocol: &'static str,
    facts: WindowFacts,
    start: Time,
    /// The most the application hands TCP at once ([`largest_transfer`]).
    transfer: Option<u64>,
    /// Base round-trip time, seconds.
    rtt: f64,
    /// The link direction of its data path with the smallest share, that share (bit/s) and
    /// how many flows' data crosses it.
    narrowest: Option<(usize, f64, u32)>,
    /// Whether a queue on its data path may mark ECN.
    marking: bool,
}

/// A finding's flows so far: how many, and the first one's message.
#[derive(Default)]
struct Found {
    count: usize,
    first: Option<String>,
}

impl Found {
    fn add(&mut self, message: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(message());
        }
    }

    fn into_advice(self, code: &'static str) -> Option<Advice> {
        let first = self.first?;
        let message = if self.count > 1 {
            format!("{first} ({} more flows alike)", self.count - 1)
        } else {
            first
        };
        Some(Advice {
            code,
            flows: self.count,
            message,
        })
    }
}

/// The advice on scenario `sc`, built as `sim`: at most one item per kind of finding.
pub fn advise(sc: &Scenario, sim: &Simulation) -> Vec<Advice> {
    let mut users = vec![0u32; sim.links.len()];
    for (i, f) in sim.flows.iter().enumerate() {
        for l in route(sim, f.src, f.dst, i as u32) {
            users[l] += 1;
        }
    }
    let mut window = Found::default();
    let mut ecn = Found::default();
    let mut short = Found::default();
    let mut sprayed = Found::default();
    for (i, (f, spec)) in sim.flows.iter().zip(&sc.flows).enumerate() {
        let Some(facts) = f.transport.window_facts() else {
            continue;
        };
        let hops = route(sim, f.src, f.dst, i as u32);
        let back = route(sim, f.dst, f.src, i as u32);
        if hops.iter().chain(&back).any(|&l| sim.links[l].cells) {
            // ATM: cells, not packets, cross these links (their own tax and pacing).
            continue;
        }
        let rtt = hops
            .iter()
            .map(|&l| crossing(sim, l, facts.data_wire))
            .chain(back.iter().map(|&l| crossing(sim, l, facts.ack_wire)))
            .sum();
        let narrowest = hops
            .iter()
            .map(|&l| {
                let n = users[l].max(1);
                (l, sim.links[l].rate_bps / n as f64, n)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let view = FlowView {
            name: &f.name,
            protocol: f.transport.protocol(),
            facts,
            start: f.start,
            transfer: largest_transfer(&spec.app),
            rtt,
            narrowest,
            marking: hops.iter().any(|&l| sim.links[l].may_mark_ecn()),
        };
        check_window(sim, &view, &mut window);
        if facts.ecn && !view.marking && !hops.is_empty() {
            ecn.add(|| ecn_message(&view));
        }
        // A flow that starts late in the run (an open-loop workload's last arrivals) is
        // expected to be cut off; one that starts in its first half and still gets no data
        // through says the run is short against the path's round trips.
        let (start, end) = (secs(view.start), secs(sim.end));
        if start + 2.0 * view.rtt > end && start <= end / 2.0 {
            short.add(|| short_message(sim, &view));
        }
        let far = |l: usize| sim.links[l].to;
        let spray = sim.routes.first_spray(f.src, f.dst, &hops, far);
        if let (Some(dupthresh), Some(node)) = (facts.dupthresh, spray) {
            sprayed.add(|| sprayed_message(sim, &view, dupthresh, node));
        }
    }
    [
        window.into_advice("window_below_share"),
        ecn.into_advice("ecn_without_marking"),
        short.into_advice("run_too_short"),
        sprayed.into_advice("sprayed_with_dupthresh"),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn sprayed_message(
    sim: &Simulation,
    v: &FlowView,
    (count, recovery): (u32, &str),
    node: u32,
) -> String {
    let how = if v.protocol == "sctp" {
        format!("SCTP takes {count} missing reports")
    } else {
        format!("tcp.recovery = \"{recovery}\" takes {count} duplicate ACKs")
    };
    let instead = if v.protocol == "sctp" {
        "raise sctp.fast_rtx_threshold, or spray per flow (topology.ecmp = true)"
    } else {
        "RACK-TLP (tcp.recovery = \"rack-tlp\") waits a reordering window instead"
    };
    format!(
        "{}: its packets are sprayed over equal-cost paths from {}, where they may overtake \
         one another, and {how} as a loss, so reordering will look like loss (spurious \
         retransmissions, a halved window); {instead}",
        v.name, sim.node_names[node as usize]
    )
}

/// A flow whose window alone, over its base round-trip time, holds it under
/// [`SHARE_FRACTION`] of its share of the narrowest link on its path. Not when the window
/// does not bind: a transfer no larger than the window, or a receiving application that
/// reads no faster than the window allows.
fn check_window(sim: &Simulation, v: &FlowView, found: &mut Found) {
    let Some((l, share, n)) = v.narrowest else {
        return;
    };
    let w = v.facts.window;
    if v.transfer.is_some_and(|b| b <= w) || v.rtt <= 0.0 {
        return;
    }
    // The window counts payload; the link carries it with the headers.
    let wire_per_payload = v.facts.data_wire as f64 / v.facts.payload as f64;
    let capped = w as f64 * wire_per_payload * 8.0 / v.rtt;
    let read = v.facts.read_rate.map(|r| r * wire_per_payload);
    if capped >= SHARE_FRACTION * share || read.is_some_and(|r| r <= capped) {
        return;
    }
    let needed = (share * v.rtt / 8.0 / wire_per_payload).ceil() as u64;
    let link = &sim.links[l];
    let (why, fix) = window_cause(v.facts.limit, v.protocol);
    found.add(|| {
        format!(
            "{}: its window ({why}) caps it at {} over its base round-trip time of {}, under \
             {:.0} % of its share of {} ({} of {}{}); {fix} to at least {} bytes",
            v.name,
            rate(capped),
            duration(v.rtt),
            SHARE_FRACTION * 100.0,
            sim.link_names[l],
            rate(share),
            rate(link.rate_bps),
            if n > 1 {
                format!(" shared by {n} flows")
            } else {
                String::new()
            },
            group_digits(needed),
        )
    });
}

/// What sets a flow's window limit, in the scenario's terms, and what to raise (`p`: the
/// protocol's name, which its fields sit under).
fn window_cause(limit: WindowLimit, p: &str) -> (String, String) {
    match limit {
        WindowLimit::CwndCap(m) => (
            format!("max_cwnd {} bytes", group_digits(m)),
            format!("raise {p}.max_cwnd"),
        ),
        WindowLimit::Unscaled(b) => (
            format!(
                "rcv_buf {} bytes, of which 65,535 can be advertised without window scaling",
                group_digits(b)
            ),
            format!("turn on {p}.window_scale and set {p}.rcv_buf"),
        ),
        WindowLimit::Buffer(b) => (
            format!("rcv_buf {} bytes", group_digits(b)),
            format!("raise {p}.rcv_buf"),
        ),
    }
}

fn ecn_message(v: &FlowView) -> String {
    format!(
        "{}: it negotiates ECN (tcp.ecn, or cc = \"dctcp\"), but no queue on its data path \
         marks: it sees only drops. Give the congested link a qdisc that marks (\"step\" for \
         DCTCP, or an AQM with aqm = {{ ecn = true }})",
        v.name
    )
}

fn short_message(sim: &Simulation, v: &FlowView) -> String {
    format!(
        "{}: it starts at {} and its first data is acknowledged two base round trips later \
         ({} each) at the earliest, after the run's end at {}; lengthen duration",
        v.name,
        duration(secs(v.start)),
        duration(v.rtt),
        duration(secs(sim.end)),
    )
}

/// A rate in the units a person would write.
fn rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.3} Gb/s", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.3} Mb/s", bps / 1e6)
    } else {
        format!("{:.3} kb/s", bps / 1e3)
    }
}

/// A duration in seconds, in the units a person would write.
fn duration(s: f64) -> String {
    if s == 0.0 {
        "0 s".to_string()
    } else if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.3} µs", s * 1e6)
    }
}

/// `n` with thousands separated by commas.
fn group_digits(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

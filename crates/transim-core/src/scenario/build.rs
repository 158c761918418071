//! Parse and validate a scenario, then build the simulation: nodes, link directions, routes and
//! flows. Every semantic error names the field path.

use super::error::ScenarioError;
use super::names::{joined, numbered};
use super::schema::*;
use super::units::QueueLimit;
use crate::engine::{Flow, Routes, Simulation, NO_ROUTE};
use crate::net::host::Processor;
use crate::net::qdisc::Sched;
use crate::net::{JitterSpec, Link, LossModel, ScriptedDrops};
use crate::sim::rng::Rng;
use crate::sim::Time;
use std::borrow::Cow;

/// Deserialize a scenario from a JSON value (Python hands over its parsed TOML this way).
pub fn parse(value: serde_json::Value) -> Result<Scenario, ScenarioError> {
    let mut sc = deserialize(value)?;
    super::generate::expand(&mut sc)?;
    Ok(sc)
}

fn deserialize(value: serde_json::Value) -> Result<Scenario, ScenarioError> {
    serde_path_to_error::deserialize::<_, Scenario>(value).map_err(located)
}

/// The simulated time a scenario (JSON text) asks for, its `duration`, read without reading
/// the rest: for a progress display before a run of 100,000 flows has parsed them all.
pub fn duration(json: &str) -> Result<super::units::Duration, ScenarioError> {
    /// The one field read, first as it is written: the others are skipped unchecked.
    #[derive(serde::Deserialize)]
    struct Written {
        duration: Option<serde_json::Value>,
    }
    /// Then checked as the whole scenario's parse checks it (the same messages).
    #[derive(serde::Deserialize)]
    struct OnlyDuration {
        duration: super::units::Duration,
    }
    let written: Written = serde_json::from_str(json)
        .map_err(|e| ScenarioError::new("", format!("not a scenario (a JSON object): {e}")))?;
    let mut only = serde_json::Map::new();
    if let Some(d) = written.duration {
        only.insert("duration".into(), d);
    }
    let only: OnlyDuration =
        serde_path_to_error::deserialize(serde_json::Value::Object(only)).map_err(located)?;
    Ok(only.duration)
}

/// A deserialisation error as a scenario error at the field it names.
fn located<E: std::fmt::Display>(e: serde_path_to_error::Error<E>) -> ScenarioError {
    let path = e.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let message = e.into_inner().to_string();
    // A missing field is named by its own path, not its table's.
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|m| m.split('`').next());
    let path = match missing {
        Some(field) if path.is_empty() => field.to_string(),
        Some(field) => format!("{path}.{field}"),
        None => path,
    };
    ScenarioError::new(path, plain_expectation(message))
}

/// serde names the Rust type it wanted ("invalid value: integer `-2`, expected u32"): say
/// what that type takes, in words a user of the scenario file reads.
fn plain_expectation(message: String) -> String {
    let Some((head, rust)) = message.rsplit_once(", expected ") else {
        return message;
    };
    let words = match rust {
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65,535",
        "u32" => "a whole number from 0 to 4,294,967,295",
        "u64" | "usize" => "a whole number, 0 or more",
        "i32" | "i64" => "a whole number",
        "f32" | "f64" => "a number",
        _ => return message,
    };
    format!("{head}, expected {words}")
}

/// Parameters of one link direction before it becomes a [`Link`].
struct DirParams {
    rate: f64,
    delay: Time,
    queue: QueueLimit,
    /// The queue limit was written in the scenario (not a default).
    queue_given: bool,
    overhead: u32,
    loss: LossModel,
    script: ScriptedDrops,
    sched: Option<Sched>,
    /// ns-2's DropTail limit rule.
    ns2_limit: bool,
    /// A random part of the propagation delay.
    jitter: Option<JitterSpec>,
}

/// Nodes and link directions being assembled.
#[derive(Default)]
pub(super) struct Net {
    pub(super) names: Vec<String>,
    pub(super) links: Vec<Link>,
    pub(super) link_names: Vec<String>,
    /// Per node, outgoing (link id, neighbour).
    pub(super) out: Vec<Vec<(u32, u32)>>,
    /// Per link direction: its queue limit was written in the scenario.
    pub(super) queue_given: Vec<bool>,
    /// Node ids by name (the first node of a name).
    index: std::collections::HashMap<String, u32>,
}

impl Net {
    fn node(&mut self, name: impl Into<String>) -> u32 {
        let id = self.names.len() as u32;
        let name = name.into();
        if !self.index.contains_key(&name) {
            self.index.insert(name.clone(), id);
        }
        self.names.push(name);
        self.out.push(Vec::new());
        id
    }

    /// Make room for `nodes` more nodes and `directions` more link directions at once: a
    /// link direction is 512 bytes, and growing the vector by doubling copied every one
    /// built so far again and again (half the build time at 10,000 flows).
    fn reserve(&mut self, nodes: usize, directions: usize) {
        self.names.reserve(nodes);
        self.index.reserve(nodes);
        self.out.reserve(nodes);
        self.links.reserve(directions);
        self.link_names.reserve(directions);
        self.queue_given.reserve(directions);
    }

    pub(super) fn find(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    fn add_direction(&mut self, from: u32, to: u32, d: DirParams, seed: u64) {
        let id = self.links.len() as u32;
        let name = joined(&[&self.names[from as usize], "->", &self.names[to as usize]]);
        let rng = Rng::stream_joined(seed, &["loss/", &name]);
        let mut d = d;
        if let Some(s) = d.sched.as_mut() {
            s.reseed(Rng::stream_joined(seed, &["aqm/", &name]));
        }
        let mut link = Link::new(
            id, from, to, d.rate, d.delay, d.queue, d.loss, d.script, d.overhead, rng, d.sched,
        );
        if d.ns2_limit {
            link.use_ns2_limit();
        }
        if let Some(j) = d.jitter {
            link.set_jitter(j, Rng::stream_joined(seed, &["jitter/", &name]));
        }
        self.links.push(link);
        self.link_names.push(name);
        self.queue_given.push(d.queue_given);
        self.out[from as usize].push((id, to));
    }

    fn add_link(
        &mut self,
        a: u32,
        b: u32,
        spec: &LinkSpec,
        path: &str,
        seed: u64,
        nflows: usize,
    ) -> Result<(), ScenarioError> {
        let fwd = direction(spec, spec.forward.as_ref(), path, "forward", nflows)?;
        let rev = direction(spec, spec.reverse.as_ref(), path, "reverse", nflows)?;
        self.add_direction(a, b, fwd, seed);
        self.add_direction(b, a, rev, seed);
        if let Some(down) = &spec.down {
            let mut spans = Vec::with_capacity(down.len());
            for (k, d) in down.iter().enumerate() {
                let to = d.to.map_or(Time::MAX, |t| t.0);
                if to <= d.from.0 {
                    return Err(ScenarioError::new(
                        format!("{path}.down[{k}].to"),
                        "is not after `from`; a failure lasts a positive time",
                    ));
                }
                spans.push((d.from.0, to));
            }
            let n = self.links.len();
            self.links[n - 2].set_down(spans.clone());
            self.links[n - 1].set_down(spans);
        }
        Ok(())
    }
}

/// One direction's parameters from the link's `spec` and its `side` ("forward" or
/// "reverse") at `link_path`. Field paths for errors are formatted only when needed: a
/// many-flow topology builds hundreds of thousands of directions.
fn direction(
    spec: &LinkSpec,
    dir: Option<&DirectionSpec>,
    link_path: &str,
    side: &str,
    nflows: usize,
) -> Result<DirParams, ScenarioError> {
    let empty = DirectionSpec::default();
    let d = dir.unwrap_or(&empty);
    let path = || format!("{link_path}.{side}");
    let loss = match &d.loss {
        Some(l) => loss_model(l, &format!("{}.loss", path()))?,
        None => LossModel::None,
    };
    let mut script = ScriptedDrops::default();
    if let Some(s) = &d.drops {
        for (i, &n) in s.packets.iter().enumerate() {
            if n == 0 {
                return Err(ScenarioError::new(
                    format!("{}.drops.packets[{i}]", path()),
                    "got 0; expected a 1-based packet number",
                ));
            }
        }
        script.packets = s.packets.clone();
        script.packets.sort_unstable();
        for (i, seg) in s.segments.iter().enumerate() {
            let p = format!("{}.drops.segments[{i}]", path());
            if seg.flow as usize >= nflows {
                return Err(ScenarioError::new(
                    format!("{p}.flow"),
                    format!("got {}; expected a flow index below {nflows}", seg.flow),
                ));
            }
            if seg.segment == 0 {
                return Err(ScenarioError::new(
                    format!("{p}.segment"),
                    "got 0; expected a 1-based segment number",
                ));
            }
            if seg.transmission == 0 {
                return Err(ScenarioError::new(
                    format!("{p}.transmission"),
                    "got 0; expected 1 for the original, 2 for the first retransmission, …",
                ));
            }
            script
                .segments
                .push((seg.flow, seg.segment, seg.transmission));
        }
        script.at_enqueue = s.at == Some(DropAtSpec::Enqueue);
    }
    if let Some(o) = d.overhead.or(spec.overhead) {
        if o.0 > 65_535 {
            let at = if d.overhead.is_some() {
                format!("{}.overhead", path())
            } else {
                format!("{link_path}.overhead")
            };
            return Err(ScenarioError::new(
                at,
                format!(
                    "got {} bytes; expected at most 65535 bytes of framing per packet",
                    o.0
                ),
            ));
        }
    }
    let jitter = jitter(spec, d, link_path, &path)?;
    let kind = d.qdisc.or(spec.qdisc).unwrap_or(QdiscSpec::DropTail);
    let aqm = d.aqm.as_ref().or(spec.aqm.as_ref());
    let rate = d.rate.unwrap_or(spec.rate).0;
    let sched = if aqm.is_none() && matches!(kind, QdiscSpec::DropTail | QdiscSpec::DropTailNs2) {
        None
    } else {
        let aqm_path = if d.aqm.is_some() {
            format!("{}.aqm", path())
        } else {
            format!("{link_path}.aqm")
        };
        super::build_aqm::scheduler(kind, aqm, &aqm_path, rate)?
    };
    Ok(DirParams {
        rate,
        delay: d.delay.or(spec.delay).map(|x| x.0).unwrap_or(0),
        queue: d.queue.or(spec.queue).unwrap_or(QueueLimit::Packets(100)),
        queue_given: d.queue.or(spec.queue).is_some(),
        overhead: d
            .overhead
            .or(spec.overhead)
            .map(|s| s.0 as u32)
            .unwrap_or(0),
        loss,
        script,
        ns2_limit: d.qdisc.or(spec.qdisc) == Some(QdiscSpec::DropTailNs2),
        sched,
        jitter,
    })
}

/// One direction's random delay: the direction's `jitter` and `reorder` over the link's.
fn jitter(
    spec: &LinkSpec,
    d: &DirectionSpec,
    link_path: &str,
    path: &dyn Fn() -> String,
) -> Result<Option<JitterSpec>, ScenarioError> {
    let max = d.jitter.or(spec.jitter).map_or(0, |j| j.0);
    let reorder = d.reorder.or(spec.reorder);
    if reorder == Some(true) && max == 0 {
        let at = if d.reorder.is_some() {
            format!("{}.reorder", path())
        } else {
            format!("{link_path}.reorder")
        };
        return Err(ScenarioError::new(
            at,
            "is true without a jitter; packets can overtake one another only if their delays \
             vary (set `jitter`, e.g. \"2ms\")",
        ));
    }
    Ok((max > 0).then_some(JitterSpec {
        max,
        reorder: reorder.unwrap_or(false),
    }))
}

fn loss_model(l: &LossSpec, path: &str) -> Result<LossModel, ScenarioError> {
    let unused = |names: &[(&str, bool)], model: &str| -> Result<(), ScenarioError> {
        for (n, set) in names {
            if *set {
                return Err(ScenarioError::new(
                    format!("{path}.{n}"),
                    format!("is not a parameter of model \"{model}\""),
                ));
            }
        }
        Ok(())
    };
    let need = |v: Option<super::units::Probability>, n: &str, model: &str| {
        v.map(|p| p.0).ok_or_else(|| {
            ScenarioError::new(
                format!("{path}.{n}"),
                format!("is required by model \"{model}\""),
            )
        })
    };
    Ok(match l.model {
        LossKind::None => {
            unused(
                &[
                    ("p", l.p.is_some()),
                    ("q", l.q.is_some()),
                    ("p_gb", l.p_gb.is_some()),
                    ("p_bg", l.p_bg.is_some()),
                    ("loss_good", l.loss_good.is_some()),
                    ("loss_bad", l.loss_bad.is_some()),
                ],
                "none",
            )?;
            LossModel::None
        }
        LossKind::Bernoulli => {
            unused(
                &[
                    ("q", l.q.is_some()),
                    ("p_gb", l.p_gb.is_some()),
                    ("p_bg", l.p_bg.is_some()),
                    ("loss_good", l.loss_good.is_some()),
                    ("loss_bad", l.loss_bad.is_some()),
                ],
                "bernoulli",
            )?;
            LossModel::Bernoulli {
                p: need(l.p, "p", "bernoulli")?,
            }
        }
        LossKind::Gilbert => {
            unused(
                &[
                    ("p_gb", l.p_gb.is_some()),
                    ("p_bg", l.p_bg.is_some()),
                    ("loss_good", l.loss_good.is_some()),
                    ("loss_bad", l.loss_bad.is_some()),
                ],
                "gilbert",
            )?;
            let p = need(l.p, "p", "gilbert")?;
            let q = need(l.q, "q", "gilbert")?;
            if q == 0.0 {
                return Err(ScenarioError::new(format!("{path}.q"), "got 0; expected a positive P(bad → good), or the chain never leaves the bad state"));
            }
            LossModel::GilbertElliott {
                p_gb: p,
                p_bg: q,
                loss_good: 0.0,
                loss_bad: 1.0,
                bad: false,
            }
        }
        LossKind::GilbertElliott => {
            unused(
                &[("p", l.p.is_some()), ("q", l.q.is_some())],
                "gilbert_elliott",
            )?;
            let p_bg = need(l.p_bg, "p_bg", "gilbert_elliott")?;
            if p_bg == 0.0 {
                return Err(ScenarioError::new(format!("{path}.p_bg"), "got 0; expected a positive P(bad → good), or the chain never leaves the bad state"));
            }
            LossModel::GilbertElliott {
                p_gb: need(l.p_gb, "p_gb", "gilbert_elliott")?,
                p_bg,
                loss_good: l.loss_good.map(|p| p.0).unwrap_or(0.0),
                loss_bad: l.loss_bad.map(|p| p.0).unwrap_or(1.0),
                bad: false,
            }
        }
    })
}

/// Default access link for a dumbbell: ten times the bottleneck rate, no delay, 1000 packets.
fn default_access(bottleneck: &LinkSpec) -> LinkSpec {
    LinkSpec {
        between: None,
        atm: None,
        rate: super::units::Rate(bottleneck.rate.0 * 10.0),
        delay: None,
        queue: Some(QueueLimit::Packets(1000)),
        qdisc: None,
        aqm: None,
        overhead: None,
        down: None,
        jitter: None,
        reorder: None,
        forward: None,
        reverse: None,
    }
}

pub(super) fn require<'a, T>(
    v: &'a Option<T>,
    path: &str,
    why: &str,
) -> Result<&'a T, ScenarioError> {
    v.as_ref()
        .ok_or_else(|| ScenarioError::new(path, format!("is required {why}")))
}

pub(super) fn forbid<T>(
    v: &Option<T>,
    path: impl std::fmt::Display,
    why: &str,
) -> Result<(), ScenarioError> {
    match v {
        Some(_) => Err(ScenarioError::new(
            path.to_string(),
            format!("is not allowed {why}"),
        )),
        None => Ok(()),
    }
}

/// A routing table larger than this (bytes) no longer stays in the first-level caches: the
/// flows' packets are then forwarded by each flow's own path (see [`Routes::pin_flows`]).
pub const PIN_FLOWS_ABOVE: usize = 64 * 1024;

/// Validate a scenario and build the simulation. An error in a copy an entry's `count` made
/// names the entry as written.
pub fn build(sc: &Scenario) -> Result<Simulation, ScenarioError> {
    build_flows(sc).map_err(|e| super::generate::at_entry(sc, e))
}

/// [`build`], with errors naming flows by their place among all the flows.
fn build_flows(sc: &Scenario) -> Result<Simulation, ScenarioError> {
    if sc.duration.0 == 0 {
        return Err(ScenarioError::new(
            "duration",
            "got 0s; expected a positive duration",
        ));
    }
    if sc.flows.is_empty() {
        return Err(ScenarioError::new(
            "flows",
            "is empty; expected at least one flow ([[flows]] or a [traffic] pattern)",
        ));
    }
    let n = sc.flows.len();
    let topo = &sc.topology;
    let mut net = Net::default();
    let mut endpoints = Vec::with_capacity(n);
    for (v, p) in [
        (topo.host_link.is_some(), "topology.host_link"),
        (topo.fabric_link.is_some(), "topology.fabric_link"),
        (topo.k.is_some(), "topology.k"),
        (topo.leaves.is_some(), "topology.leaves"),
        (topo.spines.is_some(), "topology.spines"),
        (topo.hosts_per_leaf.is_some(), "topology.hosts_per_leaf"),
        (topo.hops.is_some(), "topology.hops"),
    ] {
        if v {
            return Err(ScenarioError::new(
                p,
                "is only for generated topologies (kind = \"fat_tree\", \"leaf_spine\" or \"parking_lot\")",
            ));
        }
    }
    match topo.kind {
        TopologyKind::FatTree | TopologyKind::LeafSpine | TopologyKind::ParkingLot => {
            return Err(ScenarioError::new(
                "topology.kind",
                "a generated topology is made explicit by scenario::parse; build the parsed scenario",
            ));
        }
        TopologyKind::Dumbbell => {
            let why = "in a dumbbell topology";
            forbid(&topo.nodes, "topology.nodes", why)?;
            forbid(&topo.links, "topology.links", why)?;
            forbid(&topo.routes, "topology.routes", why)?;
            let bn = require(&topo.bottleneck, "topology.bottleneck", why)?;
            forbid(&bn.between, "topology.bottleneck.between", why)?;
            let access = topo.access.clone().unwrap_or_else(|| default_access(bn));
            net.reserve(2 + 2 * sc.flows.len(), 2 + 4 * sc.flows.len());
            let r1 = net.node("r1");
            let r2 = net.node("r2");
            net.add_link(r1, r2, bn, "topology.bottleneck", sc.seed, n)?;
            for (i, f) in sc.flows.iter().enumerate() {
                forbid(&f.src, format_args!("flows[{i}].src"), why)?;
                forbid(&f.dst, format_args!("flows[{i}].dst"), why)?;
                let s = net.node(numbered("s", i as u64, ""));
                let d = net.node(numbered("d", i as u64, ""));
                // (Borrowed: a link's spec is over a kilobyte, and most flows share one.)
                let (sa, sa_path): (&LinkSpec, Cow<str>) =
                    match (&f.sender_access, &topo.sender_access) {
                        (Some(l), _) => (l, numbered("flows[", i as u64, "].sender_access").into()),
                        (None, Some(l)) => (l, "topology.sender_access".into()),
                        (None, None) => (&access, "topology.access".into()),
                    };
                let (ra, ra_path): (&LinkSpec, Cow<str>) =
                    match (&f.receiver_access, &topo.receiver_access) {
                        (Some(l), _) => {
                            (l, numbered("flows[", i as u64, "].receiver_access").into())
                        }
                        (None, Some(l)) => (l, "topology.receiver_access".into()),
                        (None, None) => (&access, "topology.access".into()),
                    };
                net.add_link(s, r1, sa, &sa_path, sc.seed, n)?;
                net.add_link(r2, d, ra, &ra_path, sc.seed, n)?;
                if topo.access.is_none() {
                    // The default access links' 1000 packets is a default, not a choice.
                    let k = net.queue_given.len();
                    if topo.sender_access.is_none() && f.sender_access.is_none() {
                        net.queue_given[k - 4..k - 2].fill(false);
                    }
                    if topo.receiver_access.is_none() && f.receiver_access.is_none() {
                        net.queue_given[k - 2..k].fill(false);
                    }
                }
                endpoints.push((s, d));
            }
        }
        TopologyKind::Explicit => {
            let why = "in an explicit topology";
            forbid(&topo.bottleneck, "topology.bottleneck", why)?;
            forbid(&topo.access, "topology.access", why)?;
            forbid(&topo.sender_access, "topology.sender_access", why)?;
            forbid(&topo.receiver_access, "topology.receiver_access", why)?;
            let nodes = require(&topo.nodes, "topology.nodes", why)?;
            net.reserve(nodes.len(), 2 * topo.links.as_ref().map_or(0, |l| l.len()));
            for (i, name) in nodes.iter().enumerate() {
                if name.is_empty() {
                    return Err(ScenarioError::new(
                        format!("topology.nodes[{i}]"),
                        "is empty; expected a node name",
                    ));
                }
                if net.find(name).is_some() {
                    return Err(ScenarioError::new(
                        format!("topology.nodes[{i}]"),
                        format!("got {name:?} twice; node names must be unique"),
                    ));
                }
                net.node(name);
            }
            let links = require(&topo.links, "topology.links", why)?;
            let known = || some_names(nodes.iter().map(String::as_str), nodes.len());
            for (i, l) in links.iter().enumerate() {
                let p = format!("topology.links[{i}]");
                let between = require(&l.between, &format!("{p}.between"), why)?;
                if between.len() != 2 {
                    return Err(ScenarioError::new(
                        format!("{p}.between"),
                        format!(
                            "got {} names; expected two node names [a, b]",
                            between.len()
                        ),
                    ));
                }
                let mut ends = [0u32; 2];
                for (k, name) in between.iter().enumerate() {
                    ends[k] = net.find(name).ok_or_else(|| {
                        ScenarioError::new(
                            format!("{p}.between[{k}]"),
                            format!("got {name:?}; expected one of the nodes {}", known()),
                        )
                    })?;
                }
                if ends[0] == ends[1] {
                    return Err(ScenarioError::new(
                        format!("{p}.between"),
                        "names the same node twice; a link joins two different nodes",
                    ));
                }
                net.add_link(ends[0], ends[1], l, &p, sc.seed, n)?;
            }
            for (i, f) in sc.flows.iter().enumerate() {
                forbid(
                    &f.sender_access,
                    format_args!("flows[{i}].sender_access"),
                    why,
                )?;
                forbid(
                    &f.receiver_access,
                    format_args!("flows[{i}].receiver_access"),
                    why,
                )?;
                let mut ends = [0u32; 2];
                for (k, (v, field)) in [(&f.src, "src"), (&f.dst, "dst")].into_iter().enumerate() {
                    let p = format!("flows[{i}].{field}");
                    let name = require(v, &p, why)?;
                    ends[k] = net.find(name).ok_or_else(|| {
                        ScenarioError::new(
                            &p,
                            format!("got {name:?}; expected one of the nodes {}", known()),
                        )
                    })?;
                }
                if ends[0] == ends[1] {
                    return Err(ScenarioError::new(
                        format!("flows[{i}].dst"),
                        "is the same node as src; a flow joins two different nodes",
                    ));
                }
                endpoints.push((ends[0], ends[1]));
            }
        }
    }
    let ecmp = topo.ecmp.unwrap_or(EcmpSpec::Off);
    let mut routes = Routes::build(
        &net.out,
        &destinations(sc, &net, &endpoints),
        ecmp.spreads(),
    );
    if ecmp == EcmpSpec::Packet {
        routes.spray_packets();
    }
    if let Some(rs) = &topo.routes {
        for (i, r) in rs.iter().enumerate() {
            let p = format!("topology.routes[{i}]");
            let lookup = |name: &str, field: &str| {
                net.find(name).ok_or_else(|| {
                    ScenarioError::new(
                        format!("{p}.{field}"),
                        format!("got {name:?}; expected a node name"),
                    )
                })
            };
            let (at, to, via) = (
                lookup(&r.at, "at")?,
                lookup(&r.to, "to")?,
                lookup(&r.via, "via")?,
            );
            let link = net.out[at as usize]
                .iter()
                .find(|(_, nb)| *nb == via)
                .map(|(l, _)| *l)
                .ok_or_else(|| {
                    ScenarioError::new(
                        format!("{p}.via"),
                        format!("got {:?}, which is not a neighbour of {:?}", r.via, r.at),
                    )
                })?;
            routes.fix(at, to, link);
        }
    }
    // Every flow needs a loop-free route both ways.
    for (i, &(s, d)) in endpoints.iter().enumerate() {
        for (a, b) in [(s, d), (d, s)] {
            check_path(&net, &routes, a, b, i as u32)
                .map_err(|m| ScenarioError::new(format!("flows[{i}]"), m))?;
        }
    }
    routes.pin_flows(&endpoints, |l| net.links[l as usize].to, PIN_FLOWS_ABOVE);
    let mut flows: Vec<Flow> = Vec::with_capacity(n);
    let traced = super::trace_budget::flow_windows(sc)?;
    let mut shared_tcp = super::build_tcp::SharedConfigs::default();
    for (i, f) in sc.flows.iter().enumerate() {
        let end = sc.duration.0;
        if let Some(t) = f.start.filter(|t| t.0 >= end) {
            return Err(ScenarioError::new(
                format!("flows[{i}].start"),
                format!(
                    "got {} s, at or after the end of the run ({} s): the flow would never start",
                    t.0 as f64 * 1e-9,
                    end as f64 * 1e-9
                ),
            ));
        }
        for (k, sw) in f.switch.iter().flatten().enumerate() {
            if sw.at.0 >= end {
                return Err(ScenarioError::new(
                    format!("flows[{i}].switch[{k}].at"),
                    format!(
                        "got {} s, at or after the end of the run ({} s): the switch would never happen",
                        sw.at.0 as f64 * 1e-9,
                        end as f64 * 1e-9
                    ),
                ));
            }
        }
        let transport = match f.protocol {
            Protocol::Tcp => super::build_tcp::connection(
                sc,
                i,
                endpoints[i],
                &net,
                &routes,
                traced[i],
                &mut shared_tcp,
            )?,
            Protocol::Sctp => super::build_sctp::association(
                sc,
                i,
                endpoints[i],
                &net,
                &routes,
                traced[i].is_some(),
            )?,
        };
        // After the transport, which checks that the application may have times at all.
        let start = f.start.map_or(0, |t| t.0);
        let mut at = f.app.at.iter().flat_map(|a| a.iter()).enumerate();
        if let Some((k, at)) = at.find(|(_, at)| start.saturating_add(at.0) >= end) {
            return Err(ScenarioError::new(
                format!("flows[{i}].app.at[{k}]"),
                format!(
                    "got {} s after the flow's start at {} s, at or after the end of the run \
                     ({} s): the write would never happen",
                    at.0 as f64 * 1e-9,
                    start as f64 * 1e-9,
                    end as f64 * 1e-9
                ),
            ));
        }
        flows.push(Flow::new(
            f.name
                .clone()
                .unwrap_or_else(|| numbered("flow", i as u64, "")),
            f.start.map(|x| x.0).unwrap_or(0),
            endpoints[i].0,
            endpoints[i].1,
            transport,
        ));
    }
    shared_tcp.check_hystart(sc)?;
    let round_groups = super::apps::round_groups(&sc.flows, &mut flows, sc.seed)?;
    let pcap = match &sc.trace.pcap {
        None => None,
        Some(spec) => {
            if spec.dir.is_empty() {
                return Err(ScenarioError::new(
                    "trace.pcap.dir",
                    "is empty; expected a folder",
                ));
            }
            let mut chosen = vec![spec.links.is_none(); net.link_names.len()];
            for (k, name) in spec.links.iter().flatten().enumerate() {
                let i = net
                    .link_names
                    .iter()
                    .position(|n| n == name)
                    .ok_or_else(|| {
                        ScenarioError::new(
                            format!("trace.pcap.links[{k}]"),
                            format!(
                                "got {name:?}; expected a link direction: {}",
                                some_names(
                                    net.link_names.iter().map(String::as_str),
                                    net.link_names.len()
                                )
                            ),
                        )
                    })?;
                chosen[i] = true;
            }
            Some((std::path::PathBuf::from(&spec.dir), chosen))
        }
    };
    let atm = super::build_atm::attach(sc, &mut net, &routes, &endpoints)?;
    if routes.per_packet() {
        if let Some(l) = net.links.iter().position(|l| l.cells) {
            return Err(ScenarioError::new(
                "topology.ecmp",
                format!(
                    "got \"packet\", but link {} carries ATM cells, and a virtual circuit \
                     keeps one path; use true (per flow) or false",
                    net.link_names[l]
                ),
            ));
        }
    }
    let pcap = match pcap {
        Some((dir, mut chosen)) => {
            // Captures hold IP packets; cells have no place in a pcap of IPv4.
            for (l, c) in chosen.iter_mut().enumerate() {
                if *c && net.links[l].cells {
                    if sc.trace.pcap.as_ref().is_some_and(|p| p.links.is_some()) {
                        return Err(ScenarioError::new(
                            "trace.pcap.links",
                            format!(
                                "names {}, which carries ATM cells; captures hold IP packets, choose IP links",
                                net.link_names[l]
                            ),
                        ));
                    }
                    *c = false;
                }
            }
            Some((dir, chosen))
        }
        None => None,
    };
    let mut sim = Simulation::new(
        sc.duration.0,
        net.names,
        routes,
        net.links,
        net.link_names,
        flows,
        if sc.trace.packets {
            Some((
                super::trace_budget::window(sc)?,
                super::trace_budget::selected(sc)?,
            ))
        } else {
            None
        },
    );
    super::trace_budget::check(sc, &sim)?;
    sim.rounds = round_groups;
    sim.pcap_request = pcap;
    sim.atm = atm;
    if let Some(e) = &sc.endpoints {
        if let Some(t) = e.processing {
            if t.0 == 0 {
                return Err(ScenarioError::new(
                    "endpoints.processing",
                    "got 0; expected a positive time per packet (leave it out for none)",
                ));
            }
            let spread = e.processing_spread.map_or(0.0, |p| p.0);
            sim.processors = (0..sim.node_names.len()).map(|_| None).collect();
            for &(s, d) in &endpoints {
                for n in [s, d] {
                    if sim.processors[n as usize].is_none() {
                        let rng = Rng::stream(sc.seed, &format!("processing/{n}"));
                        sim.processors[n as usize] = Some(Processor::new(n, t.0, spread, rng));
                    }
                }
            }
        } else if e.processing_spread.is_some() {
            return Err(ScenarioError::new(
                "endpoints.processing_spread",
                "is set without endpoints.processing",
            ));
        }
    }
    Ok(sim)
}

/// Every node a packet may be addressed to: both ends of every flow and of every SCTP path
/// (names that do not resolve are reported where the flows are built).
fn destinations(sc: &Scenario, net: &Net, endpoints: &[(u32, u32)]) -> Vec<u32> {
    let mut out: Vec<u32> = endpoints.iter().flat_map(|&(s, d)| [s, d]).collect();
    for f in &sc.flows {
        for p in f.paths.iter().flatten() {
            out.extend([&p.src, &p.dst].into_iter().filter_map(|n| net.find(n)));
        }
    }
    out
}

pub(super) fn check_path(
    net: &Net,
    routes: &Routes,
    from: u32,
    to: u32,
    flow: u32,
) -> Result<(), String> {
    let far = |l: u32| net.links[l as usize].to;
    let mut hops = Vec::new();
    if routes.follow(far, flow, from, to, &mut hops) {
        return Ok(());
    }
    let stuck = hops.last().map_or(from, |&(_, l)| far(l));
    if routes.next(stuck, to, flow) == NO_ROUTE {
        return Err(format!(
            "has no route from {:?} to {:?}; connect them with links or add topology.routes",
            net.names[from as usize], net.names[to as usize]
        ));
    }
    Err(format!(
        "routes from {:?} to {:?} form a loop",
        net.names[from as usize], net.names[to as usize]
    ))
}

/// The first ten of `count` names, quoted, and how many more there are: an error about one
/// of 20,000 nodes names a few of them, not all.
fn some_names<'a>(names: impl Iterator<Item = &'a str>, count: usize) -> String {
    const SHOWN: usize = 10;
    let mut out = names
        .take(SHOWN)
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if count > SHOWN {
        out.push_str(&format!(" and {} more", count - SHOWN));
    }
    out
}

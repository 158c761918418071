//! Topology and traffic generators: `fat_tree`, `leaf_spine` and `parking_lot` topologies
//! become explicit node and link lists, and a `[traffic]` pattern (permutation, incast,
//! all-to-all) becomes flows, before the scenario is built; so does a `[[flows]]` entry with
//! a `count`, copied that many times. A 1,024-host fat-tree study, or 10,000 flows on a
//! dumbbell, is then a ten-line file.
//!
//! Names: hosts `h0`, `h1`, …; fat tree switches `edge<pod>_<i>`, `agg<pod>_<i>`, `core<i>`;
//! leaf-spine `leaf<i>`, `spine<i>`; parking lot routers `r0` … `r<hops>`, the long flow's hosts
//! `src`/`dst` and each hop's cross-traffic hosts `x<i>s`/`x<i>d`.

use super::arrivals;
use super::error::ScenarioError;
use super::schema::*;
use super::units::{Duration, Size};
use crate::sim::rng::Rng;

/// The most flows a scenario's generators (an entry's `count`, a traffic pattern) may make.
pub const MAX_FLOWS: u64 = 1_000_000;

/// Expand flow entries with a `count`, generated topologies and traffic patterns in place.
pub fn expand(sc: &mut Scenario) -> Result<(), ScenarioError> {
    expand_counts(sc)?;
    let t = &sc.topology;
    let (kind, allowed): (&str, &[&str]) = match t.kind {
        TopologyKind::FatTree => ("fat_tree", &["k"]),
        TopologyKind::LeafSpine => ("leaf_spine", &["leaves", "spines", "hosts_per_leaf"]),
        TopologyKind::ParkingLot => ("parking_lot", &["hops"]),
        _ => ("", &[]),
    };
    if !kind.is_empty() {
        let given = [
            ("k", t.k.is_some()),
            ("leaves", t.leaves.is_some()),
            ("spines", t.spines.is_some()),
            ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
            ("hops", t.hops.is_some()),
        ];
        if let Some((name, _)) = given.iter().find(|(n, g)| *g && !allowed.contains(n)) {
            return Err(ScenarioError::new(
                format!("topology.{name}"),
                format!(
                    "is not a parameter of {kind} (it takes {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    let host_link_rate = sc.topology.host_link.as_ref().map(|l| l.rate);
    let hosts = match sc.topology.kind {
        TopologyKind::FatTree => Some(fat_tree(&mut sc.topology)?),
        TopologyKind::LeafSpine => Some(leaf_spine(&mut sc.topology)?),
        TopologyKind::ParkingLot => Some(parking_lot(&mut sc.topology)?),
        TopologyKind::Dumbbell | TopologyKind::Explicit => None,
    };
    if let Some(t) = sc.traffic.take() {
        let first = sc.flows.len();
        let hosts = match (&t.hosts, hosts) {
            (Some(h), _) => h.clone(),
            (None, Some(h)) => h,
            (None, None) => {
                return Err(ScenarioError::new(
                    "traffic.hosts",
                    "is required unless the topology is generated (fat_tree, leaf_spine, parking_lot): the hosts the pattern runs between",
                ))
            }
        };
        if sc.topology.kind == TopologyKind::Dumbbell {
            return Err(ScenarioError::new(
                "traffic",
                "is not allowed in a dumbbell topology (its flows make their own hosts)",
            ));
        }
        two_hosts_at_least(&hosts)?;
        if t.pattern == TrafficPattern::Poisson {
            let arrivals = arrivals::poisson(&t, hosts.len(), host_link_rate, sc.seed)?;
            arrivals::check_within(&arrivals, sc.duration)?;
            sc.traffic_flows = Some((first, arrivals.len()));
            for a in arrivals {
                sc.flows.push(FlowSpec {
                    src: Some(hosts[a.src].clone()),
                    dst: Some(hosts[a.dst].clone()),
                    start: Some(Duration(a.start)),
                    app: AppSpec {
                        kind: AppKind::Finite,
                        bytes: Some(Size(a.bytes)),
                        ..AppSpec::default()
                    },
                    tcp: t.tcp.clone().map(Box::new),
                    ..FlowSpec::default()
                });
            }
            return Ok(());
        }
        arrivals::check_not_poisson(&t)?;
        let pairs = pattern(&t, &hosts, sc.seed)?;
        sc.traffic_flows = Some((first, pairs.len()));
        for (s, d) in pairs {
            sc.flows.push(FlowSpec {
                src: Some(s),
                dst: Some(d),
                start: t.start,
                app: t.app.clone(),
                tcp: t.tcp.clone().map(Box::new),
                ..FlowSpec::default()
            });
        }
    }
    Ok(())
}

/// Replace every `[[flows]]` entry with a `count` by that many copies, and note which entry
/// each flow came from (`Scenario::flow_entries`) when any entry made copies.
fn expand_counts(sc: &mut Scenario) -> Result<(), ScenarioError> {
    let mut total = 0u64;
    for (i, f) in sc.flows.iter().enumerate() {
        let n = f.count.unwrap_or(1);
        if n == 0 {
            return Err(ScenarioError::new(
                format!("flows[{i}].count"),
                "got 0; expected how many such flows, at least 1",
            ));
        }
        total += n as u64;
    }
    if total > MAX_FLOWS {
        return Err(ScenarioError::new(
            "flows",
            format!("the entries' counts make {total} flows; at most 1,000,000"),
        ));
    }
    if total == sc.flows.len() as u64 && sc.flows.iter().all(|f| f.jitter.is_none()) {
        for f in &mut sc.flows {
            (f.count, f.stagger, f.jitter) = (None, None, None);
        }
        return Ok(());
    }
    let mut flows = Vec::with_capacity(total as usize);
    let mut entries = Vec::with_capacity(total as usize);
    for (i, mut f) in std::mem::take(&mut sc.flows).into_iter().enumerate() {
        let n = f.count.take().unwrap_or(1);
        let name = f.name.take();
        let first = f.start.map_or(0, |t| t.0);
        let stagger = f.stagger.take().map_or(0, |t| t.0);
        let jitter = f.jitter.take().map_or(0, |t| t.0);
        // The entry's own stream of draws, made only when it has a jitter.
        let mut draws = (jitter > 0)
            .then(|| Rng::stream_joined(sc.seed, &["flows/", &i.to_string(), "/jitter"]));
        for j in 0..n {
            let mut copy = f.clone();
            copy.name = match &name {
                Some(name) if n > 1 => Some(format!("{name}{j}")),
                other => other.clone(),
            };
            if stagger > 0 || jitter > 0 {
                // A draw in [0, jitter) ns (the float's rounding kept below the bound).
                let late = draws.as_mut().map_or(0, |d| {
                    ((d.uniform() * jitter as f64) as u64).min(jitter - 1)
                });
                let start = stagger
                    .checked_mul(j as u64)
                    .and_then(|d| d.checked_add(first))
                    .and_then(|d| d.checked_add(late))
                    .ok_or_else(|| {
                        let key = if stagger > 0 { "stagger" } else { "jitter" };
                        ScenarioError::new(
                            format!("flows[{i}].{key}"),
                            "puts the last copies' start beyond any time the run can reach",
                        )
                    })?;
                copy.start = Some(Duration(start));
            }
            flows.push(copy);
            entries.push(i as u32);
        }
    }
    sc.flows = flows;
    sc.flow_entries = entries;
    Ok(())
}

/// `e` with a path into a generated flow (`flows[k]…`) naming what the scenario wrote: the
/// entry it is a copy of, when entries' counts made copies (see [`Scenario::flow_entries`]),
/// or the `[traffic]` table that made it.
pub fn at_entry(sc: &Scenario, e: ScenarioError) -> ScenarioError {
    let Some(rest) = e.path.strip_prefix("flows[") else {
        return e;
    };
    let Some((k, rest)) = rest.split_once(']') else {
        return e;
    };
    let Ok(k) = k.parse::<usize>() else {
        return e;
    };
    if let Some((first, n)) = sc.traffic_flows {
        if (first..first + n).contains(&k) {
            return ScenarioError::new(
                format!("traffic{rest}"),
                format!(
                    "{} (in flow {k}, one of the {n} flows the traffic pattern made)",
                    e.message
                ),
            );
        }
    }
    if sc.flow_entries.is_empty() {
        return e;
    }
    let Some(&entry) = sc.flow_entries.get(k) else {
        return e;
    };
    let copies = sc.flow_entries.iter().filter(|&&x| x == entry).count();
    let message = if copies > 1 {
        format!(
            "{} (in flow {k}, one of this entry's {copies} copies)",
            e.message
        )
    } else {
        e.message
    };
    ScenarioError::new(format!("flows[{entry}]{rest}"), message)
}

fn need(v: Option<u32>, path: &str, what: &str) -> Result<u32, ScenarioError> {
    v.ok_or_else(|| ScenarioError::new(path, format!("is required: {what}")))
}

/// A link between two named nodes with the given parameters.
fn link(a: &str, b: &str, spec: &LinkSpec) -> LinkSpec {
    let mut l = spec.clone();
    l.between = Some(vec![a.to_string(), b.to_string()]);
    l
}

/// The host and fabric link parameters (host_link required), after checking that no
/// hand-made part of a topology is given.
fn link_specs(t: &TopologySpec) -> Result<(LinkSpec, LinkSpec), ScenarioError> {
    let why = "in a generated topology (the generator makes the nodes and links)";
    for (v, p) in [
        (t.nodes.is_some(), "topology.nodes"),
        (t.links.is_some(), "topology.links"),
        (t.bottleneck.is_some(), "topology.bottleneck"),
        (t.access.is_some(), "topology.access"),
        (t.sender_access.is_some(), "topology.sender_access"),
        (t.receiver_access.is_some(), "topology.receiver_access"),
    ] {
        if v {
            return Err(ScenarioError::new(p, format!("is not allowed {why}")));
        }
    }
    let host = t.host_link.clone().ok_or_else(|| {
        ScenarioError::new(
            "topology.host_link",
            "is required: rate, delay and queue of the links between hosts and switches",
        )
    })?;
    let fabric = t.fabric_link.clone().unwrap_or_else(|| host.clone());
    for (l, p) in [
        (&host, "topology.host_link"),
        (&fabric, "topology.fabric_link"),
    ] {
        if l.between.is_some() {
            return Err(ScenarioError::new(
                format!("{p}.between"),
                "is not allowed: the generator joins the nodes",
            ));
        }
    }
    Ok((host, fabric))
}

fn set_explicit(t: &mut TopologySpec, nodes: Vec<String>, links: Vec<LinkSpec>) {
    t.kind = TopologyKind::Explicit;
    t.nodes = Some(nodes);
    t.links = Some(links);
    t.host_link = None;
    t.fabric_link = None;
    t.k = None;
    t.leaves = None;
    t.spines = None;
    t.hosts_per_leaf = None;
    t.hops = None;
    t.ecmp.get_or_insert(true);
}

/// A k-ary fat tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation switches,
/// (k/2)² core switches and k³/4 hosts, k/2 per edge switch.
fn fat_tree(t: &mut TopologySpec) -> Result<Vec<String>, ScenarioError> {
    let k = need(
        t.k,
        "topology.k",
        "the fat tree's arity (an even number, 2 to 64)",
    )?;
    if !(2..=64).contains(&k) || k % 2 == 1 {
        return Err(ScenarioError::new(
            "topology.k",
            format!("got {k}; expected an even number from 2 to 64"),
        ));
    }
    let (host, fabric) = link_specs(t)?;
    let h = k / 2;
    let (mut nodes, mut links, mut hosts) = (vec![], vec![], vec![]);
    for c in 0..h * h {
        nodes.push(format!("core{c}"));
    }
    for p in 0..k {
        for i in 0..h {
            nodes.push(format!("agg{p}_{i}"));
            nodes.push(format!("edge{p}_{i}"));
        }
        for i in 0..h {
            let edge = format!("edge{p}_{i}");
            for j in 0..h {
                links.push(link(&edge, &format!("agg{p}_{j}"), &fabric));
            }
            for _ in 0..h {
                let name = format!("h{}", hosts.len());
                nodes.push(name.clone());
                links.push(link(&name, &edge, &host));
                hosts.push(name);
            }
        }
        for j in 0..h {
            for c in 0..h {
                links.push(link(
                    &format!("agg{p}_{j}"),
                    &format!("core{}", j * h + c),
                    &fabric,
                ));
            }
        }
    }
    set_explicit(t, nodes, links);
    Ok(hosts)
}

/// Every leaf joined to every spine; `hosts_per_leaf` hosts on each leaf.
fn leaf_spine(t: &mut TopologySpec) -> Result<Vec<String>, ScenarioError> {
    let leaves = need(t.leaves, "topology.leaves", "the number of leaf switches")?;
    let spines = need(t.spines, "topology.spines", "the number of spine switches")?;
    let per = need(
        t.hosts_per_leaf,
        "topology.hosts_per_leaf",
        "hosts on each leaf",
    )?;
    for (v, p) in [
        (leaves, "topology.leaves"),
        (spines, "topology.spines"),
        (per, "topology.hosts_per_leaf"),
    ] {
        if !(1..=4096).contains(&v) {
            return Err(ScenarioError::new(
                p,
                format!("got {v}; expected 1 to 4096"),
            ));
        }
    }
    let (host, fabric) = link_specs(t)?;
    let (mut nodes, mut links, mut hosts) = (vec![], vec![], vec![]);
    for s in 0..spines {
        nodes.push(format!("spine{s}"));
    }
    for l in 0..leaves {
        let leaf = format!("leaf{l}");
        nodes.push(leaf.clone());
        for s in 0..spines {
            links.push(link(&leaf, &format!("spine{s}"), &fabric));
        }
        for _ in 0..per {
            let name = format!("h{}", hosts.len());
            nodes.push(name.clone());
            links.push(link(&name, &leaf, &host));
            hosts.push(name);
        }
    }
    set_explicit(t, nodes, links);
    Ok(hosts)
}

/// A chain of `hops` fabric links between routers r0 … r<hops>; the long path's hosts `src`
/// (on r0) and `dst` (on the last router), and for each hop i a cross-traffic pair `x<i>s` on
/// r<i−1> and `x<i>d` on r<i>. Hosts (for a traffic pattern): src, dst, x1s, x1d, …
fn parking_lot(t: &mut TopologySpec) -> Result<Vec<String>, ScenarioError> {
    let hops = need(
        t.hops,
        "topology.hops",
        "the number of router-to-router links",
    )?;
    if !(1..=1024).contains(&hops) {
        return Err(ScenarioError::new(
            "topology.hops",
            format!("got {hops}; expected 1 to 1024"),
        ));
    }
    let (host, fabric) = link_specs(t)?;
    let mut nodes: Vec<String> = (0..=hops).map(|r| format!("r{r}")).collect();
    let mut links: Vec<LinkSpec> = (1..=hops)
        .map(|r| link(&format!("r{}", r - 1), &format!("r{r}"), &fabric))
        .collect();
    let mut hosts = vec!["src".to_string(), "dst".to_string()];
    links.push(link("src", "r0", &host));
    links.push(link(&format!("r{hops}"), "dst", &host));
    for i in 1..=hops {
        let (s, d) = (format!("x{i}s"), format!("x{i}d"));
        links.push(link(&s, &format!("r{}", i - 1), &host));
        links.push(link(&format!("r{i}"), &d, &host));
        hosts.extend([s, d]);
    }
    nodes.extend(hosts.iter().cloned());
    set_explicit(t, nodes, links);
    t.ecmp = Some(false);
    Ok(hosts)
}

/// A traffic pattern runs between two hosts or more.
fn two_hosts_at_least(hosts: &[String]) -> Result<(), ScenarioError> {
    if hosts.len() < 2 {
        return Err(ScenarioError::new(
            "traffic.hosts",
            format!("has {} host(s); a pattern needs at least 2", hosts.len()),
        ));
    }
    Ok(())
}

/// The (sender, receiver) pairs of a traffic pattern over `hosts`.
fn pattern(
    t: &TrafficSpec,
    hosts: &[String],
    seed: u64,
) -> Result<Vec<(String, String)>, ScenarioError> {
    let n = hosts.len();
    two_hosts_at_least(hosts)?;
    Ok(match t.pattern {
        TrafficPattern::Permutation => {
            // A random derangement: every host sends to one other and receives from one.
            let mut rng = Rng::stream(seed, "traffic.permutation");
            let mut to: Vec<usize> = (0..n).collect();
            loop {
                for i in (1..n).rev() {
                    let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                    to.swap(i, j);
                }
                if to.iter().enumerate().all(|(i, &j)| i != j) {
                    break;
                }
            }
            (0..n)
                .map(|i| (hosts[i].clone(), hosts[to[i]].clone()))
                .collect()
        }
        TrafficPattern::Incast => {
            let rx = match &t.receiver {
                Some(r) => hosts.iter().position(|h| h == r).ok_or_else(|| {
                    ScenarioError::new(
                        "traffic.receiver",
                        format!("got {r:?}; expected one of the pattern's hosts"),
                    )
                })?,
                None => 0,
            };
            let senders = t.senders.map_or(n - 1, |s| s as usize);
            if senders == 0 || senders > n - 1 {
                return Err(ScenarioError::new(
                    "traffic.senders",
                    format!("got {senders}; expected 1 to {} (the other hosts)", n - 1),
                ));
            }
            (0..n)
                .filter(|&i| i != rx)
                .take(senders)
                .map(|i| (hosts[i].clone(), hosts[rx].clone()))
                .collect()
        }
        TrafficPattern::Poisson => unreachable!("poisson flows come from arrivals::poisson"),
        TrafficPattern::AllToAll => {
            if (n * (n - 1)) as u64 > MAX_FLOWS {
                return Err(ScenarioError::new(
                    "traffic.pattern",
                    format!(
                        "all_to_all over {n} hosts is {} flows; at most 1,000,000 (choose fewer hosts with traffic.hosts)",
                        n * (n - 1)
                    ),
                ));
            }
            let mut v = Vec::with_capacity(n * (n - 1));
            for i in 0..n {
                for j in 0..n {
                    if i != j {
                        v.push((hosts[i].clone(), hosts[j].clone()));
                    }
                }
            }
            v
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(kind: &str, extra: serde_json::Value) -> TopologySpec {
        let mut v = serde_json::json!({"kind": kind,
            "host_link": {"rate": "10Gbps", "delay": "1us", "queue": 100}});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn fat_tree_counts() {
        // k = 4: 16 hosts, 20 switches; links: 16 host + 16 edge-agg + 16 agg-core = 48.
        let mut t = topo("fat_tree", serde_json::json!({"k": 4}));
        let hosts = fat_tree(&mut t).unwrap();
        assert_eq!(hosts.len(), 16);
        assert_eq!(t.nodes.as_ref().unwrap().len(), 36);
        assert_eq!(t.links.as_ref().unwrap().len(), 48);
        // k = 16: 1,024 hosts, 320 switches.
        let mut t = topo("fat_tree", serde_json::json!({"k": 16}));
        assert_eq!(fat_tree(&mut t).unwrap().len(), 1024);
        assert_eq!(t.nodes.as_ref().unwrap().len(), 1024 + 320);
        assert_eq!(t.links.as_ref().unwrap().len(), 3 * 1024);
        assert_eq!(t.ecmp, Some(true));
    }

    #[test]
    fn permutation_is_a_derangement() {
        let hosts: Vec<String> = (0..50).map(|i| format!("h{i}")).collect();
        let t: TrafficSpec =
            serde_json::from_value(serde_json::json!({"pattern": "permutation"})).unwrap();
        let pairs = pattern(&t, &hosts, 7).unwrap();
        assert_eq!(pairs.len(), 50);
        let mut rx: Vec<&String> = pairs.iter().map(|p| &p.1).collect();
        rx.sort();
        rx.dedup();
        assert_eq!(rx.len(), 50, "each host receives once");
        assert!(pairs.iter().all(|(s, d)| s != d));
        assert_eq!(
            pairs,
            pattern(&t, &hosts, 7).unwrap(),
            "same seed, same pairs"
        );
    }

    #[test]
    fn incast_and_errors() {
        let hosts: Vec<String> = (0..5).map(|i| format!("h{i}")).collect();
        let t: TrafficSpec = serde_json::from_value(
            serde_json::json!({"pattern": "incast", "senders": 3, "receiver": "h2"}),
        )
        .unwrap();
        let pairs = pattern(&t, &hosts, 1).unwrap();
        assert_eq!(pairs.len(), 3);
        assert!(pairs.iter().all(|p| p.1 == "h2" && p.0 != "h2"));
        let bad: TrafficSpec =
            serde_json::from_value(serde_json::json!({"pattern": "incast", "senders": 5})).unwrap();
        let e = pattern(&bad, &hosts, 1).unwrap_err();
        assert!(e.to_string().contains("traffic.senders"), "{e}");
    }

    /// The error building the scenario `v` must give.
    fn build_error(v: serde_json::Value, why: &str) -> ScenarioError {
        match super::super::build(&super::super::parse(v).unwrap()) {
            Err(e) => e,
            Ok(_) => panic!("{why}"),
        }
    }

    fn dumbbell(flows: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"duration": "1s", "flows": flows, "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": 20}}})
    }

    #[test]
    fn an_entrys_count_makes_as_many_flows_named_after_it() {
        let sc = super::super::parse(dumbbell(serde_json::json!([
            {"name": "web", "count": 3, "start": "1s"},
            {"app": {"kind": "bulk"}},
            {"name": "one", "count": 1},
            {"count": 2},
        ])))
        .unwrap();
        let names: Vec<Option<&str>> = sc.flows.iter().map(|f| f.name.as_deref()).collect();
        assert_eq!(
            names,
            [
                Some("web0"),
                Some("web1"),
                Some("web2"),
                None,
                Some("one"),
                None,
                None
            ]
        );
        assert_eq!(sc.flow_entries, [0, 0, 0, 1, 2, 3, 3]);
        assert!(sc.flows.iter().all(|f| f.count.is_none()));
        assert!(sc.flows[..3].iter().all(|f| f.start == sc.flows[0].start));
        // Without copies nothing is noted.
        let sc = super::super::parse(dumbbell(serde_json::json!([{"count": 1}, {}]))).unwrap();
        assert_eq!((sc.flows.len(), sc.flow_entries.len()), (2, 0));
    }

    #[test]
    fn staggered_copies_start_that_far_apart() {
        let sc = super::super::parse(dumbbell(serde_json::json!([
            {"count": 3, "start": "1s", "stagger": "10ms"},
            {"count": 2, "stagger": "1ms"},
            {"stagger": "5ms"},
        ])))
        .unwrap();
        let starts: Vec<Option<u64>> = sc.flows.iter().map(|f| f.start.map(|t| t.0)).collect();
        let ms = 1_000_000;
        assert_eq!(
            starts,
            [
                Some(1000 * ms),
                Some(1010 * ms),
                Some(1020 * ms),
                Some(0),
                Some(ms),
                Some(0) // one copy: where an unstaggered flow starts
            ]
        );
        assert!(sc.flows.iter().all(|f| f.stagger.is_none()));
        // Jitter: each copy later by a draw in [0, jitter), from the seed.
        let jittered = |seed: u64| -> Vec<u64> {
            let mut v = dumbbell(serde_json::json!([
                {"count": 200, "start": "1s", "stagger": "1ms", "jitter": "5ms"}
            ]));
            v["seed"] = serde_json::json!(seed);
            let sc = super::super::parse(v).unwrap();
            assert!(sc.flows.iter().all(|f| f.jitter.is_none()));
            sc.flows.iter().map(|f| f.start.unwrap().0).collect()
        };
        let a = jittered(1);
        let late: Vec<u64> = (0..200).map(|j| a[j] - 1000 * ms - j as u64 * ms).collect();
        assert!(late.iter().all(|&d| d < 5 * ms), "{late:?}");
        let mean = late.iter().sum::<u64>() as f64 / 200.0 / ms as f64;
        assert!(
            (2.0..3.0).contains(&mean),
            "mean draw {mean} ms, expected about 2.5"
        );
        assert_eq!(a, jittered(1), "the same seed, the same starts");
        assert_ne!(a, jittered(2), "another seed, other starts");
        // One copy is jittered as one of many is, whatever the other entries.
        let sc = super::super::parse(dumbbell(serde_json::json!([{"jitter": "5ms"}]))).unwrap();
        let alone = sc.flows[0].start.unwrap().0;
        let sc = super::super::parse(dumbbell(
            serde_json::json!([{"jitter": "5ms"}, {"count": 2}]),
        ))
        .unwrap();
        assert_eq!(sc.flows[0].start.unwrap().0, alone);
        assert!(alone < 5 * ms && sc.flows[1].start.is_none());
        // Copies the run ends before are refused, naming the entry.
        let mut v = dumbbell(serde_json::json!([{"count": 3, "stagger": "0.6s"}]));
        v["duration"] = serde_json::json!("1s");
        let e = build_error(v, "a copy starting after the end must be refused");
        assert_eq!(e.path, "flows[0].start");
        assert!(
            e.message
                .contains("(in flow 2, one of this entry's 3 copies)"),
            "{e}"
        );
    }

    #[test]
    fn a_count_of_nothing_or_too_many_is_refused_by_name() {
        let e = super::super::parse(dumbbell(serde_json::json!([{}, {"count": 0}])));
        let e = e.unwrap_err();
        assert_eq!(e.path, "flows[1].count");
        assert!(e.message.contains("got 0"), "{e}");
        let e = super::super::parse(dumbbell(serde_json::json!([
            {"count": 600_000}, {"count": 400_001}
        ])))
        .unwrap_err();
        assert_eq!(e.path, "flows");
        assert!(
            e.message.contains("1000001 flows; at most 1,000,000"),
            "{e}"
        );
    }

    #[test]
    fn an_error_in_a_copy_names_the_entry_as_written() {
        // A dumbbell's flows may not name their nodes; the fifth flow is the second entry's
        // third copy.
        let e = build_error(
            dumbbell(serde_json::json!([{"count": 2}, {"count": 3, "src": "x"}])),
            "a dumbbell flow naming its source must be refused",
        );
        assert_eq!(e.path, "flows[1].src");
        assert!(
            e.message
                .ends_with("(in flow 2, one of this entry's 3 copies)"),
            "{e}"
        );
    }
}

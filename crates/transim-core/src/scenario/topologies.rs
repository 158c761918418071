//! Topology generators: `fat_tree`, `leaf_spine` and `parking_lot` topologies become
//! explicit node and link lists before the scenario is built.
//!
//! Names: hosts `h0`, `h1`, …; fat tree switches `edge<pod>_<i>`, `agg<pod>_<i>`, `core<i>`;
//! leaf-spine `leaf<i>`, `spine<i>`; parking lot routers `r0` … `r<hops>`, the long flow's hosts
//! `src`/`dst` and each hop's cross-traffic hosts `x<i>s`/`x<i>d`.

use super::error::ScenarioError;
use super::schema::*;

/// Generate a generated topology's nodes and links in place, after checking that it is
/// given only its own parameters: its hosts (in the order traffic patterns take them), or
/// `None` for dumbbell and explicit topologies.
pub(super) fn generate(t: &mut TopologySpec) -> Result<Option<Vec<String>>, ScenarioError> {
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
    Ok(match t.kind {
        TopologyKind::FatTree => Some(fat_tree(t)?),
        TopologyKind::LeafSpine => Some(leaf_spine(t)?),
        TopologyKind::ParkingLot => Some(parking_lot(t)?),
        TopologyKind::Dumbbell | TopologyKind::Explicit => None,
    })
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
    t.ecmp.get_or_insert(EcmpSpec::Flow);
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
    t.ecmp = Some(EcmpSpec::Off);
    Ok(hosts)
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
        assert_eq!(t.ecmp, Some(EcmpSpec::Flow));
    }
}

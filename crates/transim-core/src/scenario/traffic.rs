//! Traffic patterns: a `[traffic]` table becomes flows between hosts before the scenario is
//! built — `permutation`, `incast` and `all_to_all` here, `poisson` arrivals in
//! [`super::arrivals`].

use super::arrivals;
use super::error::ScenarioError;
use super::generate::MAX_FLOWS;
use super::schema::*;
use super::units::{Duration, Rate, Size};
use crate::sim::rng::Rng;

/// Add the flows of the scenario's `[traffic]` table, if it has one, between `hosts` (a
/// generated topology's, unless the table names its own); `host_link_rate` is the generated
/// topology's host link rate, if any. Notes which flows it made (`Scenario::traffic_flows`).
pub(super) fn expand(
    sc: &mut Scenario,
    hosts: Option<Vec<String>>,
    host_link_rate: Option<Rate>,
) -> Result<(), ScenarioError> {
    let Some(t) = sc.traffic.take() else {
        return Ok(());
    };
    let first = sc.flows.len();
    let hosts = chosen_hosts(t.hosts.as_ref(), hosts)?;
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
    Ok(())
}

/// The hosts a pattern runs between: `traffic.hosts` as written (names, or the first N of
/// the generated ones), else all of a generated topology's `generated` hosts.
fn chosen_hosts(
    choice: Option<&HostChoice>,
    generated: Option<Vec<String>>,
) -> Result<Vec<String>, ScenarioError> {
    match (choice, generated) {
        (Some(HostChoice::Names(h)), _) => Ok(h.clone()),
        (Some(HostChoice::Count(n)), Some(mut h)) => {
            if *n < 2 || *n > h.len() as u64 {
                return Err(ScenarioError::new(
                    "traffic.hosts",
                    format!(
                        "got {n}; expected 2 to {} (the topology's hosts), or a list of host names",
                        h.len()
                    ),
                ));
            }
            h.truncate(*n as usize);
            Ok(h)
        }
        (Some(HostChoice::Count(n)), None) => Err(ScenarioError::new(
            "traffic.hosts",
            format!(
                "got {n}; a count of hosts needs a generated topology (fat_tree, leaf_spine, parking_lot): list the hosts by name instead"
            ),
        )),
        (None, Some(h)) => Ok(h),
        (None, None) => Err(ScenarioError::new(
            "traffic.hosts",
            "is required unless the topology is generated (fat_tree, leaf_spine, parking_lot): the hosts the pattern runs between",
        )),
    }
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
                        "all_to_all over {n} hosts is {} flows; at most 1,000,000 (at most {} hosts: set traffic.hosts to a count or a list)",
                        n * (n - 1),
                        most_hosts_all_to_all()
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

/// The most hosts an all-to-all pattern can run between: n·(n − 1) ≤ [`MAX_FLOWS`].
fn most_hosts_all_to_all() -> u64 {
    let mut n = (MAX_FLOWS as f64).sqrt() as u64 + 1;
    while n * (n - 1) > MAX_FLOWS {
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_count_of_hosts_takes_the_first_generated_ones() {
        let gen: Vec<String> = (0..16).map(|i| format!("h{i}")).collect();
        let h = chosen_hosts(Some(&HostChoice::Count(5)), Some(gen.clone())).unwrap();
        assert_eq!(h, ["h0", "h1", "h2", "h3", "h4"]);
        let all = chosen_hosts(None, Some(gen.clone())).unwrap();
        assert_eq!(all.len(), 16);
        let named = HostChoice::Names(vec!["h9".into(), "h3".into()]);
        assert_eq!(
            chosen_hosts(Some(&named), Some(gen.clone())).unwrap(),
            ["h9", "h3"]
        );
        for bad in [0, 1, 17] {
            let e = chosen_hosts(Some(&HostChoice::Count(bad)), Some(gen.clone())).unwrap_err();
            assert_eq!(e.path, "traffic.hosts");
            assert!(
                e.to_string()
                    .contains(&format!("got {bad}; expected 2 to 16")),
                "{e}"
            );
        }
        let e = chosen_hosts(Some(&HostChoice::Count(4)), None).unwrap_err();
        assert!(e.to_string().contains("needs a generated topology"), "{e}");
    }

    #[test]
    fn hosts_read_as_a_count_or_a_list() {
        let t: TrafficSpec =
            serde_json::from_value(serde_json::json!({"pattern": "permutation", "hosts": 8}))
                .unwrap();
        assert_eq!(t.hosts, Some(HostChoice::Count(8)));
        let t: TrafficSpec = serde_json::from_value(
            serde_json::json!({"pattern": "permutation", "hosts": ["a", "b"]}),
        )
        .unwrap();
        assert_eq!(
            t.hosts,
            Some(HostChoice::Names(vec!["a".into(), "b".into()]))
        );
        let e = serde_json::from_value::<TrafficSpec>(
            serde_json::json!({"pattern": "permutation", "hosts": "h0"}),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("a list of host names or a count of hosts"),
            "{e}"
        );
    }

    #[test]
    fn all_to_all_names_the_most_hosts_it_takes() {
        // 1000 · 999 = 999,000 flows fit under the limit; 1001 · 1000 do not.
        assert_eq!(most_hosts_all_to_all(), 1000);
        let t: TrafficSpec =
            serde_json::from_value(serde_json::json!({"pattern": "all_to_all"})).unwrap();
        let hosts: Vec<String> = (0..1001).map(|i| format!("h{i}")).collect();
        let e = pattern(&t, &hosts, 1).unwrap_err();
        assert!(e.to_string().contains("1001000 flows"), "{e}");
        assert!(e.to_string().contains("at most 1000 hosts"), "{e}");
        assert_eq!(pattern(&t, &hosts[..1000], 1).unwrap().len(), 999_000);
    }

    #[test]
    fn a_pattern_over_one_host_is_refused() {
        let e = two_hosts_at_least(&["h0".to_string()]).unwrap_err();
        assert_eq!(e.path, "traffic.hosts");
        assert!(e.to_string().contains("has 1 host(s)"), "{e}");
        assert!(two_hosts_at_least(&["h0".into(), "h1".into()]).is_ok());
    }
}

//! What a scenario generates before it is built: a `[[flows]]` entry with a `count` becomes
//! that many copies, a generated topology ([`super::topologies`]) its explicit nodes and
//! links, and a `[traffic]` table ([`super::traffic`]) its flows. A 1,024-host fat-tree
//! study, or 10,000 flows on a dumbbell, is then a ten-line file. Errors in generated flows
//! name what the file wrote ([`at_entry`]).

use super::error::ScenarioError;
use super::schema::*;
use super::units::Duration;
use super::{topologies, traffic};
use crate::sim::rng::Rng;

/// The most flows a scenario's generators (an entry's `count`, a traffic pattern) may make.
pub const MAX_FLOWS: u64 = 1_000_000;

/// Expand flow entries with a `count`, generated topologies and traffic patterns in place.
pub fn expand(sc: &mut Scenario) -> Result<(), ScenarioError> {
    expand_counts(sc)?;
    let host_link_rate = sc.topology.host_link.as_ref().map(|l| l.rate);
    let hosts = topologies::generate(&mut sc.topology)?;
    traffic::expand(sc, hosts, host_link_rate)
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

#[cfg(test)]
mod tests {
    use super::*;

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

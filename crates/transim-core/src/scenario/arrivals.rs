//! The `poisson` traffic pattern: the workload of datacenter flow-completion-time studies.
//! Flows arrive one by one as a Poisson process, each from a host drawn at random to another
//! drawn at random, with a size drawn from a flow-size distribution ([`SizeCdf`]). The
//! arrival rate makes the offered load a given fraction of the hosts' access capacity:
//!
//! λ = load × hosts × host_rate / (8 × mean size)   (flows per second).
//!
//! Every draw comes from the scenario's seed (one stream, drawn in a fixed order per flow:
//! gap, sender, receiver, size), so the same seed gives the same flows.

use super::error::ScenarioError;
use super::flow_sizes::SizeCdf;
use super::generate::MAX_FLOWS;
use super::schema::{AppKind, TrafficPattern, TrafficSpec};
use super::units::{Duration, Rate};
use crate::sim::rng::Rng;

/// One generated flow: hosts by index, start (ns), bytes to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Arrival {
    pub src: usize,
    pub dst: usize,
    pub start: u64,
    pub bytes: u64,
}

/// The fields only the poisson pattern takes, and whether each was given.
fn poisson_fields(t: &TrafficSpec) -> [(&'static str, bool); 4] {
    [
        ("load", t.load.is_some()),
        ("host_rate", t.host_rate.is_some()),
        ("sizes", t.sizes.is_some()),
        ("flows", t.flows.is_some()),
    ]
}

/// Reject fields of the poisson pattern under another pattern.
pub(super) fn check_not_poisson(t: &TrafficSpec) -> Result<(), ScenarioError> {
    if let Some((name, _)) = poisson_fields(t).iter().find(|(_, given)| *given) {
        return Err(ScenarioError::new(
            format!("traffic.{name}"),
            "is a parameter of pattern = \"poisson\" only",
        ));
    }
    Ok(())
}

/// The flows of a poisson pattern over `hosts` hosts; `host_link_rate` is the generated
/// topology's host link rate, if any (the default of `host_rate`).
pub(super) fn poisson(
    t: &TrafficSpec,
    hosts: usize,
    host_link_rate: Option<Rate>,
    seed: u64,
) -> Result<Vec<Arrival>, ScenarioError> {
    debug_assert_eq!(t.pattern, TrafficPattern::Poisson);
    for (given, name) in [
        (t.senders.is_some(), "senders"),
        (t.receiver.is_some(), "receiver"),
    ] {
        if given {
            return Err(ScenarioError::new(
                format!("traffic.{name}"),
                "is a parameter of pattern = \"incast\" only",
            ));
        }
    }
    let app = &t.app;
    if app.kind != AppKind::Bulk
        || app.bytes.is_some()
        || app.sizes.is_some()
        || app.count.is_some()
        || app.size.is_some()
        || app.rounds.is_some()
        || app.group.is_some()
    {
        return Err(ScenarioError::new(
            "traffic.app",
            "is not allowed with pattern = \"poisson\": each flow sends one transfer of a size drawn from traffic.sizes",
        ));
    }
    let required = |given: bool, name: &str, what: &str| {
        if given {
            Ok(())
        } else {
            Err(ScenarioError::new(
                format!("traffic.{name}"),
                format!("is required with pattern = \"poisson\": {what}"),
            ))
        }
    };
    required(t.flows.is_some(), "flows", "how many flows arrive")?;
    required(
        t.load.is_some(),
        "load",
        "the offered load, a fraction of the hosts' access capacity (for example 0.5)",
    )?;
    required(
        t.sizes.is_some(),
        "sizes",
        "\"web_search\", \"hadoop\" or a table [[bytes, fraction], ...]",
    )?;
    let flows = t.flows.unwrap_or(0);
    if flows == 0 || flows as u64 > MAX_FLOWS {
        return Err(ScenarioError::new(
            "traffic.flows",
            format!("got {flows}; expected 1 to 1,000,000"),
        ));
    }
    let load = t.load.unwrap_or(0.0);
    if !(load > 0.0 && load <= 1.0) {
        return Err(ScenarioError::new(
            "traffic.load",
            format!(
                "got {load}; expected a fraction of the hosts' access capacity above 0, at most 1"
            ),
        ));
    }
    let sizes = SizeCdf::from_spec(t.sizes.as_ref().expect("checked"), "traffic.sizes")?;
    let mean = sizes.mean();
    if mean < 1.0 {
        return Err(ScenarioError::new(
            "traffic.sizes",
            format!("averages {mean} bytes; expected flows of at least a byte on average"),
        ));
    }
    let rate = t.host_rate.or(host_link_rate).ok_or_else(|| {
        ScenarioError::new(
            "traffic.host_rate",
            "is required unless the topology is generated (its host_link rate is the default): each host's access rate, which traffic.load is a fraction of",
        )
    })?;
    // Flows per second over all hosts.
    let lambda = load * hosts as f64 * rate.0 / (8.0 * mean);
    let first = t.start.map_or(0, |d| d.0);
    let mut rng = Rng::stream(seed, "traffic.poisson");
    let mut at = 0.0f64;
    let mut out = Vec::with_capacity(flows as usize);
    for _ in 0..flows {
        at += -(1.0 - rng.uniform()).ln() / lambda;
        let src = pick(&mut rng, hosts);
        // Another host: one of the other hosts - 1, shifted past the sender.
        let dst = pick(&mut rng, hosts - 1);
        let dst = dst + usize::from(dst >= src);
        let bytes = sizes.sample(rng.uniform());
        out.push(Arrival {
            src,
            dst,
            start: first + (at * 1e9).round() as u64,
            bytes,
        });
    }
    Ok(out)
}

/// Refuse arrivals that run past the end of the run (`duration`), saying how long they last
/// and what to change.
pub(super) fn check_within(arrivals: &[Arrival], duration: Duration) -> Result<(), ScenarioError> {
    let Some(last) = arrivals.last() else {
        return Ok(());
    };
    if last.start < duration.0 {
        return Ok(());
    }
    let late = arrivals.iter().filter(|a| a.start >= duration.0).count();
    Err(ScenarioError::new(
        "traffic.flows",
        format!(
            "got {}; they arrive until {} s, after the run's end at {} s ({late} would never start): lengthen duration, or ask for fewer flows or a higher load",
            arrivals.len(),
            crate::sim::secs(last.start),
            crate::sim::secs(duration.0),
        ),
    ))
}

/// A uniform draw from 0..n (n ≥ 1).
fn pick(rng: &mut Rng, n: usize) -> usize {
    ((rng.uniform() * n as f64) as usize).min(n - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A poisson traffic table: these defaults with `v`'s fields set (a null removes one).
    fn spec(v: serde_json::Value) -> TrafficSpec {
        let mut base = json!({"pattern": "poisson", "load": 0.5, "sizes": "web_search",
            "flows": 20000});
        let obj = base.as_object_mut().unwrap();
        for (k, x) in v.as_object().unwrap() {
            if x.is_null() {
                obj.remove(k);
            } else {
                obj.insert(k.clone(), x.clone());
            }
        }
        serde_json::from_value(base).unwrap()
    }

    /// The arrivals offer the load asked for: 20,000 flows over 16 hosts at 10 Gbps and
    /// half load arrive at λ = 0.5 × 16 × 10^10 / (8 × 1,711,250) ≈ 5,843 flows/s, so the
    /// last arrives near 20,000 / λ ≈ 3.42 s (a gamma variable: standard deviation
    /// √20,000 / λ ≈ 0.024 s); the bytes they carry average the distribution's mean.
    #[test]
    fn arrivals_offer_the_load() {
        let a = poisson(&spec(json!({})), 16, Some(Rate(10e9)), 1).unwrap();
        assert_eq!(a.len(), 20_000);
        let lambda = 0.5 * 16.0 * 10e9 / (8.0 * 1_711_250.0);
        let last = a[a.len() - 1].start as f64 / 1e9;
        let expect = 20_000.0 / lambda;
        let sd = (20_000f64).sqrt() / lambda;
        assert!(
            (last - expect).abs() < 4.0 * sd,
            "{last} vs {expect} ± {sd}"
        );
        assert!(a.windows(2).all(|w| w[0].start <= w[1].start));
        // Senders and receivers: distinct, and every host both.
        assert!(a.iter().all(|f| f.src != f.dst && f.src < 16 && f.dst < 16));
        for h in 0..16 {
            let sent = a.iter().filter(|f| f.src == h).count();
            let got = a.iter().filter(|f| f.dst == h).count();
            // 1,250 expected each (standard deviation about 34).
            assert!((1_100..1_400).contains(&sent), "host {h} sends {sent}");
            assert!((1_100..1_400).contains(&got), "host {h} receives {got}");
        }
    }

    #[test]
    fn same_seed_same_flows_and_start_offsets_them() {
        let t = spec(json!({"flows": 50}));
        let a = poisson(&t, 8, Some(Rate(1e9)), 7).unwrap();
        assert_eq!(a, poisson(&t, 8, Some(Rate(1e9)), 7).unwrap());
        assert_ne!(a, poisson(&t, 8, Some(Rate(1e9)), 8).unwrap());
        let later = poisson(
            &spec(json!({"flows": 50, "start": "1s"})),
            8,
            Some(Rate(1e9)),
            7,
        )
        .unwrap();
        for (x, y) in a.iter().zip(&later) {
            assert_eq!(y.start, x.start + 1_000_000_000);
            assert_eq!((x.src, x.dst, x.bytes), (y.src, y.dst, y.bytes));
        }
        // host_rate overrides the topology's rate: twice the rate, arrivals twice as fast.
        let fast = poisson(
            &spec(json!({"flows": 50, "host_rate": "2Gbps"})),
            8,
            Some(Rate(1e9)),
            7,
        )
        .unwrap();
        let (t1, t2) = (a[49].start as f64, fast[49].start as f64);
        assert!((t2 * 2.0 - t1).abs() < 2.0, "{t1} {t2}");
    }

    /// From a scenario file's fields to flows: finite transfers between the fabric's hosts,
    /// and a generated flow's error names the traffic table.
    #[test]
    fn a_scenario_gets_finite_flows_and_errors_name_the_traffic_table() {
        let doc = |duration: &str| {
            json!({"duration": duration,
                "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4,
                    "host_link": {"rate": "10Gbps", "delay": "1us"}},
                "traffic": {"pattern": "poisson", "load": 0.5, "sizes": [[1000, 0.5], [3000, 1]],
                    "flows": 400}})
        };
        let sc = crate::scenario::parse(doc("1s")).unwrap();
        assert_eq!(sc.flows.len(), 400);
        assert_eq!(sc.traffic_flows, Some((0, 400)));
        for f in &sc.flows {
            assert_eq!(f.app.kind, AppKind::Finite);
            let bytes = f.app.bytes.unwrap().0;
            assert!((1000..=3000).contains(&bytes), "{bytes}");
            assert!(f.src.as_ref().unwrap().starts_with('h') && f.src != f.dst);
        }
        assert!(crate::scenario::build(&sc).is_ok());
        // λ = 0.5 × 8 × 10^10 / (8 × 1,500) ≈ 3.3 million flows/s: 400 arrive in about
        // 120 µs, so a 50 µs run ends before some of them start.
        let e = crate::scenario::parse(doc("50us")).unwrap_err();
        assert_eq!(e.path, "traffic.flows");
        assert!(
            e.message.contains("after the run's end at 0.00005 s")
                && e.message.contains("lengthen duration"),
            "{e}"
        );
        // An error in a generated flow names the traffic table.
        let mut d = doc("1s");
        d["traffic"]["tcp"] = json!({"cc": "no-such-cc"});
        let e = crate::scenario::build(&crate::scenario::parse(d).unwrap())
            .err()
            .expect("an unknown congestion control");
        assert!(e.path.starts_with("traffic.tcp"), "{e}");
        assert!(
            e.message
                .contains("one of the 400 flows the traffic pattern made"),
            "{e}"
        );
    }

    #[test]
    fn missing_and_misplaced_fields_are_named() {
        let err =
            |v: serde_json::Value, rate: Option<Rate>| poisson(&spec(v), 4, rate, 1).unwrap_err();
        let r = Some(Rate(1e9));
        for field in ["load", "sizes", "flows"] {
            let e = err(json!({ field: null }), r);
            assert_eq!(e.path, format!("traffic.{field}"));
            assert!(e.message.contains("is required"), "{e}");
        }
        assert_eq!(err(json!({}), None).path, "traffic.host_rate");
        assert_eq!(err(json!({"load": 1.5}), r).path, "traffic.load");
        assert_eq!(err(json!({"load": 0}), r).path, "traffic.load");
        assert_eq!(err(json!({"flows": 0}), r).path, "traffic.flows");
        assert_eq!(err(json!({"senders": 2}), r).path, "traffic.senders");
        let e = err(json!({"app": {"kind": "finite", "bytes": 1000}}), r);
        assert_eq!(e.path, "traffic.app");
        assert_eq!(err(json!({"sizes": "uniform"}), r).path, "traffic.sizes");
        let mut perm = spec(json!({}));
        perm.pattern = TrafficPattern::Permutation;
        assert_eq!(check_not_poisson(&perm).unwrap_err().path, "traffic.load");
    }
}

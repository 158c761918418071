//! Equal-cost paths shared out per packet (`topology.ecmp = "packet"`, packet spraying)
//! against per flow (`true`) and not at all (`false`).

mod common;

use common::{packets_in as link_in, run};
use serde_json::{json, Value};
use transim_core::results::RunOutput;

/// A → R1 → {P, Q} → R2 → B: two paths of four hops. The ends' links run at 10 Mbps, the
/// four links between the routers at 100 Mbps with `delay_p` and `delay_q` per hop, so only
/// A's own link ever queues. One 1 MB transfer A → B.
fn diamond(ecmp: Value, delay_p: &str, delay_q: &str, recovery: &str) -> Value {
    let fabric = |a: &str, b: &str, delay: &str| json!({"between": [a, b], "rate": "100Mbps", "delay": delay, "queue": 1000});
    json!({
        "duration": "20s",
        "seed": 1,
        "tcp": {"profile": "rfc", "mss": 1000, "timestamps": false, "delayed_ack": "off",
                "recovery": recovery, "rcv_buf": "256KB"},
        "topology": {
            "kind": "explicit",
            "nodes": ["A", "R1", "P", "Q", "R2", "B"],
            "links": [
                {"between": ["A", "R1"], "rate": "10Mbps", "delay": "1ms", "queue": 1000},
                fabric("R1", "P", delay_p),
                fabric("R1", "Q", delay_q),
                fabric("P", "R2", delay_p),
                fabric("Q", "R2", delay_q),
                {"between": ["R2", "B"], "rate": "10Mbps", "delay": "1ms", "queue": 1000},
            ],
            "ecmp": ecmp,
        },
        "flows": [{"src": "A", "dst": "B", "app": {"kind": "finite", "bytes": "1MB"}}],
    })
}

/// With both paths alike, which one a packet takes changes nothing but the links' counts:
/// every packet waits only at A's link and spends the same time after it, so the transfer
/// runs to the nanosecond as it does on one path.
#[test]
fn alike_paths_give_the_same_timeline_whichever_a_packet_takes() {
    let runs: Vec<RunOutput> = [json!(false), json!(true), json!("flow"), json!("packet")]
        .into_iter()
        .map(|e| run(diamond(e, "1ms", "1ms", "rfc6675")))
        .collect();
    let done: Vec<_> = runs
        .iter()
        .map(|o| o.result.flows[0].detail.tcp().completion_time)
        .collect();
    assert!(done[0].is_some(), "the transfer completes");
    assert!(done.iter().all(|&t| t == done[0]), "{done:?}");
    // Sprayed packets may pass one another on parallel paths, so a train on one path is no
    // lower bound: a sprayed flow with a choice on its route has no ideal completion time.
    let ideal: Vec<_> = runs
        .iter()
        .map(|o| o.result.flows[0].detail.tcp().ideal_completion_time)
        .collect();
    assert!(ideal[..3].iter().all(|i| i.is_some() && *i == ideal[0]));
    assert_eq!(ideal[3], None);
    let sent = link_in(&runs[3], "A->R1");
    let sprayed = (link_in(&runs[3], "R1->P"), link_in(&runs[3], "R1->Q"));
    // Every packet A sends crosses exactly one of the two links (none is dropped).
    assert_eq!(sprayed.0 + sprayed.1, sent);
    for share in [sprayed.0, sprayed.1] {
        assert!(
            (sent * 2 / 5..=sent * 3 / 5).contains(&share),
            "{sprayed:?} of {sent}: sprayed packets split about evenly"
        );
    }
    // Without ECMP the first link in R1's order takes them all; per flow, one of the two.
    assert_eq!(
        (link_in(&runs[0], "R1->P"), link_in(&runs[0], "R1->Q")),
        (sent, 0)
    );
    let per_flow = (link_in(&runs[1], "R1->P"), link_in(&runs[1], "R1->Q"));
    assert!(
        per_flow == (sent, 0) || per_flow == (0, sent),
        "{per_flow:?}"
    );
    // The ACKs are sprayed on the way back too.
    let acks = link_in(&runs[3], "B->R2");
    let back = (link_in(&runs[3], "R2->P"), link_in(&runs[3], "R2->Q"));
    assert!(back.0 > 0 && back.1 > 0, "{back:?}");
    assert_eq!(back.0 + back.1, acks);
}

/// One path 8 ms longer each way than the other: sprayed packets overtake each other, the
/// receiver sees segments out of order, and a sender that counts three duplicate ACKs as a
/// loss retransmits segments no link dropped. Kept to one path per flow, nothing is out of
/// order and nothing is retransmitted.
#[test]
fn unequal_paths_reorder_sprayed_packets_and_fool_dupthresh() {
    let per_flow = run(diamond(json!("flow"), "1ms", "5ms", "rfc6675"));
    let sprayed = run(diamond(json!("packet"), "1ms", "5ms", "rfc6675"));
    for (out, what) in [(&per_flow, "per flow"), (&sprayed, "sprayed")] {
        let drops: u64 = out.result.links.iter().flat_map(|l| l.drops.values()).sum();
        assert_eq!(drops, 0, "{what}: no link drops a packet");
    }
    let (pf, sp) = (
        per_flow.result.flows[0].detail.tcp(),
        sprayed.result.flows[0].detail.tcp(),
    );
    assert_eq!(pf.retransmissions, 0);
    assert!(
        sp.fast_retransmits > 0 && sp.retransmissions > 0,
        "sprayed over unequal paths: {} fast retransmits, {} retransmissions",
        sp.fast_retransmits,
        sp.retransmissions
    );
    assert!(sp.completion_time.is_some());
}

/// The same scenario and seed give the same results, sprayed as otherwise.
#[test]
fn sprayed_runs_are_deterministic() {
    let a = run(diamond(json!("packet"), "1ms", "3ms", "rack-tlp"));
    let b = run(diamond(json!("packet"), "1ms", "3ms", "rack-tlp"));
    assert_eq!(
        serde_json::to_string(&a.result).unwrap(),
        serde_json::to_string(&b.result).unwrap()
    );
}

/// A generated leaf-spine sprays one flow over all four spines, and per flow keeps it on one.
#[test]
fn a_sprayed_flow_crosses_every_spine() {
    let leaf_spine = |ecmp: Value| {
        json!({
            "duration": "2s", "seed": 1,
            "tcp": {"profile": "rfc"},
            "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 4, "hosts_per_leaf": 2,
                         "host_link": {"rate": "1Gbps", "delay": "10us", "queue": 1000},
                         "ecmp": ecmp},
            "flows": [{"src": "h0", "dst": "h2", "app": {"kind": "finite", "bytes": "2MB"}}],
        })
    };
    let up = |out: &RunOutput| -> Vec<u64> {
        (0..4)
            .map(|s| link_in(out, &format!("leaf0->spine{s}")))
            .collect()
    };
    let sprayed = run(leaf_spine(json!("packet")));
    let sent = link_in(&sprayed, "h0->leaf0");
    let shares = up(&sprayed);
    assert_eq!(shares.iter().sum::<u64>(), sent);
    assert!(
        shares
            .iter()
            .all(|&n| (sent / 8..=sent * 3 / 8).contains(&n)),
        "{shares:?} of {sent}"
    );
    let per_flow = up(&run(leaf_spine(json!(true))));
    assert_eq!(
        per_flow.iter().filter(|&&n| n > 0).count(),
        1,
        "{per_flow:?}"
    );
}

#[test]
fn an_unknown_ecmp_mode_is_refused_with_the_choices() {
    let err = |ecmp: Value| {
        transim_core::run_value(diamond(ecmp, "1ms", "1ms", "rfc6675"))
            .err()
            .expect("refused")
            .to_string()
    };
    let e = err(json!("sometimes"));
    assert!(e.contains("topology.ecmp"), "{e}");
    assert!(
        e.contains(r#"got "sometimes"; expected true, false, "flow" or "packet""#),
        "{e}"
    );
    let e = err(json!(2));
    assert!(e.contains("topology.ecmp"), "{e}");
    assert!(
        e.contains(r#"expected true, false, "flow" or "packet""#),
        "{e}"
    );
}

/// Generated leaf-spine runs, sprayed or not, with any recovery and a few congestion
/// controls: the engine's own conservation check holds (it fails the run otherwise), no
/// flow beats its host link or its idle-network completion time, and a second run gives
/// the same text.
#[test]
fn generated_sprayed_fabrics_hold_the_invariants() {
    use proptest::prelude::*;
    let recoveries = ["newreno", "sack1", "rfc6675", "rack-tlp"];
    let ccs = ["reno", "cubic", "dctcp", "bbr"];
    let strategy = (
        prop::sample::select(vec![json!(false), json!("flow"), json!("packet")]),
        prop::sample::select(recoveries.to_vec()),
        prop::sample::select(ccs.to_vec()),
        prop::sample::select(vec![8u32, 30, 200]),
        prop::collection::vec((0u32..8, 0u32..8, prop::option::of(1u32..400)), 1..6),
        any::<u32>(),
    );
    let mut runner = common::seeded_runner(16, 31);
    runner
        .run(&strategy, |(ecmp, recovery, cc, queue, pairs, seed)| {
            let flows: Vec<Value> = pairs
                .iter()
                .filter(|(s, d, _)| s != d)
                .map(|&(s, d, kb)| {
                    let app = match kb {
                        Some(kb) => json!({"kind": "finite", "bytes": format!("{kb}KB")}),
                        None => json!({"kind": "bulk"}),
                    };
                    json!({"src": format!("h{s}"), "dst": format!("h{d}"), "app": app})
                })
                .collect();
            if flows.is_empty() {
                return Ok(());
            }
            let doc = json!({
                "duration": "20ms", "seed": seed,
                "tcp": {"profile": "linux-2.6", "recovery": recovery, "cc": cc},
                "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 3,
                             "hosts_per_leaf": 4, "ecmp": ecmp,
                             "host_link": {"rate": "1Gbps", "delay": "5us", "queue": queue}},
                "flows": flows,
            });
            let out = transim_core::run_value(doc.clone())
                .map_err(|e| TestCaseError::fail(format!("{e} for {doc}")))?;
            for f in &out.result.flows {
                let t = f.detail.tcp();
                prop_assert!(
                    t.goodput_bps <= 1e9 * 1.000_001,
                    "{} in {doc}",
                    t.goodput_bps
                );
                if let (Some(done), Some(ideal)) = (t.completion_time, t.ideal_completion_time) {
                    prop_assert!(done >= ideal, "{done} < ideal {ideal} in {doc}");
                }
            }
            let again = transim_core::run_value(doc.clone()).expect("ran the first time");
            prop_assert_eq!(
                serde_json::to_string(&out.result).unwrap(),
                serde_json::to_string(&again.result).unwrap()
            );
            Ok(())
        })
        .unwrap();
}

/// Advice: a flow sprayed at R1 whose recovery counts duplicate ACKs is warned, naming the
/// node and the remedy; RACK-TLP, per-flow ECMP and a flow within one leaf are not.
#[test]
fn advice_warns_a_sprayed_flow_that_counts_duplicate_acks() {
    use transim_core::scenario::advice::advise;
    let advice = |doc: Value| {
        let sc = transim_core::scenario::parse(doc).expect("valid scenario");
        let sim = transim_core::scenario::build(&sc).expect("builds");
        advise(&sc, &sim)
            .into_iter()
            .filter(|a| a.code == "sprayed_with_dupthresh")
            .collect::<Vec<_>>()
    };
    let warned = advice(diamond(json!("packet"), "1ms", "1ms", "rfc6675"));
    assert_eq!(warned.len(), 1);
    let m = &warned[0].message;
    assert!(m.contains("sprayed over equal-cost paths from R1"), "{m}");
    assert!(
        m.contains(r#"tcp.recovery = "rfc6675" takes 3 duplicate ACKs"#),
        "{m}"
    );
    assert!(m.contains(r#"RACK-TLP (tcp.recovery = "rack-tlp")"#), "{m}");
    assert!(advice(diamond(json!("packet"), "1ms", "1ms", "rack-tlp")).is_empty());
    assert!(advice(diamond(json!(true), "1ms", "1ms", "rfc6675")).is_empty());
    let mut sctp = diamond(json!("packet"), "1ms", "1ms", "rfc6675");
    sctp["flows"][0]["protocol"] = json!("sctp");
    sctp["flows"][0]["app"] = json!({"kind": "bulk"});
    let m = &advice(sctp)[0].message;
    assert!(m.contains("SCTP takes 3 missing reports"), "{m}");
    // Within one leaf of a leaf-spine there is no choice to spray.
    let within = json!({
        "duration": "1s",
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 4, "hosts_per_leaf": 2,
                     "host_link": {"rate": "1Gbps", "delay": "10us"}, "ecmp": "packet"},
        "flows": [{"src": "h0", "dst": "h1", "app": {"kind": "bulk"}}],
    });
    assert!(advice(within).is_empty());
}

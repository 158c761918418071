//! Property tests over generated scenarios (issue 16), at the engine's own interface: every
//! run ends in results or a scenario error naming a field — never a panic — with packet
//! conservation (the engine checks it and fails otherwise), goodput no higher than the
//! bottleneck, utilisation at most 100 % and identical results for the same seed.
//! `PROPTEST_CASES` sets how many (CI: the default below); the Python suite
//! (`tests/test_fuzz.py`) adds malformed documents and the front end.

mod common;
use common::seeded_runner;
use proptest::prelude::*;
use serde_json::{json, Value};

const CCS: &[&str] = &[
    "reno",
    "cubic",
    "cubic-2.6",
    "westwood",
    "veno",
    "vegas",
    "highspeed",
    "scalable",
    "bic",
    "htcp",
    "hybla",
    "illinois",
    "bbr",
    "bbr3",
    "dctcp",
    "linux-reno",
    "ledbat",
    "lp",
    "yeah",
    "westwood-classic",
    "westwood+",
];
const RECOVERIES: &[&str] = &[
    "tahoe", "reno", "newreno", "sack1", "sackplus", "rfc6675", "rack-tlp",
];
const RATES: &[(&str, f64)] = &[
    ("64kbps", 64e3),
    ("1Mbps", 1e6),
    ("10Mbps", 10e6),
    ("100Mbps", 100e6),
];

fn loss() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"model": "none"})),
        prop::sample::select(vec![0.001, 0.01, 0.05])
            .prop_map(|p| json!({"model": "bernoulli", "p": p})),
        (
            prop::sample::select(vec![0.001, 0.01]),
            prop::sample::select(vec![0.2, 1.0])
        )
            .prop_map(|(p, q)| json!({"model": "gilbert", "p": p, "q": q})),
    ]
}

fn tcp() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(CCS),
        prop::sample::select(RECOVERIES),
        prop::sample::select(vec!["rfc", "linux-2.6", "ns2"]),
        any::<bool>(),
        prop::sample::select(vec![100u32, 536, 1460]),
        prop::sample::select(vec![1u32, 2, 10]),
        any::<bool>(),
        prop::sample::select(vec![None, Some(0u32), Some(1), Some(3)]),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec![None, None, None, Some("100kbps"), Some("3Mbps")]),
    )
        .prop_map(
            |(cc, rec, profile, pacing, mss, iw, prr, quickacks, grow, undo, read_rate)| {
                let mut t = json!({"cc": cc, "recovery": rec, "profile": profile, "pacing": pacing,
                   "mss": mss, "initial_window": iw});
                if let Some(q) = quickacks {
                    t["quickacks"] = json!(q);
                }
                // PRR where it applies, and said to be off elsewhere, so that a flow's table
                // does not inherit it from the scenario's with another recovery (the refusal
                // has its own test).
                t["prr"] = json!(prr && matches!(rec, "rfc6675" | "rack-tlp"));
                // ns-3's way of leaving recovery, where it applies (refused elsewhere).
                if grow
                    && profile != "ns2"
                    && matches!(
                        rec,
                        "rfc6675" | "rack-tlp" | "sack1" | "sackplus" | "newreno"
                    )
                {
                    t["grow_on_exit"] = json!(true);
                }
                // D-SACK undo where it applies (SACK recovery with D-SACK, not with PRR), and
                // said to be off elsewhere, as PRR is.
                let undo = undo
                    && profile != "ns2"
                    && t["prr"] == json!(false)
                    && matches!(rec, "rfc6675" | "rack-tlp" | "sack1" | "sackplus");
                if undo {
                    t["dsack"] = json!(true);
                } else if profile == "ns2"
                    || !matches!(rec, "rfc6675" | "rack-tlp" | "sack1" | "sackplus")
                {
                    t["dsack"] = json!(false); // not inherited where it would be refused
                }
                t["undo"] = json!(undo);
                // A slow receiving application (the ns2 profile has no receive buffer).
                if let (Some(r), false) = (read_rate, profile == "ns2") {
                    t["read_rate"] = json!(r);
                }
                t
            },
        )
}

fn app() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"kind": "bulk"})),
        (1u64..200_000).prop_map(|b| json!({"kind": "finite", "bytes": b})),
        (
            1u64..100_000,
            1u32..6,
            prop::sample::select(vec!["0ms", "0ms", "1ms", "30ms"])
        )
            .prop_map(
                |(b, n, j)| json!({"kind": "rounds", "bytes": b, "rounds": n,
                                          "group": format!("g{n}"), "jitter": j})
            ),
    ]
}

fn scenario() -> impl Strategy<Value = (Value, f64)> {
    (
        prop::sample::select(RATES),
        prop::sample::select(vec!["0ms", "1ms", "20ms"]),
        prop::sample::select(vec![2u32, 20, 200]),
        prop::sample::select(vec!["droptail", "fq", "ack_filter"]),
        (
            loss(),
            prop::sample::select(vec![(0u32, false), (0, false), (2, false), (5, true)]),
        ),
        prop::collection::vec(
            (
                app(),
                prop::option::of(tcp()),
                prop::sample::select(vec![0.0, 0.1]),
            ),
            1..4,
        ),
        tcp(),
        any::<u32>(),
    )
        .prop_map(
            |((rate, bps), delay, queue, qdisc, (loss, (jitter_ms, reorder)), flows, tcp, seed)| {
                let flows: Vec<Value> = flows
                    .into_iter()
                    .map(|(app, t, start)| {
                        let mut f = json!({"app": app, "start": start});
                        if let Some(t) = t {
                            f["tcp"] = t;
                        }
                        f
                    })
                    .collect();
                let mut forward = json!({"loss": loss});
                if jitter_ms > 0 {
                    forward["jitter"] = json!(format!("{jitter_ms}ms"));
                    forward["reorder"] = json!(reorder);
                }
                let doc = json!({
                    "seed": seed,
                    "duration": 0.5,
                    "tcp": tcp,
                    "topology": {"kind": "dumbbell", "bottleneck": {
                        "rate": rate, "delay": delay, "queue": queue, "qdisc": qdisc,
                        "forward": forward}},
                    "flows": flows
                });
                (doc, bps)
            },
        )
}

/// One generated case: Ok(true) if it ran and held the invariants, Ok(false) if refused
/// with a field named.
fn check(doc: &Value, bps: f64) -> Result<bool, TestCaseError> {
    match transim_core::run_value(doc.clone()) {
        Err(transim_core::Error::Scenario(e)) => {
            prop_assert!(!e.path.is_empty(), "error without a field: {e}");
            Ok(false)
        }
        Err(other) => Err(TestCaseError::fail(format!("{other:?} for {doc}"))),
        Ok(out) => {
            for f in &out.result.flows {
                let t = f.detail.tcp();
                // The transport's results are written as `to_value` holds them: every
                // object's keys in name order, nested ones too.
                prop_assert_eq!(
                    serde_json::to_string(&f.detail).unwrap(),
                    serde_json::to_string(&serde_json::to_value(t).unwrap()).unwrap()
                );
                let g = t.goodput_bps;
                prop_assert!(g <= bps * 1.000_001, "goodput {g} above {bps} in {doc}");
                // No transfer beats the idle network (both in seconds from whole ns).
                if let (Some(done), Some(ideal)) = (t.completion_time, t.ideal_completion_time) {
                    prop_assert!(done >= ideal, "{}: {done} < ideal {ideal} in {doc}", f.name);
                }
                // A slow reader reads no faster than its rate, and what it has not read is
                // still in the buffer.
                if let Some(r) = &t.reader {
                    prop_assert_eq!(r.bytes_read + r.unread_at_end, t.bytes_delivered);
                    let most = r.read_rate_bps * out.result.simulated_time / 8.0 + 1.0;
                    prop_assert!(
                        (r.bytes_read as f64) <= most,
                        "read {} in {doc}",
                        r.bytes_read
                    );
                }
            }
            for l in &out.result.links {
                prop_assert!(
                    l.utilisation <= 1.000_001,
                    "{} at {}",
                    l.name,
                    l.utilisation
                );
            }
            // Rounds end in order, never more than asked for, and all of them when every
            // flow completed.
            let all_done = out
                .result
                .flows
                .iter()
                .all(|f| f.detail.tcp().completion_time.is_some());
            for g in &out.result.rounds {
                prop_assert!(g.completed.windows(2).all(|w| w[0] < w[1]), "{doc}");
                prop_assert!(g.completed.len() <= g.rounds as usize, "{doc}");
                if all_done {
                    prop_assert_eq!(g.completed.len(), g.rounds as usize, "{}", doc);
                }
            }
            let again = transim_core::run_value(doc.clone()).expect("ran the first time");
            // The same text again, and the summary writer's text is serde_json's.
            prop_assert_eq!(
                out.result.to_json_text().unwrap(),
                serde_json::to_string(&again.result).unwrap()
            );
            Ok(true)
        }
    }
}

#[test]
fn generated_scenarios_hold_the_invariants() {
    let mut runner = seeded_runner(48, 16);
    let ran = std::cell::Cell::new((0u32, 0u32));
    runner
        .run(&scenario(), |(doc, bps)| {
            let ok = check(&doc, bps)?;
            let (r, n) = ran.get();
            ran.set((r + ok as u32, n + 1));
            Ok(())
        })
        .unwrap();
    let (r, n) = ran.get();
    eprintln!("{r} of {n} generated scenarios ran, the rest were refused naming a field");
    assert!(
        r * 10 >= n * 6,
        "only {r} of {n} ran: the generator mostly makes refusals"
    );
}

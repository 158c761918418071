//! Property tests over generated SCTP associations: random loss, reordering, buffers, stream
//! counts, slow readers (`sctp.read_rate`), writes at set times (`app.at`), Max.Burst and the
//! idle cwnd rule. Every run ends in results (the engine checks
//! packet conservation and fails otherwise), a reader reads no faster than its rate and
//! holds what it has not read, goodput stays under the bottleneck, and the same seed gives
//! the same results. `PROPTEST_CASES` sets how many (CI: the default below).

mod common;
use common::seeded_runner;
use proptest::prelude::*;
use serde_json::{json, Value};

const RATES: &[(&str, f64)] = &[("1Mbps", 1e6), ("10Mbps", 10e6), ("100Mbps", 100e6)];

fn sctp() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![1500u32, 3000, 20_000, 131_072]),
        prop::sample::select(vec![None, Some("8kbps"), Some("500kbps"), Some("5Mbps")]),
        prop::sample::select(vec![1u32, 2]),
        any::<bool>(),
        prop::sample::select(vec!["round_robin", "fcfs"]),
        (
            prop::sample::select(vec![1u32, 4, 100]),
            prop::sample::select(vec!["restore", "lower"]),
            prop::sample::select(vec!["rfc", "off"]),
        ),
    )
        .prop_map(
            |(rcv_buf, read_rate, sack_freq, unordered, scheduler, burst)| {
                let (max_burst, max_burst_cwnd, cwnd_after_idle) = burst;
                let mut s = json!({"rcv_buf": rcv_buf, "sack_freq": sack_freq,
                               "unordered": unordered, "scheduler": scheduler,
                               "max_burst": max_burst, "max_burst_cwnd": max_burst_cwnd,
                               "cwnd_after_idle": cwnd_after_idle});
                if let Some(r) = read_rate {
                    s["read_rate"] = json!(r);
                }
                s
            },
        )
}

fn app() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"kind": "bulk"})),
        (1u64..300_000).prop_map(|b| json!({"kind": "finite", "bytes": b})),
        (1u32..6, 1u64..40_000).prop_map(
            |(n, size)| json!({"kind": "files", "count": n, "size": size, "piece": 1460})
        ),
        // Writes at set times within the 2 s run, in order.
        prop::collection::vec((1u64..40_000, 0u64..2_000), 1..8).prop_map(|mut w| {
            w.sort_by_key(|x| x.1);
            let sizes: Vec<u64> = w.iter().map(|x| x.0).collect();
            let at: Vec<String> = w.iter().map(|x| format!("{}ms", x.1)).collect();
            json!({"kind": "writes", "sizes": sizes, "at": at})
        }),
    ]
}

fn scenario() -> impl Strategy<Value = (Value, f64)> {
    (
        prop::sample::select(RATES),
        prop::sample::select(vec!["1ms", "20ms"]),
        prop::sample::select(vec![5u32, 50, 500]),
        prop::sample::select(vec![0.0, 0.001, 0.02, 0.1]),
        prop::sample::select(vec![(0u32, false), (0, false), (3, true)]),
        prop::collection::vec((app(), sctp()), 1..3),
        any::<u32>(),
    )
        .prop_map(
            |((rate, bps), delay, queue, p, (jitter_ms, reorder), flows, seed)| {
                let flows: Vec<Value> = flows
                    .into_iter()
                    .map(|(app, s)| json!({"protocol": "sctp", "app": app, "sctp": s}))
                    .collect();
                let mut forward = json!({"loss": {"model": "bernoulli", "p": p}});
                if jitter_ms > 0 {
                    forward["jitter"] = json!(format!("{jitter_ms}ms"));
                    forward["reorder"] = json!(reorder);
                }
                let doc = json!({
                    "seed": seed,
                    "duration": 2.0,
                    "topology": {"kind": "dumbbell", "bottleneck": {
                        "rate": rate, "delay": delay, "queue": queue, "forward": forward}},
                    "flows": flows
                });
                (doc, bps)
            },
        )
}

fn check(doc: &Value, bps: f64) -> Result<(), TestCaseError> {
    let out = match transim_core::run_value(doc.clone()) {
        Ok(out) => out,
        Err(e) => return Err(TestCaseError::fail(format!("{e:?} for {doc}"))),
    };
    for (i, f) in out.result.flows.iter().enumerate() {
        let s = f.detail.sctp();
        // An application that writes at set times has its messages delivered no earlier
        // than they are written: never more than were written by the end.
        if let Some(at) = doc["flows"][i]["app"]["at"].as_array() {
            let end = out.result.simulated_time * 1000.0;
            let written = at
                .iter()
                .filter(|t| {
                    t.as_str()
                        .unwrap()
                        .trim_end_matches("ms")
                        .parse::<f64>()
                        .unwrap()
                        <= end
                })
                .count() as u64;
            prop_assert!(
                s.messages_delivered <= written,
                "{} of {written} in {doc}",
                s.messages_delivered
            );
        }
        prop_assert!(
            s.goodput_bps <= bps * 1.000_001,
            "goodput {} in {doc}",
            s.goodput_bps
        );
        if let Some(r) = &s.reader {
            prop_assert_eq!(r.bytes_read + r.unread_at_end, s.bytes_delivered, "{}", doc);
            let most = r.read_rate_bps * out.result.simulated_time / 8.0 + 1.0;
            prop_assert!(
                (r.bytes_read as f64) <= most,
                "read {} in {doc}",
                r.bytes_read
            );
        }
    }
    let again = transim_core::run_value(doc.clone()).expect("ran the first time");
    prop_assert_eq!(
        out.result.to_json_text().unwrap(),
        serde_json::to_string(&again.result).unwrap()
    );
    Ok(())
}

#[test]
fn generated_associations_hold_the_invariants() {
    seeded_runner(32, 9260)
        .run(&scenario(), |(doc, bps)| check(&doc, bps))
        .unwrap();
}

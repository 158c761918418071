//! A link's random delay (`jitter`, `reorder`): each packet's propagation delay is the link's
//! delay plus a draw uniform in [0, jitter). Checked against closed forms: the draws'
//! distribution (a Kolmogorov–Smirnov bound), the kept order without `reorder`, and with it
//! the chance that a packet overtakes the one that left Δ before it, (J − Δ)² / 2J² for
//! Δ < J (the difference of two uniform draws exceeds Δ).
//!
//! The path: A —8 Mbps (1 byte/µs), 10 ms— B, MSS 1000 (1,040 bytes on the wire, so a data
//! segment takes 1,040 µs to serialise); the jitter is on the forward direction only.

mod common;
use common::*;
use serde_json::{json, Value};
use std::collections::HashMap;
use transim_core::results::RunOutput;
use transim_core::trace::packet_event;

const US: u64 = 1_000;
const DELAY: u64 = 10_000 * US;

/// A bulk transfer for `duration` over the path with `forward` on the jittered direction.
/// Duplicate ACKs never start a recovery (threshold 10,000), so reordering costs nothing and
/// no segment is sent twice.
fn jittered(duration: &str, forward: Value, tcp: Value) -> RunOutput {
    let mut doc = two_node(
        duration,
        json!({"initial_window": 40, "dupthresh": 10_000, "rcv_buf": 64_000}),
        json!({"kind": "bulk"}),
        forward,
    );
    for (k, v) in tcp.as_object().unwrap() {
        doc["tcp"][k] = v.clone();
    }
    run(doc)
}

/// Data segments in the order they left A: (end of serialisation, arrival at B), in ns.
/// A's link is a FIFO at 1 byte/µs, so a packet of w bytes handed to it at `send` ends at
/// max(send, end of the one before) + w µs.
fn departures_and_arrivals(out: &RunOutput) -> Vec<(u64, u64)> {
    let pt = out.packet_trace.as_ref().unwrap();
    let data = |i: usize| pt.from_sender[i] == 1 && pt.len[i] > 0;
    let mut arrival = HashMap::new();
    for i in rows(pt, |i| pt.kind[i] == packet_event::DELIVER && data(i)) {
        assert!(
            arrival.insert(pt.seq[i], ns(pt.t[i])).is_none(),
            "sent once"
        );
    }
    let mut end = 0;
    let mut out = Vec::new();
    // Every packet A sends (the SYN and the handshake's ACK too) takes its turn on the link.
    for i in rows(pt, |i| {
        pt.kind[i] == packet_event::SEND && pt.from_sender[i] == 1
    }) {
        end = end.max(ns(pt.t[i])) + pt.wire[i] as u64 * US;
        if data(i) {
            if let Some(&a) = arrival.get(&pt.seq[i]) {
                out.push((end, a));
            }
        }
    }
    out
}

/// Packets dropped anywhere in the run, for any cause.
fn drops(out: &RunOutput) -> u64 {
    let links = out.result.links.iter();
    links.flat_map(|l| l.drops.iter().map(|d| d.1)).sum()
}

/// Without `reorder`, widely spaced packets (1,040 µs apart, jitter 500 µs) never catch up
/// with one another, so each extra delay is the draw itself: uniform in [0, 500 µs). The
/// largest gap between their empirical distribution and the uniform one stays under the
/// Kolmogorov–Smirnov bound 1.63/√n (1 % level).
#[test]
fn extra_delays_are_uniform_below_the_jitter() {
    let out = jittered("4s", json!({"jitter": "500us"}), json!({}));
    let mut extra: Vec<f64> = departures_and_arrivals(&out)
        .into_iter()
        .map(|(end, a)| (a - end - DELAY) as f64 / (500 * US) as f64)
        .collect();
    let n = extra.len();
    assert!(n > 3_000, "{n} segments");
    extra.sort_by(f64::total_cmp);
    assert!(
        extra[0] >= 0.0 && extra[n - 1] < 1.0,
        "{:?}",
        (extra[0], extra[n - 1])
    );
    let ks = extra
        .iter()
        .enumerate()
        .map(|(k, &x)| {
            (x - k as f64 / n as f64)
                .abs()
                .max(((k + 1) as f64 / n as f64 - x).abs())
        })
        .fold(0.0, f64::max);
    assert!(
        ks < 1.63 / (n as f64).sqrt(),
        "KS distance {ks} over {n} draws"
    );
}

/// Without `reorder`, a jitter of 5 ms on packets 1,040 µs apart would let later ones
/// overtake; instead each arrives no earlier than the one ahead, and never before its own
/// delay plus nothing, nor after its delay plus the jitter plus the wait for the one ahead.
#[test]
fn without_reorder_the_order_is_kept() {
    let out = jittered("2s", json!({"jitter": "5ms"}), json!({}));
    let d = departures_and_arrivals(&out);
    assert!(d.len() > 1_000);
    for w in d.windows(2) {
        assert!(
            w[1].1 >= w[0].1,
            "{w:?}: arrived before the segment sent ahead of it"
        );
    }
    for &(end, a) in &d {
        assert!(a >= end + DELAY, "{end} {a}");
    }
    // Some were held back: an arrival tied to the one before it.
    assert!(d.windows(2).any(|w| w[1].1 == w[0].1));
}

/// With `reorder`, a segment overtakes the one that left Δ before it with chance
/// (J − Δ)² / 2J². Over the run the count of overtakings matches the sum of these chances
/// within five standard deviations.
#[test]
fn with_reorder_segments_overtake_as_uniform_draws_predict() {
    let j = 5_000 * US;
    let out = jittered("8s", json!({"jitter": "5ms", "reorder": true}), json!({}));
    let d = departures_and_arrivals(&out);
    assert!(d.len() > 5_000, "{}", d.len());
    let (mut expected, mut variance, mut seen) = (0.0, 0.0, 0u64);
    for w in d.windows(2) {
        let gap = w[1].0 - w[0].0;
        let p = if gap < j {
            let r = (j - gap) as f64 / j as f64;
            r * r / 2.0
        } else {
            0.0
        };
        expected += p;
        variance += p * (1.0 - p);
        seen += u64::from(w[1].1 < w[0].1);
    }
    // Back to back (Δ = 1,040 µs) the chance is 0.314.
    assert!(expected > 1_000.0, "{expected}");
    let sd = variance.sqrt();
    assert!(
        (seen as f64 - expected).abs() < 5.0 * sd,
        "{seen} overtakings, expected {expected:.1} ± {sd:.1}"
    );
    assert_eq!(out.result.flows[0].detail.tcp().timeouts, 0);
}

/// Same scenario and seed, same arrivals; another seed, other draws.
#[test]
fn jitter_draws_follow_the_seed() {
    let forward = json!({"jitter": "5ms", "reorder": true});
    let a = departures_and_arrivals(&jittered("1s", forward.clone(), json!({})));
    let b = departures_and_arrivals(&jittered("1s", forward.clone(), json!({})));
    assert_eq!(a, b);
    let mut doc = two_node(
        "1s",
        json!({"initial_window": 40, "dupthresh": 10_000, "rcv_buf": 64_000}),
        json!({"kind": "bulk"}),
        forward,
    );
    doc["seed"] = json!(2);
    assert_ne!(a, departures_and_arrivals(&run(doc)));
}

/// Reordering without loss: every retransmission is spurious. With the usual threshold of
/// three duplicate ACKs RFC 6675 takes some reordering for loss (a segment overtaken by
/// three others), and the receiver reports each segment it gets twice as a D-SACK: here
/// all of them, since nothing is dropped. With the threshold out of reach nothing is resent.
#[test]
fn reordering_makes_spurious_retransmissions_that_d_sack_reports() {
    let forward = json!({"jitter": "20ms", "reorder": true});
    let resent = |dupthresh: u32| {
        let out = jittered(
            "10s",
            forward.clone(),
            json!({"dupthresh": dupthresh, "sack": true, "dsack": true, "recovery": "rfc6675"}),
        );
        let tcp = out.result.flows[0].detail.tcp();
        assert_eq!(drops(&out), 0);
        let pt = out.packet_trace.as_ref().unwrap();
        let twice = rows(pt, |i| {
            pt.kind[i] == packet_event::DELIVER && pt.from_sender[i] == 1 && pt.tx[i] > 1
        })
        .len() as u64;
        assert_eq!(tcp.dsacks_received, Some(twice));
        assert_eq!(tcp.timeouts, 0);
        tcp.retransmissions
    };
    assert!(resent(3) > 0);
    assert_eq!(resent(10_000), 0);
}

fn refusal(forward: Value) -> String {
    let doc = two_node("1s", json!({}), json!({"kind": "bulk"}), forward);
    transim_core::run_value(doc)
        .err()
        .expect("refused")
        .to_string()
}

#[test]
fn reorder_without_jitter_is_refused_by_name() {
    let e = refusal(json!({"reorder": true}));
    assert!(
        e.contains("links[0].forward.reorder") && e.contains("without a jitter"),
        "{e}"
    );
}

#[test]
fn reordering_cells_is_refused() {
    let doc = json!({
        "duration": "100ms", "seed": 1,
        "tcp": {"profile": "rfc", "mss": 2000, "mtu": 9180},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "5ms", "jitter": "1ms", "reorder": true}},
        "atm": {},
        "flows": [{"app": {"kind": "bulk"}}],
    });
    let e = transim_core::run_value(doc)
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("reorder") && e.contains("ATM cells"), "{e}");
}

/// RACK-TLP learns reordering from D-SACKs (RFC 8985 §6.2 step 4): each round trip that
/// brings one widens its reordering window by min_RTT/4. On a 20 Mbps, 20 ms path whose
/// forward delay varies by up to 16 ms (more than the initial window, min_RTT/4 ≈ 10 ms), it
/// then resends a small fraction of what it resends without D-SACK, over three seeds.
#[test]
fn rack_widens_its_reordering_window_on_dsacks() {
    let resent = |dsack: bool| -> u64 {
        (1..=3)
            .map(|seed| {
                let doc = json!({
                    "duration": "20s", "seed": seed,
                    "tcp": {"profile": "rfc", "sack": true, "dsack": dsack, "rcv_buf": "256KiB",
                            "recovery": "rack-tlp"},
                    "topology": {"kind": "explicit", "nodes": ["a", "b"], "links": [{
                        "between": ["a", "b"], "rate": "20Mbps", "delay": "20ms", "queue": 500,
                        "forward": {"jitter": "16ms", "reorder": true}}]},
                    "flows": [{"src": "a", "dst": "b", "app": {"kind": "bulk"}}]
                });
                let out = run(doc);
                assert_eq!(drops(&out), 0);
                out.result.flows[0].detail.tcp().retransmissions
            })
            .sum()
    };
    let (fixed, adaptive) = (resent(false), resent(true));
    assert!(fixed > 100, "{fixed}");
    assert!(
        adaptive * 10 < fixed,
        "with D-SACK {adaptive}, without {fixed}"
    );
}

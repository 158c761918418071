//! Helpers shared by the integration tests: scenario builders, trace queries and a seeded
//! property-test runner.
#![allow(dead_code)]

pub mod model_based;

use serde_json::{json, Value};
use transim_core::results::{LinkResult, RunOutput};
use transim_core::trace::{packet_event, PacketTrace};

/// Two nodes A and B joined by one 8 Mbps (1 byte/µs), 10 ms link; one flow A → B.
/// `tcp` is merged over a plain RFC set-up with MSS 1000, no timestamps, no delayed ACK.
pub fn two_node(duration: &str, tcp: Value, app: Value, forward: Value) -> Value {
    let mut t = json!({
        "profile": "rfc", "mss": 1000, "timestamps": false, "delayed_ack": "off",
        "nagle": "off", "initial_window": 2, "limited_transmit": false
    });
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    json!({
        "duration": duration,
        "seed": 1,
        "tcp": t,
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "8Mbps", "delay": "10ms", "queue": 1000,
                       "forward": forward}]},
        "flows": [{"src": "A", "dst": "B", "app": app}],
        "trace": {"flows": true, "packets": true}
    })
}

/// A dumbbell's forward bottleneck link.
pub fn bottleneck(out: &RunOutput) -> &LinkResult {
    out.result
        .links
        .iter()
        .find(|l| l.name == "r1->r2")
        .expect("the forward bottleneck")
}

/// Packets link direction `name` took in run `o`.
pub fn packets_in(o: &RunOutput, name: &str) -> u64 {
    o.result
        .links
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no link {name}"))
        .packets_in
}

/// Run and unwrap.
pub fn run(v: Value) -> RunOutput {
    match transim_core::run_value(v) {
        Ok(o) => o,
        Err(e) => panic!("run failed: {e}"),
    }
}

/// Time in integer nanoseconds of a trace row.
pub fn ns(t: f64) -> u64 {
    (t * 1e9).round() as u64
}

/// Rows of the packet trace matching a predicate, as indices.
pub fn rows(pt: &PacketTrace, f: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..pt.t.len()).filter(|&i| f(i)).collect()
}

/// Arrival times (ns) of data segments at the receiver, in order.
pub fn data_arrivals(pt: &PacketTrace) -> Vec<(u64, u64)> {
    rows(pt, |i| {
        pt.kind[i] == packet_event::DELIVER && pt.from_sender[i] == 1 && pt.len[i] > 0
    })
    .into_iter()
    .map(|i| (ns(pt.t[i]), pt.seq[i]))
    .collect()
}

/// Send times (ns) of data segments starting at `seq`, with their transmission numbers.
pub fn sends_of(pt: &PacketTrace, seq: u64) -> Vec<(u64, u16)> {
    rows(pt, |i| {
        pt.kind[i] == packet_event::SEND
            && pt.from_sender[i] == 1
            && pt.len[i] > 0
            && pt.seq[i] == seq
    })
    .into_iter()
    .map(|i| (ns(pt.t[i]), pt.tx[i]))
    .collect()
}

/// Arrival times (ns) at the sender of ACKs carrying cumulative ack `ack`.
pub fn acks_at_sender(pt: &PacketTrace, ack: u64) -> Vec<u64> {
    rows(pt, |i| {
        pt.kind[i] == packet_event::DELIVER && pt.from_sender[i] == 0 && pt.ack[i] == ack
    })
    .into_iter()
    .map(|i| ns(pt.t[i]))
    .collect()
}

/// A property-test runner whose cases are the same on every run: `PROPTEST_CASES` of them
/// (else `cases`), generated from `PROPTEST_RNG_SEED` (else `seed`; set it to vary them
/// locally), with no failure files written.
pub fn seeded_runner(cases: u32, seed: u64) -> proptest::test_runner::TestRunner {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let env = |name: &str| std::env::var(name).ok();
    let config = Config {
        cases: env("PROPTEST_CASES")
            .and_then(|c| c.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..Config::default()
    };
    let seed = env("PROPTEST_RNG_SEED")
        .and_then(|c| c.parse::<u64>().ok())
        .unwrap_or(seed);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

//! Helpers shared by the integration tests: scenario builders and trace queries.
#![allow(dead_code)]

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

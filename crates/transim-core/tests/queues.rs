//! Queue disciplines and the receiver's uplink: fair queueing shares, ACK filtering, and the
//! FUL bit keeping ACKs from being dropped at the uplink buffer.

mod common;
use common::*;
use serde_json::{json, Value};

/// Five bulk flows through one 10 Mbps bottleneck; flow i has an access delay of
/// 1 + `spread`·i ms (spread 0: identical flows).
fn five_flows(qdisc: &str, spread: u64) -> Value {
    let flows: Vec<Value> = (0..5)
        .map(|i| json!({"app": {"kind": "bulk"}, "start": format!("{}ms", 37 * i), "sender_access": {"rate": "100Mbps", "delay": format!("{}ms", 1 + spread * i)}}))
        .collect();
    json!({
        "duration": "120s", "seed": 3,
        "tcp": {"rcv_buf": "1MB", "delayed_ack": "off"},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 100, "forward": {"qdisc": qdisc}}},
        "flows": flows
    })
}

fn shares(v: Value) -> Vec<f64> {
    let out = run(v);
    let g: Vec<f64> = out
        .result
        .flows
        .iter()
        .map(|f| f.detail.tcp().goodput_bps)
        .collect();
    let total: f64 = g.iter().sum();
    g.iter().map(|x| x / total).collect()
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Equal backlogged flows get equal shares within a few percent under FQ.
#[test]
fn fair_queueing_gives_equal_flows_equal_shares() {
    let fq = shares(five_flows("fq", 0));
    for (i, s) in fq.iter().enumerate() {
        assert!(
            (s - 0.2).abs() < 0.2 * 0.03,
            "FQ flow {i} share {s:.4}: {fq:?}"
        );
    }
}

/// With round-trip times from 42 to 202 ms, drop-tail favours the short ones; FQ restores
/// most of the fairness (long-RTT flows are not always backlogged after a loss).
#[test]
fn fair_queueing_is_fairer_than_drop_tail_across_rtts() {
    let fq = shares(five_flows("fq", 20));
    let dt = shares(five_flows("droptail", 20));
    assert!(dt[0] > 2.0 * dt[4], "drop-tail shares {dt:?}");
    assert!(
        jain(&fq) > 0.99 && jain(&fq) > jain(&dt) + 0.05,
        "Jain FQ {} vs drop-tail {}",
        jain(&fq),
        jain(&dt)
    );
}

/// A bulk download whose ACKs overflow a slow uplink (8 Mbps down, 64 kbps up, 10-packet
/// uplink buffer, ATM framing).
fn asymmetric(ful: bool, uplink_qdisc: &str) -> transim_core::results::FlowResult {
    let v = json!({
        "duration": "10s", "seed": 1,
        "tcp": {"profile": "ns2", "recovery": "newreno", "rcv_buf": "64KB", "ful": ful},
        "topology": {"kind": "explicit", "nodes": ["s", "r", "c"],
            "links": [{"between": ["s", "r"], "rate": "100Mbps", "delay": "5ms"},
                      {"between": ["r", "c"], "rate": "8Mbps", "delay": "10ms", "queue": 30,
                       "forward": {"overhead": 126},
                       "reverse": {"rate": "64kbps", "queue": 10, "overhead": 66, "qdisc": uplink_qdisc}}]},
        "flows": [{"src": "s", "dst": "c", "app": {"kind": "bulk"}}]
    });
    run(v).result.flows[0].clone()
}

#[test]
fn ful_stops_ack_drops_at_the_uplink_buffer() {
    check_ful_stops_ack_drops("droptail");
}

/// Under ns-2's DropTail rule the buffer is full one packet earlier (limit − 1 waiting): FUL
/// must see that, or it never fires while the buffer drops ACKs.
#[test]
fn ful_stops_ack_drops_with_the_ns2_queue_rule() {
    check_ful_stops_ack_drops("droptail_ns2");
}

fn check_ful_stops_ack_drops(qdisc: &str) {
    let standard = asymmetric(false, qdisc);
    let ful = asymmetric(true, qdisc);
    assert!(
        standard.detail.tcp().ack_drops_uplink > 100,
        "the scenario must overflow the uplink: {}",
        standard.detail.tcp().ack_drops_uplink
    );
    assert_eq!(
        ful.detail.tcp().ack_drops_uplink,
        0,
        "with FUL no ACK is dropped at the uplink buffer"
    );
    // No packet of the flow is lost anywhere but data at the downlink queue.
    let all: u64 = ful.drops.values().sum();
    let data: u64 = ful.data_drops.values().sum();
    assert_eq!(all, data, "no ACK (and so no FUL notification) was dropped");
    // Each notification froze the sender, except possibly the last, still queued at the end.
    assert!(ful.detail.tcp().ful_notifications > 0);
    assert!(
        ful.detail.tcp().ful_notifications - ful.detail.tcp().ful_freezes <= 1,
        "{} vs {}",
        ful.detail.tcp().ful_notifications,
        ful.detail.tcp().ful_freezes
    );
    assert_eq!(
        ful.detail.tcp().ful_safety_resumes,
        0,
        "every FUL = 0 arrived"
    );
    assert!(ful.detail.tcp().bytes_delivered > 0);
}

#[test]
fn ack_filtering_replaces_instead_of_dropping() {
    let dt = asymmetric(false, "droptail");
    let af = asymmetric(false, "ack_filter");
    assert!(af.drops["filtered"] > 100, "{:?}", af.drops);
    assert!(
        af.detail.tcp().ack_drops_uplink < dt.detail.tcp().ack_drops_uplink / 10,
        "{} vs {}",
        af.detail.tcp().ack_drops_uplink,
        dt.detail.tcp().ack_drops_uplink
    );
}

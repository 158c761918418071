//! Active queue management end to end: RED and CoDel on a dumbbell's bottleneck, with and
//! without ECN, against drop-tail; and their parameters' errors.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::results::RunOutput;

/// Four bulk SACK flows over 10 Mbps / 20 ms with a 100-packet bottleneck queue for 30 s;
/// `bottleneck` fields are merged in, `ecn` is the TCP option.
fn four_flows(bottleneck: Value, ecn: bool) -> Value {
    let mut bn = json!({"rate": "10Mbps", "delay": "20ms", "queue": 100});
    for (k, v) in bottleneck.as_object().unwrap() {
        bn[k] = v.clone();
    }
    json!({
        "duration": "30s", "seed": 1,
        "tcp": {"ecn": ecn, "recovery": "rfc6675"},
        "topology": {"kind": "dumbbell", "access": {"rate": "100Mbps", "delay": "1ms"},
                     "bottleneck": bn},
        "flows": [{"app": {"kind": "bulk"}}, {"app": {"kind": "bulk"}},
                  {"app": {"kind": "bulk"}}, {"app": {"kind": "bulk"}}]
    })
}

fn goodput(out: &RunOutput) -> f64 {
    out.result
        .flows
        .iter()
        .map(|f| f.detail.tcp().goodput_bps)
        .sum()
}

/// CoDel keeps the standing queue near its 5 ms target (about 4 packets of 1500 bytes at
/// 10 Mbps) where drop-tail fills its 100 packets, at nearly the same goodput.
#[test]
fn codel_holds_the_queue_near_target() {
    let tail = run(four_flows(json!({}), false));
    let codel = run(four_flows(json!({"qdisc": "codel"}), false));
    let (t, c) = (bottleneck(&tail), bottleneck(&codel));
    assert_eq!(c.qdisc, "codel");
    assert!(t.mean_queue_packets > 50.0, "{}", t.mean_queue_packets);
    assert!(c.mean_queue_packets < 15.0, "{}", c.mean_queue_packets);
    assert!(c.drops["aqm"] > 0);
    assert!(goodput(&codel) > 0.9 * goodput(&tail));
    // Drop-tail runs report no AQM cause at all.
    assert!(!t.drops.contains_key("aqm"));
    assert_eq!(t.ecn_marks, None);
}

/// With ECN on both the queue and the connections, CoDel marks instead of dropping: no
/// AQM drop, every mark arrives at a receiver (one bottleneck, nothing lost after it), the
/// senders reduce at most once per mark, and the queue stays as short.
#[test]
fn codel_with_ecn_marks_instead_of_dropping() {
    let out = run(four_flows(
        json!({"qdisc": "codel", "aqm": {"ecn": true}}),
        true,
    ));
    let b = bottleneck(&out);
    assert_eq!(b.drops["aqm"], 0);
    let marks = b.ecn_marks.unwrap();
    assert!(marks > 20, "{marks}");
    let ecn: Vec<_> = out
        .result
        .flows
        .iter()
        .map(|f| {
            f.detail
                .tcp()
                .ecn
                .clone()
                .expect("tcp.ecn = true reports ECN")
        })
        .collect();
    assert!(ecn.iter().all(|e| e.negotiated));
    assert_eq!(ecn.iter().map(|e| e.ce_received).sum::<u64>(), marks);
    for e in &ecn {
        assert!(e.reductions >= 1 && e.reductions <= e.ce_received, "{e:?}");
    }
    assert!(b.mean_queue_packets < 15.0);
}

/// ECN on the queue but not in TCP: nothing is ECN-capable, so the queue drops.
#[test]
fn ecn_queue_drops_when_tcp_does_not_negotiate() {
    let out = run(four_flows(
        json!({"qdisc": "codel", "aqm": {"ecn": true}}),
        false,
    ));
    let b = bottleneck(&out);
    assert_eq!(b.ecn_marks, Some(0));
    assert!(b.drops["aqm"] > 0);
    assert!(out
        .result
        .flows
        .iter()
        .all(|f| f.detail.tcp().ecn.is_none()));
}

/// RED (gentle, ns-3's thresholds 5/15) keeps the mean queue around its thresholds; with
/// ECN most early decisions become marks.
#[test]
fn red_keeps_the_average_between_its_thresholds() {
    let red = run(four_flows(json!({"qdisc": "red"}), false));
    let b = bottleneck(&red);
    assert_eq!(b.qdisc, "red");
    assert!(
        b.mean_queue_packets > 2.0 && b.mean_queue_packets < 30.0,
        "{}",
        b.mean_queue_packets
    );
    assert!(b.drops["aqm"] > 0);
    let marked = run(four_flows(
        json!({"qdisc": "red", "aqm": {"ecn": true}}),
        true,
    ));
    let m = bottleneck(&marked);
    assert!(
        m.ecn_marks.unwrap() > m.drops["aqm"],
        "{:?} {:?}",
        m.ecn_marks,
        m.drops
    );
}

/// Same scenario, same seed: the same results (RED draws from the link's own stream).
#[test]
fn red_is_deterministic() {
    let a = run(four_flows(
        json!({"qdisc": "red", "aqm": {"adaptive": true}}),
        false,
    ));
    let b = run(four_flows(
        json!({"qdisc": "red", "aqm": {"adaptive": true}}),
        false,
    ));
    assert_eq!(
        serde_json::to_string(&a.result).unwrap(),
        serde_json::to_string(&b.result).unwrap()
    );
}

fn error_of(bottleneck: Value) -> transim_core::ScenarioError {
    transim_core::validate_value(four_flows(bottleneck, false)).expect_err("rejected")
}

#[test]
fn aqm_parameters_are_checked_by_discipline() {
    let e = error_of(json!({"qdisc": "red", "aqm": {"target": "5ms"}}));
    assert_eq!(e.path, "topology.bottleneck.aqm.target", "{e}");
    assert!(
        e.message.contains("not a parameter of qdisc \"red\""),
        "{e}"
    );
    let e = error_of(json!({"qdisc": "codel", "aqm": {"max_th": 3}}));
    assert_eq!(e.path, "topology.bottleneck.aqm.max_th", "{e}");
    let e = error_of(json!({"aqm": {"ecn": true}}));
    assert_eq!(e.path, "topology.bottleneck.aqm", "{e}");
    assert!(e.message.contains("droptail"), "{e}");
    let e = error_of(json!({"qdisc": "red", "aqm": {"min_th": 20, "max_th": 10}}));
    assert_eq!(e.path, "topology.bottleneck.aqm.max_th", "{e}");
    assert!(e.message.contains("above min_th"), "{e}");
    let e = error_of(json!({"qdisc": "codel", "forward": {"aqm": {"interval": "0s"}}}));
    assert_eq!(e.path, "topology.bottleneck.forward.aqm.interval", "{e}");
    let e = error_of(json!({"qdisc": "red", "aqm": {"w_q": 2}}));
    assert_eq!(e.path, "topology.bottleneck.aqm.w_q", "{e}");
    let e = error_of(json!({"qdisc": "codel", "aqm": {"tarrget": "5ms"}}));
    assert!(e.to_string().contains("tarrget"), "{e}");
}

/// PIE holds the queueing delay near its 15 ms target (12.5 packets of 1500 bytes at
/// 10 Mbps), a seventh of drop-tail's standing queue.
#[test]
fn pie_holds_the_delay_near_target() {
    let out = run(four_flows(json!({"qdisc": "pie"}), false));
    let b = bottleneck(&out);
    assert_eq!(b.qdisc, "pie");
    let delay_ms = b.mean_queue_bytes * 8.0 / 10e6 * 1e3;
    assert!(delay_ms > 5.0 && delay_ms < 30.0, "{delay_ms} ms");
    assert!(b.drops["aqm"] > 0);
    let marked = run(four_flows(
        json!({"qdisc": "pie", "aqm": {"ecn": true}}),
        true,
    ));
    let m = bottleneck(&marked);
    assert!(m.ecn_marks.unwrap() > 0);
}

/// FQ-CoDel isolates flows: a short transfer starting while four bulk flows fill the
/// bottleneck finishes far sooner than behind drop-tail's standing queue, because its
/// packets are served as a new flow instead of waiting behind the backlog.
#[test]
fn fq_codel_isolates_a_short_flow() {
    let completion = |qdisc: &str| {
        let mut v = four_flows(json!({"qdisc": qdisc}), false);
        v["flows"]
            .as_array_mut()
            .unwrap()
            .push(json!({"app": {"kind": "finite", "bytes": "30KB"}, "start": "10s"}));
        let out = run(v);
        out.result.flows[4]
            .detail
            .tcp()
            .completion_time
            .expect("the short flow completes")
    };
    let tail = completion("droptail");
    let fq = completion("fq_codel");
    // 30 KB is ~21 segments: a few RTTs of ~42 ms; drop-tail adds ~100 packets of queue
    // (120 ms) to each.
    assert!(fq < 0.5 * tail, "fq_codel {fq} s vs droptail {tail} s");
    assert!(fq < 0.3, "{fq}");
}

/// Two flows over 100 Mbps with ~4 ms RTT into a step-marking queue (K packets).
fn step_marked(cc: &str, k: u64) -> Value {
    json!({
        "duration": "10s", "seed": 1,
        "tcp": {"cc": cc, "ecn": true, "recovery": "rfc6675", "rcv_buf": "4MB"},
        "topology": {"kind": "dumbbell", "access": {"rate": "1Gbps", "delay": "0.5ms"},
                     "bottleneck": {"rate": "100Mbps", "delay": "1ms", "queue": 200,
                                    "qdisc": "step", "aqm": {"k": k}}},
        "flows": [{"app": {"kind": "bulk"}}, {"app": {"kind": "bulk"}}]
    })
}

/// DCTCP's point (Alizadeh et al. 2010, RFC 8257): with a marking threshold far below the
/// path's BDP (K = 5 packets, BDP ≈ 33) it keeps the link full at a queue near K, while
/// Reno halving on every echo leaves it underused.
#[test]
fn dctcp_fills_the_link_with_a_short_queue() {
    let dctcp = run(step_marked("dctcp", 5));
    let reno = run(step_marked("reno", 5));
    let (d, r) = (bottleneck(&dctcp), bottleneck(&reno));
    assert_eq!(d.qdisc, "step");
    assert!(d.utilisation > 0.98, "{}", d.utilisation);
    assert!(r.utilisation < 0.9, "{}", r.utilisation);
    assert!(d.mean_queue_packets < 10.0, "{}", d.mean_queue_packets);
    assert_eq!(d.drops.values().sum::<u64>(), 0);
    // Every mark reaches a receiver and is echoed; the sender cuts at most once per window.
    let ecn: Vec<_> = dctcp
        .result
        .flows
        .iter()
        .map(|f| f.detail.tcp().ecn.clone().unwrap())
        .collect();
    assert_eq!(
        ecn.iter().map(|e| e.ce_received).sum::<u64>(),
        d.ecn_marks.unwrap()
    );
    assert!(ecn.iter().all(|e| e.negotiated && e.reductions > 0));
}

#[test]
fn dctcp_refuses_ecn_off() {
    let mut v = step_marked("dctcp", 5);
    v["tcp"]["ecn"] = json!(false);
    let e = transim_core::validate_value(v).expect_err("rejected");
    assert_eq!(e.path, "tcp.ecn", "{e}");
    assert!(e.message.contains("dctcp"), "{e}");
}

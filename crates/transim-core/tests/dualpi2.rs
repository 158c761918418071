//! DualPI2 (RFC 9332) end to end: the Classic queue held at its target delay, L4S traffic
//! at a shallow queue, and the coupling that shares the link between a scalable flow and a
//! Classic one.

mod common;

use common::{bottleneck, run};
use serde_json::{json, Value};
use transim_core::results::RunOutput;

/// A dumbbell with a DualPI2 bottleneck of 100 Mbps, `delay` each way; one bulk flow per
/// entry of `flows` (its `tcp` table).
fn dualq(delay: &str, duration: &str, flows: &[Value]) -> Value {
    json!({
        "duration": duration,
        "seed": 1,
        "tcp": {"profile": "linux-2.6", "recovery": "rfc6675", "rcv_buf": "64MB"},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "100Mbps", "delay": delay, "queue": 2000, "qdisc": "dualpi2"},
            "access": {"rate": "1Gbps", "delay": "0.1ms"}},
        "flows": flows.iter().map(|t| json!({"app": {"kind": "bulk"}, "tcp": t})).collect::<Vec<_>>()
    })
}

fn scalable() -> Value {
    json!({"cc": "dctcp", "ecn_codepoint": "ect1"})
}

/// The error a scenario is refused with.
fn refused(v: Value) -> String {
    match transim_core::run_value(v) {
        Ok(_) => panic!("the scenario ran"),
        Err(e) => e.to_string(),
    }
}

fn goodput(o: &RunOutput, i: usize) -> f64 {
    o.result.flows[i].detail.tcp().goodput_bps
}

/// RFC 9332's PI2 holds the Classic queue at its target: four Reno flows on a 10 ms base
/// RTT keep a mean sojourn within 2 ms of 15 ms, fill the link, and lose packets only to the
/// AQM's drops (none to a full queue). Nothing is ECT(1), so the L queue stays empty.
#[test]
fn classic_queue_held_at_target() {
    let o = run(dualq("5ms", "30s", &vec![json!({"cc": "reno"}); 4]));
    let b = bottleneck(&o);
    let d = b.dual_queue.expect("dualpi2 link");
    assert!((d.c_mean_sojourn - 0.015).abs() < 0.002, "{d:?}");
    assert!(b.utilisation > 0.97, "{}", b.utilisation);
    assert!(d.c_drops > 0);
    assert_eq!(
        b.drops.values().sum::<u64>(),
        d.c_drops,
        "every drop is the AQM's"
    );
    assert_eq!((d.l_packets, d.l_marks), (0, 0));
}

/// Classic ECN (ECT(0)) stays in the Classic queue and is marked where Not-ECT is dropped:
/// the same four Reno flows with ECN lose nothing, at the same target delay.
#[test]
fn classic_ecn_is_marked_not_dropped() {
    let o = run(dualq(
        "5ms",
        "30s",
        &vec![json!({"cc": "reno", "ecn": true}); 4],
    ));
    let b = bottleneck(&o);
    let d = b.dual_queue.unwrap();
    assert!(d.c_marks > 0);
    assert_eq!(
        (b.drops.values().sum::<u64>(), d.l_packets),
        (0, 0),
        "{d:?}"
    );
    assert!((d.c_mean_sojourn - 0.015).abs() < 0.002, "{d:?}");
}

/// L4S traffic alone (DCTCP on ECT(1), every packet ECN-capable) goes through the L queue
/// only, and the native step at 1 ms keeps its mean sojourn below that with the link full
/// and nothing dropped.
#[test]
fn scalable_traffic_keeps_a_shallow_queue() {
    let o = run(dualq("5ms", "30s", &vec![scalable(); 4]));
    let b = bottleneck(&o);
    let d = b.dual_queue.unwrap();
    assert_eq!(d.c_packets, 0, "the SYNs too carry ECT(1)");
    assert!(d.l_mean_sojourn < 0.001, "{d:?}");
    assert!(d.l_max_sojourn < 0.002, "{d:?}");
    assert!(d.l_marks > 0);
    assert!(b.utilisation > 0.97, "{}", b.utilisation);
    assert_eq!(b.drops.values().sum::<u64>(), 0);
}

/// The coupling keeps a Classic flow alive beside a scalable one, each at its own queueing
/// delay; in a single step-marking queue (DCTCP's switch) the scalable flow, which answers
/// a mark with a fraction of its window where Reno halves, leaves Reno under a tenth of the
/// link (RFC 9332 section 1's reason for two queues). Over 80 s on a 40 ms path the
/// scalable flow took 29 % in DualPI2 and 91 % in one queue.
#[test]
fn coupling_keeps_both_flows_alive_a_single_queue_does_not() {
    let pair = [scalable(), json!({"cc": "reno"})];
    let dual = run(dualq("20ms", "80s", &pair));
    let share = goodput(&dual, 0) / (goodput(&dual, 0) + goodput(&dual, 1));
    assert!((0.2..0.8).contains(&share), "scalable share {share}");
    let d = bottleneck(&dual).dual_queue.unwrap();
    assert!(d.l_mean_sojourn < 0.001);
    assert!(d.c_mean_sojourn > 5.0 * d.l_mean_sojourn, "{d:?}");

    let mut v = dualq("20ms", "80s", &pair);
    v["topology"]["bottleneck"]["qdisc"] = json!("step");
    let single = run(v);
    let share = goodput(&single, 0) / (goodput(&single, 0) + goodput(&single, 1));
    assert!(share > 0.88, "scalable share in one queue {share}");
}

/// Bad DualPI2 and codepoint settings are refused, naming the field.
#[test]
fn errors_name_the_field() {
    let mut v = dualq(
        "5ms",
        "1s",
        &[json!({"cc": "reno", "ecn_codepoint": "ect1"})],
    );
    let e = refused(v.clone());
    assert!(
        e.contains("ecn_codepoint") && e.contains("ecn = true"),
        "{e}"
    );
    v["flows"][0]["tcp"] = json!({"cc": "reno"});
    v["topology"]["bottleneck"]["aqm"] = json!({"coupling": 0.0});
    let e = refused(v.clone());
    assert!(e.contains("aqm.coupling") && e.contains("got 0"), "{e}");
    // The PI controller's checks, shared with PIE.
    for qdisc in ["dualpi2", "pie"] {
        v["topology"]["bottleneck"]["qdisc"] = json!(qdisc);
        v["topology"]["bottleneck"]["aqm"] = json!({"t_update": "0s"});
        let e = refused(v.clone());
        assert!(
            e.contains("aqm.t_update") && e.contains("positive duration"),
            "{e}"
        );
        v["topology"]["bottleneck"]["aqm"] = json!({"beta": -1.0});
        let e = refused(v.clone());
        assert!(e.contains("aqm.beta") && e.contains("got -1"), "{e}");
    }
    v["topology"]["bottleneck"]["qdisc"] = json!("dualpi2");
    v["topology"]["bottleneck"]["aqm"] = json!({"k": 3});
    let e = refused(v);
    assert!(e.contains("is not a parameter of qdisc \"dualpi2\""), "{e}");
}

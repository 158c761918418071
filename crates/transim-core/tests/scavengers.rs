//! Scavenger congestion controls end to end: LEDBAT (RFC 6817) holds the queueing delay at its
//! target when alone and yields to standard TCP; TCP-LP uses an idle link and yields too.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::results::RunOutput;

/// Bulk flows over 10 Mbps / 20 ms (RTT 42 ms, 35 packets in flight fill it) with a
/// `queue`-packet drop-tail bottleneck; each flow is (cc, start, per-flow tcp fields).
fn dumbbell(duration: &str, queue: u64, flows: &[(&str, &str, Value)]) -> Value {
    let flows: Vec<Value> = flows
        .iter()
        .map(|(cc, start, extra)| {
            let mut tcp = json!({"cc": cc});
            for (k, v) in extra.as_object().unwrap() {
                tcp[k] = v.clone();
            }
            json!({"app": {"kind": "bulk"}, "start": start, "tcp": tcp})
        })
        .collect();
    json!({
        "duration": duration, "seed": 1,
        "tcp": {"recovery": "rfc6675"},
        "topology": {"kind": "dumbbell", "access": {"rate": "100Mbps", "delay": "1ms"},
                     "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": queue}},
        "flows": flows
    })
}

fn goodput_mbps(out: &RunOutput, flow: usize) -> f64 {
    out.result.flows[flow].detail.tcp().goodput_bps / 1e6
}

/// Alone on a path with a 1000-packet buffer, LEDBAT never fills it: the queue it keeps is its
/// 100 ms target, 83.3 packets of 1500 bytes at 10 Mbps, and nothing is dropped. (Slow start
/// is capped by a small initial ssthresh so that the queue seen is LEDBAT's control, not
/// slow start's overshoot.) Reno on the same path fills the buffer.
#[test]
fn ledbat_alone_holds_the_queue_at_its_target() {
    let small_ss = json!({"initial_ssthresh": "15000B"});
    let out = run(dumbbell("60s", 1000, &[("ledbat", "0s", small_ss.clone())]));
    let b = bottleneck(&out);
    assert_eq!(b.drops["queue"], 0);
    assert!(
        (75..=90).contains(&b.max_queue_packets),
        "max queue {} packets, target 83",
        b.max_queue_packets
    );
    assert!(goodput_mbps(&out, 0) > 9.4, "{}", goodput_mbps(&out, 0));
    let reno = run(dumbbell("60s", 1000, &[("reno", "0s", json!({}))]));
    assert_eq!(bottleneck(&reno).max_queue_packets, 1000);
}

/// LEDBAT has the path alone for 20 s; a Reno (or CUBIC) flow then joins and keeps the queue
/// above LEDBAT's target, so LEDBAT backs off to its floor of two segments and the newcomer
/// takes nearly the whole link.
#[test]
fn ledbat_yields_to_standard_tcp() {
    for other in ["reno", "cubic"] {
        let out = run(dumbbell(
            "90s",
            300,
            &[("ledbat", "0s", json!({})), (other, "20s", json!({}))],
        ));
        let l = out.result.flows[0].detail.tcp();
        assert_eq!(
            l.final_cwnd,
            2 * l.mss as u64,
            "{other}: LEDBAT at its floor"
        );
        // Over its 70 s, which include the 25–40 s LEDBAT takes to back off, the newcomer
        // averages three quarters of the link.
        assert!(
            goodput_mbps(&out, 1) > 7.5,
            "{other}: {}",
            goodput_mbps(&out, 1)
        );
    }
}

/// TCP-LP alone keeps the queue nearly empty (it halves at 15 % of the delay range it has
/// seen) yet uses most of the link; when a Reno or CUBIC flow joins, LP's early congestion
/// indications come inside each other's inference periods and hold it at one or two
/// segments: the newcomer has the link.
#[test]
fn lp_uses_an_idle_link_and_yields_to_standard_tcp() {
    let alone = run(dumbbell("60s", 300, &[("lp", "0s", json!({}))]));
    assert!(goodput_mbps(&alone, 0) > 7.5, "{}", goodput_mbps(&alone, 0));
    assert!(bottleneck(&alone).mean_queue_packets < 5.0);
    assert_eq!(bottleneck(&alone).drops["queue"], 0);
    for other in ["reno", "cubic"] {
        let out = run(dumbbell(
            "90s",
            300,
            &[("lp", "0s", json!({})), (other, "20s", json!({}))],
        ));
        let lp = out.result.flows[0].detail.tcp();
        assert!(
            lp.final_cwnd <= 2 * lp.mss as u64,
            "{other}: {}",
            lp.final_cwnd
        );
        assert!(
            goodput_mbps(&out, 1) > 9.5,
            "{other}: {}",
            goodput_mbps(&out, 1)
        );
    }
}

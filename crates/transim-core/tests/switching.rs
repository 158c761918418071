//! Mid-session switching of congestion control.

mod common;
use common::*;
use serde_json::{json, Value};

fn lossy(switch: Value, app: Value, secs: u64) -> Value {
    json!({
        "duration": format!("{secs}s"), "seed": 2,
        "tcp": {"cc": "reno", "rcv_buf": "1MB", "initial_ssthresh": "40KB"},
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "10Mbps", "delay": "20ms", "queue": 100,
                       "forward": {"loss": {"model": "bernoulli", "p": "0.2%"}}}]},
        "flows": [{"src": "A", "dst": "B", "app": app, "switch": switch}],
        "trace": {"flows": true}
    })
}

/// A switch in congestion avoidance keeps cwnd (and ssthresh) continuous, and the new
/// algorithm governs growth afterwards.
#[test]
fn switching_in_congestion_avoidance_keeps_cwnd_continuous() {
    for to in ["cubic", "cubic-2.6", "westwood", "veno", "bbr", "bbr3"] {
        let out = run(lossy(
            json!([{"at": "6s", "cc": to}]),
            json!({"kind": "bulk"}),
            12,
        ));
        let f = out.result.flows[0].detail.tcp();
        assert_eq!(f.cc, to);
        assert_eq!(f.switches, vec![(6.0, to.to_string())]);
        let tr = out.flow_traces[0].as_ref().unwrap().tcp();
        let k =
            tr.t.iter()
                .position(|&t| t == 6.0)
                .expect("a trace row at the switch");
        assert!(
            tr.ssthresh[k] < 1e12,
            "the switch happens in congestion avoidance"
        );
        assert_eq!(
            tr.cwnd[k],
            tr.cwnd[k - 1],
            "{to}: cwnd continuous across the switch"
        );
        assert_eq!(tr.ssthresh[k], tr.ssthresh[k - 1]);
    }
}

/// Switching back and forth through every variant during a lossy finite transfer loses no
/// data and breaks no invariant (conservation is checked by every run).
#[test]
fn switching_back_and_forth_loses_nothing() {
    let names = [
        "cubic",
        "westwood",
        "veno",
        "reno",
        "cubic-2.6",
        "veno",
        "westwood",
        "bbr",
        "reno",
        "bbr",
    ];
    let schedule: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(k, cc)| json!({"at": format!("{}ms", 500 * (k + 1)), "cc": cc}))
        .collect();
    let out = run(lossy(
        json!(schedule),
        json!({"kind": "finite", "bytes": "5MB"}),
        60,
    ));
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(f.switches.len(), names.len());
    assert_eq!(f.bytes_delivered, 5_000_000);
    assert!(f.completion_time.is_some());
    assert!(
        out.result.flows[0].data_drops["loss_model"] > 0,
        "the transfer saw losses while switching"
    );
    let c = out.result.conservation;
    assert_eq!(c.sent, c.delivered + c.dropped + c.in_flight);
}

/// Pacing follows the algorithm: on from a switch to BBR (which starts from the
/// connection's cwnd and RTT, in Startup) until the switch away from it.
#[test]
fn pacing_runs_exactly_while_bbr_is_in_charge() {
    let out = run(lossy(
        json!([{"at": "2s", "cc": "bbr"}, {"at": "5s", "cc": "cubic"}]),
        json!({"kind": "bulk"}),
        7,
    ));
    let tr = out.flow_traces[0].as_ref().unwrap().tcp();
    for (i, (&t, &rate)) in tr.t.iter().zip(&tr.pacing_rate).enumerate() {
        let bbr = (2.0..5.0).contains(&t);
        assert_eq!(rate > 0.0, bbr, "row {i} at {t} s: pacing rate {rate}");
    }
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(f.pacing_rate_bps, None);
    assert!(f.cc_model.is_none(), "CUBIC keeps no path model");
}

#[test]
fn unknown_switch_target_is_a_clear_error() {
    let e = transim_core::validate_value(lossy(
        json!([{"at": "1s", "cc": "tahoe-turbo"}]),
        json!({"kind": "bulk"}),
        5,
    ))
    .unwrap_err();
    assert_eq!(e.path, "flows[0].switch[0].cc");
    assert!(e.message.contains("\"cubic\""), "{e}");
}

//! Passive path estimators scored against the truth the simulator knows.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::tcp::results::Estimates;

fn dumbbell(rate: &str, cross: bool, loss: Option<f64>, secs: u64) -> Value {
    let mut flows = vec![json!({"app": {"kind": "bulk"}})];
    if cross {
        flows.push(json!({"app": {"kind": "bulk"}, "start": "0.5s"}));
    }
    let mut bn = json!({"rate": rate, "delay": "20ms", "queue": 1000});
    if let Some(p) = loss {
        bn["forward"] = json!({"loss": {"model": "bernoulli", "p": p}});
    }
    json!({"duration": format!("{secs}s"), "seed": 3,
           "tcp": {"delayed_ack": "off", "rcv_buf": if loss.is_some() { "256KB" } else { "64MB" }},
           "topology": {"kind": "dumbbell", "bottleneck": bn, "access": {"rate": "10Gbps", "delay": "1ms"}},
           "flows": flows})
}

fn estimates(v: Value) -> Estimates {
    run(v).result.flows[0].detail.tcp().estimators.clone()
}

/// TCP-Probe's capacity within ±10 % from 1 Mbps to 1 Gbps, alone and with a competing
/// flow on the bottleneck; min RTT within 2 % of the propagation RTT.
#[test]
fn capacity_and_rtt_estimates() {
    for rate in ["1Mbps", "10Mbps", "100Mbps", "1Gbps"] {
        for cross in [false, true] {
            let e = estimates(dumbbell(rate, cross, None, 20));
            assert!(
                e.capacity_ready,
                "{rate} cross={cross}: {} samples",
                e.capacity_samples
            );
            let err = e.capacity_bps.unwrap() / e.true_capacity_bps - 1.0;
            assert!(
                err.abs() < 0.1,
                "{rate} cross={cross}: capacity error {err:+.3}"
            );
            let rtt_err = e.min_rtt.unwrap() / e.true_rtt - 1.0;
            assert!(
                (0.0..0.02).contains(&rtt_err),
                "{rate}: min RTT error {rtt_err:+.4}"
            );
        }
    }
}

/// The LEAST-style loss estimate within ±25 % of the random loss rate from 0.1 % to 10 %
/// once enough packets were sent (go-back-N's needless retransmissions corrected).
#[test]
fn loss_rate_estimate() {
    for p in [0.001, 0.003, 0.01, 0.03, 0.1] {
        let e = estimates(dumbbell("10Mbps", false, Some(p), 300));
        assert!(e.loss_ready);
        let err = e.loss_rate / p - 1.0;
        assert!(
            err.abs() < 0.25,
            "p = {p}: estimate {:.5} ({err:+.3}); true {:.5}",
            e.loss_rate,
            e.true_loss_rate
        );
    }
}

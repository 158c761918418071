//! Helpers for the tests of model-based congestion control (BBR v1 and v3): one bulk flow
//! over one link, and queries of its flow trace.

use super::run;
use serde_json::{json, Value};
use transim_core::results::{FlowResult, RunOutput};
use transim_core::tcp::trace::FlowTrace;

/// The flows' MSS.
pub const MSS: f64 = 1460.0;
/// Wire bytes of a full data segment (no TCP options).
pub const WIRE: f64 = 1500.0;
/// Wire bytes of a pure ACK.
pub const ACK_WIRE: f64 = 40.0;

/// (rate in bit/s, one-way delay in ms, queue in packets) of the paths, 1 Mbps to 1 Gbps,
/// on which a model-based algorithm's estimates must converge to the truth.
pub const CONVERGENCE_PATHS: [(f64, f64, u64); 4] = [
    (1e6, 50.0, 50),
    (10e6, 20.0, 100),
    (100e6, 10.0, 500),
    (1e9, 5.0, 2000),
];

/// One bulk flow A → B over one link of `rate_bps` and `one_way` delay (ms), SACK recovery.
pub fn path(
    cc: &str,
    rate_bps: f64,
    one_way_ms: f64,
    queue: u64,
    secs: f64,
    forward: Value,
) -> Value {
    json!({
        "duration": format!("{secs}s"), "seed": 1,
        "tcp": {"cc": cc, "profile": "rfc", "mss": 1460, "sack": true, "recovery": "sack1",
                "rcv_buf": "64MB", "nagle": "off"},
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": format!("{rate_bps}bps"),
                       "delay": format!("{one_way_ms}ms"), "queue": queue, "forward": forward}]},
        "flows": [{"src": "A", "dst": "B", "app": {"kind": "bulk"}}],
        "trace": {"flows": true, "packets": true}
    })
}

/// Run `v` and return its one flow's result and trace, and the whole output.
pub fn run_one(v: Value) -> (FlowResult, FlowTrace, RunOutput) {
    let mut out = run(v);
    let tr = out.flow_traces[0].take().expect("flow trace").tcp().clone();
    (out.result.flows[0].clone(), tr, out)
}

/// Time-weighted mean of a trace column over [a, b).
pub fn mean_between(tr: &FlowTrace, col: &[f64], a: f64, b: f64) -> f64 {
    let (mut sum, mut dur) = (0.0, 0.0);
    for (t, &v) in tr.t.windows(2).zip(col) {
        if t[0] >= a && t[1] <= b {
            sum += v * (t[1] - t[0]);
            dur += t[1] - t[0];
        }
    }
    sum / dur
}

/// Fraction of [a, b) during which pacing_rate / bw is within 1 % of `gain`.
pub fn time_at_gain(tr: &FlowTrace, bw: f64, gain: f64, a: f64, b: f64) -> f64 {
    let col: Vec<f64> = tr
        .pacing_rate
        .iter()
        .map(|&r| ((r / bw / gain - 1.0).abs() < 0.01) as u8 as f64)
        .collect();
    mean_between(tr, &col, a, b)
}

/// Intervals (start, end) during which cwnd is at most `limit` bytes, after `from`.
pub fn cwnd_below(tr: &FlowTrace, limit: f64, from: f64) -> Vec<(f64, f64)> {
    let mut out = vec![];
    let mut open: Option<f64> = None;
    for i in 0..tr.t.len() {
        let low = tr.cwnd[i] <= limit && tr.t[i] > from;
        match (low, open) {
            (true, None) => open = Some(tr.t[i]),
            (false, Some(s)) => {
                out.push((s, tr.t[i]));
                open = None;
            }
            _ => {}
        }
    }
    out
}

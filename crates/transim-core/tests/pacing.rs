//! Pacing: segments leave no closer than their length over the pacing rate — BBR's own rate,
//! or Linux's default (2·cwnd/SRTT in slow start, 1.2·cwnd/SRTT after) when `tcp.pacing` is
//! on. The first flight after the handshake gives an exact timeline.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::results::RunOutput;
use transim_core::trace::packet_event;

const MSS: f64 = 1460.0;
const HIGH_GAIN: f64 = 2.885_390_081_777_926_8;

/// One bulk flow over one 10 Mbps, 20 ms link; an RFC 3390 initial window of 4380 bytes
/// (three segments of 1460).
fn one_link(tcp: Value, secs: f64) -> RunOutput {
    let mut t = json!({"profile": "rfc", "mss": 1460, "nagle": "off", "rcv_buf": "4MB"});
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    run(json!({
        "duration": format!("{secs}s"), "seed": 1, "tcp": t,
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "10Mbps", "delay": "20ms", "queue": 200}]},
        "flows": [{"src": "A", "dst": "B", "app": {"kind": "bulk"}}],
        "trace": {"flows": true, "packets": true}
    }))
}

/// Send times of the sender's data segments.
fn data_sends(out: &RunOutput) -> Vec<f64> {
    let pt = out.packet_trace.as_ref().unwrap();
    rows(pt, |i| {
        pt.kind[i] == packet_event::SEND && pt.from_sender[i] == 1 && pt.len[i] > 0
    })
    .into_iter()
    .map(|i| pt.t[i])
    .collect()
}

/// The first segment leaves at establishment and the next two `gap` apart (±2 ns).
fn assert_first_flight(out: &RunOutput, gap: f64) {
    let established = out.flow_traces[0].as_ref().unwrap().tcp().t[0];
    let sends = data_sends(out);
    assert!(
        (sends[0] - established).abs() < 1e-12,
        "first segment at once"
    );
    for k in 1..3 {
        let got = sends[k] - sends[k - 1];
        assert!(
            (got - gap).abs() < 2e-9,
            "gap {k}: {got:.9} s, expected {gap:.9} s"
        );
    }
}

/// The first flight after the handshake is paced at 2/ln 2 · IW / SRTT: three segments of
/// the RFC 3390 window (4380 bytes) leave 1460 / rate apart, to the nanosecond.
#[test]
fn bbr_first_flight_is_paced_at_high_gain_times_iw_over_srtt() {
    let out = one_link(json!({"cc": "bbr"}), 0.3);
    let srtt = out.flow_traces[0].as_ref().unwrap().tcp().srtt[0];
    assert_first_flight(&out, MSS / (HIGH_GAIN * 4380.0 / srtt));
}

/// Linux's default pacing for a window-based algorithm, in slow start: 2 · cwnd / SRTT.
#[test]
fn default_pacing_in_slow_start_is_twice_cwnd_over_srtt() {
    let out = one_link(json!({"cc": "reno", "pacing": true}), 0.3);
    let srtt = out.flow_traces[0].as_ref().unwrap().tcp().srtt[0];
    assert_first_flight(&out, MSS / (2.0 * 4380.0 / srtt));
}

/// Without pacing the initial window leaves back to back (gaps of zero at the sender).
#[test]
fn without_pacing_the_initial_window_leaves_at_once() {
    let out = one_link(json!({"cc": "reno"}), 0.3);
    let sends = data_sends(&out);
    assert_eq!(sends[0], sends[2]);
}

/// In congestion avoidance a paced Reno spreads each window over 1/1.2 of an RTT: no two
/// segments leave closer than 1460 / (1.2 · cwnd_max / SRTT_min).
#[test]
fn paced_segments_never_leave_closer_than_the_pacing_gap() {
    let tcp = json!({"cc": "reno", "pacing": true, "initial_ssthresh": "30KB"});
    let out = one_link(tcp, 5.0);
    let tr = out.flow_traces[0].as_ref().unwrap().tcp();
    let cwnd_max = tr.cwnd.iter().fold(0.0f64, |m, &c| m.max(c));
    let srtt_min = tr.srtt.iter().fold(f64::INFINITY, |m, &s| m.min(s));
    let sends = data_sends(&out);
    let after_ss: Vec<f64> = sends.into_iter().filter(|&t| t > 1.0).collect();
    let min_gap = after_ss
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min);
    let bound = MSS / (1.2 * cwnd_max / srtt_min);
    assert!(
        min_gap >= bound * (1.0 - 1e-6),
        "closest sends {min_gap:.6} s apart, pacing gap at least {bound:.6} s"
    );
}

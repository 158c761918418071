//! Study 4's forced-drop facts: the first packet of a window of 8 and its fast retransmission
//! are dropped. Sack1 must time out exactly once; SackPlus detects the lost retransmission,
//! re-sends it without a timeout or a second window cut, and finishes clearly earlier.

mod common;
use common::*;
use std::path::PathBuf;

fn forced_drop(recovery: &str) -> transim_core::results::RunOutput {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/studies/sackplus/forced-drop.toml");
    let doc: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut v = serde_json::to_value(doc).unwrap();
    v["tcp"]["recovery"] = recovery.into();
    v["trace"] = serde_json::json!({"flows": true, "packets": true});
    run(v)
}

#[test]
fn sack1_times_out_once_and_sackplus_never() {
    let s1 = forced_drop("sack1");
    let sp = forced_drop("sackplus");
    let (a, b) = (&s1.result.flows[0], &sp.result.flows[0]);
    assert_eq!(
        (
            a.detail.tcp().timeouts,
            a.detail.tcp().lost_retransmissions_detected
        ),
        (1, 0)
    );
    assert_eq!(
        (
            b.detail.tcp().timeouts,
            b.detail.tcp().lost_retransmissions_detected
        ),
        (0, 1)
    );
    // Both lose the same two packets; SackPlus repairs both in recovery, Sack1 by the timeout.
    assert_eq!((a.data_packets_dropped, b.data_packets_dropped), (2, 2));
    assert_eq!(
        (
            a.detail.tcp().drops_recovered_fast,
            a.detail.tcp().drops_recovered_timeout
        ),
        (0, 2)
    );
    assert_eq!(
        (
            b.detail.tcp().drops_recovered_fast,
            b.detail.tcp().drops_recovered_timeout
        ),
        (2, 0)
    );
    let (ta, tb) = (
        a.detail.tcp().completion_time.unwrap(),
        b.detail.tcp().completion_time.unwrap(),
    );
    assert!(ta - tb > 0.5, "SackPlus {tb} s vs Sack1 {ta} s");
    // No second window reduction: SackPlus's ssthresh after recovery equals the one set at
    // the fast retransmit (the trace's smallest finite ssthresh).
    let tr = sp.flow_traces[0].as_ref().unwrap().tcp();
    let cut: Vec<f64> = tr.ssthresh.iter().copied().filter(|&x| x < 1e12).collect();
    assert!(cut.windows(2).all(|w| w[0] == w[1]), "one reduction only");
    // The re-retransmission leaves when a SACK reveals the loss, before Sack1's timeout.
    let pt = sp.packet_trace.as_ref().unwrap();
    let third = sends_of(pt, 6001)
        .iter()
        .find(|s| s.1 == 3)
        .copied()
        .unwrap();
    let s1_third = sends_of(s1.packet_trace.as_ref().unwrap(), 6001)
        .iter()
        .find(|s| s.1 == 3)
        .copied()
        .unwrap();
    assert!(third.0 < s1_third.0);
}

/// Sack1's pipe: right after the fast retransmit pipe = segments outstanding − 3, then the
/// sender sends only while pipe < cwnd; the trace's pipe never exceeds cwnd in recovery.
#[test]
fn sack1_pipe_stays_within_cwnd() {
    let out = forced_drop("sack1");
    let tr = out.flow_traces[0].as_ref().unwrap().tcp();
    for i in 0..tr.t.len() {
        let cwnd_segs = (tr.cwnd[i] / 1000.0).floor();
        assert!(
            tr.pipe[i] <= cwnd_segs.max(tr.flight[i] / 1000.0) + 1e-9,
            "row {i}: pipe {} cwnd {cwnd_segs}",
            tr.pipe[i]
        );
    }
    assert!(
        tr.sacked.iter().any(|&s| s > 0.0),
        "the scoreboard is traced"
    );
}

/// The same hole's retransmission lost twice (transmissions 1, 2 and 3 of segment 7 dropped):
/// with `sackplus_detect = "every"` SackPlus sees both lost retransmissions and recovers
/// without a timeout; with "once" the second lost retransmission waits for the timeout.
#[test]
fn detecting_a_hole_lost_again_every_time_or_once_per_episode() {
    let outcome = |detect: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/studies/sackplus/forced-drop.toml");
        let doc: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut v = serde_json::to_value(doc).unwrap();
        v["tcp"]["sackplus_detect"] = detect.into();
        v["topology"]["links"][0]["forward"]["drops"]["segments"] = serde_json::json!([
            {"segment": 7, "transmission": 1},
            {"segment": 7, "transmission": 2},
            {"segment": 7, "transmission": 3}
        ]);
        let out = run(v);
        let t = out.result.flows[0].detail.tcp().clone();
        (t.lost_retransmissions_detected, t.timeouts)
    };
    assert_eq!(outcome("every"), (2, 0));
    assert_eq!(outcome("once"), (1, 1));
}

#[test]
fn sackplus_detect_is_refused_for_other_recoveries() {
    let mut v = serde_json::json!({
        "duration": "1s",
        "tcp": {"recovery": "sack1", "sackplus_detect": "once"},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "1Mbps", "delay": "1ms"}},
        "flows": [{"app": {"kind": "bulk"}}]
    });
    let e = transim_core::validate_value(v.clone()).unwrap_err();
    assert_eq!(e.path, "tcp.sackplus_detect");
    v["tcp"]["recovery"] = "sackplus".into();
    transim_core::validate_value(v).unwrap();
}

//! The Fall & Floyd (1996) scenarios as an independent reference for Tahoe, Reno, NewReno and
//! Sack1 (plus RFC 6675): an 8 Mbps feeder and an 800 kbps, 100 ms bottleneck with a queue of
//! 8 packets, ns-2 defaults (1000-byte packets, ACK per packet), and one to four packets
//! dropped from one window (segments 16, 18, 20, 22 of the slow-start round of 16).
//! NewReno restarts its timer on every partial ACK here ("slow but steady"): with ns-2.35's
//! own default (only the first partial ACK) three or more holes end in a timeout, as the
//! nanosecond timelines in `tests/test_ns2_timelines.py` show.

mod common;
use common::*;
use serde_json::json;
use transim_core::results::FlowResult;

/// RTT: 200 ms propagation + 10.4 ms for a 1040-byte packet at 800 kbps (+ tiny ACK times).
const RTT: f64 = 0.2108;

struct Outcome {
    flow: FlowResult,
    /// (time, segment number) of every retransmission.
    rtx: Vec<(f64, u64)>,
}

fn fall_floyd(recovery: &str, drops: usize) -> Outcome {
    let segs: Vec<_> = [16, 18, 20, 22][..drops]
        .iter()
        .map(|s| json!({"segment": s}))
        .collect();
    let v = json!({
        "duration": "20s", "seed": 1,
        "tcp": {"profile": "ns2", "recovery": recovery, "rcv_buf": "30KB",
                "partial_ack_timer": "slow_but_steady"},
        "topology": {"kind": "explicit", "nodes": ["s", "r", "k"],
            "links": [{"between": ["s", "r"], "rate": "8Mbps", "queue": 100},
                      {"between": ["r", "k"], "rate": "800kbps", "delay": "100ms", "queue": 8,
                       "forward": {"drops": {"segments": segs}}}]},
        "flows": [{"src": "s", "dst": "k", "app": {"kind": "finite", "bytes": "50KB"}}],
        "trace": {"packets": true}
    });
    let out = run(v);
    let pt = out.packet_trace.unwrap();
    let rtx = rows(&pt, |i| {
        pt.kind[i] == 0 && pt.from_sender[i] == 1 && pt.len[i] > 0 && pt.tx[i] > 1
    })
    .into_iter()
    .map(|i| (pt.t[i], pt.seq[i] / 1000 + 1))
    .collect();
    let flow = out.result.flows[0].clone();
    assert_eq!(
        flow.data_drops["queue"], 0,
        "{recovery}/{drops}: only the forced drops may happen"
    );
    assert_eq!(flow.data_drops["script"], drops as u64);
    assert_eq!(flow.detail.tcp().bytes_delivered, 50_000);
    Outcome { flow, rtx }
}

#[test]
fn tahoe_goes_back_n_without_a_timeout() {
    for n in 1..=4 {
        let o = fall_floyd("tahoe", n);
        assert_eq!(o.flow.detail.tcp().timeouts, 0, "{n} drops");
        if n >= 2 {
            // Go-back-N resends segments the receiver already has.
            assert!(o.rtx.len() > n, "{n} drops: {:?}", o.rtx);
            assert!(o.rtx.iter().any(|r| r.1 == 19), "{:?}", o.rtx);
        }
    }
}

#[test]
fn reno_recovers_one_drop_and_times_out_with_three_or_four() {
    assert_eq!(fall_floyd("reno", 1).flow.detail.tcp().timeouts, 0);
    assert_eq!(fall_floyd("reno", 1).rtx.len(), 1);
    for n in 3..=4 {
        assert!(
            fall_floyd("reno", n).flow.detail.tcp().timeouts >= 1,
            "{n} drops"
        );
    }
}

#[test]
fn newreno_repairs_one_hole_per_round_trip() {
    for n in 1..=4 {
        let o = fall_floyd("newreno", n);
        assert_eq!(o.flow.detail.tcp().timeouts, 0, "{n} drops");
        let holes: Vec<u64> = o.rtx.iter().map(|r| r.1).collect();
        assert_eq!(holes, [16, 18, 20, 22][..n].to_vec());
        for w in o.rtx.windows(2) {
            let gap = w[1].0 - w[0].0;
            assert!(
                (0.95 * RTT..1.1 * RTT).contains(&gap),
                "{n} drops: gap {gap}"
            );
        }
    }
}

#[test]
fn sack_variants_repair_all_holes_within_one_round_trip() {
    for variant in ["sack1", "rfc6675", "sackplus"] {
        for n in 1..=4 {
            let o = fall_floyd(variant, n);
            assert_eq!(o.flow.detail.tcp().timeouts, 0, "{variant}/{n}");
            let holes: Vec<u64> = o.rtx.iter().map(|r| r.1).collect();
            assert_eq!(
                holes,
                [16, 18, 20, 22][..n].to_vec(),
                "{variant}: exactly the lost segments, once"
            );
            let span = o.rtx.last().unwrap().0 - o.rtx[0].0;
            assert!(span < RTT, "{variant}/{n}: holes repaired over {span} s");
            assert_eq!(o.flow.detail.tcp().drops_recovered_fast, n as u64);
        }
    }
}

#[test]
fn with_four_drops_sack_finishes_first_and_reno_last() {
    let t = |v: &str| fall_floyd(v, 4).flow.detail.tcp().completion_time.unwrap();
    let (sack1, newreno, reno, tahoe) = (t("sack1"), t("newreno"), t("reno"), t("tahoe"));
    assert!(
        sack1 < newreno && newreno < tahoe && tahoe < reno,
        "{sack1} {newreno} {tahoe} {reno}"
    );
}

//! D-SACK (`tcp.dsack`, RFC 2883): the receiver reports data it got twice, and the sender
//! counts it and, with RACK-TLP, learns that a tail loss probe was not needed. Checked
//! against the simulator's own truth: no packet is dropped in these runs, so every
//! retransmission is spurious and the receiver sees each one twice.

mod common;
use common::*;
use serde_json::{json, Value};
use std::collections::HashSet;
use transim_core::results::RunOutput;
use transim_core::trace::packet_event;

/// One flow of `bytes` over a 1 Mbps, 1 ms dumbbell bottleneck (a deep queue, no loss), no
/// delayed ACK, no timestamps, with `tcp` on top.
fn clean(bytes: u64, tcp: Value) -> RunOutput {
    let mut t = json!({"profile": "rfc", "delayed_ack": "off", "timestamps": false});
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    run(json!({
        "duration": "20s", "seed": 1, "tcp": t,
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "1Mbps", "delay": "1ms", "queue": 1000},
            "access": {"rate": "100Mbps", "delay": "0ms"}},
        "flows": [{"app": {"kind": "finite", "bytes": bytes}}],
        "trace": {"packets": true, "flows": true}
    }))
}

/// Data segments the receiver got a second (or later) time, from the packet trace.
fn duplicates_received(out: &RunOutput) -> u64 {
    let pt = out.packet_trace.as_ref().unwrap();
    let mut seen = HashSet::new();
    let data = rows(pt, |i| {
        pt.kind[i] == packet_event::DELIVER && pt.from_sender[i] == 1 && pt.len[i] > 0
    });
    data.into_iter()
        .filter(|&i| !seen.insert(pt.seq[i]))
        .count() as u64
}

/// The whole transfer (14 segments) leaves at once into a 1 Mbps queue: the handshake's RTT
/// (a few ms) makes the probe timer fire long before the last segment's ACK, and the probe
/// retransmits the last segment, which arrives after the original. Nothing was lost: with
/// D-SACK the probe is recognised as not needed; without, its ACK is taken as a repair.
#[test]
fn a_probe_that_was_not_needed_is_not_a_loss() {
    let tcp = |dsack: bool| json!({"recovery": "rack-tlp", "initial_window": 40, "dsack": dsack});
    let out = clean(20_000, tcp(true));
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(out.result.flows[0].data_packets_dropped, 0);
    assert_eq!(duplicates_received(&out), 1);
    let tlp = f.tlp.as_ref().unwrap();
    assert_eq!((tlp.probes, tlp.recoveries, tlp.spurious), (1, 0, Some(1)));
    assert_eq!(f.dsacks_received, Some(1));
    let without = clean(20_000, tcp(false));
    let g = without.result.flows[0].detail.tcp();
    let tlp = g.tlp.as_ref().unwrap();
    assert_eq!((tlp.probes, tlp.recoveries, tlp.spurious), (1, 1, None));
    assert_eq!(g.dsacks_received, None);
}

/// A 1 ms minimum RTO on a path whose queue holds tens of milliseconds of data: timeouts
/// fire while the data is still queued, and go-back-N sends it again. The receiver reports
/// each duplicate once, and the sender counts every report.
#[test]
fn every_spurious_retransmission_is_reported() {
    let out = clean(
        100_000,
        json!({"recovery": "rfc6675", "initial_window": 10, "rto_min": "1ms", "dsack": true}),
    );
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(out.result.flows[0].data_packets_dropped, 0);
    assert!(
        f.timeouts > 0,
        "no spurious timeout: the test shows nothing"
    );
    let dups = duplicates_received(&out);
    assert!(dups > 0);
    assert_eq!(f.dsacks_received, Some(dups));
    assert!(f.completion_time.is_some());
}

/// D-SACK needs RFC 2018 SACK blocks.
#[test]
fn dsack_needs_sack() {
    let mut sc = two_node(
        "1s",
        json!({"dsack": true}),
        json!({"kind": "bulk"}),
        json!({}),
    );
    let err = transim_core::run_value(sc.clone())
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("tcp.dsack") && err.contains("sack = true"),
        "{err}"
    );
    sc["tcp"]["sack"] = json!(true);
    sc["tcp"]["sack_option"] = json!("ns2");
    let err = transim_core::run_value(sc)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("tcp.dsack") && err.contains("rfc2018"),
        "{err}"
    );
}

/// `tcp.undo` on the spurious timeouts above: every retransmission is reported by a D-SACK,
/// so each episode whose reports are all in is undone. In the flow trace ssthresh then rises,
/// which RFC 6675 Reno never does otherwise: at each rise it returns to its value before the
/// latest reduction, and cwnd to at least its value then. Without undo it never rises.
#[test]
fn undo_restores_the_window_of_an_episode_d_sacks_show_was_spurious() {
    let count_rises = |undo: bool| {
        let mut out = clean(
            100_000,
            json!({"recovery": "rfc6675", "initial_window": 10, "rto_min": "1ms",
                   "dsack": true, "undo": undo}),
        );
        let f = out.result.flows[0].detail.tcp().clone();
        assert!(
            f.timeouts > 0,
            "no spurious timeout: the test shows nothing"
        );
        let tr = out.flow_traces[0].take().expect("flow trace").tcp().clone();
        let (mut before, mut rises) = (None, 0u64);
        for i in 1..tr.t.len() {
            let (prev, now) = (tr.ssthresh[i - 1], tr.ssthresh[i]);
            if now < prev {
                before = Some((tr.cwnd[i - 1], prev)); // a reduction
            } else if now > prev {
                let (cwnd, ssthresh) = before.expect("a rise after a reduction");
                assert_eq!(now, ssthresh, "row {i}: ssthresh back to its value before");
                assert!(tr.cwnd[i] >= cwnd, "row {i}: cwnd {} < {cwnd}", tr.cwnd[i]);
                rises += 1;
            }
        }
        (rises, f.reductions_undone, f.timeouts)
    };
    let (rises, undone, timeouts) = count_rises(true);
    assert!(rises > 0, "{timeouts} timeouts, nothing undone");
    assert_eq!(undone, Some(rises));
    let (rises, undone, _) = count_rises(false);
    assert_eq!((rises, undone), (0, None));
}

#[test]
fn undo_needs_dsack_and_refuses_prr() {
    let refused = |tcp: Value| {
        let sc = two_node("1s", tcp, json!({"kind": "bulk"}), json!({}));
        transim_core::run_value(sc)
            .err()
            .expect("refused")
            .to_string()
    };
    let e = refused(json!({"sack": true, "recovery": "rfc6675", "undo": true}));
    assert!(e.contains("tcp.undo") && e.contains("dsack = true"), "{e}");
    let e = refused(
        json!({"sack": true, "recovery": "rfc6675", "dsack": true, "prr": true,
                           "undo": true}),
    );
    assert!(e.contains("tcp.undo") && e.contains("prr"), "{e}");
    let e = refused(json!({"sack": true, "recovery": "newreno", "dsack": true, "undo": true}));
    assert!(e.contains("tcp.undo") && e.contains("SACK recovery"), "{e}");
}

//! RACK-TLP (RFC 8985) on hand-computed timelines: A —8 Mbps (1 byte/µs), 10 ms— B, MSS
//! 1000, no delayed ACK, an initial window of 10. RACK's time-based loss detection, its
//! reordering window, the tail loss probe's timing, and lost retransmissions found without a
//! timeout.

mod common;
use common::*;
use serde_json::json;
use std::path::PathBuf;
use transim_core::results::RunOutput;

fn finite(bytes: u64, recovery: &str, drops: serde_json::Value) -> RunOutput {
    run(two_node(
        "10s",
        json!({"initial_window": 10, "recovery": recovery}),
        json!({"kind": "finite", "bytes": bytes}),
        json!({"drops": {"segments": drops}}),
    ))
}

fn ns_of(seconds: Option<f64>) -> u64 {
    ns(seconds.expect("a value"))
}

/// Three segments (2,999 bytes: with the FIN, 3,000 sequence numbers), the first lost: only
/// two duplicate ACKs come back, SACKing 2,000, too few for RFC 6675 (it waits for the
/// retransmission timer). RACK marks segment 1 lost when it is older than
/// the newest delivered segment by more than the reordering window: at
/// sent₁ + RACK.rtt + min_RTT/4, with RACK.rtt that of segment 3 (the last SACKed; the
/// window is min_RTT/4 while fewer than three segments are SACKed and no reordering was seen).
#[test]
fn rack_marks_a_loss_by_time_with_two_duplicate_acks() {
    let drop1 = json!([{"segment": 1, "transmission": 1}]);
    let out = finite(2999, "rack-tlp", drop1.clone());
    let pt = out.packet_trace.as_ref().unwrap();
    let f = out.result.flows[0].detail.tcp();
    let (s1, s3) = (sends_of(pt, 1), sends_of(pt, 2001));
    let dup = acks_at_sender(pt, 1);
    // The SYN-ACK (ack 1), then the two duplicates SACKing segments 2 and 3.
    assert_eq!(dup.len(), 3, "{dup:?}");
    let rack_rtt = dup[2] - s3[0].0;
    let reo = ns_of(f.min_rtt) / 4;
    assert_eq!(s1.len(), 2);
    assert_eq!(s1[1], (s1[0].0 + rack_rtt + reo, 2));
    assert_eq!((f.timeouts, f.fast_retransmits), (0, 1));
    // RFC 6675 repairs the same loss only by the retransmission timer.
    let rfc = finite(2999, "rfc6675", drop1);
    let g = rfc.result.flows[0].detail.tcp();
    assert_eq!((g.timeouts, g.fast_retransmits), (1, 0));
    let rfc_rtx = sends_of(rfc.packet_trace.as_ref().unwrap(), 1)[1].0;
    assert!(rfc_rtx > s1[1].0 + 100_000_000, "{rfc_rtx} vs {}", s1[1].0);
}

/// Three segments SACKed above a hole (the classic three duplicate ACKs) set the reordering
/// window to 0: the hole is retransmitted on the third duplicate's arrival, as RFC 6675 does.
#[test]
fn three_sacked_segments_detect_at_once() {
    let out = finite(
        10_000,
        "rack-tlp",
        json!([{"segment": 5, "transmission": 1}]),
    );
    let pt = out.packet_trace.as_ref().unwrap();
    let sends = sends_of(pt, 4001);
    let acks = acks_at_sender(pt, 4001);
    assert_eq!(sends.len(), 2);
    // acks[0] acknowledges segment 4; acks[1..] are the duplicates SACKing 6, 7, 8, …
    // With one or two SACKed, the window is min_RTT/4 (5 ms) and the duplicates arrive
    // 1.04 ms apart, so the third one comes first.
    assert_eq!(sends[1], (acks[3], 2));
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(
        (f.timeouts, f.fast_retransmits, f.retransmissions),
        (0, 1, 1)
    );
}

/// The last of four segments is lost: no duplicate ACK can reveal it. After the ACK of
/// segment 3, with one segment in flight, the probe timer is 2·SRTT + 200 ms (the worst-case
/// delayed ACK); the probe retransmits segment 4 (nothing new to send), its ACK completes the
/// transfer, and that repair counts as a loss (one reduction). RFC 6675 waits for the RTO.
#[test]
fn tail_loss_probe_repairs_the_last_segment() {
    let drop4 = json!([{"segment": 4, "transmission": 1}]);
    let out = finite(4000, "rack-tlp", drop4.clone());
    let pt = out.packet_trace.as_ref().unwrap();
    let a3 = acks_at_sender(pt, 3001);
    assert_eq!(a3.len(), 1);
    let tr = out.flow_traces[0].as_ref().unwrap().tcp();
    let row =
        tr.t.iter()
            .rposition(|&t| ns(t) == a3[0])
            .expect("a trace row at the ACK");
    let srtt = ns(tr.srtt[row]);
    let s4 = sends_of(pt, 3001);
    assert_eq!(s4.len(), 2, "{s4:?}");
    let expect = a3[0] + 2 * srtt + 200_000_000;
    assert!(
        s4[1].0.abs_diff(expect) <= 2 && s4[1].1 == 2,
        "probe at {} expected {expect}",
        s4[1].0
    );
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(f.timeouts, 0);
    let tlp = f.tlp.as_ref().unwrap();
    assert_eq!((tlp.probes, tlp.recoveries), (1, 1));
    let done = out.result.flows[0].detail.tcp().completion_time.unwrap();
    let rfc = finite(4000, "rfc6675", drop4);
    let g = rfc.result.flows[0].detail.tcp();
    assert_eq!(g.timeouts, 1);
    assert!(g.tlp.is_none());
    assert!(g.completion_time.unwrap() > done + 0.5);
}

/// Study 4's forced drop (segment 7 and its fast retransmission lost): RACK judges the
/// retransmission by its own send time and sends it again when a segment sent after it is
/// SACKed, the same ACK on which SackPlus infers it from sequence numbers: no timeout, the
/// same third transmission time, the same completion.
#[test]
fn rack_finds_a_lost_retransmission_as_sackplus_does() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/studies/sackplus/forced-drop.toml");
    let doc: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let with = |recovery: &str| {
        let mut v = serde_json::to_value(&doc).unwrap();
        v["tcp"]["recovery"] = recovery.into();
        v["trace"] = json!({"packets": true});
        run(v)
    };
    let (rack, plus) = (with("rack-tlp"), with("sackplus"));
    let (r, p) = (
        rack.result.flows[0].detail.tcp(),
        plus.result.flows[0].detail.tcp(),
    );
    assert_eq!((r.timeouts, r.lost_retransmissions_detected), (0, 1));
    let third = |o: &RunOutput| {
        sends_of(o.packet_trace.as_ref().unwrap(), 6001)
            .into_iter()
            .find(|s| s.1 == 3)
            .unwrap()
    };
    assert_eq!(third(&rack), third(&plus));
    assert_eq!(r.completion_time, p.completion_time);
}

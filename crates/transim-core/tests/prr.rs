//! Proportional Rate Reduction (`tcp.prr`, RFC 9937) on a hand-computed timeline, the
//! single-loss case of RFC 6937's examples: A —8 Mbps (1 byte/µs), 10 ms— B, MSS 1000 (1,040
//! bytes on the wire), no delayed ACK, an initial window of 20 segments whose first is lost.
//!
//! The handshake ends at T0 = 20.104 ms (SYN and SYN-ACK 52 bytes with SACK-permitted and
//! window scaling); the handshake's ACK (40 µs) and the 20 segments
//! leave back to back, segment k ending at T0 + 40 + 1,040·k µs. Each of segments 2 to 20
//! draws a duplicate ACK SACKing it (52 bytes), back at the sender 20,052 µs after the
//! segment left: at 40,196 + 1,040·k µs. The third (k = 4) starts recovery: ssthresh =
//! 10,000 (half the flight), and the retransmission of segment 1 is back (ACK 20,001, which
//! ends recovery) only at 65.436 ms, after all 17 duplicates.
//!
//! PRR, in segments (j = k − 3 the duplicates of the episode, each delivering one):
//! RecoverFS = 18 (20 outstanding less 2 SACKed before the episode). While pipe > ssthresh
//! the episode may have sent ⌈j · 10,000 / 18⌉ bytes: segment 1 again at j = 1 (forced),
//! new segments at j = 4, 6, 8, 9 and 11. At j = 13 pipe has come down to ssthresh; from
//! then on each duplicate lets one segment out (the conservative bound: min(ssthresh − pipe,
//! max(prr_delivered − prr_out, 1 segment))), at j = 14 to 17. So new data leaves at k = 7,
//! 9, 11, 12, 14, 17, 18, 19 and 20, and pipe ends at ssthresh.
//!
//! RFC 6675 without PRR sets cwnd = ssthresh at once: after the retransmission the sender
//! is silent until pipe falls below it, then sends one new segment per duplicate, at k = 12
//! to 20: the same nine segments, in a burst in the episode's second half.

mod common;
use common::*;
use serde_json::{json, Value};

const US: u64 = 1_000;

fn run_prr(prr: bool, recovery: &str) -> transim_core::results::RunOutput {
    run(two_node(
        "10s",
        json!({"initial_window": 20, "recovery": recovery, "prr": prr}),
        json!({"kind": "finite", "bytes": 40_000}),
        json!({"drops": {"segments": [{"segment": 1, "transmission": 1}]}}),
    ))
}

/// Send times (µs) of the new segments sent during recovery (above the initial window).
fn new_data_sends(out: &transim_core::results::RunOutput, until_us: u64) -> Vec<u64> {
    let pt = out.packet_trace.as_ref().unwrap();
    (0..9)
        .filter_map(|m| sends_of(pt, 20_001 + 1_000 * m).first().map(|s| s.0 / US))
        .filter(|&t| t < until_us)
        .collect()
}

fn at_dupack(k: &[u64]) -> Vec<u64> {
    k.iter().map(|k| 40_196 + 1_040 * k).collect()
}

#[test]
fn prr_spreads_the_reduction_over_the_episode() {
    let out = run_prr(true, "rfc6675");
    let pt = out.packet_trace.as_ref().unwrap();
    // The fast retransmission on the third duplicate (k = 4), and recovery ends at 65.436 ms.
    assert_eq!(sends_of(pt, 1)[1], ((40_196 + 4 * 1_040) * US, 2));
    assert_eq!(acks_at_sender(pt, 20_001)[0], 65_436 * US);
    assert_eq!(
        new_data_sends(&out, 65_436),
        at_dupack(&[7, 9, 11, 12, 14, 17, 18, 19, 20])
    );
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(
        (f.fast_retransmits, f.timeouts, f.retransmissions),
        (1, 0, 1)
    );
}

#[test]
fn rfc6675_alone_waits_then_bursts() {
    let out = run_prr(false, "rfc6675");
    assert_eq!(
        new_data_sends(&out, 65_436),
        at_dupack(&[12, 13, 14, 15, 16, 17, 18, 19, 20])
    );
}

/// RACK marks segment 1 lost on the same third duplicate (three segments SACKed above it),
/// and PRR paces its episode the same way.
#[test]
fn prr_with_rack_tlp() {
    let out = run_prr(true, "rack-tlp");
    assert_eq!(
        new_data_sends(&out, 65_436),
        at_dupack(&[7, 9, 11, 12, 14, 17, 18, 19, 20])
    );
}

/// PRR needs a SACK scheme that keeps RFC 6675's pipe.
#[test]
fn prr_is_refused_with_other_recovery() {
    let mut sc: Value = two_node(
        "1s",
        json!({"prr": true}),
        json!({"kind": "bulk"}),
        json!({}),
    );
    sc["tcp"]["recovery"] = json!("newreno");
    let err = transim_core::run_value(sc)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("tcp.prr") && err.contains("newreno") && err.contains("rfc6675"),
        "{err}"
    );
}

/// First sends (µs) of the segments starting at these sequence numbers.
fn first_resends(out: &transim_core::results::RunOutput, seqs: &[u64]) -> Vec<u64> {
    let pt = out.packet_trace.as_ref().unwrap();
    seqs.iter().map(|&q| sends_of(pt, q)[1].0 / US).collect()
}

/// RFC 6937's other example: a burst of losses leaves pipe far below ssthresh. Segments 1
/// to 15 of the initial 20 are lost; the duplicates of segments 16 to 20 arrive at 40,196 +
/// 1,040·k µs and the third (k = 18) starts recovery with every hole marked lost: pipe = 2
/// segments (20 − 3 SACKed − 15 lost), ssthresh 10, RecoverFS 18.
///
/// PRR: below ssthresh a duplicate ACK lets out what was delivered (the conservative bound),
/// one retransmission each at k = 18, 19, 20. Each retransmission's partial ACK is back a
/// round trip later (80.008, 81.048, 82.088 ms: 40 + 1,040 + 10,000 + 52 + 10,000 µs after it
/// left); it advances snd.una with no new loss, so PRR adds a segment (the slow-start bound):
/// two retransmissions per partial ACK, as slow start. The next partial ACKs, for segments 4
/// to 9 queued behind each other on the link, are back from 101.1 ms.
///
/// RFC 6675 alone: cwnd = ssthresh at once, so the third duplicate sends segments 1 to 8 in
/// one burst, and the next two duplicates one more each.
#[test]
fn prr_slow_starts_after_a_burst_of_losses() {
    let burst = |prr: bool| {
        let drops: Vec<Value> = (1..=15)
            .map(|n| json!({"segment": n, "transmission": 1}))
            .collect();
        run(two_node(
            "10s",
            json!({"initial_window": 20, "recovery": "rfc6675", "prr": prr}),
            json!({"kind": "finite", "bytes": 40_000}),
            json!({"drops": {"segments": drops}}),
        ))
    };
    let seqs: Vec<u64> = (0..15).map(|m| 1 + 1_000 * m).collect();
    let k = |k: u64| 40_196 + 1_040 * k;
    let prr = first_resends(&burst(true), &seqs);
    let partial = [80_008, 81_048, 82_088];
    let mut expected = vec![k(18), k(19), k(20)];
    for t in partial {
        expected.extend([t, t]);
    }
    expected.extend([101_100, 101_100, 102_140, 102_140, 103_180, 103_180]);
    assert_eq!(prr, expected);
    let rfc = first_resends(&burst(false), &seqs[..10]);
    let mut expected = vec![k(18); 8];
    expected.extend([k(19), k(20)]);
    assert_eq!(rfc, expected);
}

/// The exit ACK's arrival (ns) and the cwnd it leaves, on the timeline above (segment 1 of
/// an initial window of 20 lost) with `recovery` and `grow_on_exit = grow`.
fn cwnd_after_exit(recovery: &str, grow: bool) -> (u64, f64) {
    let mut out = run(two_node(
        "10s",
        json!({"initial_window": 20, "recovery": recovery, "grow_on_exit": grow}),
        json!({"kind": "finite", "bytes": 40_000}),
        json!({"drops": {"segments": [{"segment": 1, "transmission": 1}]}}),
    ));
    let pt = out.packet_trace.take().unwrap();
    let at = acks_at_sender(&pt, 20_001)[0];
    let tr = out.flow_traces[0].take().expect("flow trace").tcp().clone();
    let row = (0..tr.t.len())
        .rfind(|&i| ns(tr.t[i]) == at)
        .expect("a trace row at the exit ACK");
    (at, tr.cwnd[row])
}

/// `grow_on_exit` (ns-3's rule): the ACK that ends recovery (65.436 ms, above) sets cwnd to
/// ssthresh = 10,000 bytes and then grows it by Reno's step, MSS²/cwnd = 100 bytes. RFC 6675
/// (the default) leaves it at 10,000 until the next ACK.
#[test]
fn grow_on_exit_takes_one_congestion_avoidance_step_on_the_exit_ack() {
    assert_eq!(cwnd_after_exit("rfc6675", false), (65_436 * US, 10_000.0));
    assert_eq!(cwnd_after_exit("rfc6675", true), (65_436 * US, 10_100.0));
}

/// `grow_on_exit` with NewReno: the same loss, without SACK (so the ACKs are 12 bytes shorter
/// and the exit ACK, 20,001, is back at 65.416 ms). NewReno's inflated window (ssthresh + 3
/// segments, + 1 for each of the 16 further duplicates: 29 segments) sends new segments up
/// to byte 29,000 during the episode, so at the exit 9,000 bytes are in flight and RFC 6582's
/// first option sets cwnd = min(ssthresh, 9,000 + MSS) = 10,000. ns-3's rule takes ssthresh,
/// 10,000, and grows it by MSS²/cwnd to 10,100.
#[test]
fn grow_on_exit_with_newreno_leaves_recovery_as_ns3() {
    assert_eq!(cwnd_after_exit("newreno", false), (65_416 * US, 10_000.0));
    assert_eq!(cwnd_after_exit("newreno", true), (65_416 * US, 10_100.0));
}

/// The refusal of `grow_on_exit` with these TCP settings: its message.
fn grow_on_exit_refusal(tcp: serde_json::Value) -> String {
    let mut tcp = tcp;
    tcp["grow_on_exit"] = json!(true);
    let err = transim_core::run_value(two_node("1s", tcp, json!({"kind": "bulk"}), json!({})))
        .err()
        .expect("refused");
    err.to_string()
}

#[test]
fn grow_on_exit_is_refused_where_it_does_not_apply() {
    let reno = grow_on_exit_refusal(json!({"recovery": "reno"}));
    assert!(
        reno.contains("tcp.grow_on_exit") && reno.contains("SACK recovery"),
        "{reno}"
    );
    let ns2 = grow_on_exit_refusal(json!({"recovery": "newreno", "cwnd_unit": "ns2"}));
    assert!(
        ns2.contains("tcp.grow_on_exit") && ns2.contains("ns2"),
        "{ns2}"
    );
}

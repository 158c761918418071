//! What a timeout during NewReno's recovery (no SACK) halves, on a hand-computed episode:
//! A —8 Mbps (1 byte/µs), 10 ms— B, MSS 1000, no delayed ACK, Limited Transmit, an initial
//! window of 20 segments. Segment 1 is lost once; segment 10 is lost and so is its
//! retransmission, so the recovery never ends and the retransmission timer fires in it.
//!
//! - Duplicate ACKs 1 and 2 (segments 2 and 3) send segments 21 and 22 (Limited Transmit);
//!   the third starts recovery with 22 segments outstanding.
//! - ns-3 (`halving_base = "pipe"`) counts each duplicate ACK as one segment SACKed ("Reno
//!   SACK"): three at the start, one for each of the 17 more that arrive before segment 1's
//!   retransmission is ACKed (segments 5–9 and 11–22), so 20.
//! - That partial ACK covers segments 1–9 (a = 9): the marks on segments it covers go, and
//!   the mark on the new head (segment 10) moves on, leaving 20 + 1 − 9 = 12, for segments
//!   11–22.
//! - NewReno's deflated window then lets one new segment out on the partial ACK and one on
//!   each duplicate ACK after it, each of which adds a mark: 8 new segments are always in
//!   flight unmarked (23–30 at the partial ACK).
//! - So when the timer fires, ns-3's BytesInFlight is those 8 plus segment 10 (lost, and
//!   retransmitted, so counted once): 9,000 bytes, and ssthresh = 4,500.
//!
//! RFC 5681 halves FlightSize, everything from segment 10 to the last sent.

mod common;
use common::*;
use serde_json::json;

/// The timer's ssthresh and the flight it fired with, for `halving_base`.
fn timeout_in_recovery(halving_base: &str) -> (f64, f64) {
    let drops = json!({"drops": {"segments": [
        {"segment": 1, "transmission": 1},
        {"segment": 10, "transmission": 1},
        {"segment": 10, "transmission": 2},
    ]}});
    let mut out = run(two_node(
        "5s",
        json!({"initial_window": 20, "recovery": "newreno", "sack": false,
               "limited_transmit": true, "halving_base": halving_base}),
        json!({"kind": "bulk"}),
        drops,
    ));
    assert_eq!(out.result.flows[0].detail.tcp().timeouts, 1);
    let tr = out.flow_traces[0].take().expect("flow trace").tcp().clone();
    // The timeout is the first row with cwnd back at one segment.
    let at = (0..tr.t.len())
        .find(|&i| tr.cwnd[i] == 1000.0)
        .expect("a timeout row");
    (tr.ssthresh[at], tr.flight[at - 1])
}

#[test]
fn a_timeout_in_newreno_recovery_halves_ns3s_bytes_in_flight_with_pipe() {
    let (ssthresh, flight) = timeout_in_recovery("pipe");
    assert_eq!(ssthresh, 4_500.0, "flight before the timeout: {flight}");
    // FlightSize itself is far larger: the inflated window sent a segment per duplicate ACK.
    assert!(flight > 20_000.0, "{flight}");
}

#[test]
fn a_timeout_in_newreno_recovery_halves_flight_size_by_default() {
    let (ssthresh, flight) = timeout_in_recovery("flight");
    assert_eq!(ssthresh, flight / 2.0);
    assert!(flight > 20_000.0, "{flight}");
}

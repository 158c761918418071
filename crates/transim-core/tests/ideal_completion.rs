//! The ideal completion time of a TCP transfer (alone on idle links, no window limit): the
//! yardstick of slowdown. Checked against hand-computed timelines. With an initial window
//! that holds the whole transfer, the engine's own completion time must equal it to the
//! nanosecond; with a smaller one it must be longer.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::tcp::results::TcpFlowResult;

/// The TCP results of the run's first flow.
fn tcp_of(sc: Value) -> TcpFlowResult {
    let out = run(sc);
    out.result.flows[0].detail.tcp().clone()
}

fn times(t: &TcpFlowResult) -> (u64, u64) {
    (
        ns(t.completion_time.expect("the transfer completed")),
        ns(t.ideal_completion_time
            .expect("a finite transfer has an ideal")),
    )
}

/// 3,500 bytes over one 8 Mbps (a byte per µs), 10 ms link, MSS 1000, no timestamps:
/// SYN and SYN-ACK (48 bytes) 10.048 ms each way; then the handshake's ACK (40 µs), three
/// full segments (1,040 µs each) and the last 500 bytes (540 µs) back to back, 3.7 ms, and
/// 10 ms of propagation: 33.796 ms.
#[test]
fn one_link_by_hand() {
    let window = |iw: u64| {
        two_node(
            "1s",
            json!({"initial_window": iw}),
            json!({"kind": "finite", "bytes": 3500}),
            json!({}),
        )
    };
    let (done, ideal) = times(&tcp_of(window(4)));
    assert_eq!(ideal, 33_796_000);
    assert_eq!(done, ideal);
    // Two segments first. The first arrives at 31.176 ms (20.096 + 0.04 + 1.04 + 10) and
    // its ACK is back at 41.216 (40 µs and 10 ms); the window then admits the last two,
    // which arrive 1.04 + 0.54 + 10 ms later: 52.796 ms.
    let (done, ideal) = times(&tcp_of(window(2)));
    assert_eq!(ideal, 33_796_000);
    assert_eq!(done, 52_796_000);
}

/// Two hops, 8 Mbps / 1 ms then 4 Mbps / 2 ms, 2,500 bytes. The SYN takes 48 + 1,000 + 96 +
/// 2,000 µs, the SYN-ACK the same back: 6.288 ms. Then (µs from there) the first hop sends
/// the ACK (to 40) and the segments of 1,040, 1,040 and 540 bytes (to 1,080, 2,120, 2,660);
/// at the router a millisecond later, the second hop takes twice as long per byte: the ACK
/// 1,040–1,120, the segments 2,080–4,160, 4,160–6,240 and 6,240–7,320; plus 2 ms: 9.32 ms.
/// In all 15.608 ms.
#[test]
fn store_and_forward_by_hand() {
    let mut sc = two_node(
        "1s",
        json!({"initial_window": 10}),
        json!({"kind": "finite", "bytes": 2500}),
        json!({}),
    );
    sc["topology"] = json!({"kind": "explicit", "nodes": ["A", "R", "B"], "links": [
        {"between": ["A", "R"], "rate": "8Mbps", "delay": "1ms", "queue": 100},
        {"between": ["R", "B"], "rate": "4Mbps", "delay": "2ms", "queue": 100}]});
    let (done, ideal) = times(&tcp_of(sc));
    assert_eq!(ideal, 15_608_000);
    assert_eq!(done, ideal);
}

/// Open-ended and rounds applications have no ideal, and results.json leaves the field out
/// for them.
#[test]
fn only_single_transfers_have_one() {
    let bulk = two_node("1s", json!({}), json!({"kind": "bulk"}), json!({}));
    let out = run(bulk);
    assert_eq!(out.result.flows[0].detail.tcp().ideal_completion_time, None);
    let text = serde_json::to_string(&out.result).unwrap();
    assert!(!text.contains("ideal_completion_time"));
    let rounds = two_node(
        "1s",
        json!({}),
        json!({"kind": "rounds", "bytes": 2000, "rounds": 2}),
        json!({}),
    );
    assert_eq!(tcp_of(rounds).ideal_completion_time, None);
}

/// Under losses, queueing behind other flows and slow start, every transfer takes longer
/// than its ideal time.
#[test]
fn never_faster_than_ideal() {
    let sc = json!({
        "duration": "60s", "seed": 3,
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": 20,
                "forward": {"loss": {"model": "bernoulli", "p": 0.02}}},
            "access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [
            {"app": {"kind": "finite", "bytes": 400000}},
            {"app": {"kind": "finite", "bytes": 30000}, "start": "0.1s"},
            {"app": {"kind": "finite", "bytes": 1}, "start": "0.2s"},
            {"app": {"kind": "finite", "bytes": 1000000}}
        ]
    });
    let out = run(sc);
    let mut retransmitted = 0;
    for f in &out.result.flows {
        let t = f.detail.tcp();
        let (done, ideal) = times(t);
        assert!(done > ideal, "{}: {done} <= {ideal}", f.name);
        retransmitted += t.retransmissions;
    }
    assert!(retransmitted > 0, "the losses hit no flow");
}

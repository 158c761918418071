//! The trace-size estimate made before a run (`scenario::trace_budget::estimate`), against
//! figures worked out by hand.
//!
//! The dumbbell: 1 Gb/s, 1 ms access links and a 100 Mb/s, 20 ms bottleneck; MSS 1460, so a
//! full data packet is 1,500 bytes. The estimate's round trip is twice each hop's delay
//! plus two 1,500-byte serialisations per hop: 2 × (2.024 ms) + 40.24 ms = 44.288 ms.

use serde_json::{json, Value};

fn rows(tcp: Value) -> u64 {
    let doc = json!({
        "duration": "10s",
        "tcp": tcp,
        "trace": {"flows": false, "packets": true},
        "topology": {"kind": "dumbbell",
                     "access": {"rate": "1Gbps", "delay": "1ms", "queue": 100},
                     "bottleneck": {"rate": "100Mbps", "delay": "20ms", "queue": 100}},
        "flows": [{"app": {"kind": "bulk"}}],
    });
    let sc = transim_core::scenario::parse(doc).expect("valid scenario");
    let sim = transim_core::scenario::build(&sc).expect("builds");
    transim_core::scenario::trace_budget::estimate(&sc, &sim).1
}

/// A 4 MiB buffer with window scaling fills the bottleneck: 100 Mb/s × 10 s / 12,000 bits =
/// 83,333.3 packets, four rows each (data and ACK, sent and delivered): 333,333 rows.
/// Without window scaling the receiver can advertise only 65,535 bytes of it:
/// 524,280 bits / 44.288 ms = 11.838 Mb/s, 9,864.97 packets, 39,459 rows.
#[test]
fn an_unscaled_window_bounds_the_estimate_at_65535_bytes() {
    let base = json!({"profile": "rfc", "mss": 1460, "rcv_buf": "4MiB"});
    let mut scaled = base.clone();
    scaled["window_scale"] = json!(true);
    let mut unscaled = base;
    unscaled["window_scale"] = json!(false);
    assert_eq!(rows(scaled), 333_333);
    assert_eq!(rows(unscaled), 39_459);
}

/// A cwnd cap below the buffer bounds it instead: 20,000 bytes per 44.288 ms = 3.6127 Mb/s,
/// 3,010.6 packets, 12,042 rows.
#[test]
fn a_cwnd_cap_below_the_window_bounds_the_estimate() {
    let tcp = json!({"profile": "rfc", "mss": 1460, "rcv_buf": "4MiB", "max_cwnd": 20000});
    assert_eq!(rows(tcp), 12_042);
}

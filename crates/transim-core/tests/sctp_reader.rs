//! SCTP with a receiving application that reads at a set rate (`sctp.read_rate`): the window
//! it leaves, window-update SACKs, RFC 9260 §6.2's zero window and the sender's probes, against
//! a hand-computed timeline and a closed form.
//!
//! Path: A —8 Mbps (1 byte/µs), 10 ms— B. MTU 1500, so a DATA chunk carries 1,452 bytes and
//! its packet is 1,500 bytes on the wire (1.5 ms); a SACK is 48 bytes (48 µs). RTO.Min 1 s.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::results::RunOutput;
use transim_core::sctp::trace::ChunkRows;

const MS: f64 = 1e-3;

fn scenario(sctp: Value, app: Value, duration: &str) -> Value {
    json!({
        "duration": duration, "seed": 1, "sctp": sctp,
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "8Mbps", "delay": "10ms", "queue": 1000}]},
        "flows": [{"src": "A", "dst": "B", "protocol": "sctp", "app": app}],
        "trace": {"flows": true}
    })
}

/// Rows of the flow's series matching `keep(event, kind, tsn)`: their times (s).
fn times(out: &RunOutput, keep: impl Fn(f64, f64, f64) -> bool) -> Vec<f64> {
    let r: &ChunkRows = out.flow_traces[0].as_ref().unwrap().sctp();
    (0..r.len())
        .filter(|&i| keep(r.col("event")[i], r.col("kind")[i], r.col("tsn")[i]))
        .map(|i| r.col("t")[i])
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// A 3,000-byte buffer read at 1 byte/ms, four 1,452-byte messages, a SACK per packet, and
/// an association allowed a single error. With a1 the first chunk's arrival (the reader
/// starts on it, so by a1 + x ms it has read ⌊x⌋ bytes):
/// - TSNs 1 and 2 leave back to back (the 3,000-byte window takes two), arriving at a1 and
///   a1 + 1.5 ms. TSN 2's SACK advertises 3,000 − 2,903 = 97 bytes.
/// - With nothing outstanding the sender may send one chunk whatever the window (§6.1 rule
///   A): TSN 3 leaves as that SACK arrives (a1 + 11.548 ms) and arrives at a1 + 23.048 ms,
///   when 119 bytes are free: accepted, and its SACK advertises a zero window.
/// - TSN 4 follows as that SACK arrives (a1 + 33.096 ms), arrives at a1 + 44.596 ms at a
///   full buffer (4,312 unread): dropped, with a SACK at once (§6.2).
/// - T3-rtx (1 s) resends it at a1 + 1,033.096 ms; dropped again at a1 + 1,044.596 ms
///   (3,312 unread). Each probe's SACK resets the error count, so the second expiry does
///   not abort the association (assoc_max_retrans = 1).
/// - By a1 + 2,856 ms the reader has freed 1,500 bytes (max(3,000 / 16, MTU) beyond the
///   zero last advertised): a window update goes out then.
/// - T3-rtx (now 2 s) resends TSN 4 at a1 + 3,033.096 ms; it arrives at a1 + 3,044.596 ms
///   with 1,688 bytes free and is accepted.
#[test]
fn a_zero_window_is_probed_and_reopened_by_a_window_update() {
    let out = run(scenario(
        json!({"rcv_buf": 3000, "read_rate": "8kbps", "sack_freq": 1,
               "assoc_max_retrans": 1, "path_max_retrans": 1}),
        json!({"kind": "finite", "bytes": 4 * 1452}),
        "10s",
    ));
    let arrivals = |tsn: f64| times(&out, |e, k, t| e == 1.0 && k == 0.0 && t == tsn);
    let sends = |tsn: f64| times(&out, |e, k, t| e == 0.0 && k == 0.0 && t == tsn);
    let a1 = arrivals(1.0)[0];
    assert!(close(arrivals(2.0)[0], a1 + 1.5 * MS));
    assert!(close(sends(3.0)[0], a1 + 11.548 * MS), "{:?}", sends(3.0));
    assert!(close(arrivals(3.0)[0], a1 + 23.048 * MS));
    let tsn4 = sends(4.0);
    let want = [33.096, 1_033.096, 3_033.096].map(|x| a1 + x * MS);
    assert_eq!(tsn4.len(), 3, "{tsn4:?}");
    for (got, want) in tsn4.iter().zip(want) {
        assert!(close(*got, want), "TSN 4 sent at {tsn4:?}, wanted {want}");
    }
    // The receiver's SACKs: one per accepted packet (4), one per dropped probe (2) and the
    // update, sent at a1 + 2,856 ms.
    let sacks = times(&out, |e, k, _| e == 0.0 && k == 3.0);
    assert_eq!(sacks.len(), 7, "{sacks:?}");
    assert!(
        sacks.iter().any(|&t| close(t, a1 + 2_856.0 * MS)),
        "{sacks:?}"
    );
    let s = out.result.flows[0].detail.sctp();
    let r = s.reader.as_ref().expect("reader results");
    assert_eq!(r.chunks_dropped_zero_window, 2);
    assert_eq!(r.window_updates, 1);
    // TSN 3's SACK and the two drops' SACKs.
    assert_eq!(r.zero_window_sacks, 3);
    assert_eq!(s.timeouts, 2);
    assert!(!s.aborted);
    assert_eq!(s.bytes_delivered, 5_808);
    // Never starved from a1 on: 5,808 bytes read by a1 + 5,808 ms, within the run.
    assert_eq!(r.bytes_read, 5_808);
    assert_eq!(r.unread_at_end, 0);
}

/// A bulk association into a 64 KiB buffer read at 2 Mb/s over the 8 Mb/s path: once the
/// first chunk arrives (a1) the reader never starves, so by the end T it has read exactly
/// ⌊2e6 · (T − a1) / 8⌋ bytes; what it has not read is still in the buffer, which on this
/// loss-free path holds at most one chunk beyond `rcv_buf` (a probe accepted with room for
/// less than itself).
#[test]
fn a_bulk_association_runs_at_the_read_rate() {
    let out = run(scenario(
        json!({"rcv_buf": 65536, "read_rate": "2Mbps"}),
        json!({"kind": "bulk"}),
        "20s",
    ));
    let a1 = times(&out, |e, k, t| e == 1.0 && k == 0.0 && t == 1.0)[0];
    let s = out.result.flows[0].detail.sctp();
    let r = s.reader.as_ref().expect("reader results");
    let want = (2e6 * (20.0 - a1) / 8.0).floor() as u64;
    assert!(
        r.bytes_read.abs_diff(want) <= 1,
        "{} vs {want}",
        r.bytes_read
    );
    assert_eq!(s.bytes_delivered, r.bytes_read + r.unread_at_end);
    assert!(r.unread_at_end <= 65_536 + 1_452, "{}", r.unread_at_end);
    // The sender is held back by windows smaller than a chunk (not zero: with data in
    // flight it waits), which the reader's window updates reopen.
    assert!(r.window_updates > 0, "{r:?}");
    assert!(!s.aborted);
    // Goodput is bound by the reader: what was delivered is at most what was read plus the
    // buffer.
    assert!(s.bytes_delivered <= want + 65_536 + 1_452);
}

/// Without a read rate there is no reader and no `reader` in the results.
#[test]
fn without_a_read_rate_there_is_no_reader() {
    let out = run(scenario(json!({}), json!({"kind": "bulk"}), "2s"));
    let s = out.result.flows[0].detail.sctp();
    assert!(s.reader.is_none());
    let json = serde_json::to_value(s).unwrap();
    assert!(json.get("reader").is_none());
}

/// A receive buffer is at least one MTU and never below 1,500 bytes (RFC 9260 §6: a receiver
/// accepts a 1,500-byte packet, so it never offers less in its initial a_rwnd).
#[test]
fn a_buffer_below_1500_bytes_is_refused() {
    for (sctp, least) in [
        (json!({"mtu": 1000, "rcv_buf": 1400}), "1500"),
        (json!({"mtu": 9000, "rcv_buf": 8000}), "9000"),
    ] {
        let e = transim_core::validate_value(scenario(sctp, json!({"kind": "bulk"}), "1s"))
            .unwrap_err();
        assert_eq!(e.path, "sctp.rcv_buf");
        assert!(e.message.contains(&format!("at least {least}")), "{e}");
    }
    let ok = scenario(
        json!({"mtu": 1000, "rcv_buf": 1500}),
        json!({"kind": "bulk"}),
        "1s",
    );
    transim_core::validate_value(ok).expect("1500 bytes with a 1000-byte MTU");
}

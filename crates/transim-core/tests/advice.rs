//! Advice on scenarios (`scenario::advice`), against figures worked out by hand.
//!
//! The dumbbell here: 1 Gb/s, 1 ms access links and a 100 Mb/s, 20 ms bottleneck; MSS 1448
//! with timestamps, so a data segment is 1,500 bytes on the wire and a pure ACK 52. Its base
//! round trip is 2 × (12 µs + 1 ms) + (120 µs + 20 ms) on the way out and 2 × (0.416 µs +
//! 1 ms) + (4.16 µs + 20 ms) back: 44.148992 ms.

use serde_json::{json, Value};
use transim_core::scenario::advice::{advise, Advice};

fn dumbbell(tcp: Value, flows: Value, duration: &str) -> Value {
    json!({
        "duration": duration,
        "tcp": tcp,
        "topology": {"kind": "dumbbell",
                     "access": {"rate": "1Gbps", "delay": "1ms", "queue": 100},
                     "bottleneck": {"rate": "100Mbps", "delay": "20ms", "queue": 100}},
        "flows": flows,
    })
}

fn advice_of(doc: Value) -> Vec<Advice> {
    let sc = transim_core::scenario::parse(doc).expect("valid scenario");
    let sim = transim_core::scenario::build(&sc).expect("builds");
    advise(&sc, &sim)
}

fn codes(a: &[Advice]) -> Vec<&str> {
    a.iter().map(|a| a.code).collect()
}

/// Linux 2.6's 87,380-byte receive buffer over 44.149 ms carries 87,380 × 1500/1448 × 8 /
/// 0.044148992 s = 16.402 Mb/s on the wire, a third of its 50 Mb/s share of the bottleneck
/// beside a second flow; the buffer its share needs is 50 Mb/s × 44.149 ms / 8 × 1448/1500
/// = 266,365.6 bytes. The rfc profile's 4 MiB is plenty.
#[test]
fn a_window_below_the_flows_share_is_reported_with_its_figures() {
    let doc = dumbbell(
        json!({"profile": "rfc", "timestamps": true}),
        json!([{"app": {"kind": "bulk"}, "tcp": {"profile": "linux-2.6"}},
               {"app": {"kind": "bulk"}}]),
        "10s",
    );
    let a = advice_of(doc);
    assert_eq!(codes(&a), ["window_below_share"], "{a:#?}");
    assert_eq!(a[0].flows, 1);
    let m = &a[0].message;
    for part in [
        "flow0:",
        "rcv_buf 87,380 bytes",
        "16.402 Mb/s",
        "44.149 ms",
        "r1->r2 (50.000 Mb/s of 100.000 Mb/s shared by 2 flows)",
        "raise tcp.rcv_buf to at least 266,366 bytes",
    ] {
        assert!(m.contains(part), "{part:?} not in {m:?}");
    }
}

/// The same flows each with 1 MB: 1e6 × 1500/1448 × 8 / 44.149 ms = 187.7 Mb/s, above any
/// share; and a transfer no larger than its window needs no more window.
#[test]
fn enough_window_or_a_short_transfer_gives_no_advice() {
    let doc = dumbbell(
        json!({"profile": "rfc", "timestamps": true, "rcv_buf": 1_000_000}),
        json!([{"app": {"kind": "bulk"}}, {"app": {"kind": "bulk"}}]),
        "10s",
    );
    assert_eq!(advice_of(doc), []);
    let doc = dumbbell(
        json!({"profile": "linux-2.6"}),
        json!([{"app": {"kind": "finite", "bytes": 80_000}}]),
        "10s",
    );
    assert_eq!(advice_of(doc), []);
}

/// Without window scaling a receiver advertises at most 65,535 bytes: 12.302 Mb/s here,
/// whatever rcv_buf says; the whole 100 Mb/s needs 532,732 bytes.
#[test]
fn without_window_scaling_the_advertised_window_is_what_counts() {
    let doc = dumbbell(
        json!({"profile": "rfc", "timestamps": true, "window_scale": false, "rcv_buf": "1MiB"}),
        json!([{"app": {"kind": "bulk"}}]),
        "10s",
    );
    let a = advice_of(doc);
    assert_eq!(codes(&a), ["window_below_share"]);
    let m = &a[0].message;
    for part in [
        "65,535 can be advertised without window scaling",
        "12.302 Mb/s",
        "(100.000 Mb/s of 100.000 Mb/s)",
        "turn on tcp.window_scale and set tcp.rcv_buf to at least 532,732 bytes",
    ] {
        assert!(m.contains(part), "{part:?} not in {m:?}");
    }
}

/// Where the window does not bind, nothing is said: files each within the window (though
/// all of them are not), a receiving application slower than the window allows (64 kb/s
/// through 8 KB); a faster reader leaves the window binding.
#[test]
fn a_window_that_does_not_bind_gives_no_advice() {
    let files = json!([{"app": {"kind": "files", "count": 100, "size": 50_000}}]);
    assert_eq!(
        advice_of(dumbbell(json!({"profile": "linux-2.6"}), files, "10s")),
        []
    );
    let slow = json!({"profile": "linux-2.6", "rcv_buf": "8KB", "read_rate": "64kbps"});
    let bulk = json!([{"app": {"kind": "bulk"}}]);
    assert_eq!(advice_of(dumbbell(slow, bulk.clone(), "10s")), []);
    let fast = json!({"profile": "linux-2.6", "rcv_buf": "8KB", "read_rate": "10Mbps"});
    assert_eq!(
        codes(&advice_of(dumbbell(fast, bulk, "10s"))),
        ["window_below_share"]
    );
}

/// SCTP's receive buffer counts the same way: RFC 9260's default 131,072 bytes over the
/// path's 44.148608 ms (1,500-byte DATA packets of 1,452 bytes of user data, 48-byte SACKs)
/// carries 24.536 Mb/s of the 100 Mb/s; the whole needs 534,199 bytes.
#[test]
fn an_sctp_association_gets_the_same_window_advice() {
    let doc = dumbbell(
        json!({"profile": "rfc"}),
        json!([{"protocol": "sctp", "app": {"kind": "bulk"}}]),
        "10s",
    );
    let a = advice_of(doc);
    assert_eq!(codes(&a), ["window_below_share"], "{a:#?}");
    let m = &a[0].message;
    for part in [
        "rcv_buf 131,072 bytes",
        "24.536 Mb/s",
        "44.149 ms",
        "raise sctp.rcv_buf to at least 534,199 bytes",
    ] {
        assert!(m.contains(part), "{part:?} not in {m:?}");
    }
}

/// A cap on cwnd below the advertised window is what to raise.
#[test]
fn a_cwnd_cap_below_the_window_is_named() {
    let doc = dumbbell(
        json!({"profile": "rfc", "timestamps": true, "max_cwnd": 30_000}),
        json!([{"app": {"kind": "bulk"}}]),
        "10s",
    );
    let a = advice_of(doc);
    assert_eq!(codes(&a), ["window_below_share"]);
    let m = &a[0].message;
    assert!(m.contains("(max_cwnd 30,000 bytes)"), "{m}");
    assert!(
        m.contains("raise tcp.max_cwnd to at least 532,732 bytes"),
        "{m}"
    );
}

/// Many flows alike give one item: how many, and the first one's figures.
#[test]
fn flows_alike_are_counted_in_one_item() {
    let doc = dumbbell(
        json!({"profile": "ns2"}),
        json!([{"app": {"kind": "bulk"}, "count": 10}]),
        "10s",
    );
    let a = advice_of(doc);
    assert_eq!(codes(&a), ["window_below_share"]);
    assert_eq!(a[0].flows, 10);
    assert!(
        a[0].message.ends_with("(9 more flows alike)"),
        "{}",
        a[0].message
    );
}

/// DCTCP negotiates ECN; through drop-tail queues it is never marked. A step-marking
/// bottleneck (or an AQM with ecn = true) answers it; an AQM without ECN does not.
#[test]
fn ecn_with_no_marking_queue_on_the_path_is_reported() {
    let flows = json!([{"app": {"kind": "bulk"}}]);
    let tcp = json!({"profile": "rfc", "cc": "dctcp", "rcv_buf": "4MiB"});
    let a = advice_of(dumbbell(tcp.clone(), flows.clone(), "10s"));
    assert_eq!(codes(&a), ["ecn_without_marking"], "{a:#?}");
    assert!(a[0].message.contains("no queue on its data path marks"));
    for (qdisc, marks) in [
        (json!({"qdisc": "step"}), true),
        (json!({"qdisc": "red", "aqm": {"ecn": true}}), true),
        (json!({"qdisc": "codel"}), false),
    ] {
        let mut doc = dumbbell(tcp.clone(), flows.clone(), "10s");
        for (k, v) in qdisc.as_object().unwrap() {
            doc["topology"]["bottleneck"][k] = v.clone();
        }
        let a = advice_of(doc);
        assert_eq!(
            codes(&a).contains(&"ecn_without_marking"),
            !marks,
            "{qdisc}: {a:#?}"
        );
    }
}

/// A flow's first data is acknowledged two base round trips after it starts (the handshake,
/// then the data): 88.3 ms here, so a 50 ms run sees none of it, and neither does a 120 ms
/// run for a flow starting at 40 ms; a 100 ms run from time 0 does. A flow starting in the
/// run's second half (an open-loop workload's last arrivals) is expected to be cut off and
/// is not reported: 9.95 s of a 10 s run.
#[test]
fn a_run_shorter_than_two_round_trips_after_a_start_is_reported() {
    let tcp = json!({"profile": "rfc", "timestamps": true});
    let bulk = json!([{"app": {"kind": "bulk"}}]);
    let a = advice_of(dumbbell(tcp.clone(), bulk.clone(), "50ms"));
    assert_eq!(codes(&a), ["run_too_short"]);
    assert!(
        a[0].message.contains("after the run's end at 50.000 ms"),
        "{}",
        a[0].message
    );
    assert!(a[0].message.contains("starts at 0 s"), "{}", a[0].message);
    assert_eq!(advice_of(dumbbell(tcp.clone(), bulk, "100ms")), []);
    let at = |start: &str| json!([{"app": {"kind": "bulk"}, "start": start}]);
    let a = advice_of(dumbbell(tcp.clone(), at("40ms"), "120ms"));
    assert_eq!(codes(&a), ["run_too_short"]);
    assert!(a[0].message.contains("starts at 40.000 ms"));
    assert_eq!(advice_of(dumbbell(tcp, at("9.95s"), "10s")), []);
}

/// Advice is asked for: without it the summary has no `warnings`, with it they are there,
/// and the run itself is the same.
#[test]
fn the_summary_carries_the_advice_only_when_asked() {
    let doc = dumbbell(
        json!({"profile": "linux-2.6"}),
        json!([{"app": {"kind": "bulk"}}]),
        "1s",
    );
    let plain = transim_core::run_value(doc.clone()).unwrap();
    let advised = transim_core::run_value_with(
        doc,
        &mut |_, _| true,
        None,
        transim_core::Stop::Settled,
        true,
    )
    .unwrap();
    let plain_text = plain.result.to_json_text().unwrap();
    let advised_text = advised.result.to_json_text().unwrap();
    assert!(!plain_text.contains("\"warnings\""));
    let v: Value = serde_json::from_str(&advised_text).unwrap();
    assert_eq!(v["warnings"][0]["code"], "window_below_share");
    assert_eq!(v["warnings"][0]["flows"], 1);
    let mut without = v.clone();
    without.as_object_mut().unwrap().remove("warnings");
    assert_eq!(without, serde_json::from_str::<Value>(&plain_text).unwrap());
}

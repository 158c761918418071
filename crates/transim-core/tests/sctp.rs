//! SCTP against RFC 9260's rules and study 1's published byte counts: fragmentation and
//! reassembly, bundling up to the MTU, the initial window and slow start per SACK, ordered
//! delivery per stream with no head-of-line blocking across streams, fast retransmit,
//! T3-rtx, failover on a multi-homed association, conservation and determinism.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::results::RunOutput;
use transim_core::sctp::trace::ChunkRows;
use transim_core::trace::packet_event;

/// server — router — client: 100 Mbps access, 10 Mbps / 10 ms bottleneck (study 1's set-up).
fn study1(app: Value, sctp: Value, forward: Value) -> Value {
    json!({
        "duration": "30s", "seed": 1, "sctp": sctp,
        "topology": {"kind": "explicit", "nodes": ["server", "router", "client"],
            "links": [{"between": ["server", "router"], "rate": "100Mbps"},
                      {"between": ["router", "client"], "rate": "10Mbps", "delay": "10ms",
                       "forward": forward}]},
        "flows": [{"src": "server", "dst": "client", "protocol": "sctp", "app": app}],
        "trace": {"flows": true, "packets": true}
    })
}

fn files(count: u32, size: u64) -> Value {
    json!({"kind": "files", "count": count, "size": size})
}

/// The DATA chunk rows of a flow's series, column by column.
struct Data {
    t: Vec<f64>,
    event: Vec<f64>,
    tsn: Vec<f64>,
    ssn: Vec<f64>,
    bytes: Vec<f64>,
    tx: Vec<f64>,
    round: Vec<f64>,
    path: Vec<f64>,
    cwnd: Vec<f64>,
}

fn rows(out: &RunOutput) -> Data {
    let r: &ChunkRows = out.flow_traces[0].as_ref().unwrap().sctp();
    let keep: Vec<usize> = (0..r.len()).filter(|&i| r.col("kind")[i] == 0.0).collect();
    let pick = |name: &str| keep.iter().map(|&i| r.col(name)[i]).collect::<Vec<f64>>();
    Data {
        t: pick("t"),
        event: pick("event"),
        tsn: pick("tsn"),
        ssn: pick("ssn"),
        bytes: pick("bytes"),
        tx: pick("tx"),
        round: pick("round"),
        path: pick("path"),
        cwnd: pick("cwnd"),
    }
}

/// The SACK rows: (event, cumulative TSN, gap blocks).
fn sacks(out: &RunOutput) -> Vec<(f64, f64, f64)> {
    let r: &ChunkRows = out.flow_traces[0].as_ref().unwrap().sctp();
    (0..r.len())
        .filter(|&i| r.col("kind")[i] == 3.0)
        .map(|i| (r.col("event")[i], r.col("tsn")[i], r.col("gaps")[i]))
        .collect()
}

/// Bytes of DATA sent per round trip.
fn per_round(r: &Data) -> Vec<u64> {
    let last = r.round.iter().cloned().fold(0.0, f64::max) as usize;
    (1..=last)
        .map(|k| {
            (0..r.t.len())
                .filter(|&i| r.event[i] == 0.0 && r.round[i] == k as f64)
                .map(|i| r.bytes[i] as u64)
                .sum()
        })
        .collect()
}

/// Study 1, experiment 1: 5 files × 13,500 bytes in 1460-byte messages, round-robin over
/// five streams. The initial window is 4380 bytes (RFC 4960) and each SACK of two packets
/// adds 1460 (min(acked, MTU)) while the window was full: 4380, 8760, 17520, 35040, then the
/// five 360-byte tails — streams 0, 1, 2 bundled in one packet (32 + 3·376 = 1160 bytes; a
/// fourth would exceed 1500) and streams 3, 4 in another.
#[test]
fn study1_per_round_bytes_and_tail_bundling() {
    let out = run(study1(files(5, 13_500), json!({}), json!({})));
    let r = rows(&out);
    assert_eq!(per_round(&r), vec![4380, 8760, 17_520, 35_040, 1800]);
    // A 1460-byte message is a 1452-byte and an 8-byte chunk.
    let sizes: Vec<u64> = (0..6).map(|i| r.bytes[i] as u64).collect();
    assert_eq!(sizes, vec![1452, 8, 1452, 8, 1452, 8]);
    // The tails: two packets, 3 and 2 chunks.
    let pt = out.packet_trace.as_ref().unwrap();
    let tails: Vec<u32> = (0..pt.t.len())
        .filter(|&i| pt.kind[i] == packet_event::SEND && pt.from_sender[i] == 1)
        .map(|i| pt.len[i])
        .filter(|&l| l % 360 == 0 && l > 0 && l < 1452)
        .collect();
    assert_eq!(tails, vec![1080, 720]);
    let f = out.result.flows[0].detail.sctp();
    assert_eq!(f.bytes_delivered, 67_500);
    assert_eq!(f.messages_delivered, 50);
    assert_eq!(f.streams.len(), 5);
    assert!(f
        .streams
        .iter()
        .all(|s| s.bytes == 13_500 && s.messages == 10));
    assert_eq!((f.retransmissions, f.timeouts), (0, 0));
    let c = out.result.conservation;
    assert_eq!(c.sent, c.delivered);
}

/// No packet is larger than the MTU, and the handshake comes first (INIT, INIT ACK,
/// COOKIE ECHO, COOKIE ACK: two round trips before DATA).
#[test]
fn packets_fit_the_mtu_and_data_follows_the_handshake() {
    let out = run(study1(files(5, 13_500), json!({}), json!({})));
    let pt = out.packet_trace.as_ref().unwrap();
    let f = out.result.flows[0].detail.sctp();
    // Two round trips of small packets over 10 ms + 100 Mbps access: 40 ms and change.
    let est = f.established.unwrap();
    assert!((0.040..0.042).contains(&est), "{est}");
    let first_data = (0..pt.t.len())
        .find(|&i| pt.kind[i] == packet_event::SEND && pt.len[i] > 0)
        .unwrap();
    assert_eq!(ns(pt.t[first_data]), ns(est));
    // Every packet fits the MTU; the full ones are exactly 1500 bytes: IP 20 + common
    // header 12 + DATA header 16 + 1452.
    let data: Vec<u32> = (0..pt.t.len())
        .filter(|&i| pt.kind[i] == packet_event::SEND && pt.len[i] > 0)
        .map(|i| pt.wire[i])
        .collect();
    assert_eq!(data.iter().max(), Some(&1500));
    assert_eq!(data.iter().filter(|&&w| w == 1500).count(), 45);
    // An 8-byte fragment alone: 32 + 24 = 56 bytes.
    assert_eq!(data[1], 56);
}

/// RFC 9260 §7.2.1 conformance vector: with full 1452-byte chunks the first flight is four
/// packets (outstanding counts user data: 3·1452 = 4356 < 4380 lets a fourth go), and a SACK
/// for two chunks when cwnd was fully used raises 4380 to 4380 + min(2904, 1500) = 5880.
/// Counting chunk headers as ns-2 does, the first flight is three packets.
#[test]
fn initial_window_and_slow_start_increment() {
    let out = run(study1(
        json!({"kind": "finite", "bytes": 145_200}),
        json!({}),
        json!({}),
    ));
    let r = rows(&out);
    let first: Vec<usize> = (0..r.t.len())
        .filter(|&i| r.event[i] == 0.0 && r.round[i] == 1.0)
        .collect();
    assert_eq!(first.len(), 4);
    assert_eq!(r.cwnd[first[3]], 4380.0);
    // The first send after the first SACK sees cwnd 5880.
    let second = (0..r.t.len())
        .find(|&i| r.event[i] == 0.0 && r.round[i] == 2.0)
        .unwrap();
    assert_eq!(r.cwnd[second], 5880.0);
    let out = run(study1(
        json!({"kind": "finite", "bytes": 145_200}),
        json!({"outstanding": "chunks"}),
        json!({}),
    ));
    let r = rows(&out);
    let n = (0..r.t.len())
        .filter(|&i| r.event[i] == 0.0 && r.round[i] == 1.0)
        .count();
    assert_eq!(n, 3, "(1452 + 16)·3 = 4404 ≥ 4380");
}

/// Fragmentation and reassembly: a 5000-byte message is three 1452-byte chunks and a
/// 644-byte one with consecutive TSNs, the first marked B and the last E; the receiver
/// delivers whole messages only.
#[test]
fn fragmentation_and_reassembly() {
    let out = run(study1(
        json!({"kind": "writes", "sizes": [5000, 5000, 100]}),
        json!({}),
        json!({}),
    ));
    let r = rows(&out);
    let sent: Vec<(u64, u64)> = (0..r.t.len())
        .filter(|&i| r.event[i] == 0.0)
        .map(|i| (r.tsn[i] as u64, r.bytes[i] as u64))
        .collect();
    assert_eq!(
        sent,
        vec![
            (1, 1452),
            (2, 1452),
            (3, 1452),
            (4, 644),
            (5, 1452),
            (6, 1452),
            (7, 1452),
            (8, 644),
            (9, 100)
        ]
    );
    let f = out.result.flows[0].detail.sctp();
    assert_eq!((f.messages_delivered, f.bytes_delivered), (3, 10_100));
    // Stream sequence numbers: one per message.
    let ssn: Vec<u64> = (0..r.t.len())
        .filter(|&i| r.event[i] == 0.0)
        .map(|i| r.ssn[i] as u64)
        .collect();
    assert_eq!(ssn, vec![0, 0, 0, 0, 1, 1, 1, 1, 2]);
}

/// A lost chunk of stream 0 holds back stream 0 only: stream 1's messages, sent after it,
/// are delivered at once, while stream 0 waits for the retransmission. (One TCP byte stream
/// would have held everything.)
#[test]
fn no_head_of_line_blocking_across_streams() {
    // Two files of 10 × 1000-byte pieces: one 1000-byte message per packet.
    let app = json!({"kind": "files", "count": 2, "size": 10_000, "piece": 1000});
    let drop_first = json!({"drops": {"segments": [{"segment": 1}]}});
    let out = run(study1(app.clone(), json!({}), drop_first));
    let lossy = out.result.flows[0].detail.sctp().clone();
    let clean = run(study1(app, json!({}), json!({})));
    let clean = clean.result.flows[0].detail.sctp().clone();
    assert_eq!(lossy.bytes_delivered, 20_000);
    assert_eq!(lossy.retransmissions, 1);
    let (s0, s1) = (&lossy.streams[0], &lossy.streams[1]);
    // Stream 1's first message arrives as in the clean run; stream 0's waits.
    assert_eq!(s1.first_delivery, clean.streams[1].first_delivery);
    assert!(s0.first_delivery.unwrap() > s1.first_delivery.unwrap() + 0.015);
    let out = run(study1(
        json!({"kind": "files", "count": 2, "size": 10_000, "piece": 1000}),
        json!({"unordered": true}),
        json!({"drops": {"segments": [{"segment": 1}]}}),
    ));
    let unordered = out.result.flows[0].detail.sctp();
    // Unordered: stream 0's second message need not wait for the first either.
    assert!(unordered.streams[0].first_delivery.unwrap() < s0.first_delivery.unwrap());
}

/// One lost chunk in a long transfer: three SACKs report it missing, it is fast
/// retransmitted once, cwnd falls to ssthresh = max(cwnd/2, 4·MTU), no T3-rtx.
#[test]
fn fast_retransmit_on_the_third_missing_report() {
    let out = run(study1(
        json!({"kind": "finite", "bytes": 1_452_000}),
        json!({}),
        json!({"drops": {"segments": [{"segment": 40}]}}),
    ));
    let f = out.result.flows[0].detail.sctp();
    assert_eq!(f.bytes_delivered, 1_452_000);
    assert_eq!(
        (f.fast_retransmits, f.retransmissions_fast, f.timeouts),
        (1, 1, 0)
    );
    // The SACKs in the series: as many sent as the receiver counted, gap blocks while the
    // hole was open, every one that was sent arrived (the reverse path loses nothing).
    let sk = sacks(&out);
    let sent = sk.iter().filter(|s| s.0 == 0.0).count() as u64;
    assert_eq!(sent, f.sacks_sent);
    assert_eq!(
        sk.iter().filter(|s| s.0 == 1.0).count() as u64,
        f.sacks_sent
    );
    assert!(sk.iter().any(|s| s.2 > 0.0));
    let r = rows(&out);
    let rtx = (0..r.t.len())
        .find(|&i| r.event[i] == 0.0 && r.tx[i] == 2.0)
        .unwrap();
    assert_eq!(r.tsn[rtx], 40.0);
    // The cwnd before the loss and right after it.
    let before = (0..rtx).rev().find(|&i| r.event[i] == 0.0).unwrap();
    let expect = (r.cwnd[before] / 2.0).max(6000.0);
    assert_eq!(r.cwnd[rtx], expect);
}

/// The last chunks lost: nothing follows to report them missing, so T3-rtx expires after
/// RTO (RTO.Min 1 s) and they are retransmitted with cwnd = 1 MTU.
#[test]
fn t3_rtx_retransmits_an_unreported_loss() {
    let out = run(study1(
        json!({"kind": "writes", "sizes": [1000, 1000, 1000]}),
        json!({}),
        json!({"drops": {"segments": [{"segment": 3}]}}),
    ));
    let f = out.result.flows[0].detail.sctp();
    assert_eq!(f.bytes_delivered, 3000);
    assert_eq!((f.timeouts, f.retransmissions_timeout), (1, 1));
    let r = rows(&out);
    let sends: Vec<usize> = (0..r.t.len())
        .filter(|&i| r.event[i] == 0.0 && r.tsn[i] == 3.0)
        .collect();
    let gap = r.t[sends[1]] - r.t[sends[0]];
    assert!((1.0..1.05).contains(&gap), "{gap}");
    assert_eq!(r.cwnd[sends[1]], 1500.0);
}

/// Two paths (a1—b1 and a2—b2 through separate routers). The primary's link fails at 1 s for
/// good: T3-rtx expiries count errors, after Path.Max.Retrans (1 here) the primary is
/// inactive and data continues on the alternate; every byte is delivered. A 16 KB receive
/// window keeps the queues empty, so the RTO is RTO.Min (200 ms): the first expiry comes
/// 200 ms after the last acknowledgement (~1.0 s), error count 1. Chunks that reached the
/// peer just before the failure, whose SACKs were lost on the failed link, are then
/// acknowledged by SACKs over the alternate path, which clears the primary's error counter
/// (RFC 9260 §8.3); the second expiry (400 ms later) counts 1 again and the third (800 ms
/// later) makes 2 > Path.Max.Retrans: failover at ≈ 1.2 + 0.4 + 0.8 = 2.4 s.
#[test]
fn failover_to_the_alternate_path() {
    let v = json!({
        "duration": "60s", "seed": 1,
        "sctp": {"path_max_retrans": 1, "rto_min": "200ms", "rto_initial": "1s",
                 "rcv_buf": "16KB"},
        "topology": {"kind": "explicit", "nodes": ["a1", "a2", "r1", "r2", "b1", "b2"],
            "links": [
                {"between": ["a1", "r1"], "rate": "10Mbps", "delay": "5ms"},
                {"between": ["r1", "b1"], "rate": "10Mbps", "delay": "5ms",
                 "down": [{"from": "1s"}]},
                {"between": ["a2", "r2"], "rate": "10Mbps", "delay": "10ms"},
                {"between": ["r2", "b2"], "rate": "10Mbps", "delay": "10ms"}]},
        "flows": [{"src": "a1", "dst": "b1", "protocol": "sctp",
                   "paths": [{"src": "a2", "dst": "b2"}],
                   "app": {"kind": "finite", "bytes": "3MB"}}],
        "trace": {"flows": true}
    });
    let out = run(v);
    let f = out.result.flows[0].detail.sctp();
    assert_eq!(f.bytes_delivered, 3_000_000);
    assert!(!f.paths[0].active, "the primary is down");
    assert!(f.paths[1].active);
    assert!(f.paths[1].data_bytes > 0);
    assert_eq!(f.failovers.len(), 1, "{:?}", f.failovers);
    let (t, from, to) = f.failovers[0];
    assert_eq!((from, to), (0, 1));
    assert!((2.4..2.5).contains(&t), "{t}");
    assert_eq!(f.timeouts, 3);
    assert!(out.result.flows[0].drops["link_down"] > 0);
    let c = out.result.conservation;
    assert_eq!(c.sent, c.delivered + c.dropped + c.in_flight);
}

/// Same scenario and seed, same bytes out; and bad SCTP input names its field.
#[test]
fn deterministic_and_validated() {
    let v = study1(
        files(5, 13_500),
        json!({}),
        json!({"loss": {"model": "bernoulli", "p": "2%"}}),
    );
    let (a, b) = (run(v.clone()), run(v));
    assert_eq!(
        serde_json::to_string(&a.result).unwrap(),
        serde_json::to_string(&b.result).unwrap()
    );
    assert_eq!(rows(&a).t, rows(&b).t);
    let bad = study1(files(5, 100), json!({"mtu": 50}), json!({}));
    let e = transim_core::validate_value(bad).unwrap_err();
    assert_eq!(e.path, "sctp.mtu");
    let mut bad = study1(files(5, 100), json!({}), json!({}));
    bad["flows"][0]["tcp"] = json!({"mss": 1000});
    let e = transim_core::validate_value(bad).unwrap_err();
    assert_eq!(e.path, "flows[0].tcp");
}

/// A failed primary comes back: heartbeats to the inactive destination are answered once
/// the link is up again, the primary becomes active and new data returns to it. (The
/// delayed-SACK timer is shortened below RTO.Min here: with 200 ms for both, a last lone
/// chunk's SACK comes after its T3-rtx, a spurious timeout real SCTP avoids with 1 s.)
#[test]
fn path_recovery_by_heartbeat() {
    let v = json!({
        "duration": "60s", "seed": 1,
        "sctp": {"path_max_retrans": 0, "rto_min": "200ms", "rto_initial": "1s",
                 "rcv_buf": "16KB", "hb_interval": "1s", "sack_delay": "50ms"},
        "topology": {"kind": "explicit", "nodes": ["a1", "a2", "r1", "r2", "b1", "b2"],
            "links": [
                {"between": ["a1", "r1"], "rate": "10Mbps", "delay": "5ms"},
                {"between": ["r1", "b1"], "rate": "10Mbps", "delay": "5ms",
                 "down": [{"from": "1s", "to": "4s"}]},
                {"between": ["a2", "r2"], "rate": "10Mbps", "delay": "10ms"},
                {"between": ["r2", "b2"], "rate": "10Mbps", "delay": "10ms"}]},
        "flows": [{"src": "a1", "dst": "b1", "protocol": "sctp",
                   "paths": [{"src": "a2", "dst": "b2"}],
                   "app": {"kind": "finite", "bytes": "12MB"}}],
        "trace": {"flows": true}
    });
    let out = run(v);
    let f = out.result.flows[0].detail.sctp();
    assert_eq!(f.bytes_delivered, 12_000_000);
    assert!(f.paths[0].active, "the primary recovered");
    assert!(f.heartbeats > 0);
    // Failover to path 1 soon after 1 s, back to path 0 after the link returns at 4 s.
    assert!(f.failovers.len() >= 2, "{:?}", f.failovers);
    let (t0, a0, b0) = f.failovers[0];
    let (t1, a1, b1) = f.failovers[1];
    assert_eq!((a0, b0, a1, b1), (0, 1, 1, 0));
    assert!(
        (1.0..2.0).contains(&t0) && (4.0..7.0).contains(&t1),
        "{:?}",
        f.failovers
    );
    // Data went to the primary again after the recovery.
    let r = rows(&out);
    assert!((0..r.t.len()).any(|i| r.event[i] == 0.0 && r.t[i] > t1 && r.path[i] == 0.0));
}

/// Finite and bulk applications make their messages as they go (a terabyte transfer needs
/// no list of messages), and a files application that would list too many writes is refused
/// with the field named.
#[test]
fn large_applications_are_bounded() {
    let out = run(study1(
        json!({"kind": "finite", "bytes": "1000GB"}),
        json!({}),
        json!({}),
    ));
    let f = out.result.flows[0].detail.sctp();
    assert!(f.bytes_delivered > 1_000_000 && f.completion_time.is_none());
    let v = study1(
        json!({"kind": "files", "count": 100, "size": "1GB", "piece": 10}),
        json!({}),
        json!({}),
    );
    let e = transim_core::validate_value(v).unwrap_err();
    assert_eq!(e.path, "flows[0].app.piece");
    // A finite transfer ends with exactly its bytes, the last message shorter.
    let out = run(study1(
        json!({"kind": "finite", "bytes": 3000}),
        json!({}),
        json!({}),
    ));
    let r = rows(&out);
    let sizes: Vec<u64> = (0..r.t.len())
        .filter(|&i| r.event[i] == 0.0)
        .map(|i| r.bytes[i] as u64)
        .collect();
    assert_eq!(sizes, vec![1452, 1452, 96]);
}

/// An association's results (with its streams, a list of objects) are written as
/// `serde_json::to_value` holds them, every object's keys in name order, and the run's
/// summary text is `serde_json`'s.
#[test]
fn results_are_written_with_every_object_s_keys_in_name_order() {
    let app = json!({"kind": "files", "count": 2, "size": 10_000, "piece": 1000});
    let drop_first = json!({"drops": {"segments": [{"segment": 1}]}});
    let out = run(study1(app, json!({}), drop_first));
    let f = &out.result.flows[0];
    let sorted = serde_json::to_string(&serde_json::to_value(f.detail.sctp()).unwrap()).unwrap();
    assert!(sorted.contains(r#""streams":[{"#), "{sorted}");
    assert_eq!(serde_json::to_string(&f.detail).unwrap(), sorted);
    assert_eq!(
        out.result.to_json_text().unwrap(),
        serde_json::to_string(&out.result).unwrap()
    );
}

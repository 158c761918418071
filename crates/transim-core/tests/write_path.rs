//! Linux's write path (`tcp_sendmsg`, 2.6.15): each write() appends to the tail segment only
//! while that segment is unsent and below the MSS, otherwise starts a new one; after each
//! write the stack tries to send (cwnd, receive window, Minshall's Nagle). A segment once
//! sent keeps its size. Hand-computed first flights for MSS 1448 (timestamps) and an initial
//! window of three packets, in the linux-2.6 profile where this is the default.

mod common;
use common::*;
use serde_json::{json, Value};

/// Two nodes, 100 Mbps, 10 ms; one flow writing `count` pieces of `size` bytes.
fn writes(profile: &str, size: u64, count: usize, extra: Value) -> Value {
    let mut tcp = json!({"profile": profile});
    for (k, v) in extra.as_object().unwrap() {
        tcp[k] = v.clone();
    }
    json!({
        "duration": "5s", "seed": 1, "tcp": tcp,
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "100Mbps", "delay": "10ms"}]},
        "flows": [{"src": "A", "dst": "B", "app": {"kind": "writes", "sizes": vec![size; count]}}],
        "trace": {"flows": true, "packets": true}
    })
}

/// Payload sizes of the data segments sent before the first ACK of data returns (the first
/// flight), and of all data segments in order of sending.
fn flights(v: Value) -> (Vec<u32>, Vec<u32>, u64) {
    let out = run(v);
    let pt = out.packet_trace.as_ref().unwrap();
    let sends = rows(pt, |i| {
        pt.kind[i] == 0 && pt.from_sender[i] == 1 && pt.len[i] > 0
    });
    let first_ack = rows(pt, |i| {
        pt.kind[i] == 1 && pt.from_sender[i] == 0 && pt.ack[i] > 1
    })[0];
    let first: Vec<u32> = sends
        .iter()
        .filter(|&&i| pt.t[i] < pt.t[first_ack])
        .map(|&i| pt.len[i])
        .collect();
    let all = sends.iter().map(|&i| pt.len[i]).collect();
    (first, all, out.result.flows[0].detail.tcp().bytes_delivered)
}

/// Writes smaller than the MSS (1000 bytes): the first goes alone (no small segment is
/// outstanding yet); the second starts a segment Nagle holds; the third fills it to 1448
/// (sent: the window has room) and leaves 552 in a new one; the fourth fills that (sent,
/// third packet) and the window is full. 1000 + 1448 + 1448 = 3896 bytes.
#[test]
fn writes_below_the_mss() {
    let (first, all, delivered) = flights(writes("linux-2.6", 1000, 10, json!({})));
    assert_eq!(first, vec![1000, 1448, 1448]);
    assert_eq!(delivered, 10_000);
    // The later writes top up the waiting tail segment to 1448 and carry over: six full
    // segments after the first and a 312-byte tail (1000 + 6·1448 + 312 = 10,000).
    let mut want = vec![1000];
    want.extend([1448; 6]);
    want.push(312);
    assert_eq!(all, want);
}

/// Writes of exactly one MSS: every write is a full segment; three go in the first flight.
#[test]
fn writes_of_one_mss() {
    let (first, all, _) = flights(writes("linux-2.6", 1448, 10, json!({})));
    assert_eq!(first, vec![1448, 1448, 1448]);
    assert!(all.iter().all(|&x| x == 1448), "{all:?}");
}

/// Writes of 1460 bytes (study 1's pieces): 1448 is sent at once, the 12-byte remainder goes
/// too (no small segment outstanding), the second write's 1448 is the third packet and its
/// 12 bytes wait; the third write tops that segment up to 1448 and leaves 24. First flight
/// 1448 + 12 + 1448 = 2908 bytes; the 12-byte segment is retransmitted as 12 bytes.
#[test]
fn writes_above_the_mss() {
    let (first, all, delivered) = flights(writes("linux-2.6", 1460, 10, json!({})));
    assert_eq!(first, vec![1448, 12, 1448]);
    assert_eq!(delivered, 14_600);
    // Each later write tops the waiting segment up and carries 12 more bytes over: the tail
    // after ten writes is 9·12 = 108 bytes (1448 + 12 + 9·1448 + 108 = 14,600).
    let mut want = vec![1448, 12];
    want.extend([1448; 9]);
    want.push(108);
    assert_eq!(all, want);
}

/// Several MSS per write (5000 bytes): full segments pushed as they fill, 656 left waiting.
#[test]
fn writes_of_several_mss() {
    let (first, _, _) = flights(writes("linux-2.6", 5000, 10, json!({})));
    assert_eq!(first, vec![1448, 1448, 1448]);
}

/// A segment once sent keeps its size: drop the 12-byte second segment and its
/// retransmission is 12 bytes, not coalesced with later data.
#[test]
fn a_sent_segment_keeps_its_size_when_retransmitted() {
    let mut v = writes("linux-2.6", 1460, 10, json!({}));
    v["topology"]["links"][0]["forward"] = json!({"drops": {"segments": [{"segment": 2}]}});
    let out = run(v);
    let pt = out.packet_trace.as_ref().unwrap();
    let rtx: Vec<(u64, u32)> = rows(pt, |i| {
        pt.kind[i] == 0 && pt.from_sender[i] == 1 && pt.tx[i] > 1
    })
    .into_iter()
    .map(|i| (pt.seq[i], pt.len[i]))
    .collect();
    assert_eq!(rtx, vec![(1 + 1448, 12)]);
    assert_eq!(out.result.flows[0].detail.tcp().bytes_delivered, 14_600);
}

/// The stream packetization (the other profiles' default, and selectable) puts every write
/// into the buffer and segments the stream: three full segments first.
#[test]
fn stream_packetization_coalesces_the_writes() {
    let (first, _, _) = flights(writes(
        "linux-2.6",
        1460,
        10,
        json!({"packetization": "stream"}),
    ));
    assert_eq!(first, vec![1448, 1448, 1448]);
    let (first, _, _) = flights(writes("rfc", 1000, 10, json!({"timestamps": true})));
    assert_eq!(first, vec![1448, 1448, 1448]);
}

/// With a send buffer the application writes only what fits, and more as ACKs free room:
/// a 2920-byte buffer holds two 1460-byte writes, so the first flight is 1448 + 12 + 1448
/// (the buffer is then full: 2920 bytes written, none acknowledged) and nothing else.
#[test]
fn the_send_buffer_limits_what_the_application_writes() {
    let (first, _, delivered) = flights(writes("linux-2.6", 1460, 10, json!({"snd_buf": 2920})));
    assert_eq!(first, vec![1448, 12, 1448]);
    assert_eq!(delivered, 14_600);
    let (first, _, _) = flights(writes("linux-2.6", 1460, 10, json!({"snd_buf": 1460})));
    assert_eq!(first, vec![1448, 12]);
}

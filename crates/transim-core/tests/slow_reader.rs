//! A receiving application that reads at a set rate (`tcp.read_rate`): the receive window it
//! leaves, window updates and the sender's persist timer (RFC 9293 §3.8.6), against
//! hand-computed timelines and closed forms.
//!
//! Path: A —8 Mbps (1 byte/µs), 10 ms— B, MSS 1000 (1,040 bytes on the wire: 1.04 ms), no
//! delayed ACK, no timestamps; a bare ACK or probe is 40 bytes (40 µs).

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::trace::packet_event;
use transim_core::trace::PacketTrace;

const MS: u64 = 1_000_000;

/// Send times (ns) of the sender's zero-length segments below snd_una: window probes.
fn probes(pt: &PacketTrace, below: u64) -> Vec<u64> {
    rows(pt, |i| {
        pt.kind[i] == packet_event::SEND
            && pt.from_sender[i] == 1
            && pt.len[i] == 0
            && pt.seq[i] == below - 1
    })
    .into_iter()
    .map(|i| ns(pt.t[i]))
    .collect()
}

/// The window-probe episode: a 2,000-byte buffer read at 1 byte/ms, a 3,000-byte transfer
/// with an initial window of 2 segments, the minimum RTO 200 ms; `reverse` configures the
/// ACK direction (scripted drops).
fn episode(reverse: Value) -> transim_core::results::RunOutput {
    let mut sc = two_node(
        "5s",
        json!({"initial_window": 2, "rcv_buf": 2000, "read_rate": "8kbps",
               "rto_min": "200ms"}),
        json!({"kind": "finite", "bytes": 3000}),
        json!({}),
    );
    sc["topology"]["links"][0]["reverse"] = reverse;
    run(sc)
}

/// Segments 1 and 2 fill the buffer. Segment 1 arrives at a1 and the reader starts on it;
/// segment 2's ACK advertises a zero window (1 byte read of 2,000: the right edge could move
/// by 1 byte, less than the MSS the SWS rule asks for). One MSS is read by a1 + 1 s, when
/// the receiver sends a window update of 1,000 bytes, and segment 3 leaves as it arrives,
/// 10.04 ms later. Meanwhile the sender, blocked with nothing in flight, probes after
/// 200 ms and 400 ms more (each probe answered with a zero window). Segment 3 fills the
/// buffer again (1,020 bytes read, 1,980 unread): its ACK advertises a zero window too.
#[test]
fn a_window_update_reopens_the_window_when_one_mss_is_read() {
    let mut out = episode(json!({}));
    let pt = out.packet_trace.take().expect("packet trace");
    let a1 = data_arrivals(&pt)[0].0;
    let b = acks_at_sender(&pt, 2001)[0];
    let seg3 = sends_of(&pt, 2001);
    assert_eq!(seg3.len(), 1, "{seg3:?}");
    assert_eq!(seg3[0].0, a1 + 1_000 * MS + 10_040_000);
    assert_eq!(probes(&pt, 2001), vec![b + 200 * MS, b + 600 * MS]);
    let tcp = out.result.flows[0].detail.tcp();
    let r = tcp.reader.as_ref().expect("reader results");
    assert_eq!(r.window_probes, 2);
    assert_eq!(r.window_updates, 1);
    // Segment 2's ACK, the two probes' answers and segment 3's ACK.
    assert_eq!(r.zero_window_acks, 4);
    assert_eq!(tcp.bytes_delivered, 3000);
    assert!(tcp.completion_time.is_some());
}

/// The same with the window update lost (the ACK direction's sixth packet: SYN-ACK, two
/// ACKs, two probes' answers, the update): only the persist timer can reopen the window. Its third probe, 800 ms
/// after the second, draws an ACK with the 1,000-byte window (1,430 bytes read by then; the
/// right edge stays where the lost update put it), and segment 3 leaves as that ACK
/// arrives, a probe's round trip (2 × 10.04 ms) after the probe.
#[test]
fn the_persist_timer_recovers_a_lost_window_update() {
    let mut out = episode(json!({"drops": {"packets": [6]}}));
    let pt = out.packet_trace.take().expect("packet trace");
    let b = acks_at_sender(&pt, 2001)[0];
    let sent = probes(&pt, 2001);
    assert_eq!(sent, vec![b + 200 * MS, b + 600 * MS, b + 1_400 * MS]);
    let seg3 = sends_of(&pt, 2001);
    assert_eq!(seg3.len(), 1, "{seg3:?}");
    assert_eq!(seg3[0].0, sent[2] + 2 * 10_040_000);
    let tcp = out.result.flows[0].detail.tcp();
    let r = tcp.reader.as_ref().expect("reader results");
    assert_eq!((r.window_probes, r.window_updates), (3, 1));
    assert_eq!(tcp.bytes_delivered, 3000);
}

/// A bulk transfer through an 8,000-byte buffer read at 8 bytes/ms: each window update (one
/// MSS read, 125 ms) reaches the sender before its persist timer (200 ms) would fire, so no
/// probe is ever sent, however often the window closes: each time the sender is held back
/// the timer starts afresh (a timer left from an earlier time, whose window an ACK reopened,
/// must not fire into the next: it did, 21 times in 20 s, before the timer kept its
/// episode).
#[test]
fn updates_ahead_of_the_persist_timer_leave_no_probe() {
    // (The two families' ACK handling differs: each must leave no stale timer.)
    for recovery in ["newreno", "rfc6675"] {
        no_probe_with(recovery);
    }
}

fn no_probe_with(recovery: &str) {
    let out = run(two_node(
        "20s",
        json!({"rcv_buf": 8000, "read_rate": "64kbps", "rto_min": "200ms",
               "recovery": recovery}),
        json!({"kind": "bulk"}),
        json!({}),
    ));
    let r = out.result.flows[0]
        .detail
        .tcp()
        .reader
        .clone()
        .expect("reader");
    assert!(r.window_updates > 100, "{recovery}: {r:?}");
    assert!(r.zero_window_acks > 100, "{recovery}: {r:?}");
    assert_eq!(r.window_probes, 0, "{recovery}: {r:?}");
}

/// A bulk transfer to a reader of 2 Mb/s through a 20,000-byte buffer, on a path four times
/// faster, with an initial window of 10 segments (the first round trip's 5,250 bytes of
/// reading then find data): the reader never starves, so it reads exactly ⌊R · (T − a1)⌋ bytes, the receiver
/// holds what it has not read (delivered = read + unread, unread at most the buffer), the
/// sender never sends a segment shorter than the MSS, and nothing is lost.
#[test]
fn a_bulk_transfer_runs_at_the_read_rate() {
    let mut out = run(two_node(
        "20s",
        json!({"rcv_buf": 20000, "read_rate": "2Mbps", "initial_window": 10}),
        json!({"kind": "bulk"}),
        json!({}),
    ));
    let pt = out.packet_trace.take().expect("packet trace");
    let a1 = data_arrivals(&pt)[0].0;
    let tcp = out.result.flows[0].detail.tcp();
    let r = tcp.reader.as_ref().expect("reader results");
    let expected = ((20_000 * MS - a1) as f64 * 2e6 / 8e9).floor() as u64;
    assert_eq!(r.bytes_read, expected);
    assert_eq!(tcp.bytes_delivered, r.bytes_read + r.unread_at_end);
    assert!(r.unread_at_end <= 20_000, "{}", r.unread_at_end);
    assert_eq!(tcp.retransmissions, 0);
    let short = rows(&pt, |i| {
        pt.kind[i] == packet_event::SEND && pt.from_sender[i] == 1 && pt.len[i] > 0
    })
    .into_iter()
    .filter(|&i| pt.len[i] != 1000)
    .count();
    assert_eq!(short, 0, "segments shorter than the MSS");
    // The sender was held by the window, not by the path: about the read rate, far below
    // the link's 8 Mb/s.
    assert!(
        (tcp.goodput_bps / 2e6 - 1.0).abs() < 0.01,
        "{}",
        tcp.goodput_bps
    );
}

/// Without `read_rate` nothing changes: no reader results, and the window is the buffer.
#[test]
fn without_a_read_rate_there_is_no_reader() {
    let out = run(two_node(
        "1s",
        json!({"rcv_buf": 20000}),
        json!({"kind": "bulk"}),
        json!({}),
    ));
    assert!(out.result.flows[0].detail.tcp().reader.is_none());
}

/// The ns2 profile has no receive buffer to fill: refused, naming the field.
#[test]
fn the_ns2_profile_refuses_a_read_rate() {
    let sc = two_node(
        "1s",
        json!({"profile": "ns2", "read_rate": "1Mbps"}),
        json!({"kind": "bulk"}),
        json!({}),
    );
    let e = transim_core::run_value(sc)
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("tcp.read_rate"), "{e}");
    assert!(e.contains("ns2"), "{e}");
}

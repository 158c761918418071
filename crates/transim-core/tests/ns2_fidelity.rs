//! ns-2.35 behaviours the `ns2` profile and scenario options reproduce (issue 14), each on a
//! hand-computed timeline. Set-up (common::two_node): one 8 Mbps (1 byte/µs), 10 ms link,
//! MSS 1000 (1040 bytes on the wire: 1040 µs to serialise), IW 2.

mod common;
use common::*;
use serde_json::json;

/// A scripted drop "at enqueue" (ns-2's error module in front of the queue) never occupies the
/// link: the segment behind it starts at once. "On the wire" (the default) it is sent and lost.
#[test]
fn scripted_drop_at_enqueue_frees_the_link() {
    let second_arrival = |at: &str| {
        let mut v = two_node(
            "1s",
            json!({}),
            json!({"kind": "finite", "bytes": 2000}),
            json!({"drops": {"segments": [{"segment": 1}], "at": at}}),
        );
        v["trace"] = json!({"packets": true});
        let out = run(v);
        let pt = out.packet_trace.unwrap();
        let first_send = sends_of(&pt, 1)[0].0;
        let arrivals = data_arrivals(&pt);
        assert_eq!(out.result.flows[0].data_drops["script"], 1);
        // The first arrival is segment 2 (seq 1001); measure it from segment 1's send.
        assert_eq!(arrivals[0].1, 1001);
        arrivals[0].0 - first_send
    };
    // The handshake's third-leg ACK (40 bytes: 40 µs) leaves with the two segments. Segment 2
    // waits behind it and segment 1's 1040 µs on the wire, then 1040 µs + 10 ms of its own.
    assert_eq!(second_arrival("wire"), 40_000 + 2 * 1_040_000 + 10_000_000);
    // Dropped before the queue: segment 2 follows the ACK at once.
    assert_eq!(second_arrival("enqueue"), 40_000 + 1_040_000 + 10_000_000);
}

/// ns-2's DropTail counts the arriving packet against its limit: with `queue = 4` a burst of
/// ten segments behind the handshake's ACK keeps 3 waiting (drops 7), where the default rule
/// keeps 4 waiting (drops 6). A limit of 1 admits nothing at all in ns-2, even to an idle link.
#[test]
fn droptail_ns2_admits_one_packet_fewer() {
    let burst_drops = |qdisc: &str, queue: u32| {
        let mut v = two_node(
            "1s",
            json!({"initial_window": 10}),
            json!({"kind": "finite", "bytes": 10_000}),
            json!({}),
        );
        v["topology"]["links"][0]["queue"] = queue.into();
        v["topology"]["links"][0]["qdisc"] = qdisc.into();
        v["trace"] = json!({"packets": true});
        let out = run(v);
        let pt = out.packet_trace.unwrap();
        let burst = sends_of(&pt, 1)[0].0;
        rows(&pt, |i| {
            pt.kind[i] == transim_core::trace::packet_event::DROP && ns(pt.t[i]) == burst
        })
        .len()
    };
    assert_eq!(burst_drops("droptail", 4), 6);
    assert_eq!(burst_drops("droptail_ns2", 4), 7);
    assert_eq!(burst_drops("droptail", 8), 2);
    assert_eq!(burst_drops("droptail_ns2", 8), 3);
}

#[test]
fn droptail_ns2_limit_one_drops_even_on_an_idle_link() {
    let mut v = two_node("1s", json!({}), json!({"kind": "bulk"}), json!({}));
    v["topology"]["links"][0]["queue"] = 1.into();
    v["topology"]["links"][0]["qdisc"] = "droptail_ns2".into();
    let out = run(v);
    let f = &out.result.flows[0];
    assert_eq!(
        f.detail.tcp().bytes_delivered,
        0,
        "not even the SYN gets through"
    );
    assert!(f.drops["queue"] >= 1);
}

/// SACK blocks add 8 bytes each to an ns-2 ACK (TCPSink/Sack1: `size += sack_index * 8`), and
/// 4 + 8n bytes with RFC 2018's layout (kind, length, two NOPs). One hole, one block: a 48-
/// versus a 52-byte ACK.
#[test]
fn sack_option_bytes_ns2_and_rfc2018() {
    let dupack_size = |option: &str| {
        let mut v = two_node(
            "1s",
            json!({"recovery": "sack1", "sack_option": option, "initial_window": 4}),
            json!({"kind": "finite", "bytes": 4000}),
            json!({"drops": {"segments": [{"segment": 1}]}}),
        );
        v["trace"] = json!({"packets": true});
        let pt = run(v).packet_trace.unwrap();
        let i = rows(&pt, |i| {
            pt.kind[i] == transim_core::trace::packet_event::SEND
                && pt.from_sender[i] == 0
                && pt.seq[i] == 1 // not the SYN-ACK
                && pt.ack[i] == 1
                && pt.wire[i] > 40
        })[0];
        pt.wire[i]
    };
    assert_eq!(dupack_size("ns2"), 48);
    assert_eq!(dupack_size("rfc2018"), 52);
}

/// ns-2's `maxburst_` caps the segments one ACK releases: in slow start the first ACK opens
/// cwnd from 2 to 3 and frees two segments (its own and the growth); with maxburst 1, one.
#[test]
fn maxburst_caps_the_segments_an_ack_releases() {
    let released = |tcp: serde_json::Value| {
        let mut v = two_node("1s", tcp, json!({"kind": "bulk"}), json!({}));
        v["trace"] = json!({"packets": true});
        let pt = run(v).packet_trace.unwrap();
        let first_ack = acks_at_sender(&pt, 1001)[0];
        rows(&pt, |i| {
            pt.kind[i] == transim_core::trace::packet_event::SEND
                && pt.from_sender[i] == 1
                && pt.len[i] > 0
                && ns(pt.t[i]) == first_ack
        })
        .len()
    };
    assert_eq!(released(json!({})), 2);
    assert_eq!(released(json!({"maxburst": 1})), 1);
    let e = transim_core::validate_value(two_node(
        "1s",
        json!({"maxburst": 0}),
        json!({"kind": "bulk"}),
        json!({}),
    ))
    .unwrap_err();
    assert_eq!(e.path, "tcp.maxburst");
}

/// The guard on a second fast retransmit. NewReno, IW 10, slow start: segment 5 is lost and
/// fast-retransmitted when segments 1-18 are out, so recover is the end of segment 18; segment
/// 19, the first sent beyond it (by inflation), is lost too. The ACK of the retransmission
/// covers 1-18 exactly and ends recovery; the duplicate ACKs that follow carry snd_una =
/// recover. RFC 6582 (snd_una >= recover) retransmits 19 fast; ns-2 (`highest_ack_ >
/// recover_`: packet 18 is not beyond packet 18) waits for the timeout.
#[test]
fn ns2_fast_retransmit_guard_needs_one_packet_beyond_recover() {
    let outcome = |guard: &str| {
        let v = two_node(
            "10s",
            json!({"recovery": "newreno", "initial_window": 10, "fr_guard": guard}),
            json!({"kind": "finite", "bytes": 30_000}),
            json!({"drops": {"segments": [{"segment": 5}, {"segment": 19}]}}),
        );
        let out = run(v);
        let t = out.result.flows[0].detail.tcp().clone();
        (t.fast_retransmits, t.timeouts)
    };
    assert_eq!(outcome("rfc6582"), (2, 0));
    assert_eq!(outcome("ns2"), (1, 1));
}

/// Fall & Floyd's Tahoe with four drops in one window (segments 16, 18, 20, 22; 800 kb/s,
/// 100 ms, queue 8): after the go-back-N the duplicate ACKs of the later holes reach but do
/// not pass `recover`. ns-2 fires one fast retransmit; the RFC 6582 guard fires one per hole.
#[test]
fn tahoe_fires_one_fast_retransmit_per_window_with_ns2_guard() {
    let fast = |guard: &str| {
        let segs: Vec<_> = [16, 18, 20, 22]
            .iter()
            .map(|s| json!({"segment": s}))
            .collect();
        let v = json!({
            "duration": "20s", "seed": 1,
            "tcp": {"profile": "ns2", "recovery": "tahoe", "rcv_buf": "30KB", "fr_guard": guard},
            "topology": {"kind": "explicit", "nodes": ["s", "r", "k"],
                "links": [{"between": ["s", "r"], "rate": "8Mbps", "queue": 100},
                          {"between": ["r", "k"], "rate": "800kbps", "delay": "100ms", "queue": 8,
                           "forward": {"drops": {"segments": segs}}}]},
            "flows": [{"src": "s", "dst": "k", "app": {"kind": "finite", "bytes": "50KB"}}]
        });
        let out = run(v);
        let t = out.result.flows[0].detail.tcp().clone();
        assert_eq!(t.bytes_delivered, 50_000);
        (t.fast_retransmits, t.timeouts)
    };
    assert_eq!(fast("ns2"), (1, 0));
    assert_eq!(fast("rfc6582"), (4, 0));
}

/// ns-2's NewReno window during fast recovery (cwnd_unit = "ns2" and halving_base =
/// "window" as in ns-2, with ns-2.35's precisionReduce_ and partial_window_deflation_), by hand: ssthresh 8 packets, segments 20
/// and 23 lost. cwnd reaches 8 at ACK 4, then grows by 1/cwnd per ACK: 9.7054 at ACK 19,
/// where the fast retransmit halves it with its fraction: ssthresh = ⌊4.8527⌋ = 4, cwnd_ =
/// 4.8527 and the window is ⌊cwnd_⌋ + dupwnd_ = 4 + 3 = 7, then +1 per duplicate ACK (four
/// of them: 11); the partial ACK (segments 20–22, three packets) deflates dupwnd_ 7 by
/// 3 − 1: 4 + 5 = 9; the ACK that ends recovery clears dupwnd_ and opens cwnd_ by 1/4.8527:
/// 5.0588, five packets.
#[test]
fn ns2_newreno_window_through_fast_recovery() {
    let mut v = two_node(
        "3s",
        json!({"recovery": "newreno", "cwnd_unit": "ns2", "initial_window": 4,
               "initial_ssthresh": "8KB", "halving_base": "window"}),
        json!({"kind": "finite", "bytes": 60_000}),
        json!({"drops": {"segments": [{"segment": 20}, {"segment": 23}]}}),
    );
    v["trace"] = json!({"flows": true});
    let out = run(v);
    let tr = out.flow_traces[0].as_ref().unwrap().tcp();
    let pk = |i: usize| tr.cwnd[i] / 1000.0;
    let una = |i: usize| (tr.snd_una[i] - 1.0) / 1000.0;
    let fr = (0..tr.t.len()).find(|&i| tr.ssthresh[i] == 4000.0).unwrap();
    assert_eq!(pk(fr), 7.0, "4 + 3 at the fast retransmit");
    assert_eq!(pk(fr + 1), 8.0, "+1 per duplicate ACK");
    let partial = (fr..tr.t.len()).find(|&i| una(i) == 22.0).unwrap();
    assert_eq!(
        pk(partial - 1),
        11.0,
        "four duplicate ACKs after the fast retransmit"
    );
    assert_eq!(
        pk(partial),
        9.0,
        "a partial ACK of 3 packets deflates dupwnd_ by 2"
    );
    assert_eq!(pk(partial + 1), 10.0);
    let exit = (partial..tr.t.len()).find(|&i| una(i) >= 28.0).unwrap();
    assert_eq!(
        pk(exit),
        5.0,
        "cwnd_ 4.8527 + 1/4.8527 at the end of recovery"
    );
    assert_eq!(out.result.flows[0].detail.tcp().fast_retransmits, 1);
}

/// ns-2's one-way handshake: a 40-byte SYN and reply (40 µs each on 8 Mb/s) and no third-leg
/// ACK, so the first segment reaches the sink at 2 × (40 µs + 10 ms) + 1040 µs + 10 ms =
/// 31.120 ms. The RFC handshake: a 48-byte SYN and SYN-ACK (MSS and window-scale options),
/// then the 40-byte ACK ahead of the data: 2 × 10.048 + 0.040 + 1.040 + 10 = 31.176 ms.
#[test]
fn ns2_handshake_is_bare_and_has_no_third_ack() {
    let first_arrival = |handshake: &str| {
        let mut v = two_node(
            "1s",
            json!({"handshake": handshake}),
            json!({"kind": "finite", "bytes": 1000}),
            json!({}),
        );
        v["trace"] = json!({"packets": true});
        let pt = run(v).packet_trace.unwrap();
        data_arrivals(&pt)[0].0
    };
    assert_eq!(first_arrival("ns2"), 31_120_000);
    assert_eq!(first_arrival("rfc"), 31_176_000);
}

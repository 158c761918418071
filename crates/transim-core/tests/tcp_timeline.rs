//! TCP behaviour against hand-computed timelines on a two-node path:
//! 8 Mbps (1 byte per µs), 10 ms one way, MSS 1000 (1040 bytes on the wire), ACK 40 bytes.
//! The SYN and SYN-ACK carry 8 option bytes (MSS, window scale): 48 bytes each.

mod common;
use common::*;
use serde_json::json;
use transim_core::trace::packet_event;

const MS: u64 = 1_000_000;
const US: u64 = 1_000;

/// Handshake: SYN 0→48 µs, at B 10.048 ms; SYN-ACK at A 20.096 ms. A sends its ACK
/// (20.096→20.136) then data, one 1.04 ms serialisation each, 10 ms propagation.
/// Slow start with IW 2 and an ACK per segment: each ACK adds one segment and releases two.
#[test]
fn slow_start_arrival_times_match_the_hand_computed_timeline() {
    let out = run(two_node(
        "1s",
        json!({}),
        json!({"kind": "bulk"}),
        json!({}),
    ));
    let pt = out.packet_trace.unwrap();
    let got: Vec<u64> = data_arrivals(&pt).iter().take(14).map(|a| a.0).collect();
    let mut want = vec![31_176 * US, 32_216 * US];
    // Round 2: ACK1 at 41.216 ms releases seg3, seg4; ACK2 at 42.256 ms releases seg5, seg6,
    // serialised back to back from 41.216 ms.
    want.extend((0..4).map(|k| 52_256 * US + k * 1_040 * US));
    // Round 3: eight segments back to back from 62.296 ms (ACK3), arriving from 73.336 ms.
    want.extend((0..8).map(|k| 73_336 * US + k * 1_040 * US));
    assert_eq!(got, want);
    // And they are segments 1..14 in order.
    let seqs: Vec<u64> = data_arrivals(&pt).iter().take(14).map(|a| a.1).collect();
    assert_eq!(seqs, (0..14).map(|k| 1 + 1000 * k).collect::<Vec<_>>());
}

/// Drop segment 5 once. Its retransmission leaves exactly when the third duplicate ACK
/// (ack = 4001) reaches the sender, not before; no timeout.
#[test]
fn fast_retransmit_on_the_third_duplicate_ack() {
    let fwd = json!({"drops": {"segments": [{"segment": 5}]}});
    let out = run(two_node(
        "2s",
        json!({"initial_window": 10}),
        json!({"kind": "bulk"}),
        fwd,
    ));
    let pt = out.packet_trace.as_ref().unwrap();
    let sends = sends_of(pt, 4001);
    assert_eq!(sends.len(), 2, "original and one retransmission: {sends:?}");
    let acks = acks_at_sender(pt, 4001);
    // acks[0] is the ACK of segment 4 itself; duplicates follow.
    assert!(acks.len() >= 4, "{acks:?}");
    assert_eq!(
        sends[1],
        (acks[3], 2),
        "retransmission at the third duplicate ACK"
    );
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(
        (f.fast_retransmits, f.timeouts, f.retransmissions),
        (1, 0, 1)
    );
}

/// fast_retransmit = false (study 2's "FRR off"): the same drop waits for the
/// retransmission timer, however many duplicate ACKs arrive.
#[test]
fn without_fast_retransmit_the_timer_repairs_the_loss() {
    let fwd = json!({"drops": {"segments": [{"segment": 5}]}});
    let out = run(two_node(
        "4s",
        json!({"initial_window": 10, "fast_retransmit": false, "rto_initial": "1s", "rto_min": "1s"}),
        json!({"kind": "bulk"}),
        fwd,
    ));
    let pt = out.packet_trace.as_ref().unwrap();
    let sends = sends_of(pt, 4001);
    assert_eq!(sends.len(), 2, "{sends:?}");
    let acks = acks_at_sender(pt, 4001);
    assert!(acks.len() >= 4, "duplicate ACKs arrived: {acks:?}");
    // The retransmission is the RTO after the original's (re)armed timer, not at a dupack.
    assert!(!acks.contains(&sends[1].0), "sent at a duplicate ACK");
    assert!(sends[1].0 - sends[0].0 >= 1_000_000_000, "{sends:?}");
    let f = out.result.flows[0].detail.tcp();
    assert_eq!((f.fast_retransmits, f.timeouts), (0, 1));
}

/// A bulk application writing 4096-byte pieces into a 10 000-byte send buffer has written two
/// pieces (8192 bytes) at the start: with MSS 1000 and Nagle off the first flight is eight
/// full segments and a 192-byte one; with Nagle the 192 bytes wait.
#[test]
fn bulk_pieces_fill_the_buffer_a_whole_piece_at_a_time() {
    for (nagle, want) in [
        (
            "off",
            vec![1000; 8].into_iter().chain([192]).collect::<Vec<u32>>(),
        ),
        ("rfc896", vec![1000; 8]),
    ] {
        let out = run(two_node(
            "25ms", // the handshake ends at 20 ms; the first flight leaves then
            json!({"initial_window": 10, "snd_buf": 10000, "nagle": nagle}),
            json!({"kind": "bulk", "piece": 4096}),
            json!({}),
        ));
        let pt = out.packet_trace.as_ref().unwrap();
        let lens: Vec<u32> = (0..pt.t.len())
            .filter(|&i| {
                pt.kind[i] == packet_event::SEND && pt.from_sender[i] == 1 && pt.len[i] > 0
            })
            .map(|i| pt.len[i])
            .collect();
        assert_eq!(lens, want, "nagle {nagle}");
    }
}

/// Limited Transmit (RFC 3042): each of the first two duplicate ACKs releases one new segment.
#[test]
fn limited_transmit_sends_one_new_segment_per_early_dupack() {
    let fwd = json!({"drops": {"segments": [{"segment": 3}]}});
    let app = json!({"kind": "bulk"});
    let count_new_after_dup = |lt: bool| {
        let out = run(two_node(
            "2s",
            json!({"limited_transmit": lt, "initial_window": 4}),
            app.clone(),
            fwd.clone(),
        ));
        let pt = out.packet_trace.unwrap();
        let acks = acks_at_sender(&pt, 2001);
        let (d1, d2) = (acks[1], acks[2]);
        // New data (never sent before) sent at the instants of dupack 1 and 2.
        rows(&pt, |i| {
            pt.kind[i] == 0
                && pt.from_sender[i] == 1
                && pt.len[i] > 0
                && pt.tx[i] == 1
                && (ns(pt.t[i]) == d1 || ns(pt.t[i]) == d2)
        })
        .len()
    };
    assert_eq!(count_new_after_dup(true), 2);
    assert_eq!(count_new_after_dup(false), 0);
}

/// NewReno (RFC 6582): two losses in one window are repaired in one recovery episode; the
/// second hole is retransmitted the moment the partial ACK arrives. Reno leaves recovery on
/// the partial ACK and needs a second reduction.
#[test]
fn newreno_retransmits_on_partial_ack_and_reno_does_not() {
    let fwd = json!({"drops": {"segments": [{"segment": 5}, {"segment": 8}]}});
    let app = json!({"kind": "finite", "bytes": 40000});
    let out = run(two_node(
        "20s",
        json!({"initial_window": 10, "recovery": "newreno"}),
        app.clone(),
        fwd.clone(),
    ));
    let pt = out.packet_trace.as_ref().unwrap();
    let partial = acks_at_sender(pt, 7001);
    let rtx8 = sends_of(pt, 7001);
    assert_eq!(rtx8.len(), 2);
    assert_eq!(
        rtx8[1],
        (partial[0], 2),
        "hole 2 resent at the first partial ACK"
    );
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(
        (f.fast_retransmits, f.timeouts, f.retransmissions),
        (1, 0, 2)
    );
    assert!(f.completion_time.is_some());

    let reno = run(two_node(
        "20s",
        json!({"initial_window": 10, "recovery": "reno"}),
        app,
        fwd,
    ));
    let r = &reno.result.flows[0];
    assert!(
        r.detail.tcp().fast_retransmits + r.detail.tcp().timeouts >= 2,
        "Reno reacts twice: {} fast, {} RTO",
        r.detail.tcp().fast_retransmits,
        r.detail.tcp().timeouts
    );
    assert!(r.detail.tcp().completion_time.unwrap() > f.completion_time.unwrap());
}

/// One-segment transfer whose first three transmissions are dropped: RTO (1 s minimum)
/// doubles each time: retransmissions 1 s, 2 s and 4 s apart (RFC 6298 §5.5).
#[test]
fn rto_backs_off_exponentially() {
    let fwd = json!({"drops": {"segments": [{"segment": 1, "transmission": 1}, {"segment": 1, "transmission": 2}, {"segment": 1, "transmission": 3}]}});
    let out = run(two_node(
        "30s",
        json!({}),
        json!({"kind": "finite", "bytes": 1000}),
        fwd,
    ));
    let pt = out.packet_trace.as_ref().unwrap();
    let s = sends_of(pt, 1);
    assert_eq!(s.iter().map(|x| x.1).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert_eq!(
        s[0].0,
        20_096 * US,
        "first data leaves when the SYN-ACK arrives"
    );
    let gaps: Vec<u64> = s.windows(2).map(|w| w[1].0 - w[0].0).collect();
    assert_eq!(gaps, vec![1000 * MS, 2000 * MS, 4000 * MS]);
    let f = out.result.flows[0].detail.tcp();
    assert_eq!((f.timeouts, f.retransmissions_timeout), (3, 3));
    assert!(f.completion_time.is_some());
}

/// Nagle (RFC 896) holds a sub-MSS segment while data is unacknowledged. The send buffer of
/// 1500 bytes leaves 500 bytes after the first full segment: with Nagle they wait for the
/// ACK (at 41.216 ms) and then go out as part of a full segment; without Nagle a 500-byte
/// segment leaves at once.
#[test]
fn nagle_holds_a_small_segment_until_the_ack() {
    let app = json!({"kind": "finite", "bytes": 3000});
    let small_sends = |nagle: &str| {
        let out = run(two_node(
            "5s",
            json!({"nagle": nagle, "snd_buf": 1500, "initial_window": 4}),
            app.clone(),
            json!({}),
        ));
        let pt = out.packet_trace.unwrap();
        rows(&pt, |i| {
            pt.kind[i] == 0 && pt.from_sender[i] == 1 && pt.len[i] > 0
        })
        .into_iter()
        .map(|i| (ns(pt.t[i]), pt.seq[i], pt.len[i]))
        .collect::<Vec<_>>()
    };
    let on = small_sends("rfc896");
    assert_eq!(on[0], (20_096 * US, 1, 1000));
    assert_eq!(
        on[1],
        (41_216 * US, 1001, 1000),
        "held until the first ACK: {on:?}"
    );
    let off = small_sends("off");
    assert_eq!(off[1], (20_096 * US, 1001, 500), "{off:?}");
}

/// Delayed ACK ("every 2nd segment, 200 ms timer"): a lone segment is acknowledged exactly
/// 200 ms after it arrives (31.176 ms + 200 ms).
#[test]
fn delayed_ack_timer_fires_after_200ms() {
    let tcp = json!({"delayed_ack": "on", "delayed_ack_timeout": "200ms", "snd_buf": 1000});
    let out = run(two_node(
        "5s",
        tcp,
        json!({"kind": "finite", "bytes": 2000}),
        json!({}),
    ));
    let pt = out.packet_trace.unwrap();
    let ack_sent = rows(&pt, |i| {
        pt.kind[i] == 0 && pt.from_sender[i] == 0 && pt.ack[i] == 1001
    });
    assert_eq!(ns(pt.t[ack_sent[0]]), 231_176 * US);
}

/// Linux quick-ACK: the first `quickacks` segments are acknowledged at once, later lone
/// segments wait for the 40 ms timer.
#[test]
fn linux_quickack_then_delayed() {
    let tcp = json!({"delayed_ack": "linux", "quickacks": 2, "snd_buf": 1000});
    let out = run(two_node(
        "5s",
        tcp,
        json!({"kind": "finite", "bytes": 4000}),
        json!({}),
    ));
    let pt = out.packet_trace.unwrap();
    let arrivals = data_arrivals(&pt);
    let ack_time = |ack: u64| {
        let r = rows(&pt, |i| {
            pt.kind[i] == 0 && pt.from_sender[i] == 0 && pt.ack[i] == ack
        });
        ns(pt.t[r[0]])
    };
    assert_eq!(ack_time(1001), arrivals[0].0);
    assert_eq!(ack_time(2001), arrivals[1].0);
    assert_eq!(ack_time(3001), arrivals[2].0 + 40 * MS);
}

/// `quickacks` with delayed ACKs "on" (as ns-3, which acknowledges the first data segment
/// of a connection at once): the first `quickacks` segments are acknowledged on arrival,
/// then every second. Without it the pairs start at the first segment.
#[test]
fn quickacks_with_every_second_segment() {
    let acks = |quickacks: Option<u32>| {
        let mut tcp = json!({"delayed_ack": "on", "initial_window": 4});
        if let Some(q) = quickacks {
            tcp["quickacks"] = json!(q);
        }
        let out = run(two_node(
            "5s",
            tcp,
            json!({"kind": "finite", "bytes": 4000}),
            json!({}),
        ));
        let pt = out.packet_trace.unwrap();
        let arrivals: Vec<u64> = data_arrivals(&pt).iter().map(|a| a.0).collect();
        let sent: Vec<(u64, u64)> = rows(&pt, |i| {
            pt.kind[i] == 0 && pt.from_sender[i] == 0 && pt.ack[i] > 1
        })
        .into_iter()
        .map(|i| (ns(pt.t[i]), pt.ack[i]))
        .collect();
        (arrivals, sent)
    };
    // (The fourth segment carries the FIN, which is acknowledged at once either way.)
    let (arrivals, sent) = acks(Some(1));
    assert_eq!(&sent[..2], &[(arrivals[0], 1001), (arrivals[2], 3001)]);
    let (arrivals, sent) = acks(None);
    assert_eq!(sent[0], (arrivals[1], 2001));
    assert!(
        sent.iter().all(|&(_, ack)| ack != 1001 && ack != 3001),
        "{sent:?}"
    );
}

/// "Drop packet number i on this link": on A→B the SYN is packet 1, the handshake ACK
/// packet 2, the first data segment packet 3. Dropping packet 3 removes exactly segment 1's
/// first transmission.
#[test]
fn scripted_drop_by_packet_number() {
    let out = run(two_node(
        "5s",
        json!({}),
        json!({"kind": "finite", "bytes": 5000}),
        json!({"drops": {"packets": [3]}}),
    ));
    let pt = out.packet_trace.unwrap();
    let dropped = rows(&pt, |i| pt.kind[i] == 2);
    assert_eq!(dropped.len(), 1);
    let d = dropped[0];
    assert_eq!((pt.seq[d], pt.tx[d], pt.from_sender[d]), (1, 1, 1));
    assert_eq!(out.result.flows[0].data_drops["script"], 1);
    assert_eq!(out.result.flows[0].detail.tcp().bytes_delivered, 5000);
}

/// The packet numbers may be listed in any order (they are sorted, then looked up by
/// binary search): [4, 3] drops the first two data segments' first transmissions.
#[test]
fn scripted_drops_by_packet_number_in_any_order() {
    let out = run(two_node(
        "5s",
        json!({}),
        json!({"kind": "finite", "bytes": 5000}),
        json!({"drops": {"packets": [4, 3]}}),
    ));
    let pt = out.packet_trace.unwrap();
    let dropped: Vec<u64> = rows(&pt, |i| pt.kind[i] == 2)
        .into_iter()
        .map(|d| pt.seq[d])
        .collect();
    assert_eq!(dropped, vec![1, 1001]);
    assert_eq!(out.result.flows[0].detail.tcp().bytes_delivered, 5000);
}

/// Karn's rule: the ACK that covers a retransmitted segment gives no RTT sample, so srtt is
/// unchanged across it; with timestamps the echo disambiguates and a sample is taken.
#[test]
fn karn_rule_and_timestamps() {
    let srtt_change_at_recovery_ack = |timestamps: bool| {
        let fwd = json!({"drops": {"segments": [{"segment": 5}]}});
        let out = run(two_node(
            "3s",
            json!({"initial_window": 10, "timestamps": timestamps, "mss": 960}),
            json!({"kind": "bulk"}),
            fwd,
        ));
        let tr = out.flow_traces[0].as_ref().unwrap().tcp().clone();
        // The first row whose cumulative ACK passes segment 5 is the ACK of its retransmission.
        let k = (0..tr.t.len())
            .find(|&i| tr.snd_una[i] > 1.0 + 4.0 * 960.0)
            .unwrap();
        tr.srtt[k] - tr.srtt[k - 1]
    };
    assert_eq!(srtt_change_at_recovery_ack(false), 0.0);
    assert_ne!(srtt_change_at_recovery_ack(true), 0.0);
}

/// RFC 6582's guard compares the ACK with `recover` = HighData (the last byte sent): an ACK
/// equal to one past it covers "more than recover". Segment 1 lost with an initial window of
/// two: the second segment and the two Limited Transmit segments give three duplicate ACKs,
/// and fast retransmit must follow (a strict test against one-past-HighData blocked it).
#[test]
fn first_segment_loss_is_fast_retransmitted_with_limited_transmit() {
    for recovery in ["newreno", "sack1", "sackplus", "rfc6675"] {
        let fwd = json!({"drops": {"segments": [{"segment": 1}]}});
        let out = run(two_node(
            "5s",
            json!({"limited_transmit": true, "recovery": recovery}),
            json!({"kind": "finite", "bytes": 20000}),
            fwd,
        ));
        let f = out.result.flows[0].detail.tcp();
        assert_eq!((f.fast_retransmits, f.timeouts), (1, 0), "{recovery}");
    }
}

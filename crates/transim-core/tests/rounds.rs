//! Barrier-synchronised rounds (`app.kind = "rounds"`), the workload of incast studies: every
//! flow of a group sends `bytes` per round, and the next round starts on all of them when the
//! last has delivered its share. Checked against hand-computed timelines on the paths of
//! `tcp_timeline.rs`: 8 Mbps (1 byte per µs), MSS 1000 (1040 bytes on the wire), no delayed
//! ACKs. Over a 10 ms path the handshake ends and the first segment arrives at 31.176 ms
//! (3 × 10 ms, SYN and SYN-ACK 48 µs each, the handshake's ACK 40 µs, the segment 1.04 ms);
//! over a 20 ms path at 61.176 ms.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::trace::{packet_event, PacketTrace};

const US: u64 = 1_000;

fn secs_ns(v: &Value) -> u64 {
    ns(v.as_f64().expect("a time in seconds"))
}

/// One flow from A to B with application `app`, for a second.
fn one_flow(app: Value) -> Value {
    two_node("1s", json!({}), app, json!({}))
}

/// The error a scenario is refused with.
fn refused(sc: Value) -> String {
    match transim_core::run_value(sc) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// Two senders into B: A over a 10 ms path, C over `slow` ms, both 8 Mbps; `tcp` as in
/// `two_node`, the apps given per flow.
fn two_into_one(slow: u64, tcp: Value, apps: [Value; 2]) -> Value {
    let mut sc = two_node("3s", tcp, json!({}), json!({}));
    sc["topology"] = json!({"kind": "explicit", "nodes": ["A", "C", "B"], "links": [
        {"between": ["A", "B"], "rate": "8Mbps", "delay": "10ms", "queue": 1000},
        {"between": ["C", "B"], "rate": "8Mbps", "delay": format!("{slow}ms"), "queue": 1000}]});
    let [a, c] = apps;
    sc["flows"] = json!([{"src": "A", "dst": "B", "app": a}, {"src": "C", "dst": "B", "app": c}]);
    sc["trace"] = json!({"packets": true});
    sc
}

/// Arrival times (ns) at the receiver of flow `flow`'s data segments starting after byte
/// `after`.
fn data_of(pt: &PacketTrace, flow: u32, after: u64) -> Vec<u64> {
    rows(pt, |i| {
        pt.kind[i] == packet_event::DELIVER
            && pt.from_sender[i] == 1
            && pt.len[i] > 0
            && pt.flow[i] == flow
            && pt.seq[i] > after
    })
    .into_iter()
    .map(|i| ns(pt.t[i]))
    .collect()
}

/// The instants group `group`'s rounds ended (ns).
fn round_ends(out: &transim_core::results::RunOutput, group: usize) -> Vec<u64> {
    out.result.rounds[group]
        .completed
        .iter()
        .map(|&t| ns(t))
        .collect()
}

/// One flow, one segment a round: each round after the first is one segment's
/// serialisation and one propagation delay after the one before, since the sender learns of
/// the next round the instant the receiver has the last one.
#[test]
fn a_single_flow_sends_each_round_when_the_last_arrived() {
    let mut sc = one_flow(json!({"kind": "rounds", "bytes": 1000, "rounds": 3}));
    sc["trace"] = json!({"packets": true});
    let out = run(sc);
    let pt = out.packet_trace.as_ref().unwrap();
    let arrivals = data_arrivals(pt);
    let want = [31_176 * US, 42_216 * US, 53_256 * US];
    assert_eq!(
        arrivals,
        vec![(want[0], 1), (want[1], 1001), (want[2], 2001)],
        "one segment a round, each sent as the round before it ended"
    );
    let rounds = serde_json::to_value(&out.result.rounds).unwrap();
    assert_eq!(rounds.as_array().unwrap().len(), 1, "{rounds}");
    let g = &rounds[0];
    assert_eq!(
        (g["flows"].as_u64(), g["bytes_per_round"].as_u64()),
        (Some(1), Some(1000))
    );
    let done: Vec<u64> = g["completed"]
        .as_array()
        .unwrap()
        .iter()
        .map(secs_ns)
        .collect();
    assert_eq!(done, want);
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(f.bytes_delivered, 3000);
    assert_eq!(f.completion_time.map(ns), Some(want[2]));
}

/// Two flows into one receiver, over 10 ms and 20 ms paths: the fast flow's next round waits
/// for the slow flow's last, so each round ends when the slow flow's segment arrives, and
/// the fast flow's segments of rounds 2 and 3 leave when the slow flow's round before ended.
#[test]
fn the_next_round_waits_for_the_slowest_flow() {
    let app = json!({"kind": "rounds", "bytes": 1000, "rounds": 3});
    let out = run(two_into_one(20, json!({}), [app.clone(), app]));
    let pt = out.packet_trace.as_ref().unwrap();
    let slow = [61_176 * US, 82_216 * US, 103_256 * US];
    assert_eq!(data_of(pt, 1, 0), slow);
    // The fast flow: its own handshake, then each round one 11.04 ms hop after the slow
    // flow's round before it ended.
    assert_eq!(
        data_of(pt, 0, 0),
        [31_176 * US, slow[0] + 11_040 * US, slow[1] + 11_040 * US]
    );
    assert_eq!(round_ends(&out, 0), slow);
    assert_eq!(out.result.rounds[0].flows, 2);
}

/// Groups are independent: flows in group "x" do not wait for flows in group "y".
#[test]
fn groups_keep_their_own_barriers() {
    let out = run(two_into_one(
        20,
        json!({}),
        [
            json!({"kind": "rounds", "bytes": 1000, "rounds": 3, "group": "x"}),
            json!({"kind": "rounds", "bytes": 1000, "rounds": 2, "group": "y"}),
        ],
    ));
    assert_eq!(out.result.rounds[0].group.as_deref(), Some("x"));
    assert_eq!(round_ends(&out, 0), [31_176 * US, 42_216 * US, 53_256 * US]);
    assert_eq!(out.result.rounds[1].group.as_deref(), Some("y"));
    assert_eq!(round_ends(&out, 1), [61_176 * US, 82_216 * US]);
}

/// A round of many segments under loss: whatever happens inside a round, a round ends only
/// when every flow has delivered all its bytes of it, and every byte is delivered once.
#[test]
fn rounds_under_loss_deliver_every_byte_and_end_in_order() {
    let mut sc = two_node(
        "20s",
        json!({"initial_window": 4}),
        json!({}),
        json!({"loss": {"model": "bernoulli", "p": 0.02}}),
    );
    sc["topology"] = json!({"kind": "explicit", "nodes": ["A", "C", "R", "B"], "links": [
        {"between": ["A", "R"], "rate": "100Mbps", "delay": "1ms", "queue": 1000},
        {"between": ["C", "R"], "rate": "100Mbps", "delay": "1ms", "queue": 1000},
        {"between": ["R", "B"], "rate": "8Mbps", "delay": "5ms", "queue": 8,
         "forward": {"loss": {"model": "bernoulli", "p": 0.02}}}]});
    let app = json!({"kind": "rounds", "bytes": 20_000, "rounds": 10});
    sc["flows"] =
        json!([{"src": "A", "dst": "B", "app": app}, {"src": "C", "dst": "B", "app": app}]);
    sc["trace"] = json!({});
    let out = run(sc);
    for f in &out.result.flows {
        let t = f.detail.tcp();
        assert_eq!(t.bytes_delivered, 200_000, "{}", f.name);
    }
    let done = round_ends(&out, 0);
    assert_eq!(done.len(), 10);
    assert!(done.windows(2).all(|w| w[0] < w[1]), "{done:?}");
    // The last round ends when the later of the two flows completes.
    let last = out
        .result
        .flows
        .iter()
        .map(|f| ns(f.detail.tcp().completion_time.unwrap()))
        .max()
        .unwrap();
    assert_eq!(done[9], last);
    assert!(
        out.result
            .flows
            .iter()
            .any(|f| f.detail.tcp().retransmissions > 0),
        "the loss made some retransmissions"
    );
}

/// Bad input names the field.
#[test]
fn rounds_fields_are_checked() {
    let err = |app: Value| refused(one_flow(app));
    let e = err(json!({"kind": "rounds", "rounds": 3}));
    assert!(
        e.contains("flows[0].app.bytes") && e.contains("required"),
        "{e}"
    );
    let e = err(json!({"kind": "rounds", "bytes": 1000}));
    assert!(
        e.contains("flows[0].app.rounds") && e.contains("required"),
        "{e}"
    );
    let e = err(json!({"kind": "rounds", "bytes": 1000, "rounds": 0}));
    assert!(
        e.contains("flows[0].app.rounds") && e.contains("got 0"),
        "{e}"
    );
    let e = err(json!({"kind": "finite", "bytes": 1000, "rounds": 2}));
    assert!(e.contains("flows[0].app.rounds"), "{e}");
    let e = err(json!({"kind": "finite", "bytes": 1000, "group": "x"}));
    assert!(e.contains("flows[0].app.group"), "{e}");
}

/// Rounds are a TCP application: an SCTP flow with them is refused by name.
#[test]
fn rounds_are_refused_for_sctp() {
    let mut sc = one_flow(json!({"kind": "rounds", "bytes": 1000, "rounds": 2}));
    sc["flows"][0]["protocol"] = json!("sctp");
    let e = refused(sc);
    assert!(e.contains("flows[0].app.kind") && e.contains("TCP"), "{e}");
}

/// Slow start after idle (Linux's `tcp_slow_start_after_idle`, RFC 5681 §4.1): a fast flow
/// that waits between rounds for a slow one longer than its RTO (100 ms here) restarts with
/// its window cut back, halved once per RTO idle down to the initial window. Its first
/// round leaves it a window of 10 segments (IW 2 + 8 ACKs); the wait is over 500 ms, so the
/// window halves to 5, then to 2. Round 2 (8 segments, released at T) then goes as slow
/// start from 2: two segments arrive at T + 11.04 and 12.08 ms; the first ACK, back at
/// T + 21.08 ms, opens room for two more (arriving from T + 32.12 ms), the second ACK two
/// more behind them, and the last two follow the third ACK (T + 42.16 ms). Without the
/// restart all eight go back to back from T.
#[test]
fn slow_start_after_idle_cuts_the_window_back_between_rounds() {
    let arrivals = |restart: bool| -> (u64, Vec<u64>) {
        let app = json!({"kind": "rounds", "bytes": 8000, "rounds": 2});
        let tcp = json!({"rto_min": "100ms", "slow_start_after_idle": restart});
        let out = run(two_into_one(200, tcp, [app.clone(), app]));
        let pt = out.packet_trace.as_ref().unwrap();
        (round_ends(&out, 0)[0], data_of(pt, 0, 8000))
    };
    let (t, off) = arrivals(false);
    assert_eq!(
        off,
        (0..8)
            .map(|k| t + 11_040 * US + k * 1_040 * US)
            .collect::<Vec<_>>()
    );
    let (t2, on) = arrivals(true);
    assert_eq!(t2, t, "round 1 is the same either way");
    let want: Vec<u64> = [
        11_040, 12_080, 32_120, 33_160, 34_200, 35_240, 53_200, 54_240,
    ]
    .iter()
    .map(|us| t + us * US)
    .collect();
    assert_eq!(on, want);
}

/// Response jitter: each round after the first starts a random time after the barrier,
/// below the jitter, drawn per round. One flow, one segment a round: a round lasts the
/// hand-computed 11.04 ms (one segment's serialisation and one propagation delay after the
/// round before, as above) plus its draw, and the segment leaves exactly the draw after the
/// round before ended. The same seed gives the same draws, another seed others.
#[test]
fn jitter_delays_each_round_by_its_own_draw() {
    let app = json!({"kind": "rounds", "bytes": 1000, "rounds": 8, "jitter": "5ms"});
    let with_seed = |seed: u64| {
        let mut sc = one_flow(app.clone());
        sc["seed"] = json!(seed);
        sc["trace"] = json!({"packets": true});
        run(sc)
    };
    let out = with_seed(1);
    let ends = round_ends(&out, 0);
    assert_eq!(ends.len(), 8);
    assert_eq!(ends[0], 31_176 * US);
    let pt = out.packet_trace.as_ref().unwrap();
    let mut draws = Vec::new();
    for k in 1..8 {
        let draw = ends[k] - ends[k - 1] - 11_040 * US;
        assert!(draw < 5_000 * US, "round {k}: {draw} ns");
        let sent = sends_of(pt, 1 + 1000 * k as u64)[0].0;
        assert_eq!(sent, ends[k - 1] + draw, "round {k}");
        draws.push(draw);
    }
    draws.sort_unstable();
    draws.dedup();
    assert_eq!(draws.len(), 7, "a draw per round: {draws:?}");
    assert_eq!(round_ends(&with_seed(1), 0), ends);
    assert_ne!(round_ends(&with_seed(2), 0), ends);
    // Without jitter the rounds follow one another at once.
    let plain = run(one_flow(
        json!({"kind": "rounds", "bytes": 1000, "rounds": 8}),
    ));
    let gaps: Vec<u64> = round_ends(&plain, 0)
        .windows(2)
        .map(|w| w[1] - w[0])
        .collect();
    assert_eq!(gaps, vec![11_040 * US; 7]);
    // Jitter is a rounds application's field.
    let e = refused(one_flow(
        json!({"kind": "finite", "bytes": 1000, "jitter": "1ms"}),
    ));
    assert!(e.contains("flows[0].app.jitter"), "{e}");
}

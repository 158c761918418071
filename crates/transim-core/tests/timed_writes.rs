//! Applications that write at set times (`app.at`), and what an idle sender's window does
//! meanwhile: SCTP lowers an idle destination's cwnd per RTO without DATA (RFC 9260 §7.2.1,
//! `sctp.cwnd_after_idle`), checked against hand-computed windows; TCP sends each write when
//! it is made.
//!
//! Path: A —8 Mbps (1 byte/µs), 10 ms— B. RTO.Min is 1 s and the round trip about 20 ms,
//! so every RTO here is exactly 1 s (checked).

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::results::RunOutput;
use transim_core::sctp::results::SctpFlowResult;
use transim_core::sctp::trace::ChunkRows;

const S: u64 = 1_000_000_000;

/// An association that writes one 1,000-byte message at the start and `later` more at
/// `at` ns. cwnd starts at 64,000 bytes and Max.Burst is out of the way, so nothing but
/// idleness moves cwnd: one small message never fills it, so slow start never grows it.
fn sctp_scenario(later: usize, at: u64, sctp: Value) -> Value {
    let mut s = json!({"initial_cwnd": 64_000, "max_burst": 100});
    for (k, v) in sctp.as_object().unwrap() {
        s[k] = v.clone();
    }
    let times: Vec<String> = std::iter::once(0)
        .chain(std::iter::repeat_n(at, later))
        .map(|t| format!("{t}ns"))
        .collect();
    json!({
        "duration": "30s", "seed": 1, "sctp": s,
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "8Mbps", "delay": "10ms", "queue": 1000}]},
        "flows": [{"src": "A", "dst": "B", "protocol": "sctp",
                   "app": {"kind": "writes", "sizes": vec![1000; later + 1], "at": times}}],
        "trace": {"flows": true}
    })
}

/// DATA chunks sent, first transmissions: (time ns, cwnd when sent).
fn sends(out: &RunOutput) -> Vec<(u64, u64)> {
    let r: &ChunkRows = out.flow_traces[0].as_ref().unwrap().sctp();
    (0..r.len())
        .filter(|&i| r.col("event")[i] == 0.0 && r.col("kind")[i] == 0.0)
        .map(|i| (ns(r.col("t")[i]), r.col("cwnd")[i] as u64))
        .collect()
}

fn sctp(out: &RunOutput) -> &SctpFlowResult {
    out.result.flows[0].detail.downcast().expect("an SCTP flow")
}

/// The first message's chunk leaves when the association is established, at t₁. The other
/// 60 are written 3.5 s after the start: 3 whole RTOs of idleness, so cwnd is halved three
/// times, 64,000 → 32,000 → 16,000 → 8,000, and eight 1,000-byte chunks go at once (a chunk
/// may go while fewer than cwnd bytes are outstanding). With the decay off, all 60 go.
#[test]
fn an_idle_destination_halves_its_cwnd_per_rto() {
    let out = run(sctp_scenario(60, 3_500_000_000, json!({})));
    assert_eq!(sctp(&out).paths[0].rto, 1.0, "the RTO is RTO.Min");
    let s = sends(&out);
    let t1 = s[0].0;
    assert!(t1 < S / 2, "established within half a second: {t1}");
    assert_eq!(s[0].1, 64_000);
    let burst: Vec<_> = s.iter().filter(|x| x.0 == 3_500_000_000).collect();
    assert_eq!(burst.len(), 8, "{s:?}");
    assert!(burst.iter().all(|x| x.1 == 8_000), "{burst:?}");
    assert_eq!(sctp(&out).paths[0].idle_decays, 3);
    assert_eq!(sctp(&out).messages_delivered, 61);

    let off = run(sctp_scenario(
        60,
        3_500_000_000,
        json!({"cwnd_after_idle": "off"}),
    ));
    let s = sends(&off);
    assert_eq!(s.iter().filter(|x| x.0 == 3_500_000_000).count(), 60);
    assert!(s.iter().all(|x| x.1 == 64_000));
    assert_eq!(sctp(&off).paths[0].idle_decays, 0);
}

/// Each halving falls due a whole RTO after the last DATA sent: a write exactly 2 RTOs
/// after t₁ finds cwnd halved twice (16,000: 16 chunks go), one a nanosecond earlier only
/// once (32,000: 32 chunks).
#[test]
fn a_halving_falls_due_exactly_one_rto_after_the_last_data() {
    let t1 = sends(&run(sctp_scenario(40, 3 * S, json!({}))))[0].0;
    let burst = |at: u64| {
        let out = run(sctp_scenario(40, at, json!({})));
        let s = sends(&out);
        let b: Vec<u64> = s.iter().filter(|x| x.0 == at).map(|x| x.1).collect();
        (b.len(), b[0], sctp(&out).paths[0].idle_decays)
    };
    assert_eq!(burst(t1 + 2 * S), (16, 16_000, 2));
    assert_eq!(burst(t1 + 2 * S - 1), (32, 32_000, 1));
}

/// Halving stops at 4·MTU (6,000 bytes) after 10 s idle: 64,000 → 32,000 → 16,000 → 8,000 →
/// 6,000, four reductions, and six chunks go. A cwnd already at or below 4·MTU (the RFC's
/// initial 4,380) is never raised by the rule: five chunks go (4,000 bytes outstanding is
/// still below 4,380).
#[test]
fn halving_stops_at_four_mtus_and_never_raises_cwnd() {
    let out = run(sctp_scenario(20, 10 * S, json!({})));
    let s = sends(&out);
    let burst: Vec<_> = s.iter().filter(|x| x.0 == 10 * S).collect();
    assert_eq!(burst.len(), 6, "{s:?}");
    assert!(burst.iter().all(|x| x.1 == 6_000));
    assert_eq!(sctp(&out).paths[0].idle_decays, 4);

    let small = run(sctp_scenario(20, 10 * S, json!({"initial_cwnd": 4380})));
    let s = sends(&small);
    let burst: Vec<_> = s.iter().filter(|x| x.0 == 10 * S).collect();
    assert_eq!(burst.len(), 5, "{s:?}");
    assert!(burst.iter().all(|x| x.1 == 4380), "{s:?}");
    assert_eq!(sctp(&small).paths[0].idle_decays, 0);
}

/// An association does not shut down while writes are still to come: the last message,
/// written at 5 s, is delivered, and SHUTDOWN follows it.
#[test]
fn an_association_waits_for_its_last_write() {
    let out = run(sctp_scenario(1, 5 * S, json!({})));
    let r = sctp(&out);
    assert_eq!(r.messages_delivered, 2);
    let done = r.completion_time.expect("completed");
    assert!((5.0..5.1).contains(&done), "{done}");
}

/// TCP: writes of 3,000 and 2,000 bytes at 0 and 1.5 s, MSS 1,000. The first write's three
/// segments go as the window allows; nothing more until 1.5 s, when segments 3,001 and
/// 4,001 leave together (cwnd has grown to 5 segments with nothing in flight). The second
/// write is the last, so the FIN rides its last segment. A transfer paced by its
/// application has no ideal completion time.
#[test]
fn tcp_sends_each_write_when_it_is_made() {
    for packetization in ["stream", "write"] {
        let out = run(two_node(
            "5s",
            json!({"packetization": packetization}),
            json!({"kind": "writes", "sizes": [3000, 2000], "at": ["0s", "1.5s"]}),
            json!({}),
        ));
        let pt = out.packet_trace.as_ref().expect("packet trace");
        let first = |seq| sends_of(pt, seq).first().map(|s| s.0);
        for seq in [1, 1001, 2001] {
            assert!(first(seq).unwrap() < S, "{packetization}: {seq}");
        }
        assert_eq!(first(3001), Some(3 * S / 2), "{packetization}");
        assert_eq!(first(4001), Some(3 * S / 2), "{packetization}");
        let r = &out.result.flows[0];
        let tcp: &transim_core::tcp::results::TcpFlowResult = r.detail.downcast().unwrap();
        assert_eq!(tcp.bytes_delivered, 5000, "{packetization}");
        assert!(tcp.completion_time.unwrap() > 1.5, "{packetization}");
        assert_eq!(tcp.ideal_completion_time, None, "{packetization}");
    }
}

/// Bad `at` lists are refused with the field named.
#[test]
fn write_times_are_checked() {
    let bad = |app: Value, field: &str, says: &str| {
        let v = two_node("1s", json!({}), app, json!({}));
        let e = transim_core::run_value(v)
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains(field) && e.contains(says), "{e}");
    };
    bad(
        json!({"kind": "writes", "sizes": [1000, 1000], "at": ["0s"]}),
        "flows[0].app.at",
        "1 times for 2 writes",
    );
    bad(
        json!({"kind": "writes", "sizes": [1000, 1000], "at": ["0.5s", "0.2s"]}),
        "flows[0].app.at[1]",
        "earlier than the write before it",
    );
    bad(
        json!({"kind": "finite", "bytes": 1000, "at": ["1s"]}),
        "flows[0].app.at",
        "finite",
    );
    // The run lasts 1 s: a write at 1 s would never happen.
    bad(
        json!({"kind": "writes", "sizes": [1000, 1000], "at": ["0s", "1s"]}),
        "flows[0].app.at[1]",
        "the write would never happen",
    );
}

/// Max.Burst = 4 lowers cwnd to flight + 4·MTU (6,000 bytes with nothing outstanding) for
/// one round of sending: the 60 messages written at 3.5 s leave six at once, then four
/// beyond the flight per SACK. Afterwards cwnd is 64,000 again (`"restore"`, Linux's
/// `sctp_transport_burst_reset`; slow start never grew it, as the window was never full).
/// With `"lower"` the clamp stays: cwnd ends at 6,000.
#[test]
fn max_burst_lowers_cwnd_for_one_round_of_sending_unless_told_to_keep_it() {
    let at = 3_500_000_000;
    let base = json!({"max_burst": 4, "cwnd_after_idle": "off"});
    let out = run(sctp_scenario(60, at, base.clone()));
    let s = sends(&out);
    let burst: Vec<_> = s.iter().filter(|x| x.0 == at).collect();
    assert_eq!(burst.len(), 6, "{s:?}");
    assert!(burst.iter().all(|x| x.1 == 6_000));
    // Every round of sending is limited (cwnd when sent: the flight then + 6,000).
    assert!(s.iter().all(|x| x.1 < 64_000), "{s:?}");
    assert_eq!(sctp(&out).paths[0].cwnd, 64_000);
    assert_eq!(sctp(&out).messages_delivered, 61);

    let mut lower = base;
    lower["max_burst_cwnd"] = json!("lower");
    let out = run(sctp_scenario(60, at, lower));
    assert_eq!(sends(&out).iter().filter(|x| x.0 == at).count(), 6);
    assert_eq!(sctp(&out).paths[0].cwnd, 6_000);
}

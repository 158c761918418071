//! A large run's summary: its flows collected on two threads, in order, and its text (the
//! link directions written on a second thread beside the flows) byte for byte
//! `serde_json`'s, with every optional part of the summary present.

use serde_json::json;

/// 1,000 senders into one receiver in rounds, stopped early: 1,000 flows and about 2,000
/// link directions, past the sizes at which both steps take two threads, and a summary
/// with `rounds` and `stopped_at`.
#[test]
fn a_large_summary_s_text_is_serde_json_s() {
    let sc = json!({
        "name": "many", "duration": "1s", "seed": 2,
        "topology": {"kind": "leaf_spine", "leaves": 1, "spines": 1, "hosts_per_leaf": 1001,
            "host_link": {"rate": "1Gbps", "delay": "25us", "queue": "8MB"},
            "fabric_link": {"rate": "1Gbps", "delay": "25us", "queue": "8MB"}},
        "traffic": {"pattern": "incast", "senders": 1000,
            "app": {"kind": "rounds", "bytes": "2KB", "rounds": 100}},
    });
    let mut watch = |now: u64, _events: u64| now < 100_000_000;
    let out = transim_core::run_value_watched(sc, &mut watch).unwrap();
    let r = &out.result;
    assert!(r.flows.len() + r.links.len() > 3000, "{}", r.links.len());
    assert!(!r.rounds.is_empty());
    assert!(
        r.stopped_at.is_some(),
        "{} {} {:?}",
        r.simulated_time,
        r.events,
        r.rounds
    );
    // Collected on two threads, half the flows each: every record in its flow's place.
    for (i, f) in r.flows.iter().enumerate() {
        let want = (format!("flow{i}"), format!("h{}", i + 1));
        assert_eq!((&f.name, &f.src, f.dst.as_str()), (&want.0, &want.1, "h0"));
        assert!(f.packets_sent > 0, "{i}");
    }
    assert_eq!(out.flow_traces.len(), r.flows.len());
    let ours = r.to_json_text().unwrap();
    let theirs = serde_json::to_string(r).unwrap();
    assert!(
        ours == theirs,
        "texts differ ({} and {} bytes)",
        ours.len(),
        theirs.len()
    );
}

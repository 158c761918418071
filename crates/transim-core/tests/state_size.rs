//! The network's state grows with the network, not with its square: the routing structure
//! of a dumbbell costs the same per host at 1,000 flows as at 10,000 (the dense
//! `routes[node][dst]` table it replaced held 20,002² entries at 10,000 flows), and each flow
//! adds the same number of link directions.

use serde_json::json;
use transim_core::scenario::{build, parse};

fn dumbbell(flows: usize) -> transim_core::engine::Simulation {
    let sc = parse(json!({
        "name": "state", "duration": "1ms", "seed": 1,
        "tcp": {"profile": "rfc", "recovery": "rfc6675"},
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": 2000}},
        "flows": [{"app": {"kind": "bulk"}, "count": flows}],
    }))
    .expect("scenario parses");
    build(&sc).expect("scenario builds")
}

#[test]
fn a_dumbbells_routing_state_per_host_is_the_same_at_any_size() {
    let (small, large) = (dumbbell(1_000), dumbbell(10_000));
    let per_node = |s: &transim_core::engine::Simulation| {
        s.routes.table_bytes() as f64 / s.node_names.len() as f64
    };
    // Two routers and two hosts per flow.
    assert_eq!(small.node_names.len(), 2 + 2 * 1_000);
    assert_eq!(large.node_names.len(), 2 + 2 * 10_000);
    // The bottleneck both ways, and each host's access link both ways.
    assert_eq!(small.links.len(), 2 + 4 * 1_000);
    assert_eq!(large.links.len(), 2 + 4 * 10_000);
    let (a, b) = (per_node(&small), per_node(&large));
    assert!(
        b <= a * 1.01,
        "{a} bytes per node at 1,000 flows, {b} at 10,000"
    );
    // A node record and a share of the 2 × 2 table: tens of bytes, not the kilobytes per
    // node that a table of every node toward every destination would be.
    assert!(b < 64.0, "{b} bytes per node");
}

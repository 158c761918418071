//! Forwarding by the flows' pinned paths chooses exactly the links the routing table does.

use serde_json::json;
use transim_core::scenario::{build, build::PIN_FLOWS_ABOVE, parse};

fn fat_tree(k: u32) -> transim_core::engine::Simulation {
    let sc = parse(json!({
        "name": "paths", "duration": "1ms", "seed": 1,
        "tcp": {"profile": "rfc", "recovery": "rfc6675"},
        "topology": {"kind": "fat_tree", "k": k,
                     "host_link": {"rate": "10Gbps", "delay": "1us", "queue": 100}},
        "traffic": {"pattern": "permutation", "app": {"kind": "bulk"}},
    }))
    .expect("scenario parses");
    build(&sc).expect("scenario builds")
}

#[test]
fn pinned_paths_choose_the_tables_links_everywhere() {
    let sim = fat_tree(8);
    let to = |l: u32| sim.links[l as usize].to;
    let endpoints: Vec<(u32, u32)> = sim.flows.iter().map(|f| (f.src, f.dst)).collect();
    let mut table = sim.routes.clone();
    assert!(
        !table.pin_flows(&endpoints, to, usize::MAX),
        "nothing is above usize::MAX"
    );
    let mut pinned = sim.routes.clone();
    assert!(pinned.pin_flows(&endpoints, to, 0));
    assert!(
        pinned.ecmp(),
        "a fat tree spreads flows over its equal-cost paths"
    );
    let nodes = sim.node_names.len() as u32;
    let mut on_path = 0;
    for (f, &(s, d)) in endpoints.iter().enumerate() {
        let f = f as u32;
        // Every node, both ends of the flow and a destination the flow never uses (node 0's
        // neighbour host or any other): on the path, off it, and not covered at all.
        for dst in [s, d, (d + 1) % nodes] {
            for node in 0..nodes {
                assert_eq!(
                    pinned.next(node, dst, f),
                    table.next(node, dst, f),
                    "flow {f} at node {node} toward {dst}"
                );
            }
        }
        // Walk the flow's path: every hop is a pinned one.
        let mut at = s;
        while at != d {
            at = sim.links[pinned.next(at, d, f) as usize].to;
            on_path += 1;
        }
    }
    // Permutation traffic on k = 8: most flows leave their pod (6 hops), some stay (2 or 4).
    assert!(on_path > 4 * endpoints.len(), "{on_path} hops");
}

#[test]
fn a_large_fabric_pins_its_flows_a_small_one_keeps_the_table() {
    let big = fat_tree(16);
    assert!(big.routes.table_bytes() > PIN_FLOWS_ABOVE);
    assert!(big.routes.pinned());
    let small = fat_tree(4);
    assert!(small.routes.table_bytes() <= PIN_FLOWS_ABOVE);
    assert!(!small.routes.pinned());
}

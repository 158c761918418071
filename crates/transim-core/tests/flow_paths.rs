//! Forwarding by the flows' pinned paths chooses exactly the links the routing table does,
//! searched or read off at a packet's place on its path.

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
        // Walk the flow's path both ways with the packet's count of links taken: read off
        // the path, every hop is the table's.
        for (from, to_node) in [(s, d), (d, s)] {
            let mut at = from;
            let mut hops = 0;
            while at != to_node {
                let l = pinned.next_at(at, to_node, f, hops, &0);
                assert_eq!(l, table.next(at, to_node, f), "flow {f} hop {hops}");
                at = sim.links[l as usize].to;
                hops += 1;
                on_path += (from == s) as usize;
            }
        }
        // A count that is not the packet's place (a packet off its path, a count that
        // wrapped): the same links, by the search.
        for dst in [s, d, (d + 1) % nodes] {
            for node in 0..nodes {
                for hops in [0, 1, 2, 5, 255, 256] {
                    assert_eq!(
                        pinned.next_at(node, dst, f, hops, &0),
                        table.next(node, dst, f),
                        "flow {f} at node {node} toward {dst}, {hops} links taken"
                    );
                }
            }
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

//! Engine benchmark without Python: runs the benchmark scenarios in `benches/` (repository
//! root) and prints wall time, data packets delivered and packets per second.
//! `cargo bench -p transim-core` (or `transim bench` for the table with ns-3 alongside).

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../benches");
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for name in ["b1", "b2", "b3", "a1", "a2", "s0", "s1"] {
        if !filter.is_empty() && !filter.iter().any(|f| f.eq_ignore_ascii_case(name)) {
            continue;
        }
        let text =
            std::fs::read_to_string(dir.join(format!("{name}.toml"))).expect("benchmark file");
        let doc: toml::Value = toml::from_str(&text).expect("valid TOML");
        let value = serde_json::to_value(doc).expect("TOML to JSON");
        let mut walls = vec![];
        let mut packets = 0;
        let mut events = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let out = transim_core::run_value(value.clone()).expect("benchmark runs");
            walls.push(t.elapsed().as_secs_f64());
            packets = out
                .result
                .flows
                .iter()
                .map(|f| f.detail.tcp().data_packets_delivered)
                .sum::<u64>();
            events = out.result.events;
        }
        walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let wall = walls[1];
        println!(
            "{name}: median {wall:.3} s, {packets} data packets, {:.0} packets/s, {:.1} events/packet, {:.0} ns/event",
            packets as f64 / wall,
            events as f64 / packets as f64,
            wall / events as f64 * 1e9
        );
    }
}

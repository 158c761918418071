//! Engine benchmark without Python: runs the benchmark scenarios in `benches/` (repository
//! root) and prints wall time, data packets delivered and packets per second.
//! `cargo bench -p transim-core` (or `transim bench` for the table with ns-3 alongside).

use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// Large engine arrays on 2 MB pages, as in the Python extension.
#[global_allocator]
static ALLOC: transim_core::sim::huge_pages::HugePageAlloc =
    transim_core::sim::huge_pages::HugePageAlloc;

/// The TCP table of B4 and B5: SACK (RFC 6675), timestamps, IW 10, delayed ACKs, 16 MiB.
fn sack_tcp(rto_min: &str) -> serde_json::Value {
    json!({"profile": "rfc", "recovery": "rfc6675", "timestamps": true, "initial_window": 10,
           "delayed_ack": "on", "rto_min": rto_min, "rcv_buf": "16MiB"})
}

/// B4's scenario: `n` SACK flows on a 1 Gbps / 10 ms dumbbell (2,000-packet bottleneck
/// queue, 10 Gbps access links), long enough for about `packets` data packets.
fn b4(n: usize, packets: u64) -> serde_json::Value {
    let seconds = packets as f64 / 83_333.0 + 0.5;
    json!({
        "name": format!("B4-{n}"), "duration": format!("{seconds:.3}s"), "seed": 1,
        "tcp": sack_tcp("1s"),
        "topology": {"kind": "dumbbell",
                     "access": {"rate": "10Gbps", "delay": "0ms", "queue": 1000},
                     "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": 2000}},
        "flows": vec![json!({"app": {"kind": "bulk"}}); n],
    })
}

/// Per flow, the packets B4's bottleneck queue holds in its every-flow-active form.
const ACTIVE_QUEUE_PER_FLOW: usize = 16;

/// B4 with every flow carrying data: the bottleneck buffers 16 packets per flow (at least
/// B4's 2,000). In B4 itself all flows start at once and the 2,000-packet queue takes
/// the first 2,000 SYNs: at 10,000 flows about 950 flows ever deliver data, and 100,000
/// flows run exactly as 10,000 do (their extra flows only lose SYNs).
fn b4_every_flow_active(n: usize, packets: u64) -> serde_json::Value {
    let mut doc = b4(n, packets);
    doc["topology"]["bottleneck"]["queue"] = json!((ACTIVE_QUEUE_PER_FLOW * n).max(2000));
    doc
}

/// B4's `n` flows with their senders and receivers spread over `pairs` host pairs (flow `i`
/// between `s{i % pairs}` and `d{i % pairs}`), on the same bottleneck and access links: how
/// much of B4's cost at many flows is the flows' own state and how much their access links.
fn b4_on_pairs(n: usize, pairs: usize, packets: u64) -> serde_json::Value {
    let mut doc = b4(n, packets);
    let access = json!({"rate": "10Gbps", "delay": "0ms", "queue": 1000});
    let mut nodes = vec!["r1".to_string(), "r2".to_string()];
    let mut links = vec![
        json!({"between": ["r1", "r2"], "rate": "1Gbps", "delay": "10ms",
                                "queue": 2000}),
    ];
    for p in 0..pairs {
        let (s, d) = (format!("s{p}"), format!("d{p}"));
        let mut up = access.clone();
        up["between"] = json!([s, "r1"]);
        let mut down = access.clone();
        down["between"] = json!(["r2", d]);
        links.extend([up, down]);
        nodes.extend([s, d]);
    }
    doc["topology"] = json!({"kind": "explicit", "nodes": nodes, "links": links});
    doc["flows"] = (0..n)
        .map(|i| {
            json!({"src": format!("s{}", i % pairs), "dst": format!("d{}", i % pairs),
                        "app": {"kind": "bulk"}})
        })
        .collect();
    doc
}

/// B5's scenario: a k = 16 fat tree (1,024 hosts, 10 Gbps links, 1 µs, 100-packet queues)
/// with permutation traffic of SACK flows, for `seconds` (another even `k` for a smaller or
/// larger fabric: k³/4 hosts).
fn b5(seconds: f64, k: u32) -> serde_json::Value {
    json!({
        "name": "B5", "duration": format!("{seconds}s"), "seed": 1,
        "tcp": sack_tcp("1ms"),
        "topology": {"kind": "fat_tree", "k": k,
                     "host_link": {"rate": "10Gbps", "delay": "1us", "queue": 100}},
        "traffic": {"pattern": "permutation", "app": {"kind": "bulk"}},
    })
}

/// One benchmark run timed stage by stage.
struct Stages {
    parse: f64,
    build: f64,
    run: f64,
    collect: f64,
    /// The summary's JSON text, as the Python front end gets it.
    text: f64,
    packets: u64,
    hops: u64,
    events: u64,
    /// Flows that delivered any data.
    with_data: usize,
}

impl Stages {
    /// The run's time, data packets, packet-hops and events, per packet and per hop.
    fn traffic(&self) -> String {
        format!(
            "run {:.3} s, {} data packets ({:.0} ns/packet), {} packet-hops ({:.0} ns/packet-hop), {:.2} events/packet",
            self.run,
            self.packets,
            self.run / self.packets as f64 * 1e9,
            self.hops,
            self.run / self.hops as f64 * 1e9,
            self.events as f64 / self.packets as f64,
        )
    }
}

/// The summary's JSON text (kept out of line so that a profile can single it out).
#[inline(never)]
fn summary_text(result: &transim_core::results::RunResult) -> String {
    result.to_json_text().expect("a summary serialises")
}

fn staged(value: serde_json::Value) -> Stages {
    let out = transim_core::run_value(value).expect("benchmark runs");
    let t = out.stages;
    let t0 = std::time::Instant::now();
    let text = summary_text(&out.result);
    let text_time = t0.elapsed().as_secs_f64();
    drop(text);
    Stages {
        parse: t.parse,
        build: t.build,
        run: t.run,
        collect: t.collect,
        text: text_time,
        packets: out
            .result
            .flows
            .iter()
            .map(|f| f.detail.tcp().data_packets_delivered)
            .sum(),
        hops: out.result.links.iter().map(|l| l.packets_in).sum(),
        events: out.result.events,
        with_data: out
            .result
            .flows
            .iter()
            .filter(|f| f.detail.tcp().data_packets_delivered > 0)
            .count(),
    }
}

/// B5 stage by stage: `cargo bench -p transim-core --bench engine -- b5 [seconds [k]]`
/// (default 0.02 s simulated, k = 16).
fn fat_tree_permutation(seconds: f64, k: u32) {
    let s = staged(b5(seconds, k));
    println!(
        "B5 fat tree k={k}, {} hosts: build {:.3} s, {}",
        k * k * k / 4,
        s.parse + s.build,
        s.traffic()
    );
}

/// Flow scaling, stage by stage: `cargo bench -p transim-core --bench engine -- b4 1 1000`
/// (`b4active …` for B4 with every flow carrying data).
fn flow_scaling(counts: &[usize], active: bool) {
    for &n in counts {
        let s = staged(if active {
            b4_every_flow_active(n, 1_000_000)
        } else {
            b4(n, 1_000_000)
        });
        println!(
            "B4{} {n:>6} flows ({:>6} with data): parse {:.3} s, build {:.3} s, run {:.3} s ({:.0} ns/packet, {:.2} events/packet), results {:.3} s, text {:.3} s, {} packets",
            if active { " active" } else { "" },
            s.with_data,
            s.parse,
            s.build,
            s.run,
            s.run / s.packets as f64 * 1e9,
            s.events as f64 / s.packets as f64,
            s.collect,
            s.text,
            s.packets,
        );
    }
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../benches");
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if filter.first().is_some_and(|f| f.eq_ignore_ascii_case("b5")) {
        let seconds = filter.get(1).and_then(|a| a.parse().ok()).unwrap_or(0.02);
        fat_tree_permutation(
            seconds,
            filter.get(2).and_then(|a| a.parse().ok()).unwrap_or(16),
        );
        return;
    }
    // B5's fabric carrying one flow, from the first host to the last (across the core):
    // `cargo bench -p transim-core --bench engine -- b5one [seconds [k]]` (default 0.1 s,
    // k = 4). What a hop costs on the fabric without other flows' packets between.
    if filter
        .first()
        .is_some_and(|f| f.eq_ignore_ascii_case("b5one"))
    {
        let seconds: f64 = filter.get(1).and_then(|a| a.parse().ok()).unwrap_or(0.1);
        let k: u32 = filter.get(2).and_then(|a| a.parse().ok()).unwrap_or(4);
        let mut doc = b5(seconds, k);
        doc.as_object_mut().expect("an object").remove("traffic");
        let last = k * k * k / 4 - 1;
        doc["flows"] = json!([{"src": "h0", "dst": format!("h{last}"), "app": {"kind": "bulk"}}]);
        let s = staged(doc);
        println!("B5 fabric k={k}, one flow h0 -> h{last}: {}", s.traffic());
        return;
    }
    // Parse, build, run and results timed apart: `cargo bench -p transim-core --bench engine
    // -- stages b1 b2 b3`.
    if filter
        .first()
        .is_some_and(|f| f.eq_ignore_ascii_case("stages"))
    {
        for name in &filter[1..] {
            let text = std::fs::read_to_string(dir.join(format!("{}.toml", name.to_lowercase())))
                .expect("benchmark file");
            let doc: toml::Value = toml::from_str(&text).expect("valid TOML");
            let s = staged(serde_json::to_value(doc).expect("TOML to JSON"));
            println!(
                "{name}: parse {:.6} s, build {:.6} s, run {:.6} s ({:.0} ns/packet, {:.0} ns/packet-hop), results {:.6} s",
                s.parse,
                s.build,
                s.run,
                s.run / s.packets as f64 * 1e9,
                s.run / s.hops as f64 * 1e9,
                s.collect,
            );
        }
        return;
    }
    // B4's flows over fewer host pairs: `cargo bench -p transim-core --bench engine --
    // b4pairs 10000 1 100 1000 10000` (flows, then host-pair counts).
    if filter
        .first()
        .is_some_and(|f| f.eq_ignore_ascii_case("b4pairs"))
    {
        let n: usize = filter.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
        for pairs in filter[2..].iter().filter_map(|a| a.parse::<usize>().ok()) {
            let s = staged(b4_on_pairs(n, pairs.clamp(1, n), 1_000_000));
            println!(
                "B4 {n} flows on {pairs:>6} host pairs: run {:.3} s ({:.0} ns/packet, {:.2} events/packet), {} packets",
                s.run,
                s.run / s.packets as f64 * 1e9,
                s.events as f64 / s.packets as f64,
                s.packets,
            );
        }
        return;
    }
    let b4_mode = filter.first().map(|f| f.to_ascii_lowercase());
    if let Some(mode @ ("b4" | "b4active")) = b4_mode.as_deref() {
        let counts: Vec<usize> = filter[1..].iter().filter_map(|a| a.parse().ok()).collect();
        let default = [1, 10, 100, 1_000, 10_000, 100_000];
        flow_scaling(
            if counts.is_empty() { &default } else { &counts },
            mode == "b4active",
        );
        return;
    }
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

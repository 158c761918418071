//! Router hops without an event of their own (a link that only one link feeds takes the
//! packet when it leaves the link before): the same results as with every hop an event,
//! exactly as many fewer events as such hops, and a stop by the watcher that lands where
//! every packet handed on has joined its next link.

mod common;
use common::packets_in;

use serde_json::{json, Value};
use std::path::PathBuf;
use transim_core::results::RunOutput;
use transim_core::sim::Time;

/// Build and run `v` with hops passing through (`pass`) or every hop an event, stopped by
/// `watch`.
fn run_with(v: &Value, pass: bool, watch: &mut dyn FnMut(Time, u64) -> bool) -> RunOutput {
    let sc = transim_core::scenario::parse(v.clone()).unwrap();
    let mut sim = transim_core::scenario::build(&sc).unwrap();
    sim.set_pass_through(pass);
    let cons = sim.run_watched(watch).unwrap();
    transim_core::results::collect(sim, "pass-through".into(), sc.seed, cons)
}

fn run(v: &Value, pass: bool) -> RunOutput {
    run_with(v, pass, &mut |_, _| true)
}

/// The summary as JSON, without the event count (which is what differs).
fn summary(o: &RunOutput) -> Value {
    let mut j = serde_json::to_value(&o.result).unwrap();
    j.as_object_mut().unwrap().remove("events");
    j
}

fn scenario_file(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let doc: toml::Value = toml::from_str(&text).unwrap();
    serde_json::to_value(doc).unwrap()
}

/// Every scenario file the engine runs as it is gives the same summary with hops passing
/// through as with every hop an event. Those with routers between the ends need fewer
/// events, if they are small networks (at most 64 link directions and flows: in larger
/// ones every hop keeps its event). `fat-tree` is left out: its 16 flows start together on
/// links of one rate, so arrivals tie to the nanosecond, and ties may break the other way.
#[test]
fn scenario_files_give_the_same_results_with_fewer_events() {
    // (file, whether some hop has a single feeder)
    let files = [
        ("asymmetric-access.toml", true),
        ("cc-comparison.toml", true),
        ("datacenter-fct.toml", false),
        ("dumbbell.toml", true),
        ("forced-drops.toml", true),
        ("incast.toml", false),
        ("linux-slowstart.toml", true),
        ("slow-start-exits.toml", true),
        ("many-flows.toml", false),
        ("reordering.toml", false),
        ("slow-reader.toml", true),
        ("wireless-gilbert.toml", false),
        ("studies/adaptive/path.toml", true),
        ("studies/ful/multi-split.toml", true),
        ("studies/ful/single-flow.toml", true),
        ("studies/sackplus/fairness.toml", true),
        ("studies/sackplus/forced-drop.toml", false),
        ("studies/sackplus/gilbert-loss.toml", false),
        ("studies/sackplus/random-loss.toml", false),
        ("studies/sctp/multihomed.toml", true),
        ("studies/sctp/testbed.toml", true),
        ("studies/atm/bottleneck.toml", false),
    ];
    for (name, fewer) in files {
        let v = scenario_file(name);
        let (on, off) = (run(&v, true), run(&v, false));
        assert_eq!(summary(&on), summary(&off), "{name}");
        let (e_on, e_off) = (on.result.events, off.result.events);
        if fewer {
            assert!(e_on < e_off, "{name}: {e_on} events, {e_off} without");
        } else {
            assert_eq!(e_on, e_off, "{name}");
        }
    }
}

/// Two flows that share the link between two routers, S1 → D1 and S2 → D2 across
/// R1 – R2: the shared link (R1→R2, and R2→R1 for the ACKs) is fed by two links and keeps
/// its events; each link after it has it as its only feeder. So the events saved are
/// exactly the packets R2→D1, R2→D2, R1→S1 and R1→S2 took (the shared link's drops
/// change nothing there).
#[test]
fn a_shared_link_keeps_its_events_and_the_links_after_it_do_not() {
    let link =
        |between: [&str; 2], rate: &str| json!({"between": between, "rate": rate, "delay": "2ms"});
    let v = json!({
        "duration": "3s",
        "topology": {"kind": "explicit",
            "nodes": ["S1", "S2", "R1", "R2", "D1", "D2"], "links": [
            link(["S1", "R1"], "100Mbps"),
            link(["S2", "R1"], "100Mbps"),
            {"between": ["R1", "R2"], "rate": "20Mbps", "delay": "2ms", "queue": 50},
            link(["R2", "D1"], "100Mbps"),
            link(["R2", "D2"], "100Mbps")]},
        "flows": [{"src": "S1", "dst": "D1"}, {"src": "S2", "dst": "D2", "start": "0.1s"}]
    });
    let (on, off) = (run(&v, true), run(&v, false));
    assert_eq!(summary(&on), summary(&off));
    let taken = |name: &str| packets_in(&on, name);
    let hops = taken("R2->D1") + taken("R2->D2") + taken("R1->S1") + taken("R1->S2");
    assert!(taken("R2->D2") > 1000 && taken("R1->S2") > 500);
    // The shared link drops some, and the links after it none.
    let queue_drops = |name: &str| {
        let l = on.result.links.iter().find(|l| l.name == name).unwrap();
        l.drops.values().sum::<u64>()
    };
    assert!(queue_drops("R1->R2") > 0);
    let after: u64 = ["R2->D1", "R2->D2", "R1->S1", "R1->S2"]
        .iter()
        .map(|n| queue_drops(n))
        .sum();
    assert_eq!(after, 0);
    assert_eq!(off.result.events - on.result.events, hops);
}

/// One flow across two routers, A – R1 – R2 – B, with room for every packet: each packet
/// that reaches R1 or R2 joins its next link there, and every next link but the first of
/// each direction has the link before it as its only feeder. So the events saved are
/// exactly the packets those links took: R1→R2 and R2→B (data), R2→R1 and R1→A (ACKs).
#[test]
fn the_events_saved_are_the_hops_onto_links_with_one_feeder() {
    let link = |between: [&str; 2], rate: &str| json!({"between": between, "rate": rate, "delay": "5ms", "queue": 10000});
    let v = json!({
        "duration": "3s",
        "topology": {"kind": "explicit", "nodes": ["A", "R1", "R2", "B"], "links": [
            link(["A", "R1"], "100Mbps"),
            link(["R1", "R2"], "10Mbps"),
            link(["R2", "B"], "100Mbps")]},
        "flows": [{"src": "A", "dst": "B"}]
    });
    let (on, off) = (run(&v, true), run(&v, false));
    assert_eq!(summary(&on), summary(&off));
    let taken = |name: &str| packets_in(&on, name);
    let hops = taken("R1->R2") + taken("R2->B") + taken("R2->R1") + taken("R1->A");
    assert!(hops > 1000, "the flow moved {hops} packets");
    assert_eq!(off.result.events - on.result.events, hops);
    let drops: u64 = on.result.links.iter().flat_map(|l| l.drops.values()).sum();
    assert_eq!(drops, 0);
}

/// With losses on the link a hop passes onto (a 10-packet queue behind a 10× faster
/// link), the drops are the same, and are told to the sender at the same moments: the
/// recoveries and timeouts that follow come out the same.
#[test]
fn drops_on_the_next_link_come_out_the_same() {
    let v = json!({
        "duration": "5s",
        "tcp": {"recovery": "sack1"},
        "topology": {"kind": "explicit", "nodes": ["A", "R1", "R2", "B"], "links": [
            {"between": ["A", "R1"], "rate": "100Mbps", "delay": "1ms"},
            {"between": ["R1", "R2"], "rate": "10Mbps", "delay": "10ms", "queue": 10},
            {"between": ["R2", "B"], "rate": "100Mbps", "delay": "1ms"}]},
        "flows": [{"src": "A", "dst": "B"}]
    });
    let (on, off) = (run(&v, true), run(&v, false));
    let queue_drops = |o: &RunOutput| {
        let l = o.result.links.iter().find(|l| l.name == "R1->R2").unwrap();
        l.drops.get("queue").unwrap_or(0)
    };
    assert!(queue_drops(&on) > 10, "{} drops", queue_drops(&on));
    assert_eq!(summary(&on), summary(&off));
    assert!(on.result.events < off.result.events);
}

/// A watcher that stops the run: with packets handed on to a later moment, the run goes
/// on to the latest of those moments, handing on no more, and stops there. Its books are
/// then those of a run with every hop an event that ends at that moment.
#[test]
fn a_stopped_run_ends_where_every_packet_handed_on_has_joined_its_link() {
    let v = json!({
        "duration": "10s",
        "topology": {"kind": "explicit", "nodes": ["A", "R1", "R2", "B"], "links": [
            {"between": ["A", "R1"], "rate": "1Gbps", "delay": "2ms"},
            {"between": ["R1", "R2"], "rate": "100Mbps", "delay": "20ms", "queue": 100},
            {"between": ["R2", "B"], "rate": "1Gbps", "delay": "2ms"}]},
        "flows": [{"src": "A", "dst": "B"}]
    });
    let mut asked_at = None;
    let on = run_with(&v, true, &mut |t, _| {
        if t >= 1_000_000_000 {
            asked_at.get_or_insert(t);
            return false;
        }
        true
    });
    let asked_at = asked_at.expect("the run is long enough to be stopped") as f64 / 1e9;
    let stopped = on.result.stopped_at.expect("the run was stopped");
    assert!(stopped > asked_at && stopped < asked_at + 0.1);
    let mut to_then = v.clone();
    to_then["duration"] = json!(format!("{}ns", (stopped * 1e9).round() as u64));
    let off = run(&to_then, false);
    assert_eq!(off.result.stopped_at, None);
    let books = |o: &RunOutput| {
        let flows: Vec<_> = o
            .result
            .flows
            .iter()
            .map(|f| (f.packets_sent, f.packets_delivered))
            .collect();
        let links: Vec<_> = o
            .result
            .links
            .iter()
            .map(|l| (l.packets_in, l.packets_out, l.drops.values().sum::<u64>()))
            .collect();
        (flows, links, o.result.conservation)
    };
    assert_eq!(books(&on), books(&off));
}

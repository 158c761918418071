//! Bad scenarios give one clear error naming the field path, the value and what is allowed.

use serde_json::{json, Value};
use transim_core::ScenarioError;

fn base() -> Value {
    json!({
        "duration": "10s",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
        "flows": [{"app": {"kind": "bulk"}}]
    })
}

fn err_of(v: Value) -> ScenarioError {
    transim_core::validate_value(v).expect_err("scenario should be rejected")
}

fn with(edit: impl FnOnce(&mut Value)) -> ScenarioError {
    let mut v = base();
    edit(&mut v);
    err_of(v)
}

fn check(e: &ScenarioError, path: &str, needles: &[&str]) {
    assert_eq!(e.path, path, "{e}");
    for n in needles {
        assert!(e.message.contains(n), "{e:?} should mention {n:?}");
    }
}

#[test]
fn the_base_scenario_is_valid() {
    transim_core::validate_value(base()).unwrap();
}

#[test]
fn unknown_keys_are_named() {
    let e = with(|v| v["durration"] = json!("5s"));
    check(&e, "durration", &["unknown field `durration`", "duration"]);
    let e = with(|v| v["topology"]["bottleneck"]["rat"] = json!("1Mbps"));
    check(
        &e,
        "topology.bottleneck.rat",
        &["unknown field `rat`", "rate"],
    );
    let e = with(|v| v["flows"][0]["app"]["byts"] = json!(5));
    check(&e, "flows[0].app.byts", &["unknown field `byts`"]);
}

#[test]
fn wrong_types() {
    let e = with(|v| v["seed"] = json!("abc"));
    check(&e, "seed", &["invalid type", "\"abc\""]);
    let e = with(|v| v["tcp"] = json!({"timestamps": "yes"}));
    check(&e, "tcp.timestamps", &["invalid type", "boolean"]);
}

/// A number of the wrong kind is told what the field takes in words, not as a Rust type.
#[test]
fn numbers_out_of_a_fields_range_are_told_what_it_takes() {
    let e = with(|v| v["seed"] = json!(-1));
    check(&e, "seed", &["`-1`", "expected a whole number, 0 or more"]);
    let fat_tree = |k: Value| {
        with(|v| {
            v["topology"] = json!({
                "kind": "fat_tree", "k": k,
                "host_link": {"rate": "10Gbps", "delay": "1us"}
            });
            v.as_object_mut().unwrap().remove("flows");
            v["traffic"] = json!({"pattern": "permutation", "app": {"kind": "bulk"}});
        })
    };
    for (k, shown) in [(json!(-2), "`-2`"), (json!(2.5), "`2.5`")] {
        let e = fat_tree(k);
        check(
            &e,
            "topology.k",
            &[shown, "expected a whole number from 0 to 4,294,967,295"],
        );
        assert!(!e.message.contains("u32"), "{e}");
    }
    assert!(!with(|v| v["seed"] = json!("abc")).message.contains("u64"));
}

#[test]
fn impossible_values() {
    let e = with(|v| v["topology"]["bottleneck"]["delay"] = json!("-5ms"));
    check(
        &e,
        "topology.bottleneck.delay",
        &["\"-5ms\"", "non-negative duration"],
    );
    let e = with(|v| v["topology"]["bottleneck"]["rate"] = json!("0Mbps"));
    check(
        &e,
        "topology.bottleneck.rate",
        &["\"0Mbps\"", "positive rate"],
    );
    let e = with(|v| {
        v["topology"]["bottleneck"]["forward"] =
            json!({"loss": {"model": "bernoulli", "p": "150%"}})
    });
    check(
        &e,
        "topology.bottleneck.forward.loss.p",
        &["\"150%\"", "between 0 and 1"],
    );
    let e = with(|v| v["tcp"] = json!({"mss": 1500}));
    check(&e, "tcp.mss", &["1500", "MTU 1500", "1460"]);
    let e = with(|v| v["tcp"] = json!({"mss": 1460, "timestamps": true}));
    check(&e, "tcp.mss", &["1448", "timestamp"]);
    let e = with(|v| v["topology"]["bottleneck"]["queue"] = json!(0));
    check(
        &e,
        "topology.bottleneck.queue",
        &["got 0", "at least one packet"],
    );
    let e = with(|v| v["duration"] = json!("0s"));
    check(&e, "duration", &["positive"]);
    let e = with(|v| v["flows"][0]["tcp"] = json!({"initial_window": 0}));
    check(&e, "flows[0].tcp.initial_window", &["got 0", "rfc3390"]);
}

#[test]
fn unknown_names_list_the_choices() {
    let e = with(|v| v["tcp"] = json!({"cc": "foo"}));
    check(&e, "tcp.cc", &["\"foo\"", "\"reno\""]);
    let e = with(|v| v["tcp"] = json!({"recovery": "sack9"}));
    check(&e, "tcp.recovery", &["sack9", "newreno"]);
    let e = with(|v| v["tcp"] = json!({"profile": "bsd"}));
    check(&e, "tcp.profile", &["bsd", "linux-2.6"]);
    let e = with(|v| v["topology"]["kind"] = json!("ring"));
    check(&e, "topology.kind", &["ring", "dumbbell", "explicit"]);
}

#[test]
fn missing_and_misplaced_fields() {
    let e = err_of(json!({"topology": base()["topology"], "flows": base()["flows"]}));
    check(&e, "duration", &["missing field `duration`"]);
    let e =
        with(|v| v["topology"]["bottleneck"]["forward"] = json!({"loss": {"model": "bernoulli"}}));
    check(
        &e,
        "topology.bottleneck.forward.loss.p",
        &["required", "bernoulli"],
    );
    let e = with(|v| {
        v["topology"]["bottleneck"]["forward"] =
            json!({"loss": {"model": "bernoulli", "p": 0.1, "q": 0.2}})
    });
    check(
        &e,
        "topology.bottleneck.forward.loss.q",
        &["not a parameter"],
    );
    let e = with(|v| v["flows"] = json!([]));
    check(&e, "flows", &["at least one flow"]);
    let e = with(|v| v["flows"][0]["src"] = json!("x"));
    check(&e, "flows[0].src", &["not allowed", "dumbbell"]);
    let e = with(|v| v["flows"][0]["app"] = json!({"kind": "finite"}));
    check(&e, "flows[0].app.bytes", &["required"]);
}

#[test]
fn explicit_topology_references() {
    let explicit = |links: Value, flows: Value| json!({"duration": "1s", "topology": {"kind": "explicit", "nodes": ["a", "b", "c"], "links": links}, "flows": flows});
    let e = err_of(explicit(
        json!([{"between": ["a", "z"], "rate": "1Mbps"}]),
        json!([{"src": "a", "dst": "b"}]),
    ));
    check(
        &e,
        "topology.links[0].between[1]",
        &["\"z\"", "\"a\", \"b\", \"c\""],
    );
    let e = err_of(explicit(
        json!([{"between": ["a", "b"], "rate": "1Mbps"}]),
        json!([{"src": "a", "dst": "c"}]),
    ));
    check(&e, "flows[0]", &["no route", "\"a\"", "\"c\""]);
    let e = err_of(explicit(
        json!([{"between": ["a", "b"], "rate": "1Mbps", "forward": {"drops": {"segments": [{"flow": 3, "segment": 1}]}}}]),
        json!([{"src": "a", "dst": "b"}]),
    ));
    check(
        &e,
        "topology.links[0].forward.drops.segments[0].flow",
        &["got 3", "below 1"],
    );
}

#[test]
fn errors_display_path_then_message() {
    let e = with(|v| v["topology"]["bottleneck"]["rate"] = json!("fast"));
    assert!(
        e.to_string()
            .starts_with("topology.bottleneck.rate: got \"fast\"; expected"),
        "{e}"
    );
}

/// Numbers the engine cannot represent are refused with the field named, instead of
/// wrapping or saturating (shared/repro: a 1e-12 bps bottleneck, mss 1e30, overhead 2^32).
#[test]
fn out_of_range_numbers_are_named() {
    let e = with(|v| v["topology"]["bottleneck"]["rate"] = json!("1e-12bps"));
    check(&e, "topology.bottleneck.rate", &["1 bit/s"]);
    let e = with(|v| v["topology"]["bottleneck"]["rate"] = json!(1e16));
    check(&e, "topology.bottleneck.rate", &["1000 Tbit/s"]);
    let e = with(|v| v["tcp"] = json!({"mss": 1e30}));
    check(&e, "tcp.mss", &["2^53"]);
    let e = with(|v| {
        v["flows"][0]["app"] = json!({"kind": "finite", "bytes": 18446744073709551615u64})
    });
    check(&e, "flows[0].app.bytes", &["2^53"]);
    let e = with(|v| v["topology"]["bottleneck"]["overhead"] = json!(4294967296u64));
    check(&e, "topology.bottleneck.overhead", &["65535"]);
    let e = with(|v| v["topology"]["bottleneck"]["forward"] = json!({"overhead": 70000}));
    check(&e, "topology.bottleneck.forward.overhead", &["65535"]);
}

/// Found by the fuzz suite: a missing field had an empty path (the message named it).
#[test]
fn missing_fields_are_named_by_their_own_path() {
    let e = with(|v| {
        v.as_object_mut().unwrap().remove("duration");
    });
    check(&e, "duration", &["missing field `duration`"]);
    let e = with(|v| {
        v["topology"]["bottleneck"]
            .as_object_mut()
            .unwrap()
            .remove("rate");
    });
    check(&e, "topology.bottleneck.rate", &["missing field `rate`"]);
}

#[test]
fn the_duration_alone_is_read_and_checked_as_in_the_whole_scenario() {
    use transim_core::scenario::build::duration;
    let mut v = base();
    v["duration"] = json!("12.5s");
    // Fields the full parse would refuse are not read.
    v["flows"] = json!("not a list");
    assert_eq!(duration(&v.to_string()).unwrap().0, 12_500_000_000);
    assert_eq!(duration(r#"{"duration": 0.25}"#).unwrap().0, 250_000_000);
    let e = duration(r#"{"flows": []}"#).unwrap_err();
    check(&e, "duration", &["missing field `duration`"]);
    for bad in [json!("ten seconds"), json!(-1), json!([1])] {
        let whole = with(|v| v["duration"] = bad.clone());
        let alone = duration(&json!({ "duration": bad }).to_string()).unwrap_err();
        check(&alone, "duration", &[]);
        assert_eq!(alone.message, whole.message, "{bad}");
    }
    assert!(duration("[1, 2]").is_err());
}

#[test]
fn a_name_not_in_a_large_network_is_refused_with_a_few_of_those_there_are() {
    let nodes: Vec<String> = (0..30).map(|i| format!("n{i}")).collect();
    let links: Vec<Value> = (1..30)
        .map(|i| json!({"between": ["n0", format!("n{i}")], "rate": "1Gbps", "delay": "1ms"}))
        .collect();
    let explicit = |src: &str| {
        json!({
            "duration": "1s",
            "topology": {"kind": "explicit", "nodes": nodes, "links": links},
            "flows": [{"src": src, "dst": "n2", "app": {"kind": "bulk"}}]
        })
    };
    transim_core::validate_value(explicit("n1")).unwrap();
    let e = err_of(explicit("n99"));
    let first_ten = (0..10).map(|i| format!("\"n{i}\"")).collect::<Vec<_>>();
    let want = format!(
        "got \"n99\"; expected one of the nodes {} and 20 more",
        first_ten.join(", ")
    );
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("flows[0].src", want.as_str())
    );
    // Packet captures of a link direction that is not there: a few of the 58 named.
    let mut v = explicit("n1");
    v["trace"] = json!({"pcap": {"dir": "caps", "links": ["n0->n1", "n7->n8"]}});
    let e = err_of(v);
    check(
        &e,
        "trace.pcap.links[1]",
        &["got \"n7->n8\"", "\"n0->n1\", \"n1->n0\"", " and 48 more"],
    );
    assert!(!e.message.contains("n0->n29"), "{e}");
}

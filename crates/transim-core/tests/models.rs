//! Statistical and invariant checks: loss models against their closed forms, Reno throughput
//! against the Mathis trend, determinism, and packet conservation.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::net::loss::{gilbert_elliott_stats, LossModel};
use transim_core::sim::rng::Rng;

/// Loss rate and mean loss-run length of `n` draws.
fn draw(model: &mut LossModel, n: usize, seed: u64) -> (f64, f64) {
    let mut rng = Rng::stream(seed, "test");
    let (mut lost, mut runs, mut prev) = (0usize, 0usize, false);
    for _ in 0..n {
        let l = model.lose(&mut rng);
        lost += l as usize;
        runs += (l && !prev) as usize;
        prev = l;
    }
    (lost as f64 / n as f64, lost as f64 / runs.max(1) as f64)
}

#[test]
fn bernoulli_rate_within_binomial_bounds() {
    for &p in &[0.001, 0.01, 0.1] {
        let n = 1_000_000;
        let (rate, burst) = draw(&mut LossModel::Bernoulli { p }, n, 42);
        let sd = (p * (1.0 - p) / n as f64).sqrt();
        assert!(
            (rate - p).abs() < 5.0 * sd,
            "p={p}: measured {rate}, 5σ = {}",
            5.0 * sd
        );
        // Runs of independent losses are geometric with mean 1/(1−p).
        assert!(
            (burst - 1.0 / (1.0 - p)).abs() < 0.02,
            "p={p}: burst {burst}"
        );
    }
}

#[test]
fn gilbert_elliott_rate_and_burst_match_closed_forms() {
    // (p_gb, p_bg, loss_good, loss_bad): simple Gilbert, and a general GE chain.
    for &(p_gb, p_bg, lg, lb) in &[
        (0.01, 0.25, 0.0, 1.0),
        (0.002, 0.1, 0.0, 1.0),
        (0.05, 0.3, 0.01, 0.7),
    ] {
        let n = 2_000_000;
        let want = gilbert_elliott_stats(p_gb, p_bg, lg, lb);
        let mut m = LossModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good: lg,
            loss_bad: lb,
            bad: false,
        };
        let (rate, burst) = draw(&mut m, n, 7);
        // Correlated draws: allow 5 % relative error on the rate and the burst length.
        assert!(
            (rate / want.loss_rate - 1.0).abs() < 0.05,
            "{p_gb},{p_bg}: rate {rate} vs {}",
            want.loss_rate
        );
        assert!(
            (burst / want.mean_burst - 1.0).abs() < 0.05,
            "{p_gb},{p_bg}: burst {burst} vs {}",
            want.mean_burst
        );
    }
    // Simple Gilbert: burst = 1/q exactly in closed form.
    assert!((gilbert_elliott_stats(0.01, 0.25, 0.0, 1.0).mean_burst - 4.0).abs() < 1e-9);
}

fn mathis_path(p: f64, one_way_ms: u64, seed: u64) -> Value {
    json!({
        "duration": "400s",
        "seed": seed,
        "tcp": {"profile": "rfc", "mss": 1460, "delayed_ack": "off", "rcv_buf": "16MiB",
                "recovery": "newreno", "rto_min": "200ms"},
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "1Gbps", "delay": format!("{one_way_ms}ms"), "queue": 10000,
                       "forward": {"loss": {"model": "bernoulli", "p": p}}}]},
        "flows": [{"src": "A", "dst": "B", "app": {"kind": "bulk"}}]
    })
}

/// Reno/NewReno throughput on a lossy, uncongested path follows Mathis et al.:
/// B ≈ (MSS/RTT)·√(3/2)/√p. Checked as a trend over p and over RTT: each point within
/// ±35 % of the formula (timeouts pull heavy-loss points down), and the fitted exponent of p
/// close to −1/2.
#[test]
fn reno_throughput_follows_the_mathis_trend() {
    let ps = [0.001, 0.003, 0.01, 0.02];
    let mut logs = vec![];
    for (i, &p) in ps.iter().enumerate() {
        let out = run(mathis_path(p, 50, 10 + i as u64));
        let f = out.result.flows[0].detail.tcp();
        let rtt = 0.1;
        let model = 1460.0 * 8.0 / rtt * (1.5f64).sqrt() / p.sqrt();
        let ratio = f.goodput_bps / model;
        println!(
            "p={p}: goodput {:.0} bps, Mathis {model:.0}, ratio {ratio:.2}",
            f.goodput_bps
        );
        assert!((0.65..1.35).contains(&ratio), "p={p}: ratio {ratio}");
        logs.push((p.ln(), f.goodput_bps.ln()));
    }
    let n = logs.len() as f64;
    let (mx, my) = (
        logs.iter().map(|l| l.0).sum::<f64>() / n,
        logs.iter().map(|l| l.1).sum::<f64>() / n,
    );
    let slope = logs.iter().map(|l| (l.0 - mx) * (l.1 - my)).sum::<f64>()
        / logs.iter().map(|l| (l.0 - mx).powi(2)).sum::<f64>();
    assert!((-0.65..-0.4).contains(&slope), "exponent of p: {slope}");
    // 1/RTT: quadrupling the RTT at 1 % loss divides throughput by about four.
    let short = run(mathis_path(0.01, 25, 3)).result.flows[0]
        .detail
        .tcp()
        .goodput_bps;
    let long = run(mathis_path(0.01, 100, 3)).result.flows[0]
        .detail
        .tcp()
        .goodput_bps;
    let r = short / long;
    assert!(
        (3.0..5.3).contains(&r),
        "RTT ratio 4 gives throughput ratio {r}"
    );
}

fn lossy_dumbbell(seed: u64) -> Value {
    json!({
        "duration": "20s", "seed": seed,
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 20,
                "forward": {"loss": {"model": "gilbert_elliott", "p_gb": 0.01, "p_bg": 0.3, "loss_bad": 0.5}},
                "reverse": {"loss": {"model": "bernoulli", "p": "1%"}}}},
        "flows": [{"app": {"kind": "bulk"}}, {"app": {"kind": "bulk"}, "start": "1s"},
                  {"app": {"kind": "finite", "bytes": "300KB"}, "start": "2s", "tcp": {"profile": "linux-2.6"}}],
        "trace": {"flows": true, "packets": true}
    })
}

#[test]
fn same_seed_same_bytes_different_seed_different_losses() {
    let a = run(lossy_dumbbell(5));
    let b = run(lossy_dumbbell(5));
    let c = run(lossy_dumbbell(6));
    let ja = serde_json::to_string(&a.result).unwrap();
    assert_eq!(ja, serde_json::to_string(&b.result).unwrap());
    assert_eq!(
        a.packet_trace.as_ref().unwrap().t,
        b.packet_trace.as_ref().unwrap().t
    );
    assert_eq!(
        a.flow_traces[0].as_ref().unwrap().tcp().cwnd,
        b.flow_traces[0].as_ref().unwrap().tcp().cwnd
    );
    assert_ne!(ja, serde_json::to_string(&c.result).unwrap());
}

/// Every random process has its own stream: adding a flow on another lossy path leaves the
/// first path's losses (and so its whole result) unchanged. With one shared generator the
/// second flow's draws would interleave and change them.
#[test]
fn random_streams_are_per_process() {
    let lossy = json!({"loss": {"model": "bernoulli", "p": "2%"}});
    let mk = |two: bool| {
        let mut flows = vec![json!({"src": "A", "dst": "B", "app": {"kind": "bulk"}})];
        if two {
            flows.push(json!({"src": "C", "dst": "D", "app": {"kind": "bulk"}}));
        }
        json!({"duration": "20s", "seed": 4,
            "topology": {"kind": "explicit", "nodes": ["A", "B", "C", "D"],
                "links": [{"between": ["A", "B"], "rate": "10Mbps", "delay": "20ms", "forward": lossy},
                          {"between": ["C", "D"], "rate": "10Mbps", "delay": "20ms", "forward": lossy}]},
            "flows": flows})
    };
    let one = run(mk(false));
    let two = run(mk(true));
    assert!(two.result.flows[1].data_drops["loss_model"] > 0);
    assert_eq!(
        serde_json::to_string(&one.result.flows[0]).unwrap(),
        serde_json::to_string(&two.result.flows[0]).unwrap()
    );
}

#[test]
fn every_packet_is_accounted_for() {
    let out = run(lossy_dumbbell(11));
    let c = out.result.conservation;
    assert_eq!(c.sent, c.delivered + c.dropped + c.in_flight);
    assert!(
        c.dropped > 50,
        "the scenario must actually drop packets: {c:?}"
    );
    let by_flows: u64 = out.result.flows.iter().map(|f| f.packets_sent).sum();
    assert_eq!(by_flows, c.sent);
    // Per link: offered = delivered + dropped + still inside.
    let link_drops: u64 = out
        .result
        .links
        .iter()
        .map(|l| l.drops.values().sum::<u64>())
        .sum();
    assert_eq!(link_drops, c.dropped);
    for l in &out.result.links {
        let inside = l.packets_in - l.packets_out - l.drops.values().sum::<u64>();
        assert!(inside < 1000, "{}: {inside}", l.name);
    }
    // What leaves the last link to each host is what that host's endpoint took in: a
    // flow's deliveries are its receiver's data and its sender's ACKs.
    let out_of = |name: String| {
        let l = out.result.links.iter().find(|l| l.name == name);
        l.unwrap_or_else(|| panic!("no link {name}")).packets_out
    };
    for (i, f) in out.result.flows.iter().enumerate() {
        let to_hosts = out_of(format!("r2->d{i}")) + out_of(format!("r1->s{i}"));
        assert_eq!(to_hosts, f.packets_delivered, "{}", f.name);
        assert!(f.packets_delivered > 100, "{}", f.name);
    }
    // The finite flow completed and delivered exactly its bytes.
    let fin = out.result.flows[2].detail.tcp();
    assert_eq!(fin.bytes_delivered, 300_000);
    assert!(fin.completion_time.is_some());
}

/// The measured loss of a Bernoulli link direction stays within binomial bounds.
#[test]
fn link_loss_rate_measured_in_a_run() {
    let out = run(mathis_path(0.01, 10, 77));
    let l = &out.result.links[0];
    let n = (l.packets_in - l.drops["queue"]) as f64;
    let sd = (0.01 * 0.99 / n).sqrt();
    assert!(
        (l.loss_rate_measured - 0.01).abs() < 5.0 * sd,
        "{} over {n} packets",
        l.loss_rate_measured
    );
}

/// shared/repro/throughput-gt-capacity.toml: a 1461-byte transfer over 64 kbps with a 1 ms
/// minimum RTO retransmits needlessly; duplicates that arrive after the transfer completed
/// used to be counted over the completion time (74.8 kb/s on a 64 kb/s link).
#[test]
fn throughput_never_exceeds_the_bottleneck() {
    let v = serde_json::json!({
        "name": "thr", "duration": "3s",
        "tcp": {"mtu": 576, "rto_min": "1ms"},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "64kbps", "delay": "10ms"}},
        "flows": [{"app": {"kind": "finite", "bytes": 1461}}]
    });
    let out = run(v);
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(f.bytes_delivered, 1461);
    assert!(
        f.retransmissions > 0,
        "the scenario must retransmit needlessly"
    );
    assert!(f.throughput_bps <= 64_000.0, "{}", f.throughput_bps);
    assert!(f.goodput_bps <= f.throughput_bps);
}

/// A watcher can stop a run (an interrupt, a wall-time limit): the results then cover the
/// time simulated so far, are marked `stopped_at`, and every packet is still accounted for.
#[test]
fn a_watcher_stops_the_run_with_partial_results() {
    let v = serde_json::json!({
        "duration": "100s", "seed": 1,
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "100Mbps", "delay": "5ms"}},
        "flows": [{"app": {"kind": "bulk"}}]
    });
    let mut calls = 0u32;
    let mut last = 0u64;
    let out = transim_core::run_value_watched(v, &mut |now, events| {
        assert!(now >= last && events > 0);
        last = now;
        calls += 1;
        calls < 5
    })
    .unwrap();
    let r = &out.result;
    assert_eq!(calls, 5);
    assert_eq!(r.events, 5 * transim_core::engine::WATCH_EVERY as u64);
    let stopped = r.stopped_at.expect("marked as stopped");
    assert!((r.simulated_time - stopped).abs() < 1e-12 && stopped < 100.0);
    let c = r.conservation;
    assert_eq!(c.sent, c.delivered + c.dropped + c.in_flight);
    assert!(r.flows[0].detail.tcp().bytes_delivered > 0);
}

//! Congestion-control variants against properties from their papers and RFCs.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::tcp::trace::FlowTrace;

/// One flow A → B over `rate` / `one_way` with a `queue`-packet buffer, MSS 1460, an ACK per
/// segment, one forced drop of `segment`.
/// With `steady`, the initial ssthresh is 60 kB so that slow start ends before the queue
/// overflows and the forced drop is the only loss.
#[allow(clippy::too_many_arguments)]
fn path(
    cc: &str,
    rate: &str,
    one_way: &str,
    queue: u64,
    rcv_buf: &str,
    segment: u64,
    secs: u64,
    steady: bool,
) -> Value {
    let mut tcp = json!({"cc": cc, "mss": 1460, "delayed_ack": "off", "rcv_buf": rcv_buf, "recovery": "newreno"});
    if steady {
        tcp["initial_ssthresh"] = json!("60KB");
    }
    json!({
        "duration": format!("{secs}s"), "seed": 1,
        "tcp": tcp,
        "topology": {"kind": "explicit", "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": rate, "delay": one_way, "queue": queue,
                       "forward": {"drops": {"segments": [{"segment": segment}]}}}]},
        "flows": [{"src": "A", "dst": "B", "app": {"kind": "bulk"}}],
        "trace": {"flows": true}
    })
}

fn trace(v: Value) -> FlowTrace {
    run(v)
        .flow_traces
        .into_iter()
        .next()
        .unwrap()
        .unwrap()
        .tcp()
        .clone()
}

/// Index of the first row where ssthresh changes (the loss).
fn loss_row(tr: &FlowTrace) -> usize {
    tr.ssthresh
        .iter()
        .position(|&s| s != tr.ssthresh[0])
        .expect("a loss happened")
}

fn cwnd_at(tr: &FlowTrace, t: f64) -> f64 {
    let i = tr.t.partition_point(|&x| x <= t).saturating_sub(1);
    tr.cwnd[i] / 1460.0
}

/// CUBIC (RFC 9438): after a loss ssthresh = β·flight; then cwnd follows
/// W(t) = C(t − K)³ + W_max with K = ∛(W_max(1 − β)/C): it plateaus at W_max at t = K and
/// grows convexly beyond. 100 Mbps, 50 ms one way (BDP 856 segments), no queue losses.
#[test]
fn cubic_window_follows_the_cubic_function() {
    for (cc, beta) in [("cubic", 0.7), ("cubic-2.6", 819.0 / 1024.0)] {
        let tr = trace(path(cc, "100Mbps", "50ms", 100_000, "64MB", 700, 40, false));
        let i = loss_row(&tr);
        let w_max = tr.cwnd[i - 1] / 1460.0;
        let cut = tr.ssthresh[i] / 1460.0 / w_max;
        assert!((cut - beta).abs() < 0.03, "{cc}: ssthresh/W_max = {cut}");
        // The epoch starts when growth resumes after recovery.
        let ss = tr.ssthresh[i];
        let j = (i..tr.t.len())
            .find(|&j| tr.cwnd[j] > ss && tr.snd_una[j] > tr.snd_max[i])
            .unwrap();
        let t0 = tr.t[j];
        let k = (w_max * (1.0 - beta) / 0.4).cbrt();
        let w = |t: f64| 0.4 * (t - k).powi(3) + w_max;
        let rtt = 0.1;
        for frac in [0.3, 0.6, 1.0] {
            let got = cwnd_at(&tr, t0 + frac * k);
            // cwnd aims at W(t + RTT); allow that lead plus 3 %.
            let (lo, hi) = (w(frac * k) * 0.97, w(frac * k + 2.0 * rtt) * 1.03);
            assert!(got >= lo && got <= hi, "{cc}: t = {frac}K: cwnd {got:.1}, W in [{lo:.1}, {hi:.1}] (K = {k:.2} s, W_max {w_max:.0})");
        }
        let late = cwnd_at(&tr, t0 + 1.6 * k);
        assert!(
            late >= 0.97 * w(1.6 * k) && late > w_max,
            "{cc}: convex growth beyond W_max: {late:.1} vs W = {:.1}",
            w(1.6 * k)
        );
    }
}

/// Westwood+: the bandwidth estimate converges to the bottleneck rate, and after a loss
/// ssthresh = BWE·RTT_min. On 10 Mbps / 20 ms one way (payload 9.73 Mbps, RTT_min 41.2 ms)
/// that is the bandwidth-delay product, about 50 kB, whatever the window was.
#[test]
fn westwood_sets_ssthresh_to_the_bandwidth_delay_product() {
    // Drop at about 10 s, when a standing queue of ~150 packets inflates cwnd well above BDP.
    let tr = trace(path(
        "westwood", "10Mbps", "20ms", 200, "1MB", 8000, 15, true,
    ));
    let i = loss_row(&tr);
    let bdp = 9.73e6 / 8.0 * 0.0412;
    let ss = tr.ssthresh[i];
    assert!(
        (ss / bdp - 1.0).abs() < 0.1,
        "ssthresh {ss:.0} vs BDP {bdp:.0}; cwnd was {:.0}",
        tr.cwnd[i - 1]
    );
    assert!(
        tr.cwnd[i - 1] > 2.0 * bdp,
        "the window before the loss was far above the BDP"
    );
    // Reno would halve instead.
    let reno = trace(path("reno", "10Mbps", "20ms", 200, "1MB", 8000, 15, true));
    let r = loss_row(&reno);
    assert!(
        (reno.ssthresh[r] / (reno.flight[r - 1].max(reno.cwnd[r - 1]) / 2.0) - 1.0).abs() < 0.1
    );
}

/// Veno: a loss with less than β = 3 packets queued is random (cut to 4/5); with a standing
/// queue it is congestive (cut to 1/2).
#[test]
fn veno_cuts_by_its_backlog_estimate() {
    // Window limited to 20 kB on a 10 Mbps / 20 ms path (BDP 50 kB): nothing queues.
    let random = trace(path("veno", "10Mbps", "20ms", 200, "20KB", 300, 5, true));
    let i = loss_row(&random);
    let r = random.ssthresh[i] / random.cwnd[i - 1];
    assert!((r - 0.8).abs() < 0.03, "random loss: ssthresh/cwnd = {r}");
    // A 200-packet buffer and a large window: a long standing queue when segment 8000 drops.
    let congestive = trace(path("veno", "10Mbps", "20ms", 200, "1MB", 8000, 15, true));
    let j = loss_row(&congestive);
    let c = congestive.ssthresh[j] / congestive.cwnd[j - 1];
    assert!(
        (c - 0.5).abs() < 0.03,
        "congestive loss: ssthresh/cwnd = {c}"
    );
}

/// Veno grows one segment every other RTT once backlogged, Reno one per RTT: growth per
/// round trip (counted from the traced srtt) after a congestive loss, while a standing queue
/// keeps Veno's backlog estimate above β.
#[test]
fn veno_grows_every_other_rtt_when_backlogged() {
    let per_rtt = |cc: &str| {
        let tr = trace(path(cc, "10Mbps", "20ms", 400, "1MB", 6000, 30, true));
        let i = loss_row(&tr);
        let (a, b) = (tr.t[i] + 3.0, tr.t[i] + 13.0);
        let (ia, ib) = (
            tr.t.partition_point(|&x| x < a),
            tr.t.partition_point(|&x| x < b),
        );
        let rtts: f64 = (ia..ib).map(|k| (tr.t[k + 1] - tr.t[k]) / tr.srtt[k]).sum();
        (tr.cwnd[ib] - tr.cwnd[ia]) / 1460.0 / rtts
    };
    let (veno, reno) = (per_rtt("veno"), per_rtt("reno"));
    assert!(
        (reno - 1.0).abs() < 0.1,
        "Reno grows one segment per RTT: {reno:.3}"
    );
    assert!(
        (veno - 0.5).abs() < 0.1,
        "Veno grows half a segment per RTT: {veno:.3}"
    );
}

/// Vegas holds between α = 2 and β = 4 packets in the bottleneck queue: in steady state
/// cwnd exceeds the bandwidth-delay product (10 Mbps × 41.23 ms base RTT / 1500 B =
/// 34.36 packets) by 2 to 4 packets, and no packet is lost.
#[test]
fn vegas_keeps_alpha_to_beta_packets_queued() {
    let v = path(
        "vegas",
        "10Mbps",
        "20ms",
        1000,
        "4MB",
        1_000_000_000,
        30,
        false,
    );
    let out = run(v);
    assert_eq!(out.result.flows[0].data_drops["queue"], 0);
    let tr = out.flow_traces[0].as_ref().unwrap().tcp();
    let from = tr.t.partition_point(|&t| t < 20.0);
    let queued: Vec<f64> = tr.cwnd[from..].iter().map(|c| c / 1460.0 - 34.36).collect();
    let mean = queued.iter().sum::<f64>() / queued.len() as f64;
    assert!(
        (1.5..=4.5).contains(&mean),
        "packets queued in steady state: {mean:.2}"
    );
}

/// Scalable TCP cuts cwnd by 1/8 and, above 100 segments, grows about 1 % per RTT.
#[test]
fn scalable_cuts_by_an_eighth_and_grows_one_percent_per_rtt() {
    let tr = trace(path(
        "scalable", "100Mbps", "20ms", 100_000, "64MB", 3000, 20, false,
    ));
    let i = loss_row(&tr);
    let cut = tr.ssthresh[i] / tr.cwnd[i - 1];
    assert!((cut - 0.875).abs() < 0.002, "cut {cut}");
    let (a, b) = (tr.t[i] + 1.0, tr.t[i] + 3.0);
    let (ia, ib) = (
        tr.t.partition_point(|&x| x < a),
        tr.t.partition_point(|&x| x < b),
    );
    let rtts: f64 = (ia..ib).map(|k| (tr.t[k + 1] - tr.t[k]) / tr.srtt[k]).sum();
    let per_rtt = (tr.cwnd[ib] / tr.cwnd[ia]).powf(1.0 / rtts);
    assert!((per_rtt - 1.01).abs() < 0.002, "growth per RTT {per_rtt}");
}

/// Growth in segments per RTT between two times, RTTs counted from the traced srtt.
fn growth_per_rtt(tr: &FlowTrace, a: f64, b: f64) -> f64 {
    let (ia, ib) = (
        tr.t.partition_point(|&x| x < a),
        tr.t.partition_point(|&x| x < b),
    );
    let rtts: f64 = (ia..ib).map(|k| (tr.t[k + 1] - tr.t[k]) / tr.srtt[k]).sum();
    (tr.cwnd[ib] - tr.cwnd[ia]) / 1460.0 / rtts
}

/// BIC cuts to 819/1024 and returns to W_max by binary search — at most 16 segments per RTT
/// while far below it, then halving the distance — in far fewer RTTs than Reno's
/// (1 − β)·W_max.
#[test]
fn bic_returns_to_w_max_by_binary_search() {
    let tr = trace(path(
        "bic", "100Mbps", "50ms", 100_000, "64MB", 700, 20, false,
    ));
    let i = loss_row(&tr);
    let w_max = tr.cwnd[i - 1] / 1460.0;
    let cut = tr.ssthresh[i] / tr.cwnd[i - 1];
    assert!((cut - 819.0 / 1024.0).abs() < 0.003, "cut {cut}");
    let t_cut = tr.t[i] + 0.2; // after recovery
    let fast = growth_per_rtt(&tr, t_cut, t_cut + 0.3);
    assert!(
        fast <= 16.5 && fast > 10.0,
        "far below W_max: {fast:.1} segments/RTT (max increment 16)"
    );
    let reach = (i..tr.t.len())
        .find(|&k| tr.cwnd[k] / 1460.0 >= 0.95 * w_max)
        .expect("reaches W_max");
    let rtts = (tr.t[reach] - tr.t[i]) / 0.1;
    assert!(
        rtts < 20.0,
        "95 % of W_max ({w_max:.0}) after {rtts:.1} RTTs; Reno needs {:.0}",
        0.2 * w_max
    );
}

/// Hybla: congestion avoidance adds ρ² segments per RTT, ρ = RTT/25 ms: 64 on a 200 ms path.
#[test]
fn hybla_grows_rho_squared_per_rtt() {
    let mut v = path(
        "hybla",
        "1Gbps",
        "100ms",
        100_000,
        "256MB",
        1_000_000_000,
        6,
        true,
    );
    v["tcp"]["initial_ssthresh"] = json!("150KB");
    let tr = trace(v);
    let g = growth_per_rtt(&tr, 2.0, 5.0);
    assert!(
        (g / 64.0 - 1.0).abs() < 0.1,
        "Hybla grows {g:.1} segments per RTT, expected ρ² = 64"
    );
}

/// H-TCP: Δ seconds after a congestion event it grows 2(1 − β)·α(Δ) segments per RTT with
/// α(Δ) = 1 + 10(Δ − 1) + 0.25(Δ − 1)²; β is read from its own cut.
#[test]
fn htcp_increase_follows_alpha_of_delta() {
    let tr = trace(path(
        "htcp", "100Mbps", "50ms", 100_000, "256MB", 700, 8, false,
    ));
    let i = loss_row(&tr);
    let beta = tr.ssthresh[i] / tr.cwnd[i - 1];
    assert!((0.5..=0.8).contains(&beta), "β = {beta}");
    let t0 = tr.t[i];
    // Before Δ = 1 s the growth is only 2(1 − β) segments per RTT, a few whole segments over
    // the interval: compare the total growth, within one segment.
    let (ia, ib) = (
        tr.t.partition_point(|&x| x < t0 + 0.2),
        tr.t.partition_point(|&x| x < t0 + 0.95),
    );
    let rtts: f64 = (ia..ib).map(|k| (tr.t[k + 1] - tr.t[k]) / tr.srtt[k]).sum();
    let grown = (tr.cwnd[ib] - tr.cwnd[ia]) / 1460.0;
    let expect = 2.0 * (1.0 - beta) * rtts;
    assert!(
        (grown - expect).abs() <= 1.0,
        "Δ < 1 s: grew {grown} segments, expected {expect:.2}"
    );
    // Mean of α over Δ ∈ [2.5, 3.5]: 1 + 10·2 + 0.25·(1.5³ − 0.5³)/3 = 21.27.
    let mid = growth_per_rtt(&tr, t0 + 2.5, t0 + 3.5);
    let want = 2.0 * (1.0 - beta) * 21.27;
    assert!(
        (mid / want - 1.0).abs() < 0.15,
        "Δ ≈ 3 s: {mid:.2} segments/RTT, expected {want:.2}"
    );
}

/// Illinois: with no queueing delay it adds α_max = 10 segments per RTT and a loss cuts only
/// β_min = 1/8; with a long standing queue α falls below one segment per RTT and the cut
/// approaches 1/2.
#[test]
fn illinois_adapts_alpha_and_beta_to_queueing_delay() {
    // 1 Gbps, 50 ms one way: BDP 8 300 segments, the window never queues.
    let tr = trace(path(
        "illinois", "1Gbps", "50ms", 100_000, "256MB", 3000, 4, true,
    ));
    let i = loss_row(&tr);
    let fast = growth_per_rtt(&tr, 0.6, tr.t[i] - 0.05);
    assert!(
        (fast / 10.0 - 1.0).abs() < 0.15,
        "unqueued: {fast:.2} segments per RTT"
    );
    let cut = tr.ssthresh[i] / tr.cwnd[i - 1];
    assert!((cut - 0.875).abs() < 0.01, "unqueued cut {cut}");
    // 10 Mbps with a 400-packet buffer: a long standing queue before the loss at segment 8000.
    let tr = trace(path(
        "illinois", "10Mbps", "20ms", 400, "1MB", 8000, 15, true,
    ));
    let i = loss_row(&tr);
    let slow = growth_per_rtt(&tr, tr.t[i] - 2.0, tr.t[i] - 0.1);
    assert!(slow < 1.0, "queued: {slow:.2} segments per RTT");
    let cut = tr.ssthresh[i] / tr.cwnd[i - 1];
    assert!(cut < 0.6, "queued cut {cut}");
}

//! Congestion-control variants against properties from their papers and RFCs.

mod common;
use common::*;
use serde_json::{json, Value};
use transim_core::trace::FlowTrace;

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
    run(v).flow_traces.into_iter().next().unwrap().unwrap()
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
    let tr = out.flow_traces[0].as_ref().unwrap();
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

//! BBR v3 against its specification (draft-ietf-ccwg-bbr-04) and the path it runs on: the
//! model converges to the true bottleneck rate and propagation delay; the states pace at
//! their gains; bandwidth probes come as often as the Reno-coexistence bound or the 2–3 s
//! clock says; ProbeRTT comes every 5 s at half the BDP; and, unlike BBR v1, loss above 2 %
//! bounds the data in flight, so a shallow buffer is not kept overflowing.

mod common;
use common::model_based::*;
use common::*;
use serde_json::json;
use transim_core::tcp::trace::FlowTrace;

/// The pacing rate is 1 % below gain · bandwidth.
const MARGIN: f64 = 0.99;

/// Times at which the pacing rate enters `gain` (within 1 %) of `bw`, after `from`.
fn gain_starts(tr: &FlowTrace, bw: f64, gain: f64, from: f64) -> Vec<f64> {
    let at = |i: usize| (tr.pacing_rate[i] / bw / gain - 1.0).abs() < 0.01;
    (1..tr.t.len())
        .filter(|&i| tr.t[i] > from && at(i) && !at(i - 1))
        .map(|i| tr.t[i])
        .collect()
}

/// Packet-timed rounds from `t0` to `t1`: a round ends when everything sent before it began
/// is acknowledged (queues stretch rounds beyond the minimum RTT, so time alone cannot
/// count them).
fn rounds_between(tr: &FlowTrace, t0: f64, t1: f64) -> f64 {
    let mut i = tr.t.partition_point(|&t| t < t0);
    let mut rounds = 0.0;
    loop {
        let target = tr.snd_max[i];
        match (i..tr.t.len()).find(|&j| tr.snd_una[j] >= target) {
            Some(j) if tr.t[j] <= t1 => {
                rounds += 1.0;
                i = j;
            }
            // The part of a round left at t1.
            Some(j) => return rounds + (t1 - tr.t[i]) / (tr.t[j] - tr.t[i]),
            None => return rounds,
        }
    }
}

/// How long after its ProbeBW cycle began (a DOWN, or the end of a ProbeRTT, which
/// restarts the cycle in CRUISE) each UP after `from` started.
fn probe_waits(tr: &FlowTrace, bw: f64, rtt: f64, from: f64) -> Vec<f64> {
    let probe_rtt_ends = cwnd_below(tr, 0.51 * bw * rtt, from)
        .into_iter()
        .map(|(_, e)| e);
    let mut starts: Vec<f64> = gain_starts(tr, bw, 0.9 * MARGIN, from)
        .into_iter()
        .chain(probe_rtt_ends)
        .collect();
    starts.sort_by(f64::total_cmp);
    gain_starts(tr, bw, 1.25 * MARGIN, from)
        .iter()
        .filter_map(|u| starts.iter().rev().find(|&&c| c < *u).map(|c| u - c))
        .collect()
}

/// The payload rate and the model of a finished flow.
fn model(f: &transim_core::results::FlowResult) -> (f64, f64, String) {
    let m = f
        .detail
        .tcp()
        .cc_model
        .as_ref()
        .expect("BBR v3 reports its model");
    (m.bandwidth_bps, m.min_rtt.unwrap(), m.state.to_string())
}

/// The bandwidth estimate converges to the bottleneck's payload rate and the minimum RTT to
/// the propagation round trip, from 1 Mbps to 1 Gbps, without a drop in deep buffers.
#[test]
fn model_converges_to_the_true_bandwidth_and_propagation_delay() {
    for (rate, one_way, queue) in CONVERGENCE_PATHS {
        let (f, _, _) = run_one(path("bbr3", rate, one_way, queue, 8.0, json!({})));
        let (bw, rtt, state) = model(&f);
        let payload_rate = rate * MSS / WIRE;
        let bw_err = bw / payload_rate - 1.0;
        let rtt_err = rtt / f.detail.tcp().estimators.true_rtt - 1.0;
        assert!(
            bw_err.abs() < 0.02,
            "{rate} bps: max_bw {bw:.0} vs {payload_rate:.0}"
        );
        assert!((0.0..0.03).contains(&rtt_err), "{rate} bps: min_rtt {rtt}");
        assert!(state.starts_with("probe_bw_"), "{rate} bps: state {state}");
        assert_eq!(f.data_packets_dropped, 0, "{rate} bps: a drop");
    }
}

/// Startup paces at 2.77 · 0.99 of the bandwidth, Drain at 0.35 · 0.99; ProbeBW paces at
/// 0.9 (DOWN), 1.0 (CRUISE, REFILL) and 1.25 (UP), and nothing else outside ProbeRTT. UP
/// ends when three rounds bring less than 25 % more bandwidth: three rounds after it began.
#[test]
fn states_pace_at_their_gains() {
    let (f, tr, _) = run_one(path("bbr3", 10e6, 20.0, 200, 4.9, json!({})));
    let bw = model(&f).0 / 8.0;
    let peak = tr.pacing_rate.iter().fold(0.0f64, |m, &r| m.max(r)) / bw;
    assert!(
        (peak / (2.77 * MARGIN) - 1.0).abs() < 0.01,
        "Startup gain {peak}"
    );
    assert!(
        time_at_gain(&tr, bw, 0.35 * MARGIN, 0.0, 1.0) > 0.0,
        "no Drain"
    );
    let cruise = time_at_gain(&tr, bw, MARGIN, 1.0, 4.9);
    let down = time_at_gain(&tr, bw, 0.9 * MARGIN, 1.0, 4.9);
    let up = time_at_gain(&tr, bw, 1.25 * MARGIN, 1.0, 4.9);
    assert!(down > 0.0 && up > 0.0, "DOWN {down:.3}, UP {up:.3}");
    assert!(
        (cruise + down + up - 1.0).abs() < 0.01,
        "other gains for {:.3} of the time",
        1.0 - cruise - down - up
    );
    let ups = gain_starts(&tr, bw, 1.25 * MARGIN, 1.0);
    let downs = gain_starts(&tr, bw, 0.9 * MARGIN, 1.0);
    assert!(ups.len() >= 2, "UP starts {ups:?}");
    for u in &ups {
        let d = downs.iter().find(|&&d| d > *u).expect("DOWN after UP");
        let rounds = rounds_between(&tr, *u, *d);
        assert!((2.9..3.1).contains(&rounds), "UP lasted {rounds:.2} rounds");
    }
}

/// On a path whose BDP is 34 segments (9.73 Mbps of payload over 41.2 ms), the
/// Reno-coexistence bound times the probes: REFILL begins when the rounds since the cycle
/// began (counted from 0 or 1 at random) reach 34 (33 while the handshake's RTT is the
/// minimum), and UP one round later. A round lasts at least the minimum RTT, so UP comes no
/// sooner than 33 of them after the cycle began, and before the 2–3 s clock would have
/// started it.
#[test]
fn probes_wait_the_reno_rounds_on_a_small_bdp() {
    let (rate, one_way) = (10e6, 20.0);
    let (f, tr, _) = run_one(path("bbr3", rate, one_way, 200, 20.0, json!({})));
    let (bw, rtt, _) = model(&f);
    let bdp_segments = (bw / 8.0 * rtt / MSS).floor();
    assert_eq!(bdp_segments, 34.0);
    let waits = probe_waits(&tr, bw / 8.0, rtt, 1.0);
    assert!(waits.len() >= 5, "waits {waits:?}");
    for w in &waits {
        assert!(
            *w >= 33.0 * rtt && *w < 2.0,
            "UP {w:.3} s ({:.1} minimum RTTs) after the cycle began: {waits:?}",
            w / rtt
        );
    }
}

/// On a path whose BDP is 1,667 segments the Reno bound (63 rounds of 200 ms) is 12.6 s, so
/// the wall clock times the probes: REFILL 2–3 s (uniformly at random) after the cycle began
/// (DOWN, or the end of a ProbeRTT, which restarts the cycle in CRUISE), and UP a round later.
#[test]
fn probes_wait_two_to_three_seconds_on_a_large_bdp() {
    let (rate, one_way) = (100e6, 100.0);
    let (f, tr, _) = run_one(path("bbr3", rate, one_way, 5000, 40.0, json!({})));
    let (bw, rtt, _) = model(&f);
    let waits = probe_waits(&tr, bw / 8.0, rtt, 3.0);
    assert!(waits.len() >= 4, "waits {waits:?}");
    for w in &waits {
        assert!(
            *w > 2.0 + rtt && *w < 3.0 + 2.0 * rtt,
            "UP {w:.3} s after the cycle began: {waits:?}"
        );
    }
    let spread = waits.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - waits.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(spread > 0.1, "the waits are not drawn at random: {waits:?}");
}

/// The minimum RTT of the last 5 s not lowered for 5 s ⇒ ProbeRTT: cwnd at half the BDP
/// (BBR v1: 4 segments) for 200 ms and a round, every 5 s. (The BDP's RTT is the
/// handshake's 40.08 ms until the 10 s filter lets the data's 41.23 ms replace it: 3 %.)
#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp() {
    let (rate, one_way) = (10e6, 20.0);
    let (f, tr, _) = run_one(path("bbr3", rate, one_way, 200, 16.0, json!({})));
    let (bw, rtt, _) = model(&f);
    let half_bdp = 0.5 * bw / 8.0 * rtt;
    let periods = cwnd_below(&tr, half_bdp * 1.01, 1.0);
    assert_eq!(periods.len(), 3, "ProbeRTT periods {periods:?}");
    for (s, e) in &periods {
        assert!(
            *e - *s >= 0.2 && *e - *s < 0.2 + 3.0 * rtt,
            "ProbeRTT {s}..{e}"
        );
        let i = tr.t.partition_point(|t| t < s);
        assert!(
            (tr.cwnd[i] / half_bdp - 1.0).abs() < 0.03,
            "ProbeRTT cwnd {} vs half the BDP {half_bdp}",
            tr.cwnd[i]
        );
    }
    for w in periods.windows(2) {
        let gap = w[1].0 - w[0].1;
        assert!(
            gap > 5.0 && gap < 5.0 + 2.0 * rtt,
            "{gap} s between ProbeRTTs"
        );
    }
}

/// An application that writes 1 MB at 0, 6 and 12 s. Its minimum RTT was last lowered in
/// the first transfer, so at each restart it is over 5 s old, and a connection that kept
/// sending would enter ProbeRTT on the next ACK. A restart from idle does not (draft §5.4:
/// the idle time drained the queue): cwnd is never cut to half the BDP after the first
/// transfer, and each restart paces at the bandwidth estimate (gain 1).
#[test]
fn a_restart_from_idle_paces_at_the_estimate_and_skips_probe_rtt() {
    let mut v = path("bbr3", 10e6, 20.0, 200, 18.0, json!({}));
    v["flows"][0]["app"] = json!({"kind": "writes", "sizes": ["1MB", "1MB", "1MB"],
                                  "at": ["0s", "6s", "12s"]});
    let (f, tr, _) = run_one(v);
    let (bw, rtt, _) = model(&f);
    let bw = bw / 8.0;
    assert!(
        cwnd_below(&tr, 0.51 * bw * rtt, 3.0).is_empty(),
        "a ProbeRTT after idle"
    );
    for restart in [6.0, 12.0] {
        let i = tr.t.partition_point(|&t| t < restart);
        assert!(
            (tr.pacing_rate[i] / bw / MARGIN - 1.0).abs() < 0.01,
            "restart at {restart} s paced at {:.3} of the estimate",
            tr.pacing_rate[i] / bw
        );
    }
    assert_eq!(f.detail.tcp().bytes_delivered, 3_000_000);
}

/// Linux's `slow_start_after_idle` (on in the `linux-2.6` profile) cuts cwnd after an idle RTO,
/// except for a congestion control that sets cwnd itself (`tcp_slow_start_after_idle_check`
/// returns early for a `cong_control` module): CUBIC restarts from its initial window of
/// 10 segments, BBR v1 and v3 from the cwnd their model gives.
#[test]
fn slow_start_after_idle_leaves_bbr_alone() {
    for (cc, cut) in [("cubic", true), ("bbr", false), ("bbr3", false)] {
        let mut v = path(cc, 10e6, 20.0, 200, 8.0, json!({}));
        v["tcp"]["profile"] = json!("linux-2.6");
        v["tcp"]["mss"] = json!(1448);
        v["flows"][0]["app"] = json!({"kind": "writes", "sizes": ["1MB", "1MB"],
                                      "at": ["0s", "6s"]});
        let (_, tr, _) = run_one(v);
        let i = tr.t.partition_point(|&t| t < 6.0);
        let (before, after) = (tr.cwnd[i - 1], tr.cwnd[i]);
        if cut {
            assert!(
                after <= 10.0 * 1448.0 && after < before / 2.0,
                "{cc}: {before} → {after}"
            );
        } else {
            assert!(
                after >= before,
                "{cc}: cwnd {before} cut to {after} after idle"
            );
        }
    }
}

/// A buffer of 30 packets on a 333-packet BDP: BBR v1 keeps overflowing it (its model
/// ignores loss), BBR v3 bounds the data in flight where losses passed 2 %. v3 loses under
/// 1 % of its packets, a fifth of v1's drops or fewer, and times out less.
#[test]
fn a_shallow_buffer_is_not_kept_overflowing() {
    let (v1, _, _) = run_one(path("bbr", 100e6, 20.0, 30, 20.0, json!({})));
    let (v3, _, _) = run_one(path("bbr3", 100e6, 20.0, 30, 20.0, json!({})));
    let (t1, t3) = (v1.detail.tcp(), v3.detail.tcp());
    let sent3 = t3.goodput_bps * 20.0 / 8.0 / MSS;
    assert!(
        (v3.data_packets_dropped as f64) < 0.01 * sent3,
        "v3 dropped {} of about {sent3:.0}",
        v3.data_packets_dropped
    );
    assert!(
        v3.data_packets_dropped * 5 <= v1.data_packets_dropped,
        "drops: v3 {}, v1 {}",
        v3.data_packets_dropped,
        v1.data_packets_dropped
    );
    assert!(
        t3.timeouts < t1.timeouts,
        "timeouts: v3 {}, v1 {}",
        t3.timeouts,
        t1.timeouts
    );
}

/// Random loss: at 0.5 % (under the 2 % threshold) v3 keeps most of the link; at 3 % most
/// rounds lose more than 2 %, the short-term model is cut round after round, and v3 sends
/// well under what v1, which does not respond to loss, sends.
#[test]
fn loss_above_the_threshold_is_a_signal_below_it_mostly_not() {
    let lossy = |p: &str| json!({"loss": {"model": "bernoulli", "p": p}});
    let goodput = |cc: &str, p: &str| {
        let (f, _, _) = run_one(path(cc, 10e6, 20.0, 200, 15.0, lossy(p)));
        f.detail.tcp().goodput_bps
    };
    let payload = 10e6 * MSS / WIRE;
    let low = goodput("bbr3", "0.5%");
    assert!(low > 0.6 * payload, "v3 at 0.5 %: {low}");
    let (v1, v3) = (goodput("bbr", "3%"), goodput("bbr3", "3%"));
    assert!(v3 < 0.6 * v1, "at 3 %: v3 {v3}, v1 {v1}");
}

/// The scenario seed draws the probe waits: the same scenario gives the same bytes out.
#[test]
fn same_seed_same_results() {
    let lossy = json!({"loss": {"model": "bernoulli", "p": "0.5%"}});
    let a = run(path("bbr3", 10e6, 20.0, 100, 5.0, lossy.clone()));
    let b = run(path("bbr3", 10e6, 20.0, 100, 5.0, lossy));
    assert_eq!(
        serde_json::to_string(&a.result).unwrap(),
        serde_json::to_string(&b.result).unwrap()
    );
}

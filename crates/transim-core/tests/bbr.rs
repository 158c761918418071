//! BBR v1 against its specification (draft-cardwell-iccrg-bbr-congestion-control-00) and the
//! path it runs on: the model converges to the true bottleneck rate and propagation delay,
//! the modes follow their gains, ProbeRTT comes every 10 s for 200 ms, loss does not shrink
//! the model. (Pacing itself is tested in `pacing.rs`.)

mod common;
use common::*;
use serde_json::json;
use transim_core::trace::packet_event;

use common::model_based::*;

const HIGH_GAIN: f64 = 2.885_390_081_777_926_8;

/// The acceptance test: BtlBw converges to the bottleneck's payload rate and RTprop
/// to the propagation round trip, within a few percent, from 1 Mbps to 1 Gbps. (8 s runs:
/// before the first ProbeRTT, RTprop is the handshake's RTT, the path's propagation delay
/// plus the serialisation of two small segments.)
#[test]
fn model_converges_to_the_true_bandwidth_and_propagation_delay() {
    for (rate, one_way, queue) in CONVERGENCE_PATHS {
        let (f, _, _) = run_one(path("bbr", rate, one_way, queue, 8.0, json!({})));
        let m = f
            .detail
            .tcp()
            .cc_model
            .as_ref()
            .expect("BBR reports its model");
        let payload_rate = rate * MSS / WIRE;
        let bw_err = m.bandwidth_bps / payload_rate - 1.0;
        let rtt = m.min_rtt.unwrap();
        let rtt_err = rtt / f.detail.tcp().estimators.true_rtt - 1.0;
        assert!(
            bw_err.abs() < 0.02,
            "{rate} bps: BtlBw {:.0} vs {payload_rate:.0} ({:+.2} %)",
            m.bandwidth_bps,
            100.0 * bw_err
        );
        assert!(
            (0.0..0.03).contains(&rtt_err),
            "{rate} bps: RTprop {rtt} vs {} ({:+.2} %)",
            f.detail.tcp().estimators.true_rtt,
            100.0 * rtt_err
        );
        assert_eq!(m.state, "probe_bw");
        assert_eq!(
            f.data_packets_dropped, 0,
            "{rate} bps: BBR filled the buffer"
        );
    }
}

/// Startup paces at 2/ln 2 of BtlBw, Drain at its inverse, and ProbeBW cycles 5/4, 3/4 and
/// six phases of 1, each one RTprop long: 1/8 of the time at 5/4, 1/8 at 3/4, 3/4 at 1.
#[test]
fn modes_follow_their_pacing_gains() {
    let (f, tr, _) = run_one(path("bbr", 10e6, 20.0, 200, 6.0, json!({})));
    let bw = f.detail.tcp().cc_model.as_ref().unwrap().bandwidth_bps / 8.0;
    let rtprop = f.detail.tcp().cc_model.as_ref().unwrap().min_rtt.unwrap();
    let peak = tr.pacing_rate.iter().fold(0.0f64, |m, &r| m.max(r)) / bw;
    assert!((peak / HIGH_GAIN - 1.0).abs() < 0.01, "Startup gain {peak}");
    assert!(
        time_at_gain(&tr, bw, 1.0 / HIGH_GAIN, 0.0, 2.0) > 0.0,
        "no Drain"
    );
    for (gain, share, tol) in [(1.25, 0.125, 0.02), (0.75, 0.125, 0.02), (1.0, 0.75, 0.03)] {
        let got = time_at_gain(&tr, bw, gain, 2.0, 6.0);
        assert!(
            (got - share).abs() < tol,
            "gain {gain}: {got:.3} of the time (expected {share})"
        );
    }
    // Each 5/4 phase starts 8 phases (8 RTprop, plus the ACK that ends each) after the last.
    let starts: Vec<f64> = (1..tr.t.len())
        .filter(|&i| {
            tr.t[i] > 2.0
                && (tr.pacing_rate[i] / bw - 1.25).abs() < 0.01
                && (tr.pacing_rate[i - 1] / bw - 1.25).abs() > 0.01
        })
        .map(|i| tr.t[i])
        .collect();
    assert!(starts.len() >= 10);
    for w in starts.windows(2) {
        let cycle = (w[1] - w[0]) / (8.0 * rtprop);
        assert!((1.0..1.03).contains(&cycle), "cycle {cycle} RTprop×8");
    }
}

/// In ProbeBW the data in flight averages BtlBw·RTprop plus the quantisation budget of
/// three send quanta (two segments each below 24 Mbps): the bottleneck stays full with a
/// queue of a few packets, where a loss-based algorithm fills the buffer.
#[test]
fn probe_bw_keeps_one_bdp_in_flight() {
    let (rate, one_way) = (10e6, 20.0);
    let (f, tr, out) = run_one(path("bbr", rate, one_way, 200, 10.0, json!({})));
    let rtprop = f.detail.tcp().cc_model.as_ref().unwrap().min_rtt.unwrap();
    let bdp = rate * MSS / WIRE / 8.0 * rtprop;
    let target = bdp + 6.0 * MSS;
    let flight = mean_between(&tr, &tr.flight, 2.0, 9.9);
    assert!(
        (flight / target - 1.0).abs() < 0.05,
        "mean flight {:.1} segments, BDP + 3 quanta = {:.1}",
        flight / MSS,
        target / MSS
    );
    let link = &out.result.links[0];
    assert!(link.utilisation > 0.97, "utilisation {}", link.utilisation);
    let (_, _, cubic) = run_one(path("cubic", rate, one_way, 200, 10.0, json!({})));
    assert!(
        link.mean_queue_packets * 5.0 < cubic.result.links[0].mean_queue_packets,
        "BBR queue {:.1} vs CUBIC {:.1}",
        link.mean_queue_packets,
        cubic.result.links[0].mean_queue_packets
    );
}

/// RTprop not lowered for 10 s ⇒ ProbeRTT: cwnd 4 segments for 200 ms and at least one
/// round, then ProbeBW again; the next one 10 s later. The estimate taken at expiry is the
/// data packets' RTT: propagation plus the serialisation of a data segment and an ACK.
#[test]
fn probe_rtt_every_ten_seconds_for_200_ms() {
    let (rate, one_way) = (10e6, 20.0);
    let (f, tr, _) = run_one(path("bbr", rate, one_way, 200, 25.0, json!({})));
    let periods = cwnd_below(&tr, 4.0 * MSS, 1.0);
    assert_eq!(periods.len(), 2, "ProbeRTT periods {periods:?}");
    let rtt = 2.0 * one_way * 1e-3 + (WIRE + ACK_WIRE) * 8.0 / rate;
    let established = tr.t[0];
    let (s1, e1) = periods[0];
    let (s2, e2) = periods[1];
    assert!(
        s1 - established > 10.0 && s1 - established < 10.0 + 2.0 * rtt,
        "first ProbeRTT at {s1}"
    );
    for (s, e) in [(s1, e1), (s2, e2)] {
        assert!(e - s >= 0.2 && e - s < 0.2 + 3.0 * rtt, "ProbeRTT {s}..{e}");
    }
    assert!(
        s2 - e1 > 10.0 && s2 - e1 < 10.0 + 2.0 * rtt,
        "second ProbeRTT {s2} after {e1}"
    );
    let m = f.detail.tcp().cc_model.clone().unwrap();
    assert!(
        (m.min_rtt.unwrap() / rtt - 1.0).abs() < 1e-3,
        "{:?} vs {rtt}",
        m.min_rtt
    );
}

/// Random loss is not congestion to BBR: at 1 % loss it keeps the link nearly full, where
/// CUBIC is held to its loss-response rate.
#[test]
fn random_loss_does_not_shrink_the_model() {
    let lossy = json!({"loss": {"model": "bernoulli", "p": "1%"}});
    let (bbr, _, out) = run_one(path("bbr", 10e6, 20.0, 200, 15.0, lossy.clone()));
    let (cubic, _, _) = run_one(path("cubic", 10e6, 20.0, 200, 15.0, lossy));
    assert!(bbr.data_packets_dropped > 100);
    let util = out.result.links[0].utilisation;
    assert!(util > 0.9, "BBR utilisation {util} at 1 % loss");
    assert!(
        bbr.detail.tcp().goodput_bps > 2.0 * cubic.detail.tcp().goodput_bps,
        "BBR {} vs CUBIC {}",
        bbr.detail.tcp().goodput_bps,
        cubic.detail.tcp().goodput_bps
    );
}

/// One loss in ProbeBW: fast recovery sets cwnd to what is in flight plus what was just
/// delivered (packet conservation) and, when recovery ends, restores the cwnd from before
/// the loss; ssthresh is never set.
#[test]
fn recovery_conserves_packets_then_restores_cwnd() {
    let drop = json!({"drops": {"segments": [{"segment": 2000}]}});
    let (f, tr, out) = run_one(path("bbr", 10e6, 20.0, 200, 4.0, drop));
    assert_eq!(f.detail.tcp().fast_retransmits, 1);
    assert_eq!(f.detail.tcp().timeouts, 0);
    assert_eq!(f.detail.tcp().final_ssthresh, None);
    let pt = out.packet_trace.as_ref().unwrap();
    let rtx = rows(pt, |i| {
        pt.kind[i] == packet_event::SEND && pt.from_sender[i] == 1 && pt.tx[i] == 2
    });
    assert_eq!(rtx.len(), 1);
    let t_rtx = pt.t[rtx[0]];
    let before = tr.t.partition_point(|&t| t < t_rtx) - 1;
    let prior = tr.cwnd[before - 1];
    let recover = tr.snd_max[before];
    let end = (before..tr.t.len())
        .find(|&i| tr.snd_una[i] >= recover)
        .unwrap();
    let lowest = tr.cwnd[before..end]
        .iter()
        .fold(f64::INFINITY, |m, &c| m.min(c));
    assert!(
        lowest < 0.8 * prior,
        "cwnd in recovery {lowest} vs {prior} before"
    );
    // Conservation: during recovery cwnd never falls below the pipe it reported.
    for i in before + 1..end {
        assert!(tr.cwnd[i] + 1.0 >= tr.pipe[i] * MSS, "row {i}");
    }
    // Restored, then held to the target, which the same ACK's sample may move a little.
    assert!(
        (tr.cwnd[end] / prior - 1.0).abs() < 0.01,
        "cwnd {} when recovery ends, {prior} before the loss",
        tr.cwnd[end]
    );
}

/// BBR's one random choice (the ProbeBW start phase) comes from the scenario seed: the same
/// scenario gives the same bytes out, run after run.
#[test]
fn same_seed_same_results() {
    let lossy = json!({"loss": {"model": "bernoulli", "p": "0.5%"}});
    let a = run(path("bbr", 10e6, 20.0, 100, 5.0, lossy.clone()));
    let b = run(path("bbr", 10e6, 20.0, 100, 5.0, lossy));
    let ja = serde_json::to_string(&a.result).unwrap();
    let jb = serde_json::to_string(&b.result).unwrap();
    assert_eq!(ja, jb);
    assert_eq!(
        a.flow_traces[0].as_ref().unwrap().tcp().pacing_rate,
        b.flow_traces[0].as_ref().unwrap().tcp().pacing_rate
    );
}

/// BBR with Tahoe recovery (shared/repro/bbr-tahoe-cwnd0.toml): after Tahoe's go-back-N
/// nothing is in flight when packet conservation starts, and cwnd used to be set to 0 —
/// a stall until the RTO at every loss. cwnd now never falls below one segment.
#[test]
fn bbr_with_tahoe_never_drops_cwnd_to_zero() {
    let v = serde_json::json!({
        "duration": "2s", "seed": 1,
        "tcp": {"cc": "bbr", "recovery": "tahoe", "mtu": 576},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "1Mbps", "delay": "5ms", "queue": 20,
                           "forward": {"loss": {"model": "bernoulli", "p": 0.02}}}},
        "flows": [{"app": {"kind": "bulk"}}],
        "trace": {"flows": true}
    });
    let out = transim_core::run_value(v).unwrap();
    let tr = out.flow_traces[0].as_ref().unwrap().tcp();
    let min = tr.cwnd.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(min >= 536.0, "cwnd fell to {min}");
    let f = out.result.flows[0].detail.tcp();
    assert_eq!(f.timeouts, 0);
    assert!(f.goodput_bps > 0.6e6, "{}", f.goodput_bps);
}

/// shared/repro/minrtt-below-propagation.toml: RTT samples read off the 1 ms timestamp clock
/// (for ACKs of retransmitted data) used to set min_rtt to 1 ms on a 1.638 ms path (and to
/// 1 ns with BBR's RTprop). They now feed the RTO only; min_rtt never undercuts the path.
#[test]
fn timestamp_tick_samples_never_set_min_rtt_below_the_propagation_delay() {
    for (cc, delay) in [("reno", "819us"), ("bbr", "100us")] {
        let v = serde_json::json!({
            "duration": "2s", "seed": 1,
            "tcp": {"profile": "linux-2.6", "cc": cc},
            "topology": {"kind": "dumbbell",
                "bottleneck": {"rate": "50Mbps", "delay": delay,
                               "forward": {"loss": {"model": "bernoulli", "p": 0.05}}}},
            "flows": [{"app": {"kind": "bulk"}}]
        });
        let out = transim_core::run_value(v).unwrap();
        let f = out.result.flows[0].detail.tcp();
        let truth = f.estimators.true_rtt;
        assert!(
            f.retransmissions > 0,
            "{cc}: the case needs retransmissions"
        );
        assert!(
            f.min_rtt.unwrap() >= truth,
            "{cc}: min_rtt {:?} < {truth}",
            f.min_rtt
        );
        if let Some(m) = &f.cc_model {
            assert!(m.min_rtt.unwrap() >= truth, "{cc}: RTprop {:?}", m.min_rtt);
        }
    }
}

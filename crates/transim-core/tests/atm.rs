//! TCP over ATM: cells on the wire, AAL5 reassembly, switch disciplines and ABR, checked
//! against hand computations and conservation.

mod common;
use common::{ns, run};
use serde_json::{json, Value};
use transim_core::fairness::{max_min_fair, Demand};
use transim_core::net::atm::aal5::cells_for;
use transim_core::trace::packet_event;

/// Study 2's topology: n sources → switch s1 → bottleneck → switch s2 → n destinations, every
/// link `rate`, the switch-to-switch link `bn_delay`, access links `acc_delay`.
fn atm_dumbbell(n: usize, rate: &str, bn_delay: &str, acc_delay: &str, atm: Value) -> Value {
    let flows: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("vc{i}"), "app": {"kind": "bulk"}}))
        .collect();
    json!({
        "duration": "300ms",
        "seed": 1,
        "tcp": {"profile": "rfc", "mss": 2000, "mtu": 9180, "timestamps": false, "rcv_buf": "64KiB",
                "snd_buf": "64KiB", "initial_window": 2},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": rate, "delay": bn_delay},
            "access": {"rate": rate, "delay": acc_delay}},
        "atm": atm,
        "flows": flows,
    })
}

fn flow_atm(out: &transim_core::results::RunOutput, i: usize) -> Value {
    serde_json::to_value(&out.result.flows[i]).unwrap()["atm"].clone()
}

#[test]
fn a_packet_crosses_three_switch_hops_cell_by_cell() {
    // 42.4 Mbps: one 53-byte cell every 10 µs. A packet of n cells over h store-and-forward
    // cell hops of delay d arrives at h·d + (n + h − 1)·10 µs (cells pipeline).
    let mut sc = atm_dumbbell(1, "42.4Mbps", "1ms", "1ms", json!({}));
    sc["trace"] = json!({"packets": true});
    sc["duration"] = json!("50ms");
    let out = run(sc);
    let pt = out.packet_trace.unwrap();
    let first_send = (0..pt.t.len())
        .find(|&i| pt.kind[i] == packet_event::SEND)
        .unwrap();
    let first_deliver = (0..pt.t.len())
        .find(|&i| pt.kind[i] == packet_event::DELIVER)
        .unwrap();
    let n = cells_for(pt.wire[first_send], true) as u64;
    let expect = 3_000_000 + (n + 2) * 10_000;
    assert_eq!(ns(pt.t[first_deliver]) - ns(pt.t[first_send]), expect);
}

#[test]
fn cells_and_packets_are_conserved_and_goodput_stays_under_the_cell_tax() {
    for (discard, extra) in [
        ("tail", json!({})),
        ("epd", json!({"epd_threshold": 3500})),
        ("ppd", json!({})),
    ] {
        let mut atm = json!({"discard": discard, "switch_buffer": 4096});
        for (k, v) in extra.as_object().unwrap() {
            atm[k] = v.clone();
        }
        let out = run(atm_dumbbell(20, "150Mbps", "5ms", "1us", atm));
        let r = &out.result;
        let total: f64 = r.flows.iter().map(|f| f.detail.tcp().goodput_bps).sum();
        let bound = transim_core::net::atm::aal5::goodput_bound(150e6, 2000, 40, true);
        eprintln!("{discard}: {:.1} Mbps", total / 1e6);
        assert!(total > 0.1 * bound, "{discard}: {total}");
        assert!(total < bound, "{discard}: {total} ≥ cell-tax bound {bound}");
        // Conservation is checked by the engine (a run fails otherwise); the cell counts of
        // the bottleneck port agree with the VCs' books.
        let bn = &r.links[0];
        assert_eq!(bn.unit, "cells");
        let cells_in: u64 = r
            .flows
            .iter()
            .map(|f| {
                let v = serde_json::to_value(f).unwrap();
                v["atm"]["data"]["sent"].as_u64().unwrap()
            })
            .sum();
        assert!(bn.packets_in <= cells_in);
    }
}

#[test]
fn epd_below_the_buffer_never_delivers_a_partial_frame() {
    // EPD threshold far below the buffer: every discard is a whole frame, so no frame with a
    // missing cell reaches reassembly; tail drop with the same buffer delivers many.
    let epd = run(atm_dumbbell(
        30,
        "150Mbps",
        "5ms",
        "1us",
        json!({"discard": "epd", "epd_threshold": 1000, "switch_buffer": 4096}),
    ));
    let tail = run(atm_dumbbell(
        30,
        "150Mbps",
        "5ms",
        "1us",
        json!({"discard": "tail", "switch_buffer": 1000}),
    ));
    let partial = |o: &transim_core::results::RunOutput| -> (u64, u64) {
        (0..o.result.flows.len())
            .map(|i| {
                let a = flow_atm(o, i);
                (
                    a["data"]["frames_partial"].as_u64().unwrap(),
                    a["data"]["cells_dropped"]["epd"].as_u64().unwrap()
                        + a["data"]["cells_dropped"]["queue"].as_u64().unwrap(),
                )
            })
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    };
    let (epd_partial, epd_dropped) = partial(&epd);
    let (tail_partial, tail_dropped) = partial(&tail);
    assert!(epd_dropped > 0, "the EPD run must discard something");
    assert_eq!(epd_partial, 0);
    assert!(tail_dropped > 0 && tail_partial > 0);
}

#[test]
fn host_processing_caps_a_sender_at_one_segment_per_processing_time() {
    // 300 µs per packet, MSS 2000: at most 2000·8 / 300 µs = 53.3 Mbps of goodput, whatever
    // the 150 Mbps path could carry (the window allows 64 KiB per ~1 ms RTT).
    let mut sc = atm_dumbbell(1, "150Mbps", "250us", "1us", json!({}));
    sc["endpoints"] = json!({"processing": "300us"});
    sc["duration"] = json!("2s");
    let out = run(sc);
    let g = out.result.flows[0].detail.tcp().goodput_bps;
    let cap = 2000.0 * 8.0 / 300e-6;
    assert!(g <= cap && g > 0.95 * cap, "goodput {g} vs cap {cap}");
}

#[test]
fn erica_converges_to_max_min_shares_for_unequal_demands() {
    // Three ABR VCs through a 150 Mbps bottleneck with ERICA (target 0.9 → A = 135 Mbps of
    // cells). VC 0's source is capped at 30 Mbps by its own access link (its PCR), so the
    // max-min shares of the bottleneck are 30, 52.5 and 52.5 Mbps of cells.
    let mut sc = atm_dumbbell(
        3,
        "150Mbps",
        "1ms",
        "1us",
        json!({"service": "abr", "feedback": "erica"}),
    );
    sc["flows"][0]["sender_access"] = json!({"rate": "30Mbps", "delay": "1us"});
    // Large windows keep every source greedy: cells always wait at its adapter, so it sends
    // at its ACR (ERICA's analysis assumes greedy sources).
    sc["tcp"]["rcv_buf"] = json!("16MiB");
    sc["tcp"]["snd_buf"] = json!("16MiB");
    sc["duration"] = json!("1s");
    let out = run(sc);
    // The max-min shares come from the solver, not from this comment.
    let a = 0.9 * 150e6;
    let demands: Vec<Demand> = [30e6, f64::INFINITY, f64::INFINITY]
        .iter()
        .map(|&max| Demand {
            links: vec![0],
            max,
        })
        .collect();
    let want = max_min_fair(&[a], &demands);
    for (i, w) in want.iter().enumerate() {
        let v = flow_atm(&out, i);
        let acr_bps = v["data"]["acr_mean"].as_f64().unwrap() * 424.0;
        assert!(
            (acr_bps - w).abs() < 0.03 * w,
            "VC {i}: mean ACR {:.1} Mbps, max-min share {:.1} Mbps",
            acr_bps / 1e6,
            w / 1e6
        );
    }
    // The bottleneck runs at ERICA's target utilisation.
    let u = out.result.links[0].utilisation;
    assert!((u - 0.9).abs() < 0.02, "utilisation {u}");
}

#[test]
fn efci_feedback_holds_the_buffer_and_shares_equally() {
    // Ten greedy ABR sources into one 150 Mbps port with a 4096-cell buffer. Without
    // feedback the sources climb to PCR and the buffer overflows; with EFCI (300/200) and a
    // gentle increase (RIF = 1/256) the sources settle at equal rates below the link rate
    // and no cell is lost. (With RIF = 1/16 each backward RM cell adds 1/16 of the link to
    // every source and binary feedback cannot hold the queue; study 2 shows the effect.)
    let mut sc = atm_dumbbell(
        10,
        "150Mbps",
        "1ms",
        "1us",
        json!({"service": "abr", "feedback": "efci",
               "abr": {"icr": "15Mbps", "rif": 0.00390625}}),
    );
    sc["tcp"]["rcv_buf"] = json!("16MiB");
    sc["tcp"]["snd_buf"] = json!("16MiB");
    sc["duration"] = json!("1s");
    let efci = run(sc.clone());
    sc["atm"] = json!({"service": "abr", "abr": {"icr": "15Mbps", "rif": 0.00390625}});
    let none = run(sc);
    let (e, n) = (&efci.result.links[0], &none.result.links[0]);
    assert!(e.port.unwrap().efci_marked > 0);
    assert_eq!(e.drops["queue"], 0, "EFCI lost cells");
    assert!(
        n.drops["queue"] > 0,
        "without feedback the buffer must overflow"
    );
    assert!(e.utilisation > 0.8, "utilisation {}", e.utilisation);
    let acr: Vec<f64> = (0..10)
        .map(|i| flow_atm(&efci, i)["data"]["acr_mean"].as_f64().unwrap())
        .collect();
    let mean = acr.iter().sum::<f64>() / 10.0;
    for a in &acr {
        assert!((a - mean).abs() < 0.05 * mean, "unequal ACRs {acr:?}");
    }
}

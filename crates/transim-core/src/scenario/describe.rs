//! What a scenario builds, as plain data: the nodes, every link direction (rate, delay, queue,
//! discipline, loss, scripted drops), every flow (ends, start, application) and each TCP
//! flow's options after its profile is applied. Tools that hand the same scenario to another
//! simulator (the ns-3 translator of `transim compare ns3`) read this rather than re-deriving
//! the topology generators and profiles.

use super::apps::app_bytes;
use super::profiles::resolve;
use super::schema::{AppKind, Protocol, Scenario};
use super::ScenarioError;
use crate::net::loss::LossModel;
use crate::net::QueueLimit;
use crate::sim::Time;
use crate::tcp::config::{DelayedAck, InitialWindow, TcpConfig};
use serde_json::{json, Value};

fn seconds(t: Time) -> f64 {
    t as f64 * 1e-9
}

/// The scenario as built, in the shape the module comment gives.
pub fn describe(sc: &Scenario) -> Result<Value, ScenarioError> {
    let sim = super::build(sc)?;
    let names = &sim.node_names;
    let links: Vec<Value> = sim
        .links
        .iter()
        .map(|l| {
            let (limit, unit) = match l.limit {
                QueueLimit::Packets(n) => (n, "packets"),
                QueueLimit::Bytes(n) => (n, "bytes"),
            };
            let loss = match l.loss() {
                LossModel::None => json!(null),
                LossModel::Bernoulli { p } => json!({"model": "bernoulli", "p": p}),
                LossModel::GilbertElliott {
                    p_gb,
                    p_bg,
                    loss_good,
                    loss_bad,
                    ..
                } => json!({"model": "gilbert_elliott", "p_gb": p_gb, "p_bg": p_bg,
                             "loss_good": loss_good, "loss_bad": loss_bad}),
            };
            json!({
                "name": sim.link_names[l.id as usize],
                "from": names[l.from as usize],
                "to": names[l.to as usize],
                "rate_bps": l.rate_bps,
                "delay": seconds(l.delay),
                "queue": limit,
                "queue_unit": unit,
                "qdisc": l.discipline(),
                "overhead": l.overhead,
                "loss": loss,
                "drop_packets": l.script().packets,
                "drop_segments": l.script().segments,
                "drops_at_enqueue": l.script().at_enqueue,
                "down": !l.down().is_empty(),
                "jitter": l.jitter().map(|j| seconds(j.max)),
                "reorder": l.jitter().is_some_and(|j| j.reorder),
                "cells": l.cells,
            })
        })
        .collect();
    let mut flows = Vec::with_capacity(sim.flows.len());
    for (i, (f, spec)) in sim.flows.iter().zip(&sc.flows).enumerate() {
        let app = format!("flows[{i}].app");
        let kind = match spec.app.kind {
            AppKind::Bulk => "bulk",
            AppKind::Finite => "finite",
            AppKind::Writes => "writes",
            AppKind::Files => "files",
            AppKind::Rounds => "rounds",
        };
        let tcp = match spec.protocol {
            Protocol::Tcp => {
                let (s, path) = match &spec.tcp {
                    Some(t) => (t.over(&sc.tcp), format!("flows[{i}].tcp")),
                    None => (sc.tcp.clone(), "tcp".to_string()),
                };
                tcp_options(&resolve(&s, &path)?)
            }
            _ => json!(null),
        };
        flows.push(json!({
            "name": f.name,
            "src": names[f.src as usize],
            "dst": names[f.dst as usize],
            "start": seconds(f.start),
            "protocol": if matches!(spec.protocol, Protocol::Tcp) { "tcp" } else { "sctp" },
            "app": kind,
            "bytes": app_bytes(&spec.app, &app)?,
            "tcp": tcp,
        }));
    }
    Ok(json!({
        "duration": seconds(sc.duration.0),
        "seed": sc.seed,
        "nodes": names,
        "links": links,
        "flows": flows,
        "atm": sim.atm.is_some(),
        "host_processing": sim.processors.iter().any(Option::is_some),
    }))
}

/// A TCP flow's options after its profile, in scenario units (seconds, bytes, names).
fn tcp_options(c: &TcpConfig) -> Value {
    let delayed_ack = match c.delayed_ack {
        DelayedAck::Off => json!({"kind": "off"}),
        DelayedAck::Every {
            count,
            timeout,
            quickacks,
        } => {
            json!({"kind": "every", "count": count, "timeout": seconds(timeout),
                   "quickacks": quickacks})
        }
        DelayedAck::Linux { timeout, .. } => {
            json!({"kind": "linux", "timeout": seconds(timeout)})
        }
    };
    let iw_rule = match c.initial_window {
        InitialWindow::Segments(_) => "segments",
        InitialWindow::Rfc3390 => "rfc3390",
        InitialWindow::Linux26 => "linux-2.6",
        InitialWindow::Rfc6928 => "rfc6928",
    };
    let mut d = json!({
        "profile": c.profile,
        "cc": c.cc.name(),
        "recovery": c.recovery.name(),
        "mss": c.mss,
        "mtu": c.mtu,
        "timestamps": c.timestamps,
        "sack": c.sack,
        "sack_blocks": c.sack_blocks,
        "window_scale": c.window_scale,
        "rcv_buf": c.rcv_buf,
        "snd_buf": c.snd_buf,
        "initial_window_rule": iw_rule,
        "initial_window_bytes": c.initial_window.bytes(c.mss),
        "initial_ssthresh": c.initial_ssthresh,
        "max_cwnd": c.max_cwnd,
        "cwnd_in_packets": matches!(c.cwnd_unit, crate::tcp::config::CwndUnit::Packets),
        "halving_base": format!("{:?}", c.halving_base).to_lowercase(),
        "grow_on_exit": c.grow_on_exit,
        "hystart": c.hystart.name(),
        "byte_counting": c.byte_counting.name(),
        "cwnd_growth": c.cwnd_growth.name(),
        "delayed_ack": delayed_ack,
        "nagle": format!("{:?}", c.nagle).to_lowercase(),
        "packetization": format!("{:?}", c.packetization).to_lowercase(),
        "limited_transmit": c.limited_transmit,
        "slow_start_after_idle": c.slow_start_after_idle,
        "prr": c.prr,
        "dsack": c.dsack,
        "undo": c.undo,
        "pacing": c.pacing,
        "ecn": c.ecn,
        "ful": c.ful.is_some(),
        "maxburst": c.maxburst,
        "ns2_arithmetic": c.ns2_window || c.ns2_fr_guard || c.ns2_handshake || c.sack_option_ns2,
        "precision_reduce": c.precision_reduce,
        "dupthresh": c.dupthresh,
        "rto_initial": seconds(c.rto_initial),
        "rto_min": seconds(c.rto_min),
        "rto_max": seconds(c.rto_max),
        "clock_granularity": seconds(c.clock_granularity),
    });
    // Only where set, so that every other flow's description stays as it was.
    if let Some(r) = c.read_rate {
        d["read_rate_bps"] = json!(r);
    }
    d
}

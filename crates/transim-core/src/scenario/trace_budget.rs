//! What the traces keep (flows, time window, sampling) and, before a run, how large they will
//! be: estimated from the capacity of each flow's narrowest link, and refused above
//! `trace.max_bytes` with the options that shrink them.

use super::error::ScenarioError;
use super::schema::Scenario;
use crate::engine::Simulation;
use crate::sim::Time;
use crate::tcp::trace::FLOW_ROW_BYTES;
use crate::trace::{TraceWindow, PACKET_ROW_BYTES};
use std::collections::BTreeMap;

/// Default limit on the traces' estimated size.
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;

/// The time window (and sampling interval) the traces keep.
pub(super) fn window(sc: &Scenario) -> Result<TraceWindow, ScenarioError> {
    let t = &sc.trace;
    let start = t.start.map_or(0, |d| d.0);
    let end = t.end.map_or(Time::MAX, |d| d.0);
    if start >= sc.duration.0 {
        return Err(ScenarioError::new(
            "trace.start",
            format!(
                "got {} s, at or after the end of the run ({} s): nothing would be traced",
                start as f64 * 1e-9,
                sc.duration.0 as f64 * 1e-9
            ),
        ));
    }
    if end <= start {
        return Err(ScenarioError::new(
            "trace.end",
            "is not after trace.start: nothing would be traced",
        ));
    }
    Ok(TraceWindow::new(start, end, t.interval.map_or(0, |d| d.0)))
}

/// Per flow, whether it is traced (None: every flow).
pub(super) fn selected(sc: &Scenario) -> Result<Option<Vec<bool>>, ScenarioError> {
    let Some(only) = &sc.trace.only_flows else {
        return Ok(None);
    };
    let mut keep = vec![false; sc.flows.len()];
    for (k, &i) in only.iter().enumerate() {
        match keep.get_mut(i as usize) {
            Some(k) => *k = true,
            None => {
                return Err(ScenarioError::new(
                    format!("trace.only_flows[{k}]"),
                    format!(
                        "got {i}; the scenario has {} flows (indices 0 to {})",
                        sc.flows.len(),
                        sc.flows.len().saturating_sub(1)
                    ),
                ))
            }
        }
    }
    Ok(Some(keep))
}

/// Per flow, the window its per-flow series keeps (None: not traced). Computed once for all
/// flows.
pub(super) fn flow_windows(sc: &Scenario) -> Result<Vec<Option<TraceWindow>>, ScenarioError> {
    if !sc.trace.flows {
        return Ok(vec![None; sc.flows.len()]);
    }
    let w = window(sc)?;
    Ok(match selected(sc)? {
        Some(keep) => keep.into_iter().map(|k| k.then_some(w)).collect(),
        None => vec![Some(w); sc.flows.len()],
    })
}

/// Estimated size of the traces in bytes, and the number of rows.
pub fn estimate(sc: &Scenario, sim: &Simulation) -> (u64, u64) {
    let t = &sc.trace;
    if !t.flows && !t.packets {
        return (0, 0);
    }
    let Ok(w) = window(sc) else { return (0, 0) };
    let keep = selected(sc).ok().flatten();
    let (ws, we) = (w.start, w.end.min(sc.duration.0));
    // Per narrowest link: its packet capacity over the window, and the flows limited by it.
    let mut by_link: BTreeMap<u32, (f64, Vec<(usize, f64)>)> = BTreeMap::new();
    for (i, f) in sim.flows.iter().enumerate() {
        if keep.as_ref().is_some_and(|k| !k[i]) {
            continue;
        }
        let Some((narrowest, rtt)) = path_facts(sim, f.src, f.dst, i as u32) else {
            continue;
        };
        let hint = f.transport.volume_hint();
        let rate = sim.links[narrowest as usize].rate_bps;
        let bits = 8.0 * hint.packet_bytes as f64;
        // The flow can send no faster than its window per round trip.
        let rate_flow = match hint.window_bytes {
            Some(w) => rate.min(8.0 * w as f64 / (rtt as f64 * 1e-9)),
            None => rate,
        };
        let active = we.saturating_sub(ws.max(f.start)) as f64 * 1e-9;
        let mut packets = rate_flow * active / bits;
        if let Some(b) = hint.app_bytes {
            // A finite transfer, plus retransmissions (generously: half again).
            packets = packets.min(1.5 * b as f64 / hint.packet_bytes.max(1) as f64 + 10.0);
        }
        let e = by_link.entry(narrowest).or_insert((0.0, Vec::new()));
        e.0 = e.0.max(rate * (we - ws) as f64 * 1e-9 / bits);
        e.1.push((i, packets));
    }
    let (mut packet_rows, mut flow_rows) = (0.0f64, 0.0f64);
    for (cap, flows) in by_link.values() {
        let demand: f64 = flows.iter().map(|f| f.1).sum();
        let share = if demand > *cap { cap / demand } else { 1.0 };
        for &(i, packets) in flows {
            let packets = packets * share;
            // Data and its ACK, each sent and delivered.
            packet_rows += 4.0 * packets;
            let start = ws.max(sim.flows[i].start);
            let samples = match w.interval {
                0 => f64::INFINITY,
                iv => we.saturating_sub(start) as f64 / iv as f64 + 1.0,
            };
            flow_rows += packets.min(samples);
        }
    }
    let packet_rows = if t.packets { packet_rows } else { 0.0 };
    let flow_rows = if t.flows { flow_rows } else { 0.0 };
    let bytes = packet_rows * PACKET_ROW_BYTES as f64 + flow_rows * FLOW_ROW_BYTES as f64;
    (bytes as u64, (packet_rows + flow_rows) as u64)
}

/// The slowest link on the route from `src` to `dst`, and the round trip: twice the
/// propagation delays plus one full packet's serialisation per hop each way (so a path of
/// zero-delay links still has a finite round trip).
fn path_facts(sim: &Simulation, src: u32, dst: u32, flow: u32) -> Option<(u32, crate::sim::Time)> {
    let hops = crate::results::route(sim, src, dst, flow);
    let narrowest = hops
        .iter()
        .copied()
        .min_by(|&a, &b| sim.links[a].rate_bps.total_cmp(&sim.links[b].rate_bps))?;
    let rtt: crate::sim::Time = hops
        .iter()
        .map(|&l| {
            let link = &sim.links[l];
            2 * link.delay + 2 * (1500.0 * 8.0 / link.rate_bps * 1e9) as crate::sim::Time
        })
        .sum();
    Some((narrowest as u32, rtt.max(1)))
}

/// Refuse a run whose traces would exceed `trace.max_bytes`.
pub(super) fn check(sc: &Scenario, sim: &Simulation) -> Result<(), ScenarioError> {
    let limit = sc.trace.max_bytes.map_or(DEFAULT_MAX_BYTES, |s| s.0);
    let (bytes, rows) = estimate(sc, sim);
    if bytes <= limit {
        return Ok(());
    }
    Err(ScenarioError::new(
        "trace",
        format!(
            "the traces would take about {} ({} rows; estimated from the flows' narrowest links), \
             more than trace.max_bytes = {}. Keep less: trace.only_flows = [0, …], a window with \
             trace.start / trace.end, one row per trace.interval in the per-flow series, \
             trace.packets = false; or raise trace.max_bytes",
            human(bytes),
            rows,
            human(limit)
        ),
    ))
}

fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", b / 1e6)
    }
}

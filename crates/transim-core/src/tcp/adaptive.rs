//! The adaptive framework of study 3: a connection starts with one congestion control,
//! estimates its path (capacity by TCP-Probe, one-way delay as half the minimum RTT, loss rate
//! by LEAST), looks the estimate up in a decision map built offline, and switches when the map
//! gives its current variant priority 3 (significantly worse than the best there). It keeps
//! estimating and may switch again. The oracle variant looks up the true path instead, to
//! separate the map's quality from the estimators' error.

use super::cc::CcKind;
use crate::sim::Time;
use serde::Serialize;
use std::sync::Arc;

/// One environment of a decision map.
#[derive(Clone, Debug, PartialEq)]
pub struct MapCell {
    /// Bottleneck bandwidth (bit/s), one-way delay (s), loss rate (fraction).
    pub env: [f64; 3],
    /// The variant with the highest mean throughput (priority 1).
    pub best: CcKind,
    /// Priority of every variant of the map (1 best, 2 not significantly worse, 3 worse).
    pub priority: Vec<(CcKind, u8)>,
}

/// A decision map: environments and the priority of each variant in them.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionMap {
    /// The cells.
    pub cells: Vec<MapCell>,
}

/// Smallest loss rate used on the log scale (a cell or estimate of 0 counts as this).
const LOSS_FLOOR: f64 = 1e-5;

fn logs(env: [f64; 3]) -> [f64; 3] {
    [
        env[0].max(1.0).log10(),
        env[1].max(1e-6).log10(),
        env[2].max(LOSS_FLOOR).log10(),
    ]
}

impl DecisionMap {
    /// Read a map from its JSON form (`transim decision-map build` writes it): `cells` with
    /// `env = [bandwidth_bps, delay_s, loss]`, `best` and `priority = {variant: 1|2|3}`.
    pub fn from_json(v: &serde_json::Value) -> Result<Self, String> {
        let cells = v
            .get("cells")
            .and_then(|c| c.as_array())
            .ok_or("has no `cells` list; is it a transim decision map?")?;
        let mut out = Vec::with_capacity(cells.len());
        for (i, c) in cells.iter().enumerate() {
            let env = c
                .get("env")
                .and_then(|e| e.as_array())
                .filter(|e| e.len() == 3)
                .and_then(|e| {
                    let v: Vec<f64> = e.iter().filter_map(|x| x.as_f64()).collect();
                    (v.len() == 3 && v.iter().all(|x| x.is_finite() && *x >= 0.0))
                        .then(|| [v[0], v[1], v[2]])
                })
                .ok_or(format!(
                    "cells[{i}].env: expected [bandwidth_bps, delay_s, loss]"
                ))?;
            let name = |n: &str, what: &str| {
                CcKind::from_name(n).ok_or(format!(
                    "cells[{i}].{what}: {n:?} is not a congestion control"
                ))
            };
            let best = name(
                c.get("best")
                    .and_then(|b| b.as_str())
                    .ok_or(format!("cells[{i}].best: expected a variant name"))?,
                "best",
            )?;
            let mut priority = Vec::new();
            for (k, p) in c
                .get("priority")
                .and_then(|p| p.as_object())
                .ok_or(format!("cells[{i}].priority: expected a table"))?
            {
                let p = p
                    .as_u64()
                    .filter(|p| (1..=3).contains(p))
                    .ok_or(format!("cells[{i}].priority.{k}: expected 1, 2 or 3"))?;
                priority.push((name(k, &format!("priority.{k}"))?, p as u8));
            }
            out.push(MapCell {
                env,
                best,
                priority,
            });
        }
        if out.is_empty() {
            return Err("has no cells".into());
        }
        Ok(DecisionMap { cells: out })
    }

    /// The cell nearest to `env` on log scales (bandwidth, delay, loss).
    pub fn lookup(&self, env: [f64; 3]) -> &MapCell {
        let x = logs(env);
        self.cells
            .iter()
            .min_by(|a, b| {
                let d = |c: &MapCell| {
                    let y = logs(c.env);
                    (0..3).map(|i| (x[i] - y[i]).powi(2)).sum::<f64>()
                };
                d(a).total_cmp(&d(b))
            })
            .expect("maps have cells")
    }
}

impl MapCell {
    /// The priority of `kind` here (a variant the map does not know: 3, switch away).
    pub fn priority_of(&self, kind: CcKind) -> u8 {
        self.priority
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(3, |(_, p)| *p)
    }
}

/// What the framework decided at one look-up.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// When (s).
    pub t: f64,
    /// The estimate: bandwidth (bit/s), one-way delay (s), loss rate.
    pub estimate: [f64; 3],
    /// The map cell it fell in.
    pub cell: [f64; 3],
    /// The variant running.
    pub from: String,
    /// Its priority there.
    pub priority: u8,
    /// The variant switched to, if any.
    pub to: Option<String>,
}

/// The framework's settings and record for one connection.
#[derive(Clone, Debug)]
pub struct Adaptive {
    /// The decision map.
    pub map: Arc<DecisionMap>,
    /// Time between look-ups.
    pub interval: Time,
    /// Oracle: the true path (bandwidth, one-way delay, loss) instead of the estimates.
    pub oracle: Option<[f64; 3]>,
    /// Decisions taken.
    pub decisions: Vec<Decision>,
}

impl Adaptive {
    /// Look `estimate` up with `current` running at `now`; returns the variant to switch to.
    pub fn decide(&mut self, now: Time, estimate: [f64; 3], current: CcKind) -> Option<CcKind> {
        let cell = self.map.lookup(estimate);
        let priority = cell.priority_of(current);
        let to = (priority == 3 && cell.best != current).then_some(cell.best);
        self.decisions.push(Decision {
            t: now as f64 * 1e-9,
            estimate,
            cell: cell.env,
            from: current.name().to_string(),
            priority,
            to: to.map(|k| k.name().to_string()),
        });
        to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> DecisionMap {
        DecisionMap::from_json(&serde_json::json!({"cells": [
            {"env": [1e6, 0.01, 0.001], "best": "reno",
             "priority": {"reno": 1, "cubic": 2, "westwood": 3}},
            {"env": [1e8, 0.3, 0.01], "best": "westwood",
             "priority": {"reno": 3, "cubic": 3, "westwood": 1}},
        ]}))
        .unwrap()
    }

    #[test]
    fn nearest_cell_on_log_scales() {
        let m = map();
        assert_eq!(m.lookup([2e6, 0.02, 0.002]).best, CcKind::Reno);
        assert_eq!(m.lookup([5e7, 0.2, 0.02]).best, CcKind::Westwood);
        // A loss of 0 is read as 1e-5, still nearest the low-loss cell.
        assert_eq!(m.lookup([1e6, 0.01, 0.0]).best, CcKind::Reno);
    }

    #[test]
    fn switches_only_from_priority_three() {
        let mut a = Adaptive {
            map: Arc::new(map()),
            interval: 1,
            oracle: None,
            decisions: vec![],
        };
        assert_eq!(a.decide(0, [1e6, 0.01, 0.001], CcKind::Cubic), None);
        assert_eq!(
            a.decide(1, [1e6, 0.01, 0.001], CcKind::Westwood),
            Some(CcKind::Reno)
        );
        assert_eq!(
            a.decide(2, [1e8, 0.3, 0.01], CcKind::Reno),
            Some(CcKind::Westwood)
        );
        assert_eq!(a.decide(3, [1e8, 0.3, 0.01], CcKind::Westwood), None);
        assert_eq!(a.decisions.len(), 4);
        assert_eq!(a.decisions[1].to.as_deref(), Some("reno"));
    }

    #[test]
    fn malformed_maps_are_refused_with_the_place() {
        let e = DecisionMap::from_json(&serde_json::json!({"cells": [
            {"env": [1e6, 0.01], "best": "reno", "priority": {}}]}))
        .unwrap_err();
        assert!(e.contains("cells[0].env"), "{e}");
        let e = DecisionMap::from_json(&serde_json::json!({"cells": [
            {"env": [1e6, 0.01, 0.0], "best": "nope", "priority": {}}]}))
        .unwrap_err();
        assert!(e.contains("cells[0].best"), "{e}");
    }
}

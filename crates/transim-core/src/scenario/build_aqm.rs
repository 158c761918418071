//! A link direction's queue discipline from its scenario fields: the schedulers, and the
//! active queue managers (RED, CoDel, FQ-CoDel, PIE, DualPI2) with their `aqm` table checked field
//! by field.

use super::error::ScenarioError;
use super::schema::{AqmSpec, QdiscSpec};
use crate::net::qdisc::{
    AckFilter, CoDel, CoDelParams, Drr, DualPi2, DualPi2Params, FqCoDel, FqCoDelParams, Pie,
    PieParams, Red, RedParams, Sched, Step,
};
use crate::sim::rng::Rng;
use crate::sim::Time;

/// The discipline `kind` with the parameters of `aqm` (given at `aqm_path`) on a link of
/// `rate` bit/s; None for the drop-tail FIFOs. RED's and PIE's random streams are placeholders
/// until the link they serve is named ([`Sched::reseed`]).
pub(super) fn scheduler(
    kind: QdiscSpec,
    aqm: Option<&AqmSpec>,
    aqm_path: &str,
    rate: f64,
) -> Result<Option<Sched>, ScenarioError> {
    let field = |name: &str| format!("{aqm_path}.{name}");
    if let Some(a) = aqm {
        let given = given_fields(a);
        let allowed: &[&str] = match kind {
            QdiscSpec::Red => &[
                "ecn",
                "min_th",
                "max_th",
                "max_p",
                "w_q",
                "gentle",
                "adaptive",
                "wait",
                "mean_packet",
            ],
            QdiscSpec::Codel => &["ecn", "target", "interval"],
            QdiscSpec::FqCodel => &["ecn", "target", "interval", "quantum", "flows"],
            QdiscSpec::Pie => &[
                "ecn",
                "target",
                "t_update",
                "alpha",
                "beta",
                "max_burst",
                "mean_packet",
            ],
            QdiscSpec::Step => &["k"],
            QdiscSpec::Dualpi2 => &[
                "target",
                "t_update",
                "alpha",
                "beta",
                "coupling",
                "l4s_threshold",
                "l4s_range",
                "c_protection",
                "tshift",
            ],
            _ => {
                return Err(ScenarioError::new(
                    aqm_path,
                    format!(
                        "qdisc \"{}\" takes no aqm parameters; they are for \"red\", \"codel\", \"fq_codel\", \"pie\", \"step\" and \"dualpi2\"",
                        kind.name()
                    ),
                ))
            }
        };
        if let Some(bad) = given.iter().find(|g| !allowed.contains(g)) {
            return Err(ScenarioError::new(
                field(bad),
                format!(
                    "is not a parameter of qdisc \"{}\" (it takes {})",
                    kind.name(),
                    allowed.join(", ")
                ),
            ));
        }
    }
    let empty = AqmSpec::default();
    let a = aqm.unwrap_or(&empty);
    Ok(match kind {
        QdiscSpec::DropTail | QdiscSpec::DropTailNs2 => None,
        QdiscSpec::Fq => Some(Sched::Fq(Drr::new(1500))),
        QdiscSpec::AckFilter => Some(Sched::AckFilter(AckFilter::default())),
        QdiscSpec::Red => {
            let mean_packet = a.mean_packet.map_or(500, |s| s.0);
            if mean_packet == 0 {
                return Err(ScenarioError::new(
                    field("mean_packet"),
                    "got 0 bytes; expected a positive size",
                ));
            }
            let d = RedParams::defaults(rate / (8.0 * mean_packet as f64));
            let p = RedParams {
                min_th: a.min_th.unwrap_or(d.min_th),
                max_th: a.max_th.unwrap_or(d.max_th),
                max_p: a.max_p.map_or(d.max_p, |p| p.0),
                w_q: a.w_q.unwrap_or(d.w_q),
                gentle: a.gentle.unwrap_or(d.gentle),
                adaptive: a.adaptive.unwrap_or(d.adaptive),
                wait: a.wait.unwrap_or(d.wait),
                ecn: a.ecn.unwrap_or(false),
                ..d
            };
            if !(p.min_th.is_finite() && p.min_th >= 0.0) {
                return Err(ScenarioError::new(
                    field("min_th"),
                    format!("got {}; expected a number of packets >= 0", p.min_th),
                ));
            }
            if !(p.max_th.is_finite() && p.max_th > p.min_th) {
                return Err(ScenarioError::new(
                    field("max_th"),
                    format!(
                        "got {}; expected a number of packets above min_th ({})",
                        p.max_th, p.min_th
                    ),
                ));
            }
            if p.max_p <= 0.0 {
                return Err(ScenarioError::new(
                    field("max_p"),
                    "got 0; expected a probability in (0, 1]",
                ));
            }
            if !(p.w_q > 0.0 && p.w_q <= 1.0) {
                return Err(ScenarioError::new(
                    field("w_q"),
                    format!("got {}; expected a weight in (0, 1]", p.w_q),
                ));
            }
            Some(Sched::Red(Box::new(Red::new(p, Rng::stream(0, "red")))))
        }
        QdiscSpec::Codel => Some(Sched::CoDel(Box::new(CoDel::new(codel(a, aqm_path)?)))),
        QdiscSpec::FqCodel => {
            let d = FqCoDelParams::default();
            let p = FqCoDelParams {
                codel: codel(a, aqm_path)?,
                quantum: a.quantum.map_or(d.quantum, |q| q.0),
                buckets: a.flows.unwrap_or(d.buckets),
            };
            if p.quantum == 0 {
                return Err(ScenarioError::new(
                    field("quantum"),
                    "got 0 bytes; expected a positive size",
                ));
            }
            if !(1..=65_536).contains(&p.buckets) {
                return Err(ScenarioError::new(
                    field("flows"),
                    format!("got {}; expected 1 to 65536 flow queues", p.buckets),
                ));
            }
            Some(Sched::FqCoDel(Box::new(FqCoDel::new(p))))
        }
        QdiscSpec::Step => Some(Sched::Step(Step::new(a.k.unwrap_or(20)))),
        QdiscSpec::Pie => {
            let d = PieParams::default();
            let (target, t_update, alpha, beta) =
                pi_controller(a, aqm_path, (d.target, d.t_update, d.alpha, d.beta))?;
            let p = PieParams {
                target,
                t_update,
                alpha,
                beta,
                max_burst: a.max_burst.map_or(d.max_burst, |t| t.0),
                ecn: a.ecn.unwrap_or(false),
                mean_packet: a.mean_packet.map_or(d.mean_packet, |s| s.0),
            };
            Some(Sched::Pie(Box::new(Pie::new(p, Rng::stream(0, "pie")))))
        }
        QdiscSpec::Dualpi2 => Some(Sched::DualPi2(Box::new(DualPi2::new(
            dualpi2(a, aqm_path)?,
            Rng::stream(0, "dualpi2"),
        )))),
    })
}

/// A PI controller's target, update period and gains (PIE, DualPI2's PI2): `defaults`
/// overridden by the `aqm` table, checked alike (positive durations, finite gains >= 0).
fn pi_controller(
    a: &AqmSpec,
    aqm_path: &str,
    defaults: (Time, Time, f64, f64),
) -> Result<(Time, Time, f64, f64), ScenarioError> {
    let target = a.target.map_or(defaults.0, |t| t.0);
    let t_update = a.t_update.map_or(defaults.1, |t| t.0);
    let alpha = a.alpha.unwrap_or(defaults.2);
    let beta = a.beta.unwrap_or(defaults.3);
    for (name, v) in [("target", target), ("t_update", t_update)] {
        if v == 0 {
            return Err(ScenarioError::new(
                format!("{aqm_path}.{name}"),
                "got 0 s; expected a positive duration",
            ));
        }
    }
    for (name, v) in [("alpha", alpha), ("beta", beta)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(ScenarioError::new(
                format!("{aqm_path}.{name}"),
                format!("got {v}; expected a weight >= 0 (per second)"),
            ));
        }
    }
    Ok((target, t_update, alpha, beta))
}

/// DualPI2's parameters from the `aqm` table.
fn dualpi2(a: &AqmSpec, aqm_path: &str) -> Result<DualPi2Params, ScenarioError> {
    let field = |name: &str| format!("{aqm_path}.{name}");
    let d = DualPi2Params::default();
    let (target, t_update, alpha, beta) =
        pi_controller(a, aqm_path, (d.target, d.t_update, d.alpha, d.beta))?;
    let p = DualPi2Params {
        target,
        t_update,
        alpha,
        beta,
        coupling: a.coupling.unwrap_or(d.coupling),
        l4s_threshold: a.l4s_threshold.map_or(d.l4s_threshold, |t| t.0),
        l4s_range: a.l4s_range.map_or(d.l4s_range, |t| t.0),
        c_protection: a.c_protection.map_or(d.c_protection, |p| p.0),
        tshift: a.tshift.map(|t| t.0).or(d.tshift),
    };
    if !(p.coupling.is_finite() && p.coupling > 0.0) {
        return Err(ScenarioError::new(
            field("coupling"),
            format!(
                "got {}; expected a factor > 0 (RFC 9332 recommends 2)",
                p.coupling
            ),
        ));
    }
    Ok(p)
}

/// CoDel's parameters from the `aqm` table.
fn codel(a: &AqmSpec, aqm_path: &str) -> Result<CoDelParams, ScenarioError> {
    let d = CoDelParams::default();
    let p = CoDelParams {
        target: a.target.map_or(d.target, |t| t.0),
        interval: a.interval.map_or(d.interval, |t| t.0),
        ecn: a.ecn.unwrap_or(false),
        ..d
    };
    for (name, v) in [("target", p.target), ("interval", p.interval)] {
        if v == 0 {
            return Err(ScenarioError::new(
                format!("{aqm_path}.{name}"),
                "got 0 s; expected a positive duration",
            ));
        }
    }
    Ok(p)
}

/// Names of the fields set in `a`.
fn given_fields(a: &AqmSpec) -> Vec<&'static str> {
    [
        ("ecn", a.ecn.is_some()),
        ("min_th", a.min_th.is_some()),
        ("max_th", a.max_th.is_some()),
        ("max_p", a.max_p.is_some()),
        ("w_q", a.w_q.is_some()),
        ("gentle", a.gentle.is_some()),
        ("adaptive", a.adaptive.is_some()),
        ("wait", a.wait.is_some()),
        ("mean_packet", a.mean_packet.is_some()),
        ("target", a.target.is_some()),
        ("interval", a.interval.is_some()),
        ("quantum", a.quantum.is_some()),
        ("flows", a.flows.is_some()),
        ("t_update", a.t_update.is_some()),
        ("alpha", a.alpha.is_some()),
        ("beta", a.beta.is_some()),
        ("max_burst", a.max_burst.is_some()),
        ("k", a.k.is_some()),
        ("coupling", a.coupling.is_some()),
        ("l4s_threshold", a.l4s_threshold.is_some()),
        ("l4s_range", a.l4s_range.is_some()),
        ("c_protection", a.c_protection.is_some()),
        ("tshift", a.tshift.is_some()),
    ]
    .into_iter()
    .filter_map(|(n, set)| set.then_some(n))
    .collect()
}

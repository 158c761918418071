//! Build a TCP flow's connection from its scenario tables.

use super::apps::{app_bytes, pieces, write_times};
use super::build::{forbid, Net};
use super::error::ScenarioError;
use super::names::{decimal, numbered};
use super::profiles::resolve;
use super::schema::*;
use crate::engine::Routes;
use crate::results::route_on;
use crate::sim::rng::Rng;
use crate::sim::{Time, SECOND};
use crate::tcp::adaptive::{Adaptive, DecisionMap};
use crate::tcp::cc::CcKind;
use crate::tcp::config::{Packetization, TcpConfig};
use crate::tcp::connection::TcpConnection;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::tcp::timers;
use crate::transport::Transport;
use std::borrow::Cow;
use std::sync::Arc;

/// TCP configurations flows share as they are built: the one of flows without a `tcp`
/// table of their own, and the last one resolved from a flow's own table, which the next
/// flow with an equal table takes (the copies of a `count` entry, a traffic pattern's flows).
#[derive(Default)]
pub(super) struct SharedConfigs {
    default: Option<Arc<TcpConfig>>,
    last: Option<(Box<TcpSpec>, Arc<TcpConfig>)>,
    /// Some flow runs CUBIC at some point (so a scenario-wide `tcp.hystart` applies).
    pub(super) cubic_seen: bool,
}

impl SharedConfigs {
    /// `tcp.hystart` set for the whole scenario, which no flow can use, is refused (a flow's
    /// own `hystart` on a flow without CUBIC is refused as the flow is built).
    pub(super) fn check_hystart(&self, sc: &Scenario) -> Result<(), ScenarioError> {
        match sc.tcp.hystart {
            Some(h) if h != HyStartSpec::Off && !self.cubic_seen => Err(ScenarioError::new(
                "tcp.hystart",
                "is CUBIC's slow start, and no flow runs CUBIC (cc = \"cubic\" or \"cubic-2.6\", a switch to one, or \"adaptive\")",
            )),
            _ => Ok(()),
        }
    }
}

/// The connection of flow `i` between nodes `(s, d)`.
pub(super) fn connection(
    sc: &Scenario,
    i: usize,
    (s, d): (u32, u32),
    net: &Net,
    routes: &Routes,
    trace: Option<crate::trace::TraceWindow>,
    shared: &mut SharedConfigs,
) -> Result<Box<dyn Transport>, ScenarioError> {
    let f = &sc.flows[i];
    let why = "for a TCP flow (protocol = \"tcp\")";
    forbid(&f.sctp, format_args!("flows[{i}].sctp"), why)?;
    forbid(&f.paths, format_args!("flows[{i}].paths"), why)?;
    // (Borrowed when the flow has no `tcp` table of its own: no copy per flow.)
    let (spec, path): (Cow<TcpSpec>, Cow<str>) = match &f.tcp {
        Some(t) => (
            Cow::Owned(t.over(&sc.tcp)),
            numbered("flows[", i as u64, "].tcp").into(),
        ),
        None => (Cow::Borrowed(&sc.tcp), "tcp".into()),
    };
    // Flows share configurations (each resolved once): with many flows they then stay in
    // the cache, and each flow's endpoints hold a pointer to one.
    let cfg = match (&f.tcp, shared.default.as_ref(), &shared.last) {
        (None, Some(c), _) => Arc::clone(c),
        (None, None, _) => shared
            .default
            .insert(Arc::new(resolve(&spec, &path)?))
            .clone(),
        (Some(_), _, Some((last, c))) if **last == *spec => Arc::clone(c),
        (Some(_), _, _) => {
            let c = Arc::new(resolve(&spec, &path)?);
            shared.last = Some((Box::new(spec.clone().into_owned()), Arc::clone(&c)));
            c
        }
    };
    if let Some(ful) = cfg.ful {
        let up = &net.links[routes.next(d, s, i as u32) as usize];
        if ful.high.is_none() && up.limit_packets().is_none() {
            return Err(ScenarioError::new(
                format!("{path}.ful_high"),
                format!("is required: the receiver's uplink queue ({}) is limited in bytes, so FUL needs a high-water mark in packets", net.link_names[up.id as usize]),
            ));
        }
    }
    let app_bytes = app_bytes(&f.app, &numbered("flows[", i as u64, "].app"))?;
    let mut switches = Vec::new();
    for (k, sw) in f.switch.iter().flatten().enumerate() {
        let p = format!("flows[{i}].switch[{k}]");
        let kind = crate::tcp::cc::CcKind::from_name(&sw.cc).ok_or_else(|| {
            let names: Vec<_> = crate::tcp::cc::CcKind::ALL
                .iter()
                .map(|(n, _)| format!("\"{n}\""))
                .collect();
            ScenarioError::new(
                format!("{p}.cc"),
                format!("got {:?}; expected one of {}", sw.cc, names.join(", ")),
            )
        })?;
        if let Some(&(prev, _)) = switches.last() {
            if sw.at.0 < prev {
                return Err(ScenarioError::new(
                    format!("{p}.at"),
                    "is earlier than the switch before it; list switches in time order",
                ));
            }
        }
        switches.push((sw.at.0, kind));
    }
    let cubic = runs_cubic(&cfg, &spec, &switches);
    shared.cubic_seen |= cubic;
    if let Some(h) = f.tcp.as_ref().and_then(|t| t.hystart) {
        if h != HyStartSpec::Off && !cubic {
            return Err(ScenarioError::new(
                format!("{path}.hystart"),
                format!(
                    "got \"{}\"; HyStart is CUBIC's slow start (cc = \"cubic\" or \"cubic-2.6\", or a switch to one), and this flow's cc is \"{}\"",
                    cfg.hystart.name(),
                    cfg.cc.name()
                ),
            ));
        }
    }
    let most = (u16::MAX - timers::SWITCH) as usize;
    if switches.len() > most {
        return Err(ScenarioError::new(
            format!("flows[{i}].switch"),
            format!(
                "has {} switches; at most {most} are allowed",
                switches.len()
            ),
        ));
    }
    let mut sender = TcpSender::new(Arc::clone(&cfg), i as u32, s, d, app_bytes, trace);
    if let (AppKind::Bulk, Some(piece)) = (f.app.kind, f.app.piece) {
        let p = format!("flows[{i}].app.piece");
        if cfg.packetization != Packetization::Stream {
            return Err(ScenarioError::new(
                p,
                format!("needs {path}.packetization = \"stream\": a bulk application's pieces are written into one buffered stream"),
            ));
        }
        match cfg.snd_buf {
            None => {
                return Err(ScenarioError::new(
                    p,
                    format!("needs {path}.snd_buf: pieces are written when the send buffer has room for one"),
                ))
            }
            Some(b) if piece.0 > b => {
                return Err(ScenarioError::new(
                    p,
                    format!("got {} bytes, more than the send buffer ({b} bytes)", piece.0),
                ))
            }
            Some(_) => sender.bulk_piece = Some(piece.0),
        }
    }
    if let (Some(pieces), Packetization::Write) = (pieces(&f.app), cfg.packetization) {
        sender.write_in_pieces(pieces);
    }
    if let (Some(at), Some(sizes)) = (write_times(&f.app), pieces(&f.app)) {
        sender.write_at(at, &sizes);
    }
    // A rounds application writes its first round now, the others as the rounds come.
    let rounds = match (f.app.kind, f.app.bytes, app_bytes) {
        (AppKind::Rounds, Some(round), Some(total)) => {
            sender.release(round.0, round.0 == total);
            Some((round.0, total))
        }
        _ => None,
    };
    sender.seed_cc(Rng::stream_joined(
        sc.seed,
        &["cc/", decimal(i as u64, &mut [0; 20])],
    ));
    let mut receiver = TcpReceiver::new(cfg, i as u32, d, s);
    if let Some((round, total)) = rounds {
        receiver.in_rounds(round, total);
    }
    let mut conn = TcpConnection::new(i as u32, sender, receiver, switches);
    conn.adaptive = adaptive(&spec, &path, net, routes, (s, d), i as u32)?;
    Ok(Box::new(conn))
}

/// The adaptive framework of a flow with `cc = "adaptive"`.
fn adaptive(
    spec: &TcpSpec,
    path: &str,
    net: &Net,
    routes: &Routes,
    (s, d): (u32, u32),
    flow: u32,
) -> Result<Option<Adaptive>, ScenarioError> {
    let on = spec.cc.as_deref() == Some("adaptive");
    let Some(a) = &spec.adaptive else {
        if on {
            return Err(ScenarioError::new(
                format!("{path}.adaptive.map"),
                "is required with cc = \"adaptive\": the decision map to look the path up in \
                 (transim decision-map build writes one)",
            ));
        }
        return Ok(None);
    };
    if !on {
        return Err(ScenarioError::new(
            format!("{path}.adaptive"),
            "is set but cc is not \"adaptive\"",
        ));
    }
    let mp = format!("{path}.adaptive.map");
    let text = std::fs::read_to_string(&a.map)
        .map_err(|e| ScenarioError::new(&mp, format!("cannot read {:?}: {e}", a.map)))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| ScenarioError::new(&mp, format!("{:?} is not JSON: {e}", a.map)))?;
    let map = DecisionMap::from_json(&value)
        .map_err(|e| ScenarioError::new(&mp, format!("{:?} {e}", a.map)))?;
    let interval = a.interval.map_or(SECOND, |t| t.0);
    if interval == 0 {
        return Err(ScenarioError::new(
            format!("{path}.adaptive.interval"),
            "got 0; expected a positive time between look-ups",
        ));
    }
    let oracle = a.oracle.unwrap_or(false).then(|| {
        // The true path: narrowest link, one-way propagation, and the loss the data
        // direction's loss models imply.
        let (mut bw, mut delay, mut keep) = (f64::INFINITY, 0.0, 1.0);
        for l in route_on(routes, &net.links, s, d, flow) {
            let l = &net.links[l];
            bw = bw.min(l.rate_bps);
            delay += l.delay as f64 * 1e-9;
            keep *= 1.0 - l.loss().mean_loss_rate();
        }
        [bw, delay, 1.0 - keep]
    });
    Ok(Some(Adaptive {
        map: Arc::new(map),
        interval,
        oracle,
        decisions: vec![],
    }))
}

/// The flow runs CUBIC at some point: from the start, after a scheduled switch, or as one of
/// the adaptive framework's variants.
fn runs_cubic(cfg: &TcpConfig, spec: &TcpSpec, switches: &[(Time, CcKind)]) -> bool {
    let cubic = |k: CcKind| matches!(k, CcKind::Cubic | CcKind::Cubic26);
    cubic(cfg.cc)
        || switches.iter().any(|&(_, k)| cubic(k))
        || spec.cc.as_deref() == Some("adaptive")
}

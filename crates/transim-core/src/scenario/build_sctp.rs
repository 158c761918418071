//! Build an SCTP flow's association from its scenario tables.

use super::apps::{app_bytes, sctp_messages, write_times};
use super::build::{check_path, forbid, Net};
use super::error::ScenarioError;
use super::schema::*;
use crate::engine::Routes;
use crate::sctp::association::SctpAssociation;
use crate::sctp::config::{SctpConfig, StreamScheduler};
use crate::sctp::path::Path;
use crate::sctp::receiver::SctpReceiver;
use crate::sctp::sender::SctpSender;
use crate::sctp::timers::MAX_PATHS;
use crate::transport::Transport;

/// Resolve the merged SCTP table of one flow; `path` names where its fields came from.
pub fn resolve_sctp(spec: &SctpSpec, path: &str) -> Result<SctpConfig, ScenarioError> {
    let d = SctpConfig::default();
    let mtu = spec.mtu.unwrap_or(d.mtu);
    if !(100..=65_535).contains(&mtu) {
        return Err(ScenarioError::new(
            format!("{path}.mtu"),
            format!("got {mtu}; expected 100 to 65535 bytes"),
        ));
    }
    let at_least_one = |v: Option<u32>, name: &str, default: u32| {
        let v = v.unwrap_or(default);
        if v == 0 {
            Err(ScenarioError::new(
                format!("{path}.{name}"),
                "got 0; expected at least 1",
            ))
        } else {
            Ok(v)
        }
    };
    let positive_time = |v: Option<super::units::Duration>, name: &str, default| {
        let v = v.map_or(default, |d| d.0);
        if v == 0 {
            Err(ScenarioError::new(
                format!("{path}.{name}"),
                "got 0s; expected a positive duration",
            ))
        } else {
            Ok(v)
        }
    };
    let rto_min = positive_time(spec.rto_min, "rto_min", d.rto_min)?;
    let rto_max = positive_time(spec.rto_max, "rto_max", d.rto_max)?;
    let rto_initial = positive_time(spec.rto_initial, "rto_initial", d.rto_initial)?;
    if rto_min > rto_max {
        return Err(ScenarioError::new(
            format!("{path}.rto_min"),
            "is larger than rto_max",
        ));
    }
    let initial_cwnd = spec
        .initial_cwnd
        .map_or(SctpConfig::rfc4960_initial_cwnd(mtu), |s| s.0);
    if initial_cwnd == 0 {
        return Err(ScenarioError::new(
            format!("{path}.initial_cwnd"),
            "got 0; expected at least one byte",
        ));
    }
    let rcv_buf = spec.rcv_buf.map_or(d.rcv_buf, |s| s.0);
    // RFC 9260 §6: a receiver takes a 1,500-byte packet, so its initial a_rwnd is never less.
    let least = (mtu as u64).max(1500);
    if rcv_buf < least {
        return Err(ScenarioError::new(
            format!("{path}.rcv_buf"),
            format!(
                "got {rcv_buf} bytes; expected at least {least}: one MTU ({mtu}), and never \
                 below 1500 (RFC 9260 §6: an SCTP receiver accepts a 1500-byte packet)"
            ),
        ));
    }
    Ok(SctpConfig {
        mtu,
        frag_point: mtu - 48,
        initial_cwnd,
        rcv_buf,
        read_rate: spec.read_rate.map(|r| r.0),
        outstanding_with_headers: spec.outstanding == Some(OutstandingSpec::Chunks),
        sack_freq: at_least_one(spec.sack_freq, "sack_freq", d.sack_freq)?,
        sack_delay: positive_time(spec.sack_delay, "sack_delay", d.sack_delay)?,
        rto_initial: rto_initial.clamp(rto_min, rto_max),
        rto_min,
        rto_max,
        max_burst: at_least_one(spec.max_burst, "max_burst", d.max_burst)?,
        max_burst_restore: spec
            .max_burst_cwnd
            .map_or(d.max_burst_restore, |c| c == MaxBurstCwndSpec::Restore),
        fast_rtx_threshold: at_least_one(
            spec.fast_rtx_threshold,
            "fast_rtx_threshold",
            d.fast_rtx_threshold,
        )?,
        scheduler: match spec.scheduler.unwrap_or(SchedulerSpec::RoundRobin) {
            SchedulerSpec::RoundRobin => StreamScheduler::RoundRobin,
            SchedulerSpec::Fcfs => StreamScheduler::Fcfs,
        },
        unordered: spec.unordered.unwrap_or(d.unordered),
        path_max_retrans: spec.path_max_retrans.unwrap_or(d.path_max_retrans),
        assoc_max_retrans: spec.assoc_max_retrans.unwrap_or(d.assoc_max_retrans),
        hb_interval: positive_time(spec.hb_interval, "hb_interval", d.hb_interval)?,
        heartbeats: spec.heartbeats.unwrap_or(d.heartbeats),
        idle_decay: spec
            .cwnd_after_idle
            .map_or(d.idle_decay, |c| c == CwndAfterIdleSpec::Rfc),
    })
}

/// The association of flow `i` between nodes `(s, d)` (its primary path).
pub(super) fn association(
    sc: &Scenario,
    i: usize,
    (s, d): (u32, u32),
    net: &Net,
    routes: &Routes,
    trace: bool,
) -> Result<Box<dyn Transport>, ScenarioError> {
    let f = &sc.flows[i];
    let why = "for an SCTP flow (protocol = \"sctp\")";
    forbid(&f.tcp, format_args!("flows[{i}].tcp"), why)?;
    forbid(&f.switch, format_args!("flows[{i}].switch"), why)?;
    if f.app.kind == AppKind::Rounds {
        return Err(ScenarioError::new(
            format!("flows[{i}].app.kind"),
            "got \"rounds\", an application of TCP flows only; expected \"bulk\", \"finite\", \"writes\" or \"files\" for an SCTP flow",
        ));
    }
    if f.app.kind == AppKind::Bulk {
        forbid(
            &f.app.piece,
            format_args!("flows[{i}].app.piece"),
            "for an SCTP bulk application (its messages are the fragmentation point's size)",
        )?;
    }
    let (spec, path) = match &f.sctp {
        Some(t) => (t.over(&sc.sctp), format!("flows[{i}].sctp")),
        None => (sc.sctp.clone(), "sctp".to_string()),
    };
    let cfg = resolve_sctp(&spec, &path)?;
    app_bytes(&f.app, &format!("flows[{i}].app"))?;
    let (messages, bulk) = sctp_messages(&f.app, cfg.frag_point);
    let mut pairs = vec![(s, d)];
    for (k, p) in f.paths.iter().flatten().enumerate() {
        let at = format!("flows[{i}].paths[{k}]");
        if sc.topology.kind == TopologyKind::Dumbbell {
            return Err(ScenarioError::new(
                at,
                "is not allowed in a dumbbell topology (name the nodes in an explicit one)",
            ));
        }
        let mut ends = [0u32; 2];
        for (j, (name, field)) in [(&p.src, "src"), (&p.dst, "dst")].into_iter().enumerate() {
            ends[j] = net.find(name).ok_or_else(|| {
                ScenarioError::new(
                    format!("{at}.{field}"),
                    format!("got {name:?}; expected a node name"),
                )
            })?;
        }
        for (a, b) in [(ends[0], ends[1]), (ends[1], ends[0])] {
            check_path(net, routes, a, b, i as u32).map_err(|m| ScenarioError::new(&at, m))?;
        }
        pairs.push((ends[0], ends[1]));
    }
    if pairs.len() > MAX_PATHS {
        return Err(ScenarioError::new(
            format!("flows[{i}].paths"),
            format!(
                "has {} paths; at most {} are allowed",
                pairs.len() - 1,
                MAX_PATHS - 1
            ),
        ));
    }
    let names = pairs
        .iter()
        .map(|&(a, b)| (net.names[a as usize].clone(), net.names[b as usize].clone()))
        .collect();
    let paths = pairs.iter().map(|&(a, b)| Path::new(a, b, &cfg)).collect();
    let sender = match write_times(&f.app) {
        Some(at) => {
            let mut s = SctpSender::new(cfg.clone(), i as u32, paths, &[], bulk, trace);
            s.send_at(at, messages);
            s
        }
        None => SctpSender::new(cfg.clone(), i as u32, paths, &messages, bulk, trace),
    };
    let receiver = SctpReceiver::new(cfg, i as u32, trace);
    Ok(Box::new(SctpAssociation::new(sender, receiver, names)))
}

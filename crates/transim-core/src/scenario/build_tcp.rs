//! Build a TCP flow's connection from its scenario tables.

use super::apps::{app_bytes, pieces};
use super::build::{forbid, Net};
use super::error::ScenarioError;
use super::profiles::resolve;
use super::schema::*;
use crate::sim::rng::Rng;
use crate::tcp::config::Packetization;
use crate::tcp::connection::TcpConnection;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::tcp::timers;
use crate::transport::Transport;

/// The connection of flow `i` between nodes `(s, d)`.
pub(super) fn connection(
    sc: &Scenario,
    i: usize,
    (s, d): (u32, u32),
    net: &Net,
    routes: &[Vec<u32>],
) -> Result<Box<dyn Transport>, ScenarioError> {
    let f = &sc.flows[i];
    let why = "for a TCP flow (protocol = \"tcp\")";
    forbid(&f.sctp, &format!("flows[{i}].sctp"), why)?;
    forbid(&f.paths, &format!("flows[{i}].paths"), why)?;
    let (spec, path) = match &f.tcp {
        Some(t) => (t.over(&sc.tcp), format!("flows[{i}].tcp")),
        None => (sc.tcp.clone(), "tcp".to_string()),
    };
    let cfg = resolve(&spec, &path)?;
    if let Some(ful) = cfg.ful {
        let up = &net.links[routes[d as usize][s as usize] as usize];
        if ful.high.is_none() && up.limit_packets().is_none() {
            return Err(ScenarioError::new(
                format!("{path}.ful_high"),
                format!("is required: the receiver's uplink queue ({}) is limited in bytes, so FUL needs a high-water mark in packets", net.link_names[up.id as usize]),
            ));
        }
    }
    let app_bytes = app_bytes(&f.app, &format!("flows[{i}].app"))?;
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
    let mut sender = TcpSender::new(cfg.clone(), i as u32, s, d, app_bytes, sc.trace.flows);
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
    sender.seed_cc(Rng::stream(sc.seed, &format!("cc/{i}")));
    let receiver = TcpReceiver::new(cfg, i as u32, d, s);
    Ok(Box::new(TcpConnection::new(
        i as u32, sender, receiver, switches,
    )))
}

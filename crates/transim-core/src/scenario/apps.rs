//! The application of a flow: validation, and what it writes.

use super::build::{forbid, require};
use super::error::ScenarioError;
use super::schema::*;
use super::units::Duration;
use crate::engine::RoundGroup;
use crate::sctp::sender::{Endless, Message};
use crate::sim::rng::Rng;
use std::collections::HashMap;

/// The most writes a `files` application may make (they are listed before the run).
const MAX_PIECES: u64 = 10_000_000;

/// Fields each kind may not have: (field present, its name).
fn only(app: &AppSpec, path: &str, kind: &str, allowed: &[&str]) -> Result<(), ScenarioError> {
    let fields = [
        ("bytes", app.bytes.is_some()),
        ("sizes", app.sizes.is_some()),
        ("at", app.at.is_some()),
        ("count", app.count.is_some()),
        ("size", app.size.is_some()),
        ("piece", app.piece.is_some()),
        ("rounds", app.rounds.is_some()),
        ("group", app.group.is_some()),
        ("jitter", app.jitter.is_some()),
    ];
    for (name, set) in fields {
        if set && !allowed.contains(&name) {
            let unit: Option<()> = Some(());
            forbid(
                &unit,
                format!("{path}.{name}"),
                &format!("for a {kind} application"),
            )?;
        }
    }
    Ok(())
}

fn positive(v: u64, path: &str, what: &str) -> Result<u64, ScenarioError> {
    if v == 0 {
        return Err(ScenarioError::new(path, format!("got 0; expected {what}")));
    }
    Ok(v)
}

/// Bytes a finite application writes in all (None: bulk). Validates the table.
pub(super) fn app_bytes(app: &AppSpec, path: &str) -> Result<Option<u64>, ScenarioError> {
    match app.kind {
        AppKind::Bulk => {
            only(app, path, "bulk", &["piece"])?;
            if let Some(p) = app.piece {
                positive(
                    p.0,
                    &format!("{path}.piece"),
                    "a piece of at least one byte",
                )?;
            }
            Ok(None)
        }
        AppKind::Finite => {
            only(app, path, "finite", &["bytes"])?;
            let b = require(
                &app.bytes,
                &format!("{path}.bytes"),
                "for a finite application",
            )?;
            positive(b.0, &format!("{path}.bytes"), "at least one byte").map(Some)
        }
        AppKind::Writes => {
            only(app, path, "writes", &["sizes", "at"])?;
            let sizes = require(
                &app.sizes,
                &format!("{path}.sizes"),
                "for a writes application",
            )?;
            if sizes.is_empty() {
                return Err(ScenarioError::new(
                    format!("{path}.sizes"),
                    "is empty; expected at least one write",
                ));
            }
            if let Some(at) = &app.at {
                check_write_times(at, sizes.len(), path)?;
            }
            let mut total = 0u64;
            for (i, s) in sizes.iter().enumerate() {
                let p = format!("{path}.sizes[{i}]");
                total = total
                    .checked_add(positive(s.0, &p, "a write of at least one byte")?)
                    .ok_or_else(|| ScenarioError::new(p, "makes the total overflow"))?;
            }
            Ok(Some(total))
        }
        AppKind::Rounds => {
            only(app, path, "rounds", &["bytes", "rounds", "group", "jitter"])?;
            let b = require(
                &app.bytes,
                &format!("{path}.bytes"),
                "for a rounds application (bytes per round)",
            )?;
            positive(b.0, &format!("{path}.bytes"), "at least one byte a round")?;
            let n = *require(
                &app.rounds,
                &format!("{path}.rounds"),
                "for a rounds application",
            )?;
            positive(n as u64, &format!("{path}.rounds"), "at least one round")?;
            b.0.checked_mul(n as u64).map(Some).ok_or_else(|| {
                ScenarioError::new(format!("{path}.rounds"), "times bytes overflows")
            })
        }
        AppKind::Files => {
            only(app, path, "files", &["count", "size", "piece"])?;
            let count = *require(
                &app.count,
                &format!("{path}.count"),
                "for a files application",
            )?;
            positive(count as u64, &format!("{path}.count"), "at least one file")?;
            if count > u16::MAX as u32 {
                return Err(ScenarioError::new(
                    format!("{path}.count"),
                    format!(
                        "got {count}; expected at most {} files (one SCTP stream each)",
                        u16::MAX
                    ),
                ));
            }
            let size = require(
                &app.size,
                &format!("{path}.size"),
                "for a files application",
            )?;
            positive(
                size.0,
                &format!("{path}.size"),
                "a file of at least one byte",
            )?;
            positive(
                piece(app),
                &format!("{path}.piece"),
                "a piece of at least one byte",
            )?;
            let pieces = (count as u64).saturating_mul(size.0.div_ceil(piece(app)));
            if pieces > MAX_PIECES {
                return Err(ScenarioError::new(
                    format!("{path}.piece"),
                    format!(
                        "makes {pieces} writes ({count} files of {} bytes); at most {MAX_PIECES} \
                         are allowed: use larger pieces, or a finite application",
                        size.0
                    ),
                ));
            }
            (count as u64)
                .checked_mul(size.0)
                .map(Some)
                .ok_or_else(|| ScenarioError::new(format!("{path}.size"), "times count overflows"))
        }
    }
}

/// A writes application's `at`: one time per write, never earlier than the one before.
fn check_write_times(at: &[Duration], writes: usize, path: &str) -> Result<(), ScenarioError> {
    if at.len() != writes {
        return Err(ScenarioError::new(
            format!("{path}.at"),
            format!(
                "has {} times for {writes} writes; expected one time per entry of {path}.sizes",
                at.len()
            ),
        ));
    }
    for (i, w) in at.windows(2).enumerate() {
        if w[1].0 < w[0].0 {
            return Err(ScenarioError::new(
                format!("{path}.at[{}]", i + 1),
                format!(
                    "got {}, earlier than the write before it ({}); expected times in order",
                    w[1], w[0]
                ),
            ));
        }
    }
    Ok(())
}

/// When a writes application makes its writes, from the flow's start (None: all at once).
pub(super) fn write_times(app: &AppSpec) -> Option<Vec<crate::sim::Time>> {
    match app.kind {
        AppKind::Writes => Some(app.at.as_ref()?.iter().map(|d| d.0).collect()),
        _ => None,
    }
}

fn piece(app: &AppSpec) -> u64 {
    app.piece.map_or(1460, |p| p.0)
}

/// A files application's writes in order: (file, bytes), piece 1 of every file, then
/// piece 2, … (round-robin).
fn file_pieces(app: &AppSpec) -> Vec<(u16, u64)> {
    let (count, size, piece) = (
        app.count.unwrap_or(1),
        app.size.as_deref().map_or(0, |s| s.0),
        piece(app),
    );
    let rounds = size.div_ceil(piece);
    let mut out = Vec::with_capacity((rounds * count as u64) as usize);
    for r in 0..rounds {
        for f in 0..count {
            out.push((f as u16, piece.min(size - r * piece)));
        }
    }
    out
}

/// The writes of an application that writes in pieces (writes, files), in order.
pub(super) fn pieces(app: &AppSpec) -> Option<Vec<u64>> {
    match app.kind {
        AppKind::Writes => Some(app.sizes.as_ref()?.iter().map(|s| s.0).collect()),
        AppKind::Files => Some(file_pieces(app).into_iter().map(|p| p.1).collect()),
        _ => None,
    }
}

/// An SCTP sender's messages: one per write (files: file k on stream k); finite and bulk
/// data as `frag`-byte messages made as they are needed (the second value).
pub(super) fn sctp_messages(app: &AppSpec, frag: u32) -> (Vec<Message>, Option<Endless>) {
    let msg = |stream: u16, len: u64| Message {
        stream,
        len: len.min(u32::MAX as u64) as u32,
    };
    match app.kind {
        AppKind::Bulk => (
            vec![],
            Some(Endless {
                len: frag,
                left: None,
            }),
        ),
        AppKind::Finite => (
            vec![],
            Some(Endless {
                len: frag,
                left: Some(app.bytes.map_or(0, |b| b.0)),
            }),
        ),
        AppKind::Writes => (
            app.sizes.iter().flatten().map(|s| msg(0, s.0)).collect(),
            None,
        ),
        AppKind::Files => (
            file_pieces(app)
                .into_iter()
                .map(|(f, b)| msg(f, b))
                .collect(),
            None,
        ),
        // Refused for SCTP when the association is built (`build_sctp`).
        AppKind::Rounds => (vec![], None),
    }
}

/// The groups of flows with a rounds application, each flow told its group and place
/// (groups in the order their first flow comes). Every flow of a group must have the same
/// number of rounds.
pub(super) fn round_groups(
    specs: &[FlowSpec],
    flows: &mut [crate::engine::Flow],
    seed: u64,
) -> Result<Vec<RoundGroup>, ScenarioError> {
    let mut groups: Vec<RoundGroup> = Vec::new();
    // Each group's place by name, and the flow that opened it.
    let mut index: HashMap<Option<&str>, usize> = HashMap::new();
    let mut first: Vec<usize> = Vec::new();
    for (i, (spec, flow)) in specs.iter().zip(flows.iter_mut()).enumerate() {
        let app = &spec.app;
        let (AppKind::Rounds, Some(bytes), Some(rounds)) = (app.kind, app.bytes, app.rounds) else {
            continue;
        };
        let k = *index.entry(app.group.as_deref()).or_insert_with(|| {
            let name = app.group.as_deref().map(String::from);
            let rng = Rng::stream_joined(seed, &["rounds/", name.as_deref().unwrap_or("")]);
            groups.push(RoundGroup::new(name, rounds, rng));
            first.push(i);
            groups.len() - 1
        });
        let g = &mut groups[k];
        if g.rounds != rounds {
            let which = match &g.name {
                Some(n) => format!("group {n:?}"),
                None => "the flows that name no group".to_string(),
            };
            return Err(ScenarioError::new(
                format!("flows[{i}].app.rounds"),
                format!(
                    "got {rounds}; flows[{}] of {which} has {}: the flows that wait for each other need the same number of rounds",
                    first[k], g.rounds
                ),
            ));
        }
        flow.group = k as u32;
        g.join(i as u32, bytes.0, app.jitter.as_deref().map_or(0, |j| j.0));
    }
    Ok(groups)
}

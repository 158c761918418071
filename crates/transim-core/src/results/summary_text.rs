//! A run's summary as compact JSON text, with the link directions written on a second
//! thread while this one writes the flows: at 100,000 flows the text is 300 MB, and the two
//! halves are of about the same size (a flow's object is about 1.6 kB, and a dumbbell has
//! four link directions of about 530 bytes per flow).

use super::json_text::{self, Verbatim};
use super::two_threads::{Job, Started};
use super::{FlowResult, RunResult};
use crate::engine::{Conservation, RoundsResult};
use crate::scenario::advice::Advice;
use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::Error;
use std::cell::RefCell;

/// Below this many flows and link directions together one thread writes it all: starting
/// a thread costs more than it saves on a small summary.
const ON_TWO_THREADS: usize = 2_000;

/// A flow's object, about (bytes): room for the text at once spares copying it as it grows.
const FLOW_BYTES: usize = 1800;
/// A link direction's object, about (bytes).
const LINK_BYTES: usize = 600;

/// The summary as [`RunResult`]'s derived `Serialize` writes it, with the link directions
/// `L`. Its fields are [`RunResult`]'s, in the same order: `assemble` takes a `RunResult`
/// apart field by field, so a field added there and not here does not compile.
#[derive(Serialize)]
struct Assembled<'a, L> {
    name: &'a str,
    seed: u64,
    simulated_time: f64,
    events: u64,
    flows: &'a [FlowResult],
    links: L,
    conservation: &'a Conservation,
    stopped_at: Option<f64>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    rounds: &'a [RoundsResult],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [Advice],
}

/// The link directions' text, being written on another thread: serialised, it waits for
/// that thread and copies the text in as it is.
struct Pending<'s, 'j, F>(RefCell<Option<Started<'s, 'j, Result<String, Error>, F>>>);

impl<'s, 'j: 's, F> Serialize for Pending<'s, 'j, F>
where
    F: FnOnce() -> Result<String, Error> + Send + 's,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let started = self.0.borrow_mut().take();
        let started = started.ok_or_else(|| S::Error::custom("the links' text was taken"))?;
        Verbatim(&started.finish().map_err(S::Error::custom)?).serialize(s)
    }
}

/// `r` as compact JSON text: the same bytes as `serde_json::to_string(r)`.
pub(super) fn to_text(r: &RunResult) -> Result<String, Error> {
    let flows_bytes = 4096 + r.flows.len() * FLOW_BYTES;
    let links_bytes = 16 + r.links.len() * LINK_BYTES;
    if r.flows.len() + r.links.len() < ON_TWO_THREADS {
        return json_text::to_text(r, flows_bytes + links_bytes);
    }
    let links = Job::new(|| json_text::to_text(&r.links, links_bytes));
    std::thread::scope(|scope| {
        let links = Pending(RefCell::new(Some(Started::start(scope, &links))));
        // The flows go straight into the summary's text meanwhile; the links' text is
        // copied after them (a copy costs a fraction of writing it).
        json_text::to_text(&assemble(r, links), flows_bytes + links_bytes)
    })
}

/// `r`'s fields, with `links` in place of its link directions.
fn assemble<L>(r: &RunResult, links: L) -> Assembled<'_, L> {
    let RunResult {
        name,
        seed,
        simulated_time,
        events,
        flows,
        links: _,
        conservation,
        stopped_at,
        rounds,
        warnings,
    } = r;
    Assembled {
        name,
        seed: *seed,
        simulated_time: *simulated_time,
        events: *events,
        flows,
        links,
        conservation,
        stopped_at: *stopped_at,
        rounds,
        warnings,
    }
}

//! # transim-core
//!
//! A deterministic, packet-level discrete-event simulator for transport protocols. Time is
//! integer nanoseconds; every random process has its own seeded stream; every packet is
//! accounted for (delivered, dropped with a cause, or in flight at the end).
//!
//! The usual entry point is [`run_value`]: give it a scenario (as a JSON value — the Python
//! front end parses TOML into one) and get a [`results::RunOutput`] or an [`Error`] that names
//! the offending field.

#![warn(missing_docs)]

pub mod engine;
pub mod estimate;
pub mod fairness;
pub mod net;
pub mod results;
pub mod scenario;
pub mod sctp;
pub mod sim;
pub mod tcp;
pub mod trace;
pub mod transport;

pub use scenario::ScenarioError;

/// Why a run could not produce results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The scenario is invalid.
    Scenario(ScenarioError),
    /// The engine found an internal inconsistency (a bug): e.g. packet conservation failed.
    Engine(String),
    /// An output the scenario asked for (packet captures) could not be written.
    Output(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Engine(e) => write!(f, "internal engine error: {e}"),
            Error::Output(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Scenario(e)
    }
}

/// Validate a scenario without running it.
pub fn validate_value(value: serde_json::Value) -> Result<scenario::Scenario, ScenarioError> {
    let sc = scenario::parse(value)?;
    scenario::build(&sc)?;
    Ok(sc)
}

/// Validate a scenario without running it, and give the advice on it
/// ([`scenario::advice::advise`]).
pub fn advise_value(
    value: serde_json::Value,
) -> Result<(scenario::Scenario, Vec<scenario::advice::Advice>), ScenarioError> {
    let sc = scenario::parse(value)?;
    let sim = scenario::build(&sc)?;
    let advice = scenario::advice::advise(&sc, &sim);
    Ok((sc, advice))
}

/// Parse a scenario and describe what it builds (see [`scenario::describe`]).
pub fn describe_value(value: serde_json::Value) -> Result<serde_json::Value, ScenarioError> {
    let sc = scenario::parse(value)?;
    scenario::describe::describe(&sc)
}

/// Parse, validate and run a scenario.
pub fn run_value(value: serde_json::Value) -> Result<results::RunOutput, Error> {
    run_value_with(value, &mut |_, _| true, None, Stop::Settled, false)
}

/// Parse, validate and run a scenario, calling `watch(now, events)` every
/// [`engine::WATCH_EVERY`] events; returning false stops the run early, at that very event
/// (results up to then, marked `stopped_at`). To stop exactly there, every router hop is an
/// event of its own: see [`Stop`].
pub fn run_value_watched(
    value: serde_json::Value,
    watch: &mut dyn FnMut(sim::Time, u64) -> bool,
) -> Result<results::RunOutput, Error> {
    run_value_with(value, watch, None, Stop::Exact, false)
}

/// How a watcher's request to stop is carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// At the very event where the watcher returned false: every router hop is then an
    /// event of its own.
    Exact,
    /// Once every packet already handed on past a router has reached its next link, a
    /// moment later (within one crossing of the network): in a small network, router hops
    /// onto a link that only one link feeds then go without events (see
    /// [`engine::Simulation::set_pass_through`]), which makes such runs up to a fifth
    /// shorter. For stops whose moment is arbitrary anyway: an interrupt, a time limit.
    Settled,
}

/// Parse, validate and run a scenario as [`run_value_watched`] (or, with a `sink`,
/// [`run_value_streamed`]) does, with a stop carried out as `stop` says; `stopped_at` in
/// the results gives the moment. With `advise`, the results' `warnings` hold
/// [`scenario::advice::advise`]'s findings on the scenario.
pub fn run_value_with(
    value: serde_json::Value,
    watch: &mut dyn FnMut(sim::Time, u64) -> bool,
    sink: Option<&mut dyn FnMut(engine::TraceChunk)>,
    stop: Stop,
    advise: bool,
) -> Result<results::RunOutput, Error> {
    let t = std::time::Instant::now();
    let sc = scenario::parse(value)?;
    let parse = t.elapsed().as_secs_f64();
    let mut out = run_staged(&sc, watch, sink, stop, advise)?;
    out.stages.parse = parse;
    Ok(out)
}

/// Parse, validate and run a scenario as [`run_value_watched`] does, handing trace rows to
/// `sink` in chunks as the run goes (memory flat in the run's length; the traces in the
/// returned output are then empty).
pub fn run_value_streamed(
    value: serde_json::Value,
    watch: &mut dyn FnMut(sim::Time, u64) -> bool,
    sink: &mut dyn FnMut(engine::TraceChunk),
) -> Result<results::RunOutput, Error> {
    run_value_with(value, watch, Some(sink), Stop::Exact, false)
}

/// Build, run and collect a parsed scenario, timing each stage.
fn run_staged(
    sc: &scenario::Scenario,
    watch: &mut dyn FnMut(sim::Time, u64) -> bool,
    sink: Option<&mut dyn FnMut(engine::TraceChunk)>,
    stop: Stop,
    advise: bool,
) -> Result<results::RunOutput, Error> {
    let t = std::time::Instant::now();
    // The network's state on huge pages where the program is set up for them (see
    // `sim::huge_pages`), the parse and the results on ordinary ones.
    let huge_pages = sim::huge_pages::Advising::start();
    let mut sim = scenario::build(sc)?;
    sim.set_pass_through(stop == Stop::Settled);
    let warnings = if advise {
        scenario::advice::advise(sc, &sim)
    } else {
        Vec::new()
    };
    let build = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let cons = sim.run_streamed(watch, sink)?;
    let run = t.elapsed().as_secs_f64();
    drop(huge_pages);
    let trim = sim.frees_much_memory();
    let t = std::time::Instant::now();
    let mut out = results::collect(
        sim,
        sc.name.clone().unwrap_or_else(|| "scenario".into()),
        sc.seed,
        cons,
    );
    out.result.warnings = warnings;
    out.stages = results::StageTimes {
        parse: 0.0,
        build,
        run,
        collect: t.elapsed().as_secs_f64(),
    };
    if trim {
        sim::huge_pages::give_back_freed();
    }
    Ok(out)
}

/// Run an already parsed scenario.
pub fn run_scenario(sc: &scenario::Scenario) -> Result<results::RunOutput, Error> {
    run_staged(sc, &mut |_, _| true, None, Stop::Settled, false)
}

/// Run an already parsed scenario with a watcher (see [`run_value_watched`]).
pub fn run_scenario_watched(
    sc: &scenario::Scenario,
    watch: &mut dyn FnMut(sim::Time, u64) -> bool,
) -> Result<results::RunOutput, Error> {
    run_staged(sc, watch, None, Stop::Exact, false)
}

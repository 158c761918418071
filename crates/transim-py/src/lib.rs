//! Thin PyO3 bindings: hand a scenario (JSON text) to the engine, get back the summary (JSON
//! text, kept on the engine's side until Python asks for it) and the traces as numpy arrays.
//! Scenario errors become `transim.ScenarioError` with the field path; nothing here knows the
//! schema.

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use transim_core::engine::TraceChunk;
use transim_core::transport::Series;

/// Large engine arrays on 2 MB pages (see [`transim_core::sim::huge_pages`]).
#[global_allocator]
static ALLOC: transim_core::sim::huge_pages::HugePageAlloc =
    transim_core::sim::huge_pages::HugePageAlloc;

create_exception!(
    _core,
    ScenarioError,
    PyException,
    "A scenario is invalid: args are (message, path, detail)."
);

fn parse_json(text: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| {
        ScenarioError::new_err((format!("not valid JSON: {e}"), String::new(), e.to_string()))
    })
}

fn scenario_err(e: transim_core::ScenarioError) -> PyErr {
    ScenarioError::new_err((e.to_string(), e.path, e.message))
}

/// Check a scenario; returns the normalised scenario as JSON text.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<String> {
    let v = parse_json(scenario_json)?;
    let sc = transim_core::validate_value(v).map_err(scenario_err)?;
    serde_json::to_string(&sc).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Check a scenario as [`validate`] does, and return only what a one-line report needs, as
/// JSON text: `flows` (how many the scenario makes), `duration`, `seed` and `warnings` (the
/// advice on it: see [`transim_core::scenario::advice`]). A scenario of a million generated
/// flows is checked in seconds this way; its normalised text would be gigabytes.
#[pyfunction]
fn check(scenario_json: &str) -> PyResult<String> {
    let v = parse_json(scenario_json)?;
    let (sc, warnings) = transim_core::advise_value(v).map_err(scenario_err)?;
    let out = serde_json::json!({"flows": sc.flows.len(), "duration": sc.duration,
                                 "seed": sc.seed, "warnings": warnings});
    Ok(out.to_string())
}

/// The simulated time a scenario asks for (its `duration`), in seconds, read without parsing
/// the rest of it; raises ScenarioError when the duration is missing or invalid.
#[pyfunction]
fn duration_seconds(scenario_json: &str) -> PyResult<f64> {
    let d = transim_core::scenario::build::duration(scenario_json).map_err(scenario_err)?;
    Ok(transim_core::sim::secs(d.0))
}

/// What a scenario builds (nodes, link directions, flows, each TCP flow's resolved options),
/// as JSON text; for translators to other simulators.
#[pyfunction]
fn describe(scenario_json: &str) -> PyResult<String> {
    let v = parse_json(scenario_json)?;
    let d = transim_core::describe_value(v).map_err(scenario_err)?;
    serde_json::to_string(&d).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// The advice as a list of dicts (`code`, `flows`, `message`).
fn pythonize_warnings<'py>(
    py: Python<'py>,
    warnings: &[transim_core::scenario::advice::Advice],
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    warnings
        .iter()
        .map(|a| {
            let d = PyDict::new(py);
            d.set_item("code", a.code)?;
            d.set_item("flows", a.flows)?;
            d.set_item("message", &a.message)?;
            Ok(d)
        })
        .collect()
}

fn flow_trace_dict<'py>(py: Python<'py>, tr: Box<dyn Series>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in tr.into_columns() {
        d.set_item(name, col.into_pyarray(py))?;
    }
    Ok(d)
}

fn packet_trace_dict<'py>(
    py: Python<'py>,
    p: transim_core::trace::PacketTrace,
) -> PyResult<Bound<'py, PyDict>> {
    let pd = PyDict::new(py);
    pd.set_item("t", p.t.into_pyarray(py))?;
    pd.set_item("kind", p.kind.into_pyarray(py))?;
    pd.set_item("flow", p.flow.into_pyarray(py))?;
    pd.set_item("from_sender", p.from_sender.into_pyarray(py))?;
    pd.set_item("seq", p.seq.into_pyarray(py))?;
    pd.set_item("ack", p.ack.into_pyarray(py))?;
    pd.set_item("len", p.len.into_pyarray(py))?;
    pd.set_item("tx", p.tx.into_pyarray(py))?;
    pd.set_item("link", p.link.into_pyarray(py))?;
    pd.set_item("cause", p.cause.into_pyarray(py))?;
    pd.set_item("wire", p.wire.into_pyarray(py))?;
    Ok(pd)
}

/// Hand one chunk of trace rows to the Python sink: `sink(flows, packets)` with `flows` a
/// list of (flow index, dict of numpy arrays) and `packets` a dict of numpy arrays or None.
fn send_chunk(py: Python<'_>, sink: &Py<PyAny>, chunk: TraceChunk) -> PyResult<()> {
    let flows = chunk
        .flows
        .into_iter()
        .map(|(i, t)| Ok((i, flow_trace_dict(py, t)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let packets = chunk
        .packets
        .map(|p| packet_trace_dict(py, p))
        .transpose()?;
    sink.call1(py, (flows, packets))?;
    Ok(())
}

fn failed(slot: &Mutex<Option<PyErr>>) -> bool {
    slot.lock().map_or(true, |e| e.is_some())
}

fn fail(slot: &Mutex<Option<PyErr>>, e: PyErr) {
    if let Ok(mut s) = slot.lock() {
        s.get_or_insert(e);
    }
}

/// Run a scenario. Returns a dict: `result` (the summary's JSON text as a [`SummaryText`]:
/// `str(result)` is the text), `stopped_at` (the
/// summary's, as a number or None), `stages` (wall seconds of each stage), `flow_traces` (a list
/// with a dict of numpy arrays or None per flow), `packet_trace` (a dict of numpy arrays or
/// None) and `interrupted` (True when Ctrl-C stopped the run; the results then cover the
/// simulated time up to `stopped_at`).
///
/// While the engine runs (without the GIL), every few thousand events it takes the GIL to let
/// Python handle signals, and calls `progress(simulated_seconds, events)` if given: a return
/// of False stops the run there; an exception stops it and is raised afterwards. With
/// `exact_stop` False (the default without `progress`), a stop (by either) takes effect
/// once every packet already handed on past a router has reached its next link, a moment
/// later, which lets a small network's router hops go without events
/// ([`transim_core::Stop::Settled`]); `stopped_at` tells when.
///
/// With `traces`, trace rows are not kept: every ~33,000 rows (and at the end) the engine
/// calls `traces(flows, packets)` with the rows since the last call, so memory stays flat;
/// `flow_traces` and `packet_trace` are then None.
///
/// With `advise`, the summary's `warnings` (and the returned `warnings`) list the findings
/// on a scenario that is valid but probably not what was meant
/// ([`transim_core::scenario::advice`]).
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None, traces=None, exact_stop=None, advise=None))]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    progress: Option<Py<PyAny>>,
    traces: Option<Py<PyAny>>,
    exact_stop: Option<bool>,
    advise: Option<bool>,
) -> PyResult<Bound<'py, PyDict>> {
    let stop = if exact_stop.unwrap_or(progress.is_some()) {
        transim_core::Stop::Exact
    } else {
        transim_core::Stop::Settled
    };
    let v = parse_json(scenario_json)?;
    let interrupted = AtomicBool::new(false);
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let streamed = traces.is_some();
    let out = py.detach(|| {
        let mut watch = |now: u64, events: u64| -> bool {
            if failed(&callback_error) {
                return false;
            }
            Python::attach(|py| {
                if py.check_signals().is_err() {
                    interrupted.store(true, Ordering::Relaxed);
                    return false;
                }
                let Some(cb) = &progress else { return true };
                match cb.call1(py, (now as f64 * 1e-9, events)) {
                    // Only an explicit False stops the run (None, True, … go on).
                    Ok(r) => !matches!(r.extract::<bool>(py), Ok(false)),
                    Err(e) => {
                        fail(&callback_error, e);
                        false
                    }
                }
            })
        };
        let mut send = |chunk: TraceChunk| {
            if failed(&callback_error) {
                return;
            }
            if let Some(sink) = &traces {
                if let Err(e) = Python::attach(|py| send_chunk(py, sink, chunk)) {
                    fail(&callback_error, e);
                }
            }
        };
        let sink: Option<&mut dyn FnMut(TraceChunk)> =
            if streamed { Some(&mut send) } else { None };
        transim_core::run_value_with(v, &mut watch, sink, stop, advise.unwrap_or(false))
    });
    if let Some(e) = callback_error
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
    {
        return Err(e);
    }
    let out = out.map_err(|e| match e {
        transim_core::Error::Scenario(s) => scenario_err(s),
        transim_core::Error::Engine(m) => {
            PyRuntimeError::new_err(format!("internal engine error (please report): {m}"))
        }
        transim_core::Error::Output(m) => PyOSError::new_err(m),
    })?;
    let d = PyDict::new(py);
    let text = py
        .detach(|| out.result.to_json_text())
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    d.set_item("result", SummaryText { text })?;
    d.set_item("interrupted", interrupted.load(Ordering::Relaxed))?;
    d.set_item("stopped_at", out.result.stopped_at)?;
    let warnings = pythonize_warnings(py, &out.result.warnings)?;
    d.set_item("warnings", warnings)?;
    let stages = PyDict::new(py);
    stages.set_item("parse", out.stages.parse)?;
    stages.set_item("build", out.stages.build)?;
    stages.set_item("run", out.stages.run)?;
    stages.set_item("collect", out.stages.collect)?;
    d.set_item("stages", stages)?;
    let traces: Vec<Option<Bound<'py, PyDict>>> = if streamed {
        out.flow_traces.iter().map(|_| None).collect()
    } else {
        out.flow_traces
            .into_iter()
            .map(|t| t.map(|t| flow_trace_dict(py, t)).transpose())
            .collect::<PyResult<_>>()?
    };
    d.set_item("flow_traces", traces)?;
    match out.packet_trace.filter(|_| !streamed) {
        Some(p) => d.set_item("packet_trace", packet_trace_dict(py, p)?)?,
        None => d.set_item("packet_trace", py.None())?,
    }
    Ok(d)
}

/// A run's summary as JSON text, kept on the engine's side: `str(text)` makes the Python
/// string. A run of 100,000 flows has 300 MB of it, and the copy into a Python string took
/// 0.8 s, which the summary files and the printed digest ([`write_summary`],
/// [`summary_digest`], which take this as it is) never need.
#[pyclass(frozen, module = "transim._core")]
struct SummaryText {
    text: String,
}

#[pymethods]
impl SummaryText {
    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!("<summary JSON text, {} bytes>", self.text.len())
    }

    /// Pickled (and copied) as the Python string it stands for.
    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, pyo3::types::PyType>, (&str,)) {
        (py.get_type::<PyString>(), (self.text.as_str(),))
    }
}

/// The summary JSON text in `summary`: a [`SummaryText`] or a Python string (borrowed either
/// way, not copied).
fn summary_str<'a>(summary: &'a Bound<'_, PyAny>) -> PyResult<&'a str> {
    if let Ok(t) = summary.cast::<SummaryText>() {
        return Ok(&t.get().text);
    }
    match summary.cast::<PyString>() {
        Ok(s) => s.to_str(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "the summary must be JSON text (a str or a run's result), not {}",
            summary.get_type().name()?
        ))),
    }
}

/// Write a run's summary files into the folder `out_dir` (which must exist): `results.json`
/// (the summary JSON text `summary_json`, indented as Python's `json.dumps(..., indent=2)`),
/// `flows.csv` and `links.csv` (one row per flow or link direction, nested fields as dotted
/// columns). Returns the paths written; raises OSError when a file cannot be written and
/// ValueError when the summary is not JSON with lists of flow and link records.
#[pyfunction]
fn write_summary(
    py: Python<'_>,
    summary_json: &Bound<'_, PyAny>,
    out_dir: &str,
) -> PyResult<Vec<String>> {
    let summary_json = summary_str(summary_json)?;
    let dir = std::path::Path::new(out_dir);
    let written = py.detach(|| transim_core::results::files::write_summary(summary_json, dir));
    match written {
        Ok(paths) => Ok(paths.iter().map(|p| p.display().to_string()).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            Err(PyValueError::new_err(e.to_string()))
        }
        Err(e) => Err(PyOSError::new_err(format!(
            "cannot write the results into {out_dir}: {e}"
        ))),
    }
}

/// What `transim run` prints of the summary JSON text `summary_json`, as JSON text: its own
/// fields, the first `limit` flows, the `limit` busiest link directions that carried packets
/// (all of them, in order, when they are no more), and `flows_total`, `flows_all` (goodput
/// total, min and max, Jain's index, retransmissions and timeouts over all flows) and
/// `links_carried`. Without a limit, every flow and carrying link. Raises ValueError when
/// the summary is not JSON with lists of flow and link records.
#[pyfunction]
#[pyo3(signature = (summary_json, limit=None))]
fn summary_digest(
    py: Python<'_>,
    summary_json: &Bound<'_, PyAny>,
    limit: Option<usize>,
) -> PyResult<String> {
    let summary_json = summary_str(summary_json)?;
    py.detach(|| transim_core::results::digest::digest(summary_json, limit))
        .map_err(|e| PyValueError::new_err(format!("not a run's summary: {e}")))
}

/// The summary JSON text `summary_json`'s flows (`which="flows"`) or link directions
/// (`"links"`) flattened as `flows.csv` and `links.csv` are: one row each, nested fields as
/// dotted columns, lists as their JSON text, null an empty cell. What `Result.frame` reads
/// into pandas without building the summary as Python objects. Raises ValueError for another
/// `which`, or when the summary is not JSON with a list of such records.
#[pyfunction]
fn summary_table(py: Python<'_>, summary_json: &Bound<'_, PyAny>, which: &str) -> PyResult<String> {
    let which = records_named(which)?;
    let summary_json = summary_str(summary_json)?;
    py.detach(|| transim_core::results::files::table(summary_json, which).map(|t| t.csv()))
        .map_err(|e| PyValueError::new_err(format!("not a run's summary: {e}")))
}

/// The records `which` names: "flows" or "links".
fn records_named(which: &str) -> PyResult<transim_core::results::files::Records> {
    use transim_core::results::files::Records;
    match which {
        "flows" => Ok(Records::Flows),
        "links" => Ok(Records::Links),
        _ => Err(PyValueError::new_err(format!(
            "which must be one of ['flows', 'links'], got '{which}'"
        ))),
    }
}

/// Where the summary JSON text `summary_json`'s flows (`which="flows"`) or link directions
/// (`"links"`) lie in it: `(names, spans)`, each record's `name` (None when it has no
/// string name) and the `(start, end)` byte range of its JSON text, for
/// [`summary_record`]. What `Result.flow(name)` reads instead of the whole summary. Raises
/// ValueError for another `which`, or when the summary is not JSON with a list of objects
/// there.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn summary_index(
    py: Python<'_>,
    summary_json: &Bound<'_, PyAny>,
    which: &str,
) -> PyResult<(Vec<Option<String>>, Vec<(usize, usize)>)> {
    let which = records_named(which)?;
    let summary_json = summary_str(summary_json)?;
    py.detach(|| transim_core::results::records::index(summary_json, which))
        .map(|i| (i.names, i.spans))
        .map_err(|e| PyValueError::new_err(format!("not a run's summary: {e}")))
}

/// The `(start, end)` byte range of the `i`th of the summary JSON text `summary_json`'s
/// flows (`which="flows"`) or link directions (`"links"`), reading the text only as far as
/// that record; None when there are fewer. Raises ValueError for another `which`, or when the
/// text up to that record is not a run's summary.
#[pyfunction]
fn summary_span(
    py: Python<'_>,
    summary_json: &Bound<'_, PyAny>,
    which: &str,
    i: usize,
) -> PyResult<Option<(usize, usize)>> {
    let which = records_named(which)?;
    let summary_json = summary_str(summary_json)?;
    py.detach(|| transim_core::results::records::span_of(summary_json, which, i))
        .map_err(|e| PyValueError::new_err(format!("not a run's summary: {e}")))
}

/// The text of the summary JSON text `summary_json` from byte `start` to byte `end` (one
/// record's, from [`summary_index`]). Raises ValueError when that range is not within the
/// text on character boundaries.
#[pyfunction]
fn summary_record(summary_json: &Bound<'_, PyAny>, start: usize, end: usize) -> PyResult<String> {
    let summary_json = summary_str(summary_json)?;
    summary_json
        .get(start..end)
        .map(str::to_owned)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "bytes {start}..{end} are not a part of the summary's {} bytes of text",
                summary_json.len()
            ))
        })
}

/// The summary JSON text `summary_json` with each flow cut down to the fields named in
/// `flow_keys` and each link direction to those in `link_keys` (in their own order; every
/// other key of the summary as it is), as JSON text: what a sweep reads of a run, without
/// reading the whole summary into Python objects. Raises ValueError when the summary is not
/// a JSON object whose `flows` and `links` are lists of objects.
#[pyfunction]
fn summary_slim(
    py: Python<'_>,
    summary_json: &Bound<'_, PyAny>,
    flow_keys: Vec<String>,
    link_keys: Vec<String>,
) -> PyResult<String> {
    let summary_json = summary_str(summary_json)?;
    let flow_keys: Vec<&str> = flow_keys.iter().map(String::as_str).collect();
    let link_keys: Vec<&str> = link_keys.iter().map(String::as_str).collect();
    py.detach(|| transim_core::results::slim::slim(summary_json, &flow_keys, &link_keys))
        .map_err(|e| PyValueError::new_err(format!("not a run's summary: {e}")))
}

/// Stationary loss rate, mean loss-burst length, bad-state probability and mean bad sojourn of
/// a Gilbert–Elliott chain.
#[pyfunction]
fn gilbert_elliott_stats(
    py: Python<'_>,
    p_gb: f64,
    p_bg: f64,
    loss_good: f64,
    loss_bad: f64,
) -> PyResult<Bound<'_, PyDict>> {
    let s = transim_core::net::loss::gilbert_elliott_stats(p_gb, p_bg, loss_good, loss_bad);
    let d = PyDict::new(py);
    d.set_item("loss_rate", s.loss_rate)?;
    d.set_item("mean_burst", s.mean_burst)?;
    d.set_item("pi_bad", s.pi_bad)?;
    d.set_item("mean_bad_sojourn", s.mean_bad_sojourn)?;
    Ok(d)
}

/// Max-min fair rates by progressive filling: `capacities[l]` per link, and per flow the
/// links it crosses and the most it can use (`inf` for no limit of its own).
#[pyfunction]
fn max_min_fair(capacities: Vec<f64>, flows: Vec<(Vec<usize>, f64)>) -> PyResult<Vec<f64>> {
    for (i, (links, max)) in flows.iter().enumerate() {
        if let Some(&l) = links.iter().find(|&&l| l >= capacities.len()) {
            return Err(PyValueError::new_err(format!(
                "flows[{i}] crosses link {l}, but there are {} capacities",
                capacities.len()
            )));
        }
        if max.is_nan() || *max < 0.0 {
            return Err(PyValueError::new_err(format!(
                "flows[{i}]: demand {max} is not a non-negative number"
            )));
        }
    }
    if let Some(c) = capacities.iter().find(|c| c.is_nan() || **c < 0.0) {
        return Err(PyValueError::new_err(format!(
            "capacity {c} is not a non-negative number"
        )));
    }
    let demands: Vec<_> = flows
        .into_iter()
        .map(|(links, max)| transim_core::fairness::Demand { links, max })
        .collect();
    Ok(transim_core::fairness::max_min_fair(&capacities, &demands))
}

/// Jain's fairness index of the values (None when empty or all zero).
#[pyfunction]
fn jain(values: Vec<f64>) -> Option<f64> {
    transim_core::fairness::jain(&values)
}

/// The congestion-control names the engine knows (what `tcp.cc` accepts).
#[pyfunction]
fn congestion_controls() -> Vec<&'static str> {
    transim_core::tcp::cc::CcKind::ALL
        .iter()
        .map(|(n, _)| *n)
        .collect()
}

/// The native module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(gilbert_elliott_stats, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(max_min_fair, m)?)?;
    m.add_function(wrap_pyfunction!(jain, m)?)?;
    m.add_function(wrap_pyfunction!(write_summary, m)?)?;
    m.add_class::<SummaryText>()?;
    m.add_function(wrap_pyfunction!(summary_digest, m)?)?;
    m.add_function(wrap_pyfunction!(summary_slim, m)?)?;
    m.add_function(wrap_pyfunction!(summary_table, m)?)?;
    m.add_function(wrap_pyfunction!(summary_index, m)?)?;
    m.add_function(wrap_pyfunction!(summary_record, m)?)?;
    m.add_function(wrap_pyfunction!(summary_span, m)?)?;
    m.add_function(wrap_pyfunction!(duration_seconds, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

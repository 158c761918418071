"""transim — a fast, exact, packet-level simulator and lab for transport protocols.

    >>> import transim
    >>> r = transim.run("scenarios/dumbbell.toml", overrides=["tcp.cc=reno"])
    >>> r.flow(0)["goodput_bps"]

A scenario is a dict, a path to a TOML file, or TOML text. Errors in it raise
:class:`ScenarioError` with the field path (``err.path``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import _core
from .result import Result
from .scenario import ScenarioError, ScenarioLike, prepare, to_json, validate
from .tracefile import TraceWriter, read_trace

__all__ = [
    "run",
    "run_prepared",
    "validate",
    "Result",
    "ScenarioError",
    "Interrupted",
    "__version__",
    "congestion_controls",
    "read_trace",
]
__version__: str = _core.__version__


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; ``.result`` holds its results up to the stop (``stopped_at``)."""

    def __init__(self, result: Result) -> None:
        super().__init__(f"interrupted at {result.stopped_at or 0.0:.6f} s simulated")
        self.result = result


def run(
    scenario: ScenarioLike,
    overrides: list[str] | None = None,
    seed: int | None = None,
    trace_flows: bool | None = None,
    trace_packets: bool | None = None,
    pcap: str | Path | None = None,
    pcap_links: list[str] | None = None,
    progress: Callable[[float, int], bool | None] | None = None,
    trace_dir: str | Path | None = None,
    exact_stop: bool | None = None,
    advise: bool = False,
) -> Result:
    """Run a scenario and return its :class:`Result`.

    ``overrides`` are ``key.path=value`` assignments (as ``--set`` on the command line);
    ``seed`` replaces the scenario's seed; ``trace_flows``/``trace_packets`` switch on the
    per-flow time series and the per-packet event log; ``pcap`` writes a capture file per
    link direction (``pcap_links``: only these, by name such as ``"r1->r2"``) into that
    folder. ``progress(simulated_seconds, events)`` is called every few thousand events;
    returning False stops the run there (its results then carry ``stopped_at``). Ctrl-C
    stops a run within milliseconds and raises :class:`Interrupted` (a KeyboardInterrupt)
    carrying the results up to that point.

    ``exact_stop`` (by default True with a ``progress`` callback, False without): whether a
    stop takes effect at the very event. If not, it takes effect once every packet already
    handed on past a router has reached its next link, a moment later (within one crossing
    of the network; ``stopped_at`` says when), which lets a small network's router hops
    onto a link only one link feeds go without events: such runs take up to a fifth less
    time, with the same results.

    With ``trace_dir``, the traces are written there as Parquet while the run goes (memory
    flat in the run's length) instead of being kept: ``Result.trace_files`` lists the files,
    :func:`read_trace` reads them back. The scenario's ``trace`` table filters what is kept
    (``only_flows``, ``start``, ``end``, ``interval``) and ``trace.max_bytes`` bounds the
    estimated size (2 GiB by default; a run above it is refused before it starts).

    With ``advise``, ``Result.warnings`` (and the summary's ``warnings``) list what the
    scenario probably did not mean, each a dict of ``code``, ``flows`` (how many it
    concerns) and ``message``: a receive window that holds a flow under 90 % of its share of
    the path, ECN negotiated where no queue on the path marks, a run that ends before a
    flow's first data can be acknowledged. The run itself is the same either way.
    """
    doc, source = prepare(scenario, overrides, seed)
    return run_prepared(
        doc,
        source,
        trace_flows=trace_flows,
        trace_packets=trace_packets,
        pcap=pcap,
        pcap_links=pcap_links,
        progress=progress,
        trace_dir=trace_dir,
        exact_stop=exact_stop,
        advise=advise,
    )


def run_prepared(
    doc: dict[str, Any],
    source: str,
    trace_flows: bool | None = None,
    trace_packets: bool | None = None,
    pcap: str | Path | None = None,
    pcap_links: list[str] | None = None,
    progress: Callable[[float, int], bool | None] | None = None,
    trace_dir: str | Path | None = None,
    exact_stop: bool | None = None,
    advise: bool = False,
) -> Result:
    """:func:`run` for a scenario :func:`transim.scenario.prepare` has loaded (``doc``, which
    this may edit, and its ``source`` label for errors): a caller that has read the scenario
    once need not read it again."""
    if not isinstance(doc.get("trace", {}), dict):
        # Let the schema name the field rather than failing here.
        trace_flows = trace_packets = pcap = None
    if pcap is not None:
        spec: dict[str, object] = {"dir": str(pcap)}
        if pcap_links:
            spec["links"] = list(pcap_links)
        doc.setdefault("trace", {})["pcap"] = spec
    if trace_flows is not None or trace_packets is not None:
        tr = doc.setdefault("trace", {})
        if trace_flows is not None:
            tr["flows"] = trace_flows
        if trace_packets is not None:
            tr["packets"] = trace_packets
    writer = TraceWriter(trace_dir) if trace_dir is not None else None
    try:
        raw = _core.run(to_json(doc), progress, writer, exact_stop, advise)
    except _core.ScenarioError as e:
        raise ScenarioError.from_engine(e, source) from None
    except OSError as e:
        raise ScenarioError(str(e), path="trace.pcap.dir", source=source) from None
    finally:
        files = writer.close() if writer is not None else []
    result = Result(
        None,
        raw["flow_traces"],
        raw["packet_trace"],
        doc,
        text=raw["result"],
        stopped_at=raw["stopped_at"],
    )
    result.trace_files = files
    result.warnings = raw["warnings"]
    if raw["interrupted"]:
        raise Interrupted(result)
    return result


def congestion_controls() -> list[str]:
    """Names accepted by ``tcp.cc``."""
    return list(_core.congestion_controls())

"""The result of one run: summaries per flow and per link, plus optional numpy traces."""

from __future__ import annotations

import gc
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _core
from .records import PickedRecords, missing

if TYPE_CHECKING:
    import pandas as pd


def completion_times(text: str | _core.SummaryText) -> dict[str, Any]:
    """:meth:`Result.completion_times` of a run's summary text (the engine's digest reads
    it; the summary is not parsed in Python)."""
    every = json.loads(_core.summary_digest(text, 1))["flows_all"]
    return {"completed": every["completed"], "classes": every["fct"]}


def _parse(text: str) -> dict[str, Any]:
    """``json.loads`` of a run's summary with the cyclic garbage collector paused: it would
    otherwise walk the young objects again and again while millions are made (100,000
    flows: 4.1 s against 2.7 s, and about 0.5 s more for the collections that follow). No
    other thread runs meanwhile: the parse holds the interpreter lock throughout."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        parsed: dict[str, Any] = json.loads(text)
    finally:
        if was_enabled:
            gc.enable()
    return parsed


class Result:
    """Summary and traces of one run.

    ``flows`` and ``links`` are lists of dicts (see the README for the fields);
    ``flow_traces[i]`` is None or a dict of numpy arrays (t, cwnd, ssthresh, srtt, rto, flight,
    snd_max, snd_una); ``packet_trace`` is None or a dict of numpy arrays (t, kind, flow,
    from_sender, seq, ack, len, tx, link, cause).
    """

    def __init__(
        self,
        summary: dict[str, Any] | None,
        flow_traces: list[dict[str, np.ndarray] | None],
        packet_trace: dict[str, np.ndarray] | None,
        scenario: dict[str, Any],
        *,
        text: str | _core.SummaryText | None = None,
        stopped_at: float | None = None,
    ) -> None:
        if summary is None and text is None:
            raise ValueError("a Result needs its summary, as a dict or as JSON text")
        self._summary = summary
        # The engine's JSON text of the summary, read into ``summary`` when first asked for:
        # a run of 100,000 flows writes its files without building 30 million Python objects
        # (nor, from the engine's text, a Python string of 300 MB).
        self._text = text
        self._stopped_at = stopped_at
        # Summaries cut down to a few fields per flow (see ``_cut``), while ``summary`` is
        # unread: by the flow fields kept.
        self._cuts: dict[tuple[str, ...], dict[str, Any]] = {}
        # Flows and link directions read one by one from the text (``flow``, ``link``)
        # while ``summary`` is unread.
        self._picked = PickedRecords(text) if text is not None else None
        self.flow_traces = flow_traces
        self.packet_trace = packet_trace
        self.scenario = scenario
        #: Trace files written while the run went on (``run(trace_dir=...)``).
        self.trace_files: list[Path] = []
        #: Advice on the scenario (``run(advise=True)``): dicts of ``code``, ``flows`` and
        #: ``message``.
        self.warnings: list[dict[str, Any]] = []

    @property
    def summary(self) -> dict[str, Any]:
        """The run's summary: name, seed, simulated_time, events, flows, links,
        conservation, stopped_at."""
        if self._summary is None:
            assert self._text is not None
            # The text is not kept beside the objects: once read, the summary may be edited.
            self._summary, self._text = _parse(str(self._text)), None
            # From now on cuts are made from the summary (see ``_cut``): these go.
            self._cuts.clear()
            if self._picked is not None:
                # The records handed out are the summary's own, edits and all.
                self._picked.splice(self._summary)
                self._picked = None
        return self._summary

    @summary.setter
    def summary(self, value: dict[str, Any]) -> None:
        self._summary, self._text, self._picked = value, None, None

    @property
    def stopped_at(self) -> float | None:
        """The simulated time at which the run was stopped early (an interrupt or a wall-time
        limit), None when it ran to its end; known without reading the summary."""
        if self._summary is None:
            return self._stopped_at
        stopped: float | None = self._summary.get("stopped_at")
        return stopped

    def packets(self) -> dict[str, np.ndarray]:
        """The packet trace (``packet_trace``); a ValueError saying how to get one when the
        run kept none."""
        if self.packet_trace is None:
            raise ValueError(f"this run kept no packet trace: {self._how_to_trace('packets')}")
        return self.packet_trace

    def flow_trace(self, i: int) -> dict[str, np.ndarray]:
        """Flow ``i``'s time series (``flow_traces[i]``); an IndexError for a flow the run
        does not have, a ValueError saying how to get the series when it kept none."""
        n = len(self.flow_traces)
        if not 0 <= i < n:
            raise IndexError(
                f"flow {i}: the run has {n} flows (0 to {n - 1})"
                if n
                else f"flow {i}: the run has no flows"
            )
        tr = self.flow_traces[i]
        if tr is None:
            raise ValueError(f"this run kept no trace of flow {i}: {self._how_to_trace('flows')}")
        return tr

    def _how_to_trace(self, what: str) -> str:
        """How to get a trace a run did not keep in memory."""
        if self.trace_files:
            return (
                "call load_traces() to read it back from trace_files (unless the scenario's "
                "trace table left it out)"
            )
        return f"run with trace_{what}=True (transim run --trace)"

    def load_traces(self) -> None:
        """Read streamed traces back into ``flow_traces`` / ``packet_trace`` (for plots)."""
        from .tracefile import FLOWS, PACKETS, SCTP, read_trace

        names = {p.name: p for p in self.trace_files}
        if PACKETS in names and self.packet_trace is None:
            self.packet_trace = read_trace(names[PACKETS])
        for name in (FLOWS, SCTP):
            if name not in names:
                continue
            every = read_trace(names[name])
            flow = every.pop("flow")
            for i in np.unique(flow):
                rows = flow == i
                self.flow_traces[int(i)] = {k: v[rows] for k, v in every.items()}

    @property
    def flows(self) -> list[dict[str, Any]]:
        return self.summary["flows"]

    @property
    def links(self) -> list[dict[str, Any]]:
        return self.summary["links"]

    def flow(self, key: int | str = 0) -> dict[str, Any]:
        """A flow's summary by index or name (the first flow of that name). While
        ``summary`` is unread, the flow alone is read from the engine's text (at 100,000
        flows, milliseconds against seconds), and it is the very dict ``summary`` holds
        once read, edits included."""
        return self._record("flows", key)

    def link(self, name: str) -> dict[str, Any]:
        """A link direction's summary by name ("r1->r2"), read as :meth:`flow` reads a
        flow."""
        return self._record("links", name)

    def _record(self, which: str, key: int | str) -> dict[str, Any]:
        """The record of ``which`` ("flows" or "links") at index ``key`` or named ``key``."""
        if self._summary is None and self._picked is not None:
            return self._picked.get(which, key)
        records: list[dict[str, Any]] = self.summary[which]
        if isinstance(key, int):
            return records[key]
        for record in records:
            if record.get("name") == key:
                return record
        names = (r["name"] for r in records if isinstance(r.get("name"), str))
        raise missing(which, key, names)

    def table(self, limit: int | None = None) -> str:
        """A plain-text summary table; with ``limit``, at most that many rows of flows and of
        link directions (the busiest), with a line for all of them. Made from the engine's
        digest of the summary's text: the rows printed and totals over the rest."""
        from .summary_table import render

        if limit is not None and limit < 1:
            raise ValueError(f"limit must be at least 1 row, got {limit}")
        return render(json.loads(_core.summary_digest(self._summary_text(), limit)))

    def frame(self, which: str = "flows") -> pd.DataFrame:
        """The flows (``which="flows"``) or link directions (``"links"``) as a pandas
        DataFrame, one row each, with the columns of flows.csv / links.csv: nested fields as
        dotted columns (``drops.queue``), lists as their JSON text, null as NaN. Equal to
        ``pandas.read_csv`` of the file :meth:`write` makes. The engine flattens its own text
        of the summary (while ``summary`` has not been read), so 10,000 flows take about a
        tenth of a second, against about 0.4 s to read ``summary`` alone. Raises ValueError
        for another ``which``."""
        import pandas as pd

        csv = _core.summary_table(self._summary_text(), which)
        if not csv.strip():
            # No records, hence no columns: what read_csv cannot make of an empty file.
            return pd.DataFrame()
        return pd.read_csv(io.StringIO(csv))

    def completion_times(self) -> dict[str, Any]:
        """Completion times of the flows that completed, by size delivered, as the engine
        classes them (under 100 kB, 100 kB to 1 MB, 1 MB to 10 MB, 10 MB and more):
        ``completed`` (how many flows) and ``classes``, one per class that has flows, each
        with ``label``, ``flows`` and ``mean``, ``median`` and ``p99`` in seconds
        (percentiles by nearest rank), and ``slowdown_mean``, ``slowdown_median`` and
        ``slowdown_p99``: completion time over the ideal one (the transfer alone on idle
        links, handshake included; each flow's ``ideal_completion_time``) over the class's
        flows that have one (TCP transfers; None when none has), and ``slowdown_flows``,
        how many have one (a transfer written at set times, or sprayed over equal-cost
        paths, has none)."""
        return completion_times(self._summary_text())

    def rounds(self) -> list[dict[str, Any]]:
        """Each group of barrier-synchronised rounds (``app.kind = "rounds"``) with its
        figures (:func:`transim.rounds.describe`): the rounds that ended, their times after
        the first, and the aggregator's goodput over them. Empty without rounds."""
        from .rounds import describe

        groups = json.loads(_core.summary_digest(self._summary_text(), 1)).get("rounds", [])
        return [describe(g) for g in groups]

    def _cut(self, flow_keys: tuple[str, ...]) -> dict[str, Any]:
        """The summary with each flow cut down to the fields ``flow_keys`` (those it has) and
        each link direction to none; the summary's own fields (``name``, ...) whole. Read
        from the engine's text without building the whole summary while ``summary`` is
        unread (what the plots of a run of 100,000 flows read: seconds less), else made from
        the summary as it now stands."""
        if not self._text_current():
            cut = {k: v for k, v in self.summary.items() if k not in ("flows", "links")}
            cut["flows"] = [{k: f[k] for k in flow_keys if k in f} for f in self.flows]
            cut["links"] = [{} for _ in self.links]
            return cut
        assert self._text is not None
        if flow_keys not in self._cuts:
            text = _core.summary_slim(self._text, list(flow_keys), [])
            self._cuts[flow_keys] = json.loads(text)
        return self._cuts[flow_keys]

    def _summary_text(self) -> str | _core.SummaryText:
        """The summary as compact JSON text: the engine's own while nobody has read the
        summary (and so could have edited it), else the summary dumped."""
        if self._text_current():
            assert self._text is not None
            return self._text
        return json.dumps(self.summary, separators=(",", ":"))

    def _text_current(self) -> bool:
        """Whether the engine's text still is the summary: ``summary`` unread, and no flow
        or link handed out by ``flow`` or ``link`` edited since."""
        if self._summary is not None or self._text is None:
            return False
        return self._picked is None or not self._picked.edited()

    def write(self, out: str | Path) -> list[Path]:
        """Write results.json, flows.csv, links.csv (and traces as .npz) into ``out``.

        results.json is the summary as ``json.dumps(summary, indent=2)`` writes it; the CSV
        files have a row per flow and per link direction, nested fields as dotted columns
        (``drops.queue``) and lists as their JSON text. The engine writes all three, from
        its own text of the summary when ``summary`` has not been read (the same bytes): a
        run of 100,000 flows writes them in seconds.
        """
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = [Path(p) for p in _core.write_summary(self._summary_text(), str(out))]
        for i, tr in enumerate(self.flow_traces):
            if tr is not None:
                p = out / f"trace_flow{i}.npz"
                # numpy's stub types every keyword as allow_pickle's bool: the keys are arrays'.
                np.savez_compressed(p, **tr)  # type: ignore[arg-type]
                written.append(p)
        if self.packet_trace is not None:
            p = out / "trace_packets.npz"
            np.savez_compressed(p, **self.packet_trace)  # type: ignore[arg-type]
            written.append(p)
        return written

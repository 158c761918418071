"""Running a sweep's runs on Dask distributed: a LocalCluster on this machine by default, or
any running scheduler (``--scheduler tcp://host:8786``; clusters made by dask-jobqueue or
dask-kubernetes expose one). Short runs are batched so that one task lasts about a second:
Dask's per-task cost (a few milliseconds) stays a small share of the work. Only this process
writes the store, one transaction per batch as it comes back.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from ..rounds import metrics as rounds_metrics
from .spec import RunSpec
from .store import Store

TASK_SECONDS = 1.0  # aim for tasks of about this long


# The fields ``metrics`` reads of each flow and link direction: a sweep reads only these of a
# run's summary (``_core.summary_slim``), not the whole of it (30 MB of JSON at 10,000 flows).
FLOW_FIELDS = (
    "goodput_bps",
    "bytes_delivered",
    "start",
    "active_time",
    "retransmissions",
    "timeouts",
    "drops",
    "switches",
    "cc",
)
LINK_FIELDS = ("utilisation",)


def aggregate_goodput(flows: list[dict[str, Any]]) -> float:
    """The data every flow delivered (bit/s) over the time from the first flow's start to the
    last one's end (its completion, or the end of the run). Unlike the flows' goodputs summed,
    each over its own active time, this cannot exceed what the network carried: two flows
    that each had a 10 Mb/s link to themselves for half the run sum to 20 Mb/s, and
    aggregate to 10."""
    spans = [
        (f.get("start", 0.0), f.get("start", 0.0) + f["active_time"])
        for f in flows
        if "active_time" in f
    ]
    if not spans:
        return 0.0
    span = max(e for _, e in spans) - min(s for s, _ in spans)
    data = sum(f.get("bytes_delivered", 0) for f in flows)
    return data * 8 / span if span > 0 else 0.0


def metrics(summary: dict[str, Any]) -> dict[str, Any]:
    """The numbers a sweep keeps of every run (the full summary only when asked). Reads of
    each flow only ``FLOW_FIELDS`` and of each link direction only ``LINK_FIELDS``.
    ``goodput_bps`` is the flows' goodputs summed, each over its own active time (one flow's
    goodput in a one-flow run); ``aggregate_goodput_bps`` all their data over the span they
    were active together (:func:`aggregate_goodput`)."""
    flows = summary["flows"]
    links = summary["links"]
    out: dict[str, Any] = {
        "goodput_bps": sum(f.get("goodput_bps", 0.0) for f in flows),
        "aggregate_goodput_bps": aggregate_goodput(flows),
        "flow_goodput_bps": [f.get("goodput_bps", 0.0) for f in flows],
        "retransmissions": sum(f.get("retransmissions", 0) for f in flows),
        "timeouts": sum(f.get("timeouts", 0) for f in flows),
        "drops": sum(sum(f["drops"].values()) for f in flows),
        "utilisation": max((x["utilisation"] for x in links), default=0.0),
        "events": summary["events"],
        "simulated_time": summary["simulated_time"],
    }
    switches = [len(f.get("switches") or []) for f in flows]
    if any(switches):
        out["switches"] = switches
        out["final_cc"] = [f.get("cc") for f in flows]
    out.update(rounds_metrics(summary))
    return out


def completion_metrics(text: Any) -> dict[str, Any]:
    """Completion times by size class of the flows that completed, from a run's summary text
    (the engine's digest, as ``transim run`` prints them): ``completed``, and for each class
    with flows ``fct.<class>.flows`` / ``.mean`` / ``.median`` / ``.p99`` in seconds, the
    class named by its label with underscores (``fct.under_100_kB.p99``), and where its
    flows have ideal completion times ``fct.<class>.slowdown_mean`` / ``.slowdown_median``
    / ``.slowdown_p99``, over ``fct.<class>.slowdown_flows`` of them (fewer than the class's
    flows where some have no ideal time: sprayed transfers). Empty when no flow completed
    (bulk transfers)."""
    from ..result import completion_times

    fct = completion_times(text)
    if not fct["completed"]:
        return {}
    out: dict[str, Any] = {"completed": fct["completed"]}
    for c in fct["classes"]:
        name = c["label"].replace(" ", "_")
        for stat in ("flows", "mean", "median", "p99"):
            out[f"fct.{name}.{stat}"] = c[stat]
        if c.get("slowdown_mean") is not None:
            for stat in ("slowdown_flows", "slowdown_mean", "slowdown_median", "slowdown_p99"):
                out[f"fct.{name}.{stat}"] = c[stat]
    return out


def run_batch(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run a batch of runs in this (worker) process; a failing run becomes an error row."""
    from .. import _core
    from ..studies.runner import engine_fingerprint

    engine = f"{_core.__version__}+{engine_fingerprint()}"
    rows = []
    for job in batch:
        t0 = time.perf_counter()
        row = {k: job[k] for k in ("key", "sweep", "params", "replication", "seed")}
        row["engine"] = engine
        try:
            raw = _core.run(job["scenario"], None, None, None, True)
            text = raw.pop("result")
            fct = completion_metrics(text)
            # The advice on this point's scenario, by code: ``m.warning.<code>`` in ``load``.
            fct.update({f"warning.{w['code']}": w["message"] for w in raw["warnings"]})
            keep = bool(job.get("keep_summary"))
            if keep:
                summary = json.loads(str(text))
            else:
                summary = json.loads(_core.summary_slim(text, FLOW_FIELDS, LINK_FIELDS))
            del text
            row.update(status="ok", metrics={**metrics(summary), **fct})
            if keep:
                row["summary"] = summary
        except Exception as e:  # noqa: BLE001 - a failing run is recorded, the sweep goes on
            message = e.args[0] if isinstance(e, _core.ScenarioError) and e.args else str(e)
            row.update(status="error", error=f"{type(e).__name__}: {message}")
        row["wall"] = time.perf_counter() - t0
        row["finished"] = time.time()
        rows.append(row)
    return rows


@dataclass
class Outcome:
    """What a sweep execution did."""

    total: int
    skipped: int
    ran: int
    failed: int
    wall: float
    run_seconds: float
    batch: int
    workers: int

    @property
    def overhead(self) -> float:
        """Share of the workers' time not spent inside runs (scheduling, transfer, idling)."""
        busy = self.wall * max(self.workers, 1)
        return max(0.0, 1.0 - self.run_seconds / busy) if busy > 0 else 0.0


def job(spec: RunSpec, sweep: str, keep_summary: bool) -> dict[str, Any]:
    return {
        "key": spec.key,
        "sweep": sweep,
        "params": spec.params,
        "replication": spec.replication,
        "seed": spec.seed,
        "scenario": json.dumps(spec.scenario, default=str),
        "keep_summary": keep_summary,
    }


def execute(
    runs: list[RunSpec],
    store: Store,
    sweep: str,
    workers: int | None = None,
    scheduler: str | None = None,
    batch: int | None = None,
    keep_summary: bool = False,
    progress: bool = True,
    on_rows: Callable[[list[dict[str, Any]]], None] | None = None,
) -> Outcome:
    """Run every run whose key is not in the store yet; record each as it finishes."""
    from dask.distributed import Client, LocalCluster, as_completed

    done = store.keys("ok")
    todo = [job(r, sweep, keep_summary) for r in runs if r.key not in done]
    skipped = len(runs) - len(todo)
    if not todo:
        return Outcome(len(runs), skipped, 0, 0, 0.0, 0.0, 0, 0)
    cluster = None
    if scheduler:
        client = Client(scheduler, timeout="30s")
    else:
        n = workers or os.cpu_count() or 1
        cluster = LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
        client = Client(cluster)
    ran = failed = 0
    run_seconds = 0.0
    t_start = time.perf_counter()  # the cluster is up: from here on it is the sweep's time
    try:
        nworkers = max(1, len(client.scheduler_info()["workers"]))
        if batch is None:
            # Time one run here to size the batches: about TASK_SECONDS of work per task,
            # and at least four tasks per worker so the load balances.
            first = run_batch(todo[:1])
            store.add(first)
            if on_rows:
                on_rows(first)
            ran, failed = 1, int(first[0]["status"] == "error")
            run_seconds = first[0]["wall"]
            todo = todo[1:]
            per = max(first[0]["wall"], 1e-4)
            batch = max(1, min(int(TASK_SECONDS / per), math.ceil(len(todo) / (4 * nworkers))))
        batches = [todo[i : i + batch] for i in range(0, len(todo), batch)]
        bar = tqdm(
            total=len(runs),
            initial=skipped + ran,
            desc=f"sweep {sweep}",
            unit="run",
            disable=not progress,
        )
        futures = client.map(run_batch, batches, pure=False)
        for fut in as_completed(futures):
            rows = fut.result()
            store.add(rows)
            if on_rows:
                on_rows(rows)
            ran += len(rows)
            failed += sum(r["status"] == "error" for r in rows)
            run_seconds += sum(r["wall"] for r in rows)
            bar.update(len(rows))
            fut.release()
        bar.close()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return Outcome(
        len(runs),
        skipped,
        ran,
        failed,
        time.perf_counter() - t_start,
        run_seconds,
        batch or 1,
        nworkers,
    )

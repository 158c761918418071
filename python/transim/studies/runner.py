"""Running many scenarios for a study: a resumable result store and a parallel map.

Every finished run is committed at once to ``runs.sqlite`` in the study's output folder (the
sweeps' store), keyed by a hash of the exact scenario it ran and of the engine that ran it;
running the study again
with the same engine reuses those rows, so an interruption or a crash loses nothing already
computed, while a rebuilt engine runs everything afresh. The engine releases the GIL, so runs
execute in threads (one per core by default).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .. import run
from ..result import Result


@functools.cache
def engine_fingerprint() -> str:
    """A hash of the compiled engine, so results of an older build are never reused."""
    from .. import _core

    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]


def scenario_key(doc: dict[str, Any]) -> str:
    """A stable identifier of a run: the scenario's canonical JSON and the engine build."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":")) + engine_fingerprint()
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class RunStore:
    """A study's finished runs, kept in the same SQLite store as sweeps (``runs.sqlite``,
    WAL journal, one row per run with its full summary, committed as each run finishes).

    Opening ``runs.jsonl`` (the older format) opens ``runs.sqlite`` beside it and imports the
    readable lines of the old file once, skipping (with a warning) lines that are not run
    records: a line cut short by a crash, bytes that are not UTF-8, foreign lines.
    """

    def __init__(self, path: Path) -> None:
        from ..sweep.store import Store

        self.path = path
        self.store = Store(path)
        self.rows: dict[str, dict[str, Any]] = {}
        for key, params, summary in self.store.db.execute(
            "SELECT key, params, summary FROM runs WHERE status = 'ok'"
        ):
            self.rows[key] = {
                "key": key,
                "label": json.loads(params),
                "summary": json.loads(summary) if summary else None,
            }
        self.lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> RunStore:
        """The store at ``path`` (a ``.sqlite`` file; ``.jsonl`` is imported, see above)."""
        if path.suffix != ".jsonl":
            return cls(path)
        store = cls(path.with_suffix(".sqlite"))
        if path.exists():
            store.import_jsonl(path)
        return store

    def import_jsonl(self, path: Path) -> None:
        bad = 0
        for raw in path.read_bytes().splitlines():
            try:
                row = json.loads(raw.decode("utf-8"))
                key, label, summary = row["key"], row["label"], row["summary"]
            except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
                bad += 1
                continue
            if key not in self.rows:
                self.add(key, label, summary)
        if bad:
            print(
                f"warning: {path}: skipped {bad} line(s) that are not run records", file=sys.stderr
            )

    def add(self, key: str, label: dict[str, Any], summary: dict[str, Any]) -> None:
        row = {"key": key, "label": label, "summary": summary}
        with self.lock:
            self.rows[key] = row
        self.store.add(
            [
                {
                    "key": key,
                    "sweep": "study",
                    "params": label,
                    "replication": 0,
                    "seed": int(summary.get("seed", 0)) if isinstance(summary, dict) else 0,
                    "status": "ok",
                    "metrics": None,
                    "summary": summary,
                    "engine": engine_fingerprint(),
                    "wall": 0.0,
                }
            ]
        )

    def __len__(self) -> int:
        return len(self.rows)


@dataclass
class Job:
    """One run: the scenario, a label saying what it is, and whether traces are needed."""

    label: dict[str, Any]
    scenario: dict[str, Any]
    traces: bool = False


def run_jobs(
    jobs: Iterable[Job],
    store: RunStore,
    desc: str,
    jobs_parallel: int | None = None,
    on_traced: Callable[[Job, Result], None] | None = None,
) -> list[tuple[Job, dict[str, Any]]]:
    """Run every job not already in the store; return (job, summary) for all, in order."""
    jobs = list(jobs)
    todo = [j for j in jobs if j.traces or scenario_key(j.scenario) not in store.rows]
    workers = max(1, jobs_parallel or os.cpu_count() or 1)

    def one(job: Job) -> None:
        r = run(job.scenario, trace_flows=job.traces or None, trace_packets=job.traces or None)
        store.add(scenario_key(job.scenario), job.label, r.summary)
        if on_traced is not None and job.traces:
            on_traced(job, r)

    if todo:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(one, j) for j in todo]
            for fut in tqdm(as_completed(futures), total=len(futures), desc=desc, unit="run"):
                fut.result()
    return [(j, store.rows[scenario_key(j.scenario)]["summary"]) for j in jobs]

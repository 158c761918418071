"""Parameter sweeps: a sweep file (:mod:`.spec`), runs on Dask distributed (:mod:`.execute`)
and a crash-safe SQLite result store (:mod:`.store`).

    >>> from transim import sweep
    >>> outcome = sweep.run("sweeps/cc-grid.toml", out="out/cc-grid")
    >>> df = sweep.load("out/cc-grid/results.sqlite")
"""

from __future__ import annotations

from pathlib import Path

from .advice import advice_lines
from .execute import Outcome, execute, metrics
from .glance import glance
from .spec import RunSpec, Sweep, derived_seed, parse
from .store import Store, export, load

__all__ = [
    "Outcome",
    "RunSpec",
    "Store",
    "Sweep",
    "advice_lines",
    "derived_seed",
    "execute",
    "export",
    "glance",
    "load",
    "metrics",
    "parse",
    "run",
]


def run(
    path: str | Path,
    out: str | Path | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    batch: int | None = None,
    progress: bool = True,
) -> Outcome:
    """Run (or resume) the sweep file ``path``; rows go to ``out/results.sqlite``."""
    sw = parse(path)
    out = Path(out) if out else Path("out") / "sweeps" / sw.name
    store = Store(out / "results.sqlite")
    try:
        return execute(sw.runs(), store, sw.name, workers, scheduler, batch, progress=progress)
    finally:
        store.close()

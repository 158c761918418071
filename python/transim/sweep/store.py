"""The result store: one SQLite file (WAL journal), one row per finished run, written by one
writer (the process that drives the sweep) and committed as each batch of runs comes back.
A crash or a kill loses at most the runs in progress; rerunning skips the rows present.
Load into pandas with :func:`load`; export to Parquet or CSV with :func:`export`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    sweep TEXT NOT NULL,
    params TEXT NOT NULL,
    replication INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    metrics TEXT,
    summary TEXT,
    error TEXT,
    engine TEXT NOT NULL,
    wall REAL NOT NULL,
    finished REAL NOT NULL
)
"""


class Store:
    """Rows of finished runs in an SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(SCHEMA)
        self.db.commit()
        self.lock = threading.Lock()

    def close(self) -> None:
        self.db.close()

    def keys(self, status: str | None = "ok") -> set[str]:
        """Keys of the runs recorded (by default only those that succeeded)."""
        q = "SELECT key FROM runs" + (" WHERE status = ?" if status else "")
        with self.lock:
            return {r[0] for r in self.db.execute(q, (status,) if status else ())}

    def add(self, rows: Iterable[dict[str, Any]]) -> int:
        """Record finished runs in one transaction (a run recorded before is replaced only
        if it had failed); returns how many rows were written."""
        vals = [
            (
                r["key"],
                r["sweep"],
                json.dumps(r["params"], sort_keys=True, default=str),
                r["replication"],
                r["seed"],
                r["status"],
                json.dumps(r.get("metrics")) if r.get("metrics") is not None else None,
                json.dumps(r.get("summary")) if r.get("summary") is not None else None,
                r.get("error"),
                r["engine"],
                r["wall"],
                r.get("finished", time.time()),
            )
            for r in rows
        ]
        with self.lock:
            cur = self.db.executemany(
                "INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO UPDATE "
                "SET status=excluded.status, metrics=excluded.metrics, summary=excluded.summary, "
                "error=excluded.error, engine=excluded.engine, wall=excluded.wall, "
                "finished=excluded.finished WHERE runs.status = 'error'",
                vals,
            )
            self.db.commit()
            return cur.rowcount

    def summary(self, key: str) -> dict[str, Any] | None:
        """The full result summary of a run, when it was kept."""
        with self.lock:
            row = self.db.execute("SELECT summary FROM runs WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    def count(self) -> dict[str, int]:
        with self.lock:
            return dict(self.db.execute("SELECT status, COUNT(*) FROM runs GROUP BY status"))


def load(path: str | Path, sweep: str | None = None) -> Any:
    """The store's rows as a pandas DataFrame: one column per parameter (``p.<key>``) and per
    metric (``m.<name>``), plus key, sweep, replication, seed, status, error, engine, wall."""
    import pandas as pd

    db = sqlite3.connect(Path(path))
    q = (
        "SELECT key, sweep, params, replication, seed, status, metrics, error, engine, wall "
        "FROM runs"
    )
    rows = db.execute(
        q + (" WHERE sweep = ?" if sweep else ""), (sweep,) if sweep else ()
    ).fetchall()
    db.close()
    recs = []
    for key, sw, params, rep, seed, status, metrics, error, engine, wall in rows:
        rec: dict[str, Any] = {"key": key, "sweep": sw, "replication": rep, "seed": seed}
        rec.update({f"p.{k}": v for k, v in json.loads(params).items()})
        rec.update({f"m.{k}": v for k, v in (json.loads(metrics) if metrics else {}).items()})
        rec.update({"status": status, "error": error, "engine": engine, "wall": wall})
        recs.append(rec)
    return pd.DataFrame.from_records(recs)


def export(path: str | Path, out: str | Path) -> Path:
    """Write the store's rows to ``out`` (.parquet or .csv)."""
    out = Path(out)
    df = load(path)
    if out.suffix == ".parquet":
        df.to_parquet(out, index=False)
    elif out.suffix == ".csv":
        df.to_csv(out, index=False)
    else:
        raise ValueError(f"export to {out}: expected a .parquet or .csv file name")
    return out

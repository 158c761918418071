"""What ``transim sweep`` says, when it ends, of the advice on its runs' scenarios: for each
kind of finding, how many runs had it and the first such point with its message. A sweep
that raises a bottleneck's rate past what the receive window can fill shows a plateau that
looks like the protocol's; this says it is the window, and at which points."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

PREFIX = "warning."


def advice_lines(store: str | Path, sweep: str) -> list[str]:
    """One line per kind of finding among the sweep's runs that ran without error."""
    db = sqlite3.connect(Path(store))
    try:
        rows = db.execute(
            "SELECT params, metrics FROM runs WHERE sweep = ? AND status = 'ok' ORDER BY key",
            (sweep,),
        ).fetchall()
    finally:
        db.close()
    found: dict[str, tuple[int, str, str]] = {}
    for params, metrics in rows:
        for name, message in (json.loads(metrics) if metrics else {}).items():
            if not name.startswith(PREFIX):
                continue
            code = name[len(PREFIX) :]
            count, point, first = found.get(code, (0, params, message))
            found[code] = (count + 1, point, first)
    lines = []
    for code, (count, point, message) in sorted(found.items()):
        where = ", ".join(f"{k}={v}" for k, v in json.loads(point).items())
        lines.append(
            f"warning ({code}): in {count} of {len(rows)} runs; at {where or 'the base'}: {message}"
        )
    return lines

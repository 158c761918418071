#!/usr/bin/env python3
"""Where one ``_core.run`` call spends its time, first call and later ones.

``transim bench`` times a benchmark's whole ``_core.run`` call in a fresh process (its
``wall``), and its simulation alone (``run``). This runs a scenario several times in each
of several fresh processes and prints, per call, the wall time, the engine's four stages
(parse, build, run, collect) and what falls outside them (the JSON text of the results,
handing memory back, Python's side of the call). The first call of a process pays for code
not yet in the caches or the page tables; the later ones show what is left.

    .venv/bin/python scripts/call_stages.py benches/b1.toml --processes 3 --calls 3
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = """
import json, sys, time
from transim import _core
from transim.scenario import prepare, to_json
doc, _ = prepare(sys.argv[1])
text = to_json(doc)
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    raw = _core.run(text)
    wall = time.perf_counter() - t0
    print(json.dumps({"wall": wall, **raw["stages"]}))
"""

STAGES = ("parse", "build", "run", "collect")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--processes", type=int, default=3, help="fresh processes (default 3)")
    ap.add_argument("--calls", type=int, default=3, help="calls per process (default 3)")
    a = ap.parse_args()
    print(
        f"{'process':>7} {'call':>4} {'wall ms':>8} "
        + " ".join(f"{s:>8}" for s in STAGES)
        + f" {'outside':>8}"
    )
    for p in range(a.processes):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, a.scenario, str(a.calls)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for c, line in enumerate(out.splitlines()):
            r = json.loads(line)
            outside = r["wall"] - sum(r[s] for s in STAGES)
            cells = " ".join(f"{r[s] * 1e3:8.3f}" for s in STAGES)
            print(f"{p + 1:>7} {c + 1:>4} {r['wall'] * 1e3:8.3f} {cells} {outside * 1e3:8.3f}")
        time.sleep(0.1)


if __name__ == "__main__":
    main()

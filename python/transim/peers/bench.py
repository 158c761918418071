"""``transim bench --peer ns3``: B1–B3 in ns-3 and in transim, alternately, in one invocation.

Each pair runs the same bench file: ns-3 through the translator and the driver (its
``Simulator::Run`` timed alone), transim in a fresh worker process (``_core.run`` timed). The
ratio is taken pair by pair, so the machine's load swings cancel; the median is reported. The
ns-3 here is whatever is installed (the PyPI wheel and Debian's package keep logging compiled
in, about 2x slower per event than an optimized build), so the optimized-build figures stay
the headline reference.
"""

from __future__ import annotations

import statistics
import sys
from typing import Any

from ..bench import BENCH_DIR, NS3, run_one
from ..scenario import prepare
from .ns3 import Ns3Install, find_ns3, run_ns3
from .ns3_translate import translate


def _ns3_once(name: str, ns3: Ns3Install) -> dict[str, Any]:
    doc, _ = prepare(BENCH_DIR / f"{name.lower()}.toml")
    out = run_ns3(translate(doc).spec, ns3)
    mss = doc["tcp"].get("mss") or 1448
    packets = sum(f["bytes_delivered"] for f in out["flows"]) / mss
    return {"wall": out["wall"], "packets": packets, "events": out["events"]}


def peer_bench(names: list[str], repeat: int) -> str:
    """Run the pairs and render the table."""
    ns3 = find_ns3()
    lines = [
        f"transim vs {ns3.describe()}, run alternately, {repeat} pair(s) each",
        f"{'bench':<5} {'transim pkt/s':>14} {'ns-3 pkt/s':>12} {'ratio (median, min-max)':>26} "
        f"{'vs optimized ns-3.48':>21}",
    ]
    for name in names:
        ratios, ours_pps, theirs_pps = [], [], []
        for i in range(repeat):
            print(f"  {name} pair {i + 1}/{repeat}: ns-3 ...", file=sys.stderr, flush=True)
            theirs = _ns3_once(name, ns3)
            print(f"  {name} pair {i + 1}/{repeat}: transim ...", file=sys.stderr, flush=True)
            ours = run_one(BENCH_DIR / f"{name.lower()}.toml")
            ours_pps.append(ours["packets"] / ours["wall"])
            theirs_pps.append(theirs["packets"] / theirs["wall"])
            ratios.append(ours_pps[-1] / theirs_pps[-1])
        ref = NS3[name]["packets"] / NS3[name]["wall"]
        ours_med, theirs_med = statistics.median(ours_pps), statistics.median(theirs_pps)
        lines.append(
            f"{name:<5} {ours_med:>14,.0f} {theirs_med:>12,.0f} "
            f"{statistics.median(ratios):>11.1f}x ({min(ratios):.1f}-{max(ratios):.1f}) "
            f"{ours_med / ref:>20.1f}x"
        )
    lines.append(
        "(pkt/s: data packets delivered per second of run time; ns-3 timed over Simulator::Run, "
        "transim over _core.run incl. parse and results)"
    )
    return "\n".join(lines)

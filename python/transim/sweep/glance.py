"""What ``transim sweep`` prints when it ends: each grid point's aggregate goodput,
retransmissions and timeouts, averaged over its runs (replications and random draws), so a
sweep's outcome can be read at a glance before it is loaded for analysis
(``transim.sweep.load``)."""

from __future__ import annotations

from pathlib import Path
from statistics import mean, stdev
from typing import Any

from ..format import fmt_rate

#: Points shown before the rest is left to ``transim.sweep.load``.
LIMIT = 24


def _value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _aggregate(rec: dict[str, Any]) -> float:
    """A run's aggregate goodput; a row stored before sweeps kept it (an earlier sweep of the
    same name) has only the flows' goodputs summed, which for one flow is the same."""
    v = rec.get("m.aggregate_goodput_bps")
    if v is None or v != v:  # missing, or NaN in a frame that mixes old and new rows
        return float(rec["m.goodput_bps"])
    return float(v)


def glance(store: str | Path, sweep: str, grid: dict[str, list[Any]], limit: int = LIMIT) -> str:
    """The table of one sweep's points, by the parameters of ``grid`` (those under
    ``[vary]``, with their values, in the file's order), from the rows of ``store`` that ran
    without error. A sweep of random draws only passes their names with no values: its
    points are then in the order of their values."""
    from .store import load

    df = load(store, sweep)
    if df.empty:
        return ""
    ok = df[df["status"] == "ok"]
    keys = list(grid)
    cols = [f"p.{k}" for k in keys]
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    order: dict[tuple[str, ...], tuple[Any, ...]] = {}
    for rec in ok.to_dict("records"):
        point = tuple(_value(rec[c]) for c in cols)
        groups.setdefault(point, []).append(rec)
        # The file's order of each value (its index in the grid); a value the file does not
        # list (a row of an earlier sweep of the same name) after those, by its text.
        order[point] = tuple(
            (0, grid[k].index(rec[c]), "") if rec[c] in grid[k] else (1, 0, _value(rec[c]))
            for k, c in zip(keys, cols, strict=True)
        )
    if not groups:
        return ""
    points = sorted(groups, key=lambda p: order[p])
    widths = [max(len(k), *(len(g[i]) for g in groups)) for i, k in enumerate(keys)]
    head = (
        "  ".join(f"{k:<{w}}" for k, w in zip(keys, widths, strict=True))
        + f"  {'runs':>4}  {'goodput':>11}  {'± sd':>11}  {'rtx':>8}  {'RTOs':>6}"
    )
    lines = [
        "each point: its runs' mean aggregate goodput (all flows' data over the time they "
        "were active together), its standard deviation, and the mean retransmissions and "
        "timeouts",
        head,
        "-" * len(head),
    ]
    for point in points[:limit]:
        recs = groups[point]
        g = [_aggregate(r) for r in recs]
        sd = fmt_rate(stdev(g)) if len(g) > 1 else "-"
        rtx = mean(r["m.retransmissions"] for r in recs)
        rto = mean(r["m.timeouts"] for r in recs)
        lines.append(
            "  ".join(f"{v:<{w}}" for v, w in zip(point, widths, strict=True))
            + f"  {len(recs):>4}  {fmt_rate(mean(g)):>11}  {sd:>11}  {rtx:>8.1f}  {rto:>6.2f}"
        )
    if len(groups) > limit:
        lines.append(
            f"… {len(groups) - limit} more points (of {len(groups)}): "
            f"transim.sweep.load({str(store)!r}) has every run"
        )
    return "\n".join(lines)

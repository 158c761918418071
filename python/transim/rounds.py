"""Barrier-synchronised rounds (``app.kind = "rounds"``) as a reader wants them: how many
rounds ended, how long each took, and the goodput the aggregator saw.

The engine gives, per group, the instant each round ended (``completed``, in seconds): when
the last member's receiver had its share. A round's time is from the end of the round before
it; the first round's includes the connections' handshakes and is left out of the times and
of the goodput, as incast studies measure after the connections are up.
"""

from __future__ import annotations

import itertools
import statistics
from typing import Any


def describe(group: dict[str, Any]) -> dict[str, Any]:
    """One group's figures from its entry in the summary's ``rounds``: ``group``, ``flows``,
    ``rounds`` (asked for), ``completed`` (how many ended), ``bytes_per_round``,
    ``first_round_end`` (s, or None), the times of the rounds after the first
    (``round_times``, s) with their ``mean``, ``median`` and ``max`` (None without them),
    and ``goodput_bps``: the bytes of those rounds over the time they took (None with fewer
    than two rounds ended)."""
    ends: list[float] = group["completed"]
    times = [b - a for a, b in itertools.pairwise(ends)]
    span = ends[-1] - ends[0] if len(ends) > 1 else 0.0
    return {
        "group": group["group"],
        "flows": group["flows"],
        "rounds": group["rounds"],
        "completed": len(ends),
        "bytes_per_round": group["bytes_per_round"],
        "first_round_end": ends[0] if ends else None,
        "round_times": times,
        "mean": statistics.fmean(times) if times else None,
        "median": statistics.median(times) if times else None,
        "max": max(times) if times else None,
        "goodput_bps": group["bytes_per_round"] * 8 * len(times) / span if span > 0 else None,
    }


def metrics(summary: dict[str, Any]) -> dict[str, Any]:
    """The figures a sweep keeps of each group: ``rounds.completed``, ``rounds.goodput_bps``
    and ``rounds.mean`` / ``.median`` / ``.max`` (the rounds after the first), with the
    group's name after ``rounds`` when it has one (``rounds.x.goodput_bps``)."""
    out: dict[str, Any] = {}
    for g in summary.get("rounds", []):
        d = describe(g)
        prefix = "rounds" if d["group"] is None else f"rounds.{d['group']}"
        out[f"{prefix}.completed"] = d["completed"]
        for stat in ("goodput_bps", "mean", "median", "max"):
            out[f"{prefix}.{stat}"] = d[stat]
    return out

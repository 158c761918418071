"""Study 3's decision map: from throughput samples per environment and variant to priorities.

In each environment the variant with the highest mean throughput gets priority 1; every other
variant is compared with it by Welch's two-sample t-test (unequal variances, Welch–
Satterthwaite degrees of freedom, two-sided): significantly worse at level α → priority 3
("switch to the best"), otherwise 2 ("close enough, stay"). The map is a JSON file with its
provenance; ``cc = "adaptive"`` looks the estimated path up in it (nearest cell on log scales).
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from scipy import stats

FORMAT = "transim-decision-map"
VERSION = 1
# The sweep parameters that are the environment's coordinates, and the variant.
ENV_KEYS = (
    "topology.bottleneck.rate",
    "topology.bottleneck.delay",
    "topology.bottleneck.forward.loss.p",
)
VARIANT_KEY = "tcp.cc"


def welch(a_mean: float, a_sd: float, a_n: int, b_mean: float, b_sd: float, b_n: int) -> tuple:
    """Welch's t statistic, its degrees of freedom and the two-sided p-value."""
    va, vb = a_sd**2 / a_n, b_sd**2 / b_n
    se = math.sqrt(va + vb)
    if se == 0:
        return (math.inf if a_mean != b_mean else 0.0), math.inf, (0.0 if a_mean != b_mean else 1.0)
    t = (a_mean - b_mean) / se
    df = (va + vb) ** 2 / (va**2 / (a_n - 1) + vb**2 / (b_n - 1))
    return t, df, 2 * stats.t.sf(abs(t), df)


def priorities(samples: dict[str, list[float]], alpha: float) -> dict[str, Any]:
    """One environment: mean, deviation, n per variant; the best; each variant's priority
    and its test against the best."""
    summary = {}
    for v, xs in samples.items():
        n = len(xs)
        mean = sum(xs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
        summary[v] = (mean, sd, n)
    best = max(summary, key=lambda v: summary[v][0])
    prio: dict[str, int] = {}
    tests: dict[str, dict[str, float]] = {}
    bm, bs, bn = summary[best]
    for v, (m, s, n) in summary.items():
        if v == best:
            prio[v] = 1
            continue
        if n < 2 or bn < 2:
            prio[v] = 2
            continue
        t, df, p = welch(bm, bs, bn, m, s, n)
        tests[v] = {"t": t, "df": df, "p": p}
        prio[v] = 3 if p < alpha else 2
    return {
        "best": best,
        "priority": prio,
        "mean": {v: s[0] for v, s in summary.items()},
        "std": {v: s[1] for v, s in summary.items()},
        "n": {v: s[2] for v, s in summary.items()},
        "tests": tests,
    }


def build(
    store: str | Path,
    alpha: float = 0.05,
    env_keys: tuple[str, str, str] = ENV_KEYS,
    variant_key: str = VARIANT_KEY,
    metric: str = "goodput_bps",
    sweep: str | None = None,
    keys: set[str] | None = None,
) -> dict[str, Any]:
    """The map from a sweep's result store (runs that failed are left out): the rows of
    ``sweep`` (all when None), or with ``keys`` the rows of those runs whichever sweep ran
    them (a run two sweeps share is stored once, under the first)."""
    from .sweep import load

    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha}: expected a significance level between 0 and 1")
    df = load(store, sweep)
    if keys is not None:
        df = df[df.key.isin(keys)]
    if df.empty:
        raise ValueError(f"{store}: no runs")
    cols = [f"p.{k}" for k in (*env_keys, variant_key)]
    missing = [c[2:] for c in cols if c not in df.columns]
    if missing:
        have = sorted(c[2:] for c in df.columns if c.startswith("p."))
        raise ValueError(f"{store}: the sweep does not vary {missing}; it varies {have}")
    ok = df[df.status == "ok"]
    groups: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for _, row in ok.iterrows():
        env = tuple(float(row[f"p.{k}"]) for k in env_keys)
        groups[env][str(row[f"p.{variant_key}"])].append(float(row[f"m.{metric}"]))
    cells = []
    for env in sorted(groups):
        cell = priorities(dict(groups[env]), alpha)
        cells.append({"env": list(env), **cell})
    variants = sorted({v for g in groups.values() for v in g})
    return {
        "format": FORMAT,
        "version": VERSION,
        "axes": {"bandwidth_bps": env_keys[0], "delay_s": env_keys[1], "loss": env_keys[2]},
        "delay_is": "the bottleneck's one-way propagation delay (ns-2's link delay)",
        "variants": variants,
        "metric": metric,
        "alpha": alpha,
        "cells": cells,
        "provenance": {
            "store": str(store),
            "sweeps": sorted(set(ok["sweep"])),
            "runs": int(len(ok)),
            "seeds": int(ok["seed"].nunique()),
            "engines": sorted(set(ok["engine"])),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    }


def save(m: dict[str, Any], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(m, indent=1) + "\n", encoding="utf-8")
    return path


def read(path: str | Path) -> dict[str, Any]:
    m = json.loads(Path(path).read_text(encoding="utf-8"))
    if m.get("format") != FORMAT:
        raise ValueError(f"{path} is not a transim decision map")
    return m


def show(m: dict[str, Any], plot: str | Path | None = None) -> str:
    """A text table (best variant and the priorities per cell) and, optionally, a figure:
    the best variant over bandwidth × delay, one panel per loss rate."""
    lines = [
        f"decision map: {len(m['cells'])} environments, variants {', '.join(m['variants'])}, "
        f"α = {m['alpha']} (Welch), from {m['provenance']['runs']} runs",
        f"{'bandwidth':>10} {'delay':>7} {'loss':>7}  best       priorities",
    ]
    for c in m["cells"]:
        bw, d, loss = c["env"]
        pr = " ".join(f"{v}:{p}" for v, p in sorted(c["priority"].items()))
        lines.append(
            f"{bw / 1e6:>8.3g}M {d * 1e3:>5.0f}ms {100 * loss:>6.3g}%  {c['best']:<10} {pr}"
        )
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        losses = sorted({c["env"][2] for c in m["cells"]})
        bws = sorted({c["env"][0] for c in m["cells"]})
        ds = sorted({c["env"][1] for c in m["cells"]})
        variants = m["variants"]
        ncol = min(4, len(losses))
        nrow = math.ceil(len(losses) / ncol)
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 2.8 * nrow), squeeze=False)
        cmap = plt.get_cmap("tab10")
        for ax, loss in zip(axes.flat, losses, strict=False):
            grid = [[math.nan] * len(bws) for _ in ds]
            for c in m["cells"]:
                if c["env"][2] == loss:
                    grid[ds.index(c["env"][1])][bws.index(c["env"][0])] = variants.index(c["best"])
            ax.imshow(grid, origin="lower", cmap=cmap, vmin=0, vmax=9, aspect="auto")
            ax.set_xticks(range(len(bws)), [f"{b / 1e6:g}" for b in bws], fontsize=6, rotation=90)
            ax.set_yticks(range(len(ds)), [f"{d * 1e3:g}" for d in ds], fontsize=6)
            ax.set_title(f"loss {100 * loss:g} %", fontsize=8)
        for ax in axes.flat[len(losses) :]:
            ax.axis("off")
        handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i)) for i in range(len(variants))]
        fig.supxlabel("bandwidth (Mbps)", fontsize=8)
        fig.supylabel("one-way delay (ms)", fontsize=8)
        # The legend above the panels: below them it covered the bandwidth axis's label.
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))
        fig.legend(
            handles,
            variants,
            loc="upper center",
            bbox_to_anchor=(0.5, 1.0),
            ncol=len(variants),
            fontsize=8,
        )
        fig.savefig(plot, dpi=120)
        plt.close(fig)
    return "\n".join(lines)

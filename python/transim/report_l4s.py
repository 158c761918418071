"""The report's section on L4S (scenarios/l4s-coexistence.toml): a scalable flow (DCTCP
sending ECT(1)) beside a Classic one (Reno or CUBIC) on a 100 Mbps / 40 ms path, through
DualPI2's coupled dual queue (RFC 9332), one step-marking queue (DCTCP's switch) and one PIE
queue with ECN."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Result, run  # noqa: E402
from .data import resource  # noqa: E402
from .format import fmt_rate, folder_name  # noqa: E402
from .plots import grouped_bars  # noqa: E402

#: The bottleneck's discipline in each run: a label and the overrides that set it.
DISCIPLINES: list[tuple[str, list[str]]] = [
    ("DualPI2", ["topology.bottleneck.qdisc=dualpi2"]),
    ("one queue, step at 20 packets", ["topology.bottleneck.qdisc=step"]),
    (
        "one queue, PIE with ECN",
        ["topology.bottleneck.qdisc=pie", "topology.bottleneck.aqm.ecn=true"],
    ),
]

#: The Classic flow's congestion control.
CLASSICS: list[tuple[str, str]] = [("Reno", "reno"), ("CUBIC", "cubic")]


def _delays_ms(bottleneck: dict[str, Any]) -> tuple[float, float]:
    """Mean queueing delay (ms) of the scalable flow's queue and of the Classic flow's: the
    two queues' mean sojourn times in DualPI2, the one queue's mean delay otherwise."""
    dual = bottleneck.get("dual_queue")
    if dual:
        return dual["l_mean_sojourn"] * 1e3, dual["c_mean_sojourn"] * 1e3
    shared = bottleneck["mean_queue_bytes"] * 8 / bottleneck["rate_bps"] * 1e3
    return shared, shared


#: Goodput is measured from this time on (s), after DCTCP's additive increase has reached
#: its share; the scenario runs 80 s.
SETTLED = 40.0


def late_goodput(r: Result, flow: int) -> float:
    """Flow ``flow``'s goodput (bit/s) from ``SETTLED`` to the end, from its traced
    cumulative ACK."""
    tr = r.flow_trace(flow)
    t, una = tr["t"], tr["snd_una"]
    late = t >= SETTLED
    return float((una[late][-1] - una[late][0]) * 8 / (t[late][-1] - t[late][0]))


#: Seeds per row at each report scale: the shares in DualPI2 vary with the Classic queue's
#: random drops (seeds 1 to 6: 32 % to 51 % beside Reno).
SEEDS = {"quick": 3, "full": 6}


def _one(path: Path, overrides: list[str], seed: int) -> tuple[Result, float, float]:
    """One run; its two flows' goodput over the settled part."""
    r = run(
        path, overrides=[*overrides, f"seed={seed}", "trace.flows=true", "trace.interval=100ms"]
    )
    return r, late_goodput(r, 0), late_goodput(r, 1)


def l4s_section(out: Path, scale: str) -> str:
    """Run each Classic flow beside the scalable one through each discipline, 80 s each, for
    seeds 1 to ``SEEDS[scale]`` (runs of about 0.2 s); a table of the seeds' mean goodput
    over the last 40 s, the scalable flow's share (mean and range), the link's use and both
    flows' queueing delays, and a figure. Seed 1's results are written out."""
    path = resource("scenarios") / "l4s-coexistence.toml"
    seeds = range(1, SEEDS.get(scale, SEEDS["full"]) + 1)
    lines = [
        f"Each row is the mean over seeds {seeds[0]} to {seeds[-1]}; the share's range is theirs.",
        "",
        "| bottleneck | Classic flow | scalable goodput | Classic goodput | scalable share "
        "| link used | scalable flow's queueing delay | Classic flow's queueing delay |",
        "|---|---|---|---|---|---|---|---|",
    ]
    shares: dict[str, list[float]] = {label: [] for label, _ in CLASSICS}
    delays: dict[str, list[float]] = {"scalable flow": [], "Classic flow (Reno)": []}
    for label, sets in DISCIPLINES:
        for classic, cc in CLASSICS:
            rows = []
            for seed in seeds:
                r, scalable, other = _one(path, [*sets, f"flows[1].tcp.cc={cc}"], seed)
                if seed == seeds[0]:
                    r.write(out / folder_name(f"{label} {classic}"))
                bottleneck = next(ln for ln in r.links if ln["name"] == "r1->r2")
                l_ms, c_ms = _delays_ms(bottleneck)
                share = scalable / (scalable + other)
                rows.append((scalable, other, share, bottleneck["utilisation"], l_ms, c_ms))
            scalable, other, share, used, l_ms, c_ms = (
                sum(col) / len(rows) for col in zip(*rows, strict=True)
            )
            low, high = min(x[2] for x in rows), max(x[2] for x in rows)
            shares[classic].append(share)
            if cc == "reno":
                delays["scalable flow"].append(l_ms)
                delays["Classic flow (Reno)"].append(c_ms)
            lines.append(
                f"| {label} | {classic} | {fmt_rate(scalable)} | {fmt_rate(other)} "
                f"| {share:.0%} ({low:.0%}–{high:.0%}) | {used:.0%} | {l_ms:.2f} ms "
                f"| {c_ms:.2f} ms |"
            )
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    grouped_bars(ax1, shares)
    ax1.axhline(0.5, color="black", lw=0.8, ls="--", label="equal shares")
    ax1.set_ylabel("scalable flow's share, 40–80 s (mean)")
    ax1.set_ylim(0, 1)
    ax1.legend(fontsize=7, loc="upper left", title="Classic flow", title_fontsize=7)
    grouped_bars(ax2, delays)
    ax2.set_ylabel("mean queueing delay (ms)")
    ax2.legend(fontsize=7, loc="upper left")
    for ax in (ax1, ax2):
        ax.set_xticks(range(len(DISCIPLINES)), ["DualPI2", "step", "PIE + ECN"])
        ax.set_xlabel("bottleneck queue")
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(out / "l4s.png", dpi=120)
    plt.close(fig)
    return "\n".join(lines) + "\n\n![the scalable flow's share, and queueing delays](l4s/l4s.png)"

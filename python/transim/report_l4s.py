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


def l4s_section(out: Path, scale: str) -> str:
    """Run each Classic flow beside the scalable one through each discipline, 80 s each at
    every scale (six runs of about 0.2 s); a table of goodput over the last 40 s, the
    scalable flow's share, the link's use and both flows' queueing delays, and a figure."""
    del scale  # every scale runs the scenario's own 80 s
    path = resource("scenarios") / "l4s-coexistence.toml"
    trace = ["trace.flows=true", "trace.interval=100ms"]
    lines = [
        "| bottleneck | Classic flow | scalable goodput | Classic goodput | scalable share "
        "| link used | scalable flow's queueing delay | Classic flow's queueing delay |",
        "|---|---|---|---|---|---|---|---|",
    ]
    shares: dict[str, list[float]] = {label: [] for label, _ in CLASSICS}
    delays: dict[str, list[float]] = {"scalable flow": [], "Classic flow (Reno)": []}
    for label, sets in DISCIPLINES:
        for classic, cc in CLASSICS:
            r = run(path, overrides=[*sets, f"flows[1].tcp.cc={cc}", *trace])
            r.write(out / folder_name(f"{label} {classic}"))
            scalable, other = late_goodput(r, 0), late_goodput(r, 1)
            bottleneck = next(ln for ln in r.links if ln["name"] == "r1->r2")
            l_ms, c_ms = _delays_ms(bottleneck)
            share = scalable / (scalable + other)
            shares[classic].append(share)
            if cc == "reno":
                delays["scalable flow"].append(l_ms)
                delays["Classic flow (Reno)"].append(c_ms)
            lines.append(
                f"| {label} | {classic} | {fmt_rate(scalable)} | {fmt_rate(other)} "
                f"| {share:.0%} | {bottleneck['utilisation']:.0%} | {l_ms:.2f} ms "
                f"| {c_ms:.2f} ms |"
            )
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    grouped_bars(ax1, shares)
    ax1.axhline(0.5, color="black", lw=0.8, ls="--", label="equal shares")
    ax1.set_ylabel("scalable flow's share, 40–80 s")
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

"""The report's section on packet spraying (scenarios/spraying.toml): four bulk flows from
one leaf to another over four spines, their equal-cost paths chosen per flow (ECMP: two
pairs collide on a spine) or per packet (spraying: the load is even, but packets overtake
one another), with RFC 6675's recovery and with RACK-TLP."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import run  # noqa: E402
from .data import resource  # noqa: E402
from .format import fmt_rate, folder_name  # noqa: E402
from .plots import grouped_bars  # noqa: E402

#: (label, overrides) of the section's runs.
VARIANTS: list[tuple[str, list[str]]] = [
    ("ECMP per flow, RFC 6675", []),
    ("Sprayed, RFC 6675", ["topology.ecmp=packet"]),
    ("Sprayed, RACK-TLP", ["topology.ecmp=packet", "tcp.recovery=rack-tlp"]),
]

#: Simulated time per run at each report scale (the scenario file's own is 1 s).
DURATION = {"quick": "0.25s", "full": "1s"}


def jain(xs: list[float]) -> float:
    """Jain's fairness index of the rates `xs`: 1 when all are equal, 1/n when one has all."""
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def spraying_section(out: Path, scale: str) -> str:
    """Run the three variants; a table of goodput and spurious retransmissions, and a figure
    of each flow's goodput."""
    path = resource("scenarios") / "spraying.toml"
    duration = DURATION.get(scale, DURATION["full"])
    lines = [
        "| run | total goodput | each flow | Jain's index | retransmissions "
        "| of them D-SACKed (spurious) | packets dropped |",
        "|---|---|---|---|---|---|---|",
    ]
    goodput: dict[str, list[float]] = {}
    for label, overrides in VARIANTS:
        r = run(path, overrides=[*overrides, f"duration={duration}"])
        r.write(out / folder_name(label))
        dropped = sum(sum(ln["drops"].values()) for ln in r.links)
        rates = [f["goodput_bps"] for f in r.flows]
        goodput[label] = [g / 1e9 for g in rates]
        rtx = sum(f["retransmissions"] for f in r.flows)
        dsacks = sum(f["dsacks_received"] or 0 for f in r.flows)
        each = ", ".join(fmt_rate(g) for g in rates)
        lines.append(
            f"| {label} | {fmt_rate(sum(rates))} | {each} | {jain(rates):.3f} | {rtx:,} "
            f"| {dsacks:,} | {dropped:,} |"
        )
    fig, ax = plt.subplots(figsize=(7, 3.6))
    grouped_bars(ax, goodput)
    ax.set_xticks(range(4), [f"h{i} → h{i + 4}" for i in range(4)])
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_ylim(0, 12.5)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7, loc="upper center", ncol=len(goodput))
    fig.tight_layout()
    fig.savefig(out / "goodput.png", dpi=120)
    plt.close(fig)
    return "\n".join(lines) + "\n\n![each flow's goodput](spraying/goodput.png)"

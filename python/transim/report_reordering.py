"""The report's section on packet reordering (scenarios/reordering.toml): the same two flows,
one recovering by RFC 6675 and one by RACK-TLP, with the forward link's jitter raised step by
step. Nothing is dropped, so every retransmission is spurious, and D-SACK reports each."""

from __future__ import annotations

import copy
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import run  # noqa: E402
from .data import resource  # noqa: E402
from .format import fmt_rate  # noqa: E402
from .scenario import load  # noqa: E402

#: The forward link's jitter in the section's runs (ms); 0 is the fixed delay.
JITTERS_MS = (0, 1, 2, 4, 8)


def _with_jitter(doc: dict, ms: int) -> dict:
    d = copy.deepcopy(doc)
    fwd = d["topology"]["links"][0].setdefault("forward", {})
    if ms:
        fwd.update(jitter=f"{ms}ms", reorder=True)
    else:
        fwd.pop("jitter", None)
        fwd.pop("reorder", None)
    return d


def reordering_section(out: Path, scale: str) -> str:
    """Run the scenario at each jitter; a table and a figure of goodput against jitter."""
    doc, _ = load(resource("scenarios") / "reordering.toml")
    lines = [
        "| jitter | flow | goodput | retransmissions (all spurious) | D-SACKs | fast recoveries |",
        "|---|---|---|---|---|---|",
    ]
    goodput: dict[str, list[float]] = {}
    for ms in JITTERS_MS:
        r = run(_with_jitter(doc, ms))
        r.write(out / f"jitter_{ms}ms")
        dropped = sum(sum(ln["drops"].values()) for ln in r.links)
        if dropped:
            raise RuntimeError(f"the reordering scenario dropped {dropped} packets")
        for f in r.flows:
            goodput.setdefault(f["name"], []).append(f["goodput_bps"] / 1e6)
            lines.append(
                f"| {ms} ms | {f['name']} | {fmt_rate(f['goodput_bps'])} | "
                f"{f['retransmissions']} | {f['dsacks_received']} | {f['fast_retransmits']} |"
            )
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, ys in goodput.items():
        ax.plot(JITTERS_MS, ys, marker="o", label=name)
    ax.set_xlabel("jitter on the forward link (ms), packets may overtake")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "goodput.png", dpi=120)
    plt.close(fig)
    return "\n".join(lines) + "\n\n![goodput against jitter](reordering/goodput.png)"

"""The report's section on BBR v1 and BBR v3 beside CUBIC (scenarios/bbr-coexistence.toml):
two bulk flows share a 100 Mbps / 40 ms bottleneck, flow 0 running BBR v1, BBR v3 or CUBIC
and flow 1 CUBIC, in a buffer of a tenth of the BDP, one BDP and four."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import run  # noqa: E402
from .data import resource  # noqa: E402
from .format import fmt_rate, folder_name  # noqa: E402
from .plots import grouped_bars  # noqa: E402

#: Flow 0's congestion control in each run (flow 1 is CUBIC throughout).
CCS: list[tuple[str, str]] = [("BBR v1", "bbr"), ("BBR v3", "bbr3"), ("CUBIC", "cubic")]

#: Bottleneck buffers (packets), as a share of the path's BDP of about 333 packets.
BUFFERS: list[tuple[str, int]] = [("0.1 BDP", 33), ("1 BDP", 333), ("4 BDP", 1333)]

#: Simulated time per run at each report scale (the scenario file's own is 30 s).
DURATION = {"quick": "10s", "full": "30s"}


def bbr_section(out: Path, scale: str) -> str:
    """Run every congestion control for flow 0 in every buffer; a table of the two flows'
    goodput, flow 0's share and the drops, and a figure of the shares and loss rates."""
    path = resource("scenarios") / "bbr-coexistence.toml"
    duration = DURATION.get(scale, DURATION["full"])
    lines = [
        "| buffer | flow 0 | its goodput | CUBIC's goodput | flow 0's share "
        "| packets dropped | loss rate | mean queueing delay |",
        "|---|---|---|---|---|---|---|---|",
    ]
    shares: dict[str, list[float]] = {label: [] for label, _ in CCS}
    losses: dict[str, list[float]] = {label: [] for label, _ in CCS}
    for buffer, queue in BUFFERS:
        for label, cc in CCS:
            r = run(
                path,
                overrides=[
                    f"tcp.cc={cc}",
                    f"topology.bottleneck.queue={queue}",
                    f"duration={duration}",
                ],
            )
            r.write(out / folder_name(f"{label} {buffer}"))
            mine, cubic = (f["goodput_bps"] for f in r.flows)
            sent = sum(f["data_segments_sent"] for f in r.flows)
            dropped = sum(sum(ln["drops"].values()) for ln in r.links)
            bottleneck = next(ln for ln in r.links if ln["name"] == "r1->r2")
            delay_ms = bottleneck["mean_queue_bytes"] * 8 / bottleneck["rate_bps"] * 1e3
            share = mine / (mine + cubic)
            shares[label].append(share)
            losses[label].append(100 * dropped / sent)
            lines.append(
                f"| {buffer} | {label} | {fmt_rate(mine)} | {fmt_rate(cubic)} | {share:.0%} "
                f"| {dropped:,} | {100 * dropped / sent:.2f} % | {delay_ms:.1f} ms |"
            )
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    grouped_bars(ax1, shares)
    ax1.axhline(0.5, color="black", lw=0.8, ls="--", label="fair share")
    ax1.set_ylabel("flow 0's share of the goodput")
    ax1.set_ylim(0, 1)
    grouped_bars(ax2, losses)
    ax2.set_ylabel("packets dropped (% of data sent)")
    for ax in (ax1, ax2):
        ax.set_xticks(range(len(BUFFERS)), [b for b, _ in BUFFERS])
        ax.set_xlabel("bottleneck buffer")
        ax.grid(alpha=0.3, axis="y")
    ax1.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(out / "shares.png", dpi=120)
    plt.close(fig)
    return "\n".join(lines) + "\n\n![flow 0's share, and the loss rate](bbr/shares.png)"

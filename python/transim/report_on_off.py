"""The report's section on applications that pause (scenarios/on-off.toml): a player fetches
a 1 MB segment every 4 s over 20 Mb/s / 40 ms, and what the sender's window does during the
pauses decides how long each segment takes. Run five ways: TCP restarting from the initial
window after an idle RTO (Linux's default) or keeping its window, and SCTP halving an idle
destination's cwnd per RTO (RFC 9260 §7.2.1) or keeping it, or with Max.Burst's clamp kept
for good (RFC 4960's text read literally)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from . import run  # noqa: E402
from .data import resource  # noqa: E402
from .format import fmt_time, folder_name  # noqa: E402
from .plots import grouped_bars  # noqa: E402

#: The scenario's writes: a 1 MB (10^6-byte) segment at each of these times (s).
SEGMENT = 1_000_000
AT = [0.0, 4.0, 8.0, 12.0, 16.0]

#: (label, overrides) of the five runs.
VARIANTS: list[tuple[str, list[str]]] = [
    ("TCP, restart after idle", []),
    ("TCP, window kept", ["tcp.slow_start_after_idle=false"]),
    ("SCTP, halved per idle RTO", ["flows.0.protocol=sctp"]),
    ("SCTP, cwnd kept", ["flows.0.protocol=sctp", "sctp.cwnd_after_idle=off"]),
    (
        "SCTP, Max.Burst clamp kept",
        ["flows.0.protocol=sctp", "sctp.cwnd_after_idle=off", "sctp.max_burst_cwnd=lower"],
    ),
]


def segment_times(
    flow: dict[str, Any], trace: dict[str, Any], sizes: list[int], at: list[float]
) -> list[float]:
    """How long each write took, from its time to the moment the sender saw all of it
    acknowledged (TCP: snd_una past its last byte; SCTP: the cumulative TSN past its last
    chunk, one write being one message of ceil(size / fragmentation point) chunks)."""
    ends = np.cumsum(sizes)
    t = np.asarray(trace["t"])
    if flow["protocol"] == "sctp":
        frag = flow["frag_point"]
        last_tsn = np.cumsum([-(-s // frag) for s in sizes])
        sack = (np.asarray(trace["event"]) == 1) & (np.asarray(trace["kind"]) == 3)
        times, acked = t[sack], np.asarray(trace["tsn"])[sack]
        marks = zip(last_tsn, at, strict=True)
    else:
        times, acked = t, np.asarray(trace["snd_una"]) - 1
        marks = zip(ends, at, strict=True)
    out = []
    for need, start in marks:
        done = np.flatnonzero(acked >= need)
        out.append(float(times[done[0]]) - start if done.size else float("nan"))
    return out


def on_off_section(out: Path, scale: str) -> str:
    """Run the five variants; a table of the segments' fetch times and a figure of them.
    (`scale` does not change it: the runs take a fraction of a second.)"""
    path = resource("scenarios") / "on-off.toml"
    lines = [
        "| run | first segment (with the handshake) | later segments, mean | slowest later | "
        "retransmissions | cwnd halvings while idle |",
        "|---|---|---|---|---|---|",
    ]
    fetch: dict[str, list[float]] = {}
    for label, overrides in VARIANTS:
        r = run(path, overrides=overrides, trace_flows=True)
        r.write(out / folder_name(label))
        f = r.flows[0]
        if f["bytes_delivered"] != SEGMENT * len(AT):
            raise RuntimeError(f"on-off.toml no longer writes {len(AT)} segments of {SEGMENT} B")
        times = segment_times(f, r.flow_trace(0), [SEGMENT] * len(AT), AT)
        fetch[label] = times
        paths = f.get("paths")
        halvings = sum(p["idle_decays"] for p in paths) if paths else "-"
        later = times[1:]
        lines.append(
            f"| {label} | {fmt_time(times[0])} | {fmt_time(sum(later) / len(later))} | "
            f"{fmt_time(max(later))} | {f['retransmissions']} | {halvings} |"
        )
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    grouped_bars(ax, fetch)
    alone = 8e6 / 20e6
    ax.axhline(alone, color="black", ls=":", lw=1.0, label="1 MB at 20 Mb/s")
    ax.set_xticks(range(len(AT)), [f"segment {i + 1}" for i in range(len(AT))])
    ax.set_ylabel("fetch time (s)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "fetch.png", dpi=120)
    plt.close(fig)
    return "\n".join(lines) + "\n\n![each segment's fetch time](on-off/fetch.png)"

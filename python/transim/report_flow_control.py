"""The report's section on flow control (scenarios/slow-reader.toml): receiving applications
that read slower than the path, as TCP connections and again as SCTP associations. A slow
reader's window is what its unread bytes leave of the buffer, so its sender runs at the
reader's rate whichever transport carries it, and the bulk flow takes the rest."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import run  # noqa: E402
from .data import resource  # noqa: E402
from .format import fmt_bytes, fmt_rate  # noqa: E402
from .scenario import load  # noqa: E402

#: The scenario's slow readers as SCTP associations: the same read rates and buffers as
#: their TCP tables (the linux-2.6 profile's 87,380-byte buffer for the player).
SCTP_READERS: dict[str, dict[str, Any]] = {
    "player": {"read_rate": "4Mbps", "rcv_buf": 87_380},
    "trickle": {"read_rate": "64kbps", "rcv_buf": "8KB"},
}


def as_sctp(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with its slow readers carried by SCTP (the bulk flow stays TCP)."""
    d = copy.deepcopy(doc)
    for f in d["flows"]:
        table = SCTP_READERS.get(f.get("name", ""))
        if table is not None:
            f.pop("tcp", None)
            f["protocol"] = "sctp"
            f["sctp"] = dict(table)
    return d


def _row(transport: str, f: dict[str, Any]) -> str:
    r = f.get("reader")
    if r is None:
        rate = fmt_rate(f["goodput_bps"])
        return f"| {f['name']} | {transport} | at once | {rate} | - | - | - | - |"
    zero = r.get("zero_window_acks", r.get("zero_window_sacks", 0))
    return (
        f"| {f['name']} | {transport} | {fmt_rate(r['read_rate_bps'])} | "
        f"{fmt_rate(f['goodput_bps'])} | {fmt_bytes(r['bytes_read'])} | "
        f"{fmt_bytes(r['unread_at_end'])} | {zero} | {r['window_updates']} |"
    )


def flow_control_section(out: Path, scale: str) -> str:
    """Run the scenario with TCP readers and with SCTP readers; a table and a figure of each
    flow's goodput beside its reader's rate."""
    doc, _ = load(resource("scenarios") / "slow-reader.toml")
    lines = [
        "| flow | transport | reads at | goodput | read by the end | unread at the end | "
        "zero windows advertised | window updates |",
        "|---|---|---|---|---|---|---|---|",
    ]
    goodput: dict[str, dict[str, float]] = {}
    rates: dict[str, float] = {}
    for label, scenario in (("TCP", doc), ("SCTP", as_sctp(doc))):
        r = run(scenario)
        r.write(out / label.lower())
        for f in r.flows:
            transport = label if f["name"] in SCTP_READERS else "TCP"
            lines.append(_row(transport, f))
            goodput.setdefault(label, {})[f["name"]] = f["goodput_bps"]
            if f.get("reader"):
                rates[f["name"]] = f["reader"]["read_rate_bps"]
    names = list(goodput["TCP"])
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    width = 0.38
    for k, label in enumerate(("TCP", "SCTP")):
        xs = [i + (k - 0.5) * width for i in range(len(names))]
        ys = [goodput[label][n] / 1e6 for n in names]
        ax.bar(xs, ys, width, label=f"slow readers over {label}")
    for i, n in enumerate(names):
        if n in rates:
            y = rates[n] / 1e6
            ax.hlines(y, i - width, i + width, colors="black", lw=1.5)
    ax.plot([], [], color="black", lw=1.5, label="the reader's rate")
    ax.set_xticks(range(len(names)), names)
    ax.set_yscale("log")
    ax.set_ylabel("goodput (Mb/s, log scale)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "goodput.png", dpi=120)
    plt.close(fig)
    return "\n".join(lines) + "\n\n![goodput against the read rate](flow-control/goodput.png)"

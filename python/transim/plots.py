"""Figures: congestion window vs time and sequence number vs time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .result import Result  # noqa: E402

# What the plots read of each flow's summary.
_FLOW_FIELDS = ("name", "protocol", "mss", "frag_point")


def _heads(result: Result) -> dict[str, Any]:
    """The run's summary with each flow cut down to what the plots read."""
    return result._cut(_FLOW_FIELDS)


def flow_count(result: Result) -> int:
    """How many flows the run had (read with what the plots read, not the whole summary)."""
    return len(_heads(result)["flows"])


def _sctp(flow: dict[str, Any]) -> bool:
    return flow.get("protocol") == "sctp"


def plot_cwnd(
    result: Result, path: Path, title: str | None = None, flows: list[int] | None = None
) -> Path:
    """cwnd and ssthresh (in segments) vs time for every traced flow, or those of ``flows``
    that are traced (SCTP: the primary destination's cwnd at each DATA chunk sent, in full
    chunks)."""
    fig, ax = plt.subplots(figsize=(8, 4.2))
    heads = _heads(result)
    chosen = None if flows is None else set(flows)
    for i, tr in enumerate(result.flow_traces):
        if tr is None or len(tr["t"]) == 0 or (chosen is not None and i not in chosen):
            continue
        f = heads["flows"][i]
        if _sctp(f):
            sel = (tr["kind"] == 0) & (tr["event"] == 0) & (tr["path"] == 0)
            ax.step(
                tr["t"][sel],
                tr["cwnd"][sel] / f["frag_point"],
                where="post",
                lw=1.1,
                label=f"{f['name']} cwnd (SCTP, primary path)",
            )
            continue
        mss = f["mss"]
        label = f"{f['name']} cwnd"
        (line,) = ax.step(tr["t"], tr["cwnd"] / mss, where="post", lw=1.1, label=label)
        ss = np.where(tr["ssthresh"] >= 2**40, np.nan, tr["ssthresh"] / mss)
        ax.step(
            tr["t"],
            ss,
            where="post",
            lw=0.8,
            ls="--",
            color=line.get_color(),
            label=f"{f['name']} ssthresh",
        )
    title = title or f"{heads['name']}: congestion window"
    return finish_time_plot(fig, ax, path, "segments", title)


def grouped_bars(ax: plt.Axes, series: dict[str, list[float]]) -> None:
    """One bar per value of each series (a legend label each), side by side at the x
    positions 0, 1, … of the values."""
    width = 0.8 / len(series)
    for k, (label, ys) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(ys))]
        ax.bar(xs, ys, width, label=label)


def finish_time_plot(fig: plt.Figure, ax: plt.Axes, path: Path, ylabel: str, title: str) -> Path:
    """Label a plot against time, add its legend, save it and close it."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def plot_sequence(result: Result, path: Path, flow: int = 0, title: str | None = None) -> Path:
    """Sequence number vs time for one flow: segments sent (retransmissions highlighted),
    drops, and the cumulative ACK as it reaches the sender."""
    pt = result.packet_trace
    if pt is None:
        raise ValueError("sequence plots need the packet trace (run with trace_packets=True)")
    # TCP numbers bytes (shown in segments); SCTP numbers chunks (TSNs) already.
    heads = _heads(result)
    f = heads["flows"][flow]
    mss = 1 if _sctp(f) else f["mss"]
    sel = pt["flow"] == flow
    data = sel & (pt["from_sender"] == 1) & (pt["len"] > 0)
    send = data & (pt["kind"] == 0)
    drop = data & (pt["kind"] == 2)
    acks = sel & (pt["from_sender"] == 0) & (pt["kind"] == 1)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    orig = send & (pt["tx"] <= 1)
    rtx = send & (pt["tx"] > 1)
    ax.plot(pt["t"][orig], pt["seq"][orig] / mss, ".", ms=2.5, label="sent")
    ax.plot(
        pt["t"][rtx],
        pt["seq"][rtx] / mss,
        "o",
        ms=4,
        mfc="none",
        color="tab:red",
        label="retransmitted",
    )
    ax.plot(pt["t"][drop], pt["seq"][drop] / mss, "x", ms=5, color="black", label="dropped")
    ax.step(
        pt["t"][acks],
        pt["ack"][acks] / mss,
        where="post",
        lw=0.8,
        color="tab:green",
        label="cumulative ACK at sender",
    )
    ax.set_xlabel("time (s)")
    ax.set_ylabel("TSN" if _sctp(f) else "sequence number (segments)")
    ax.set_title(title or f"{heads['name']}: {f['name']} sequence")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path

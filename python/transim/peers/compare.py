"""Run one scenario in transim and in ns-3 and put the measurements side by side."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import run
from ..result import Result
from ..scenario import ScenarioLike, prepare
from .conventions import SUMMARY, with_ns3_conventions
from .ns3 import Ns3Install, find_ns3, run_ns3
from .ns3_translate import translate
from .send_order import SendOrder

#: The metrics compared, in table order: (key, label, unit scale).
METRICS = (
    ("goodput_mbps", "goodput (Mb/s)"),
    ("retransmissions", "retransmissions"),
    ("timeouts", "timeouts"),
    ("fast_recoveries", "fast recoveries"),
    ("queue_drops", "queue drops"),
    ("loss_drops", "loss-model drops"),
    ("mean_queue", "mean queue (pkts)"),
)


@dataclass
class Side:
    """One simulator's measurements: totals and per-flow goodput."""

    totals: dict[str, float]
    flow_goodput: list[float]
    cwnd: dict[int, tuple[list[float], list[float]]] = field(default_factory=dict)


@dataclass
class Comparison:
    """Both simulators on one scenario."""

    name: str
    transim: Side
    ns3: Side
    queue_link: str
    notes: list[str]
    ns3_version: str
    ns3_wall: float
    ns3_events: int
    send_orders: list[SendOrder] = field(default_factory=list)

    def diff(self, key: str) -> float | None:
        """ns-3 relative to transim: (transim - ns3) / ns3, or None when ns-3's is 0."""
        a, b = self.transim.totals[key], self.ns3.totals[key]
        return (a - b) / b if b else None

    def table(self) -> str:
        rows = [f"{'metric':<22}{'transim':>12}{'ns-3':>12}{'difference':>12}"]
        for key, label in METRICS:
            a, b = self.transim.totals[key], self.ns3.totals[key]
            d = self.diff(key)
            diff = f"{d:+.1%}" if d is not None else ("same" if a == b else "n/a")
            fmt = "{:>12.3f}" if isinstance(a, float) or isinstance(b, float) else "{:>12}"
            label = label if key != "mean_queue" else f"mean queue {self.queue_link}"
            rows.append(f"{label:<22}" + fmt.format(a) + fmt.format(b) + f"{diff:>12}")
        if len(self.transim.flow_goodput) > 1:
            rows.append("per-flow goodput (Mb/s):")
            pairs = zip(self.transim.flow_goodput, self.ns3.flow_goodput, strict=True)
            for i, (a, b) in enumerate(pairs):
                rel = f"{(a - b) / b:+.1%}" if b else "n/a"
                rows.append(f"  flow {i:<15}{a:>12.3f}{b:>12.3f}{rel:>12}")
        rows.append(
            f"ns-3: {self.ns3_version}; {self.ns3_events:,} events in {self.ns3_wall:.2f} s"
        )
        rows += [o.describe() for o in self.send_orders]
        rows += [f"note: {n}" for n in self.notes]
        return "\n".join(rows)


def _goodput(bytes_: float, start: float, end: float) -> float:
    return bytes_ * 8 / max(end - start, 1e-12) / 1e6


def _side(
    goodputs: list[float], flows: list[dict[str, Any]], recoveries: str, **links: float
) -> Side:
    """One simulator's totals from its per-flow records and its link totals."""
    totals: dict[str, float] = {
        "goodput_mbps": sum(goodputs),
        "retransmissions": sum(f["retransmissions"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "fast_recoveries": sum(f[recoveries] for f in flows),
        **links,
    }
    return Side(totals, goodputs)


def _queue_link(described: dict[str, Any], res: Result) -> str:
    """The link direction whose queue is compared: the dumbbell's bottleneck, else the one
    with the longest mean queue in transim."""
    names = [ln["name"] for ln in described["links"]]
    if "r1->r2" in names:
        return "r1->r2"
    return max(res.links, key=lambda ln: ln["mean_queue_packets"])["name"]


def compare_ns3(
    scenario: ScenarioLike,
    overrides: list[str] | None = None,
    trace_flows: list[int] | None = None,
    ns3: Ns3Install | None = None,
    ns3_recovery: str | None = None,
    send_order: bool = False,
    as_ns3: bool = False,
) -> Comparison:
    """Run ``scenario`` in both simulators; ``trace_flows`` get their cwnd recorded, and
    with ``send_order`` their data transmissions too (:class:`SendOrder`, from transim's
    packet trace of those flows only). With ``as_ns3`` transim takes ns-3's conventions
    (:func:`with_ns3_conventions`) before both run."""
    doc, _ = prepare(scenario, overrides)
    if as_ns3:
        doc = with_ns3_conventions(doc)
    tr = translate(doc, trace_flows, ns3_recovery)
    ns3 = ns3 or find_ns3()
    theirs = run_ns3(tr.spec, ns3)
    packets = bool(send_order and trace_flows)
    if packets:
        doc.setdefault("trace", {})["only_flows"] = sorted(set(trace_flows or []))
    ours = run(doc, trace_flows=bool(trace_flows), trace_packets=packets or None)
    if trace_flows:
        only = set(trace_flows)
        ours.flow_traces = [t if i in only else None for i, t in enumerate(ours.flow_traces)]
    end = tr.described["duration"]
    starts = [f["start"] for f in tr.described["flows"]]
    qlink = _queue_link(tr.described, ours)

    ours_links = {ln["name"]: ln for ln in ours.links}
    t_side = _side(
        [_goodput(f["bytes_delivered"], s, end) for f, s in zip(ours.flows, starts, strict=True)],
        ours.flows,
        "fast_retransmits",
        queue_drops=sum(ln["drops"]["queue"] for ln in ours.links),
        loss_drops=sum(ln["drops"]["loss_model"] + ln["drops"]["script"] for ln in ours.links),
        mean_queue=ours_links[qlink]["mean_queue_packets"],
    )
    n_links = {ln["name"]: ln for ln in theirs["links"]}
    n_side = _side(
        [
            _goodput(f["bytes_delivered"], s, end)
            for f, s in zip(theirs["flows"], starts, strict=True)
        ],
        theirs["flows"],
        "fast_recoveries",
        queue_drops=sum(ln["queue_drops"] for ln in theirs["links"]),
        loss_drops=sum(ln["loss_drops"] + ln["script_drops"] for ln in theirs["links"]),
        mean_queue=n_links[qlink]["mean_queue_packets"],
    )
    for i in trace_flows or []:
        mss = ours.flows[i]["mss"]
        t = ours.flow_traces[i]
        if t is not None:
            t_side.cwnd[i] = (list(map(float, t["t"])), list(map(float, t["cwnd"] / mss)))
        pts = theirs["flows"][i]["cwnd"]
        n_side.cwnd[i] = ([p[0] for p in pts], [p[1] / mss for p in pts])
    orders = [_send_order(i, ours, theirs) for i in trace_flows or []] if packets else []
    return Comparison(
        name=ours.summary["name"],
        transim=t_side,
        ns3=n_side,
        queue_link=qlink,
        notes=([SUMMARY] if as_ns3 else []) + tr.notes,
        ns3_version=theirs["ns3"],
        ns3_wall=theirs["wall"],
        ns3_events=theirs["events"],
        send_orders=orders,
    )


def _send_order(i: int, ours: Result, theirs: dict[str, Any]) -> SendOrder:
    """Flow ``i``'s data transmissions on both sides: transim's are its sender's send
    events (kind 0) that carry data."""
    pt = ours.packet_trace
    assert pt is not None
    mine = (pt["kind"] == 0) & (pt["flow"] == i) & (pt["from_sender"] == 1) & (pt["len"] > 0)
    sent = list(zip(pt["t"][mine].tolist(), pt["seq"][mine].tolist(), strict=True))
    other = [(float(t), int(q)) for t, q in theirs["flows"][i]["sent"]]
    return SendOrder(i, int(ours.flows[i]["mss"]), sent, other)


def plot_cwnd_pair(c: Comparison, path: Path) -> Path:
    """Both simulators' cwnd traces (segments) on one figure."""
    from ..plots import finish_time_plot, plt  # plots selects the Agg backend first

    fig, ax = plt.subplots(figsize=(8, 4.2))
    for i in sorted(c.transim.cwnd.keys() | c.ns3.cwnd.keys()):
        if i in c.transim.cwnd:
            t, w = c.transim.cwnd[i]
            (line,) = ax.step(t, w, where="post", lw=1.1, label=f"flow {i} transim")
        else:
            line = None
        if i in c.ns3.cwnd:
            t, w = c.ns3.cwnd[i]
            ax.step(
                t,
                w,
                where="post",
                lw=1.0,
                ls="--",
                color=line.get_color() if line else None,
                label=f"flow {i} ns-3",
            )
    title = f"{c.name}: transim vs {c.ns3_version.split(' (')[0]}"
    return finish_time_plot(fig, ax, path, "cwnd (segments)", title)

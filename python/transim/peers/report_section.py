"""The report's cross-validation section: transim and ns-3 on the same scenarios."""

from __future__ import annotations

from pathlib import Path

from .compare import Comparison, compare_ns3, plot_cwnd_pair
from .grid import CCS, PATHS, base, sets
from .ns3 import Ns3Unavailable, driver, find_ns3

#: The bottleneck of the single-loss case: 10 Mb/s, 20 ms, a queue that never fills, and the
#: first transmission of segment 30 dropped (NewReno without SACK, Limited Transmit on).
SINGLE_LOSS = {
    "rate": "10Mbps",
    "delay": "20ms",
    "queue": 1000,
    "forward": {"drops": {"segments": [{"segment": 30}]}},
}

#: ns-3's conventions in transim besides the grid's: its 2-byte PPP header on every link, the
#: first data segment acknowledged at once, and cwnd grown on the ACK that ends fast recovery.
AS_NS3 = [
    "topology.access.overhead=2",
    "topology.bottleneck.overhead=2",
    "tcp.quickacks=1",
    "tcp.grow_on_exit=true",
]


#: Why the two differ, where goodput is more than a couple of percent apart or the
#: retransmissions are far apart, and the cause was found, in short (the README's
#: "Cross-validation against ns-3" has the whole account of each).
WHY = {
    ("lossy", "reno"): "each simulator draws its own random losses: one run apart by chance "
    "(within 4 % over five seeds)",
    ("clean", "vegas"): "ns-3's Vegas takes its base RTT from the handshake (40 ms; every data "
    "RTT is 42–43 ms), reads 2 segments queued and holds at 20 on a 35-segment path",
    ("clean", "scalable"): "ns-3's Scalable adds a segment per 50 acknowledged (Linux's per "
    "100) and counts the recovered window on leaving recovery",
    ("clean", "htcp"): "ns-3's H-TCP adds α bytes per ACK to Reno's increase (Linux: α "
    "segments per RTT), so its window never speeds up after a loss and fills the queue less "
    "often",
    ("clean", "bic"): "ns-3's BIC grows four times faster near its last maximum (SmoothPart 5, "
    "Linux's 20) and takes β·cwnd as that maximum: it overshoots more often",
    ("clean", "cubic"): "all in the first slow start: ns-3's CUBIC counts bytes there, so its "
    "window doubles each round and is at 166 segments when HyStart fires, past the 134 the "
    "path holds (38 retransmitted); transim's, one MSS per ACK, is at 118 (none). After it: "
    "22 and 20",
    ("clean", "hybla"): "ns-3's Hybla recomputes ρ only when the smoothed RTT equals the "
    "minimum exactly, so it mostly grows as NewReno: fewer overshoots",
}


def _far(a: float, b: float) -> bool:
    """Counts (retransmissions) more than 1.5 times apart, beyond a handful."""
    return max(a, b) > 10 and max(a, b) > 1.5 * max(min(a, b), 1)


def _row(path: str, cc: str, c: Comparison) -> str:
    a, b = c.transim.totals, c.ns3.totals
    d = c.diff("goodput_mbps")
    diff = f"{d:+.1%}" if d is not None else "n/a"
    # Goodput 2 % apart (Comparison.diff is None where ns-3's is 0), or retransmissions far.
    shown = d is None or abs(d) >= 0.02 or _far(a["retransmissions"], b["retransmissions"])
    why = WHY.get((path, cc), "") if shown else ""
    return (
        f"| {path} | {cc} | {a['goodput_mbps']:.3f} | {b['goodput_mbps']:.3f} | "
        f"{diff} | {a['retransmissions']} / {b['retransmissions']} | "
        f"{a['queue_drops'] + a['loss_drops']} / {b['queue_drops'] + b['loss_drops']} | {why} |"
    )


def cross_validation(out: Path, scale: str) -> str:
    """NewReno on four paths and every variant on the clean one, plus the single-loss cwnd."""
    try:
        ns3 = find_ns3()
        driver(ns3)
    except Ns3Unavailable as e:
        return f"*Not run here: {e}.*"
    out.mkdir(parents=True, exist_ok=True)
    lines = [
        "| path | variant | goodput transim (Mb/s) | ns-3 | difference | retransmissions "
        "transim / ns-3 | drops transim / ns-3 | why they differ |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for path in ("clean", "shallow", "long-rtt", "lossy"):
        lines.append(_row(path, "reno", compare_ns3(base(), PATHS[path], ns3=ns3)))
    for cc in CCS[1:]:
        lines.append(_row("clean", cc, compare_ns3(base(), sets("clean", cc), ns3=ns3)))
    orders = [
        f"- {path}: "
        + compare_ns3(base(), PATHS[path] + AS_NS3, trace_flows=[0], ns3=ns3, send_order=True)
        .send_orders[0]
        .describe()
        for path in ("clean", "shallow", "long-rtt")
    ]
    doc = base()
    doc["duration"] = "3s"
    doc["tcp"].update(recovery="newreno", sack=False)
    doc["topology"]["bottleneck"] = SINGLE_LOSS
    single = compare_ns3(doc, [], trace_flows=[0], ns3=ns3)
    plot_cwnd_pair(single, out / "single_loss_cwnd.png")
    alike = compare_ns3(doc, [], trace_flows=[0], ns3=ns3, send_order=True, as_ns3=True)
    return "\n\n".join(
        [
            f"{ns3.describe()}; each run 60 s, SACK on in both, transim halving ns-3's way "
            '(`halving_base = "pipe"`; `"window"`, cwnd in whole segments, for CUBIC and '
            "Linux Reno, whose ns-3 classes cut from cwnd) and restarting the retransmission "
            "timer on the first partial ACK only, as ns-3 does (`partial_ack_timer = "
            '"impatient"`); CUBIC leaves slow start by HyStart with ns-3\'s constants in both '
            '(`hystart = "ns3"`; ns-3\'s TcpCubic has it on by default).',
            "\n".join(lines),
            "Segment by segment (reno with RFC 6675 recovery), every data segment each sender "
            "put on the wire, in order, with three more of ns-3's conventions set in transim: "
            "its 2-byte PPP header (`overhead = 2`), its immediate ACK of the first data "
            "segment (`quickacks = 1`) and its growth of cwnd on the ACK that ends fast "
            "recovery (`grow_on_exit = true`; RFC 6675 does not grow there):",
            "\n".join(orders),
            "One drop of segment 30 (NewReno, no SACK): both simulators' cwnd. Up to the loss "
            "the steps are the same; ns-3 then halves the pipe (12 segments) where transim "
            "halves FlightSize per RFC 5681 (13.5), and ns-3's trace hides the inflated window "
            "of fast recovery.",
            "![single loss](cross-validation/single_loss_cwnd.png)",
            "The same case with ns-3's conventions set in transim (`--as-ns3`: also "
            "`grow_on_exit`, which for NewReno takes ns-3's exit, cwnd = ssthresh and growth "
            f"on the same ACK): {alike.send_orders[0].describe()}.",
            "The causes of the differences, in full (ns-3's smoothed RTT handed to congestion "
            "control, its halving of the pipe, Hybla's and Veno's counters), are in the "
            'README\'s "Cross-validation against ns-3" and tests/peer/cases.py.',
        ]
    )

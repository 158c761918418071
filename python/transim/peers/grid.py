"""The cross-validation grid shared by the peer tests and the report: one base scenario
(10 Mb/s, 20 ms each way, 100-packet queue, one bulk flow for 60 s, SACK with RFC 6675
recovery halving ns-3's way and restarting the retransmission timer on the first partial ACK
only, as ns-3 does) and the paths and variants run on it (CUBIC with ns-3's HyStart, on in ns-3
by default; CUBIC and Linux Reno cutting from cwnd, as their ns-3 classes do)."""

from __future__ import annotations

import tomllib
from typing import Any

from .ns3_translate import CC

BASE = """
name = "xval"
duration = "60s"
seed = 1
[tcp]
profile = "rfc"
cc = "reno"
recovery = "rfc6675"
sack = true
halving_base = "pipe"
partial_ack_timer = "impatient"
timestamps = true
initial_window = 10
nagle = "off"
delayed_ack = "on"
rto_min = "1s"
rcv_buf = "16MiB"
[topology]
kind = "dumbbell"
access = { rate = "1Gbps", delay = "0ms", queue = 1000 }
bottleneck = { rate = "10Mbps", delay = "20ms", queue = 100 }
[[flows]]
app = { kind = "bulk" }
"""

#: Overrides per path: 10 Mb/s, 20 ms each way, 100-packet queue unless changed.
PATHS = {
    "clean": [],
    "lossy": [
        "topology.bottleneck.forward.loss.model=bernoulli",
        "topology.bottleneck.forward.loss.p=0.01",
    ],
    "shallow": ["topology.bottleneck.queue=10"],
    "long-rtt": ["topology.bottleneck.delay=150ms", "topology.bottleneck.queue=300"],
    "4-flows": ["flows=[{}, {}, {}, {}]"],
}

#: Settings a variant's rows add: CUBIC leaves slow start by HyStart, with ns-3's constants,
#: as ns-3's TcpCubic does by default; CUBIC and Linux Reno cut ssthresh from cwnd in whole
#: segments, as ``TcpCubic::GetSsThresh`` and ``TcpLinuxReno::GetSsThresh`` do (the others
#: cut the pipe their socket passes, the base's ``halving_base = "pipe"``).
CC_SETS: dict[str, list[str]] = {
    "cubic": ["tcp.hystart=ns3", "tcp.halving_base=window"],
    "linux-reno": ["tcp.halving_base=window"],
}


def sets(path: str, cc: str) -> list[str]:
    """The overrides of one row of the grid: the path's, the variant, and its own settings."""
    return PATHS[path] + [f"tcp.cc={cc}"] + CC_SETS.get(cc, [])


#: The congestion controls the cross-validation grid runs (the translator also carries
#: yeah, ledbat and lp for ``transim compare ns3``; their comparisons are not in the grid
#: yet: see the README's cross-validation notes).
CCS = tuple(c for c in CC if c not in ("yeah", "ledbat", "lp"))


def base() -> dict[str, Any]:
    """The base scenario as a dict (``compare_ns3`` takes it with ``--set``-style overrides)."""
    return tomllib.loads(BASE)

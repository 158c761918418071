"""ns-3's conventions set in transim (``transim compare ns3 --as-ns3``).

Where ns-3 departs from the RFCs, or from transim's defaults, in ways a scenario can state,
this sets transim the same way, so that what is left between the two simulators is their
models: ns-3 halves the pipe rather than FlightSize (its CUBIC and Linux Reno cut from cwnd
instead), restarts the retransmission timer on the first partial ACK only, acknowledges the
first data segment at once, grows cwnd on the ACK that ends fast recovery (and its CUBIC only
while cwnd limits the sender), and frames every packet with a 2-byte PPP header. On the
cross-validation grid's deterministic paths, with all five, the two send the same segments at
the same times (README, "Cross-validation against ns-3").
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from .. import _core
from ..scenario import ScenarioError, to_json
from .ns3_translate import CUT_FROM_CWND, GROW_WHEN_CWND_LIMITED, PPP_BYTES, flow_entries

#: The TCP settings every flow takes (``grow_on_exit`` follows, where SACK recovery runs).
NS3_TCP: dict[str, Any] = {
    "halving_base": "pipe",
    "partial_ack_timer": "impatient",
    "quickacks": 1,
}

#: What ``with_ns3_conventions`` sets, for the comparison's notes.
SUMMARY = (
    'transim set to ns-3\'s conventions: halving_base = "pipe" ("window" for CUBIC and Linux '
    'Reno), partial_ack_timer = "impatient", quickacks = 1, grow_on_exit = true (SACK recovery '
    'and NewReno), cwnd_growth = "cwnd_limited" for CUBIC, overhead = 2 on every link'
)

_FLOW_GROW = re.compile(r"flows\[(\d+)\]\.tcp\.grow_on_exit")


def _frame(link: dict[str, Any]) -> None:
    """Give a link, and each direction that sets its own overhead, the PPP header."""
    link["overhead"] = PPP_BYTES
    for side in ("forward", "reverse"):
        d = link.get(side)
        if isinstance(d, dict) and "overhead" in d:
            d["overhead"] = PPP_BYTES


def _frame_links(doc: dict[str, Any]) -> None:
    topo = doc.get("topology") or {}
    kind = topo.get("kind")
    if kind == "explicit":
        for link in topo.get("links") or []:
            if isinstance(link, dict):
                _frame(link)
        return
    if kind != "dumbbell":
        return  # the translator refuses the rest
    if "access" not in topo:
        # The dumbbell's default access link, made explicit so that it can carry the header:
        # ten times the bottleneck's rate, no delay, 1,000 packets (as the engine builds it).
        built = json.loads(_core.describe(to_json(doc)))["links"]
        rate = next(ln["rate_bps"] for ln in built if ln["name"] == "r1->r2") * 10
        topo["access"] = {"rate": f"{rate:.17g}bps", "queue": 1000}
    for key in ("bottleneck", "access", "sender_access", "receiver_access"):
        if isinstance(topo.get(key), dict):
            _frame(topo[key])
    for f in doc.get("flows") or []:
        for key in ("sender_access", "receiver_access"):
            if isinstance(f, dict) and isinstance(f.get(key), dict):
                _frame(f[key])


def _set_tcp(doc: dict[str, Any]) -> None:
    flows = [f for f in doc.get("flows") or [] if isinstance(f, dict)]
    for t in [doc.setdefault("tcp", {})] + [
        f["tcp"] for f in flows if isinstance(f.get("tcp"), dict)
    ]:
        t.update(NS3_TCP)
    # grow_on_exit applies to SACK recovery and NewReno: ask for it everywhere, then take it back
    # where the engine says a flow recovers otherwise.
    doc["tcp"]["grow_on_exit"] = True
    for _ in range(len(doc.get("flows") or []) + 2):
        try:
            _core.describe(to_json(doc))
            return
        except _core.ScenarioError as e:
            path = e.args[1]
            m = _FLOW_GROW.fullmatch(path)
            if path == "tcp.grow_on_exit":
                doc["tcp"]["grow_on_exit"] = False
                for f in doc.get("flows") or []:
                    if isinstance(f, dict) and isinstance(f.get("tcp"), dict):
                        f["tcp"].setdefault("grow_on_exit", True)
            elif m:
                doc["flows"][int(m.group(1))].setdefault("tcp", {})["grow_on_exit"] = False
            else:
                raise ScenarioError.from_engine(e) from None
    raise ScenarioError("cannot set tcp.grow_on_exit where SACK recovery runs", "tcp.grow_on_exit")


def _per_variant(doc: dict[str, Any]) -> None:
    """Give each flow the settings its variant's ns-3 class implies, on the flow's own
    settings (the engine says which variant each flow runs): the cut from cwnd
    (``CUT_FROM_CWND``), and growth only while cwnd-limited (``GROW_WHEN_CWND_LIMITED``)."""
    described = json.loads(_core.describe(to_json(doc)))["flows"]
    flows = doc.get("flows") or []
    for d, k in zip(described, flow_entries(doc, len(described)), strict=True):
        if d.get("protocol") != "tcp" or k < 0 or not isinstance(flows[k], dict):
            continue
        cc = d["tcp"]["cc"]
        if cc in CUT_FROM_CWND:
            flows[k].setdefault("tcp", {})["halving_base"] = "window"
        if cc in GROW_WHEN_CWND_LIMITED:
            flows[k].setdefault("tcp", {})["cwnd_growth"] = "cwnd_limited"


def with_ns3_conventions(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of a prepared scenario with ns-3's conventions set (see the module's text)."""
    doc = copy.deepcopy(doc)
    _frame_links(doc)
    _set_tcp(doc)
    _per_variant(doc)
    return doc

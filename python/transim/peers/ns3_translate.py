"""Translate a transim scenario into the ns-3 driver's spec, or refuse what ns-3 cannot express.

The translator reads the scenario as the engine builds it (``_core.describe``: nodes, link
directions, flows, each TCP flow's options after its profile) so dumbbells, explicit
topologies and profiles need no second implementation here. Everything it cannot carry over
exactly is either refused (a :class:`ScenarioError` naming the field) or, where ns-3's model
differs in a way the user should know but that does not change what is simulated, listed in
``Translation.notes``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .. import _core
from ..scenario import ScenarioError, to_json

#: transim congestion control -> ns-3 TcpCongestionOps.
CC = {
    "reno": "ns3::TcpNewReno",
    "cubic": "ns3::TcpCubic",
    "westwood": "ns3::TcpWestwoodPlus",
    "veno": "ns3::TcpVeno",
    "vegas": "ns3::TcpVegas",
    "highspeed": "ns3::TcpHighSpeed",
    "scalable": "ns3::TcpScalable",
    "bic": "ns3::TcpBic",
    "htcp": "ns3::TcpHtcp",
    "hybla": "ns3::TcpHybla",
    "illinois": "ns3::TcpIllinois",
    "bbr": "ns3::TcpBbr",
    "linux-reno": "ns3::TcpLinuxReno",
    "yeah": "ns3::TcpYeah",
    "ledbat": "ns3::TcpLedbat",
    "lp": "ns3::TcpLp",
}

#: The variants whose ns-3 class cuts from cwnd, not from the ``BytesInFlight()`` its socket
#: passes: ``TcpCubic::GetSsThresh`` takes β·cwnd and ``TcpLinuxReno::GetSsThresh`` cwnd / 2,
#: on a fast retransmit and on a timeout alike.
CUT_FROM_CWND = ("cubic", "linux-reno")

#: The variants whose ns-3 class grows cwnd only while the socket's ``m_isCwndLimited`` is
#: set: ``TcpCubic::IncreaseWindow`` returns at once otherwise (``TcpLinuxReno`` holds only
#: congestion avoidance, and the others grow on every ACK).
GROW_WHEN_CWND_LIMITED = ("cubic",)

#: What each ``tcp.halving_base`` cuts from, for the notes.
HALVING_NAMES = {
    "flight": "FlightSize (RFC 5681, RFC 9438)",
    "pipe": "the pipe",
    "window": "cwnd",
}

#: ns-3 recovery for transim's: NewReno without SACK and RFC 6675 with it both map to ns-3's
#: classic recovery (cwnd = ssthresh, inflated per duplicate ACK; with SACK its scoreboard
#: follows RFC 6675's IsLost / NextSeg), and RFC 6675 with ``tcp.prr`` to ns-3's PRR (its
#: default). ``ns3_recovery`` picks one for every flow instead.
RECOVERY = {"newreno": False, "rfc6675": True}
NS3_RECOVERY = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}

#: The header ns-3's point-to-point devices put on every packet (PPP's protocol field).
PPP_BYTES = 2

PPP_NOTE = (
    "ns-3's point-to-point devices add a 2-byte PPP header to every packet (0.13 % more "
    "transmission time at 1,500 bytes, 5 % for a 40-byte ACK); transim's links carry IP "
    "packets with no framing (overhead = 0; overhead = 2 on every link does as ns-3)"
)


@dataclass
class Translation:
    """The driver spec, what ns-3 will approximate, and the scenario as built."""

    spec: str
    notes: list[str] = field(default_factory=list)
    described: dict[str, Any] = field(default_factory=dict)


def _refuse(path: str, why: str) -> ScenarioError:
    return ScenarioError(f"{path}: ns-3 cannot express this: {why}", path=path)


#: Disciplines ns-3 has (RedQueueDisc, CoDelQueueDisc, FqCoDelQueueDisc, PieQueueDisc, RED
#: with MinTh = MaxTh for step marking) that the translator does not configure yet.
NS3_HAS_QDISC = ("red", "codel", "fq_codel", "pie", "step")


def _untranslated(path: str, why: str) -> ScenarioError:
    return ScenarioError(f"{path}: the ns-3 translator does not carry this yet: {why}", path=path)


def _check_topology(doc: dict[str, Any]) -> None:
    topo = doc.get("topology") or {}
    kind = topo.get("kind")
    if kind not in ("dumbbell", "explicit"):
        raise _refuse(
            "topology.kind",
            f'got {kind!r}; the ns-3 translator takes "dumbbell" and "explicit" topologies',
        )
    if topo.get("routes"):
        raise _refuse("topology.routes", "explicit routes (ns-3 routes by shortest path here)")
    ecmp = topo.get("ecmp")
    if ecmp not in (None, False):
        what = "packet spraying" if ecmp == "packet" else "per-flow ECMP"
        raise _refuse("topology.ecmp", f"{what} (ns-3's global routing takes one path)")
    for i, f in enumerate(doc.get("flows") or []):
        if isinstance(f, dict) and f.get("switch"):
            raise _refuse(f"flows[{i}].switch", "switching congestion control mid-connection")
        tcp = f.get("tcp") if isinstance(f, dict) else None
        if isinstance(tcp, dict) and tcp.get("adaptive"):
            raise _refuse(f"flows[{i}].tcp.adaptive", "the adaptive framework")
    if isinstance(doc.get("tcp"), dict) and doc["tcp"].get("adaptive"):
        raise _refuse("tcp.adaptive", "the adaptive framework")


def _channels(links: list[dict[str, Any]]) -> list[str]:
    """Pair link directions into ns-3 point-to-point channels (one delay, two devices)."""
    by_ends = {(ln["from"], ln["to"]): ln for ln in links}
    lines, done = [], set()
    for ln in links:
        a, b = ln["from"], ln["to"]
        if (a, b) in done:
            continue
        back = by_ends.get((b, a))
        where = f"link {ln['name']}"
        if back is None:
            raise _refuse(where, "a one-way link (ns-3's point-to-point channels are duplex)")
        for d in (ln, back):
            _check_direction(d)
        if abs(ln["delay"] - back["delay"]) > 1e-12:
            raise _refuse(
                where,
                f"different delays per direction ({ln['delay']} s, {back['delay']} s); an "
                "ns-3 point-to-point channel has one",
            )
        if ln["queue_unit"] != back["queue_unit"]:
            raise _refuse(where, "a queue in packets one way and in bytes the other")
        unit = "p" if ln["queue_unit"] == "packets" else "B"
        lines.append(
            f"channel {a} {b} {ln['delay']!r} {ln['rate_bps']!r} {back['rate_bps']!r} "
            f"{ln['queue']} {back['queue']} {unit} {_loss(ln)!r} {_loss(back)!r}"
        )
        done |= {(a, b), (b, a)}
    return lines


def _loss(d: dict[str, Any]) -> float:
    return float(d["loss"]["p"]) if d["loss"] else 0.0


def _check_direction(d: dict[str, Any]) -> None:
    where = f"link {d['name']}"
    if d["cells"]:
        raise _refuse(where, "ATM cells (ns-3 has no ATM layer)")
    if d["qdisc"] in NS3_HAS_QDISC:
        raise _untranslated(f"{where} qdisc", f"{d['qdisc']!r} (drop-tail queues only so far)")
    if d["qdisc"] != "droptail":
        raise _refuse(
            f"{where} qdisc", f"got {d['qdisc']!r}; the translator carries drop-tail queues only"
        )
    if d["overhead"] not in (0, PPP_BYTES):
        raise _refuse(
            f"{where} overhead",
            f"got {d['overhead']} bytes; ns-3's point-to-point devices frame every packet with "
            f"the {PPP_BYTES}-byte PPP header (overhead = {PPP_BYTES}, or 0 to leave it out)",
        )
    if d["down"]:
        raise _refuse(f"{where} down", "link outages")
    if d.get("jitter"):
        raise _refuse(
            f"{where} jitter", "a random delay (ns-3's point-to-point channels have a fixed one)"
        )
    if d["loss"] and d["loss"]["model"] != "bernoulli":
        raise _refuse(f"{where} loss", f"the {d['loss']['model']} loss model (Bernoulli only)")
    if d["drop_packets"]:
        raise _refuse(
            f"{where} drops.packets",
            "drops by packet number (ns-3 numbers packets globally); script drops.segments",
        )
    if d["drops_at_enqueue"]:
        raise _refuse(f"{where} drops", "drops before the queue (ns-3 drops at the receiver)")


def flow_entries(doc: dict[str, Any], n: int) -> list[int]:
    """For each of the ``n`` flows the engine built, the index of the ``[[flows]]`` entry it
    comes from: an entry with ``count = c`` stands for c flows in a row. A flow beyond the
    entries (a traffic pattern's) has none: -1."""
    out: list[int] = []
    for k, e in enumerate(doc.get("flows") or []):
        out += [k] * int(e.get("count") or 1 if isinstance(e, dict) else 1)
    return (out + [-1] * n)[:n]


def _growth_note(path: str, t: dict[str, Any], notes: list[str]) -> None:
    """Where ns-3's variant and the flow's ``cwnd_growth`` differ on growing cwnd while the
    receive window or the application, not cwnd, holds the sender back."""
    name = CC[t["cc"]].split("::")[1]
    growth = t["cwnd_growth"]
    if t["cc"] in GROW_WHEN_CWND_LIMITED:
        if growth == "always":
            notes.append(
                f"{path}: ns-3's {name} grows cwnd only while cwnd limits the sender, transim's "
                "flow on every ACK: where the receive window or the application holds the "
                "sender back, transim's window grows and ns-3's stays (tcp.cwnd_growth = "
                '"cwnd_limited" does as ns-3)'
            )
        elif growth == "linux":
            notes.append(
                f"{path}: ns-3's {name} grows cwnd only while the last send filled it; Linux's "
                "rule (this flow's) also grows slow start up to twice the most in flight "
                '(tcp.cwnd_growth = "cwnd_limited" does as ns-3)'
            )
    elif t["cc"] == "linux-reno":
        if growth != "always":
            notes.append(
                f"{path}: ns-3's {name} holds cwnd while not cwnd-limited only in congestion "
                "avoidance and grows slow start on every ACK; this flow holds both"
            )
    elif growth != "always":
        notes.append(
            f"{path}: ns-3's {name} grows cwnd on every ACK, also while the receive window or "
            "the application holds the sender back; this flow only while cwnd limits it "
            '(tcp.cwnd_growth = "always" does as ns-3)'
        )


def _tcp_options(i: int, t: dict[str, Any], notes: list[str]) -> str:
    path = f"flows[{i}].tcp" if i >= 0 else "tcp"
    if t["cc"] not in CC:
        raise _refuse(f"{path}.cc", f"{t['cc']!r} has no ns-3 counterpart ({', '.join(CC)})")
    if t["ecn"]:
        raise _untranslated(f"{path}.ecn", "ECN (ns-3's UseEcn is not set by the translator)")
    if t["recovery"] not in RECOVERY:
        raise _refuse(
            f"{path}.recovery",
            f"{t['recovery']!r} (ns-3 recovers like NewReno without SACK or RFC 6675 with it: "
            'use "newreno" or "rfc6675")',
        )
    if RECOVERY[t["recovery"]] != t["sack"]:
        raise _refuse(
            f"{path}.sack",
            f"recovery {t['recovery']!r} with sack = {str(t['sack']).lower()}: ns-3 uses SACK "
            "for recovery whenever it is negotiated (newreno: sack off; rfc6675: sack on)",
        )
    if t["cwnd_in_packets"] or t["ns2_arithmetic"]:
        raise _refuse(f"{path}.profile", 'ns-2\'s packet-counted arithmetic (profile "ns2")')
    for key, what in [
        ("ful", "the FUL bit"),
        ("maxburst", "ns-2's maxburst"),
        ("max_cwnd", "a cwnd cap"),
    ]:
        if t[key]:
            raise _refuse(f"{path}.{key}", what)
    if t["slow_start_after_idle"]:
        raise _untranslated(f"{path}.slow_start_after_idle", "slow start after idle")
    if t["dsack"]:
        raise _refuse(f"{path}.dsack", "D-SACK (ns-3's receivers report no duplicates)")
    if t.get("read_rate_bps") is not None:
        raise _refuse(
            f"{path}.read_rate",
            "an application that reads at a set rate (the driver's sink reads at once)",
        )
    if t["nagle"] == "minshall":
        raise _refuse(f"{path}.nagle", "Minshall's Nagle variant")
    d = t["delayed_ack"]
    if d["kind"] == "off":
        count, timeout = 1, 0.2
    elif d["kind"] == "every":
        count, timeout = d["count"], d["timeout"]
        if d["quickacks"] > 1:
            raise _refuse(
                f"{path}.quickacks",
                f"got {d['quickacks']}; ns-3 acknowledges only the first data segment at once "
                "(quickacks = 1)",
            )
        if d["quickacks"] == 0 and count > 1:
            notes.append(
                f"{path}: ns-3 acknowledges the first data segment at once, transim's receiver "
                "waits for the second (tcp.quickacks = 1 does as ns-3)"
            )
    else:
        count, timeout = 2, d["timeout"]
        notes.append(f"{path}: Linux's quick-ACK/delayed-ACK heuristics become ns-3's every 2nd")
    if t["cc"] in CUT_FROM_CWND:
        if t["halving_base"] != "window" and t["recovery"] != "tahoe":
            notes.append(
                f"{path}: ns-3's {CC[t['cc']].split('::')[1]} cuts ssthresh from cwnd on a loss "
                f"and on a timeout, transim from {HALVING_NAMES[t['halving_base']]}: the two "
                "differ wherever recovery or a timeout finds them apart (tcp.halving_base = "
                '"window" does as ns-3)'
            )
    elif t["halving_base"] != "pipe" and t["recovery"] != "tahoe":
        # The largest of these effects wherever there is loss: ns-3's NewReno gets about
        # 30 % less goodput at 1 % loss (README, "Cross-validation against ns-3").
        notes.append(
            f"{path}: on a loss ns-3 halves the pipe (data out less SACKed and lost; without "
            "SACK each duplicate ACK counts as one segment SACKed), transim FlightSize per RFC "
            "5681: ns-3 cuts deeper, and gets less goodput where losses are frequent "
            '(tcp.halving_base = "pipe" does as ns-3)'
        )
    _growth_note(path, t, notes)
    if not t["grow_on_exit"]:
        notes.append(
            f"{path}: ns-3 leaves fast recovery with cwnd = ssthresh and grows it on that same "
            "ACK; transim follows RFC 6675 / RFC 6582 (tcp.grow_on_exit = true does as ns-3)"
        )
    if t["cc"] != "cubic" and t["byte_counting"] != "off":
        notes.append(
            f"{path}: ns-3's {CC[t['cc']].split('::')[1]} grows slow start by one MSS per ACK; "
            f'this flow counts bytes (tcp.byte_counting = "{t["byte_counting"]}"; "off" does '
            "as ns-3)"
        )
    if t["cc"] == "cubic":
        if count > 1 and t["byte_counting"] != "full":
            notes.append(
                f"{path}: ns-3's TcpCubic grows slow start by every segment acknowledged (byte "
                "counting), transim by one MSS per ACK (RFC 5681): with delayed ACKs ns-3's "
                "window doubles each round and transim's grows by half, so ns-3 overshoots more "
                'where slow start ends by a loss (tcp.byte_counting = "full" does as ns-3)'
            )
        if t["hystart"] == "rfc9406":
            raise _refuse(f"{path}.hystart", "HyStart++ (RFC 9406; ns-3's TcpCubic has HyStart)")
        if t["hystart"] == "off":
            notes.append(
                f"{path}: ns-3's TcpCubic uses HyStart by default; it runs without, as transim's "
                'flow does (tcp.hystart = "ns3" compares both with it)'
            )
        elif t["hystart"] == "linux":
            notes.append(
                f"{path}: ns-3's HyStart has its own constants (the train at min RTT, the delay "
                "threshold min RTT clamped to 4 ms-1 s), not Linux's (min RTT / 2; min RTT / 8 "
                'clamped to 4-16 ms): tcp.hystart = "ns3" does as ns-3'
            )
    if t["initial_window_bytes"] % t["mss"]:
        raise _refuse(f"{path}.initial_window", "an initial window that is not whole segments")
    if abs(t["rto_max"] - 60) > 1e-6:
        notes.append(f"{path}.rto_max: ns-3 has no RTO ceiling attribute (it keeps 60 s)")
    ssthresh = t["initial_ssthresh"] if t["initial_ssthresh"] < 2**32 - 1 else 2**32 - 1
    pacing = t["pacing"] or t["cc"] == "bbr"  # ns-3's BBR needs pacing switched on
    opts = {
        "mss": t["mss"],
        "sack": int(t["sack"]),
        "ts": int(t["timestamps"]),
        "ws": int(t["window_scale"]),
        "rcvbuf": min(t["rcv_buf"], 2**32 - 1),
        # The sender never needs more buffer than the receiver can hold unacknowledged.
        "sndbuf": min(t["snd_buf"] or t["rcv_buf"], 2**32 - 1),
        "iw": t["initial_window_bytes"] // t["mss"],
        "ssthresh": ssthresh,
        "delack_count": count,
        "delack_timeout": repr(float(timeout)),
        "nodelay": int(t["nagle"] == "off"),
        "lt": int(t["limited_transmit"]),
        "dupthresh": t["dupthresh"],
        "minrto": repr(float(t["rto_min"])),
        "connrto": repr(float(t["rto_initial"])),
        "clockgran": repr(float(t["clock_granularity"])),
        "pacing": int(pacing),
        "hystart": int(t["hystart"] != "off"),
    }
    return " ".join(f"{k}={v}" for k, v in opts.items())


def translate(
    doc: dict[str, Any], trace_flows: list[int] | None = None, ns3_recovery: str | None = None
) -> Translation:
    """The driver spec for a prepared scenario (``scenario.prepare``'s dict); ns-3 recovers
    as each flow's ``tcp.prr`` says unless ``ns3_recovery`` ("classic" or "prr") is given."""
    if ns3_recovery is not None and ns3_recovery not in NS3_RECOVERY:
        raise ValueError(
            f"ns3_recovery: got {ns3_recovery!r}; expected one of {list(NS3_RECOVERY)}"
        )
    _check_topology(doc)
    try:
        d = json.loads(_core.describe(to_json(doc)))
    except _core.ScenarioError as e:
        raise ScenarioError.from_engine(e) from None
    if d["atm"]:
        raise _refuse("topology", "ATM virtual circuits")
    if d["host_processing"]:
        raise _refuse("topology", "host processing times")
    notes = [PPP_NOTE] if any(ln["overhead"] != PPP_BYTES for ln in d["links"]) else []
    lines = [f"duration {d['duration']!r}", f"seed {d['seed']}"]
    mtus = {f["tcp"]["mtu"] for f in d["flows"] if f["tcp"]}
    lines.append(f"mtu {max(mtus | {1500})}")
    lines += [f"node {n}" for n in d["nodes"]]
    lines += _channels(d["links"])
    entries = flow_entries(doc, len(d["flows"]))
    for i, f in enumerate(d["flows"]):
        k = entries[i]
        entry = doc["flows"][k] if k >= 0 else {}
        where = f"flows[{k}]" if k >= 0 else f"flows[{i}]"
        if f["protocol"] != "tcp":
            raise _refuse(f"{where}.protocol", "SCTP (ns-3's SCTP is not in its mainline)")
        if f["app"] not in ("bulk", "finite"):
            raise _refuse(
                f"{where}.app.kind", f"got {f['app']!r}; the translator takes bulk and finite"
            )
        t = f["tcp"]
        opts = _tcp_options(k if isinstance(entry, dict) and entry.get("tcp") else -1, t, notes)
        recovery = ns3_recovery or ("prr" if t["prr"] else "classic")
        lines.append(
            f"flow {i} {f['src']} {f['dst']} {f['start']!r} {f['bytes'] or 0} {CC[t['cc']]} "
            f"{NS3_RECOVERY[recovery]} {opts}"
        )
    for ln in d["links"]:
        for flow, seg, tx in ln["drop_segments"]:
            lines.append(f"drop {ln['from']} {ln['to']} {flow} {seg} {tx}")
    for i in trace_flows or []:
        lines.append(f"trace {i}")
    return Translation("\n".join(lines) + "\n", sorted(set(notes)), d)

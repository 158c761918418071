"""with_ns3_conventions: ns-3's conventions set in transim (``compare ns3 --as-ns3``)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from transim import _core
from transim.peers.conventions import NS3_TCP, with_ns3_conventions
from transim.peers.ns3_translate import translate
from transim.scenario import prepare, to_json

ROOT = Path(__file__).resolve().parents[1]


def described(doc: dict) -> dict:
    return json.loads(_core.describe(to_json(doc)))


def test_a_dumbbell_with_default_access_links_gets_every_convention() -> None:
    doc, _ = prepare(ROOT / "benches" / "b1.toml")
    del doc["topology"]["access"]
    before = described(doc)
    after = described(with_ns3_conventions(doc))
    # Every link direction is framed; rates, delays and queues are as the engine built them.
    assert {ln["overhead"] for ln in after["links"]} == {2}
    strip = [{k: v for k, v in ln.items() if k != "overhead"} for ln in after["links"]]
    assert strip == [{k: v for k, v in ln.items() if k != "overhead"} for ln in before["links"]]
    for f in after["flows"]:
        t = f["tcp"]
        assert t["halving_base"] == "pipe" and t["delayed_ack"]["quickacks"] == 1
        grows = t["recovery"] in ("rfc6675", "rack-tlp", "sack1", "sackplus", "newreno")
        assert t["grow_on_exit"] == grows
    # Nothing left for the translator to note but what the models differ in.
    notes = translate(with_ns3_conventions(doc)).notes
    for words in ("PPP", "first data segment", "leaves fast recovery", "halves the pipe"):
        assert not any(words in n for n in notes), notes


def test_flows_recovering_as_reno_keep_grow_on_exit_off() -> None:
    doc = tomllib.loads(
        """
        duration = "1s"
        [tcp]
        recovery = "rfc6675"
        [topology]
        kind = "explicit"
        nodes = ["a", "b"]
        [[topology.links]]
        between = ["a", "b"]
        rate = "10Mbps"
        forward = { overhead = 0 }
        [[flows]]
        src = "a"
        dst = "b"
        app = { kind = "bulk" }
        [[flows]]
        src = "a"
        dst = "b"
        app = { kind = "bulk" }
        tcp = { recovery = "reno", sack = false, halving_base = "window" }
        """
    )
    out = with_ns3_conventions(doc)
    d = described(out)
    assert [f["tcp"]["grow_on_exit"] for f in d["flows"]] == [True, False]
    # A flow's own table is set too, or its own halving_base would win.
    assert [f["tcp"]["halving_base"] for f in d["flows"]] == ["pipe", "pipe"]
    assert {ln["overhead"] for ln in d["links"]} == {2}
    assert doc["flows"][1]["tcp"]["halving_base"] == "window", "the input is left as it was"
    assert all(out["tcp"][k] == v for k, v in NS3_TCP.items())


def test_cubic_and_linux_reno_flows_cut_from_cwnd() -> None:
    """TcpCubic::GetSsThresh takes beta * cwnd and TcpLinuxReno::GetSsThresh cwnd / 2: those
    flows get halving_base = "window", the others ns-3's pipe; the [tcp] table's variant
    counts for the flows that do not name their own."""
    doc, _ = prepare(ROOT / "benches" / "b1.toml")
    doc["tcp"]["cc"] = "linux-reno"
    doc["flows"] = [{"app": {"kind": "bulk"}, "tcp": {"cc": c}} for c in ("cubic", "reno")]
    doc["flows"].append({"app": {"kind": "bulk"}})
    flows = described(with_ns3_conventions(doc))["flows"]
    assert [(f["tcp"]["cc"], f["tcp"]["halving_base"]) for f in flows] == [
        ("cubic", "window"),
        ("reno", "pipe"),
        ("linux-reno", "window"),
    ]
    # TcpCubic::IncreaseWindow returns unless the socket is cwnd-limited; TcpNewReno grows
    # on every ACK (and TcpLinuxReno's slow start does, so it keeps "always").
    assert [f["tcp"]["cwnd_growth"] for f in flows] == ["cwnd_limited", "always", "always"]


def test_an_entry_with_a_count_gets_its_variants_cut() -> None:
    doc, _ = prepare(ROOT / "benches" / "b1.toml")
    doc["flows"] = [
        {"app": {"kind": "bulk"}, "count": 2, "tcp": {"cc": "reno"}},
        {"app": {"kind": "bulk"}, "tcp": {"cc": "cubic"}},
    ]
    flows = described(with_ns3_conventions(doc))["flows"]
    assert [f["tcp"]["halving_base"] for f in flows] == ["pipe", "pipe", "window"]

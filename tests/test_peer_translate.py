"""The ns-3 translator: what it writes for scenarios ns-3 can express, and the field it names
for those it cannot (no ns-3 needed)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from transim.peers import translate
from transim.scenario import ScenarioError, prepare

ROOT = Path(__file__).resolve().parent.parent


def b1() -> dict:
    doc, _ = prepare(ROOT / "benches" / "b1.toml")
    return doc


def test_b1_spec_carries_the_path_and_the_tcp_options() -> None:
    t = translate(b1(), trace_flows=[0])
    lines = t.spec.splitlines()
    assert "duration 200.0" in lines and "seed 1" in lines
    assert [x for x in lines if x.startswith("node ")] == [
        "node r1",
        "node r2",
        "node s0",
        "node d0",
    ]
    # One duplex channel per link pair: the bottleneck's loss only on r1->r2.
    assert "channel r1 r2 0.05 10000000.0 10000000.0 100 100 p 0.01 0.0" in lines
    assert "channel s0 r1 0.0 1000000000.0 1000000000.0 1000 1000 p 0.0 0.0" in lines
    flow = next(x for x in lines if x.startswith("flow 0 "))
    assert flow.startswith("flow 0 s0 d0 0.0 0 ns3::TcpNewReno ns3::TcpClassicRecovery ")
    opts = dict(kv.split("=") for kv in flow.split()[8:])
    assert opts == {
        "mss": "1448",
        "sack": "0",
        "ts": "1",
        "ws": "1",
        "rcvbuf": str(16 << 20),
        "sndbuf": str(16 << 20),
        "iw": "10",
        "ssthresh": str(2**32 - 1),
        "delack_count": "2",
        "delack_timeout": "0.2",
        "nodelay": "1",
        "lt": "1",
        "dupthresh": "3",
        "minrto": "1.0",
        "connrto": "1.0",
        "clockgran": "0.001",
        "pacing": "0",
        "hystart": "0",
    }
    assert "trace 0" in lines
    assert any("PPP header" in n for n in t.notes)


def _hystart_and_notes(doc: dict) -> tuple[str, list[str]]:
    t = translate(doc)
    flow = next(x for x in t.spec.splitlines() if x.startswith("flow 0 "))
    return dict(kv.split("=") for kv in flow.split()[8:])["hystart"], t.notes


def test_cubics_hystart_is_set_in_ns3_as_in_transim() -> None:
    """ns-3's TcpCubic has HyStart on by default: the driver is told transim's setting, and
    the notes say where the two differ."""
    doc = b1()
    doc["tcp"]["cc"] = "cubic"
    on, notes = _hystart_and_notes(doc)
    assert on == "0" and any("uses HyStart by default" in n for n in notes)
    doc["tcp"]["hystart"] = "ns3"
    on, notes = _hystart_and_notes(doc)
    assert on == "1" and not any("HyStart" in n for n in notes)
    doc["tcp"]["hystart"] = "linux"
    on, notes = _hystart_and_notes(doc)
    assert on == "1" and any("not Linux's" in n for n in notes)


def test_slow_starts_byte_counting_is_noted_where_ns3_differs() -> None:
    """ns-3's TcpCubic counts bytes in slow start, its other variants one MSS per ACK."""
    doc = b1()
    doc["tcp"]["cc"] = "cubic"
    assert any("byte counting" in n for n in _hystart_and_notes(doc)[1])
    doc["tcp"]["byte_counting"] = "full"
    assert not any("byte counting" in n for n in _hystart_and_notes(doc)[1])
    doc["tcp"]["cc"] = "reno"
    notes = _hystart_and_notes(doc)[1]
    assert any("TcpNewReno grows slow start by one MSS" in n for n in notes)
    doc["tcp"]["byte_counting"] = "off"
    assert not any("slow start" in n for n in _hystart_and_notes(doc)[1])


def test_scripted_segment_drops_and_prr() -> None:
    doc = b1()
    doc["topology"]["bottleneck"]["forward"] = {"drops": {"segments": [{"segment": 30}]}}
    t = translate(doc, ns3_recovery="prr")
    assert "drop r1 r2 0 30 1" in t.spec.splitlines()
    assert "ns3::TcpPrrRecovery" in t.spec


def test_two_bytes_of_overhead_on_every_link_is_ns3s_ppp_header() -> None:
    doc = b1()
    doc["topology"]["bottleneck"]["overhead"] = 2
    assert any("PPP header" in n for n in translate(doc).notes)  # the access links have none
    doc["topology"]["access"]["overhead"] = 2
    assert not any("PPP header" in n for n in translate(doc).notes)


def test_the_growth_on_leaving_recovery_is_noted_unless_grow_on_exit() -> None:
    doc = b1()
    doc["tcp"].update(recovery="rfc6675", sack=True)
    assert any("leaves fast recovery" in n for n in translate(doc).notes)
    doc["tcp"]["grow_on_exit"] = True
    assert not any("leaves fast recovery" in n for n in translate(doc).notes)


def test_the_halving_of_flightsize_is_noted_unless_halving_base_is_pipe() -> None:
    doc = b1()
    assert any("ns-3 halves the pipe" in n for n in translate(doc).notes)
    doc["tcp"]["halving_base"] = "pipe"
    assert not any("ns-3 halves the pipe" in n for n in translate(doc).notes)


def test_the_first_data_segments_ack_is_noted_unless_quickacks_is_1() -> None:
    doc = b1()
    doc["tcp"]["delayed_ack"] = "on"
    assert any("first data segment at once" in n for n in translate(doc).notes)
    doc["tcp"]["quickacks"] = 1
    assert not any("first data segment at once" in n for n in translate(doc).notes)


def test_each_flow_recovers_as_its_tcp_prr_says() -> None:
    doc = b1()
    doc["tcp"].update(recovery="rfc6675", sack=True)
    assert "ns3::TcpClassicRecovery" in translate(doc).spec
    doc["tcp"]["prr"] = True
    assert "ns3::TcpPrrRecovery" in translate(doc).spec
    # An explicit choice applies to every flow.
    assert "ns3::TcpClassicRecovery" in translate(doc, ns3_recovery="classic").spec


@pytest.mark.parametrize(
    "change, path, words",
    [
        ({"tcp.cc": "cubic-2.6"}, "tcp.cc", "no ns-3 counterpart"),
        ({"tcp.recovery": "sack1", "tcp.sack": True}, "tcp.recovery", "sack1"),
        ({"tcp.sack": True}, "tcp.sack", "sack = true"),
        ({"tcp.profile": "ns2"}, "tcp.profile", "ns-2"),
        ({"tcp.nagle": "minshall"}, "tcp.nagle", "Minshall"),
        ({"tcp.max_cwnd": 100_000}, "tcp.max_cwnd", "cwnd cap"),
        (
            {"tcp.recovery": "rfc6675", "tcp.sack": True, "tcp.dsack": True},
            "tcp.dsack",
            "D-SACK",
        ),
        ({"topology.bottleneck.qdisc": "fq"}, "link r1->r2 qdisc", "'fq'"),
        (
            {
                "topology.bottleneck.forward.loss": {
                    "model": "gilbert_elliott",
                    "p_gb": 0.01,
                    "p_bg": 0.5,
                    "loss_bad": 0.5,
                }
            },
            "link r1->r2 loss",
            "gilbert_elliott",
        ),
        ({"topology.bottleneck.reverse": {"delay": "10ms"}}, "link r1->r2", "delays"),
        ({"topology.ecmp": True}, "topology.ecmp", "ECMP"),
        ({"topology.ecmp": "packet"}, "topology.ecmp", "packet spraying"),
        ({"topology.bottleneck.overhead": 3}, "link r1->r2 overhead", "2-byte PPP header"),
        ({"topology.bottleneck.jitter": "1ms"}, "link r1->r2 jitter", "random delay"),
        ({"tcp.read_rate": "1Mbps"}, "tcp.read_rate", "reads at a set rate"),
        ({"tcp.delayed_ack": "on", "tcp.quickacks": 2}, "tcp.quickacks", "only the first"),
        ({"flows[0].protocol": "sctp"}, "flows[0].protocol", "SCTP"),
        ({"flows[0].app": {"kind": "writes", "sizes": [100]}}, "flows[0].app.kind", "'writes'"),
    ],
)
def test_refuses_what_ns3_cannot_express(change: dict, path: str, words: str) -> None:
    doc = copy.deepcopy(b1())
    for key, value in change.items():
        node = doc
        parts = key.replace("[0]", ".0").split(".")
        for p in parts[:-1]:
            node = node[int(p)] if p.isdigit() else node.setdefault(p, {})
        node[parts[-1]] = value
    if "flows[0].protocol" in change:
        doc["flows"][0].pop("tcp", None)
    with pytest.raises(ScenarioError) as e:
        translate(doc)
    assert e.value.path == path
    assert "ns-3 cannot express" in e.value.message and words in e.value.message


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"topology.bottleneck.qdisc": "codel"}, "link r1->r2 qdisc"),
        ({"tcp.ecn": True}, "tcp.ecn"),
    ],
)
def test_says_what_it_does_not_translate_yet(change: dict, path: str) -> None:
    """ns-3 has AQMs and ECN; the translator says it does not carry them, not that ns-3
    cannot."""
    doc = copy.deepcopy(b1())
    for key, value in change.items():
        node = doc
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    with pytest.raises(ScenarioError) as e:
        translate(doc)
    assert e.value.path == path
    assert "does not carry this yet" in e.value.message


def test_refuses_generated_topologies() -> None:
    doc, _ = prepare(ROOT / "scenarios" / "fat-tree.toml")
    with pytest.raises(ScenarioError) as e:
        translate(doc)
    assert e.value.path == "topology.kind" and "fat_tree" in e.value.message


@pytest.mark.parametrize("cc, name", [("cubic", "TcpCubic"), ("linux-reno", "TcpLinuxReno")])
def test_cubic_and_linux_reno_are_noted_unless_they_cut_from_cwnd(cc: str, name: str) -> None:
    """ns-3's TcpCubic and TcpLinuxReno cut from cwnd, not from the pipe the others cut."""
    doc = b1()
    doc["tcp"].update(cc=cc, halving_base="pipe")
    notes = translate(doc).notes
    assert any(f"ns-3's {name} cuts ssthresh from cwnd" in n and "the pipe" in n for n in notes)
    assert not any("ns-3 halves the pipe" in n for n in notes)
    doc["tcp"]["halving_base"] = "window"
    assert not any("cuts ssthresh" in n or "halves" in n for n in translate(doc).notes)


def test_growth_while_not_cwnd_limited_is_noted_where_ns3_differs() -> None:
    """ns-3's TcpCubic grows only while cwnd-limited, its TcpNewReno on every ACK, its
    TcpLinuxReno holds congestion avoidance alone."""
    doc = b1()

    def noted(cc: str, growth: str) -> list[str]:
        doc["tcp"].update(cc=cc, cwnd_growth=growth)
        return [n for n in translate(doc).notes if "cwnd_growth" in n or "cwnd-limited" in n]

    assert any("ns-3's TcpCubic grows cwnd only while" in n for n in noted("cubic", "always"))
    assert noted("cubic", "cwnd_limited") == []
    assert any("twice the most in flight" in n for n in noted("cubic", "linux"))
    assert any("TcpNewReno grows cwnd on every ACK" in n for n in noted("reno", "cwnd_limited"))
    assert noted("reno", "always") == []
    assert any("only in congestion avoidance" in n for n in noted("linux-reno", "cwnd_limited"))
    assert any("only in congestion avoidance" in n for n in noted("linux-reno", "linux"))
    assert any("TcpNewReno grows cwnd on every ACK" in n for n in noted("reno", "linux"))
    assert noted("linux-reno", "always") == []


def test_hystart_plus_plus_is_refused_naming_the_field() -> None:
    doc = b1()
    doc["tcp"].update(cc="cubic", hystart="rfc9406")
    with pytest.raises(ScenarioError) as e:
        translate(doc)
    assert e.value.path == "tcp.hystart" and "RFC 9406" in str(e.value)


def test_an_entry_with_a_count_stands_for_its_flows() -> None:
    """The engine builds count copies of an entry; the notes and refusals name the entry
    (flows[1] is the third flow here). Indexing the entries by flow failed with an
    IndexError before."""
    doc = b1()
    doc["flows"] = [
        {"app": {"kind": "bulk"}, "count": 2, "tcp": {"cc": "reno"}},
        {"app": {"kind": "bulk"}, "tcp": {"cc": "cubic"}},
    ]
    t = translate(doc)
    assert [ln.split()[6] for ln in t.spec.splitlines() if ln.startswith("flow ")] == [
        "ns3::TcpNewReno",
        "ns3::TcpNewReno",
        "ns3::TcpCubic",
    ]
    assert any(n.startswith("flows[1].tcp: ns-3's TcpCubic uses HyStart") for n in t.notes)
    doc["flows"][1]["tcp"]["cc"] = "cubic-2.6"
    with pytest.raises(ScenarioError) as e:
        translate(doc)
    assert e.value.path == "flows[1].tcp.cc" and "no ns-3 counterpart" in str(e.value)

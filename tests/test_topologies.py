"""Generated topologies (fat_tree, leaf_spine, parking_lot) and traffic patterns: what they
build, that ECMP spreads flows over equal-cost paths, and that bad parameters name the field."""

from __future__ import annotations

from typing import Any

import pytest
import transim
from transim.data import resource
from transim.scenario import ScenarioError

HOST = {"rate": "1Gbps", "delay": "10us", "queue": 100}


def run(topology: dict[str, Any], traffic: dict[str, Any], **extra: Any) -> transim.Result:
    doc = {
        "duration": "20ms",
        "seed": 3,
        "tcp": {"recovery": "rfc6675", "rto_min": "1ms"},
        "topology": {"host_link": HOST, **topology},
        "traffic": {"app": {"kind": "bulk"}, **traffic},
        **extra,
    }
    return transim.run(doc)


def test_fat_tree_permutation() -> None:
    """k = 4: 16 hosts; a permutation: 16 flows, every host sends once and receives once."""
    r = run({"kind": "fat_tree", "k": 4}, {"pattern": "permutation"})
    assert len(r.flows) == 16
    assert all(f["data_packets_delivered"] > 0 for f in r.flows)
    c = r.summary["conservation"]
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    assert sorted(f["dst"] for f in r.flows) == sorted(f["src"] for f in r.flows)


def test_ecmp_spreads_flows_over_every_core_switch() -> None:
    """All-to-all over a k = 4 tree: 240 flows, 192 between pods, each free to take any of the
    4 core switches. With ECMP each core carries a share (a fair spread gives each about a
    quarter of the inter-pod flows); without it they would all take core0."""
    r = run({"kind": "fat_tree", "k": 4}, {"pattern": "all_to_all"}, duration="5ms")
    core_in = {
        link["name"].split("->")[0]: link["packets_in"]
        for link in r.summary["links"]
        if link["name"].startswith("core")
    }
    total = sum(core_in.values())
    assert set(core_in) == {"core0", "core1", "core2", "core3"}
    assert all(n > total / 10 for n in core_in.values()), core_in


def test_ecmp_off_takes_the_first_shortest_path() -> None:
    r = run({"kind": "fat_tree", "k": 4, "ecmp": False}, {"pattern": "permutation"})
    busy = {
        link["name"].split("->")[0]
        for link in r.summary["links"]
        if link["name"].startswith("core") and link["packets_in"] > 0
    }
    assert busy == {"core0"}


def test_leaf_spine_incast() -> None:
    """Eight senders into h0 over 2 leaves x 2 spines: h0's access link is the bottleneck."""
    r = run(
        {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 5},
        {"pattern": "incast", "senders": 8, "receiver": "h0"},
    )
    assert len(r.flows) == 8 and {f["dst"] for f in r.flows} == {"h0"}
    down = next(link for link in r.summary["links"] if link["name"] == "leaf0->h0")
    total = sum(f["goodput_bps"] for f in r.flows)
    assert total <= 1e9 and down["utilisation"] > 0.8


def test_parking_lot_hosts_and_all_to_all() -> None:
    r = run(
        {"kind": "parking_lot", "hops": 3},
        {"pattern": "all_to_all", "hosts": ["src", "dst", "x2s"]},
    )
    assert len(r.flows) == 6
    names = {link["name"] for link in r.summary["links"]}
    assert {"r0->r1", "r1->r2", "r2->r3", "src->r0", "r3->dst", "x2s->r1", "r2->x2d"} <= names


def test_a_count_of_hosts_takes_the_first_ones() -> None:
    """`hosts = 6` over a k = 4 tree's 16 hosts: all-to-all among h0..h5, 30 flows."""
    r = run({"kind": "fat_tree", "k": 4}, {"pattern": "all_to_all", "hosts": 6}, duration="2ms")
    assert len(r.flows) == 30
    assert {f["src"] for f in r.flows} == {f"h{i}" for i in range(6)}
    assert {f["dst"] for f in r.flows} == {f"h{i}" for i in range(6)}


def test_the_shipped_fat_tree_file_runs() -> None:
    r = transim.run(resource("scenarios", "fat-tree.toml"))
    assert len(r.flows) == 16 and sum(f["goodput_bps"] for f in r.flows) > 1e9


@pytest.mark.parametrize(
    ("topology", "traffic", "field"),
    [
        ({"kind": "fat_tree", "k": 5}, {"pattern": "permutation"}, "topology.k"),
        ({"kind": "fat_tree"}, {"pattern": "permutation"}, "topology.k"),
        ({"kind": "fat_tree", "k": 4, "hops": 2}, {"pattern": "permutation"}, "topology.hops"),
        (
            {"kind": "leaf_spine", "leaves": 2, "spines": 0, "hosts_per_leaf": 2},
            {"pattern": "permutation"},
            "topology.spines",
        ),
        ({"kind": "fat_tree", "k": 4}, {"pattern": "incast", "senders": 99}, "traffic.senders"),
        (
            {"kind": "fat_tree", "k": 4},
            {"pattern": "incast", "receiver": "nobody"},
            "traffic.receiver",
        ),
        ({"kind": "fat_tree", "k": 4}, {"pattern": "permutation", "hosts": 17}, "traffic.hosts"),
        ({"kind": "fat_tree", "k": 4}, {"pattern": "permutation", "hosts": "h0"}, "traffic.hosts"),
        (
            {"kind": "fat_tree", "k": 4, "nodes": ["a"]},
            {"pattern": "permutation"},
            "topology.nodes",
        ),
    ],
)
def test_bad_parameters_name_the_field(
    topology: dict[str, Any], traffic: dict[str, Any], field: str
) -> None:
    with pytest.raises(ScenarioError) as e:
        run(topology, traffic)
    assert field in str(e.value)


def test_explicit_topology_rejects_generator_fields() -> None:
    doc = {
        "duration": "1s",
        "topology": {
            "kind": "explicit",
            "k": 4,
            "nodes": ["a", "b"],
            "links": [{"between": ["a", "b"], "rate": "1Mbps"}],
        },
        "flows": [{"src": "a", "dst": "b"}],
    }
    with pytest.raises(ScenarioError) as e:
        transim.run(doc)
    assert "topology.k" in str(e.value)

"""Property tests over generated scenarios (issue 16): valid ones mixing the features, and
malformed ones. Every run must end in results or a ScenarioError naming a field — never
another exception — with conservation (checked by the engine itself), goodput no higher
than the flow's narrowest link, utilisation at most 100 % and the same bytes for the same
seed. CI runs a bounded number (TRANSIM_FUZZ_EXAMPLES, default 60 per property); a longer
local run: ``TRANSIM_FUZZ_EXAMPLES=2000 pytest tests/test_fuzz.py``.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import pytest
import transim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("TRANSIM_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("TRANSIM_FUZZ_RANDOM") is None,  # CI: the same cases every run
)

CCS = transim.congestion_controls()
RECOVERIES = ["tahoe", "reno", "newreno", "sack1", "sackplus", "rfc6675"]
AQMS = ["red", "codel", "fq_codel", "pie", "step"]
# DualPI2 takes no `ecn` (it marks whatever is ECN-capable), so it is not among AQMS.
QDISCS = ["droptail", "fq", "ack_filter", "dualpi2", *AQMS]
RATES = ["64kbps", "1Mbps", "10Mbps", "100Mbps", "1Gbps"]
DELAYS = [0, "100us", "1ms", "10ms", "50ms"]


def _loss() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"model": "none"}),
        st.builds(lambda p: {"model": "bernoulli", "p": p}, st.sampled_from([0.001, 0.01, 0.05])),
        st.builds(
            lambda p, q: {"model": "gilbert", "p": p, "q": q},
            st.sampled_from([0.001, 0.01]),
            st.sampled_from([0.2, 0.5, 1.0]),
        ),
        st.builds(
            lambda a, b, lg: {
                "model": "gilbert_elliott",
                "p_gb": a,
                "p_bg": b,
                "loss_good": lg,
                "loss_bad": 0.5,
            },
            st.sampled_from([0.001, 0.02]),
            st.sampled_from([0.1, 0.6]),
            st.sampled_from([0.0, 0.001]),
        ),
    )


def _direction() -> st.SearchStrategy[dict[str, Any]]:
    drops = st.one_of(
        st.none(),
        st.builds(
            lambda xs: {"packets": sorted(set(xs))}, st.lists(st.integers(1, 60), max_size=4)
        ),
        st.builds(
            lambda n, k: {"segments": [{"flow": 0, "segment": n, "transmission": k}]},
            st.integers(1, 40),
            st.integers(1, 2),
        ),
    )
    return st.builds(lambda loss, d: {"loss": loss, **({"drops": d} if d else {})}, _loss(), drops)


def _tcp() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "profile": st.sampled_from(["rfc", "linux-2.6", "ns2"]),
            "cc": st.sampled_from(CCS),
            "recovery": st.sampled_from(RECOVERIES),
            "sack": st.booleans(),
            "timestamps": st.booleans(),
            "nagle": st.sampled_from(["off", "rfc896", "minshall"]),
            "delayed_ack": st.sampled_from(["on", "off", "linux"]),
            "pacing": st.booleans(),
            "initial_window": st.sampled_from([1, 2, 4, 10]),
            "mss": st.sampled_from([100, 536, 1000, 1460]),
            "rcv_buf": st.sampled_from(["16KiB", "64KiB", "1MiB", "16MiB"]),
            "limited_transmit": st.booleans(),
            "ecn": st.booleans(),
            "ecn_codepoint": st.sampled_from(["ect0", "ect1"]),
        },
    )


def _app() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"kind": "bulk"}),
        st.builds(lambda b: {"kind": "finite", "bytes": b}, st.integers(1, 300_000)),
        st.builds(
            lambda xs: {"kind": "writes", "sizes": xs},
            st.lists(st.integers(1, 20_000), min_size=1, max_size=5),
        ),
        # Flows with the same number of rounds wait for each other; the others apart (a
        # group's flows must agree on it).
        st.builds(
            lambda b, n: {"kind": "rounds", "bytes": b, "rounds": n, "group": f"g{n}"},
            st.integers(1, 100_000),
            st.integers(1, 6),
        ),
    )


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    duration = draw(st.sampled_from([0.2, 0.5, 1.0, 2.0]))
    n = draw(st.integers(1, 4))
    bottleneck: dict[str, Any] = {
        "rate": draw(st.sampled_from(RATES)),
        "delay": draw(st.sampled_from(DELAYS)),
        "queue": draw(st.sampled_from([2, 10, 100, 1000])),
        "qdisc": draw(st.sampled_from(QDISCS)),
        "forward": draw(_direction()),
    }
    if bottleneck["qdisc"] in AQMS and draw(st.booleans()):
        bottleneck["aqm"] = {"ecn": draw(st.booleans())}
    if draw(st.booleans()):
        bottleneck["reverse"] = draw(_direction())
    flows = []
    for _ in range(n):
        f: dict[str, Any] = {"app": draw(_app())}
        if draw(st.booleans()):
            f["start"] = draw(st.sampled_from([0, 0.01, duration / 2]))
        if draw(st.booleans()):
            f["tcp"] = draw(_tcp())
        if draw(st.integers(0, 3)) == 0:
            times = sorted(draw(st.lists(st.sampled_from([0.05, 0.1, duration / 3]), max_size=3)))
            f["switch"] = [{"at": t, "cc": draw(st.sampled_from(CCS))} for t in times]
        flows.append(f)
    return {
        "name": "fuzz",
        "seed": draw(st.integers(0, 2**32 - 1)),
        "duration": duration,
        "tcp": draw(_tcp()),
        "topology": {"kind": "dumbbell", "bottleneck": bottleneck},
        "flows": flows,
    }


def _sizes() -> st.SearchStrategy[Any]:
    """A poisson pattern's sizes: a named workload or a table rising to 1."""
    table = st.lists(
        st.tuples(st.integers(0, 2_000_000), st.floats(0, 1)), min_size=1, max_size=5
    ).map(
        lambda rows: [
            [b, f]
            for b, f in zip(
                sorted(r[0] for r in rows), [*sorted(r[1] for r in rows)[:-1], 1.0], strict=True
            )
        ]
    )
    return st.one_of(st.sampled_from(["web_search", "hadoop"]), table)


@st.composite
def fabric_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A generated topology (leaf-spine, fat tree, parking lot) with a traffic pattern."""
    kind = draw(st.sampled_from(["leaf_spine", "fat_tree", "parking_lot"]))
    topology: dict[str, Any] = {
        "kind": kind,
        "host_link": {
            "rate": draw(st.sampled_from(RATES[2:])),
            "delay": draw(st.sampled_from(DELAYS)),
            "queue": draw(st.sampled_from([2, 10, 100])),
        },
    }
    if kind == "leaf_spine":
        leaves = draw(st.integers(1, 3))
        topology.update(
            leaves=leaves,
            spines=draw(st.integers(1, 2)),
            # At least two hosts: a pattern over one is refused (tested in test_traffic).
            hosts_per_leaf=draw(st.integers(2 if leaves == 1 else 1, 4)),
        )
    elif kind == "fat_tree":
        topology["k"] = draw(st.sampled_from([2, 4]))
    else:
        topology["hops"] = draw(st.integers(1, 3))
    pattern = draw(st.sampled_from(["permutation", "incast", "all_to_all", "poisson"]))
    traffic: dict[str, Any] = {"pattern": pattern}
    if pattern == "poisson":
        traffic.update(
            load=draw(st.sampled_from([0.05, 0.3, 0.9])),
            sizes=draw(_sizes()),
            flows=draw(st.integers(1, 30)),
        )
    else:
        traffic["app"] = draw(_app())
    if draw(st.booleans()):
        traffic["tcp"] = draw(_tcp())
    # Poisson arrivals need time to arrive in: past the run's end they are refused.
    durations = [1.0, 5.0] if pattern == "poisson" else [0.2, 1.0, 5.0]
    return {
        "name": "fuzz-fabric",
        "seed": draw(st.integers(0, 2**32 - 1)),
        "duration": draw(st.sampled_from(durations)),
        "topology": topology,
        "traffic": traffic,
    }


def _check_run(doc: dict[str, Any]) -> bool:
    """Run `doc`; True if it ran (and held every invariant), False if refused with a path."""
    try:
        r = transim.run(doc)
    except transim.ScenarioError as e:
        assert e.path or "TOML" in str(e) or "JSON" in str(e), f"no field named: {e}"
        return False
    topology = transim.validate(doc)["topology"]
    # A flow is no faster than the narrowest link it may cross: the bottleneck, or in a
    # generated fabric the hosts' links (no wider than the switches').
    rate = topology["bottleneck"]["rate"] if topology.get("bottleneck") else None
    rate = rate or min(_bps(x["rate"]) for x in topology["links"])
    bottleneck = _bps(rate)
    c = r.summary["conservation"]
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    for f in r.flows:
        assert f["goodput_bps"] <= bottleneck * 1.000001, (f["name"], f["goodput_bps"], rate)
    for link in r.links:
        assert link["utilisation"] <= 1.000001, (link["name"], link["utilisation"])
    again = transim.run(copy.deepcopy(doc))
    assert json.dumps(again.summary, sort_keys=True) == json.dumps(r.summary, sort_keys=True)
    return True


def _bps(rate: Any) -> float:
    if isinstance(rate, int | float):
        return float(rate)
    units = {"Gbps": 1e9, "Mbps": 1e6, "kbps": 1e3, "bps": 1.0}
    for u, k in units.items():
        if str(rate).endswith(u):
            return float(str(rate)[: -len(u)]) * k
    raise AssertionError(f"unexpected normalised rate {rate!r}")


RAN: list[bool] = []


@FUZZ
@given(scenarios())
def test_generated_scenarios_run_or_are_refused_with_a_field(doc: dict[str, Any]) -> None:
    RAN.append(_check_run(doc))


@FUZZ
@given(fabric_scenarios())
def test_generated_fabrics_and_traffic_run_or_are_refused_with_a_field(
    doc: dict[str, Any],
) -> None:
    RAN.append(_check_run(doc))


def test_most_generated_scenarios_actually_run() -> None:
    """The generator is not a machine for producing refusals."""
    if not RAN:
        pytest.skip("run with the property above")
    assert sum(RAN) >= 0.6 * len(RAN), f"{sum(RAN)} of {len(RAN)} ran"


JUNK = st.one_of(
    st.just(-1),
    st.just(0),
    st.just(2**64),
    st.just(1e30),
    st.just(float("nan")),
    st.just(float("inf")),
    st.just(""),
    st.just("12 parsecs"),
    st.just([]),
    st.just({}),
    st.just(True),
    st.just(None),
    st.text(max_size=8),
)


def _paths(doc: Any, prefix: list[Any]) -> list[list[Any]]:
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, [*prefix, k])
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, [*prefix, i])
    return out


@FUZZ
@given(st.one_of(scenarios(), fabric_scenarios()), st.data())
def test_malformed_scenarios_get_a_path_naming_error(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    paths = _paths(doc, [])
    where = data.draw(st.sampled_from(paths))
    kind = data.draw(st.sampled_from(["replace", "unknown-key", "delete"]))
    node: Any = doc
    for p in where[:-1]:
        node = node[p]
    last = where[-1]
    if kind == "replace":
        node[last] = data.draw(JUNK)
    elif kind == "unknown-key" and isinstance(node, dict):
        node[f"{last}_typo"] = 1
    elif isinstance(node, dict):
        del node[last]
    else:
        node[last] = data.draw(JUNK)
    # Either refused naming a field, or (the change was harmless) a run that holds.
    _check_run(doc)


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text_is_refused_cleanly(text: str) -> None:
    try:
        transim.validate(text if "\n" in text or "=" in text else text + "\n")
    except transim.ScenarioError:
        pass


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda d: d.__setitem__("flows", -1), "flows"),
        (lambda d: d.__setitem__("trace", 5), "trace"),
        (lambda d: d.pop("duration"), "duration"),
    ],
)
def test_regressions_found_by_fuzzing(edit: Any, path: str) -> None:
    """flows = -1 raised a TypeError in the file-path resolution, trace = 5 one in run()'s
    trace switches, and a missing field had an empty path."""
    doc: dict[str, Any] = {
        "duration": "1s",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "1Mbps", "delay": "1ms"}},
        "flows": [{"app": {"kind": "bulk"}}],
    }
    edit(doc)
    with pytest.raises(transim.ScenarioError) as e:
        transim.run(doc, trace_flows=True)
    assert e.value.path == path, str(e.value)

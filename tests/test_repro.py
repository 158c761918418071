"""Every defect reproduction of issue 16 (copied from shared/repro into tests/repro): fixed,
or refused with an error naming the field. Each case states the defect and checks the fix
against an independent bound (capacity, propagation delay, a stated limit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import transim
from conftest import ROOT

REPRO = ROOT / "tests" / "repro"


def _refused(
    path: Path | dict[str, Any], overrides: list[str] | None = None
) -> transim.ScenarioError:
    with pytest.raises(transim.ScenarioError) as e:
        transim.run(path, overrides=overrides)
    return e.value


def test_tiny_rate_is_refused_not_wrapped() -> None:
    e = _refused(REPRO / "tiny-rate-impossible-goodput.toml")
    assert e.path == "topology.bottleneck.rate" and "1 bit/s" in str(e)


def test_overhead_beyond_what_a_packet_can_carry_is_refused() -> None:
    e = _refused(REPRO / "overhead-wraps.toml")
    assert e.path == "topology.bottleneck.overhead"


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ("tcp.mss=1e30", "tcp.mss"),
        ("tcp.rcv_buf=1e30", "tcp.rcv_buf"),
        ('flows[0].app={kind="finite",bytes=18446744073709551615}', "flows[0].app.bytes"),
        (
            'flows[0].app={kind="writes",sizes=[9223372036854775808,9223372036854775808,100]}',
            "flows[0].app.sizes[0]",
        ),
        ("topology.bottleneck.overhead=4294967296", "topology.bottleneck.overhead"),
    ],
)
def test_sizes_beyond_the_engine_are_refused(override: str, path: str) -> None:
    """size-overflows.sh: each value used to wrap or saturate silently."""
    e = _refused(REPRO / "base.toml", [override])
    assert e.path == path, str(e)


def test_traced_run_too_large_for_memory_is_refused_before_it_starts() -> None:
    e = _refused(REPRO / "crash-413.json")
    assert e.path == "trace" and "trace.max_bytes" in str(e)


def test_switch_after_the_end_is_refused() -> None:
    """hang-2271.json also lists switches after the end of its 1 s run."""
    e = _refused(REPRO / "hang-2271.json")
    assert e.path == "flows[3].switch[2].at"


def test_hang_case_with_its_switches_inside_the_run_completes() -> None:
    """The SACK slowdown itself (per-ACK work O(window)) is measured by bench S1 vs S0; here
    the scenario runs to its end with every invariant."""
    doc = json.loads((REPRO / "hang-2271.json").read_text())
    for f in doc["flows"]:
        for s in f.get("switch", []):
            s["at"] = min(s["at"], 0.09)
        if isinstance(f.get("start"), float) and f["start"] >= 0.1:
            f["start"] = 0.05
    doc["duration"] = 0.1
    r = transim.run(doc)
    assert r.summary["stopped_at"] is None
    for link in r.links:
        assert link["utilisation"] <= 1.0


@pytest.mark.parametrize("name", ["rfc6675-slow.toml", "sack-quadratic-realistic.toml"])
def test_sack_repros_run_within_capacity(name: str) -> None:
    r = transim.run(REPRO / name, overrides=["duration=0.2s"])
    rate = {"rfc6675-slow.toml": 1e9, "sack-quadratic-realistic.toml": 10e9}[name]
    assert sum(f["goodput_bps"] for f in r.flows) <= rate
    assert r.link("r1->r2")["utilisation"] <= 1.0


def test_bbr_with_tahoe_never_stalls_with_cwnd_zero() -> None:
    r = transim.run(REPRO / "bbr-tahoe-cwnd0.toml", trace_flows=True)
    tr = r.flow_trace(0)
    assert tr["cwnd"].min() >= 536  # one segment (MTU 576): packet conservation's floor
    assert r.flow(0)["goodput_bps"] > 600e3


def test_min_rtt_is_never_below_the_propagation_round_trip() -> None:
    r = transim.run(REPRO / "minrtt-below-propagation.toml")
    # 2 × 819 µs on the bottleneck plus the access links' serialisation: at least 1.638 ms.
    assert r.flow(0)["min_rtt"] >= 1.638e-3


def test_throughput_never_exceeds_the_link() -> None:
    r = transim.run(REPRO / "throughput-gt-capacity.toml")
    f = r.flow(0)
    assert f["goodput_bps"] <= 64e3
    assert f.get("throughput_bps", 0) <= 64e3

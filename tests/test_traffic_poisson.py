"""The poisson traffic pattern and completion times by size, end to end: the flows a scenario
file generates offer the load it asks for, and what `transim run` prints of their completion
times is what flows.csv says, recomputed here."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import transim
import transim.scenario
from conftest import ROOT, transim_cli

SCENARIO = ROOT / "scenarios" / "datacenter-fct.toml"

#: The size classes, [from, to) bytes delivered, as the table labels them.
CLASSES = (
    ("under 100 kB", 0, 100_000),
    ("100 kB to 1 MB", 100_000, 1_000_000),
    ("1 MB to 10 MB", 1_000_000, 10_000_000),
    ("10 MB and more", 10_000_000, math.inf),
)


def _bytes(size: str) -> int:
    assert size.endswith("B"), size
    return int(size[:-1])


def _ns(duration: str) -> int:
    """A normalised duration ("13953ns", "68600us", "2ms", "1s") in ns."""
    for unit, ns in (("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)):
        if duration.endswith(unit) and duration[: -len(unit)].isdigit():
            return int(duration[: -len(unit)]) * ns
    raise AssertionError(duration)


def test_the_generated_flows_offer_the_load() -> None:
    """100,000 flows of the web-search workload over 32 hosts at 10 Gbps and half load: the
    bytes they carry over the time they take to arrive are half the hosts' capacity (the
    estimate's relative standard deviation is about 0.7 %: sizes vary 2.2 times their mean,
    over 100,000 flows)."""
    doc = transim.scenario.validate(SCENARIO, ["traffic.flows=100000", "duration=60s"])
    flows = doc["flows"]
    assert len(flows) == 100_000
    starts = [_ns(f["start"]) for f in flows]
    assert starts == sorted(starts)
    total = sum(_bytes(f["app"]["bytes"]) for f in flows)
    # n arrivals of a Poisson process span about n / λ; the mean gap is span / (n - 1).
    span = (starts[-1] - starts[0]) * 1e-9 * len(flows) / (len(flows) - 1)
    offered = total * 8 / span / (32 * 10e9)
    assert abs(offered - 0.5) < 0.025, offered
    # Mean size: the web-search table's 1.71 MB.
    assert abs(total / len(flows) / 1_711_250 - 1) < 0.05
    pairs = {(f["src"], f["dst"]) for f in flows}
    assert all(s != d for s, d in pairs)
    assert len({s for s, _ in pairs}) == 32 and len({d for _, d in pairs}) == 32


def _nearest_rank(times: list[float], p: float) -> float:
    times = sorted(times)
    return times[min(max(math.ceil(p * len(times)), 1), len(times)) - 1]


def test_completion_times_by_size_are_what_the_flows_file_says(tmp_path: Path) -> None:
    from transim.format import fmt_bytes, fmt_rate, fmt_time

    out = tmp_path / "fct"
    p = transim_cli(
        "run", str(SCENARIO), "--set", "traffic.flows=300", "--set", "traffic.load=0.6",
        "--out", str(out),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    with (out / "flows.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 300
    done = [r for r in rows if r["completion_time"]]
    assert f"{len(done):,} of 300 flows completed" in p.stdout
    assert "slowdown median" in p.stdout
    lines = p.stdout.splitlines()
    printed = {}
    for line in lines:
        for label, _, _ in CLASSES:
            if line.startswith(f"  {label}"):
                printed[label] = line[len(label) + 2 :].split()
    expected = {}
    for label, lo, hi in CLASSES:
        rows_in = [r for r in done if lo <= int(r["bytes_delivered"]) < hi]
        times = [float(r["completion_time"]) for r in rows_in]
        if times:
            stats = (sum(times) / len(times), _nearest_rank(times, 0.5), _nearest_rank(times, 0.99))
            # Slowdown: each flow's completion time over its ideal one (every flow here is
            # a TCP transfer, so each has one).
            slow = [
                float(r["completion_time"]) / float(r["ideal_completion_time"]) for r in rows_in
            ]
            assert min(slow) >= 1.0, label
            expected[label] = [
                f"{len(times):,}",
                *(fmt_time(x) for x in stats),
                *(f"{x:.2f}" for x in (_nearest_rank(slow, 0.5), _nearest_rank(slow, 0.99))),
            ]
    assert expected and printed.keys() == expected.keys()
    for label, cols in expected.items():
        # fmt_time's output has a space before the unit.
        assert " ".join(printed[label]) == " ".join(cols), label
    # The aggregate line: what the flows delivered over the run, which the 32 hosts' 10 Gbps
    # can bound (the flows' goodputs summed cannot: each is over its own flow's lifetime,
    # and here they add up to well over the fabric's capacity).
    simulated = json.loads((out / "results.json").read_text())["simulated_time"]
    delivered = sum(int(r["bytes_delivered"]) for r in rows)
    together = next(line for line in lines if line.startswith("all 300 flows:"))
    over_run = delivered * 8 / simulated
    assert f"{fmt_bytes(delivered)} delivered, {fmt_rate(over_run)} over the run" in together
    assert over_run <= 32 * 10e9 < sum(float(r["goodput_bps"]) for r in rows)
    # Every flow sends one finite transfer: those completed delivered all they were given.
    given = transim.scenario.validate(SCENARIO, ["traffic.flows=300", "traffic.load=0.6"])
    sizes = [_bytes(f["app"]["bytes"]) for f in given["flows"]]
    for r, size in zip(rows, sizes, strict=True):
        if r["completion_time"]:
            assert int(r["bytes_delivered"]) == size, r["name"]
    # --all-rows shows every flow and still the completion times by size.
    every = transim_cli(
        "run", str(SCENARIO), "--set", "traffic.flows=300", "--set", "traffic.load=0.6",
        "--out", str(tmp_path / "all"), "--all-rows",
    )  # fmt: skip
    assert every.returncode == 0, every.stderr
    assert "more flows" not in every.stdout
    assert f"{len(done):,} of 300 flows completed" in every.stdout
    # The same through the Python API.
    fct = transim.run(SCENARIO, ["traffic.flows=300", "traffic.load=0.6"]).completion_times()
    assert fct["completed"] == len(done)
    assert [c["label"] for c in fct["classes"]] == list(expected)


def test_a_bad_size_table_is_named_on_the_command_line() -> None:
    p = transim_cli("validate", str(SCENARIO), "--set", "traffic.sizes=websearch")
    assert p.returncode != 0
    assert "traffic.sizes" in p.stderr and '"web_search", "hadoop"' in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    p = transim_cli("validate", str(SCENARIO), "--set", "traffic.senders=3")
    assert p.returncode != 0
    assert "traffic.senders" in p.stderr and "incast" in p.stderr, p.stderr


def test_validate_reports_the_generated_flows_and_the_written_topology() -> None:
    """`transim validate` counts the flows a pattern makes, names the topology as written,
    and with --show prints the normalised scenario with those flows."""
    import json

    p = transim_cli("validate", str(SCENARIO), "--set", "traffic.flows=1234")
    assert p.returncode == 0, p.stderr
    assert "leaf_spine topology, 1234 flows, duration 4s, seed 1" in p.stdout, p.stdout
    p = transim_cli("validate", str(SCENARIO), "--set", "traffic.flows=12", "--show")
    assert p.returncode == 0, p.stderr
    line, shown = p.stdout.split("\n", 1)
    assert "leaf_spine topology, 12 flows" in line
    doc = json.loads(shown)
    assert len(doc["flows"]) == 12 and doc["topology"]["kind"] == "explicit"

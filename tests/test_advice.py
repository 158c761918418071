"""Advice on a valid scenario that probably does not measure what was meant, as the command
line and the Python API give it (the findings themselves are checked against hand-worked
figures in crates/transim-core/tests/advice.rs)."""

from __future__ import annotations

import json
from pathlib import Path

import transim
from conftest import transim_cli

# Linux 2.6's 87,380-byte receive buffer on a 100 Mb/s, 20 ms dumbbell beside a flow with
# the rfc profile's 4 MiB: 16.402 Mb/s at most over the 44.149 ms base round trip, a third of
# its 50 Mb/s share (1,500-byte segments, 52-byte ACKs).
SCENARIO = """
name = "advice"
duration = "1s"
[tcp]
profile = "rfc"
timestamps = true
[topology]
kind = "dumbbell"
access = { rate = "1Gbps", delay = "1ms", queue = 100 }
bottleneck = { rate = "100Mbps", delay = "20ms", queue = 100 }
[[flows]]
app = { kind = "bulk" }
[[flows]]
name = "small-window"
app = { kind = "bulk" }
tcp = { profile = "linux-2.6" }
"""

MESSAGE = (
    "small-window: its window (rcv_buf 87,380 bytes) caps it at 16.402 Mb/s over its base "
    "round-trip time of 44.149 ms, under 90 % of its share of r1->r2 (50.000 Mb/s of "
    "100.000 Mb/s shared by 2 flows); raise tcp.rcv_buf to at least 266,366 bytes"
)


def scenario(tmp_path: Path) -> Path:
    p = tmp_path / "advice.toml"
    p.write_text(SCENARIO, encoding="utf-8")
    return p


def test_run_prints_the_advice_and_keeps_it_in_the_results(tmp_path: Path) -> None:
    p = transim_cli("run", str(scenario(tmp_path)), "--out", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    assert f"warning (window_below_share): {MESSAGE}" in p.stderr
    assert "warning" not in p.stdout
    s = json.loads((tmp_path / "out" / "results.json").read_text())
    assert s["warnings"] == [{"code": "window_below_share", "flows": 1, "message": MESSAGE}]


def test_quiet_run_prints_nothing_but_the_results_keep_the_advice(tmp_path: Path) -> None:
    p = transim_cli("run", str(scenario(tmp_path)), "-q", "--out", str(tmp_path / "out"))
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p.stderr
    s = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [w["code"] for w in s["warnings"]] == ["window_below_share"]


def test_validate_gives_the_same_advice_without_running(tmp_path: Path) -> None:
    p = transim_cli("validate", str(scenario(tmp_path)))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ok: ")
    assert p.stderr.strip() == f"warning (window_below_share): {MESSAGE}"


def test_the_advice_is_asked_for_and_changes_nothing_else(tmp_path: Path) -> None:
    path = scenario(tmp_path)
    plain = transim.run(path)
    advised = transim.run(path, advise=True)
    assert plain.warnings == [] and "warnings" not in plain.summary
    assert advised.warnings == [{"code": "window_below_share", "flows": 1, "message": MESSAGE}]
    rest = {k: v for k, v in advised.summary.items() if k != "warnings"}
    assert rest == plain.summary
    # The fix it names takes the finding away.
    fixed = transim.run(path, overrides=["flows[1].tcp.rcv_buf=266366"], advise=True)
    assert fixed.warnings == []
    assert transim.scenario.check(path)["warnings"] == advised.warnings


def test_the_examples_that_ship_give_no_advice(root: Path) -> None:
    scenarios = sorted((root / "scenarios").glob("**/*.toml"))
    files = [f for f in scenarios if "sweeps" not in f.parts]  # sweeps are not scenarios
    files += sorted((root / "benches").glob("*.toml"))
    assert len(files) >= 20
    for f in files:
        assert transim.scenario.check(f)["warnings"] == [], f

"""Congestion-control choice and mid-session switching from the CLI and from Python."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import transim
from conftest import transim_cli


@pytest.mark.parametrize("name", transim.congestion_controls())
def test_every_cc_runs_on_the_dumbbell_from_the_cli(name: str, tmp_path: Path) -> None:
    p = transim_cli(
        "run", "scenarios/dumbbell.toml", "-q", "--out", str(tmp_path), "--set", f"tcp.cc={name}"
    )
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "results.json").read_text())
    assert {f["cc"] for f in s["flows"]} == {name}
    assert all(f["goodput_bps"] > 1e6 for f in s["flows"])


def test_switching_from_python() -> None:
    sc = transim.scenario.load("scenarios/dumbbell.toml")[0]
    sc["flows"][0]["switch"] = [{"at": "5s", "cc": "cubic"}, {"at": "10s", "cc": "westwood"}]
    r = transim.run(sc, trace_flows=True)
    f = r.flow(0)
    assert f["switches"] == [[5.0, "cubic"], [10.0, "westwood"]]
    assert f["cc"] == "westwood"
    t = r.flow_trace(0)["t"]
    assert 5.0 in t and 10.0 in t  # a trace row marks each switch


def test_switching_from_the_cli(tmp_path: Path) -> None:
    p = transim_cli(
        "run",
        "scenarios/dumbbell.toml",
        "-q",
        "--out",
        str(tmp_path),
        "--set",
        'flows[0].switch=[{at="3s", cc="veno"}]',
    )
    assert p.returncode == 0, p.stderr
    f = json.loads((tmp_path / "results.json").read_text())["flows"][0]
    assert f["switches"] == [[3.0, "veno"]] and f["cc"] == "veno"

"""Shared fixtures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def root() -> Path:
    return ROOT


def transim_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the command line as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "transim.cli", *args], cwd=cwd, capture_output=True, text=True
    )


def swept(tmp: Path, base: Path, header: str, vary: str) -> Any:
    """Run a sweep of ``base`` (``header``: its top-level lines after name and base;
    ``vary``: its ``[vary]`` lines) through the command line on one worker, check that every
    run succeeded, and return its rows (``transim.sweep.load``)."""
    from transim import sweep

    p = tmp / "s.toml"
    p.write_text(f'name = "t"\nbase = "{base}"\n{header}\n[vary]\n{vary}')
    r = transim_cli("sweep", str(p), "--out", str(tmp / "o"), "--workers", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    df = sweep.load(tmp / "o" / "results.sqlite")
    assert (df.status == "ok").all(), df[df.status != "ok"]
    return df


def westwood_map(tmp: Path) -> Path:
    """A decision map of one cell (10 Mbps, 50 ms, 0.1 % loss) whose best variant is
    Westwood+, written into `tmp`."""
    from transim import decision_map as dm

    m = {
        "format": dm.FORMAT,
        "cells": [
            {"env": [1e7, 0.05, 0.001], "best": "westwood",
             "priority": {"reno": 3, "westwood": 1}},
        ],
    }  # fmt: skip
    p = tmp / "m.json"
    p.write_text(json.dumps(m))
    return p


def many_flows(n: int, duration: str = "0.5s", queue: int = 200) -> dict[str, Any]:
    """A dumbbell (100 Mbit/s, 5 ms) with ``n`` bulk flows: a scenario with many records."""
    return {
        "name": "many",
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "100Mbps", "delay": "5ms", "queue": queue},
        },
        "flows": [{"app": {"kind": "bulk"}} for _ in range(n)],
    }

"""Shared fixtures."""

from __future__ import annotations

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

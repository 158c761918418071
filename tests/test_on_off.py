"""An application that pauses (``scenarios/on-off.toml``: a 1 MB segment every 4 s over a
20 Mb/s, 40 ms path), from the command line as the scenario's comments show it: what the
sender's window does while idle decides how fast the next segment comes."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, transim_cli

SCENARIO = str(ROOT / "scenarios" / "on-off.toml")
SEGMENT_BITS = 8e6
RATE = 20e6
RTT = 0.04


def run(tmp_path: Path, *sets: str) -> dict:
    out = tmp_path / "_".join(s.replace("=", "-") for s in sets or ("default",))
    args = [a for s in sets for a in ("--set", s)]
    p = transim_cli("run", SCENARIO, *args, "--out", str(out), "-q")
    assert p.returncode == 0, p.stderr
    flow: dict = json.loads((out / "results.json").read_text())["flows"][0]
    return flow


def test_tcp_restarting_after_idle_fetches_each_segment_slower(tmp_path: Path) -> None:
    """The last segment is written at 16 s. Kept open, the window sends it in about its
    transmission time (0.4 s) plus a round trip; restarted from the initial window (the
    linux-2.6 profile's default), slow start adds several round trips."""
    kept = run(tmp_path, "tcp.slow_start_after_idle=false")["completion_time"] - 16
    restarted = run(tmp_path)["completion_time"] - 16
    assert SEGMENT_BITS / RATE < kept < SEGMENT_BITS / RATE + 3 * RTT, kept
    assert restarted > kept + 3 * RTT, (restarted, kept)


def test_sctp_halves_an_idle_destinations_cwnd_per_rto(tmp_path: Path) -> None:
    """Each pause follows a segment that took less than a second, so it lasts between 3 and 4
    RTOs (RTO.Min, 1 s): three halvings in each of the four pauses."""
    decayed = run(tmp_path, "flows.0.protocol=sctp")
    assert decayed["paths"][0]["idle_decays"] == 12
    assert decayed["messages_delivered"] == 5
    kept = run(tmp_path, "flows.0.protocol=sctp", "sctp.cwnd_after_idle=off")
    assert kept["paths"][0]["idle_decays"] == 0
    assert kept["messages_delivered"] == 5

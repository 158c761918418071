"""An application that pauses (``scenarios/on-off.toml``: a 1 MB segment every 4 s over a
20 Mb/s, 40 ms path), from the command line as the scenario's comments show it: what the
sender's window does while idle decides how fast the next segment comes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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


def test_segment_times_from_hand_made_traces() -> None:
    """TCP: a write is fetched when snd_una passes its last byte (sequence numbers start at
    1). SCTP: when a SACK's cumulative TSN passes its message's last chunk; rows that are not
    SACKs at the sender (event 1, kind 3) do not count."""
    import numpy as np
    from transim.report_on_off import segment_times

    tcp = {
        "t": np.array([0.1, 0.5, 0.9, 4.3]),
        "snd_una": np.array([1, 600_001, 1_000_001, 2_000_001]),
    }
    got = segment_times({"protocol": "tcp"}, tcp, [1_000_000, 1_000_000], [0.0, 4.0])
    assert got == pytest.approx([0.9, 0.3])
    # 3,000 bytes are chunks 1-3 (1452 + 1452 + 96), the next 1,452 chunk 4.
    sctp = {
        "t": np.array([0.2, 0.25, 0.3, 5.1]),
        "event": np.array([1, 0, 1, 1]),
        "kind": np.array([3, 0, 3, 3]),
        "tsn": np.array([2, 9, 3, 4]),
    }
    got = segment_times({"protocol": "sctp", "frag_point": 1452}, sctp, [3000, 1452], [0.0, 1.0])
    assert got == pytest.approx([0.3, 4.1])


def test_the_report_sections_claims_hold() -> None:
    """What the report's on/off section says, from its own runs: the kept TCP window fetches
    a later segment in about its transmission time plus a round trip, the restarted one takes
    longer; SCTP with its cwnd kept overflows the queue; with Max.Burst's clamp kept every
    later segment starts from 4·MTU (6,000 bytes)."""
    import numpy as np
    import transim
    from transim.data import resource
    from transim.report_on_off import AT, SEGMENT, VARIANTS, segment_times

    later: dict[str, float] = {}
    runs = {}
    for label, overrides in VARIANTS:
        r = transim.run(
            resource("scenarios") / "on-off.toml", overrides=overrides, trace_flows=True
        )
        runs[label] = r
        times = segment_times(r.flows[0], r.flow_trace(0), [SEGMENT] * len(AT), AT)
        later[label] = sum(times[1:]) / len(times[1:])
    assert SEGMENT * 8 / RATE < later["TCP, window kept"] < SEGMENT * 8 / RATE + 3 * RTT
    assert later["TCP, restart after idle"] > later["TCP, window kept"] + 3 * RTT
    assert runs["SCTP, cwnd kept"].flows[0]["retransmissions"] > 0
    assert runs["SCTP, halved per idle RTO"].flows[0]["paths"][0]["idle_decays"] == 12
    tr = runs["SCTP, Max.Burst clamp kept"].flow_trace(0)
    t, sent = np.asarray(tr["t"]), (np.asarray(tr["event"]) == 0) & (np.asarray(tr["kind"]) == 0)
    for start in AT[1:]:
        first = np.flatnonzero(sent & (t >= start))[0]
        assert tr["cwnd"][first] == 6000, start

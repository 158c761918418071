"""Barrier-synchronised rounds (``app.kind = "rounds"``) and the incast example: round ends
recomputed from the packet trace, the summary's figures recomputed from results.json, the
published direction of the incast finding, and rounds as sweep metrics."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import transim
from conftest import ROOT, swept, transim_cli
from transim.format import fmt_rate, fmt_time
from transim.rounds import describe

INCAST = ROOT / "python" / "transim" / "scenarios" / "incast.toml"


def _round_ends_from_trace(r: transim.Result, share: int, rounds: int) -> list[float]:
    """Each round's end from the packet trace alone: per flow, replay the data deliveries
    at the receiver, keep the in-order byte count, and note when it first reaches k × share;
    a round ends when its last flow's does."""
    pt = r.packet_trace
    assert pt is not None
    ends: list[list[float]] = []
    for flow in range(len(r.flows)):
        rows = np.flatnonzero(
            (pt["kind"] == 1) & (pt["flow"] == flow) & (pt["from_sender"] == 1) & (pt["len"] > 0)
        )
        got: set[tuple[int, int]] = set()
        nxt, reached = 1, list[float]()
        for i in rows:
            got.add((int(pt["seq"][i]), int(pt["seq"][i]) + int(pt["len"][i])))
            moved = True
            while moved:
                moved = False
                for s, e in list(got):
                    if s <= nxt < e:
                        nxt, moved = e, True
            while len(reached) < rounds and nxt - 1 >= share * (len(reached) + 1):
                reached.append(float(pt["t"][i]))
        ends.append(reached)
    return [max(e[k] for e in ends) for k in range(rounds)]


def test_round_ends_match_the_packet_trace() -> None:
    """Four servers, six rounds, losses at the aggregator's port: every round ends exactly
    when the trace says the last server's share was in order at the aggregator."""
    r = transim.run(
        INCAST,
        ["traffic.senders=4", "traffic.app.rounds=6", "traffic.app.bytes=100KB"],
        trace_packets=True,
    )
    g = r.summary["rounds"][0]
    assert g["flows"] == 4 and g["bytes_per_round"] == 400_000
    assert sum(sum(f["data_drops"].values()) for f in r.flows) > 0, "the port overflows"
    want = _round_ends_from_trace(r, 100_000, 6)
    assert g["completed"] == want


def test_the_printed_rounds_line_is_the_results_recomputed(tmp_path: Path) -> None:
    p = transim_cli("run", str(INCAST), "--set", "traffic.senders=8", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    ends = json.loads((tmp_path / "results.json").read_text())["rounds"][0]["completed"]
    assert len(ends) == 20
    times = [b - a for a, b in itertools.pairwise(ends)]
    goodput = 8 * 256_000 * 8 * 19 / (ends[-1] - ends[0])
    assert "rounds of 8 flows: 20 of 20 ended, 2,048,000 bytes a round" in p.stdout
    line = next(x for x in p.stdout.splitlines() if x.startswith("  after it: goodput"))
    assert f"goodput {fmt_rate(goodput)}" in line
    assert f"longest {fmt_time(max(times))}" in line
    d = describe(
        {"group": None, "flows": 8, "rounds": 20, "bytes_per_round": 2_048_000, "completed": ends}
    )
    assert d["goodput_bps"] == goodput and d["max"] == max(times)


def test_fine_grained_timeouts_undo_the_collapse() -> None:
    """The incast finding in direction (Vasudevan et al., SIGCOMM 2009): with a 200 ms
    minimum RTO sixteen servers get a fraction of what one gets; with 1 ms they keep most
    of the link."""

    def goodput(n: int, rto: str) -> float:
        r = transim.run(
            INCAST, [f"traffic.senders={n}", f"traffic.tcp.rto_min={rto}", "traffic.app.rounds=10"]
        )
        return r.rounds()[0]["goodput_bps"]

    alone = goodput(1, "200ms")
    assert alone > 0.9e9
    assert goodput(16, "200ms") < 0.3 * alone
    assert goodput(16, "1ms") > 0.9 * alone


def test_a_sweep_keeps_the_rounds(tmp_path: Path) -> None:
    df = swept(
        tmp_path,
        INCAST,
        "replications = 1",
        '"traffic.senders" = [4]\n"traffic.tcp.rto_min" = ["200ms", "1ms"]\n'
        '"traffic.app.rounds" = [5]\n',
    )
    assert len(df) == 2
    for _, row in df.iterrows():
        sets = [f"{k[2:]}={row[k]}" for k in df.columns if k.startswith("p.")]
        g = transim.run(INCAST, sets, seed=int(row.seed)).rounds()[0]
        assert row["m.rounds.completed"] == g["completed"] == 5
        assert row["m.rounds.goodput_bps"] == g["goodput_bps"]
        assert row["m.rounds.max"] == g["max"]


def test_the_shipped_incast_sweep_is_the_report_sections_grid() -> None:
    """scenarios/sweeps/incast.toml sweeps the report section's servers for Reno with both
    minimum RTOs, and its runs are the example's with those settings."""
    from transim.report_examples import INCAST_SENDERS
    from transim.sweep.spec import parse

    s = parse(INCAST.parent / "sweeps" / "incast.toml")
    runs = s.runs()
    assert len(runs) == len(INCAST_SENDERS) * 2
    assert sorted({r.params["traffic.senders"] for r in runs}) == list(INCAST_SENDERS)
    one = next(r for r in runs if r.params == {"traffic.senders": 4, "traffic.tcp.rto_min": "1ms"})
    direct = transim.run(INCAST, ["traffic.senders=4", "traffic.tcp.rto_min=1ms"])
    assert transim.run(one.scenario).rounds() == direct.rounds()


def test_rounds_are_refused_with_poisson_arrivals() -> None:
    p = transim_cli(
        "validate",
        str(ROOT / "python" / "transim" / "scenarios" / "datacenter-fct.toml"),
        "--set",
        "traffic.app.rounds=3",
    )
    assert p.returncode == 2
    assert "traffic.app" in p.stderr

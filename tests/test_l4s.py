"""L4S in DualPI2 (``scenarios/l4s-coexistence.toml``), from the command line as the
scenario's comments show it, and the report section's table: the claims the report's text
makes about the dual queue and the two single queues."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, transim_cli
from transim.report_l4s import l4s_section

SCENARIO = str(ROOT / "scenarios" / "l4s-coexistence.toml")


def run(tmp_path: Path, *sets: str) -> dict:
    out = tmp_path / ("_".join(s.replace("=", "-") for s in sets) or "default")
    args = [a for s in sets for a in ("--set", s)]
    p = transim_cli("run", SCENARIO, *args, "--out", str(out), "-q")
    assert p.returncode == 0, p.stderr
    result: dict = json.loads((out / "results.json").read_text())
    return result


def share(result: dict) -> float:
    scalable, classic = (f["goodput_bps"] for f in result["flows"])
    return float(scalable / (scalable + classic))


def bottleneck(result: dict) -> dict:
    return next(ln for ln in result["links"] if ln["name"] == "r1->r2")


@pytest.fixture(scope="module")
def dual(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run(tmp_path_factory.mktemp("l4s"))


def test_each_flow_in_its_own_queue(dual: dict) -> None:
    """DCTCP on ECT(1) goes through the L queue, Reno through the Classic one: each queue
    passed its flow's segments, all but those still on the way at the end (a window at
    most, well under 1 %)."""
    scalable, classic = dual["flows"]
    assert (scalable["cc"], classic["cc"]) == ("dctcp", "reno")
    q = bottleneck(dual)["dual_queue"]
    for passed, flow in ((q["l_packets"], scalable), (q["c_packets"], classic)):
        assert 0.99 * flow["segments_sent"] <= passed <= flow["segments_sent"], (passed, flow)
    assert q["l_marks"] == scalable["ecn"]["ce_received"]


def test_the_summary_shows_each_queue(tmp_path: Path) -> None:
    """`transim run` prints each DualPI2 link's two queues with the figures of its results."""
    p = transim_cli("run", SCENARIO, "--set", "duration=3s", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    q = bottleneck(json.loads((tmp_path / "results.json").read_text()))["dual_queue"]
    lines = p.stdout.splitlines()
    at = lines.index(f"r1->r2 dualpi2 (p' {q['base_prob']:.4f} at the end):")
    assert lines[at + 1].split()[:3] == ["L4S", "queue", f"{q['l_packets']:,}"]
    assert f"{q['l_marks']:,} marked, {q['l_drops']:,} dropped" in lines[at + 1]
    assert lines[at + 2].split()[:2] == ["Classic", f"{q['c_packets']:,}"]
    assert f"{q['c_marks']:,} marked, {q['c_drops']:,} dropped" in lines[at + 2]


def test_dualpi2_keeps_both_alive_at_two_delays(dual: dict) -> None:
    """Neither flow under a fifth of the goodput; the scalable flow's queueing under the
    1 ms step and well under the Classic flow's."""
    assert 0.2 < share(dual) < 0.8, share(dual)
    q = bottleneck(dual)["dual_queue"]
    assert q["l_mean_sojourn"] < 0.001
    assert q["c_mean_sojourn"] > 5 * q["l_mean_sojourn"], q


def test_one_step_marking_queue_gives_the_scalable_flow_nearly_the_link(tmp_path: Path) -> None:
    single = run(tmp_path, "topology.bottleneck.qdisc=step")
    assert share(single) > 0.88, share(single)
    assert "dual_queue" not in bottleneck(single)


def test_the_report_section_tabulates_every_queue_and_classic_flow(tmp_path: Path) -> None:
    text = l4s_section(tmp_path, "quick")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and " ms |" in ln]
    assert len(rows) == 6
    assert {r.split(" | ")[1] for r in rows} == {"Reno", "CUBIC"}
    cells = [r.strip(" |").split(" | ") for r in rows]
    for c in cells:
        scalable_ms, classic_ms = (float(x.split()[0]) for x in c[-2:])
        share = float(c[4].split()[0].rstrip("%")) / 100  # "39% (32%–51%)": the mean
        if c[0] == "DualPI2":
            # Neither starves; the scalable flow queues under the 1 ms step.
            assert 0.15 < share < 0.85 and scalable_ms < 1 < classic_ms, c
        else:
            # One queue: the same delay for both, and the scalable flow takes nearly all.
            assert scalable_ms == classic_ms and share > 0.85, c
            if "PIE" in c[0]:
                assert 10 < scalable_ms < 20, c  # near PIE's 15 ms target
    assert (tmp_path / "l4s.png").stat().st_size > 1000
    assert (tmp_path / "dualpi2-reno" / "results.json").exists()

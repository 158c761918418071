"""Packet spraying against per-flow ECMP (``scenarios/spraying.toml``: four bulk flows from
one leaf to another over four spines), from the command line as the scenario's comments show
it, and the report section's table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, transim_cli
from transim.report_spraying import jain, spraying_section

SCENARIO = str(ROOT / "scenarios" / "spraying.toml")


def run(tmp_path: Path, *sets: str) -> list[dict]:
    sets = (*sets, "duration=0.25s")
    out = tmp_path / "_".join(s.replace("=", "-") for s in sets)
    args = [a for s in sets for a in ("--set", s)]
    p = transim_cli("run", SCENARIO, *args, "--out", str(out), "-q")
    assert p.returncode == 0, p.stderr
    result = json.loads((out / "results.json").read_text())
    dropped = sum(sum(ln["drops"].values()) for ln in result["links"])
    assert dropped == 0, f"{sets}: nothing is dropped, so every retransmission is spurious"
    flows: list[dict] = result["flows"]
    return flows


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    tmp = tmp_path_factory.mktemp("spraying")
    return {
        "flow": run(tmp),
        "sprayed": run(tmp, "topology.ecmp=packet"),
        "rack": run(tmp, "topology.ecmp=packet", "tcp.recovery=rack-tlp"),
    }


def goodputs(flows: list[dict]) -> list[float]:
    return [f["goodput_bps"] for f in flows]


def test_per_flow_ecmp_puts_two_pairs_of_flows_on_shared_spines(
    runs: dict[str, list[dict]],
) -> None:
    """Two flows each have a spine to themselves; the other two share one, half each."""
    g = sorted(goodputs(runs["flow"]))
    alone = g[3]
    assert g[2] == pytest.approx(alone, rel=0.01)
    assert g[0] == pytest.approx(alone / 2, rel=0.02), g
    assert g[1] == pytest.approx(alone / 2, rel=0.02), g
    assert all(f["retransmissions"] == 0 for f in runs["flow"])


def test_spraying_with_dupthresh_retransmits_what_was_never_lost(
    runs: dict[str, list[dict]],
) -> None:
    """Evenly loaded, but reordered: every retransmission is answered by a D-SACK, and the
    halved windows leave the four flows slower in total than the colliding ones."""
    flows = runs["sprayed"]
    rtx = sum(f["retransmissions"] for f in flows)
    assert rtx > 1000
    assert sum(f["dsacks_received"] for f in flows) == rtx
    assert jain(goodputs(flows)) > 0.99
    assert sum(goodputs(flows)) < sum(goodputs(runs["flow"]))


def test_rack_tlp_rides_out_the_reordering_and_takes_the_fabric(
    runs: dict[str, list[dict]],
) -> None:
    """Each sprayed RACK-TLP flow runs within 5 % of a flow alone on its spine, with at most
    a fifth of RFC 6675's spurious retransmissions (its reordering window grows with each
    D-SACK; a few still come before the window has grown)."""
    alone = max(goodputs(runs["flow"]))
    assert all(g > 0.95 * alone for g in goodputs(runs["rack"])), goodputs(runs["rack"])
    rack_rtx = sum(f["retransmissions"] for f in runs["rack"])
    assert 5 * rack_rtx < sum(f["retransmissions"] for f in runs["sprayed"])


def test_jains_index() -> None:
    assert jain([3.0, 3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert jain([4.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain([1.0, 2.0]) == pytest.approx(9 / 10)
    assert jain([0.0, 0.0]) == 0.0


def test_report_section_tabulates_the_three_runs(tmp_path: Path) -> None:
    text = spraying_section(tmp_path, "quick")
    rows = [r for r in text.splitlines() if r.startswith("| ECMP") or r.startswith("| Sprayed")]
    assert len(rows) == 3, text
    # No run drops a packet: the last column is 0 in every row.
    assert all(r.rstrip(" |").endswith("| 0") for r in rows), rows
    assert (tmp_path / "goodput.png").stat().st_size > 1000


def test_spraying_is_refused_where_links_carry_atm_cells() -> None:
    atm = str(ROOT / "scenarios" / "studies" / "atm" / "bottleneck.toml")
    p = transim_cli("validate", atm, "--set", "topology.ecmp=packet")
    assert p.returncode != 0
    assert "topology.ecmp" in p.stderr and "carries ATM cells" in p.stderr, p.stderr
    assert "use true (per flow) or false" in p.stderr
    assert transim_cli("validate", atm, "--set", "topology.ecmp=true").returncode == 0


def test_the_summary_says_over_how_many_flows_the_slowdown_is() -> None:
    """Sprayed cross-fabric transfers have no ideal completion time, so a class's slowdown
    covers only some of its flows, and the table says how many."""
    from transim.summary_table import _completion_times

    every: dict[str, Any] = {
        "completed": 5,
        "fct": [
            {
                "label": "under 100 kB",
                "flows": 3,
                "mean": 1e-4,
                "median": 1e-4,
                "p99": 2e-4,
                "slowdown_mean": 2.0,
                "slowdown_median": 2.0,
                "slowdown_p99": 3.0,
                "slowdown_flows": 1,
            },
            {
                "label": "10 MB and more",
                "flows": 2,
                "mean": 0.1,
                "median": 0.1,
                "p99": 0.2,
                "slowdown_mean": None,
                "slowdown_median": None,
                "slowdown_p99": None,
                "slowdown_flows": 0,
            },
        ],
    }
    lines = _completion_times(every, 5)
    assert lines[-1].strip().startswith("slowdown over the 1 of 5 flows with an ideal"), lines
    every["fct"][0]["slowdown_flows"] = 3
    every["fct"][1].update(slowdown_median=4.0, slowdown_p99=5.0, slowdown_flows=2)
    assert not any("slowdown over the" in ln for ln in _completion_times(every, 5))

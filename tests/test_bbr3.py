"""BBR v1 and BBR v3 beside CUBIC (``scenarios/bbr-coexistence.toml``), from the command line
as the scenario's comments show it, and the report section's table: the claims the report's
text makes about the shallow and the deep buffer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, transim_cli
from transim.report_bbr import bbr_section

SCENARIO = str(ROOT / "scenarios" / "bbr-coexistence.toml")


def run(tmp_path: Path, *sets: str) -> dict:
    sets = (*sets, "duration=10s")
    out = tmp_path / "_".join(s.replace("=", "-") for s in sets)
    args = [a for s in sets for a in ("--set", s)]
    p = transim_cli("run", SCENARIO, *args, "--out", str(out), "-q")
    assert p.returncode == 0, p.stderr
    result: dict = json.loads((out / "results.json").read_text())
    return result


def share_and_drops(result: dict) -> tuple[float, int]:
    mine, cubic = (f["goodput_bps"] for f in result["flows"])
    return mine / (mine + cubic), sum(sum(ln["drops"].values()) for ln in result["links"])


@pytest.fixture(scope="module")
def shallow(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("bbr")
    return {"bbr3": run(tmp), "bbr": run(tmp, "tcp.cc=bbr"), "cubic": run(tmp, "tcp.cc=cubic")}


def test_the_scenario_runs_bbr_v3_beside_cubic(shallow: dict[str, dict]) -> None:
    flows = shallow["bbr3"]["flows"]
    assert [f["cc"] for f in flows] == ["bbr3", "cubic"]
    assert flows[0]["cc_model"]["state"].startswith("probe_")


def test_bbr_v1_takes_the_shallow_buffer_and_keeps_it_overflowing(
    shallow: dict[str, dict],
) -> None:
    """v1 leaves CUBIC under a tenth of the link and drops over ten times what two CUBIC
    flows drop."""
    share, drops = share_and_drops(shallow["bbr"])
    assert share > 0.9, share
    assert drops > 10 * share_and_drops(shallow["cubic"])[1]


def test_bbr_v3_shares_the_shallow_buffer_and_drops_a_fifth_of_v1s(
    shallow: dict[str, dict],
) -> None:
    share, drops = share_and_drops(shallow["bbr3"])
    assert 0.4 < share < 0.6, share
    assert 5 * drops < share_and_drops(shallow["bbr"])[1]


def test_in_a_deep_buffer_cubic_takes_the_larger_part_from_both(tmp_path: Path) -> None:
    for cc in ("bbr", "bbr3"):
        share, _ = share_and_drops(run(tmp_path, f"tcp.cc={cc}", "topology.bottleneck.queue=1333"))
        assert share < 0.5, (cc, share)


def test_the_report_section_tabulates_every_buffer_and_algorithm(tmp_path: Path) -> None:
    text = bbr_section(tmp_path, "quick")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "BDP" in ln]
    assert len(rows) == 9
    assert {r.split(" | ")[1] for r in rows} == {"BBR v1", "BBR v3", "CUBIC"}
    assert (tmp_path / "shares.png").stat().st_size > 1000
    assert (tmp_path / "bbr-v3-01-bdp" / "results.json").exists()

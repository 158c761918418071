"""Study 3 (the adaptive framework) at the quick scale, the decision map's statistics, and
cc = "adaptive" in a scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import transim
from conftest import westwood_map
from scipy import stats
from transim import decision_map as dm
from transim import sweep
from transim.studies import adaptive


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("adaptive")
    return out, adaptive.reproduce(out, "quick")


def test_outputs_and_findings(study: tuple[Path, str]) -> None:
    out, text = study
    for name in ("report.md", "map.json", "map.png", "normalized.png", "results.sqlite"):
        assert (out / name).stat().st_size > 500, name
    for heading in ("decision map", "example environments", "Random environments", "every variant"):
        assert heading in text
    found = json.loads((out / "findings.json").read_text())
    assert len(found) == 4
    m = dm.read(out / "map.json")
    assert len(m["cells"]) == 27 and m["variants"] == ["cubic", "reno", "veno", "westwood"]
    assert m["provenance"]["runs"] == 27 * 4 * 4
    for c in m["cells"]:
        assert c["priority"][c["best"]] == 1
        assert sorted(c["priority"].values())[0] == 1
    # The map over every variant has the study's four too, though their runs are stored
    # under the first map (it once left them out, and named only the other 15).
    every = dm.read(out / "beyond.json")
    assert every["variants"] == sorted(transim.congestion_controls())
    assert f"all {len(every['variants'])} congestion controls" in text


def test_rerun_resumes_from_the_store(study: tuple[Path, str]) -> None:
    out, _ = study
    before = sweep.Store(out / "results.sqlite").count()
    adaptive.reproduce(out, "quick")
    assert sweep.Store(out / "results.sqlite").count() == before


def test_welch_against_the_paper_example_and_scipy() -> None:
    # The study's worked example: means 2179.4 / 2054.7, s 353.07 / 34.44, n = 100 each.
    t, df, p = dm.welch(2179.4, 353.07, 100, 2054.7, 34.44, 100)
    assert t == pytest.approx(3.52, abs=0.005)
    assert df == pytest.approx(100.9, abs=0.1)
    ref = stats.ttest_ind_from_stats(2179.4, 353.07, 100, 2054.7, 34.44, 100, equal_var=False)
    assert p == pytest.approx(ref.pvalue)


def test_priorities_follow_the_rule() -> None:
    cell = dm.priorities(
        {"a": [10.0, 11, 9, 10, 10], "b": [9.9, 10.2, 9.8, 10.1, 10.0], "c": [5.0, 5.1, 4.9, 5, 5]},
        0.05,
    )
    assert cell["best"] == "a"
    assert cell["priority"] == {"a": 1, "b": 2, "c": 3}


def test_adaptive_switches_from_reno_once_it_has_estimated_the_path(tmp_path: Path) -> None:
    doc = adaptive.env_doc(adaptive.load(), 10, 50, 0.1)
    doc["tcp"]["cc"] = "adaptive"
    doc["tcp"]["adaptive"] = {"map": str(westwood_map(tmp_path)), "interval": "1s"}
    f = transim.run(doc).flow(0)
    assert f["cc"] == "westwood"
    [(t, cc)] = f["switches"]
    assert cc == "westwood" and t >= 1.0
    first = next(d for d in f["adaptive"] if d["to"])
    bw, delay, loss = first["estimate"]
    assert bw == pytest.approx(10e6, rel=0.05)  # TCP-Probe on an idle path
    assert delay == pytest.approx(0.05, rel=0.05)  # half the minimum RTT
    doc["tcp"]["adaptive"]["oracle"] = True
    f = transim.run(doc).flow(0)
    assert f["switches"][0] == [0.0, "westwood"]
    assert f["adaptive"][0]["estimate"][2] == pytest.approx(0.001)


def test_adaptive_errors_name_the_field(tmp_path: Path) -> None:
    doc = adaptive.load()
    doc["tcp"]["cc"] = "adaptive"
    with pytest.raises(transim.ScenarioError) as e:
        transim.validate(doc)
    assert e.value.path == "tcp.adaptive.map"
    doc["tcp"]["adaptive"] = {"map": str(tmp_path / "none.json")}
    with pytest.raises(transim.ScenarioError, match="cannot read"):
        transim.validate(doc)
    bad = tmp_path / "bad.json"
    bad.write_text('{"cells": [{"env": [1, 2], "best": "reno", "priority": {}}]}')
    doc["tcp"]["adaptive"] = {"map": str(bad)}
    with pytest.raises(transim.ScenarioError, match=r"cells\[0\]\.env"):
        transim.validate(doc)
    doc["tcp"]["cc"] = "reno"
    doc["tcp"]["adaptive"] = {"map": str(westwood_map(tmp_path))}
    with pytest.raises(transim.ScenarioError) as e:
        transim.validate(doc)
    assert e.value.path == "tcp.adaptive"


def test_a_relative_map_path_is_relative_to_the_scenario_file(tmp_path: Path) -> None:
    westwood_map(tmp_path)
    scen = tmp_path / "s.toml"
    base = adaptive.SCENARIO.read_text()
    scen.write_text(base.replace('cc = "reno"', 'cc = "adaptive"\nadaptive = { map = "m.json" }'))
    r = transim.run(scen, overrides=["duration=3s"])
    assert r.flow(0)["adaptive"] is not None

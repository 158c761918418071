"""What a sweep keeps of each run is read from the summary cut down to the fields its
metrics use (``_core.summary_slim``): the same figures as from the whole summary, for runs
with rounds, TCP variant switches, SCTP associations and ATM circuits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, westwood_map
from transim import _core
from transim.scenario import prepare, to_json
from transim.studies import adaptive
from transim.sweep.execute import metrics, run_batch

SCENARIOS = ROOT / "scenarios"


def _switching(tmp: Path) -> dict[str, Any]:
    """One flow that switches from Reno to Westwood+ once it has estimated its path."""
    m = westwood_map(tmp)
    doc = adaptive.env_doc(adaptive.load(), 10, 50, 0.1)
    doc["tcp"]["cc"] = "adaptive"
    doc["tcp"]["adaptive"] = {"map": str(m), "interval": "1s"}
    doc["duration"] = "5s"
    return doc


def _docs(tmp: Path) -> dict[str, dict[str, Any]]:
    def file(path: Path, *sets: str) -> dict[str, Any]:
        return prepare(path, list(sets))[0]

    return {
        "dumbbell": file(SCENARIOS / "dumbbell.toml", "duration=3s"),
        "incast (rounds)": file(SCENARIOS / "incast.toml", "duration=0.3s"),
        "adaptive (switches)": _switching(tmp),
        "sctp": file(SCENARIOS / "studies" / "sctp" / "testbed.toml"),
        "atm": file(SCENARIOS / "studies" / "atm" / "bottleneck.toml", "duration=0.2s"),
    }


def _job(doc: dict[str, Any], keep: bool) -> dict[str, Any]:
    return {"key": "k", "sweep": "s", "params": {}, "replication": 0, "seed": 1,
            "scenario": to_json(doc), "keep_summary": keep}  # fmt: skip


@pytest.mark.parametrize(
    "name", ["dumbbell", "incast (rounds)", "adaptive (switches)", "sctp", "atm"]
)
def test_a_run_s_metrics_are_the_same_from_the_cut_summary(tmp_path: Path, name: str) -> None:
    doc = _docs(tmp_path)[name]
    [whole] = run_batch([_job(doc, True)])
    [cut] = run_batch([_job(doc, False)])
    assert whole["status"] == cut["status"] == "ok", (whole.get("error"), cut.get("error"))
    assert "summary" not in cut
    assert cut["metrics"] == whole["metrics"]
    # ... which are the whole summary's metrics (and its completion times).
    assert whole["metrics"].items() >= metrics(whole["summary"]).items()
    if name == "adaptive (switches)":
        assert cut["metrics"]["switches"] == [1] and cut["metrics"]["final_cc"] == ["westwood"]
    if name == "incast (rounds)":
        assert any(k.startswith("rounds.") for k in cut["metrics"])


def test_the_cut_summary_refuses_what_is_not_one() -> None:
    with pytest.raises(ValueError, match="not a run's summary"):
        _core.summary_slim('{"flows": 3, "links": []}', ["goodput_bps"], [])
    with pytest.raises(TypeError):
        _core.summary_slim(3, [], [])  # type: ignore[arg-type]  # what is checked


def test_aggregate_goodput_is_the_data_over_the_time_the_flows_were_active() -> None:
    """Two flows that each had a 10 Mb/s link to themselves for half a 10-s run: their
    goodputs, each over its own active time, sum to 20 Mb/s; their aggregate is 10."""
    half = 10e6 * 5 / 8
    flows = [
        {"start": s, "active_time": 5.0, "bytes_delivered": half, "goodput_bps": 10e6, "drops": {}}
        for s in (0.0, 5.0)
    ]
    m = metrics({"flows": flows, "links": [], "events": 0, "simulated_time": 10.0})
    assert m["goodput_bps"] == 20e6
    assert m["aggregate_goodput_bps"] == pytest.approx(10e6)


def test_the_dumbbells_aggregate_stays_within_its_bottleneck() -> None:
    """The shipped dumbbell (10 Mb/s, the second flow from 2 s): all the data over 30 s."""
    doc = prepare(SCENARIOS / "dumbbell.toml", [])[0]
    [row] = run_batch([_job(doc, True)])
    flows = row["summary"]["flows"]
    data = sum(f["bytes_delivered"] for f in flows) * 8
    assert row["metrics"]["aggregate_goodput_bps"] == pytest.approx(data / 30.0)
    assert row["metrics"]["aggregate_goodput_bps"] <= 10e6

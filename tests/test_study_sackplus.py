"""Study 4 reproduced at the quick scale: its findings, its outputs, and resumption."""

from __future__ import annotations

from pathlib import Path

import pytest
from transim.studies import sackplus
from transim.studies.runner import RunStore


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("sackplus")
    return out, sackplus.reproduce(out, "quick")


def test_outputs_written(study: tuple[Path, str]) -> None:
    out, text = study
    for name in ("report.md", "forced_drop.png", "recovery_probability.png", "runs.sqlite"):
        assert (out / name).stat().st_size > 500, name
    for heading in ("Forced drop", "Table 1", "Gilbert", "Loss-recovery probability", "Fairness"):
        assert heading in text


def test_forced_drop_findings(study: tuple[Path, str]) -> None:
    out, _ = study
    _, facts = sackplus.forced_drop(out / "again")
    assert facts["sack1"]["timeouts"] == 1 and facts["sackplus"]["timeouts"] == 0
    assert facts["sackplus"]["completion"] < facts["sack1"]["completion"] - 0.5
    assert facts["sackplus"]["mean_cwnd"] > facts["sack1"]["mean_cwnd"]


def test_sackplus_has_fewer_timeouts_wherever_sack1_has_any(study: tuple[Path, str]) -> None:
    out, _ = study
    store = RunStore.open(out / "runs.sqlite")
    jobs = sackplus.loss_jobs("bernoulli", tuple(sorted(sackplus.PAPER_TABLE1)), 100_000, 1.0)
    from transim.studies.runner import scenario_key

    by = {}
    for j in jobs:
        c = sackplus.counts(store.rows[scenario_key(j.scenario)]["summary"])
        by[(j.label["rate"], j.label["variant"])] = c
    rates = sorted({r for r, _ in by})
    for rate in rates:
        s1, sp = by[(rate, "sack1")], by[(rate, "sackplus")]
        assert s1["N_D"] == sp["N_D"] or abs(s1["N_D"] - sp["N_D"]) < 0.01 * s1["N_D"]
        if s1["N_TO"] > 0:
            assert sp["N_TO"] < s1["N_TO"], rate
        assert sp["N_R"] >= s1["N_R"], rate
    # Recovery falls as loss grows (first vs last rate).
    first, last = by[(rates[0], "sack1")], by[(rates[-1], "sack1")]
    assert last["N_R"] / last["N_D"] < first["N_R"] / first["N_D"]


def test_rerun_resumes_from_the_store(study: tuple[Path, str]) -> None:
    out, _ = study
    before = len(RunStore.open(out / "runs.sqlite"))
    sackplus.reproduce(out, "quick")
    after = len(RunStore.open(out / "runs.sqlite"))
    assert after == before, "finished runs are reused, not run again"


def test_truncated_store_line_is_ignored(tmp_path: Path) -> None:
    p = tmp_path / "runs.jsonl"
    p.write_text('{"key": "a", "label": {}, "summary": {}}\n{"key": "b", "lab')
    assert list(RunStore.open(p).rows) == ["a"]


def test_run_store_survives_a_damaged_file(tmp_path: Path) -> None:
    """A crash can leave a half-written last line (and a file can get foreign bytes): the
    store skips such lines with a warning and appends the next record on a line of its own."""
    from transim.studies.runner import RunStore

    path = tmp_path / "runs.jsonl"
    good = '{"key": "a", "label": {}, "summary": {"x": 1}}\n'
    path.write_bytes(good.encode() + b"\xff\xfe not utf-8\n" + b'{"key": "b", "lab')
    store = RunStore.open(path)
    assert set(store.rows) == {"a"}
    store.add("c", {}, {"x": 3})
    again = RunStore.open(path)
    assert set(again.rows) == {"a", "c"}

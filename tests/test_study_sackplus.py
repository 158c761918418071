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
    # Both readings of SackPlus's detection rule, and the grid over the chain's parameters.
    assert "sackplus-once N_TO" in text and "3b. Sensitivity" in text
    grid = text[text.index("3b. Sensitivity") :].split("\n\n")[2]
    assert (
        len([row for row in grid.splitlines() if row.startswith("| 0.") or row.startswith("| 1 ")])
        == 60
    )


def test_beyond_the_paper_compares_five_recoveries(study: tuple[Path, str]) -> None:
    """Section 6: every variant on every loss row, and the RFC 8985 property that matters
    under bursty loss: RACK-TLP finds lost retransmissions (RFC 6675 cannot, it waits for
    the timer), so it has fewer timeouts than RFC 6675 wherever timeouts happen."""
    out, text = study
    assert (out / "recovery_variants.png").stat().st_size > 500
    section = text[text.index("6. Beyond the paper") :]
    rows = [
        r for r in section.splitlines() if r.startswith("| random") or r.startswith("| Gilbert")
    ]
    assert len(rows) == len(sackplus.BEYOND_RANDOM) + len(sackplus.BEYOND_GILBERT)
    head = next(r for r in section.splitlines() if r.startswith("| loss | rate"))
    assert head.split("|")[3:-1] == [f" {v} " for v in sackplus.BEYOND_VARIANTS]
    for row in rows:
        cells = [c.strip() for c in row.split("|")[3:-1]]
        timeouts = {
            v: int(c.split(" · ")[0]) for v, c in zip(sackplus.BEYOND_VARIANTS, cells, strict=True)
        }
        if row.startswith("| Gilbert"):
            assert timeouts["rack-tlp"] < timeouts["rfc6675"], row
            found = int(cells[-1].rsplit("[", 1)[1].rstrip("]"))
            assert found > 0, row


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

"""The main job and the benchmark command produce their outputs (no timing assertions)."""

from __future__ import annotations

from pathlib import Path

from conftest import transim_cli


def test_report_writes_every_section(tmp_path: Path) -> None:
    p = transim_cli("report", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "report.md").read_text()
    assert "Sections finished: 8 of 8" in text
    for heading in ("Two flows through one bottleneck", "Tahoe, Reno and NewReno"):
        assert heading in text
    for img in ("dumbbell/cwnd.png", "forced-drops/newreno/sequence.png"):
        assert (tmp_path / img).stat().st_size > 1000


def test_bench_prints_the_table_for_b1() -> None:
    p = transim_cli("bench", "--only", "B1", "--repeat", "1")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["bench", "goodput", "ns-3"]
    row = lines[-1].split()
    assert row[0] == "B1"
    assert "x" in p.stdout  # the speed-up column


def test_bench_rejects_unknown_names() -> None:
    p = transim_cli("bench", "--only", "B9")
    assert p.returncode == 2 and "unknown benchmark" in p.stderr

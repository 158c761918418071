"""The benchmark command produces its table (no timing assertions)."""

from __future__ import annotations

from conftest import transim_cli


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

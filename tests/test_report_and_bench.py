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
    # The speed-up over ns-3 with _core.run's wall, then with the simulation alone (as
    # ns-3's figures time Simulator::Run alone): the run is part of the wall, so never less.
    assert "run-only" in lines[0].split()
    speedup, run_only = [float(t[:-1]) for t in row if t.endswith("x")][:2]
    assert 0 < speedup <= run_only


def test_bench_rejects_unknown_names() -> None:
    p = transim_cli("bench", "--only", "B9")
    assert p.returncode == 2 and "unknown benchmark" in p.stderr


def test_bench_sack_pair_reports_s1_against_s0() -> None:
    """S0 and S1 deliver the same kind of load; the table gives S1's cost relative to S0's."""
    p = transim_cli("bench", "--only", "S0,S1", "--repeat", "1")
    assert p.returncode == 0, p.stderr
    rows = {line.split()[0]: line.split() for line in p.stdout.strip().splitlines()[2:]}
    assert set(rows) == {"S0", "S1"}
    assert rows["S0"][-1] == "1.00x"
    assert rows["S1"][-1].endswith("x")
    # Both runs move hundreds of thousands of packets (the scoreboard is exercised).
    assert int(rows["S1"][3].replace(",", "")) > 300_000

"""The benchmark command produces its table (no timing assertions)."""

from __future__ import annotations

from typing import Any

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


def _scale_row(label: str, run_ns: float, hop_ns: float = 80.0, flows: int = 1) -> dict[str, Any]:
    """A row as bench.run_scale builds it: run ns per packet `run_ns`, the wall 1.5 times
    that."""
    return {
        "label": label,
        "flows": flows,
        "packets": 1000,
        "hops": 5000,
        "wall": 1.0,
        "ns_per_packet": run_ns * 1.5,
        "ns_per_hop": hop_ns,
        "events_per_packet": 4.5,
        "peak_rss_mb": 30.0,
        "run_ns_per_packet": run_ns,
    }


def test_scale_table_states_both_ratios_against_their_targets() -> None:
    """B4's 10,000-flow run against one flow, and B5's hop against B1's, each beside its
    target (rows as run_scale builds them; figures chosen so the ratios are exact)."""
    from transim.bench import render_scale

    rows = [
        _scale_row("B4 1 flows", 100.0, 20.0),
        _scale_row("B4 10,000 flows", 175.0, 40.0),
        _scale_row("B5 fat tree k=16", 900.0, 90.0),
    ]
    text = render_scale(rows, [{"name": "B1", "ns_per_hop": 36.0}])
    assert "B4 10,000 flows / 1 flow, run ns per packet: 1.75x (target <= 1.5x)" in text
    assert "B5 per packet-hop / B1 per packet-hop: 2.50x (target <= 2x)" in text
    # Without the one-flow run there is nothing to compare the 10,000 flows with.
    assert "B4 10,000 flows /" not in render_scale(rows[1:], [])
    # Paired rounds: the median of each round's own ratio (here 1.6, 1.7 and 2.0), not the
    # ratio of the medians.
    rows[1]["run_ratios"] = [2.0, 1.6, 1.7]
    text = render_scale(rows, [])
    assert (
        "B4 10,000 flows / 1 flow, run ns per packet: 1.70x "
        "(median of 3 rounds' own ratios, 1.60-2.00) (target <= 1.5x)"
    ) in text
    assert "   1.70x" in next(line for line in text.splitlines() if line.startswith("B4 10,000"))
    # B5 against the B1 run beside it in each round: the median of those ratios (2.6), not
    # the medians' ratio (90 / 36), and with or without B1's own row in the table.
    rows[2]["hop_ratios"] = [3.0, 2.4, 2.6]
    for ip_rows in ([{"name": "B1", "ns_per_hop": 36.0}], []):
        assert (
            "B5 per packet-hop / B1 per packet-hop: 2.60x "
            "(median of 3 rounds' own ratios, 2.40-3.00) (target <= 2x)"
        ) in render_scale(rows, ip_rows)


def test_b4a_gives_every_flow_data_where_b4_starves_most() -> None:
    """B4 starts every flow at once behind a 2,000-packet queue: the SYNs beyond the queue are
    lost, and most flows never deliver data in the run. B4A's queue of 16 packets per flow
    lets every one of them through, on the same packet budget."""
    import transim
    from transim.bench import b4_scenario, b4a_scenario

    def with_data(doc: dict) -> tuple[int, int]:
        flows = transim.run(doc).flows
        return sum(f["data_packets_delivered"] > 0 for f in flows), len(flows)

    active, n = with_data(b4a_scenario(3000, 300_000))
    assert active == n == 3000
    starved, n = with_data(b4_scenario(3000, 300_000))
    assert n == 3000 and starved < 2000  # no more flows than the queue took SYNs at first


def test_b4a_rows_are_against_their_own_one_flow() -> None:
    """B4A's rows beside B4's: each against its own one-flow run, and the column of flows
    that delivered data, which the B4 ratio line repeats."""
    from transim.bench import render_scale

    rows = [
        _scale_row("B4 1 flows", 100.0),
        _scale_row("B4 10,000 flows", 160.0),
        _scale_row("B4A 1 flows", 200.0),
        _scale_row("B4A 10,000 flows", 700.0),
    ]
    for r, n in zip(rows, (1, 949, 1, 10_000), strict=True):
        r["with_data"] = n
    text = render_scale(rows, [])
    assert (
        "B4 10,000 flows / 1 flow, run ns per packet: 1.60x (target <= 1.5x); "
        "949 of its flows delivered data"
    ) in text
    assert "B4A 10,000 flows / 1 flow, run ns per packet: 3.50x (every flow" in text
    line = next(x for x in text.splitlines() if x.startswith("B4A 10,000"))
    assert line.split()[3] == "10,000" and line.endswith("   3.50x")
    line = next(x for x in text.splitlines() if x.startswith("B4 10,000"))
    assert line.split()[3] == "949" and line.endswith("   1.60x")


def test_b6_rows_are_against_its_first_count() -> None:
    """B6's ratios are to its 2,000-flow run, also beside B4's rows; its scenario makes the
    flows it names."""
    from transim.bench import b6_scenario, render_scale
    from transim.scenario import check

    rows = [
        _scale_row("B4 1 flows", 100.0, flows=1),
        _scale_row("B6 2,000 flows", 400.0, flows=2000),
        _scale_row("B6 20,000 flows", 440.0, flows=20000),
        _scale_row("B6 200,000 flows", 500.0, flows=200000),
    ]
    text = render_scale(rows, [])
    assert (
        "B6 run ns per packet against 2,000 flows: 20,000 flows 1.10x, "
        "200,000 flows 1.25x (flat is 1x)"
    ) in text
    line = next(x for x in text.splitlines() if x.startswith("B6 20,000"))
    assert line.endswith("1.10x") and "   1.10x" in line  # not against B4's one flow (4.4x)
    c = check(b6_scenario(2000))
    assert c["flows"] == 2000 and c["kind"] == "leaf_spine"

"""What a run writes and prints (summary files, terminal table, plots), at any number of
flows.

The engine writes results.json, flows.csv and links.csv. The reference here is what the
Python front end wrote before: ``json.dumps(summary, indent=2)`` and the ``csv`` module over
records flattened into dotted columns (lists excepted: they are now JSON text).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import transim
from conftest import ROOT, many_flows, transim_cli
from transim.format import fmt_bytes, fmt_rate
from transim.result import Result


def _flatten(row: dict[str, Any], prefix: str = "", lists: bool = False) -> dict[str, Any]:
    """A record's fields as dotted columns; lists as their JSON text, or as they are."""
    flat: dict[str, Any] = {}
    for k, v in row.items():
        if isinstance(v, dict):
            flat.update(_flatten(v, f"{prefix}{k}.", lists))
        elif isinstance(v, list) and not lists:
            flat[f"{prefix}{k}"] = json.dumps(v, separators=(",", ":"))
        else:
            flat[f"{prefix}{k}"] = v
    return flat


def _reference_csv(rows: list[dict[str, Any]]) -> str:
    flat = [_flatten(r) for r in rows]
    names = list(dict.fromkeys(k for r in flat for k in r))
    out = io.StringIO(newline="")
    w = csv.DictWriter(out, fieldnames=names, restval="")
    w.writeheader()
    w.writerows(flat)
    return out.getvalue()


@pytest.mark.parametrize(
    "scenario",
    ["dumbbell.toml", "studies/sctp/multihomed.toml", "studies/atm/bottleneck.toml"],
)
def test_files_are_what_python_writes_for_the_summary(scenario: str, tmp_path: Path) -> None:
    path = ROOT / "scenarios" / scenario
    fresh = transim.run(path)
    from_text = fresh.write(tmp_path / "text")  # the engine's text: the summary unread
    parsed = transim.run(path)
    summary = parsed.summary
    from_dict = parsed.write(tmp_path / "dict")
    assert [p.name for p in from_text] == [p.name for p in from_dict]
    for a, b in zip(from_text, from_dict, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    text = {p.name: p.read_text(encoding="utf-8") for p in from_text}
    assert text["results.json"] == json.dumps(summary, indent=2) + "\n"
    with (tmp_path / "text" / "flows.csv").open(newline="", encoding="utf-8") as fh:
        assert fh.read() == _reference_csv(summary["flows"])
    with (tmp_path / "text" / "links.csv").open(newline="", encoding="utf-8") as fh:
        assert fh.read() == _reference_csv(summary["links"])


def test_the_engines_summary_text_stays_with_the_engine_until_asked_for() -> None:
    import copy
    import pickle

    from transim import _core

    r = transim.run(ROOT / "scenarios" / "dumbbell.toml")
    text = r._summary_text()
    # Not a Python string (300 MB to copy at 100,000 flows), but one on demand.
    assert isinstance(text, _core.SummaryText)
    as_str = str(text)
    assert isinstance(as_str, str) and repr(text) == f"<summary JSON text, {len(as_str)} bytes>"
    assert pickle.loads(pickle.dumps(text)) == as_str and copy.deepcopy(text) == as_str
    # The digest and the files read it as they read the string.
    assert _core.summary_digest(text, 3) == _core.summary_digest(as_str, 3)
    assert json.loads(as_str) == r.summary
    with pytest.raises(TypeError, match="JSON text .* not dict"):
        _core.summary_digest({"flows": []})  # type: ignore[arg-type]


def test_a_summary_made_in_python_is_written_as_it_stands(tmp_path: Path) -> None:
    r = transim.run(ROOT / "scenarios" / "dumbbell.toml")
    r.summary["flows"][0]["note"] = 'edited, with a comma, and "quotes" é'
    r.summary["links"][0]["extra"] = {"a": 1e-7, "b": [1, None, True]}
    r.write(str(tmp_path))  # a folder's name will do
    assert (tmp_path / "results.json").read_text() == json.dumps(r.summary, indent=2) + "\n"
    rows = list(csv.DictReader((tmp_path / "flows.csv").open(newline="", encoding="utf-8")))
    assert rows[0]["note"] == 'edited, with a comma, and "quotes" é'
    assert rows[1]["note"] == ""
    links = list(csv.DictReader((tmp_path / "links.csv").open(newline="", encoding="utf-8")))
    assert links[0]["extra.a"] == "1e-07" and links[0]["extra.b"] == "[1,null,true]"
    own = Result({"name": "x", "flows": [{"a": {"b": 2}}], "links": []}, [], None, {})
    own.write(tmp_path / "own")
    assert (tmp_path / "own" / "flows.csv").read_bytes() == b"a.b\r\n2\r\n"
    with pytest.raises(ValueError, match="summary"):
        Result(None, [], None, {})
    with pytest.raises(ValueError, match="flows and links"):
        Result({"flows": [1, 2]}, [], None, {}).write(tmp_path / "bad")


def test_the_table_of_many_flows_keeps_the_first_and_the_busiest() -> None:
    r = transim.run(many_flows(60))
    rows = r.table(limit=10).splitlines()
    flow_rows = [line for line in rows if line.startswith("flow")]
    assert [line.split()[0] for line in flow_rows[1:]] == [f"flow{i}" for i in range(10)]
    assert "... 50 more flows (all are in flows.csv)" in rows
    together = next(line for line in rows if line.startswith("all 60 flows:"))
    # What was delivered, and at what rate over the run: not the goodputs summed, which
    # counts capacity once per flow active at the time.
    delivered = sum(f["bytes_delivered"] for f in r.flows)
    rate = fmt_rate(delivered * 8 / r.summary["simulated_time"])
    assert f": {fmt_bytes(delivered)} delivered, {rate} over the run; goodput " in together
    assert f"{sum(f['retransmissions'] for f in r.flows):,} retransmissions" in together
    carried = [x for x in r.links if x["packets_in"] > 0]
    assert len(carried) == 2 + 4 * 60
    link_rows = [line.split()[0] for line in rows if "->" in line.split(" ", 1)[0]]
    busiest = sorted(carried, key=lambda x: (-x["utilisation"], -x["packets_in"]))[:10]
    assert link_rows == [x["name"] for x in busiest]
    assert link_rows[0] == "r1->r2"
    assert f"(the 10 busiest of {len(carried)} link directions" in r.table(limit=10)
    # Without a limit, every row as before; a limit the run fits in changes nothing.
    whole = r.table()
    assert all(f"flow{i} " in whole for i in range(60)) and "more flows" not in whole
    assert r.table(limit=10_000) == whole
    with pytest.raises(ValueError, match="at least 1"):
        r.table(limit=0)


def test_the_table_reads_the_engines_text_and_an_edited_summary_alike() -> None:
    fresh = transim.run(many_flows(30))
    from_text = fresh.table(limit=5)
    assert fresh._summary is None, "the table parsed the whole summary"
    # Read (so possibly edited): the summary is dumped and digested the same way.
    assert fresh.flows[0]["name"] == "flow0"
    assert fresh.table(limit=5) == from_text
    fresh.summary["flows"][0]["name"] = "renamed"
    fresh.summary["flows"][1]["retransmissions"] += 1000
    edited = fresh.table(limit=5)
    assert "renamed " in edited and "flow0 " not in edited
    rtx = sum(f["retransmissions"] for f in fresh.flows)
    assert rtx >= 1000 and f"{rtx:,} retransmissions" in edited


def _cell_is(cell: Any, value: Any) -> bool:
    """A DataFrame cell holds the summary's value: null as NaN, a list as its JSON text, a
    number exactly (an integer column with gaps turns float)."""
    import math

    if value is None:
        return isinstance(cell, float) and math.isnan(cell)
    if isinstance(value, list):
        return isinstance(cell, str) and json.loads(cell) == value
    if isinstance(value, bool):
        return isinstance(cell, bool | np.bool_) and bool(cell) == value
    if isinstance(value, str):
        return isinstance(cell, str) and cell == value
    return not isinstance(cell, bool | np.bool_ | str) and float(cell) == float(value)


@pytest.mark.parametrize("scenario", ["dumbbell.toml", "studies/sctp/multihomed.toml"])
def test_frames_hold_every_field_of_every_record(scenario: str, tmp_path: Path) -> None:
    import math

    import pandas as pd

    path = ROOT / "scenarios" / scenario
    fresh = transim.run(path)
    frames = {which: fresh.frame(which) for which in ("flows", "links")}
    assert fresh._summary is None, "the frame parsed the whole summary"
    written = fresh.write(tmp_path)
    summary = fresh.summary
    for which, frame in frames.items():
        records = [_flatten(r, lists=True) for r in summary[which]]
        assert list(frame.columns) == list(dict.fromkeys(k for r in records for k in r))
        assert len(frame) == len(records) > 0
        for i, record in enumerate(records):
            row = frame.iloc[i]
            for column in frame.columns:
                value = record.get(column)
                assert _cell_is(row[column], value), (which, i, column, row[column], value)
        # As pandas reads the file written for the same summary.
        on_disk = pd.read_csv(next(p for p in written if p.name == f"{which}.csv"))
        pd.testing.assert_frame_equal(frame, on_disk)
    # Once the summary has been read (and may have been edited), the frame follows it.
    summary["flows"][0]["name"] = "renamed"
    summary["flows"][0]["drops"]["queue"] = 12345
    edited = fresh.frame()
    assert edited["name"][0] == "renamed" and edited["drops.queue"][0] == 12345
    assert not any(isinstance(c, float) and math.isnan(c) for c in edited["name"])


def test_a_frame_of_no_records_or_of_an_unknown_table() -> None:
    own = Result({"name": "x", "flows": [], "links": [{"a": {"b": 2.5}, "c": None}]}, [], None, {})
    assert own.frame("flows").empty
    links = own.frame("links")
    assert list(links.columns) == ["a.b", "c"] and links["a.b"][0] == 2.5
    with pytest.raises(ValueError, match=r"which must be one of \['flows', 'links'\], got 'link'"):
        own.frame("link")


@pytest.mark.parametrize("scenario", ["many", "studies/sctp/multihomed.toml"])
def test_plots_read_a_cut_down_summary_until_the_summary_is_read(
    scenario: str, tmp_path: Path
) -> None:
    from transim.plots import flow_count, plot_cwnd, plot_sequence

    given = many_flows(30) if scenario == "many" else ROOT / "scenarios" / scenario
    r = transim.run(given, trace_flows=True, trace_packets=True)
    keys = ("name", "protocol", "mss", "frag_point")
    from_text = r._cut(keys)
    plot_cwnd(r, tmp_path / "cwnd.png", flows=[0, 1])
    plot_sequence(r, tmp_path / "seq.png", flow=0)
    assert (tmp_path / "cwnd.png").stat().st_size > 0 and (tmp_path / "seq.png").stat().st_size > 0
    assert r._summary is None, "the plots read the whole summary"
    # The engine's cut is the summary's own fields, as read from the whole summary; once
    # that is read, the cut-down copies are dropped.
    summary = r.summary
    assert r._cuts == {}
    assert flow_count(r) == len(summary["flows"]) == len(from_text["flows"])
    assert from_text["name"] == summary["name"]
    for cut, whole in zip(from_text["flows"], summary["flows"], strict=True):
        assert cut == {k: whole[k] for k in keys if k in whole}
    assert r._cut(keys) == from_text
    # Once read, edits show.
    summary["flows"][0]["name"] = "renamed"
    assert r._cut(keys)["flows"][0]["name"] == "renamed"


def test_run_prints_at_most_fifty_rows_unless_asked_for_all(tmp_path: Path) -> None:
    scenario = tmp_path / "many.json"
    scenario.write_text(json.dumps(many_flows(60)))
    p = transim_cli("run", str(scenario), "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert "... 10 more flows (all are in flows.csv)" in p.stdout
    assert "flow49 " in p.stdout and "flow50 " not in p.stdout
    rows = list(csv.DictReader((tmp_path / "o" / "flows.csv").open(newline="")))
    assert len(rows) == 60
    p = transim_cli("run", str(scenario), "--out", str(tmp_path / "o"), "--all-rows")
    assert p.returncode == 0, p.stderr
    assert "flow59 " in p.stdout and "more flows" not in p.stdout


def test_a_bad_duration_is_named_before_the_run(tmp_path: Path) -> None:
    scenario = tmp_path / "bad.json"
    scenario.write_text(json.dumps({**many_flows(1), "duration": "ten seconds"}))
    p = transim_cli("run", str(scenario), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert "duration" in p.stderr and "ten seconds" in p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "o").exists()


def test_plots_draw_and_trace_a_few_flows_unless_told_which(tmp_path: Path) -> None:
    scenario = tmp_path / "many.json"
    scenario.write_text(json.dumps({**many_flows(20), "duration": "0.3s"}))
    out = tmp_path / "o"
    p = transim_cli("run", str(scenario), "--out", str(out), "--plot")
    assert p.returncode == 0, p.stderr
    assert "plotted 8 of 20 flows (0, 1, 2, 3, 4, 5, 6, 7)" in p.stdout
    plots = sorted(x.name for x in out.glob("sequence_flow*.png"))
    assert plots == [f"sequence_flow{i}.png" for i in range(8)]
    traced = transim.read_trace(out / "trace_flows")
    assert sorted(set(traced["flow"].tolist())) == list(range(8))
    assert len(list(csv.DictReader((out / "flows.csv").open(newline="")))) == 20
    p = transim_cli("run", str(scenario), "--out", str(out), "--plot", "--plot-flows", "19,3")
    assert p.returncode == 0, p.stderr
    assert {x.name for x in out.glob("sequence_flow*.png")} >= {
        "sequence_flow19.png",
        "sequence_flow3.png",
    }
    assert sorted(set(transim.read_trace(out / "trace_flows")["flow"].tolist())) == [3, 19]
    for bad, needle in (("20", "has 20 flows (0 to 19)"), ("a,b", "flow indices")):
        p = transim_cli("run", str(scenario), "--out", str(out), "--plot", "--plot-flows", bad)
        assert p.returncode == 2 and needle in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
    # Flows to plot without --plot would be silently ignored: refused, naming the option.
    p = transim_cli("run", str(scenario), "--out", str(out), "--plot-flows", "3")
    assert p.returncode == 2 and "--plot-flows" in p.stderr and "--plot" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_an_entrys_count_runs_as_that_many_entries_would(tmp_path: Path) -> None:
    listed = many_flows(12)
    listed["flows"][5] = {"app": {"kind": "finite", "bytes": "200kB"}, "start": "0.1s"}
    counted = {
        **listed,
        "flows": [
            {"app": {"kind": "bulk"}, "count": 5},
            {"app": {"kind": "finite", "bytes": "200kB"}, "start": "0.1s"},
            {"app": {"kind": "bulk"}, "count": 6},
        ],
    }
    a, b = transim.run(listed), transim.run(counted)
    assert str(a._summary_text()) == str(b._summary_text())
    assert [f["name"] for f in b.flows] == [f"flow{i}" for i in range(12)]
    # The command line counts the copies: in what it validates and in the flows it plots.
    scenario = tmp_path / "counted.json"
    scenario.write_text(json.dumps(counted))
    p = transim_cli("validate", str(scenario))
    assert p.returncode == 0 and "dumbbell topology, 12 flows" in p.stdout, p.stdout
    out = tmp_path / "o"
    p = transim_cli("run", str(scenario), "--out", str(out), "--plot", "--plot-flows", "11")
    assert p.returncode == 0, p.stderr
    assert (out / "sequence_flow11.png").exists()
    p = transim_cli("run", str(scenario), "--out", str(out), "--plot", "--plot-flows", "12")
    assert p.returncode == 2 and "has 12 flows (0 to 11)" in p.stderr, p.stderr


def test_an_error_in_a_counted_entry_names_the_entry(tmp_path: Path) -> None:
    doc = many_flows(1)
    doc["flows"] = [{"count": 2}, {"count": 3, "tcp": {"cc": "renoo"}}]
    scenario = tmp_path / "bad.json"
    scenario.write_text(json.dumps(doc))
    p = transim_cli("validate", str(scenario))
    assert p.returncode == 2, p.stdout
    assert "flows[1].tcp.cc" in p.stderr and "renoo" in p.stderr, p.stderr
    assert "one of this entry's 3 copies" in p.stderr and "Traceback" not in p.stderr
    doc["flows"] = [{"count": -1}]
    scenario.write_text(json.dumps(doc))
    p = transim_cli("validate", str(scenario))
    assert p.returncode == 2 and "flows[0].count" in p.stderr, p.stderr


def test_the_tables_columns_line_up_whatever_the_names_and_rates() -> None:
    """Link names of a fabric (leaf0->spine0) and rates of 100 Gbps are wider than the
    columns' defaults: the columns grow with them, so every row is as long as its header."""
    r = transim.run(
        {
            "duration": "1ms",
            "topology": {
                "kind": "leaf_spine",
                "leaves": 2,
                "spines": 2,
                "hosts_per_leaf": 2,
                "host_link": {"rate": "10Gbps", "delay": "1us", "queue": 100},
                "fabric_link": {"rate": "100Gbps", "delay": "1us", "queue": 100},
            },
            "traffic": {"pattern": "permutation", "app": {"kind": "bulk"}},
        }
    )
    lines = r.table().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("link "))
    rows = lines[head + 2 : head + 2 + len(r.links)]
    assert any("leaf0->spine0" in row for row in rows) and any("100.00 Gbps" in row for row in rows)
    assert {len(row) for row in rows} == {len(lines[head])}
    flows = lines[4 : 4 + len(r.flows)]
    assert {len(row) for row in flows} == {len(lines[2])}

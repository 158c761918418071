"""``Result.flow`` and ``Result.link`` read one record from the engine's summary text while
the summary is unread: the same record as the whole summary holds, the same errors, and
edits that reach the summary, the files and the tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import transim
from conftest import ROOT, many_flows
from transim.result import Result


@pytest.mark.parametrize("scenario", ["many", "dumbbell.toml", "studies/sctp/multihomed.toml"])
def test_each_record_read_alone_is_the_summarys_own(scenario: str) -> None:
    given = many_flows(12, "0.3s") if scenario == "many" else ROOT / "scenarios" / scenario
    fresh = transim.run(given)
    whole = json.loads(str(fresh._summary_text()))
    count = len(whole["flows"])
    for i, flow in enumerate(whole["flows"]):
        assert fresh.flow(i) == flow
        assert fresh.flow(i - count) is fresh.flow(i), "a negative index counts from the end"
        assert fresh.flow(flow["name"]) is fresh.flow(i)
    for link in whole["links"]:
        assert fresh.link(link["name"]) == link
    assert fresh._summary is None, "a lookup read the whole summary"
    # Once the summary is read, the records handed out are its own dicts.
    first, last = fresh.flow(0), fresh.link(whole["links"][-1]["name"])
    assert fresh.summary == whole
    assert fresh.flows[0] is first and fresh.links[-1] is last


def test_a_record_by_position_is_read_without_indexing_the_names() -> None:
    r = transim.run(many_flows(12, "0.3s"))
    third = r.flow(3)
    assert third["name"] == "flow3" and r._picked is not None
    assert r._picked._indexes == {}, "the names were indexed for a position"
    # The same dict whichever way it is found later.
    assert r.flow(3) is third and r._picked._indexes == {}
    # Another position indexes the records once (not a read of the text per position).
    assert r.flow(5)["name"] == "flow5" and set(r._picked._indexes) == {"flows"}
    assert r.flow("flow3") is third and r.flow(-9) is third
    assert r.flows[3] is third


def test_the_first_record_of_a_name_is_the_one_found() -> None:
    text = json.dumps(
        {
            "name": "t",
            "flows": [{"name": "a", "v": 1}, {"v": 2}, {"name": "a", "v": 3}, {"name": 5}],
            "links": [{"name": "x->y", "v": 4}],
        }
    )
    r = Result(None, [], None, {}, text=text)
    assert r.flow("a") == {"name": "a", "v": 1} and r.flow(2)["v"] == 3
    assert r.flow(-1) == {"name": 5}
    assert r.link("x->y")["v"] == 4
    with pytest.raises(KeyError, match=r"no flow named 'b'; flows are \['a', 'a'\]"):
        r.flow("b")
    assert r._summary is None


def test_errors_are_those_of_the_whole_summary() -> None:
    fresh, parsed = transim.run(many_flows(30, "0.3s")), transim.run(many_flows(30, "0.3s"))
    assert parsed.summary is not None
    for r in (fresh, parsed):
        with pytest.raises(KeyError) as e:
            r.flow("nope")
        # The first ten of the 30 flows' names, and how many more: not all of them.
        names = str([f"flow{i}" for i in range(10)])
        assert e.value.args[0] == f"no flow named 'nope'; flows are {names} and 20 more"
        with pytest.raises(KeyError, match=r"no link 'x->y'; links are \['r1->r2', .* 112 more"):
            r.link("x->y")
        with pytest.raises(IndexError):
            r.flow(30)
        with pytest.raises(IndexError):
            r.flow(-31)
    with pytest.raises(IndexError, match="flow 30 is out of range: the run has 30 flows"):
        fresh.flow(30)
    assert fresh._summary is None
    # A few flows: all their names.
    few = transim.run(ROOT / "scenarios" / "dumbbell.toml")
    with pytest.raises(KeyError) as e:
        few.flow("nope")
    assert e.value.args[0].endswith(f"{[f['name'] for f in few.flows]}")


def test_an_edited_record_reaches_the_summary_files_and_tables(tmp_path: Path) -> None:
    r = transim.run(many_flows(5, "0.3s"))
    untouched = r.flow("flow3")
    assert r._summary_text() is r._text, "an unedited record keeps the engine's text"
    r.flow("flow1")["name"] = "renamed"
    r.link("r1->r2")["utilisation"] = 0.125
    # The files and the frame are made from the summary as edited, not the engine's text.
    written = {p.name: p for p in r.write(tmp_path)}
    assert r._summary is not None
    on_disk = json.loads(written["results.json"].read_text(encoding="utf-8"))
    assert on_disk["flows"][1]["name"] == "renamed"
    assert on_disk["links"][0]["name"] == "r1->r2"
    assert on_disk["links"][0]["utilisation"] == 0.125
    assert "renamed" in written["flows.csv"].read_text(encoding="utf-8")
    assert list(r.frame()["name"]) == ["flow0", "renamed", "flow2", "flow3", "flow4"]
    assert r.flows[3] is untouched
    assert r.flow("renamed") is r.flows[1]


def test_an_edit_reaches_the_plots_cut_down_summary() -> None:
    r = transim.run(many_flows(3, "0.3s"))
    keys = ("name", "mss")
    assert r._cut(keys)["flows"][2]["name"] == "flow2"
    r.flow(2)["name"] = "edited"
    assert r._cut(keys)["flows"][2] == {"name": "edited", "mss": r.flows[2]["mss"]}


def test_a_summary_set_by_hand_drops_the_records_read_before() -> None:
    r = transim.run(many_flows(2, "0.3s"))
    r.flow(0)["name"] = "stale"
    r.summary = {"name": "own", "flows": [{"name": "only"}], "links": []}
    assert r.flow(0) == {"name": "only"} and r.flow("only") is r.flows[0]
    with pytest.raises(KeyError, match="no flow named 'stale'"):
        r.flow("stale")


@pytest.mark.parametrize("enabled", [True, False])
def test_reading_the_summary_leaves_the_garbage_collector_as_it_was(enabled: bool) -> None:
    import gc

    r = transim.run(many_flows(3, "0.3s"))
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert r.summary["flows"][2]["name"] == "flow2"
        assert gc.isenabled() == enabled
        broken = Result(None, [], None, {}, text="{not json")
        with pytest.raises(ValueError, match="Expecting property name"):
            broken.summary  # noqa: B018
        assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()

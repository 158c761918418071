"""Study 2 (TCP over ATM) at the quick scale, the [atm] table's errors, and the fairness
helpers the study uses."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import transim
from conftest import transim_cli
from transim import _core
from transim.studies import atm


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("atm")
    return out, atm.reproduce(out, "quick")


def test_outputs_and_findings(study: tuple[Path, str]) -> None:
    out, text = study
    for name in ("report.md", "table2.png", "mtu.png", "runs.sqlite", "findings.json"):
        assert (out / name).stat().st_size > 500, name
    for heading in ("Table 2", "MTU, Nagle and FRR", "LAN against WAN", "Beyond the paper"):
        assert heading in text
    found = json.loads((out / "findings.json").read_text())
    assert len(found) == 8
    assert all(f["status"] in ("reproduced", "partly", "not reproduced") for f in found)
    by_name = {f["finding"]: f for f in found}
    # The two findings the model must get whatever the paper's unstated choices.
    assert by_name["Every throughput stays below the cell-tax bound"]["status"] == "reproduced"
    er = next(f for f in found if f["finding"].startswith("ER:"))
    assert er["status"] == "reproduced", er


def test_er_is_fair_and_near_its_target_at_every_vc_count() -> None:
    # ERICA (target 0.9 of 150 Mbps of cells) holds every VC count near 0.9 × the cell-tax
    # bound less the RM cells, and shares it equally.
    base = atm.load()
    bound = atm.goodput_capacity(2000, abr=True) / 1e6
    for n in (10, 70):
        doc = atm.scenario(base, n, "ER", seed=1)
        m = atm.metrics(doc, transim.run(doc).summary)
        assert m["fair"] > 98.0, (n, m)
        assert 0.85 * bound < m["thr"] < bound, (n, m)


def test_frr_off_leaves_epd_losses_to_the_timer() -> None:
    base = atm.load()
    docs = {frr: atm.scenario(base, 50, "EPD", seed=1, frr=frr) for frr in (True, False)}
    runs = {frr: transim.run(doc).summary for frr, doc in docs.items()}
    assert sum(f["fast_retransmits"] for f in runs[True]["flows"]) > 0
    assert sum(f["fast_retransmits"] for f in runs[False]["flows"]) == 0
    thr = {frr: atm.metrics(docs[frr], runs[frr])["thr"] for frr in docs}
    assert thr[True] > thr[False]


def test_cell_counts_of_a_segment() -> None:
    # MSS 2000 + 40 headers + 8 LLC/SNAP + 8 trailer = 2056 → 43 cells; a 40-byte ACK: 2.
    assert atm.cells(2040) == 43 and atm.cells(2040) * 53 == 2279
    assert atm.cells(40) == 2


@pytest.mark.parametrize(
    ("atm_table", "path"),
    [
        ({"discard": "epd"}, "atm.epd_threshold"),
        ({"discard": "epd", "epd_threshold": 5000}, "atm.epd_threshold"),
        ({"feedback": "erica"}, "atm.feedback"),
        ({"service": "abr", "feedback": "efci", "efci_high": 10, "efci_low": 20}, "atm.efci_low"),
        ({"service": "abr", "abr": {"nrm": 1}}, "atm.abr.nrm"),
        ({"service": "ubr", "abr": {"nrm": 32}}, "atm.abr"),
        ({"switch_buffer": 0}, "atm.switch_buffer"),
        ({"service": "cbr"}, "atm.service"),
    ],
)
def test_atm_table_errors_name_the_field(atm_table: dict, path: str) -> None:
    doc = atm.load()
    doc["atm"] = atm_table
    with pytest.raises(transim.ScenarioError) as e:
        transim.validate(doc)
    assert e.value.path == path, str(e.value)


def test_an_atm_link_needs_the_atm_table() -> None:
    doc = {
        "duration": "1s",
        "topology": {
            "kind": "explicit",
            "nodes": ["a", "b"],
            "links": [{"between": ["a", "b"], "rate": "10Mbps", "atm": True}],
        },
        "flows": [{"src": "a", "dst": "b", "app": {"kind": "bulk"}}],
    }
    with pytest.raises(transim.ScenarioError) as e:
        transim.validate(doc)
    assert e.value.path == "topology.links[0].atm"


def test_explicit_topology_with_an_atm_core_between_ip_links(tmp_path: Path) -> None:
    # IP host -> IP router -(ATM)- switch -(ATM)- IP router -> IP host: the routers are the
    # VC's adapters; the hosts' captures hold IP packets, the ATM links none.
    doc = {
        "duration": "2s",
        "tcp": {"mss": 1460},
        "topology": {
            "kind": "explicit",
            "nodes": ["h1", "r1", "sw", "r2", "h2"],
            "links": [
                {"between": ["h1", "r1"], "rate": "100Mbps", "delay": "1ms"},
                {"between": ["r1", "sw"], "rate": "10Mbps", "delay": "2ms", "atm": True},
                {"between": ["sw", "r2"], "rate": "10Mbps", "delay": "2ms", "atm": True},
                {"between": ["r2", "h2"], "rate": "100Mbps", "delay": "1ms"},
            ],
        },
        "atm": {"discard": "epd", "epd_threshold": 200, "switch_buffer": 400},
        "flows": [{"src": "h1", "dst": "h2", "app": {"kind": "bulk"}}],
    }
    r = transim.run(doc, pcap=tmp_path)
    f = r.flow(0)
    # 1500-byte packets: 32 cells = 1696 bytes on a 10 Mbps ATM link.
    bound = 10e6 * 1460 / 1696
    assert 0.8 * bound < f["goodput_bps"] < bound
    assert f["atm"]["hops"] == 2 and f["atm"]["data"]["frames_ok"] > 100
    names = sorted(p.name for p in tmp_path.iterdir())
    assert not any("sw" in n for n in names), names


def test_max_min_solver_from_python() -> None:
    shares = _core.max_min_fair([10.0, 2.0], [([0], math.inf), ([0, 1], math.inf)])
    assert shares == pytest.approx([8.0, 2.0])
    assert _core.jain([1.0, 1.0]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="crosses link 3"):
        _core.max_min_fair([1.0], [([3], 1.0)])


def test_reproduce_atm_from_the_command_line_names_its_outputs(tmp_path: Path) -> None:
    p = transim_cli("reproduce", "atm", "--help")
    assert p.returncode == 0
    p = transim_cli("bench", "--only", "A1", "--repeat", "1")
    assert p.returncode == 0, p.stderr
    assert "ns/cell-hop" in p.stdout and "A1" in p.stdout

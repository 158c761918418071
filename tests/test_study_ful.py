"""Study 5 (the FUL bit) at the quick scale: its multi-flow finding and its outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
import transim
from transim.studies import ful


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("ful")
    return out, ful.reproduce(out, "quick")


def test_outputs_written(study: tuple[Path, str]) -> None:
    out, text = study
    for name in ("report.md", "multi_split_sequence.png", "sensitivity.png", "runs.sqlite"):
        assert (out / name).stat().st_size > 500, name
    for heading in ("One flow", "Multi-split", "Sensitivity", "Beyond the paper"):
        assert heading in text


def test_multi_split_ful_cuts_ack_drops_tenfold() -> None:
    """FUL's mechanism: the uplink buffer stops dropping ACKs. (Whether goodput rises is the
    study's finding, reported with its status: with ns-2's fast-retransmit guard the standard
    Tahoe flows no longer fire the spurious fast retransmits that FUL used to spare them.)"""
    base = ful.load("multi-split.toml")
    std = ful.totals(transim.run(ful.variant(base, False)).summary)
    with_ful = ful.totals(transim.run(ful.variant(base, True)).summary)
    assert std["ack_drop_rate"] > 1.0
    assert with_ful["ack_drop_rate"] * 10 <= std["ack_drop_rate"]


def test_ful_never_drops_acks_at_the_uplink_in_the_single_flow_case() -> None:
    base = ful.load("single-flow.toml")
    for up in ("128kbps", "64kbps"):
        doc = ful.variant(base, True)
        ful.access(doc)["reverse"]["rate"] = up
        f = transim.run(doc).flow(0)
        assert f["ack_drops_uplink"] == 0 and f["ful_notifications"] > 0


def test_ns2_defaults_setup_is_ack_clock_bound_and_never_overflows_a_50_packet_uplink() -> None:
    """The second set-up (ns-2's defaults): a 20-packet window can put at most 20 ACKs in the
    uplink buffer, so ns-2's default 50-packet buffer drops none; at 64 kbps a 40-byte ACK
    takes 5 ms, so at most 700 ACKs (one per packet) leave in 3.5 s."""
    base = ful.load("single-flow.toml")
    doc = ful.ns2_defaults(ful.variant(base, False), 50)
    ful.access(doc)["reverse"]["rate"] = "64kbps"
    s = transim.run(doc).summary
    assert s["flows"][0]["ack_drops_uplink"] == 0
    assert 0 < ful.packets_in(s) <= 700
    small = ful.ns2_defaults(ful.variant(base, True), 3)
    ful.access(small)["reverse"]["rate"] = "64kbps"
    f = transim.run(small).flow(0)
    assert f["ful_notifications"] > 0 and f["ack_drops_uplink"] == 0


def test_report_has_the_ns2_defaults_setup(study: tuple[Path, str]) -> None:
    _, text = study
    assert "ns-2's defaults (a second set-up)" in text
    for paper in ("800", "854", "413", "468"):
        assert f"| {paper} |" in text

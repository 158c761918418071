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

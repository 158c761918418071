"""Study 1 (SCTP vs TCP in the initial slow start) at the quick scale."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import transim
from transim.studies import sctp


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("sctp")
    return out, sctp.reproduce(out, "quick")


def test_outputs_written(study: tuple[Path, str]) -> None:
    out, text = study
    for name in ("report.md", "transfer_times.png", "transfer_times_loss.png", "runs.sqlite"):
        assert (out / name).stat().st_size > 500, name
    for heading in ("Bytes per round trip", "against the delay", "initial window", "failover"):
        assert heading in text


def test_the_per_round_row_is_the_papers(study: tuple[Path, str]) -> None:
    out, _ = study
    findings = json.loads((out / "findings.json").read_text())
    row = findings[0]
    assert row["ours"] == "4380, 8760, 17520, 35040, 1800"
    assert row["status"] == "reproduced"


def test_tcp_rounds_account_for_every_byte() -> None:
    r = transim.run(sctp.variant("tcp"), trace_packets=True)
    rows = sctp.tcp_rounds(r)
    first = [b for k, _, b in rows if k == 1]
    assert first == [1448, 12, 1448]  # IW 3 with write-time packetization
    assert sum(b for _, _, b in rows) == r.flow(0)["bytes_delivered"] == 67_500
    # Rounds never go backwards in sending order.
    ks = [k for k, _, _ in rows]
    assert ks == sorted(ks)


def test_sctp_wins_where_the_window_matters() -> None:
    """The larger initial window pays where the transfer takes several round trips of a
    long, fast path (the paper's 1 Mbps and 10 Mbps points at 100 ms)."""
    for rate in ("1Mbps", "10Mbps"):
        t = {
            p: transim.run(sctp.variant(p, rate, 100, 5, 5000)).flow(0)["transfer_time"]
            for p in ("sctp", "tcp")
        }
        assert sctp.advantage(t["tcp"], t["sctp"]) > 15.0, (rate, t)


def test_run_prints_and_plots_an_sctp_flow(tmp_path: Path) -> None:
    from conftest import transim_cli

    p = transim_cli("run", "scenarios/studies/sctp/testbed.toml", "--plot", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert "sctp, 5 streams" in p.stdout and "stream 4" in p.stdout
    for name in ("cwnd.png", "sequence_flow0.png", "flows.csv"):
        assert (tmp_path / name).stat().st_size > 500, name
    tr = transim.read_trace(tmp_path / "trace_sctp", flow=0)
    kinds = set(tr["kind"].tolist())
    assert kinds == {0.0, 3.0}, kinds  # DATA and SACK rows


def test_a_sweep_figure_shows_only_the_experiments_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 1 % loss figure ran only the delay and bandwidth sweeps; its file-size panels once
    showed the loss-free results under the loss figure's title."""
    pts = [p for p in sctp.sweep_points("quick") if p["exp"] in ("delay", "bandwidth")]
    res = {
        (p["exp"], p["x"], proto): 1.0 + i for i, p in enumerate(pts) for proto in ("sctp", "tcp")
    }
    drawn: list[Any] = []
    monkeypatch.setattr(sctp.plt, "close", drawn.append)
    sctp.sweep_figure(pts, res, tmp_path / "f.png", "with loss", with_paper=False)
    [fig] = drawn
    assert [ax.get_title() for ax in fig.axes] == ["10 Mbps, 5 × 13.5 KB", "100 ms, 5 × 5000 B"]
    assert not [t for ax in fig.axes for t in ax.texts if "paper" in t.get_text()]
    assert (tmp_path / "f.png").stat().st_size > 1000

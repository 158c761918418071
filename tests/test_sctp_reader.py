"""SCTP with a slow receiving application (``sctp.read_rate``) from the command line, as
README shows it: the bulk flow of ``scenarios/slow-reader.toml`` as an SCTP association read
at 4 Mb/s."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, transim_cli


def test_an_sctp_association_runs_at_its_readers_rate(tmp_path: Path) -> None:
    p = transim_cli(
        "run",
        str(ROOT / "scenarios" / "slow-reader.toml"),
        "--set",
        "flows.0.protocol=sctp",
        "--set",
        "flows.0.sctp.read_rate=4Mbps",
        "--out",
        str(tmp_path / "out"),
    )
    assert p.returncode == 0, p.stderr
    # The reader is slower than the flow's share: no advice about its window.
    assert "warning" not in p.stderr, p.stderr
    flow = json.loads((tmp_path / "out" / "results.json").read_text())["flows"][0]
    reader = flow["reader"]
    assert reader["read_rate_bps"] == 4e6
    # Delivered = read + still in the buffer; the buffer (128 KiB) holds at most one chunk
    # more than its size.
    assert flow["bytes_delivered"] == reader["bytes_read"] + reader["unread_at_end"]
    assert reader["unread_at_end"] <= 128 * 1024 + 1452
    # Over 30 s the association's goodput is the reader's rate within the buffer's share.
    assert abs(flow["goodput_bps"] - 4e6) < 0.01 * 4e6, flow["goodput_bps"]
    assert reader["window_updates"] > 0

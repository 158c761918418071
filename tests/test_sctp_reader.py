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
    # Delivered = read + still in the buffer.
    assert flow["bytes_delivered"] == reader["bytes_read"] + reader["unread_at_end"]
    # Over 30 s the association's goodput is the reader's rate within the buffer's share.
    assert abs(flow["goodput_bps"] - 4e6) < 0.01 * 4e6, flow["goodput_bps"]
    assert reader["window_updates"] > 0


def test_the_reports_slow_readers_run_at_their_rates_over_either_transport() -> None:
    """The report's flow-control section: each slow reader's goodput is its read rate plus at
    most its buffer over the 30 s (what was delivered and not yet read), over TCP and SCTP."""
    import transim
    from transim.data import resource
    from transim.report_flow_control import SCTP_READERS, as_sctp
    from transim.scenario import load

    doc, _ = load(resource("scenarios") / "slow-reader.toml")
    sctp_doc = as_sctp(doc)
    assert [f.get("protocol", "tcp") for f in sctp_doc["flows"]] == ["tcp", "sctp", "sctp"]
    assert all("tcp" not in f for f in sctp_doc["flows"] if f["name"] in SCTP_READERS)
    # What a receive buffer (the larger, 87,380 bytes) can hold unread: TCP takes nothing
    # beyond its window but a segment; SCTP accepts chunks that fill gaps even at a zero
    # window, at most what was outstanding when it closed: another window.
    most_unread = {"tcp": 87_380 + 1_460, "sctp": 2 * 87_380}
    for scenario in (doc, sctp_doc):
        r = transim.run(scenario)
        for f in r.flows:
            reader = f.get("reader")
            if reader is None:
                continue
            rate, g = reader["read_rate_bps"], f["goodput_bps"]
            # The reader starts on the first bytes, within 0.2 s (the handshake and the first
            # round trip on a 20 ms path), and never starves after: it reads all but that.
            assert reader["bytes_read"] >= rate * (30.0 - 0.2) / 8, (f["name"], reader)
            # Goodput counts the bytes delivered: read, plus what is still unread, over 30 s.
            unread = most_unread[f.get("protocol", "tcp")]
            assert 8 * reader["bytes_read"] / 30.0 <= g <= rate + 8 * unread / 30.0

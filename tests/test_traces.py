"""Traces streamed to disk (Parquet), their filters, and the size check before a run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import transim
from conftest import ROOT, transim_cli

DUMBBELL = ROOT / "scenarios" / "dumbbell.toml"


def test_streamed_traces_equal_the_in_memory_ones(tmp_path: Path) -> None:
    mem = transim.run(DUMBBELL, trace_flows=True, trace_packets=True)
    disk = transim.run(DUMBBELL, trace_flows=True, trace_packets=True, trace_dir=tmp_path)
    assert disk.flow_traces == [None, None] and disk.packet_trace is None
    assert disk.summary == mem.summary
    names = sorted(p.name for p in disk.trace_files)
    assert names == ["trace_flows", "trace_packets"]
    packets = transim.read_trace(tmp_path / "trace_packets")
    assert mem.packet_trace is not None
    for k, col in mem.packet_trace.items():
        assert np.array_equal(packets[k], col), k
    for i in (0, 1):
        tr = transim.read_trace(tmp_path / "trace_flows", flow=i)
        assert set(tr["flow"]) == {i}
        for k, col in mem.flow_trace(i).items():
            assert np.array_equal(tr[k], col), (i, k)


def test_trace_accessors_say_how_to_get_what_a_run_did_not_keep(tmp_path: Path) -> None:
    plain = transim.run(DUMBBELL, overrides=["duration=3s"])
    with pytest.raises(ValueError, match="trace_packets=True"):
        plain.packets()
    with pytest.raises(ValueError, match="no trace of flow 1: run with trace_flows=True"):
        plain.flow_trace(1)
    with pytest.raises(IndexError, match="flow 2: the run has 2 flows"):
        plain.flow_trace(2)
    streamed = transim.run(
        DUMBBELL,
        overrides=["duration=3s"],
        trace_flows=True,
        trace_packets=True,
        trace_dir=tmp_path,
    )
    with pytest.raises(ValueError, match="load_traces"):
        streamed.packets()
    streamed.load_traces()
    kept = transim.run(DUMBBELL, overrides=["duration=3s"], trace_flows=True, trace_packets=True)
    for k, col in kept.packets().items():
        assert np.array_equal(streamed.packets()[k], col), k
    assert kept.flow_trace(1) is kept.flow_traces[1]
    assert np.array_equal(streamed.flow_trace(1)["cwnd"], kept.flow_trace(1)["cwnd"])


def test_filters_keep_only_what_was_asked(tmp_path: Path) -> None:
    full = transim.run(DUMBBELL, trace_flows=True, trace_packets=True)
    r = transim.run(
        DUMBBELL,
        overrides=["trace.only_flows=[1]", "trace.start=2s", "trace.end=4s", "trace.interval=50ms"],
        trace_flows=True,
        trace_packets=True,
    )
    assert r.flow_traces[0] is None
    t = r.flow_trace(1)["t"]
    assert t.min() >= 2.0 and t.max() <= 4.0
    assert np.all(np.diff(t) >= 0.05 - 1e-12)  # one row per 50 ms at most
    assert 30 <= len(t) <= 41
    pt = r.packet_trace
    assert pt is not None and set(pt["flow"]) == {1}
    assert pt["t"].min() >= 2.0 and pt["t"].max() <= 4.0
    # The packet rows kept are exactly the full trace's rows of flow 1 in the window.
    f = full.packet_trace
    assert f is not None
    keep = (f["flow"] == 1) & (f["t"] >= 2.0) & (f["t"] <= 4.0)
    assert np.array_equal(pt["seq"], f["seq"][keep])


@pytest.mark.parametrize(
    ("setting", "path"),
    [
        ("trace.only_flows=[5]", "trace.only_flows[0]"),
        ("trace.start=100s", "trace.start"),
        ("trace.end=0.5s", "trace.end"),  # with start = 1 s below
    ],
)
def test_bad_filters_name_the_field(setting: str, path: str) -> None:
    with pytest.raises(transim.ScenarioError) as e:
        transim.run(
            DUMBBELL,
            overrides=[setting, "trace.start=1s"] if "end" in setting else [setting],
            trace_flows=True,
        )
    assert e.value.path == path, str(e.value)


def test_oversized_traces_are_refused_before_the_run() -> None:
    """shared/repro/crash-413.json: 100 Gbps, MSS 1, tracing on aborted in the allocator."""
    with pytest.raises(transim.ScenarioError) as e:
        transim.run(ROOT / "tests" / "repro" / "crash-413.json")
    assert e.value.path == "trace"
    msg = str(e.value)
    for option in ("trace.only_flows", "trace.interval", "trace.max_bytes", "GB"):
        assert option in msg
    # The same run with the per-packet log off and one cwnd row per 10 ms fits.
    doc = json.loads((ROOT / "tests" / "repro" / "crash-413.json").read_text())
    doc["trace"] = {"flows": True, "packets": False, "interval": "10ms"}
    doc["duration"] = "0.3s"
    for f in doc["flows"]:
        f.pop("switch", None)
    transim.validate(doc)


def test_a_long_traced_run_streams_with_flat_memory(tmp_path: Path) -> None:
    """60 s at 1.5 Gbps: the traces would need over 1 GB in memory; streamed, the process
    stays far below that while writing them."""
    scenario = tmp_path / "long.toml"
    scenario.write_text(
        'name = "long"\nduration = "60s"\n[tcp]\nrcv_buf = "16MiB"\n'
        '[topology]\nkind = "dumbbell"\n'
        'bottleneck = { rate = "1.5Gbps", delay = "5ms", queue = 1000 }\n'
        '[[flows]]\napp = { kind = "bulk" }\n'
    )
    out = tmp_path / "out"
    # VmHWM, not ru_maxrss: Linux carries the parent's (pytest's) peak into ru_maxrss across
    # fork + exec, while VmHWM belongs to the new process image alone.
    code = (
        "import re, sys, transim.cli as c; rc = c.main(sys.argv[1:]); "
        "s = open('/proc/self/status').read(); "
        "print(re.search(r'VmHWM:\\s+(\\d+)', s).group(1)); sys.exit(rc)"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, "run", str(scenario), "--trace", "-q", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    peak_mb = int(p.stdout.split()[-1]) / 1024
    rows_packets = sum(
        pq.ParquetFile(p).metadata.num_rows for p in (out / "trace_packets").iterdir()
    )
    rows_flows = sum(pq.ParquetFile(p).metadata.num_rows for p in (out / "trace_flows").iterdir())
    in_memory_mb = (rows_packets * 45 + rows_flows * 88) / 2**20
    assert in_memory_mb > 1000, in_memory_mb
    assert peak_mb < 300, (peak_mb, in_memory_mb)


def test_cli_trace_writes_parquet(tmp_path: Path) -> None:
    p = transim_cli("run", str(DUMBBELL), "--trace", "--out", str(tmp_path), "-q")
    assert p.returncode == 0, p.stderr
    t = transim.read_trace(tmp_path / "trace_flows", flow=0, columns=["t", "cwnd"])
    assert len(t["t"]) > 100 and set(t) == {"t", "cwnd", "flow"}

"""Sweeps: the sweep file, runs on a real Dask scheduler with two worker processes on
loopback, and the SQLite store surviving a killed client and a killed worker."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, swept, transim_cli
from transim import ScenarioError, sweep

SCENARIOS = ROOT / "python" / "transim" / "scenarios"


def write_sweep(tmp: Path, reps: int = 2, duration: str = "3s", extra: str = "") -> Path:
    p = tmp / "s.toml"
    p.write_text(
        f'name = "t"\nbase = "{SCENARIOS / "dumbbell.toml"}"\nduration = "{duration}"\n'
        f'replications = {reps}\nseed = 5\n\n[vary]\n"tcp.cc" = ["reno", "cubic"]\n'
        '"topology.bottleneck.delay" = { linspace = [0.01, 0.03, 3] }\n' + extra
    )
    return p


def rows(db: Path) -> dict[str, tuple]:
    con = sqlite3.connect(db)
    out = {k: (s, m) for k, s, m in con.execute("SELECT key, status, metrics FROM runs")}
    con.close()
    return out


def count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(db, timeout=5)
        n = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        con.close()
        return n
    except sqlite3.OperationalError:
        return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A Dask scheduler and worker processes started as a user would, on loopback."""

    def __init__(self, workers: int) -> None:
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", str(self.port), "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        self.workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_worker",
                    self.address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )  # fmt: skip
            for _ in range(workers)
        ]
        from dask.distributed import Client

        with Client(self.address, timeout="60s") as c:
            c.wait_for_workers(workers, timeout=60)

    def close(self) -> None:
        for p in [*self.workers, self.scheduler]:
            p.kill()
            p.wait()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster(2)
    yield c
    c.close()


def test_sweep_file_points_seeds_and_errors(tmp_path: Path) -> None:
    sw = sweep.parse(write_sweep(tmp_path, reps=3))
    runs = sw.runs()
    assert len(runs) == 2 * 3 * 3
    delays = sorted({r.params["topology.bottleneck.delay"] for r in runs})
    assert delays == pytest.approx([0.01, 0.02, 0.03])
    # Seeds depend only on the parameters and the replication number.
    again = {(str(r.params), r.replication): r.seed for r in sweep.parse(sw.source).runs()}
    assert all(again[(str(r.params), r.replication)] == r.seed for r in runs)
    assert len({r.seed for r in runs}) == len(runs)
    bad = tmp_path / "bad.toml"
    bad.write_text('base = "x.toml"\nreplications = 0\n')
    with pytest.raises(ScenarioError, match="no such scenario file"):
        sweep.parse(bad)
    bad.write_text(f'base = "{SCENARIOS / "dumbbell.toml"}"\nreplications = 0\n')
    with pytest.raises(ScenarioError) as e:
        sweep.parse(bad)
    assert e.value.path == "replications"
    bad.write_text(
        f'base = "{SCENARIOS / "dumbbell.toml"}"\n[vary]\n"tcp.cc" = {{ logspace = 3 }}\n'
    )
    with pytest.raises(ScenarioError) as e:
        sweep.parse(bad)
    assert e.value.path == "vary.tcp.cc.logspace"


def test_a_real_scheduler_gives_the_same_rows_as_the_local_default(
    tmp_path: Path, cluster: Cluster
) -> None:
    path = write_sweep(tmp_path)
    local = sweep.run(path, out=tmp_path / "local", workers=2, progress=False)
    remote = sweep.run(path, out=tmp_path / "remote", scheduler=cluster.address, progress=False)
    assert local.ran == remote.ran == 12 and remote.workers == 2
    a, b = rows(tmp_path / "local" / "results.sqlite"), rows(tmp_path / "remote" / "results.sqlite")
    assert a == b and len(a) == 12


def test_a_killed_client_resumes_with_every_run_exactly_once(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, reps=25, duration="20s")  # 150 runs of ~5 ms
    out = tmp_path / "out"
    db = out / "results.sqlite"
    cmd = [sys.executable, "-m", "transim.cli", "sweep", str(path), "--out", str(out),
           "--workers", "2", "--batch", "3"]  # fmt: skip
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while count(db) < 20 and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    before = count(db)
    assert 0 < before < 150, before
    again = transim_cli("sweep", str(path), "--out", str(out), "--workers", "2")
    assert again.returncode == 2 and "--resume" in again.stderr
    done = transim_cli("sweep", str(path), "--out", str(out), "--workers", "2", "--resume")
    assert done.returncode == 0, done.stderr
    assert f"{before} already done" in done.stdout, done.stdout
    got = rows(db)
    assert len(got) == 150 and all(s == "ok" for s, _ in got.values())
    assert set(got) == {r.key for r in sweep.parse(path).runs()}


def test_a_worker_killed_midway_loses_nothing(tmp_path: Path, cluster: Cluster) -> None:
    path = write_sweep(tmp_path, reps=25, duration="20s")
    out = tmp_path / "out"
    db = out / "results.sqlite"
    result: dict[str, sweep.Outcome] = {}

    def go() -> None:
        result["o"] = sweep.run(path, out=out, scheduler=cluster.address, batch=2, progress=False)

    t = threading.Thread(target=go)
    t.start()
    deadline = time.time() + 120
    while count(db) < 10 and time.time() < deadline:
        time.sleep(0.02)
    cluster.workers[0].send_signal(signal.SIGKILL)
    t.join(timeout=300)
    assert not t.is_alive()
    got = rows(db)
    assert len(got) == 150 and all(s == "ok" for s, _ in got.values())
    assert result["o"].failed == 0


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path: Path) -> None:
    p = tmp_path / "s.toml"
    p.write_text(
        f'name = "f"\nbase = "{SCENARIOS / "dumbbell.toml"}"\nduration = "3s"\n'
        '[vary]\n"tcp.cc" = ["reno", "no-such-cc"]\n'
    )
    r = transim_cli("sweep", str(p), "--out", str(tmp_path / "o"), "--workers", "1",
                    "--export", str(tmp_path / "o.csv"))  # fmt: skip
    assert r.returncode == 1
    assert "1 failed" in r.stdout
    df = sweep.load(tmp_path / "o" / "results.sqlite")
    bad = df[df.status == "error"]
    assert len(bad) == 1 and "tcp.cc" in bad.error.iloc[0]
    assert (df[df.status == "ok"]["m.goodput_bps"] > 0).all()
    assert (tmp_path / "o.csv").read_text().count("\n") == 3
    # Rerunning retries the failed run only (and fails it again).
    r = transim_cli("sweep", str(p), "--out", str(tmp_path / "o"), "--workers", "1", "--resume")
    assert r.returncode == 1 and "1 already done" in r.stdout
    sweep.export(tmp_path / "o" / "results.sqlite", tmp_path / "o.parquet")
    import pandas as pd

    assert len(pd.read_parquet(tmp_path / "o.parquet")) == 2


def test_a_poisson_sweep_keeps_completion_times_by_size(tmp_path: Path) -> None:
    """Flow completion times are sweep metrics: the same figures as the run's own digest,
    for every point."""
    import transim

    base = SCENARIOS / "datacenter-fct.toml"
    df = swept(
        tmp_path,
        base,
        "replications = 1\nseed = 3",
        '"traffic.flows" = [150]\n"traffic.load" = [0.3, 0.6]\n',
    )
    assert len(df) == 2
    for _, row in df.iterrows():
        sets = [f"traffic.flows={row['p.traffic.flows']}", f"traffic.load={row['p.traffic.load']}"]
        res = transim.run(base, sets, seed=int(row.seed))
        fct = res.completion_times()
        assert row["m.completed"] == fct["completed"] > 0
        for c in fct["classes"]:
            name = c["label"].replace(" ", "_")
            assert row[f"m.fct.{name}.flows"] == c["flows"]
            assert row[f"m.fct.{name}.p99"] == c["p99"]
            assert row[f"m.fct.{name}.mean"] == c["mean"]
            assert row[f"m.fct.{name}.slowdown_p99"] == c["slowdown_p99"] >= 1.0
            # No flow here is sprayed: every completed flow has an ideal time.
            assert row[f"m.fct.{name}.slowdown_flows"] == c["slowdown_flows"] == c["flows"]


def test_the_sweep_ends_with_each_points_means_in_the_files_order(tmp_path: Path) -> None:
    """The table ``transim sweep`` prints when it ends: one row per grid point, in the order
    of ``[vary]`` (cc outer, delay inner), each the mean of its replications as
    ``transim.sweep.load`` reads them."""
    p = write_sweep(tmp_path, reps=2, duration="3s")
    r = transim_cli("sweep", str(p), "--out", str(tmp_path / "o"), "--workers", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout.splitlines()
    head = next(i for i, x in enumerate(out) if x.startswith("tcp.cc "))
    table = [x.split() for x in out[head + 2 : head + 8]]
    assert [(row[0], row[1]) for row in table] == [
        (cc, d) for cc in ("reno", "cubic") for d in ("0.01", "0.02", "0.03")
    ]
    df = sweep.load(tmp_path / "o" / "results.sqlite")
    for row in table:
        delay = (df["p.topology.bottleneck.delay"] - float(row[1])).abs() < 1e-9
        runs = df[(df["p.tcp.cc"] == row[0]) & delay]
        assert int(row[2]) == len(runs) == 2
        assert float(row[-2]) == pytest.approx(runs["m.retransmissions"].mean(), abs=0.05)
        goodput = runs["m.aggregate_goodput_bps"].mean()
        shown = float(row[3]) * {"Mbps": 1e6, "kbps": 1e3}[row[4]]
        assert shown == pytest.approx(goodput, abs=0.006 * 1e6 if row[4] == "Mbps" else 6)


def test_the_table_orders_points_the_file_does_not_list_after_those_it_does(
    tmp_path: Path,
) -> None:
    """A store can hold rows of an earlier version of a sweep with the same name; their values
    are not in the file's grid, and mixing them with the grid's order must not fail."""
    p = write_sweep(tmp_path, reps=1, duration="3s")
    r = transim_cli("sweep", str(p), "--out", str(tmp_path / "o"), "--workers", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    table = sweep.glance(
        tmp_path / "o" / "results.sqlite",
        "t",
        {"tcp.cc": ["cubic"], "topology.bottleneck.delay": [0.01]},
    )
    rows = [x.split() for x in table.splitlines()[3:]]
    assert (rows[0][0], rows[0][1]) == ("cubic", "0.01")
    assert [x[0] for x in rows] == ["cubic"] * 3 + ["reno"] * 3


def test_the_sweep_says_at_which_points_the_window_binds(tmp_path: Path) -> None:
    """The advice on each run's scenario is kept with its metrics, and ``transim sweep``
    ends with how many runs had each finding: Linux 2.6's 87,380-byte window cannot fill
    its flow's share of a 100 Mb/s bottleneck, and fills that of a 1 Mb/s one."""
    import transim

    p = tmp_path / "s.toml"
    p.write_text(
        f'name = "w"\nbase = "{SCENARIOS / "dumbbell.toml"}"\nduration = "3s"\n'
        '[vary]\n"tcp.profile" = ["linux-2.6"]\n'
        '"topology.bottleneck.rate" = ["1Mbps", "100Mbps"]\n'
    )
    r = transim_cli("sweep", str(p), "--out", str(tmp_path / "o"), "--workers", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    df = sweep.load(tmp_path / "o" / "results.sqlite")
    col = "m.warning.window_below_share"
    slow = df[df["p.topology.bottleneck.rate"] == "1Mbps"][col].iloc[0]
    fast = df[df["p.topology.bottleneck.rate"] == "100Mbps"][col].iloc[0]
    assert slow != slow  # NaN: no finding at 1 Mb/s
    sets = ["tcp.profile=linux-2.6", "topology.bottleneck.rate=100Mbps", "duration=3s"]
    expected = transim.scenario.check(SCENARIOS / "dumbbell.toml", sets)["warnings"]
    assert [w["code"] for w in expected] == ["window_below_share"]
    assert fast == expected[0]["message"]
    assert (
        "warning (window_below_share): in 1 of 2 runs; at tcp.profile=linux-2.6, "
        f"topology.bottleneck.rate=100Mbps: {fast}"
    ) in r.stderr

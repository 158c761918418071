"""The package as a user installs it: the wheel built by maturin, installed into a fresh
virtual environment, its commands run from a directory outside the checkout (so nothing can
come from the source tree)."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sh(*cmd: str | Path, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    p = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
    assert p.returncode == 0, f"{cmd} failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
    return p


def _build_and_install(tmp: Path) -> None:
    """Build the wheel with maturin and install it into a fresh venv under tmp."""
    dist = tmp / "dist"
    sh(sys.executable, "-m", "maturin", "build", "--release", "--quiet", "-o", dist, cwd=ROOT)
    wheels = list(dist.glob("transim-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp / "venv"
    sh(sys.executable, "-m", "venv", venv, cwd=tmp)
    sh(
        venv / "bin" / "python",
        *("-m", "pip", "install", "--quiet", "--no-cache-dir", wheels[0]),
        cwd=tmp,
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> tuple[Path, Path]:
    """(bin directory of the fresh venv, a working directory outside the checkout).

    One wheel and one venv serve every pytest-xdist worker: a venv with the package's
    dependencies is several hundred MB, and a CI machine's disk may be short. The first worker
    to take the lock builds; the others wait on it and reuse what it made.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base if worker_id == "master" else base.parent
    tmp = shared / "wheel"
    with (shared / "wheel.lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        ready = tmp / "installed"
        if not ready.exists():
            tmp.mkdir(exist_ok=True)
            _build_and_install(tmp)
            ready.touch()
    work = tmp_path_factory.mktemp("work")
    return tmp / "venv" / "bin", work


def test_the_wheel_carries_its_data(installed: tuple[Path, Path]) -> None:
    bin_, work = installed
    p = sh(bin_ / "python", "-c", "import transim, sys; print(transim.__file__)", cwd=work)
    assert str(ROOT) not in p.stdout, "imported from the checkout, not the wheel"
    p = sh(bin_ / "transim", "examples", cwd=work)
    assert "dumbbell.toml" in p.stdout and str(ROOT) not in p.stdout
    # The types: the engine module's stub and the marker that tells type checkers to read them.
    p = sh(
        bin_ / "python",
        "-c",
        "import transim, pathlib; d = pathlib.Path(transim.__file__).parent; "
        "print(sorted(p.name for p in d.iterdir() if p.name in ('_core.pyi', 'py.typed')))",
        cwd=work,
    )
    assert p.stdout.strip() == "['_core.pyi', 'py.typed']"


def test_bench_runs_from_the_wheel(installed: tuple[Path, Path]) -> None:
    bin_, work = installed
    p = sh(bin_ / "transim", "bench", "--repeat", "1", cwd=work)
    assert "B3" in p.stdout


@pytest.mark.parametrize(
    "study,args",
    [("sackplus", ["--scale", "quick"]), ("ful", []), ("sctp", ["--scale", "quick"])],
)
def test_studies_run_from_the_wheel(
    installed: tuple[Path, Path], study: str, args: list[str]
) -> None:
    bin_, work = installed
    sh(bin_ / "transim", "reproduce", study, *args, "--out", work / study, cwd=work)
    assert (work / study / "report.md").stat().st_size > 1000
    assert (work / study / "findings.json").exists()


def test_report_and_an_example_run_from_the_wheel(installed: tuple[Path, Path]) -> None:
    bin_, work = installed
    sh(bin_ / "transim", "examples", "--copy", work / "scenarios", cwd=work)
    run = sh(bin_ / "transim", "run", "scenarios/dumbbell.toml", "--out", work / "db", cwd=work)
    # The table comes from the installed engine's digest of the summary.
    assert "goodput" in run.stdout and "packets: sent" in run.stdout
    assert (work / "db" / "results.json").stat().st_size > 1000
    sh(bin_ / "transim", "report", "--out", work / "report", cwd=work)
    # Every section ran from the package: its scenarios and modules are in the wheel.
    done = re.search(
        r"Sections finished: (\d+) of (\d+)", (work / "report" / "report.md").read_text()
    )
    assert done and done.group(1) == done.group(2), done and done.group(0)
    html = (work / "report" / "report.html").read_text()
    assert "Study 1: SCTP vs TCP" in html and "data:image/png;base64," in html
    for study in ("Study 2: TCP parameters", "Study 3: an adaptive framework"):
        assert study in html
    # The shipped sweep runs on Dask from the installed package (its base is a sibling file).
    sh(bin_ / "transim", "sweep", "scenarios/sweeps/cc-grid.toml", "--workers", "1",
       "--out", work / "sweep", cwd=work)  # fmt: skip
    assert (work / "sweep" / "results.sqlite").stat().st_size > 10_000


def test_compare_ns3_runs_from_the_wheel(installed: tuple[Path, Path], tmp_path: Path) -> None:
    """The ns-3 driver's source ships in the wheel and builds from there (ns-3 taken from this
    environment through TRANSIM_NS3_PREFIX; the build cache is fresh, so it really compiles)."""
    from transim.peers import Ns3Unavailable, find_ns3

    bin_, work = installed
    src = sh(bin_ / "python", "-c", "from importlib import resources; print(resources.files("
             "'transim.peers').joinpath('ns3_driver.cc').read_text()[:200])", cwd=work)  # fmt: skip
    assert "ns-3 driver" in src.stdout
    try:
        ns3 = find_ns3()
    except Ns3Unavailable as e:
        pytest.skip(str(e))
    prefix = ns3.libdir.parent
    env = {"TRANSIM_NS3_PREFIX": str(prefix), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    sh(bin_ / "transim", "examples", "--copy", work / "ex", cwd=work)
    p = subprocess.run(
        [str(bin_ / "transim"), "compare", "ns3", "ex/dumbbell.toml", "--set", "duration=5s",
         "--send-order", "--out", str(work / "cmp")],
        cwd=work, capture_output=True, text=True, timeout=600,
        env={**{k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}, **env},
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert "goodput (Mb/s)" in p.stdout and (work / "cmp" / "cwnd_transim_vs_ns3.png").exists()
    assert "flow 0 transmissions (transim " in p.stdout
    assert (work / "cmp" / "sent_flow0.csv").read_text().startswith("transmission,transim_time")

"""scripts/compare_engines.py: the statistics it reports, end to end with stand-in builds."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "compare_engines.py"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    """The script run as a user runs it, with `args`."""
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def load() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("compare_engines", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["compare_engines"] = mod
    spec.loader.exec_module(mod)
    return mod


def fake_build(tmp: Path, name: str, times: list[float]) -> Path:
    """A stand-in benchmark build that prints the engine's line for each of `times`, one
    per invocation in turn (a counter file remembers where it is)."""
    exe = tmp / name
    counter = tmp / f"{name}.n"
    exe.write_text(
        "#!/bin/sh\n"
        f'n=$(cat "{counter}" 2>/dev/null || echo 0)\n'
        f'echo $((n + 1)) > "{counter}"\n'
        f"t=$(printf '%s\\n' {' '.join(str(t) for t in times)} | sed -n \"$((n + 1))p\")\n"
        'echo "B5 fat tree k=16: build 0.030 s, run $t s, 17 packet-hops ($@)"\n'
    )
    exe.chmod(0o755)
    return exe


def test_run_times_reads_every_run_line() -> None:
    m = load()
    out = "b1: parse 0.1 s, build 0.2 s, run 0.004297 s (246 ns/packet)\nb1: run 0.0041 s\n"
    assert m.run_times(out) == [0.004297, 0.0041]
    assert m.run_times("B4 1 flows: parse 0.000 s, build 0.000 s, results 0.1 s") == []


def test_summary_is_minimum_quartile_and_median() -> None:
    m = load()
    s = m.summarise("x", [5.0, 1.0, 4.0, 2.0, 3.0, 9.0, 7.0, 8.0])
    # Sorted: 1 2 3 4 5 7 8 9: minimum 1, the sample a quarter up (index 2) 3, median 4.5.
    assert (s.n, s.minimum, s.q1, s.median) == (8, 1.0, 3.0, 4.5)
    with pytest.raises(ValueError, match="no 'run X s' line"):
        m.summarise("x", [])


def test_two_builds_alternate_and_compare(tmp_path: Path) -> None:
    old = fake_build(tmp_path, "old", [2.0, 2.4, 2.2])
    new = fake_build(tmp_path, "new", [1.9, 1.5, 2.5])
    done = run_script("--rounds", "3", "--core", "-1", str(old), str(new), "--", "b5", "0.002")
    assert done.returncode == 0, done.stderr
    rows = done.stdout.strip().splitlines()
    assert len(rows) == 2 and rows[0].startswith(str(old)) and rows[1].startswith(str(new))
    # old: min 2.0, median 2.2; new: min 1.5, median 1.9 -> ratios 0.750 and 0.864.
    assert "min 2.000000" in rows[0] and "median 2.200000" in rows[0]
    assert "ratio min 0.750" in rows[1] and "median 0.864" in rows[1]
    # Per round 1.9/2.0, 1.5/2.4, 2.5/2.2: mean 0.904, standard deviation 0.259 over three.
    assert "paired 0.904 ± 0.149" in rows[1] and "paired" not in rows[0]
    assert "round 3/3" in done.stderr


def test_a_control_copy_of_the_first_build_shows_the_noise(tmp_path: Path) -> None:
    # The copy runs as a build of its own (here it shares the stand-in's counter, so it
    # reads the next of the first build's times): 2.0 and 2.2 alternate with 2.1 and 2.3.
    old = fake_build(tmp_path, "old", [2.0, 2.1, 2.3, 2.2])
    new = fake_build(tmp_path, "new", [1.0, 1.0])
    done = run_script(
        "--rounds", "2", "--core", "-1", "--control", str(old), str(new), "--", "b5", "0.002"
    )
    assert done.returncode == 0, done.stderr
    rows = done.stdout.strip().splitlines()
    assert rows[2].startswith(f"{old} (control copy)")
    # Round 1 in order: old 2.0, new, copy 2.1; round 2 reversed: copy 2.3, new, old 2.2.
    # Copy/old per round: 1.05 and 1.04545...: mean 1.048, standard error 0.002.
    assert "paired 1.048 ± 0.002" in rows[2]
    assert rows[3] == (
        "control: a copy of the first build reads 1.048 ± 0.002; "
        "ratios within 1 ± 0.052 of the first are not shown to differ"
    )


def test_paired_ratio_is_the_mean_of_each_round_s_ratio() -> None:
    m = load()
    mean, se = m.paired([2.0, 4.0, 1.0, 3.0], [1.0, 4.0, 1.5, 3.0])
    # Ratios 0.5, 1.0, 1.5, 1.0: mean 1.0, standard deviation sqrt(0.5 / 3), over two.
    assert mean == pytest.approx(1.0)
    assert se == pytest.approx((0.5 / 3) ** 0.5 / 2)
    assert m.paired([2.0], [3.0]) == (1.5, None)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "2", "A", "--", "b1"], "binaries: got 1, need at least two"),
        (["--rounds", "0", "A", "B", "--", "b1"], "--rounds: got 0"),
        (["A", "missing", "--", "b1"], "missing is not a file"),
        (["A", "B"], "no benchmark arguments after --"),
    ],
)
def test_bad_input_names_the_field(tmp_path: Path, args: list[str], message: str) -> None:
    for name in ("A", "B"):
        (tmp_path / name).write_text("#!/bin/sh\n")
    argv = [str(tmp_path / a) if a in ("A", "B", "missing") else a for a in args]
    done = run_script(*argv)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_build_without_run_lines_is_an_error(tmp_path: Path) -> None:
    quiet = tmp_path / "quiet"
    quiet.write_text("#!/bin/sh\necho nothing to see\n")
    quiet.chmod(0o755)
    done = run_script("--rounds", "1", "--core", "-1", str(quiet), str(quiet), "--", "b1")
    assert done.returncode == 1
    assert "no 'run X s' line" in done.stderr


def test_a_build_that_cannot_run_is_an_error(tmp_path: Path) -> None:
    unrunnable = tmp_path / "plain"
    unrunnable.write_text("not a program\n")
    done = run_script("--rounds", "1", "--core", "-1", str(unrunnable), str(unrunnable), "--", "b1")
    assert done.returncode == 1
    assert "could not run: Permission denied" in done.stderr
    assert "Traceback" not in done.stderr


def resident_pages(path: Path) -> int:
    """How many of `path`'s pages are in the page cache: mincore(2) on a mapping of it."""
    import ctypes
    import mmap

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    size = path.stat().st_size
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        try:
            vec = (ctypes.c_ubyte * pages)()
            if libc.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore")
            return sum(b & 1 for b in vec)
        finally:
            libc.munmap(addr, size)
    finally:
        os.close(fd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page cache calls are Linux's")
def test_builds_are_dropped_from_the_page_cache(tmp_path: Path) -> None:
    # A freshly written file sits in the page cache; after the eviction none of it does.
    # (A tmpfs file lives in the page cache: then write beside the tests, on disk.)
    where = tmp_path if filesystem_of(tmp_path) != "tmpfs" else SCRIPT.parent.parent
    f = where / f"page-cache-test-{os.getpid()}.bin"
    try:
        f.write_bytes(bytes(range(256)) * 4096)  # 1 MiB
        f.read_bytes()
        assert resident_pages(f) > 0
        assert load().evict_from_page_cache(f)
        assert resident_pages(f) == 0
    finally:
        f.unlink(missing_ok=True)


def filesystem_of(path: Path) -> str:
    """The type of the filesystem `path` is on (the longest mount point above it)."""
    best, kind = "", ""
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        mount = fields[1]
        if str(path.resolve()).startswith(mount.rstrip("/") + "/") and len(mount) > len(best):
            best, kind = mount, fields[2]
    return kind

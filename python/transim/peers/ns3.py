"""Find an ns-3 installation, build transim's driver against it once, run it on a spec."""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from glob import glob
from importlib import resources
from pathlib import Path
from typing import Any

MODULES = ("core", "network", "internet", "point-to-point", "applications", "traffic-control")
INSTALL_HINT = (
    "install it with `pip install 'transim[peers]'` (the PyPI ns3 wheel) or "
    "`apt install libns3-dev`, and a C++ compiler (`apt install g++`); or point "
    "TRANSIM_NS3_PREFIX at a folder with include/ns3*/ and lib*/libns3*-core.so"
)


class Ns3Unavailable(RuntimeError):
    """ns-3 (or a compiler to build the driver) is not installed here."""


@dataclass(frozen=True)
class Ns3Install:
    """Where an ns-3 lives: its headers, its libraries and their version."""

    include: Path
    libdir: Path
    version: str
    source: str

    def describe(self) -> str:
        packaged = not self.source.startswith("TRANSIM_NS3_PREFIX")
        kind = ", a packaged build with logging compiled in" if packaged else ""
        return f"ns-3.{self.version} ({self.source}{kind})"


def _from_prefix(prefix: Path, source: str) -> Ns3Install | None:
    for lib in sorted(glob(str(prefix / "lib*" / "libns3*-core*.so"))):
        m = re.search(r"libns3\.?([\d.]+)-core", Path(lib).name)
        includes = [p for p in glob(str(prefix / "include" / "ns3*")) if Path(p).is_dir()]
        if m and includes:
            inc = Path(sorted(includes)[-1])
            # Headers are included as "ns3/core-module.h": the folder holding ns3/.
            inc = inc.parent if inc.name == "ns3" else inc
            return Ns3Install(inc, Path(lib).parent, m.group(1).rstrip("."), source)
    return None


def find_ns3() -> Ns3Install:
    """The ns-3 to use: TRANSIM_NS3_PREFIX, else the PyPI ``ns3`` package, else Debian's."""
    env = os.environ.get("TRANSIM_NS3_PREFIX")
    if env:
        found = _from_prefix(Path(env), f"TRANSIM_NS3_PREFIX={env}")
        if found is None:
            raise Ns3Unavailable(f"TRANSIM_NS3_PREFIX={env} holds no ns-3; {INSTALL_HINT}")
        return found
    spec = importlib.util.find_spec("ns3")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        found = _from_prefix(Path(loc), "PyPI ns3 package")
        if found:
            return found
    for inc in sorted(glob("/usr/include/ns3.*"), reverse=True):
        version = inc.rsplit("ns3.", 1)[1]
        libs = glob(f"/usr/lib/*/libns3.{version}-core*.so")
        if libs:
            return Ns3Install(Path(inc), Path(libs[0]).parent, version, "Debian libns3-dev")
    raise Ns3Unavailable(f"no ns-3 found; {INSTALL_HINT}")


def _driver_source() -> bytes:
    return resources.files("transim.peers").joinpath("ns3_driver.cc").read_bytes()


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "transim" / "ns3-driver"


def driver(ns3: Ns3Install) -> Path:
    """The driver program for this ns-3, compiled on first use (a few seconds) and cached
    by ns-3 version and driver source."""
    src = _driver_source()
    key = hashlib.sha256(src + str(ns3).encode()).hexdigest()[:16]
    folder = _cache_dir() / f"{ns3.version}-{key}"
    exe = folder / "ns3-driver"
    if exe.exists():
        return exe
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        raise Ns3Unavailable(f"no C++ compiler to build the ns-3 driver; {INSTALL_HINT}")
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers build it once
        if exe.exists():
            return exe
        (folder / "ns3_driver.cc").write_bytes(src)
        libs = [f"-lns3.{ns3.version}-{m}" for m in MODULES]
        tmp = folder / f"ns3-driver.{os.getpid()}"
        cmd = [
            cxx,
            "-std=c++20",
            "-O2",
            f"-I{ns3.include}",
            str(folder / "ns3_driver.cc"),
            "-o",
            str(tmp),
            f"-L{ns3.libdir}",
            f"-Wl,-rpath,{ns3.libdir}",
            *libs,
        ]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise Ns3Unavailable(
                f"building the ns-3 driver against {ns3.describe()} failed:\n" + out.stderr[-3000:]
            )
        tmp.rename(exe)
    return exe


def run_ns3(
    spec: str, ns3: Ns3Install | None = None, timeout: float | None = None
) -> dict[str, Any]:
    """Run the driver on a spec (the text :func:`translate` writes); return its JSON."""
    ns3 = ns3 or find_ns3()
    exe = driver(ns3)
    with tempfile.NamedTemporaryFile("w", suffix=".spec", delete=False) as f:
        f.write(spec)
        path = f.name
    try:
        out = subprocess.run([str(exe), path], capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        raise RuntimeError(f"the ns-3 run failed ({ns3.describe()}):\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout)
    result["ns3"] = ns3.describe()
    return result

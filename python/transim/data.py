"""Files shipped inside the package: the example, study and benchmark scenarios.

They live in the package (``transim/scenarios``, ``transim/benches``) so an installed wheel
has them; the repository's top-level ``scenarios`` and ``benches`` are links to the same
folders.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def resource(*parts: str) -> Path:
    """Path of a packaged file or folder, e.g. ``resource("scenarios", "dumbbell.toml")``."""
    return Path(str(files("transim").joinpath(*parts)))


def examples() -> list[Path]:
    """The packaged example scenarios (studies and benchmarks not included)."""
    return sorted(resource("scenarios").glob("*.toml"))

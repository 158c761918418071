"""Sweep files: a base scenario, the parameters to vary, the replications.

```toml
name = "cc-grid"
base = "../dumbbell.toml"      # relative to this file (or an inline [base] table)
replications = 5               # runs per point, each with its own derived seed
seed = 1                       # the sweep's master seed
duration = "20s"               # optional: replaces the base scenario's duration

[vary]                         # every combination of the grids ...
"tcp.cc" = ["reno", "cubic"]
"topology.bottleneck.rate" = { logspace = [1e6, 1e9, 4] }
"topology.bottleneck.delay" = { linspace = [0.01, 0.1, 3] }

[sample]                       # ... times `count` random draws of these (seeded)
count = 10
seed = 7
"topology.bottleneck.forward.loss.p" = { loguniform = [1e-4, 0.1] }
```

A run's seed is derived from the master seed, its parameters and its replication number, so
its result depends on nothing else (not on the worker that ran it, nor on the order).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..scenario import ScenarioError, assign, load


@dataclass
class RunSpec:
    """One run of a sweep: its parameters, replication number, derived seed, scenario."""

    params: dict[str, Any]
    replication: int
    seed: int
    scenario: dict[str, Any] = field(repr=False)

    @property
    def key(self) -> str:
        """What identifies the run in the store: the exact scenario it runs."""
        text = json.dumps(self.scenario, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass
class Sweep:
    """A parsed sweep file."""

    name: str
    base: dict[str, Any]
    grid: dict[str, list[Any]]
    sample: dict[str, tuple[str, float, float]]
    count: int
    sample_seed: int
    replications: int
    seed: int
    source: str = ""

    def points(self) -> list[dict[str, Any]]:
        """Every parameter combination, grids first then the random draws."""
        keys = list(self.grid)
        combos = [
            dict(zip(keys, vals, strict=True)) for vals in itertools.product(*self.grid.values())
        ]
        if not self.sample:
            return combos
        rng = random.Random(self.sample_seed)
        draws = []
        for _ in range(self.count):
            d = {}
            for k, (kind, lo, hi) in self.sample.items():
                if kind == "uniform":
                    d[k] = rng.uniform(lo, hi)
                elif kind == "loguniform":
                    d[k] = math.exp(rng.uniform(math.log(lo), math.log(hi)))
                else:
                    d[k] = rng.randint(int(lo), int(hi))
            draws.append(d)
        return [{**c, **d} for c in combos for d in draws]

    def runs(self) -> list[RunSpec]:
        """Every run: each point × each replication."""
        out = []
        for p in self.points():
            for r in range(self.replications):
                seed = derived_seed(self.seed, p, r)
                doc = json.loads(json.dumps(self.base))
                for k, v in p.items():
                    assign(doc, k, v)
                doc["seed"] = seed
                out.append(RunSpec(p, r, seed, doc))
        return out


def derived_seed(master: int, params: dict[str, Any], replication: int) -> int:
    """A run's seed from the master seed, its parameters and its replication number."""
    text = json.dumps([master, params, replication], sort_keys=True, default=str)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def _err(source: str, path: str, msg: str) -> ScenarioError:
    return ScenarioError(f"{path}: {msg}", path=path, source=source)


def _grid(source: str, key: str, v: Any) -> list[Any]:
    path = f"vary.{key}"
    if isinstance(v, list):
        if not v:
            raise _err(source, path, "is an empty list; give at least one value")
        return v
    if isinstance(v, dict) and len(v) == 1:
        ((kind, arg),) = v.items()
        if kind in ("logspace", "linspace"):
            ok = (
                isinstance(arg, list)
                and len(arg) == 3
                and all(isinstance(x, int | float) for x in arg)
                and int(arg[2]) == arg[2]
                and arg[2] >= 1
            )
            if not ok:
                raise _err(source, f"{path}.{kind}", "expected [low, high, count] numbers")
            lo, hi, n = float(arg[0]), float(arg[1]), int(arg[2])
            if kind == "logspace":
                if lo <= 0 or hi <= 0:
                    raise _err(source, f"{path}.logspace", "needs positive bounds")
                if n == 1:
                    return [lo]
                return [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
            return [lo] if n == 1 else [lo + (hi - lo) * i / (n - 1) for i in range(n)]
        if kind == "grid":
            return _grid(source, key, arg)
    raise _err(
        source,
        path,
        "expected a list of values, { grid = [...] }, { logspace = [lo, hi, n] } or "
        "{ linspace = [lo, hi, n] }",
    )


def parse(path: str | Path) -> Sweep:
    """Read and check a sweep file; errors name the field."""
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise ScenarioError(f"no such sweep file: {path}", source=source)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ScenarioError(f"not valid TOML: {e}", source=source) from None
    known = {"name", "base", "replications", "seed", "duration", "vary", "sample"}
    for k in doc:
        if k not in known:
            raise _err(source, k, f"is not a sweep field; expected one of {sorted(known)}")
    base_v = doc.get("base")
    if isinstance(base_v, str):
        base_path = (path.parent / base_v).resolve()
        base, _ = load(base_path)
    elif isinstance(base_v, dict):
        base = base_v
    else:
        raise _err(source, "base", "is required: a scenario file path or an inline table")
    if "duration" in doc:
        base["duration"] = doc["duration"]
    reps = doc.get("replications", 1)
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise _err(source, "replications", f"got {reps!r}; expected a whole number ≥ 1")
    seed = doc.get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise _err(source, "seed", f"got {seed!r}; expected a whole number ≥ 0")
    vary = doc.get("vary", {})
    if not isinstance(vary, dict):
        raise _err(source, "vary", "expected a table of parameter = values")
    grid = {k: _grid(source, k, v) for k, v in vary.items()}
    sample_t = dict(doc.get("sample", {}))
    count = sample_t.pop("count", 0)
    sample_seed = sample_t.pop("seed", seed)
    sample: dict[str, tuple[str, float, float]] = {}
    for k, v in sample_t.items():
        p = f"sample.{k}"
        if not (isinstance(v, dict) and len(v) == 1):
            raise _err(source, p, "expected { uniform | loguniform | integers = [low, high] }")
        ((kind, arg),) = v.items()
        if kind not in ("uniform", "loguniform", "integers") or not (
            isinstance(arg, list) and len(arg) == 2 and all(isinstance(x, int | float) for x in arg)
        ):
            raise _err(source, p, "expected { uniform | loguniform | integers = [low, high] }")
        lo, hi = float(arg[0]), float(arg[1])
        if hi < lo or (kind == "loguniform" and lo <= 0):
            raise _err(source, f"{p}.{kind}", "needs low ≤ high (and positive for loguniform)")
        sample[k] = (kind, lo, hi)
    if sample and (not isinstance(count, int) or count < 1):
        raise _err(source, "sample.count", f"got {count!r}; expected the number of draws ≥ 1")
    overlap = set(grid) & set(sample)
    if overlap:
        raise _err(source, "sample", f"{sorted(overlap)} also appear in [vary]")
    name = doc.get("name", path.stem)
    return Sweep(str(name), base, grid, sample, count, int(sample_seed), reps, seed, source)

#!/usr/bin/env python3
"""Time two (or more) builds of the engine benchmark against each other on a noisy machine.

Every performance claim in README's Benchmarks section was measured this way: the builds run
one after the other, alternating, pinned to one core, and every ``run X s`` line the engine
benchmark prints counts as one sample. The minimum is the steadiest statistic on shared
machines (noise only adds time); the first quartile and the median show whether the minimum
was luck. Ratios are against the first build. Where the host's speed drifts over minutes
(one build's B5 taking 1.4-1.9 s from run to run), the minima do not settle: ``paired`` is
the mean over the rounds of each round's ratio to the first build, with its standard error
(the rounds run the builds in alternating order), which cancels the drift.

Build each binary from its commit first, for example::

    git switch --detach OLD && cargo bench -p transim-core --bench engine --no-run
    cp target/release/deps/engine-<hash> /tmp/engine.old     # the path cargo printed
    git switch main && cargo bench -p transim-core --bench engine --no-run
    cp target/release/deps/engine-<hash> /tmp/engine.new

then::

    python3 scripts/compare_engines.py --rounds 8 /tmp/engine.old /tmp/engine.new -- b5 0.002
    python3 scripts/compare_engines.py --rounds 4 /tmp/engine.old /tmp/engine.new \\
        -- stages $(printf 'b1 %.0s' $(seq 30))

(Give B1 thirty times per process: one B1 run is a few milliseconds.) ``--control`` adds a
fresh copy of the first build as a further build and says how far from 1 its ratio came: on
these VMs copies of one build have read up to 4 % apart within minutes, further than the
paired standard error admits, so a difference counts only beyond that. Each build is first
dropped from the page cache, so that the loader reads every build's code back the same way:
on this project's VMs a byte-identical copy of one build, left in the pages ``cp`` wrote,
ran 4-7 % slower than the original until the caches were dropped. Give one build twice to
see the noise of the moment (an A/A run). Instruction counts,
which do not vary at all, come from ``valgrind --tool=callgrind
--toggle-collect='*run_streamed*' BINARY stages b1``.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

RUN_TIME = re.compile(r"\brun (\d+(?:\.\d+)?) s\b")


@dataclass(frozen=True)
class Summary:
    """One build's samples, summarised."""

    name: str
    n: int
    minimum: float
    q1: float
    median: float


def run_times(output: str) -> list[float]:
    """Every ``run X s`` the engine benchmark printed, in seconds."""
    return [float(m.group(1)) for m in RUN_TIME.finditer(output)]


def summarise(name: str, samples: list[float]) -> Summary:
    """Minimum, first quartile (the sample a quarter of the way up) and median."""
    if not samples:
        raise ValueError(f"{name}: no 'run X s' line in its output")
    s = sorted(samples)
    return Summary(name, len(s), s[0], s[len(s) // 4], statistics.median(s))


def paired(first: list[float], other: list[float]) -> tuple[float, float | None]:
    """Mean of the per-round ratios `other / first` and its standard error (None from one
    round): with the host's speed drifting over minutes, comparing each round's runs with
    each other cancels the drift that the minima and quartiles keep."""
    ratios = [b / a for a, b in zip(first, other, strict=True)]
    if len(ratios) < 2:
        return ratios[0], None
    return statistics.mean(ratios), statistics.stdev(ratios) / math.sqrt(len(ratios))


def table(summaries: list[Summary], per_round: list[list[float]] | None = None) -> str:
    """The summaries with their ratios to the first one, and (given each build's run time
    in every round) the paired ratio to the first."""
    base = summaries[0]
    width = max(len(s.name) for s in summaries)
    lines = []
    for i, s in enumerate(summaries):
        line = (
            f"{s.name:<{width}}  n={s.n:<4} min {s.minimum:.6f}  q1 {s.q1:.6f}  "
            f"median {s.median:.6f}   ratio min {s.minimum / base.minimum:.3f}  "
            f"q1 {s.q1 / base.q1:.3f}  median {s.median / base.median:.3f}"
        )
        if per_round is not None and i > 0:
            mean, se = paired(per_round[0], per_round[i])
            line += f"  paired {mean:.3f}" + (f" ± {se:.3f}" if se is not None else "")
        lines.append(line)
    return "\n".join(lines)


def evict_from_page_cache(path: Path) -> bool:
    """Write back and drop `path`'s pages from the page cache (Linux); False where the
    platform cannot."""
    if not hasattr(os, "posix_fadvise"):
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return True


def run_once(binary: Path, args: list[str], core: int | None) -> str:
    """One run of `binary` with `args`, pinned to `core` when taskset exists."""
    cmd = [str(binary), *args]
    if core is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(core), *cmd]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise RuntimeError(f"{binary} could not run: {e.strerror}") from e
    if done.returncode != 0:
        raise RuntimeError(f"{binary} exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout + done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Alternate engine benchmark builds and compare their run times.",
        epilog="Arguments after -- go to every binary (e.g. -- b5 0.002).",
    )
    parser.add_argument("binaries", nargs="+", type=Path, help="two or more benchmark builds")
    parser.add_argument("--rounds", type=int, default=6, help="runs of each build (default 6)")
    parser.add_argument(
        "--core", type=int, default=1, help="CPU to pin the runs to (default 1; -1: none)"
    )
    parser.add_argument(
        "--control",
        action="store_true",
        help="also run a fresh copy of the first build, as if it were another build: "
        "its ratio is the noise a difference must clear (copies of one build have read up "
        "to 4 %% apart on these VMs)",
    )
    if argv is None:
        argv = sys.argv[1:]
    bench_args: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, bench_args = argv[:cut], argv[cut + 1 :]
    opts = parser.parse_args(argv)
    if len(opts.binaries) < 2:
        parser.error(f"binaries: got {len(opts.binaries)}, need at least two to compare")
    if opts.rounds < 1:
        parser.error(f"--rounds: got {opts.rounds}, need at least 1")
    for b in opts.binaries:
        if not b.is_file():
            parser.error(f"binaries: {b} is not a file")
    if not bench_args:
        parser.error("no benchmark arguments after -- (for example: -- b5 0.002)")
    core = None if opts.core < 0 else opts.core
    with tempfile.TemporaryDirectory() as tmp:
        builds = list(opts.binaries)
        names = [str(b) for b in builds]
        if opts.control:
            # A file of its own, as a rebuilt binary would be: copies of one build have run
            # several per cent apart, and that is the noise any difference must clear.
            copy = Path(tmp) / "control"
            shutil.copy2(builds[0], copy)
            builds.append(copy)
            names.append(f"{builds[0]} (control copy)")
        return compare(builds, names, bench_args, opts.rounds, core, opts.control)


def compare(
    builds: list[Path],
    names: list[str],
    bench_args: list[str],
    rounds: int,
    core: int | None,
    control: bool,
) -> int:
    """Run `builds` (shown as `names`) in alternating rounds and print the comparison; with
    `control`, the last build is a copy of the first and its ratio is reported as the
    noise."""
    # The same build given twice (an A/A test of the noise) keeps two sets of samples.
    names = [n if names.count(n) == 1 else f"{n}#{i + 1}" for i, n in enumerate(names)]
    samples: dict[str, list[float]] = {n: [] for n in names}
    per_round: dict[str, list[float]] = {n: [] for n in names}
    for b in set(builds):
        evict_from_page_cache(b)
    for r in range(rounds):
        print(f"round {r + 1}/{rounds}", file=sys.stderr, flush=True)
        # Every other round in the reverse order, so that a drift within a round favours
        # no build.
        order = list(zip(builds, names, strict=True))
        for b, n in order if r % 2 == 0 else reversed(order):
            try:
                times = run_times(run_once(b, bench_args, core))
            except RuntimeError as e:
                print(f"compare_engines: {e}", file=sys.stderr)
                return 1
            samples[n] += times
            per_round[n].append(sum(times))
    try:
        print(
            table(
                [summarise(n, samples[n]) for n in names],
                [per_round[n] for n in names],
            )
        )
    except ValueError as e:
        print(f"compare_engines: {e}", file=sys.stderr)
        return 1
    if control:
        mean, se = paired(per_round[names[0]], per_round[names[-1]])
        spread = abs(mean - 1) + (2 * se if se is not None else 0)
        print(
            f"control: a copy of the first build reads {mean:.3f}"
            + (f" ± {se:.3f}" if se is not None else "")
            + f"; ratios within 1 ± {spread:.3f} of the first are not shown to differ"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

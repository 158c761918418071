"""Watching a long run: a progress bar on stderr (after two seconds of wall time, and only on
a terminal) and a wall-time limit. An instance is the ``progress`` callback of
:func:`transim.run`."""

from __future__ import annotations

import re
import sys
import time

from tqdm import tqdm

_PER_SECOND = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}


def seconds(duration: str) -> float:
    """A normalised duration ("30s", "500ms", "100us", "10ns") in seconds."""
    m = re.fullmatch(r"(\d+)(s|ms|us|ns)", duration)
    if not m:
        raise ValueError(f"not a normalised duration: {duration!r}")
    return int(m.group(1)) / _PER_SECOND[m.group(2)]


class Progress:
    """Shows simulated time / duration, simulated seconds per wall second, ETA and events/s;
    stops the run (returns False) once ``max_wall`` seconds of wall time have passed."""

    def __init__(self, duration: float, show: bool, max_wall: float | None = None) -> None:
        self.duration = duration
        self.show = show
        self.max_wall = max_wall
        self.t0 = time.monotonic()
        self.bar: tqdm | None = None
        self.hit_limit = False

    def __call__(self, simulated: float, events: int) -> bool:
        wall = time.monotonic() - self.t0
        if self.max_wall is not None and wall > self.max_wall:
            self.hit_limit = True
            return False
        if self.show and wall > 2.0:
            if self.bar is None:
                self.bar = tqdm(
                    total=round(self.duration, 6),
                    unit="sim s",
                    file=sys.stderr,
                    bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} sim s [{elapsed}<{remaining}"
                    "{postfix}]",
                )
            self.bar.n = min(simulated, self.duration)
            self.bar.set_postfix_str(f"{events / wall / 1e6:.1f} M events/s", refresh=False)
            self.bar.refresh()
        return True

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

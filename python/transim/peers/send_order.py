"""Two simulators' data transmissions of one flow, side by side in the order they were sent:
where the first one differs is where their loss recovery (or anything before it) parted.

Each side is a list of (send time, sequence number) of every data segment the sender put on
the wire, retransmissions included. Both count sequence numbers from an initial sequence
number of 0, so the first data byte is 1 in either.

Send times drift apart slowly even where the two agree (ns-3's point-to-point devices add a
2-byte PPP header to every frame), so a time counts as different only where the gap between
the two sides' send times jumps: by more than ``tolerance`` from one transmission to the next.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path


@dataclass
class SendOrder:
    """One flow's transmissions in transim and in ns-3."""

    flow: int
    mss: int
    transim: list[tuple[float, int]]
    ns3: list[tuple[float, int]]
    #: Seconds by which the gap between the two send times may change from one
    #: transmission to the next before the later one counts as sent at another time.
    tolerance: float = 1e-3

    def first_difference(self) -> int | None:
        """Index of the first transmission that is not the same segment on both sides, or
        not sent at the same time (the gap between the sides' send times jumps by more than
        ``tolerance``), or that one side made and the other did not; None when both sent the
        same segments in the same order at the same times."""
        gap = 0.0
        for k, (a, b) in enumerate(zip(self.transim, self.ns3, strict=False)):
            if a[1] != b[1] or abs((a[0] - b[0]) - gap) > self.tolerance:
                return k
            gap = a[0] - b[0]
        if len(self.transim) != len(self.ns3):
            return min(len(self.transim), len(self.ns3))
        return None

    def max_time_gap(self, upto: int | None = None) -> float:
        """The largest difference in send time over the first ``upto`` transmissions (all
        those both made, by default)."""
        pairs = list(zip(self.transim, self.ns3, strict=False))[:upto]
        return max((abs(a[0] - b[0]) for a, b in pairs), default=0.0)

    def _segment(self, seq: int) -> str:
        """A sequence number as the 1-based segment it starts (for full-sized segments)."""
        k, rest = divmod(seq - 1, self.mss)
        return f"segment {k + 1}" if rest == 0 else f"byte {seq - 1}"

    def describe(self) -> str:
        """One line: how far the two agree and where they part."""
        n, m = len(self.transim), len(self.ns3)
        k = self.first_difference()
        head = f"flow {self.flow} transmissions (transim {n:,}, ns-3 {m:,}): "
        if k is None:
            return head + (
                f"the same segments in the same order, send times within "
                f"{self.max_time_gap() * 1e3:.3f} ms"
            )
        same = f"the first {k:,} agree (times within {self.max_time_gap(k) * 1e3:.3f} ms); "
        if k == 0:
            same = ""
        if k >= min(n, m):
            longer = "transim" if n > m else "ns-3"
            return head + same + f"then only {longer} sends more before the run ends"
        (ta, sa), (tb, sb) = self.transim[k], self.ns3[k]
        return (
            head
            + same
            + (
                f"transmission {k + 1}: transim sends {self._segment(sa)} at {ta:.6f} s, "
                f"ns-3 {self._segment(sb)} at {tb:.6f} s"
            )
        )

    def write_csv(self, path: Path) -> Path:
        """Both sides row by row: index, transim's time and sequence number, ns-3's."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["transmission", "transim_time", "transim_seq", "ns3_time", "ns3_seq"])
            for k in range(max(len(self.transim), len(self.ns3))):
                a = self.transim[k] if k < len(self.transim) else ("", "")
                b = self.ns3[k] if k < len(self.ns3) else ("", "")
                w.writerow([k + 1, *a, *b])
        return path

"""A cut from the window, or of a window counted in packets, leaves ssthresh a whole number of
segments (at least two), as Linux's integer arithmetic does (``tcp_reno_ssthresh``: cwnd >> 1;
CUBIC: cwnd · 717 >> 10), and ns-3's ``TcpCubic`` and ``TcpLinuxReno`` (whole segments of
cwnd). Before, the linux-2.6 profile cut 27 packets to 13.5 and carried half a packet of
cwnd into a window it counts in packets."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import transim
from transim.peers.grid import base


def cuts(tcp: dict[str, Any]) -> list[tuple[float, float]]:
    """(cwnd before, ssthresh after) in segments for every cut on the grid's path with a
    20-packet queue, 20 s."""
    doc: dict[str, Any] = base()
    doc["tcp"] = tcp
    doc["topology"]["bottleneck"]["queue"] = 20
    doc["duration"] = "20s"
    r = transim.run(doc, trace_flows=True)
    tr, mss = r.flow_trace(0), r.flows[0]["mss"]
    cwnd, ss = np.asarray(tr["cwnd"]) / mss, np.asarray(tr["ssthresh"]) / mss
    changed = np.flatnonzero(ss[1:] != ss[:-1]) + 1
    return [(float(cwnd[i - 1]), float(ss[i])) for i in changed]


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_linux_profile_cuts_to_whole_packets(cc: str) -> None:
    seen = cuts({"profile": "linux-2.6", "cc": cc})
    assert len(seen) >= 3
    assert all(s == int(s) and s >= 2 for _, s in seen), seen
    if cc == "reno":
        # A cut at an odd window: half of it rounded down.
        odd = [(w, s) for w, s in seen if w % 2 == 1 and w < 60]
        assert odd and all(s == (w - 1) / 2 for w, s in odd), seen


def test_cubic_cut_from_the_window_is_beta_cwnd_in_whole_segments() -> None:
    """CUBIC cutting from cwnd (halving_base = "window") in a byte-counted window: ssthresh =
    floor(0.7 · cwnd in segments), ns-3's and Linux's cut; cutting FlightSize stays in bytes."""
    seen = cuts({"cc": "cubic", "halving_base": "window"})
    assert len(seen) >= 3
    for w, s in seen[1:]:
        assert s == max(int(int(w) * 0.7), 2), (w, s)
    flight = cuts({"cc": "cubic", "halving_base": "flight"})
    assert any(s != int(s) for _, s in flight[1:]), flight

"""``tcp.byte_counting``: slow start's growth per ACK, RFC 5681's one MSS at most, RFC 3465's
two, or every byte acknowledged (Linux's slow start, ns-3's CUBIC)."""

from __future__ import annotations

from typing import Any

import pytest
import transim
from transim.peers.grid import base
from transim.scenario import ScenarioError


def slow_start_steps(counting: str) -> list[int]:
    """cwnd's increments (segments) over the first slow start on the grid's clean path, with
    an ACK per two segments."""
    doc: dict[str, Any] = base()
    doc["duration"] = "0.3s"
    doc["tcp"]["byte_counting"] = counting
    r = transim.run(doc, trace_flows=True)
    mss = r.flows[0]["mss"]
    cwnd = [int(c) // mss for c in r.flow_trace(0)["cwnd"]]
    return [b - a for a, b in zip(cwnd, cwnd[1:], strict=False) if b != a]


def test_an_ack_of_two_segments_adds_one_or_two() -> None:
    assert set(slow_start_steps("off")) == {1}
    steps = slow_start_steps("full")
    # Every delayed ACK covers two segments; the only one-segment ACK is the timer's for a
    # lone segment, if any.
    assert steps.count(2) > 10 and set(steps) <= {1, 2}
    assert slow_start_steps("rfc3465") == steps


def test_the_initial_windows_acks_give_one_and_a_half_or_two_windows() -> None:
    """The initial window's 10 segments draw 5 delayed ACKs: cwnd 10 -> 15 with one MSS per
    ACK, 10 -> 20 with bytes counted (a round's growth: by half, or doubling)."""
    assert 10 + sum(slow_start_steps("off")[:5]) == 15
    assert 10 + sum(slow_start_steps("full")[:5]) == 20


def test_byte_counting_needs_bytes() -> None:
    doc = base()
    doc["tcp"].update(byte_counting="full", profile="ns2")
    with pytest.raises(ScenarioError) as e:
        transim.run(doc)
    assert "tcp.byte_counting" in str(e.value) and "cwnd_unit" in str(e.value)
    doc = base()
    doc["tcp"]["byte_counting"] = "all"
    with pytest.raises(ScenarioError) as e:
        transim.run(doc)
    for name in ("off", "rfc3465", "full"):
        assert name in str(e.value)


def steps_after_first_timeout(counting: str) -> tuple[list[float], list[float], int]:
    """cwnd's changes (segments) in slow start before and after the first timeout, on the
    grid's long path (150 ms each way, 300-packet queue) with CUBIC, whose first slow start
    overflows the queue by hundreds of segments and whose recovery of them times out; and the
    run's timeouts."""
    doc: dict[str, Any] = base()
    doc["topology"]["bottleneck"].update(delay="150ms", queue=300)
    doc["tcp"].update(cc="cubic", byte_counting=counting)
    r = transim.run(doc, trace_flows=True)
    f, tr = r.flows[0], r.flow_trace(0)
    mss = f["mss"]
    t, cwnd, ssthresh = tr["t"], tr["cwnd"] / mss, tr["ssthresh"] / mss
    before: list[float] = []
    after: list[float] = []
    for i in range(1, len(t)):
        if cwnd[i - 1] < ssthresh[i - 1] and cwnd[i] > cwnd[i - 1]:
            (after if t[i] > f["first_timeout"] else before).append(cwnd[i] - cwnd[i - 1])
    return before, after, f["timeouts"]


def test_after_a_timeout_an_ack_counts_only_the_bytes_it_newly_delivers() -> None:
    """Counting every byte, the ACK that fills a hole after a timeout covers the data SACKed
    above it, which the receiver already held: Linux and ns-3 count what the ACK newly
    delivers. Counting the whole advance, one ACK here grew cwnd by 1,004 segments (at
    84a6317; with ns-3's conventions, 409 to 990), and the bursts cost 18 timeouts in 60 s
    with those conventions (README, the CUBIC row of the cross-validation)."""
    before, after, timeouts = steps_after_first_timeout("full")
    assert timeouts >= 1 and len(after) > 100
    assert max(before) == 2 and max(after) <= 2, max(after)
    assert after.count(2) > 10


def test_after_a_timeout_rfc3465_grows_one_segment_per_ack() -> None:
    """RFC 3465's L is one SMSS in the slow start after a timeout (two before it)."""
    before, after, timeouts = steps_after_first_timeout("rfc3465")
    assert timeouts >= 1 and len(after) > 100
    assert max(before) == 2 and max(after) == 1

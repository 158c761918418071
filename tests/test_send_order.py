"""SendOrder: where two simulators' transmissions of one flow first differ."""

from __future__ import annotations

import csv
from pathlib import Path

from transim.peers.send_order import SendOrder

MSS = 1000


def sends(times: list[float], segments: list[int]) -> list[tuple[float, int]]:
    """(time, seq) of 1-based full-sized segments."""
    return [(t, (k - 1) * MSS + 1) for t, k in zip(times, segments, strict=True)]


def test_the_same_segments_at_the_same_times_agree() -> None:
    a = sends([0.0, 0.1, 0.2], [1, 2, 3])
    o = SendOrder(0, MSS, a, list(a))
    assert o.first_difference() is None
    assert "the same segments in the same order" in o.describe()


def test_a_slow_drift_is_not_a_difference_but_a_jump_is() -> None:
    ours = sends([0.0, 0.1, 0.2, 0.3, 0.4], [1, 2, 3, 4, 5])
    # 0.4 ms later per transmission: drift below the 1 ms tolerance at every step.
    drift = [(t + 0.0004 * k, s) for k, (t, s) in enumerate(ours)]
    assert SendOrder(0, MSS, ours, drift).first_difference() is None
    # The fourth comes 3 ms earlier on the other side: that is where they part.
    jump = list(drift)
    jump[3] = (jump[3][0] - 0.003, jump[3][1])
    o = SendOrder(0, MSS, ours, jump)
    assert o.first_difference() == 3
    assert "transmission 4: transim sends segment 4 at 0.300000 s" in o.describe()
    assert "the first 3 agree" in o.describe()


def test_another_segment_is_a_difference() -> None:
    o = SendOrder(2, MSS, sends([0, 1, 2], [1, 2, 3]), sends([0, 1, 2], [1, 2, 2]))
    assert o.first_difference() == 2
    assert "transim sends segment 3" in o.describe() and "ns-3 segment 2" in o.describe()
    assert o.describe().startswith("flow 2 transmissions (transim 3, ns-3 3)")


def test_one_side_sending_more_is_a_difference_at_the_end() -> None:
    o = SendOrder(0, MSS, sends([0, 1], [1, 2]), sends([0, 1, 2], [1, 2, 3]))
    assert o.first_difference() == 2
    assert "then only ns-3 sends more" in o.describe()


def test_a_partial_segment_is_named_by_its_byte_offset() -> None:
    o = SendOrder(0, MSS, [(0.0, 1), (1.0, 501)], [(0.0, 1), (1.0, 1001)])
    assert o.first_difference() == 1
    assert "transim sends byte 500" in o.describe() and "ns-3 segment 2" in o.describe()


def test_the_csv_holds_both_sides_row_by_row(tmp_path: Path) -> None:
    o = SendOrder(0, MSS, sends([0.0, 0.5], [1, 2]), sends([0.0], [1]))
    path = o.write_csv(tmp_path / "sent.csv")
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["transmission", "transim_time", "transim_seq", "ns3_time", "ns3_seq"]
    assert rows[1] == ["1", "0.0", "1", "0.0", "1"]
    assert rows[2] == ["2", "0.5", "1001", "", ""]

"""The Fall & Floyd timelines to the nanosecond through t = 6 s: transim's ns2 profile against
ns-2.35's agents restated in `ns2ref` (every packet the sender sends and every ACK the sink
sends, with its time in ns), for Tahoe, Reno, NewReno and Sack1, with no forced drop (the
8-packet queue overflows by itself), 1–4 and 8 forced drops, with and without Limited
Transmit (ns-2's `singledup_`)."""

from __future__ import annotations

import ns2_compare
import ns2ref
import pytest

DROPS = {0: [], 1: [16], 2: [16, 18], 3: [16, 18, 20], 4: [16, 18, 20, 22]}
DROPS[8] = [16, 18, 20, 22, 24, 26, 28, 30]
VARIANTS = ("tahoe", "reno", "newreno", "sack1")


def test_reference_model_first_rounds_by_hand() -> None:
    """The restatement itself against a hand computation: the 40-byte SYN at 1 s takes
    40 µs + 400 µs + 100 ms to the sink, its 40-byte ACK 400 µs + 100 ms + 40 µs back, so
    packets 1 and 2 (windowInit_ 2) leave at 1.20088 s; packet 1 takes 1.04 ms + 10.4 ms +
    100 ms, its ACK 100.44 ms more: packets 3 and 4 (slow start: cwnd 3) leave at 1.41276 s."""
    tl = ns2ref.fall_floyd("tahoe", [], until=2 * ns2ref.SEC)
    assert tl.sent[:5] == [
        (1_000_000_000, 0),
        (1_200_880_000, 1),
        (1_200_880_000, 2),
        (1_412_760_000, 3),
        (1_412_760_000, 4),
    ]
    assert tl.acks[:2] == [(1_100_440_000, 0), (1_312_320_000, 1)]


def first_difference(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> str | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"row {i}: transim {x}, ns-2 {y}"
    if len(a) != len(b):
        return f"transim has {len(a)} rows, ns-2 {len(b)}"
    return None


@pytest.mark.parametrize("limited_transmit", [True, False], ids=["lt", "no-lt"])
@pytest.mark.parametrize("drops", sorted(DROPS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_timeline_matches_ns2_to_the_nanosecond(
    variant: str, drops: int, limited_transmit: bool
) -> None:
    ref = ns2ref.fall_floyd(variant, DROPS[drops], limited_transmit=limited_transmit)
    doc = ns2_compare.scenario(variant, DROPS[drops], limited_transmit=limited_transmit)
    sent, acks = ns2_compare.transim_timeline(doc)
    assert len(ref.sent) > 100  # the run reaches well past the recovery episodes
    assert first_difference(sent, ref.sent) is None, first_difference(sent, ref.sent)
    assert first_difference(acks, ref.acks) is None, first_difference(acks, ref.acks)

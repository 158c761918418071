"""The Fall & Floyd timelines to the nanosecond through t = 6 s: transim's ns2 profile against
ns-2.35's agents restated in `ns2ref` (every packet the sender sends and every ACK the sink
sends, with its time in ns), for Tahoe, Reno, NewReno and Sack1, with no forced drop (the
8-packet queue overflows by itself), 1–4 and 8 forced drops, lost retransmissions (which end
in timeouts), with and without Limited Transmit (ns-2's `singledup_`); then seeded random
drop patterns over other windows, queue limits and `precisionReduce_` settings."""

from __future__ import annotations

import random
from typing import Any

import ns2_compare
import ns2ref
import pytest

Drops = list[int | tuple[int, int]]
DROPS: dict[str, Drops] = {
    "0": [],
    "1": [16],
    "2": [16, 18],
    "3": [16, 18, 20],
    "4": [16, 18, 20, 22],
    "8": [16, 18, 20, 22, 24, 26, 28, 30],
    "rtx-lost": [16, (16, 2)],
    "4+rtx-lost": [16, 18, 20, 22, (18, 2)],
}
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


def check(variant: str, drops: Drops, until_s: float = 6.0, **kw: Any) -> None:
    ref = ns2ref.fall_floyd(variant, drops, until=int(until_s * ns2ref.SEC), **kw)
    sent, acks = ns2_compare.transim_timeline(
        ns2_compare.scenario(variant, drops, until_s=until_s, **kw)
    )
    assert len(ref.sent) > 40  # the run goes on past the recovery episodes
    assert first_difference(sent, ref.sent) is None, first_difference(sent, ref.sent)
    assert first_difference(acks, ref.acks) is None, first_difference(acks, ref.acks)


@pytest.mark.parametrize("limited_transmit", [True, False], ids=["lt", "no-lt"])
@pytest.mark.parametrize("drops", list(DROPS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_timeline_matches_ns2_to_the_nanosecond(
    variant: str, drops: str, limited_transmit: bool
) -> None:
    check(variant, DROPS[drops], limited_transmit=limited_transmit)


def test_lost_retransmissions_end_in_timeouts_in_the_reference() -> None:
    """The lost-retransmission cases do reach ns-2's timeout path (so the match above covers
    it): every variant times out once the retransmission of segment 16 is lost too."""
    for variant in VARIANTS:
        assert ns2ref.fall_floyd(variant, DROPS["rtx-lost"]).timeouts, variant


def random_cases(seed: int, n: int) -> list[tuple[str, Drops, dict[str, Any]]]:
    """Drop patterns anywhere in the first 200 packets (some retransmissions lost too), over
    windows of 8–64 packets, bottleneck queues of 3–50 and both precisionReduce_ settings;
    kept only where the restatement's simplification holds (ns-2's RTO is its minrto_)."""
    rng = random.Random(seed)
    cases: list[tuple[str, Drops, dict[str, Any]]] = []
    while len(cases) < n:
        picked = sorted(rng.sample(range(3, 200), rng.randint(0, 8)))
        drops: Drops = [*picked, *((p, 2) for p in picked if rng.random() < 0.3)]
        kw: dict[str, Any] = {
            "limited_transmit": rng.random() < 0.5,
            "precision_reduce": rng.random() < 0.7,
            "window": rng.choice([8, 12, 20, 28, 40, 64]),
            "queue": rng.choice([3, 5, 8, 12, 20, 50]),
        }
        variant = rng.choice(VARIANTS)
        try:
            ns2ref.fall_floyd(variant, drops, until=10 * ns2ref.SEC, **kw)
        except AssertionError:
            continue
        cases.append((variant, drops, kw))
    return cases


@pytest.mark.parametrize("case", range(24))
def test_random_drop_patterns_match_ns2(case: int) -> None:
    variant, drops, kw = random_cases(2026, 24)[case]
    check(variant, drops, until_s=10.0, **kw)

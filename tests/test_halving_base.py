"""What ssthresh halves on a fast retransmit, by hand: one drop of segment 30 on a clean
10 Mb/s path, IW 10, delayed ACKs every second segment, Limited Transmit on. The window is 25
segments when the drop is found; without SACK, Limited Transmit sends 2 more on the first two
duplicate ACKs, so 27 are out when the third arrives."""

from __future__ import annotations

from typing import Any

import pytest
from transim import run

SCENARIO: dict[str, Any] = {
    "name": "halving",
    "duration": "1s",
    "tcp": {
        "profile": "rfc",
        "cc": "reno",
        "timestamps": True,
        "initial_window": 10,
        "nagle": "off",
        "delayed_ack": "on",
        "rcv_buf": "16MiB",
    },
    "topology": {
        "kind": "dumbbell",
        "access": {"rate": "1Gbps", "delay": "0ms", "queue": 1000},
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "20ms",
            "queue": 1000,
            "forward": {"drops": {"segments": [{"segment": 30}]}},
        },
    },
    "flows": [{"app": {"kind": "bulk"}}],
}


def ssthresh_after_the_loss(**tcp: object) -> float:
    doc = {**SCENARIO, "tcp": {**SCENARIO["tcp"], **tcp}}
    res = run(doc, trace_flows=True)
    tr = res.flow_trace(0)
    mss = res.flows[0]["mss"]
    assert res.flows[0]["fast_retransmits"] == 1 and res.flows[0]["timeouts"] == 0
    values = {round(float(x) / mss, 3) for x in tr["ssthresh"] if x < 2**40}
    assert len(values) == 1, values
    return values.pop()


@pytest.mark.parametrize(
    "tcp, expected",
    [
        # RFC 5681 eq. (4): FlightSize / 2 = 27 / 2.
        ({"recovery": "newreno", "halving_base": "flight"}, 13.5),
        # min(cwnd, rwnd) / 2 in whole segments: ⌊25 / 2⌋, as Linux's tcp_reno_ssthresh
        # (cwnd >> 1) and ns-2's halving of its window give it (12.5 before 2026-11-29).
        ({"recovery": "newreno", "halving_base": "window"}, 12.0),
        # ns-3 without SACK: 27 less the three duplicate ACKs counted as SACKed (two from
        # Limited Transmit, one at the fast retransmit), less the head (lost), plus the head
        # back in: 24 / 2.
        ({"recovery": "newreno", "halving_base": "pipe"}, 12.0),
        # ... with Limited Transmit off, only 25 are out and one duplicate ACK counts: 24 / 2.
        ({"recovery": "newreno", "halving_base": "pipe", "limited_transmit": False}, 12.0),
        # With SACK, RFC 6675 counts the first ACK that SACKs segment 31 as a duplicate too,
        # although it also acknowledges segment 29 cumulatively: the third comes one ACK
        # sooner, after one Limited Transmit segment, with 26 out. FlightSize / 2 = 13;
        # ns-3's pipe: 26 less 3 SACKed less the lost head = 22, halved 11.
        ({"recovery": "rfc6675", "sack": True, "halving_base": "flight"}, 13.0),
        ({"recovery": "rfc6675", "sack": True, "halving_base": "pipe"}, 11.0),
    ],
)
def test_ssthresh_on_the_fast_retransmit(tcp: dict, expected: float) -> None:
    assert ssthresh_after_the_loss(**tcp) == expected

"""``tcp.cwnd_growth``: whether an ACK grows cwnd while the window is not what limits the
sender. ``"always"`` grows on every ACK of new data (RFC 5681's text, ns-2); with
``"cwnd_limited"`` only while the last send found no room in cwnd for another full segment
(Linux 2.6's ``tcp_is_cwnd_limited`` without TSO, ns-3's ``TcpCubic``), so a sender held back
by the receive window does not grow a window it never uses (RFC 9438 §5.8, RFC 7661);
``"linux"`` is Linux's rule from 3.16 (a limited finding holds for the window, and slow start
grows while cwnd is below twice the most segments in flight)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
import transim
from transim import _core
from transim.peers.grid import base
from transim.scenario import ScenarioError, to_json

RWND = 65_536


def rwnd_limited(
    cc: str, growth: str, profile: str = "rfc", duration: str = "2s", ssthresh: int | None = None
) -> transim.Result:
    """One flow whose 64 KiB receive window (45 segments of 1,448 bytes: 65,160 bytes in
    flight at most) is an eighth of a 100 Mb/s, 40 ms path's 500 kB: nothing is ever lost
    or queued."""
    doc: dict[str, Any] = base()
    doc["duration"] = duration
    doc["topology"]["bottleneck"]["rate"] = "100Mbps"
    doc["tcp"].update(cc=cc, rcv_buf=RWND, cwnd_growth=growth, profile=profile)
    if ssthresh is not None:
        doc["tcp"]["initial_ssthresh"] = ssthresh
    return transim.run(doc, trace_flows=True)


@pytest.mark.parametrize(
    ("cc", "profile"), [("reno", "rfc"), ("cubic", "rfc"), ("reno", "linux-2.6")]
)
def test_a_receive_window_limited_sender_stops_growing_a_window_it_does_not_use(
    cc: str, profile: str
) -> None:
    """The flight is at most 45 segments (65,160 bytes). Once cwnd has room for a 46th
    (66,608 bytes) a send ends with room to spare, and no later ACK grows cwnd; the ACK
    before that added at most one MSS (slow start, one MSS per ACK). Growing on every ACK
    instead, cwnd climbs by one MSS per ACK for the whole run, though the same segments go out
    at the same times. The linux-2.6 profile counts cwnd in packets: the same bound, in
    whole segments."""
    held = rwnd_limited(cc, "cwnd_limited", profile)
    grown = rwnd_limited(cc, "always", profile)
    mss = held.flows[0]["mss"]
    assert mss == 1_448
    flight_max = RWND // mss * mss
    cwnd_held = held.flow_trace(0)["cwnd"]
    assert flight_max + mss <= cwnd_held.max() < flight_max + 2 * mss
    assert grown.flow_trace(0)["cwnd"].max() > 20 * RWND
    for f, g in zip(held.flows, grown.flows, strict=True):
        assert f["data_packets_delivered"] == g["data_packets_delivered"] > 2_000
        assert f["retransmissions"] == g["retransmissions"] == 0
    # The window stops within the first second and stays.
    t = held.flow_trace(0)["t"]
    assert np.all(cwnd_held[t > 1.0] == cwnd_held[-1])


def test_linux_lets_slow_start_reach_twice_the_flight() -> None:
    """Linux from 3.16 grows slow start while cwnd < 2 x max_packets_out: with 45 segments in
    flight at most, one MSS per ACK stops at exactly 90 segments (Linux 2.6's rule at 46)."""
    held = rwnd_limited("reno", "linux").flow_trace(0)["cwnd"]
    assert held.max() == 2 * (RWND // 1_448) * 1_448


def test_linux_holds_congestion_avoidance_one_window_past_the_last_full_send() -> None:
    """From an ssthresh of 10 segments, Reno's avoidance reaches the receive window's 45
    segments after about 4 s. Growing on every ACK it goes on to 72 segments by 6 s; Linux
    2.6's rule stops at 46 (room for the 46th ends it); Linux's later rule keeps the last
    full send's finding until that window is acknowledged, one more window of avoidance:
    at most one segment more."""
    peak = {
        g: rwnd_limited("reno", g, duration="6s", ssthresh=14_480).flow_trace(0)["cwnd"].max()
        / 1_448
        for g in ("always", "cwnd_limited", "linux")
    }
    assert peak["always"] > 70
    assert 46 <= peak["cwnd_limited"] < 46.1
    assert peak["cwnd_limited"] < peak["linux"] <= 47


def steady(cc: str, growth: str, cwnd_unit: str = "bytes") -> list[dict[str, Any]]:
    """Two bulk flows sharing the grid's 10 Mb/s path with 1 % loss: every send ends at the
    window's edge."""
    doc: dict[str, Any] = base()
    doc["duration"] = "20s"
    doc["topology"]["bottleneck"]["forward"] = {"loss": {"model": "bernoulli", "p": 0.01}}
    doc["flows"][0]["count"] = 2
    doc["tcp"].update(cc=cc, cwnd_growth=growth, cwnd_unit=cwnd_unit)
    return transim.run(doc).flows


@pytest.mark.parametrize(
    ("cc", "unit"), [("reno", "bytes"), ("cubic", "bytes"), ("reno", "packets")]
)
def test_a_sender_the_window_limits_is_unchanged(cc: str, unit: str) -> None:
    """Bulk senders with a large receive window always fill cwnd, through losses, recoveries
    and timeouts: both settings send the same packets at the same times."""
    b = steady(cc, "always", unit)
    assert sum(f["retransmissions"] for f in b) > 50
    assert steady(cc, "cwnd_limited", unit) == b
    assert steady(cc, "linux", unit) == b


def described_growth(profile: str) -> str:
    doc = base()
    doc["tcp"] = {"profile": profile}
    flows = json.loads(_core.describe(to_json(doc)))["flows"]
    growth: str = flows[0]["tcp"]["cwnd_growth"]
    return growth


def test_each_profile_has_its_tools_rule() -> None:
    """Linux 2.6's Reno and CUBIC return from cong_avoid unless cwnd-limited; ns-2's
    opencwnd() runs on every new ACK; the rfc profile keeps RFC 5681's text."""
    assert described_growth("linux-2.6") == "cwnd_limited"
    assert described_growth("ns2") == "always"
    assert described_growth("rfc") == "always"


def test_a_bad_value_names_the_field_and_the_choices() -> None:
    doc = base()
    doc["tcp"]["cwnd_growth"] = "sometimes"
    with pytest.raises(ScenarioError) as e:
        transim.run(doc)
    msg = str(e.value)
    assert "cwnd_growth" in msg
    assert all(name in msg for name in ("always", "cwnd_limited", "linux"))


def rounds_of_five_segments(growth: str) -> float:
    """One flow on the grid's path whose application writes five segments (7,240 bytes) a
    round, 30 rounds, each the moment the receiver has the last: half the initial window of
    ten. Without delayed ACKs every segment draws an ACK. Returns the largest cwnd in
    segments."""
    doc: dict[str, Any] = base()
    doc["duration"] = "3s"
    doc["flows"][0]["app"] = {"kind": "rounds", "bytes": 7_240, "rounds": 30}
    doc["tcp"].update(cwnd_growth=growth, delayed_ack="off")
    r = transim.run(doc, trace_flows=True)
    assert r.rounds()[0]["completed"] == 30
    return float(r.flow_trace(0)["cwnd"].max()) / r.flows[0]["mss"]


def test_an_application_limited_sender_keeps_the_window_it_uses() -> None:
    """Growing on every ACK, slow start adds one segment per ACK: 10 + 30 x 5 = 160 segments,
    though the flight never holds more than three rounds (the next is written while the ACKs
    of the one before are still on their way). Held to what it uses, the window stays within
    those three rounds' 15 segments."""
    assert rounds_of_five_segments("always") == 160
    assert 10 <= rounds_of_five_segments("cwnd_limited") <= 15

"""CUBIC's HyStart (``tcp.hystart``): slow start ends before the first loss, where each tool's
constants put it, and the setting is refused where no flow could use it."""

from __future__ import annotations

import json
from typing import Any

import pytest
import transim
from transim import _core
from transim.peers.grid import base
from transim.scenario import ScenarioError, to_json

#: The cross-validation grid's clean path: 10 Mb/s, 20 ms each way, a 100-packet queue.
#: A 1,500-byte packet takes 1.2 ms, so the path holds 40 ms / 1.2 ms = 33.3 packets in
#: flight plus 100 queued.
PACKET_TIME = 1500 * 8 / 10e6
BDP = 0.040 / PACKET_TIME
QUEUE = 100


def cubic(hystart: str, duration: str = "3s") -> dict[str, Any]:
    doc = base()
    doc["duration"] = duration
    doc["tcp"].update(cc="cubic", hystart=hystart)
    return doc


def exit_window(r: transim.Result) -> float:
    """cwnd (segments) when slow start ended: the first finite ssthresh."""
    tr = r.flow_trace(0)
    mss = r.flows[0]["mss"]
    first = next(x for x in tr["ssthresh"] if x < 1e12)
    return float(first) / mss


def test_without_hystart_slow_start_overflows_the_queue() -> None:
    r = transim.run(cubic("off"), trace_flows=True)
    f = r.flows[0]
    assert f["retransmissions"] > 30
    # Slow start ended by a loss: its ssthresh is 0.7 of a window well past what the path
    # holds, and no more than 2 x it (one round's growth).
    assert exit_window(r) > 0.7 * (BDP + QUEUE)


@pytest.mark.parametrize("mode", ["linux", "ns3"])
def test_hystart_leaves_slow_start_with_the_queue_building_and_no_loss(mode: str) -> None:
    r = transim.run(cubic(mode), trace_flows=True)
    f = r.flows[0]
    assert f["retransmissions"] == 0 and f["timeouts"] == 0
    w = exit_window(r)
    # A delay detection needs a queue at the round's start, so the window is past the path's
    # bandwidth-delay product; with no loss, it is within what the path holds.
    assert BDP < w < BDP + QUEUE


@pytest.mark.parametrize("mode", ["linux", "ns3"])
def test_the_flows_result_says_when_and_how_hystart_ended_slow_start(mode: str) -> None:
    """The result's record agrees with the trace: the first ssthresh is the exit's cwnd, set
    at the exit's time. On this path ACKs come 2.4 ms apart (two 1.2-ms packets per delayed
    ACK), more than the train's 2 ms, so the delay detection is the one that fires."""
    r = transim.run(cubic(mode), trace_flows=True)
    h = r.flows[0]["hystart"]
    assert h["mode"] == mode and h["exit_by"] == "delay"
    assert h["exit_cwnd_segments"] == exit_window(r)
    tr = r.flow_trace(0)
    first = next(i for i, x in enumerate(tr["ssthresh"]) if x < 1e12)
    assert tr["t"][first] == pytest.approx(h["exit_at"], abs=1e-9)
    assert "hystart" not in transim.run(cubic("off")).flows[0]


def test_linux_constants_leave_earlier_than_ns3s() -> None:
    """Linux's threshold is min RTT / 8 (5 ms here, about 4 packets queued), ns-3's the whole
    min RTT (40 ms, 33 packets): Linux leaves slow start at the smaller window."""
    linux = exit_window(transim.run(cubic("linux"), trace_flows=True))
    ns3 = exit_window(transim.run(cubic("ns3"), trace_flows=True))
    assert linux < ns3
    # ns-3's delay threshold alone needs 33 packets queued at a round's start.
    assert ns3 > BDP + 0.040 / PACKET_TIME


def test_off_is_the_default_and_the_build_says_which() -> None:
    doc = cubic("off")
    del doc["tcp"]["hystart"]
    assert transim.run(doc).summary == transim.run(cubic("off")).summary
    described = json.loads(_core.describe(to_json(cubic("ns3"))))
    assert described["flows"][0]["tcp"]["hystart"] == "ns3"


def test_a_flows_own_hystart_needs_cubic() -> None:
    doc = base()
    doc["flows"] = [{"app": {"kind": "bulk"}, "tcp": {"cc": "reno", "hystart": "linux"}}]
    with pytest.raises(ScenarioError) as e:
        transim.run(doc)
    assert "flows[0].tcp.hystart" in str(e.value) and '"reno"' in str(e.value)


def test_a_scenario_wide_hystart_applies_to_the_cubic_flows() -> None:
    """Set in [tcp] for a mix of flows it is CUBIC's: the CUBIC flow leaves slow start as it
    does alone (before the Reno flow starts), and the Reno flow is not refused."""
    doc = base()
    doc["duration"] = "3s"
    doc["tcp"]["hystart"] = "linux"
    doc["flows"] = [
        {"app": {"kind": "bulk"}, "tcp": {"cc": "cubic"}},
        {"app": {"kind": "bulk"}, "start": "2s"},
    ]
    r = transim.run(doc, trace_flows=True)
    assert r.flows[1]["cc"] == "reno" and r.flows[1]["data_packets_delivered"] > 0
    assert exit_window(r) == exit_window(transim.run(cubic("linux"), trace_flows=True))


def test_a_scenario_wide_hystart_no_flow_uses_is_refused() -> None:
    doc = base()
    doc["tcp"]["hystart"] = "ns3"
    with pytest.raises(ScenarioError) as e:
        transim.run(doc)
    assert "tcp.hystart" in str(e.value) and "no flow runs CUBIC" in str(e.value)
    # A switch to CUBIC is a use.
    doc["flows"] = [{"app": {"kind": "bulk"}, "switch": [{"at": "1s", "cc": "cubic"}]}]
    doc["duration"] = "2s"
    transim.run(doc)


def test_unknown_hystart_names_the_choices() -> None:
    with pytest.raises(ScenarioError) as e:
        transim.run(cubic("fast"))
    assert "tcp.hystart" in str(e.value)
    for name in ("off", "linux", "ns3", "rfc9406"):
        assert name in str(e.value)


def test_transim_run_prints_when_hystart_ended_slow_start() -> None:
    r = transim.run(cubic("ns3"))
    h = r.flows[0]["hystart"]
    text = r.table()
    line = next(x for x in text.splitlines() if x.startswith("flow0 ") and "ns3" in x)
    assert line.split()[-1] == "delay"
    assert f"{h['exit_cwnd_segments']:.1f}" in line.split()
    assert "HyStart" not in transim.run(cubic("off")).table()


def test_hystart_plus_plus_slows_to_a_quarter_then_leaves_slow_start() -> None:
    """HyStart++ (RFC 9406) on the clean path: slow start grows one MSS per delayed ACK until
    a round's least RTT rises 5 ms (40 / 8) above the last round's; then Conservative Slow
    Start grows a quarter MSS per ACK for 5 rounds, and ssthresh becomes cwnd. No loss
    before that: the first ssthresh is the exit's window."""
    r = transim.run(cubic("rfc9406"), trace_flows=True)
    f, tr = r.flows[0], r.flow_trace(0)
    h = f["hystart"]
    assert h["mode"] == "rfc9406" and h["exit_by"] == "css"
    assert h["exit_cwnd_segments"] == exit_window(r)
    mss = f["mss"]
    steps = [
        (float(b) - float(a)) / mss
        for t, a, b in zip(tr["t"][1:], tr["cwnd"], tr["cwnd"][1:], strict=False)
        if t <= h["exit_at"] and b != a
    ]
    css = steps.index(0.25)
    assert set(steps[:css]) == {1.0} and set(steps[css:]) == {0.25}, steps
    # CSS began with the queue building (past the path's BDP) and its 5 rounds grew the
    # window by about 1.125x each (a quarter of slow start's 1.5x with delayed ACKs).
    start = 10 + css
    assert BDP < start < h["exit_cwnd_segments"]
    assert 1.125**4 < h["exit_cwnd_segments"] / start < 1.125**6

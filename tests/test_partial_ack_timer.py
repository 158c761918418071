"""The partial-ACK timer rule in SACK recovery: RFC 6298 restarts the retransmission timer on
every ACK of new data (transim's default for the SACK schemes); ns-3 restarts it on the first
partial ACK of a recovery only (``NewAck(ackNumber, m_isFirstPartialAck)`` in
``TcpSocketBase::ProcessAck``), which ``partial_ack_timer = "impatient"`` reproduces.

Westwood+ on the cross-validation grid's long path: the slow-start overshoot loses ~270
segments and Westwood's small ssthresh (bandwidth x min RTT) makes the recovery last longer
than the 1-s RTO, so the impatient rule times out exactly one RTO after the first partial ACK.
"""

from __future__ import annotations

import numpy as np
import pytest
import transim
from transim.peers.grid import PATHS, base


def _run(*extra: str) -> transim.Result:
    """The grid's long path without its partial-ACK timer setting (the scheme's default)."""
    doc = base()
    doc["tcp"].pop("partial_ack_timer", None)
    ov = [*PATHS["long-rtt"], "tcp.cc=westwood", "duration=10s", *extra]
    return transim.run(doc, overrides=ov, trace_flows=True)


def test_sack_recovery_restarts_the_timer_on_every_partial_ack_by_default() -> None:
    default, steady = _run(), _run("tcp.partial_ack_timer=slow_but_steady")
    assert default.flows[0]["timeouts"] == 0
    assert default.flows[0]["fast_retransmits"] == 1
    assert default.flows == steady.flows


def test_impatient_sack_recovery_times_out_one_rto_after_the_first_partial_ack() -> None:
    default, impatient = _run(), _run("tcp.partial_ack_timer=impatient")
    f = impatient.flows[0]
    assert f["timeouts"] == 1
    tr = impatient.flow_trace(0)
    t, cwnd, una, rto = (np.asarray(tr[k]) for k in ("t", "cwnd", "snd_una", "rto"))
    entry = int(np.argmax(cwnd[1:] < cwnd[:-1] * 0.5)) + 1  # the reduction at the fast retransmit
    first_partial = entry + int(np.argmax(una[entry:] > una[entry]))
    assert f["first_timeout"] == pytest.approx(t[first_partial] + rto[first_partial], abs=1e-9)
    # Until then both runs are the same run.
    d = default.flow_trace(0)
    before = t < f["first_timeout"]
    for key in ("t", "cwnd", "snd_una", "snd_max"):
        assert np.array_equal(np.asarray(d[key])[: before.sum()], np.asarray(tr[key])[before])

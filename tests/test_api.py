"""The Python API: run() from a dict, TOML text or a path; results; numpy traces; errors."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import transim
from conftest import ROOT

SMALL = """
duration = "5s"
seed = 2
[topology]
kind = "dumbbell"
[topology.bottleneck]
rate = "5Mbps"
delay = "10ms"
queue = 30
forward = { loss = { model = "bernoulli", p = "1%" } }
[[flows]]
app = { kind = "finite", bytes = "200KB" }
"""


def test_three_ways_to_give_a_scenario_agree(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SMALL)
    a = transim.run(SMALL)
    b = transim.run(tomllib.loads(SMALL))
    c = transim.run(path)
    d = transim.run(str(path))
    assert a.summary == b.summary == c.summary == d.summary
    f = a.flow(0)
    assert f["bytes_delivered"] == 200_000
    assert f["completion_time"] > 0
    assert a.flow("flow0") is f


def test_traces_are_numpy_arrays() -> None:
    r = transim.run(SMALL, trace_flows=True, trace_packets=True)
    tr = r.flow_traces[0]
    assert tr is not None
    assert isinstance(tr["cwnd"], np.ndarray) and tr["cwnd"].dtype == np.float64
    assert len(tr["t"]) == len(tr["cwnd"]) > 10
    assert np.all(np.diff(tr["t"]) >= 0)
    pt = r.packet_trace
    assert pt is not None and pt["seq"].dtype == np.uint64
    # The packet log agrees with the summary: data-direction loss drops.
    drops = np.sum((pt["kind"] == 2) & (pt["from_sender"] == 1))
    assert drops == sum(r.flow(0)["data_drops"].values())


def test_traces_off_by_default() -> None:
    r = transim.run(SMALL)
    assert r.flow_traces == [None] and r.packet_trace is None


def test_deterministic_and_seed_sensitive() -> None:
    a = transim.run(SMALL, seed=11).summary
    b = transim.run(SMALL, seed=11).summary
    c = transim.run(SMALL, seed=12).summary
    assert a == b
    assert a != c


def test_scenario_error_carries_the_path() -> None:
    with pytest.raises(transim.ScenarioError) as e:
        transim.run(SMALL, overrides=["topology.bottleneck.queue=0"])
    assert e.value.path == "topology.bottleneck.queue"
    assert "at least one packet" in str(e.value)


def test_overrides_parse_values_and_indices() -> None:
    from transim.scenario import apply_override

    doc = tomllib.loads(SMALL)
    apply_override(doc, "flows[0].start=1.5")
    apply_override(doc, "flows.0.tcp.nagle=off")
    apply_override(doc, "tcp.limited_transmit=false")
    apply_override(doc, "topology.bottleneck.rate=20Mbps")
    assert doc["flows"][0]["start"] == 1.5
    assert doc["flows"][0]["tcp"] == {"nagle": "off"}
    assert doc["tcp"]["limited_transmit"] is False
    assert doc["topology"]["bottleneck"]["rate"] == "20Mbps"


def test_gilbert_elliott_stats_exposed() -> None:
    s = transim._core.gilbert_elliott_stats(0.01, 0.25, 0.0, 1.0)
    assert s["mean_burst"] == pytest.approx(4.0)
    assert s["loss_rate"] == pytest.approx(0.01 / 0.26)


def test_write_results(tmp_path: Path) -> None:
    r = transim.run(SMALL, trace_flows=True)
    files = {p.name for p in r.write(tmp_path)}
    assert {"results.json", "flows.csv", "links.csv", "trace_flow0.npz"} <= files
    header = (tmp_path / "flows.csv").read_text().splitlines()[0]
    assert "goodput_bps" in header and "data_drops.loss_model" in header


def test_progress_callback_sees_time_advance_and_can_stop_the_run() -> None:
    seen: list[tuple[float, int]] = []

    def watch(t: float, events: int) -> bool:
        seen.append((t, events))
        return len(seen) < 3

    r = transim.run("scenarios/dumbbell.toml", progress=watch)
    assert len(seen) == 3
    assert [t for t, _ in seen] == sorted(t for t, _ in seen)
    assert r.summary["stopped_at"] == pytest.approx(seen[-1][0])
    assert r.summary["simulated_time"] < 30
    assert transim.run("scenarios/dumbbell.toml").summary["stopped_at"] is None


def test_a_stop_that_need_not_be_exact_lands_once_packets_handed_on_arrive() -> None:
    # Without an exact stop, router hops onto a link only one link feeds go without
    # events, and a stop waits until the packets already handed on have reached their
    # next link: a moment after the callback asked, never before.
    seen: list[tuple[float, int]] = []

    def watch(t: float, events: int) -> bool:
        seen.append((t, events))
        return len(seen) < 3

    loose = transim.run("scenarios/dumbbell.toml", progress=watch, exact_stop=False)
    asked = seen[-1][0]
    stopped = loose.summary["stopped_at"]
    assert asked < stopped < asked + 0.1
    c = loose.summary["conservation"]
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    # The whole run gives the same summary either way, with fewer events.
    exact = transim.run("scenarios/dumbbell.toml", exact_stop=True).summary
    fast = transim.run("scenarios/dumbbell.toml").summary
    assert fast["events"] < exact["events"]
    assert {**fast, "events": 0} == {**exact, "events": 0}


def test_ctrl_c_stops_a_long_run_and_keeps_its_results(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "long.py"
    script.write_text(
        # Ctrl-C must reach Python: a child started while the test process briefly had SIGINT
        # ignored (seen: SIGINT and SIGQUIT ignored, as glibc's system() leaves its caller)
        # would inherit the ignore, as a nohup'ed run does, and no run could then be stopped.
        "import signal, sys, transim\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "doc = {'duration': '1000s', 'topology': {'kind': 'dumbbell', 'bottleneck': "
        "{'rate': '10Gbps', 'delay': '5ms', 'queue': 2000}}, 'flows': [{}]}\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    transim.run(doc)\n"
        "except transim.Interrupted as e:\n"
        "    print('stopped_at', e.result.summary['stopped_at'], flush=True)\n"
        "    sys.exit(3)\n"
    )
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "started"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)  # a run that ignored Ctrl-C would take minutes
    assert p.returncode == 3, out
    stopped = float(out.split()[-1])
    assert 0 < stopped < 1000


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda d: d["flows"][1].__setitem__("start", "40s"), "flows[1].start"),
        (
            lambda d: d["flows"][0].__setitem__("switch", [{"at": "30s", "cc": "cubic"}]),
            "flows[0].switch[0].at",
        ),
        (lambda d: d["tcp"].__setitem__("snd_buf", 0), "tcp.snd_buf"),
        (lambda d: d["tcp"].__setitem__("initial_ssthresh", 0), "tcp.initial_ssthresh"),
        (lambda d: d["tcp"].update({"ful": True, "ful_high": 0}), "tcp.ful_high"),
        (
            lambda d: d["topology"]["bottleneck"].__setitem__("delay", 1e-10),
            "topology.bottleneck.delay",
        ),
    ],
)
def test_nonsense_is_refused_with_the_field(edit: Any, path: str) -> None:
    """Values that used to be accepted silently (issue 16's list) name their field."""
    doc, _ = transim.scenario.load(ROOT / "scenarios" / "dumbbell.toml")
    edit(doc)
    with pytest.raises(transim.ScenarioError) as e:
        transim.validate(doc)
    assert e.value.path == path, str(e.value)

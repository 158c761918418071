"""``transim estimators``: accuracy of the passive path estimators over a grid of paths.

Each row is one run of a bulk TCP flow (an ACK per segment, so that TCP-Probe sees single
ACKs) through a 20 ms dumbbell bottleneck; the simulator knows the true values. The last
table shows BBR's own model (BtlBw and RTprop) beside the truth: BtlBw is a payload rate, so
its truth is the bottleneck rate times payload / wire bytes of a full segment.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import run
from .format import fmt_rate

RATES = ("1Mbps", "10Mbps", "100Mbps", "1Gbps")
LOSSES = (0.001, 0.003, 0.01, 0.03, 0.1)


def scenario(rate: str, cross: bool, loss: float | None, secs: int) -> dict[str, Any]:
    flows: list[dict[str, Any]] = [{"app": {"kind": "bulk"}}]
    if cross:
        flows.append({"app": {"kind": "bulk"}, "start": "0.5s"})
    bn: dict[str, Any] = {"rate": rate, "delay": "20ms", "queue": 1000}
    if loss is not None:
        bn["forward"] = {"loss": {"model": "bernoulli", "p": loss}}
    return {
        "duration": f"{secs}s",
        "seed": 3,
        "tcp": {"delayed_ack": "off", "rcv_buf": "256KB" if loss is not None else "64MB"},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": bn,
            "access": {"rate": "10Gbps", "delay": "1ms"},
        },
        "flows": flows,
    }


def bbr_scenario(rate: str, cross: bool) -> dict[str, Any]:
    """A BBR flow for 8 s (before its first ProbeRTT), alone or with a CUBIC flow.

    SackPlus recovery: at 1 Gbps the 1000-packet queue is a quarter of the BDP, BBR's
    Startup (2.89 x BtlBw) overflows it and loses retransmissions too; RFC 6675 cannot see
    those, waits for the RTO, and the ten rounds of slow go-back-N after it flush the high
    samples out of BtlBw's filter (BBR v1 then regains 25 % per gain cycle).
    """
    sc = scenario(rate, cross, None, 8)
    sc["tcp"].update({"cc": "bbr", "sack": True, "recovery": "sackplus", "timestamps": False})
    if cross:
        sc["flows"][1]["tcp"] = {"cc": "cubic"}
    return sc


def main(args: argparse.Namespace) -> int:
    cap_jobs = [(r, c) for r in RATES for c in (False, True)]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        caps = list(pool.map(lambda rc: run(scenario(rc[0], rc[1], None, 20)).flow(0), cap_jobs))
        losses = list(pool.map(lambda p: run(scenario("10Mbps", False, p, 300)).flow(0), LOSSES))
        bbrs = list(pool.map(lambda rc: run(bbr_scenario(rc[0], rc[1])).flow(0), cap_jobs))
    print("Capacity (TCP-Probe: min delay-sum packet pair) and propagation RTT (min RTT)")
    print(
        f"{'bottleneck':<11} {'cross':<6} {'estimate':>12} {'error':>8} {'pairs':>6} "
        f"{'min RTT':>9} {'true RTT':>9} {'error':>7}"
    )
    for (rate, cross), f in zip(cap_jobs, caps, strict=True):
        e = f["estimators"]
        cap = e["capacity_bps"] or 0.0
        err = cap / e["true_capacity_bps"] - 1
        rtt_err = e["min_rtt"] / e["true_rtt"] - 1
        print(
            f"{rate:<11} {'yes' if cross else 'no':<6} {fmt_rate(cap):>12} {err:>+8.1%} "
            f"{e['capacity_samples']:>6} {e['min_rtt'] * 1e3:>7.2f}ms "
            f"{e['true_rtt'] * 1e3:>7.2f}ms "
            f"{rtt_err:>+7.2%}"
        )
    print()
    print("Loss rate (retransmissions less needless ones), 10 Mbps, 300 s: the error against")
    print("the loss the flow met (its packets' drops) and against the link's nominal rate")
    print(
        f"{'random loss':<12} {'estimate':>9} {'true (met)':>11} {'error':>8} "
        f"{'vs nominal':>11} {'data sent':>10} {'timeouts':>9}"
    )
    for p, f in zip(LOSSES, losses, strict=True):
        e = f["estimators"]
        est, met = e["loss_rate"], e["true_loss_rate"]
        err = f"{est / met - 1:>+8.1%}" if met else f"{'-':>8}"
        print(
            f"{p:<12.1%} {est:>9.3%} {met:>11.3%} {err} {est / p - 1:>+11.1%} "
            f"{f['data_segments_sent']:>10,} {f['timeouts']:>9}"
        )
    print()
    print("BBR's model after 8 s: BtlBw (payload rate) and RTprop; with cross traffic a CUBIC")
    print("flow shares the bottleneck, so BtlBw is the share BBR measured, not the capacity")
    print(
        f"{'bottleneck':<11} {'cross':<6} {'state':<10} {'BtlBw':>12} {'error':>8} "
        f"{'RTprop':>9} {'true RTT':>9} {'error':>7}"
    )
    for (rate, cross), f in zip(cap_jobs, bbrs, strict=True):
        e, m = f["estimators"], f["cc_model"]
        payload = e["true_capacity_bps"] * f["mss"] / (f["mss"] + 40)
        bw_err = f"{m['bandwidth_bps'] / payload - 1:>+8.1%}" if not cross else f"{'-':>8}"
        print(
            f"{rate:<11} {'yes' if cross else 'no':<6} {m['state']:<10} "
            f"{fmt_rate(m['bandwidth_bps']):>12} {bw_err} {m['min_rtt'] * 1e3:>7.2f}ms "
            f"{e['true_rtt'] * 1e3:>7.2f}ms {m['min_rtt'] / e['true_rtt'] - 1:>+7.2%}"
        )
    return 0

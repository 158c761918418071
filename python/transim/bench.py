"""``transim bench``: run the performance benchmarks B1–B3 and compare with ns-3, the
cell-level ATM benchmarks A1 (UBR + EPD) and A2 (ABR + ERICA), which ns-3 cannot run, the
SACK pair S0/S1, and the scale benchmarks B4 (flow scaling, 1 to 100,000 flows of ~1 M packets
each; B4A the same with a bottleneck queue that lets every flow carry data), B5 (a k = 16 fat
tree: 1,024 hosts, permutation traffic) and B6 (flows that come and go: 2,000 to 200,000
Poisson arrivals of the Hadoop workload on a leaf-spine fabric).

Each run happens in a fresh worker process so that its peak memory is its own; the wall time
measured is that of ``_core.run`` (the engine reads the scenario, builds, runs and collects the
results), and the engine also reports the run alone. The median of the repeats is reported
with packets simulated per second and the ratio to the ns-3 figures measured side by side on
the same files (ns-3.48, optimized build, same machine kind).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .data import resource
from .format import fmt_rate
from .scenario import flow_count

BENCH_DIR = resource("benches")

# ns-3.48 optimized build, measured side by side on the same bench files
# (shared/reference/ns3-benchmarks.md): goodput (bit/s), data packets delivered, run time (s).
NS3 = {
    "B1": {"goodput": 0.955e6, "packets": 16_496, "wall": 0.51},
    "B2": {"goodput": 50.13e6, "packets": 432_775, "wall": 31.6},
    "B3": {"goodput": 94.29e6, "packets": 813_960, "wall": 32.3, "jain": 0.993},
}

# Flow counts of B4 and the fat tree of B5.
B4_FLOWS = (1, 10, 100, 1_000, 10_000, 100_000)
# Flow counts of B4A (every flow carrying data): 100,000 would need a queue of 1.6 M
# packets, 19 s of queueing delay, longer than the run.
B4A_FLOWS = (1, 100, 1_000, 10_000)
# Packets of B4A's bottleneck queue per flow.
B4A_QUEUE_PER_FLOW = 16
# Flow counts of B6, the first its base.
B6_FLOWS = (2_000, 20_000, 200_000)
SCALE_BENCHES = ("B4", "B4A", "B5", "B6")
# B1 runs beside each B5 run, whose median B5's hop is compared with.
B1_BESIDE_B5 = 5


def _sack_tcp(rto_min: str) -> dict[str, Any]:
    """B4's and B5's TCP: SACK (RFC 6675), timestamps, IW 10, delayed ACKs, 16 MiB buffers."""
    return {
        "profile": "rfc",
        "recovery": "rfc6675",
        "timestamps": True,
        "initial_window": 10,
        "delayed_ack": "on",
        "rto_min": rto_min,
        "rcv_buf": "16MiB",
    }


def b4_scenario(flows: int, packets: int = 1_000_000) -> dict[str, Any]:
    """B4: SACK flows on a 1 Gbps / 10 ms dumbbell (2,000-packet queue, 10 Gbps access),
    long enough for about ``packets`` data packets (1 Gbps is 83,333 packets/s)."""
    return {
        "name": f"B4-{flows}",
        "duration": f"{packets / 83_333 + 0.5:.3f}s",
        "seed": 1,
        "tcp": _sack_tcp("1s"),
        "topology": {
            "kind": "dumbbell",
            "access": {"rate": "10Gbps", "delay": "0ms", "queue": 1000},
            "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": 2000},
        },
        "flows": [{"app": {"kind": "bulk"}, "count": flows}],
    }


def b4a_scenario(flows: int, packets: int = 1_000_000) -> dict[str, Any]:
    """B4A: B4 with a bottleneck queue of 16 packets per flow (at least B4's 2,000), so
    that every flow carries data. In B4 all flows start at once and the 2,000-packet queue
    admits the first 2,000 SYNs: at 10,000 flows about 950 flows ever deliver data, and
    100,000 flows run exactly as 10,000 do. Here each of 10,000 flows delivers about 100
    packets, behind a queue of 160,000 (two seconds of queueing)."""
    doc = b4_scenario(flows, packets)
    doc["name"] = f"B4A-{flows}"
    doc["topology"]["bottleneck"]["queue"] = max(2000, B4A_QUEUE_PER_FLOW * flows)
    return doc


def b5_scenario(seconds: float = 0.005) -> dict[str, Any]:
    """B5: a k = 16 fat tree (1,024 hosts, 320 switches, 10 Gbps / 1 µs links, 100-packet
    queues, ECMP) with permutation traffic of bulk SACK flows."""
    return {
        "name": "B5",
        "duration": f"{seconds}s",
        "seed": 1,
        "tcp": _sack_tcp("1ms"),
        "topology": {
            "kind": "fat_tree",
            "k": 16,
            "host_link": {"rate": "10Gbps", "delay": "1us", "queue": 100},
        },
        "traffic": {"pattern": "permutation", "app": {"kind": "bulk"}},
    }


# Cell-level benchmarks (no ns-3 counterpart): study 2's 70 VCs through one bottleneck.
ATM_BENCHES = ("A1", "A2")

# SACK recovery over windows of ~10,000 segments (S1) against the same path with NewReno
# (S0): per-ACK work that grows with the window shows as S1 / S0 far above 1.
SACK_BENCHES = ("S0", "S1")


def b6_scenario(flows: int) -> dict[str, Any]:
    """B6: ``flows`` flows of the Hadoop workload (most under 1 kB, 120 kB on average)
    arriving as a Poisson process at half the capacity of scenarios/datacenter-fct.toml's
    32-host leaf-spine fabric, each a short transfer with its handshake: the cost per packet
    as flows come and go, from 2,000 flows to 200,000 (26 million packets)."""
    from .scenario import prepare

    doc, _ = prepare(
        resource("scenarios") / "datacenter-fct.toml",
        ["traffic.sizes=hadoop", f"traffic.flows={flows}", "duration=60s"],
    )
    doc["name"] = f"B6-{flows}"
    return doc


def jain(xs: list[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²)."""
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 > 0 else 1.0


def _peak_rss_kb() -> int:
    """This process image's peak RSS (VmHWM; ru_maxrss would include the parent's peak,
    which Linux carries across fork + exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def worker(path: str) -> dict[str, Any]:
    """Run one benchmark in this process and measure it."""
    from . import _core
    from .scenario import prepare, to_json

    doc, _ = prepare(path)
    text = to_json(doc)
    t0 = time.perf_counter()
    raw = _core.run(text)
    wall = time.perf_counter() - t0
    # Popped: the engine's copy of the text goes as soon as Python has its own.
    res = json.loads(str(raw.pop("result")))
    flows = res["flows"]
    goodputs = [f["goodput_bps"] for f in flows]
    cell_links = [link for link in res["links"] if link.get("unit") == "cells"]
    return {
        "name": res["name"],
        "wall": wall,
        "cell_hops": sum(link["packets_in"] for link in cell_links),
        "cells": sum(
            f["atm"]["data"]["sent"] + f["atm"]["reverse"]["sent"] for f in flows if "atm" in f
        ),
        "packets": sum(f["data_packets_delivered"] for f in flows),
        "with_data": sum(1 for f in flows if f["data_packets_delivered"] > 0),
        "hops": sum(link["packets_in"] for link in res["links"]),
        "goodput": sum(goodputs),
        "jain": jain(goodputs),
        "events": res["events"],
        "peak_rss_mb": _peak_rss_kb() / 1024,
        "simulated": res["simulated_time"],
        # The simulation alone, as ns-3's figures time Simulator::Run alone.
        "run": raw["stages"]["run"],
    }


def run_one(path: Path) -> dict[str, Any]:
    # One BLAS thread: numpy's spinning worker threads would compete with the engine.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "transim.bench", "--worker", str(path)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(out.stdout)


def main(args: argparse.Namespace) -> int:
    names = [n.strip().upper() for n in args.only.split(",") if n.strip()]
    if getattr(args, "peer", None):
        return _peer_main(names, args.repeat, args.only_given)
    known = [*NS3, *ATM_BENCHES, *SACK_BENCHES, *SCALE_BENCHES]
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"error: unknown benchmark(s) {unknown}; choose from {known}", file=sys.stderr)
        return 2
    rows = []
    scale_rows: list[dict[str, Any]] = []
    for name in names:
        if name in SCALE_BENCHES:
            scale_rows += run_scale(name, args.repeat)
            continue
        path = BENCH_DIR / f"{name.lower()}.toml"
        runs = []
        for i in range(args.repeat):
            print(f"  {name} run {i + 1}/{args.repeat} ...", file=sys.stderr, flush=True)
            runs.append(run_one(path))
        med = sorted(runs, key=lambda r: r["wall"])[len(runs) // 2]
        med["wall_all"] = [r["wall"] for r in runs]
        med["pps"] = med["packets"] / med["wall"]
        med["events_per_packet"] = med["events"] / max(med["packets"], 1)
        med["ns_per_event"] = med["wall"] / max(med["events"], 1) * 1e9
        med["stdev_wall"] = statistics.pstdev(med["wall_all"])
        if name in ATM_BENCHES:
            med["cell_hops_per_s"] = med["cell_hops"] / med["wall"]
            med["ns_per_cell_hop"] = med["wall"] / max(med["cell_hops"], 1) * 1e9
            rows.append(med)
            continue
        if name in SACK_BENCHES:
            med["ns_per_packet"] = med["wall"] / max(med["packets"], 1) * 1e9
            rows.append(med)
            continue
        ns3 = NS3[name]
        med["ns_per_hop"] = med["wall"] / max(med["hops"], 1) * 1e9
        med["ns3_pps"] = ns3["packets"] / ns3["wall"]
        med["speedup"] = med["pps"] / med["ns3_pps"]
        med["run_median"] = statistics.median(r["run"] for r in runs)
        med["run_speedup"] = med["packets"] / med["run_median"] / med["ns3_pps"]
        rows.append(med)
    ip_rows = [r for r in rows if r["name"] in NS3]
    atm_rows = [r for r in rows if r["name"] in ATM_BENCHES]
    sack_rows = [r for r in rows if r["name"] in SACK_BENCHES]
    tables = [render(ip_rows) if ip_rows else "", render_atm(atm_rows) if atm_rows else ""]
    tables.append(render_sack(sack_rows) if sack_rows else "")
    tables.append(render_scale(scale_rows, ip_rows) if scale_rows else "")
    rows += scale_rows
    print("\n\n".join(t for t in tables if t))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


def _peer_main(names: list[str], repeat: int, only_given: bool) -> int:
    """``--peer ns3``: B1-B3 (or the ones --only names) against the installed ns-3."""
    from .peers import Ns3Unavailable
    from .peers.bench import peer_bench

    names = names if only_given else list(NS3)
    wrong = [n for n in names if n not in NS3]
    if wrong:
        print(f"error: --peer runs B1-B3 only; got {wrong}", file=sys.stderr)
        return 2
    try:
        print(peer_bench(names, repeat))
    except Ns3Unavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    return 0


def run_scale(name: str, repeat: int) -> list[dict[str, Any]]:
    """B4 over its flow counts, or B5; each scenario written as JSON for the worker."""
    import tempfile

    if name == "B4":
        cases = [(f"B4 {n:,} flows", b4_scenario(n)) for n in B4_FLOWS]
    elif name == "B4A":
        cases = [(f"B4A {n:,} flows", b4a_scenario(n)) for n in B4A_FLOWS]
    elif name == "B6":
        cases = [(f"B6 {n:,} flows", b6_scenario(n)) for n in B6_FLOWS]
    else:
        cases = [("B5 fat tree k=16", b5_scenario())]
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in cases}
    # B5's hop is compared with B1's: B1 runs beside each B5 run, for the same reason (the
    # median of five, as a run of B1 takes a few milliseconds, which a moment's noise moves).
    b1_beside: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for k, (_, doc) in enumerate(cases):
            paths.append(Path(tmp) / f"scenario{k}.json")
            paths[-1].write_text(json.dumps(doc), encoding="utf-8")
        # Rounds of every case in turn rather than all repeats of one case and then the next:
        # these hosts' speed drifts over minutes, and B4's ratios would measure the drift
        # between runs taken minutes apart. Each round's ratio is to its own one-flow run.
        for i in range(repeat):
            for (label, doc), path in zip(cases, paths, strict=True):
                # 100,000 flows take a few seconds and 1.4 GB each time: once.
                if i > 0 and (flow_count(doc) or _generated(doc)) >= 100_000:
                    continue
                print(f"  {label} run {i + 1} ...", file=sys.stderr, flush=True)
                runs[label].append(run_one(path))
                if name == "B5":
                    b1 = [run_one(BENCH_DIR / "b1.toml") for _ in range(B1_BESIDE_B5)]
                    b1_beside.append(sorted(b1, key=lambda r: r["wall"])[len(b1) // 2])
    # Ratios to B4's (or B4A's) one flow, or to B6's first count.
    one = runs.get("B4 1 flows") or runs.get("B4A 1 flows") or runs.get(f"B6 {B6_FLOWS[0]:,} flows")
    out = []
    for label, doc in cases:
        med = sorted(runs[label], key=lambda r: r["wall"])[len(runs[label]) // 2]
        med["label"] = label
        med["flows"] = flow_count(doc) or _generated(doc) or 1024
        med["ns_per_packet"] = med["wall"] / max(med["packets"], 1) * 1e9
        med["ns_per_hop"] = med["wall"] / max(med["hops"], 1) * 1e9
        med["events_per_packet"] = med["events"] / max(med["packets"], 1)
        med["run_median"] = statistics.median(r["run"] for r in runs[label])
        med["run_ns_per_packet"] = med["run_median"] / max(med["packets"], 1) * 1e9
        if one:
            med["run_ratios"] = [
                (r["run"] / max(r["packets"], 1)) / (o["run"] / max(o["packets"], 1))
                for r, o in zip(runs[label], one, strict=False)
            ]
        if b1_beside:
            med["hop_ratios"] = [
                (r["wall"] / max(r["hops"], 1)) / (b["wall"] / max(b["hops"], 1))
                for r, b in zip(runs[label], b1_beside, strict=True)
            ]
        out.append(med)
    return out


def _generated(doc: dict[str, Any]) -> int:
    """The flows a scenario's poisson pattern makes (0 for any other)."""
    traffic = doc.get("traffic") or {}
    return int(traffic.get("flows", 0)) if traffic.get("pattern") == "poisson" else 0


def _run_ratio(r: dict[str, Any], one: dict[str, Any]) -> float:
    """Run ns per packet against one flow's: the median of the rounds' own ratios when the
    runs were paired, else the ratio of the medians."""
    if r.get("run_ratios"):
        return float(statistics.median(r["run_ratios"]))
    return float(r["run_ns_per_packet"] / one["run_ns_per_packet"])


def _rounds(ratios: list[float]) -> str:
    """How a ratio taken round by round came about: the rounds and their range."""
    if len(ratios) < 2:
        return ""
    return f" (median of {len(ratios)} rounds' own ratios, {min(ratios):.2f}-{max(ratios):.2f})"


def _ten_thousand(bench: str, many: dict[str, Any], one: dict[str, Any], tail: str) -> str:
    """The line under the scale table for ``bench``'s 10,000 flows against its one flow."""
    return (
        f"{bench} 10,000 flows / 1 flow, run ns per packet: "
        f"{_run_ratio(many, one):.2f}x{_rounds(many.get('run_ratios') or [])} {tail}"
    )


def render_scale(rows: list[dict[str, Any]], ip_rows: list[dict[str, Any]]) -> str:
    """B4/B4A/B5/B6: ns per delivered packet and per packet-hop, against B4's (B4A's) single
    flow, B6's first count and B1; with how many flows delivered any data."""
    head = (
        f"{'bench':<20} {'with data':>9} {'data pkts':>10} {'pkt-hops':>11} {'wall':>8} "
        f"{'ns/pkt':>7} {'ns/hop':>7} {'ev/pkt':>6} {'peak MB':>8} {'vs 1 flow':>9} "
        f"{'run ns/pkt':>10} {'run vs 1':>8}"
    )
    lines = [head, "-" * len(head)]
    one = next((r for r in rows if r["label"] == "B4 1 flows"), None)
    one_active = next((r for r in rows if r["label"] == "B4A 1 flows"), None)
    churn = [r for r in rows if r["label"].startswith("B6")]
    for r in rows:
        # B6's rows against its first count, B4A's against its one flow, the others
        # against B4's one flow.
        base: dict[str, Any] | None
        if r in churn:
            base = churn[0]
        elif r["label"].startswith("B4A"):
            base = one_active
        else:
            base = one
        ratio = f"{r['ns_per_packet'] / base['ns_per_packet']:>8.2f}x" if base else f"{'-':>9}"
        run_ratio = f"{_run_ratio(r, base):>7.2f}x" if base else f"{'-':>8}"
        with_data = f"{r['with_data']:,}" if "with_data" in r else "-"
        lines.append(
            f"{r['label']:<20} {with_data:>9} {r['packets']:>10,} {r['hops']:>11,} "
            f"{r['wall']:>7.3f}s {r['ns_per_packet']:>7.0f} {r['ns_per_hop']:>7.0f} "
            f"{r['events_per_packet']:>6.2f} {r['peak_rss_mb']:>8.1f} {ratio} "
            f"{r['run_ns_per_packet']:>10.0f} {run_ratio}"
        )
    many = next((r for r in rows if r["label"] == "B4 10,000 flows"), None)
    if one and many:
        with_data = (
            f"; {many['with_data']:,} of its flows delivered data" if "with_data" in many else ""
        )
        lines.append(_ten_thousand("B4", many, one, f"(target <= 1.5x){with_data}"))
    many_active = next((r for r in rows if r["label"] == "B4A 10,000 flows"), None)
    if one_active and many_active:
        lines.append(
            _ten_thousand(
                "B4A",
                many_active,
                one_active,
                "(every flow carrying data; B4's target, 1.5x, stated for B4)",
            )
        )
    if len(churn) > 1:
        base = churn[0]
        ratios = ", ".join(f"{r['flows']:,} flows {_run_ratio(r, base):.2f}x" for r in churn[1:])
        lines.append(f"B6 run ns per packet against {base['flows']:,} flows: {ratios} (flat is 1x)")
    b1 = next((r for r in ip_rows if r["name"] == "B1"), None)
    b5 = next((r for r in rows if r["label"].startswith("B5")), None)
    # Each B5 run has a B1 run beside it; their ratios, round by round, are steadier on a
    # host whose speed drifts than B5's median against B1's from minutes apart.
    beside = (b5 or {}).get("hop_ratios") or []
    hop_ratio = (
        statistics.median(beside)
        if beside
        else b5["ns_per_hop"] / b1["ns_per_hop"]
        if b5 and b1
        else None
    )
    if hop_ratio is not None:
        lines.append(
            f"B5 per packet-hop / B1 per packet-hop: {hop_ratio:.2f}x{_rounds(beside)}"
            " (target <= 2x)"
        )
    lines.append(
        "(wall is _core.run: parse, build, run and results; run is the simulation alone, "
        "without the per-flow work of building and collecting; B6's rows are against its "
        f"{B6_FLOWS[0]:,} flows"
        + (
            "; B4's 100,000 flows run once;\n run vs 1: each round runs every flow count in "
            "turn, and the ratio is the median of the rounds' ratios to their own one-flow run)"
            if one or one_active
            else ")"
        )
    )
    return "\n".join(lines)


def render(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'bench':<5} {'goodput':>11} {'ns-3 goodput':>12} {'data pkts':>10} {'ns-3 pkts':>10} "
        f"{'wall':>8} {'pkts/s':>12} {'ns-3 pkts/s':>11} {'speedup':>8} {'run-only':>8} "
        f"{'ev/pkt':>6} {'ns/ev':>6} {'ns/hop':>6} {'peak MB':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        ns3 = NS3[r["name"]]
        extra = f"  Jain {r['jain']:.3f} (ns-3 {ns3['jain']})" if "jain" in ns3 else ""
        lines.append(
            f"{r['name']:<5} {fmt_rate(r['goodput']):>11} {fmt_rate(ns3['goodput']):>12} "
            f"{r['packets']:>10,} {ns3['packets']:>10,} {r['wall']:>7.3f}s {r['pps']:>12,.0f} "
            f"{r['ns3_pps']:>11,.0f} {r['speedup']:>7.1f}x {r['run_speedup']:>7.1f}x "
            f"{r['events_per_packet']:>6.1f} "
            f"{r['ns_per_event']:>6.0f} {r['ns_per_hop']:>6.0f} {r['peak_rss_mb']:>8.1f}{extra}"
        )
    return "\n".join(lines)


def render_atm(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'bench':<5} {'goodput':>11} {'cells':>10} {'cell-hops':>10} {'wall':>8} "
        f"{'cell-hops/s':>12} {'ns/cell-hop':>11} {'events':>9} {'peak MB':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['name']:<5} {fmt_rate(r['goodput']):>11} {r['cells']:>10,} {r['cell_hops']:>10,} "
            f"{r['wall']:>7.3f}s {r['cell_hops_per_s']:>12,.0f} {r['ns_per_cell_hop']:>11.0f} "
            f"{r['events']:>9,} {r['peak_rss_mb']:>8.1f}"
        )
    return "\n".join(lines)


def render_sack(rows: list[dict[str, Any]]) -> str:
    """S0/S1: ns per delivered packet, and S1's cost relative to S0's when both ran."""
    head = (
        f"{'bench':<5} {'goodput':>11} {'data pkts':>10} {'wall':>8} {'ns/pkt':>7} "
        f"{'ev/pkt':>6} {'peak MB':>8} {'vs S0':>6}"
    )
    lines = [head, "-" * len(head)]
    s0 = next((r for r in rows if r["name"] == "S0"), None)
    for r in rows:
        ratio = f"{r['ns_per_packet'] / s0['ns_per_packet']:>5.2f}x" if s0 else f"{'-':>6}"
        lines.append(
            f"{r['name']:<5} {fmt_rate(r['goodput']):>11} {r['packets']:>10,} {r['wall']:>7.3f}s "
            f"{r['ns_per_packet']:>7.0f} {r['events_per_packet']:>6.1f} {r['peak_rss_mb']:>8.1f} "
            f"{ratio}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", required=True)
    a = ap.parse_args()
    print(json.dumps(worker(a.worker)))

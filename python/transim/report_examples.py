"""The report's sections on the example scenarios (scenarios/*.toml): each runs its
scenario (some with a few --set variants), writes the runs' files and returns the section's
Markdown with its tables and figures."""

from __future__ import annotations

from pathlib import Path

from . import run
from .data import resource
from .format import fmt_rate, fmt_time
from .plots import plot_cwnd, plot_sequence
from .result import Result

SCENARIOS = resource("scenarios")


def _flow_table(rows: list[tuple[str, Result]]) -> str:
    lines = [
        "| run | goodput | completion | data segments | retransmissions (fast / RTO) | timeouts |",
        "|---|---|---|---|---|---|",
    ]
    for label, r in rows:
        for f in r.flows:
            done = fmt_time(f["completion_time"]) if f["completion_time"] is not None else "-"
            lines.append(
                f"| {label} {f['name']} | {fmt_rate(f['goodput_bps'])} | {done} | "
                f"{f['data_segments_sent']} | {f['retransmissions_fast']} / "
                f"{f['retransmissions_timeout']} | {f['timeouts']} |"
            )
    return "\n".join(lines)


def _link_table(r: Result) -> str:
    lines = [
        "| link | rate | utilisation | queue drops | loss drops | mean queue |",
        "|---|---|---|---|---|---|",
    ]
    for x in r.links:
        if x["packets_in"]:
            lines.append(
                f"| {x['name']} | {fmt_rate(x['rate_bps'])} | {x['utilisation']:.1%} | "
                f"{x['drops']['queue']} | {x['drops']['loss_model'] + x['drops']['script']} | "
                f"{x['mean_queue_packets']:.2f} |"
            )
    return "\n".join(lines)


def _dumbbell(out: Path, scale: str) -> str:
    r = run(SCENARIOS / "dumbbell.toml", trace_flows=True, trace_packets=True)
    r.write(out)
    plot_cwnd(r, out / "cwnd.png")
    plot_sequence(r, out / "sequence_flow0.png")
    return "\n\n".join(
        [
            _flow_table([("dumbbell", r)]),
            _link_table(r),
            "![cwnd](dumbbell/cwnd.png)\n\n![sequence](dumbbell/sequence_flow0.png)",
        ]
    )


#: The forced-drops section's variants: a name and its --set overrides (Fall & Floyd's four,
#: with SACK as ns-2's Sack1, then RFC 6675 with and without Proportional Rate Reduction).
FORCED_DROPS_VARIANTS: tuple[tuple[str, list[str]], ...] = (
    ("tahoe", ["tcp.recovery=tahoe"]),
    ("reno", ["tcp.recovery=reno"]),
    ("newreno", ["tcp.recovery=newreno"]),
    ("sack1", ["tcp.recovery=sack1"]),
    ("rfc6675", ["tcp.recovery=rfc6675"]),
    ("rfc6675-prr", ["tcp.recovery=rfc6675", "tcp.prr=true"]),
)


def _forced_drops(out: Path, scale: str) -> str:
    rows = []
    figs = []
    for variant, sets in FORCED_DROPS_VARIANTS:
        r = run(
            SCENARIOS / "forced-drops.toml",
            overrides=sets,
            trace_flows=True,
            trace_packets=True,
        )
        sub = out / variant
        r.write(sub)
        plot_sequence(r, sub / "sequence.png", title=f"forced drops: {variant}")
        rows.append((variant, r))
        figs.append(f"![{variant}](forced-drops/{variant}/sequence.png)")
    return _flow_table(rows) + "\n\n" + "\n".join(figs)


def _wireless(out: Path, scale: str) -> str:
    r = run(SCENARIOS / "wireless-gilbert.toml", trace_flows=True)
    r.write(out)
    plot_cwnd(r, out / "cwnd.png")
    link = r.link("fixed->mobile")
    return (
        _flow_table([("gilbert", r)]) + f"\n\nLoss model: {link['loss_model']}, implied loss rate "
        f"{link['loss_rate_implied']:.2%}, mean burst {link['loss_burst_implied']:.2f} packets; "
        f"measured {link['loss_rate_measured']:.2%}.\n\n![cwnd](wireless-gilbert/cwnd.png)"
    )


def _asymmetric(out: Path, scale: str) -> str:
    r = run(SCENARIOS / "asymmetric-access.toml")
    r.write(out)
    up = r.link("client->dslam")
    return (
        _flow_table([("asymmetric", r)])
        + "\n\n"
        + _link_table(r)
        + f"\n\nACKs dropped at the receiver's uplink buffer: {up['drops']['queue']} of "
        f"{up['packets_in']} ({up['drops']['queue'] / max(up['packets_in'], 1):.1%})."
    )


def _cc_comparison(out: Path, scale: str) -> str:
    import matplotlib.pyplot as plt

    from . import congestion_controls

    names = congestion_controls()
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(len(names), 1, figsize=(9, 1.3 * len(names)), sharex=True)
    rows = [
        "| cc | goodput | timeouts | fast retransmits | mean cwnd (segments) "
        "| mean bottleneck queue (packets) | goodput, FQ-CoDel | queue, FQ-CoDel (packets) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for ax, name in zip(axes, names, strict=True):
        r = run(SCENARIOS / "cc-comparison.toml", overrides=[f"tcp.cc={name}"], trace_flows=True)
        fq = run(
            SCENARIOS / "cc-comparison.toml",
            overrides=[f"tcp.cc={name}", "topology.bottleneck.qdisc=fq_codel"],
        )
        f, tr = r.flows[0], r.flow_trace(0)
        seg = tr["cwnd"] / f["mss"]
        ax.step(tr["t"], seg, where="post", lw=0.8)
        ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=8)
        ax.grid(alpha=0.3)
        mean = float((seg[:-1] * (tr["t"][1:] - tr["t"][:-1])).sum() / (tr["t"][-1] - tr["t"][0]))
        queue = r.link("r1->r2")["mean_queue_packets"]
        rows.append(
            f"| {name} | {fmt_rate(f['goodput_bps'])} | {f['timeouts']} | "
            f"{f['fast_retransmits']} | {mean:.0f} | {queue:.1f} | "
            f"{fmt_rate(fq.flows[0]['goodput_bps'])} | "
            f"{fq.link('r1->r2')['mean_queue_packets']:.1f} |"
        )
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("cwnd (segments) of each congestion control, 20 Mbps / 50 ms, 0.1 % loss")
    fig.tight_layout()
    fig.savefig(out / "cwnd_all.png", dpi=110)
    plt.close(fig)
    return "\n".join(rows) + "\n\n![cwnd of every variant](cc-comparison/cwnd_all.png)"


def _many_flows(out: Path, scale: str) -> str:
    import matplotlib.pyplot as plt

    from . import _core

    r = run(SCENARIOS / "many-flows.toml")
    r.write(out)
    groups: dict[str, list[float]] = {}
    for f in r.flows:
        groups.setdefault(f["name"].rstrip("0123456789"), []).append(f["goodput_bps"])
    rows = [
        "| flows | count | goodput, all | per flow: mean | min | max | Jain's index |",
        "|---|---|---|---|---|---|---|",
    ]
    fig, ax = plt.subplots(figsize=(9, 3))
    x = 0
    everyone = [v for goodputs in groups.values() for v in goodputs]
    for name, g in [*groups.items(), ("all", everyone)]:
        rows.append(
            f"| {name} | {len(g)} | {fmt_rate(sum(g))} | {fmt_rate(sum(g) / len(g))} | "
            f"{fmt_rate(min(g))} | {fmt_rate(max(g))} | {_core.jain(g):.3f} |"
        )
        if name != "all":
            ax.bar(range(x, x + len(g)), sorted(v / 1e6 for v in g), width=1.0, label=name)
            x += len(g)
    ax.set_xlabel("flow (sorted by goodput within its group)")
    ax.set_ylabel("goodput (Mbps)")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(out / "goodput.png", dpi=110)
    plt.close(fig)
    link = r.link("r1->r2")
    return (
        "\n".join(rows) + f"\n\nBottleneck utilisation {link['utilisation']:.1%}, mean queue "
        f"{link['mean_queue_packets']:.0f} packets, {link['drops']['queue']} queue drops."
        "\n\n![goodput of every flow](many-flows/goodput.png)"
    )


def _dctcp_marking(k: int) -> list[str]:
    """DCTCP with every port of a generated fabric step-marking from ``k`` packets."""
    return [
        "traffic.tcp.cc=dctcp",
        *(
            f"topology.{link}.{x}"
            for link in ("host_link", "fabric_link")
            for x in ("qdisc=step", f"aqm.k={k}")
        ),
    ]


#: DCTCP on the fabric: its congestion control, and every switch port marking from K = 65
#: packets waiting (the threshold Linux's DCTCP documentation gives for 10 Gbps).
_DCTCP = _dctcp_marking(65)


def _datacenter_fct(out: Path, scale: str) -> str:
    import matplotlib.pyplot as plt

    loads = (0.3, 0.5, 0.7)
    variants: tuple[tuple[str, list[str]], ...] = (
        ("CUBIC, drop-tail", []),
        ("DCTCP, step marking", _DCTCP),
    )
    rows = [
        "| load | TCP | completed | size | flows | mean | median | p99 | slowdown median "
        "| slowdown p99 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    short_p99: dict[str, list[float]] = {}
    long_mean: dict[str, list[float]] = {}
    for load in loads:
        for name, sets in variants:
            r = run(SCENARIOS / "datacenter-fct.toml", overrides=[f"traffic.load={load}", *sets])
            r.write(out / f"{name.split(',')[0].lower()}-load-{load}")
            fct = r.completion_times()
            by_label = {c["label"]: c for c in fct["classes"]}
            short_p99.setdefault(name, []).append(by_label["under 100 kB"]["slowdown_p99"])
            long_mean.setdefault(name, []).append(by_label["10 MB and more"]["mean"] * 1e3)
            for c in fct["classes"]:
                rows.append(
                    f"| {load:.0%} | {name} | {fct['completed']:,} of {len(r.flows):,} | "
                    f"{c['label']} | {c['flows']:,} | {fmt_time(c['mean'])} | "
                    f"{fmt_time(c['median'])} | {fmt_time(c['p99'])} | "
                    f"{c['slowdown_median']:.2f} | {c['slowdown_p99']:.2f} |"
                )
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.5))
    x = [100 * load for load in loads]
    for name, _ in variants:
        a.plot(x, short_p99[name], marker="o", label=name)
        b.plot(x, long_mean[name], marker="o", label=name)
    a.set_title("flows under 100 kB: 99th-percentile slowdown")
    b.set_title("flows of 10 MB and more: mean")
    a.set_ylabel("completion time / ideal")
    b.set_ylabel("completion time (ms)")
    for ax in (a, b):
        ax.set_xlabel("load (% of the hosts' capacity)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    a.legend()
    fig.tight_layout()
    fig.savefig(out / "fct.png", dpi=110)
    plt.close(fig)
    return "\n".join(rows) + "\n\n![completion times against load](datacenter-fct/fct.png)"


#: Servers in the incast section.
INCAST_SENDERS = (1, 2, 4, 8, 16, 32, 48, 64)
#: The most the aggregator's 1 Gbps port delivers: 1,448 payload bytes in every 1,500-byte
#: packet (Mbps).
LINE_PAYLOAD_MBPS = 1000 * 1448 / 1500


#: The incast section's variants: a name and its --set overrides. K = 20 packets is the
#: DCTCP paper's marking threshold at 1 Gbps, and 10 ms the minimum RTO it ran with.
INCAST_VARIANTS: tuple[tuple[str, list[str]], ...] = (
    ("Reno, min RTO 200 ms", ["traffic.tcp.rto_min=200ms"]),
    ("Reno, min RTO 1 ms", ["traffic.tcp.rto_min=1ms"]),
    ("DCTCP K=20, min RTO 200 ms", ["traffic.tcp.rto_min=200ms", *_dctcp_marking(20)]),
    ("DCTCP K=20, min RTO 10 ms", ["traffic.tcp.rto_min=10ms", *_dctcp_marking(20)]),
)


def _incast(out: Path, scale: str) -> str:
    import matplotlib.pyplot as plt

    rounds = 50 if scale == "paper" else 20
    goodput: dict[str, list[float]] = {}
    cells: dict[int, list[str]] = {n: [] for n in INCAST_SENDERS}
    for k, (name, sets) in enumerate(INCAST_VARIANTS):
        for n in INCAST_SENDERS:
            r = run(
                SCENARIOS / "incast.toml",
                overrides=[f"traffic.senders={n}", f"traffic.app.rounds={rounds}", *sets],
            )
            r.write(out / f"variant-{k}-servers-{n}")
            g = r.rounds()[0]
            goodput.setdefault(name, []).append((g["goodput_bps"] or 0.0) / 1e6)
            rtos = sum(f["timeouts"] for f in r.flows)
            cells[n].append(f"{fmt_rate(g['goodput_bps'] or 0.0)} ({rtos:,} RTOs)")
    names = [name for name, _ in INCAST_VARIANTS]
    rows = [
        "Goodput at the aggregator over the rounds after the first, and the servers' "
        "retransmission timeouts:",
        "",
        "| servers | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
        *(f"| {n} | " + " | ".join(cells[n]) + " |" for n in INCAST_SENDERS),
    ]
    fig, ax = plt.subplots(figsize=(8.5, 3.8))
    for name in names:
        ax.plot(INCAST_SENDERS, goodput[name], marker="o", label=name)
    ax.axhline(LINE_PAYLOAD_MBPS, color="grey", linestyle=":", label="payload at line rate")
    ax.set_xscale("log", base=2)
    ax.set_xticks(INCAST_SENDERS, [str(n) for n in INCAST_SENDERS])
    ax.set_xlabel("servers")
    ax.set_ylabel("goodput at the aggregator (Mbps)")
    ax.set_ylim(0, 1050)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    fig.tight_layout()
    fig.savefig(out / "goodput.png", dpi=110)
    plt.close(fig)
    parts = []
    for name in names:
        share = [
            g / LINE_PAYLOAD_MBPS
            for n, g in zip(INCAST_SENDERS, goodput[name], strict=True)
            if n >= 8
        ]
        parts.append(f"{min(share):.0%}–{max(share):.0%} for {name}")
    summary = (
        "From 8 servers on, the goodput as a share of the port's payload rate is "
        + "; ".join(parts)
        + f" ({rounds} rounds a run)."
    )
    return summary + "\n\n" + "\n".join(rows) + "\n\n![goodput against servers](incast/goodput.png)"


def _linux_slowstart(out: Path, scale: str) -> str:
    r = run(SCENARIOS / "linux-slowstart.toml", trace_flows=True, trace_packets=True)
    r.write(out)
    plot_sequence(r, out / "sequence.png")
    return _flow_table([("linux-2.6", r)]) + "\n\n![sequence](linux-slowstart/sequence.png)"


#: The slow-start exits compared, in the order shown.
HYSTARTS = (
    ("off", "no HyStart"),
    ("linux", "HyStart, Linux's constants"),
    ("ns3", "HyStart, ns-3's constants"),
    ("rfc9406", "HyStart++ (RFC 9406)"),
)


def _slow_start_exits(out: Path, scale: str) -> str:
    """CUBIC's first slow start on one path, ended four ways: each run's exit and losses, and
    their windows on one figure beside what the path holds."""
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    rows = [
        "| slow start | ended by | at | window then (segments) | retransmissions | goodput |",
        "|---|---|---|---|---|---|",
    ]
    fig, ax = plt.subplots(figsize=(8, 4))
    for mode, label in HYSTARTS:
        r = run(
            SCENARIOS / "slow-start-exits.toml",
            overrides=[f"tcp.hystart={mode}"],
            trace_flows=True,
        )
        f, tr = r.flows[0], r.flow_trace(0)
        h = f.get("hystart") or {}
        if h.get("exit_by"):
            ended = {"delay": "delay rise", "train": "ACK train", "css": "end of CSS"}
            how, at = ended[h["exit_by"]], fmt_time(h["exit_at"])
            window = f"{h['exit_cwnd_segments']:.1f}"
        else:
            how, at, window = "a loss", "-", "-"
        rows.append(
            f"| {label} | {how} | {at} | {window} | {f['retransmissions']} | "
            f"{fmt_rate(f['goodput_bps'])} |"
        )
        ax.step(tr["t"], tr["cwnd"] / f["mss"], where="post", lw=1.0, label=label)
    # 40 ms of 1,500-byte packets at 10 Mb/s in flight, plus the 100-packet queue.
    holds = 0.040 / (1500 * 8 / 10e6) + 100
    ax.axhline(holds, color="grey", ls=":", lw=1.0, label=f"the path holds {holds:.0f}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_xlim(0, 2)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "cwnd.png", dpi=110)
    plt.close(fig)
    return "\n".join(rows) + "\n\n![cwnd in slow start](slow-start-exits/cwnd.png)"

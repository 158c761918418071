"""The plain-text summary of a run that ``transim run`` prints: flows, SCTP paths and
streams, congestion-control models, link directions and the packet books.

A run of thousands of flows would print a row for each: the table is made from the engine's
digest of the summary (``_core.summary_digest``), which keeps the first flows and the busiest
link directions and adds totals over all the flows, so that the summary itself need not be
read into Python.
"""

from __future__ import annotations

from typing import Any

from .format import fmt_bytes, fmt_rate, fmt_time
from .rounds import describe

#: Rows of flows and of link directions ``transim run`` prints at most.
TERMINAL_ROWS = 50


def render(s: dict[str, Any]) -> str:
    """The digest ``s`` of a summary (``_core.summary_digest``) as text."""
    # The digest holds only the rows printed: the first flows, the busiest link directions.
    shown: list[dict[str, Any]] = s["flows"]
    busy: list[dict[str, Any]] = s["links"]
    lines = [
        f"scenario {s['name']!r}  seed {s['seed']}  simulated {s['simulated_time']:.3f} s  "
        f"events {s['events']:,}",
        "",
    ]
    flow_w = max([10, *(len(f["name"]) for f in shown)])
    head = (
        f"{'flow':<{flow_w}} {'protocol':<18} {'goodput':>11} {'completion':>10} "
        f"{'sent':>8} {'rtx':>6} {'fast':>5} {'RTOs':>5} {'drops':>6} {'srtt':>9}"
    )
    lines += [head, "-" * len(head)]
    for f in shown:
        done = fmt_time(f["completion_time"]) if f["completion_time"] is not None else "-"
        drops = sum(f["data_drops"].values())
        lines.append(
            f"{f['name']:<{flow_w}} {_variant(f):<18} {fmt_rate(f['goodput_bps']):>11} "
            f"{done:>10} {_data_sent(f):>8} {f['retransmissions']:>6} "
            f"{f['fast_retransmits']:>5} {f['timeouts']:>5} {drops:>6} {fmt_time(f['srtt']):>9}"
        )
    if len(shown) < s["flows_total"]:
        lines += _all_flows(s["flows_all"], s["flows_total"], len(shown), s["simulated_time"])
    # Completion times by size where the table cannot show the flows (or would not by
    # default: --all-rows keeps them): small scenarios' completion column says it all.
    if len(shown) < s["flows_total"] or s["flows_total"] > TERMINAL_ROWS:
        lines += _completion_times(s["flows_all"], s["flows_total"])
    lines += _rounds(s.get("rounds", []))
    sctp = [f for f in shown if f.get("protocol") == "sctp"]
    if sctp:
        lines.append("")
        head = (
            f"{'flow':<10} {'path / stream':<18} {'state':>8} {'cwnd':>8} {'srtt':>9} "
            f"{'bytes':>10} {'first':>10} {'last':>10}"
        )
        lines += ["SCTP destinations and streams", head, "-" * len(head)]
        for f in sctp:
            for k, p in enumerate(f["paths"]):
                srtt = fmt_time(p["srtt"]) if p["srtt"] is not None else "-"
                state = "active" if p["active"] else "down"
                lines.append(
                    f"{f['name']:<10} {f'{k}: ' + p['src'] + '->' + p['dst']:<18} "
                    f"{state:>8} {p['cwnd']:>8} {srtt:>9} {p['data_bytes']:>10}"
                )
            for st in f["streams"]:
                first, last = st["first_delivery"], st["last_delivery"]
                lines.append(
                    f"{f['name']:<10} {'stream ' + str(st['sid']):<18} {'':>8} {'':>8} "
                    f"{'':>9} {st['bytes']:>10} "
                    f"{fmt_time(first) if first is not None else '-':>10} "
                    f"{fmt_time(last) if last is not None else '-':>10}"
                )
            for t, a, b in f["failovers"]:
                lines.append(f"{f['name']:<10} failover from path {a} to {b} at {t:.3f} s")
    models = [f for f in shown if f.get("cc_model")]
    if models:
        lines.append("")
        # As wide as the longest state (BBR v3's "probe_bw_cruise").
        state_w = max([10, *(len(f["cc_model"]["state"]) for f in models)])
        head = (
            f"{'flow':<10} {'cc':<9} {'state':<{state_w}} {'bandwidth':>11} {'min RTT':>9} "
            f"{'pacing':>11}"
        )
        lines += ["congestion control's path model at the end", head, "-" * len(head)]
        for f in models:
            m = f["cc_model"]
            rtt = fmt_time(m["min_rtt"]) if m["min_rtt"] is not None else "-"
            pacing = fmt_rate(f["pacing_rate_bps"]) if f["pacing_rate_bps"] else "-"
            lines.append(
                f"{f['name']:<10} {f['cc']:<9} {m['state']:<{state_w}} "
                f"{fmt_rate(m['bandwidth_bps']):>11} {rtt:>9} {pacing:>11}"
            )
    lines += _hystart_lines(shown)
    lines.append("")
    # Columns as wide as their widest entry (a fabric's names, a 100 Gbps rate).
    name_w = max([10, *(len(x["name"]) for x in busy)])
    rate_w = max([10, *(len(fmt_rate(x["rate_bps"])) for x in busy)])
    head = (
        f"{'link':<{name_w}} {'rate':>{rate_w}} {'util':>6} {'in':>9} {'q drops':>8} "
        f"{'loss drops':>10} {'mean q':>7} {'max q':>6}"
    )
    lines += [head, "-" * len(head)]
    cells = False
    for x in busy:
        # ATM links count cells; EPD/PPD discards are queue drops of the port.
        unit = "c" if x.get("unit") == "cells" else "p"
        cells |= unit == "c"
        qd = x["drops"]["queue"] + x["drops"].get("epd", 0) + x["drops"].get("ppd", 0)
        lines.append(
            f"{x['name']:<{name_w}} {fmt_rate(x['rate_bps']):>{rate_w}} {x['utilisation']:>6.1%} "
            f"{x['packets_in']:>8}{unit} {qd:>8} "
            f"{x['drops']['loss_model'] + x['drops']['script']:>10} "
            f"{x['mean_queue_packets']:>7.2f} {x['max_queue_packets']:>6}"
        )
    if cells:
        lines.append("(c: cells on ATM links, p: packets; queue drops include EPD and PPD)")
    lines += _dual_queues(busy)
    carried: int = s["links_carried"]
    if len(busy) < carried:
        lines.append(
            f"(the {len(busy)} busiest of {carried:,} link directions that carried packets; "
            "all are in links.csv)"
        )
    c = s["conservation"]
    lines.append("")
    lines.append(
        f"packets: sent {c['sent']:,} = delivered {c['delivered']:,} + dropped "
        f"{c['dropped']:,} + in flight {c['in_flight']:,}"
    )
    return "\n".join(lines)


def _dual_queues(links: list[dict[str, Any]]) -> list[str]:
    """Two lines per DualPI2 link: its L4S and Classic queues' packets, sojourn times, marks
    and drops, and the base probability at the end (nothing for other links)."""
    lines = []
    for x in links:
        d = x.get("dual_queue")
        if not d:
            continue
        lines += [
            "",
            f"{x['name']} dualpi2 (p' {d['base_prob']:.4f} at the end):",
            f"  L4S queue   {d['l_packets']:>10,} packets, sojourn mean "
            f"{fmt_time(d['l_mean_sojourn'])} max {fmt_time(d['l_max_sojourn'])}, "
            f"{d['l_marks']:,} marked, {d['l_drops']:,} dropped",
            f"  Classic     {d['c_packets']:>10,} packets, sojourn mean "
            f"{fmt_time(d['c_mean_sojourn'])} max {fmt_time(d['c_max_sojourn'])}, "
            f"{d['c_marks']:,} marked, {d['c_drops']:,} dropped",
        ]
    return lines


def _all_flows(every: dict[str, Any], total: int, shown: int, simulated: float) -> list[str]:
    """The lines after the first ``shown`` of ``total`` flows' rows: how many more, and the
    digest's figures over ``every`` flow in a run of ``simulated`` seconds.

    The aggregate is what was delivered over the run, not the flows' goodputs summed: each
    goodput is over the flow's own active time, so with flows that come and go (a
    completion-time workload) their sum counts the same link capacity many times over."""
    fairness = every["jain"]
    delivered = every["bytes"]
    rate = f", {fmt_rate(delivered * 8 / simulated)} over the run" if simulated > 0 else ""
    return [
        f"... {total - shown:,} more flows (all are in flows.csv)",
        f"all {total:,} flows: {fmt_bytes(delivered)} delivered{rate}; goodput "
        f"{fmt_rate(every['min'])} to {fmt_rate(every['max'])} per flow, Jain's index "
        f"{'-' if fairness is None else f'{fairness:.3f}'}; {every['retransmissions']:,} "
        f"retransmissions, {every['timeouts']:,} RTOs",
    ]


def _completion_times(every: dict[str, Any], total: int) -> list[str]:
    """The completion times by size class of the flows that completed, from the digest's
    figures over ``every`` one of ``total`` flows (nothing when none completed), with the
    slowdown's median and 99th percentile when the flows have ideal completion times."""
    classes: list[dict[str, Any]] = every.get("fct", [])
    if not classes:
        return []
    slowdown = any(c.get("slowdown_median") is not None for c in classes)
    lines = [
        "",
        f"{every['completed']:,} of {total:,} flows completed; their completion times "
        "by size delivered"
        + (
            ", and slowdown (completion time over the transfer's alone on idle links):"
            if slowdown
            else ":"
        ),
        f"  {'size':<16} {'flows':>8} {'mean':>10} {'median':>10} {'p99':>10}"
        + (f"  {'slowdown median':>15} {'p99':>8}" if slowdown else ""),
    ]
    for c in classes:
        line = (
            f"  {c['label']:<16} {c['flows']:>8,} {fmt_time(c['mean']):>10} "
            f"{fmt_time(c['median']):>10} {fmt_time(c['p99']):>10}"
        )
        if slowdown:
            line += f"  {_ratio(c.get('slowdown_median')):>15} {_ratio(c.get('slowdown_p99')):>8}"
        lines.append(line)
    with_ideal = sum(c.get("slowdown_flows", c["flows"]) for c in classes)
    flows = sum(c["flows"] for c in classes)
    if slowdown and with_ideal < flows:
        lines.append(
            f"  slowdown over the {with_ideal:,} of {flows:,} flows with an ideal completion "
            "time (none for a transfer written at set times, or sprayed over equal-cost paths)"
        )
    return lines


def _ratio(x: float | None) -> str:
    """A slowdown as printed: two decimals, or a dash without one."""
    return "-" if x is None else f"{x:.2f}"


def _rounds(groups: list[dict[str, Any]]) -> list[str]:
    """A line or two per group of barrier-synchronised rounds (nothing without them)."""
    lines = []
    for g in map(describe, groups):
        who = (
            f"{g['flows']:,} flows"
            if g["group"] is None
            else (f"group {g['group']!r} ({g['flows']:,} flows)")
        )
        lines += [
            "",
            f"rounds of {who}: {g['completed']} of {g['rounds']} ended, "
            f"{g['bytes_per_round']:,} bytes a round",
        ]
        if g["first_round_end"] is not None:
            lines[-1] += f"; the first ended at {fmt_time(g['first_round_end'])}"
        if g["goodput_bps"] is not None:
            lines.append(
                f"  after it: goodput {fmt_rate(g['goodput_bps'])}, a round "
                f"{fmt_time(g['mean'])} on average, median {fmt_time(g['median'])}, "
                f"longest {fmt_time(g['max'])}"
            )
    return lines


def _variant(f: dict[str, Any]) -> str:
    """What a flow runs: TCP's congestion control and recovery, SCTP's streams."""
    if f.get("protocol") == "sctp":
        return f"sctp, {len(f['streams'])} streams"
    return f"{f['cc']}/{f['recovery']}{'+prr' if f.get('prr') else ''}"


def _data_sent(f: dict[str, Any]) -> int:
    """Data packets (TCP segments) or DATA chunks (SCTP) sent."""
    return f["data_chunks_sent"] if f.get("protocol") == "sctp" else f["data_segments_sent"]


def _hystart_lines(flows: list[dict[str, Any]]) -> list[str]:
    """One line per flow with CUBIC's HyStart: when it ended slow start, at what window."""
    with_hystart = [f for f in flows if f.get("hystart")]
    if not with_hystart:
        return []
    head = f"{'flow':<10} {'hystart':<8} {'left slow start':>15} {'cwnd (seg)':>11} by    "
    lines = ["", "HyStart", head.rstrip(), "-" * len(head)]
    for f in with_hystart:
        h = f["hystart"]
        if h["exit_at"] is None:
            lines.append(f"{f['name']:<10} {h['mode']:<8} {'not by HyStart':>15}")
            continue
        lines.append(
            f"{f['name']:<10} {h['mode']:<8} {fmt_time(h['exit_at']):>15} "
            f"{h['exit_cwnd_segments']:>11.1f} {h['exit_by']}"
        )
    return lines

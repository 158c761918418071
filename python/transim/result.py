"""The result of one run: summaries per flow and per link, plus optional numpy traces."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from .format import fmt_rate, fmt_time


class Result:
    """Summary and traces of one run.

    ``flows`` and ``links`` are lists of dicts (see the README for the fields);
    ``flow_traces[i]`` is None or a dict of numpy arrays (t, cwnd, ssthresh, srtt, rto, flight,
    snd_max, snd_una); ``packet_trace`` is None or a dict of numpy arrays (t, kind, flow,
    from_sender, seq, ack, len, tx, link, cause).
    """

    def __init__(
        self,
        summary: dict[str, Any],
        flow_traces: list[dict[str, np.ndarray] | None],
        packet_trace: dict[str, np.ndarray] | None,
        scenario: dict[str, Any],
    ) -> None:
        self.summary = summary
        self.flow_traces = flow_traces
        self.packet_trace = packet_trace
        self.scenario = scenario
        #: Trace files written while the run went on (``run(trace_dir=...)``).
        self.trace_files: list[Path] = []

    def load_traces(self) -> None:
        """Read streamed traces back into ``flow_traces`` / ``packet_trace`` (for plots)."""
        from .tracefile import FLOWS, PACKETS, SCTP, read_trace

        names = {p.name: p for p in self.trace_files}
        if PACKETS in names and self.packet_trace is None:
            self.packet_trace = read_trace(names[PACKETS])
        for name in (FLOWS, SCTP):
            if name not in names:
                continue
            every = read_trace(names[name])
            flow = every.pop("flow")
            for i in np.unique(flow):
                rows = flow == i
                self.flow_traces[int(i)] = {k: v[rows] for k, v in every.items()}

    @property
    def flows(self) -> list[dict[str, Any]]:
        return self.summary["flows"]

    @property
    def links(self) -> list[dict[str, Any]]:
        return self.summary["links"]

    def flow(self, key: int | str = 0) -> dict[str, Any]:
        """A flow's summary by index or name."""
        if isinstance(key, int):
            return self.flows[key]
        for f in self.flows:
            if f["name"] == key:
                return f
        raise KeyError(f"no flow named {key!r}; flows are {[f['name'] for f in self.flows]}")

    def link(self, name: str) -> dict[str, Any]:
        """A link direction's summary by name ("r1->r2")."""
        for link in self.links:
            if link["name"] == name:
                return link
        raise KeyError(f"no link {name!r}; links are {[x['name'] for x in self.links]}")

    def table(self) -> str:
        """A plain-text summary table."""
        s = self.summary
        lines = [
            f"scenario {s['name']!r}  seed {s['seed']}  simulated {s['simulated_time']:.3f} s  "
            f"events {s['events']:,}",
            "",
        ]
        head = (
            f"{'flow':<10} {'protocol':<18} {'goodput':>11} {'completion':>10} "
            f"{'sent':>8} {'rtx':>6} {'fast':>5} {'RTOs':>5} {'drops':>6} {'srtt':>9}"
        )
        lines += [head, "-" * len(head)]
        for f in self.flows:
            done = fmt_time(f["completion_time"]) if f["completion_time"] is not None else "-"
            drops = sum(f["data_drops"].values())
            lines.append(
                f"{f['name']:<10} {_variant(f):<18} {fmt_rate(f['goodput_bps']):>11} "
                f"{done:>10} {_data_sent(f):>8} {f['retransmissions']:>6} "
                f"{f['fast_retransmits']:>5} {f['timeouts']:>5} {drops:>6} {fmt_time(f['srtt']):>9}"
            )
        sctp = [f for f in self.flows if f.get("protocol") == "sctp"]
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
        models = [f for f in self.flows if f.get("cc_model")]
        if models:
            lines.append("")
            head = (
                f"{'flow':<10} {'cc':<9} {'state':<10} {'bandwidth':>11} {'min RTT':>9} "
                f"{'pacing':>11}"
            )
            lines += ["congestion control's path model at the end", head, "-" * len(head)]
            for f in models:
                m = f["cc_model"]
                rtt = fmt_time(m["min_rtt"]) if m["min_rtt"] is not None else "-"
                pacing = fmt_rate(f["pacing_rate_bps"]) if f["pacing_rate_bps"] else "-"
                lines.append(
                    f"{f['name']:<10} {f['cc']:<9} {m['state']:<10} "
                    f"{fmt_rate(m['bandwidth_bps']):>11} {rtt:>9} {pacing:>11}"
                )
        lines.append("")
        head = (
            f"{'link':<10} {'rate':>10} {'util':>6} {'in':>9} {'q drops':>8} "
            f"{'loss drops':>10} {'mean q':>7} {'max q':>6}"
        )
        lines += [head, "-" * len(head)]
        cells = False
        for x in self.links:
            if x["packets_in"] == 0:
                continue
            # ATM links count cells; EPD/PPD discards are queue drops of the port.
            unit = "c" if x.get("unit") == "cells" else "p"
            cells |= unit == "c"
            qd = x["drops"]["queue"] + x["drops"].get("epd", 0) + x["drops"].get("ppd", 0)
            lines.append(
                f"{x['name']:<10} {fmt_rate(x['rate_bps']):>10} {x['utilisation']:>6.1%} "
                f"{x['packets_in']:>8}{unit} {qd:>8} "
                f"{x['drops']['loss_model'] + x['drops']['script']:>10} "
                f"{x['mean_queue_packets']:>7.2f} {x['max_queue_packets']:>6}"
            )
        if cells:
            lines.append("(c: cells on ATM links, p: packets; queue drops include EPD and PPD)")
        c = s["conservation"]
        lines.append("")
        lines.append(
            f"packets: sent {c['sent']:,} = delivered {c['delivered']:,} + dropped "
            f"{c['dropped']:,} + in flight {c['in_flight']:,}"
        )
        return "\n".join(lines)

    def write(self, out: Path) -> list[Path]:
        """Write results.json, flows.csv, links.csv (and traces as .npz) into ``out``."""
        out.mkdir(parents=True, exist_ok=True)
        written = []
        p = out / "results.json"
        p.write_text(json.dumps(self.summary, indent=2) + "\n", encoding="utf-8")
        written.append(p)
        for name, rows in (("flows.csv", self.flows), ("links.csv", self.links)):
            p = out / name
            with p.open("w", newline="", encoding="utf-8") as fh:
                flat = [_flatten(r) for r in rows]
                names = list(dict.fromkeys(k for r in flat for k in r))
                w = csv.DictWriter(fh, fieldnames=names, restval="")
                w.writeheader()
                w.writerows(flat)
            written.append(p)
        for i, tr in enumerate(self.flow_traces):
            if tr is not None:
                p = out / f"trace_flow{i}.npz"
                np.savez_compressed(p, **tr)
                written.append(p)
        if self.packet_trace is not None:
            p = out / "trace_packets.npz"
            np.savez_compressed(p, **self.packet_trace)
            written.append(p)
        return written


def _variant(f: dict[str, Any]) -> str:
    """What a flow runs: TCP's congestion control and recovery, SCTP's streams."""
    if f.get("protocol") == "sctp":
        return f"sctp, {len(f['streams'])} streams"
    return f"{f['cc']}/{f['recovery']}"


def _data_sent(f: dict[str, Any]) -> int:
    """Data packets (TCP segments) or DATA chunks (SCTP) sent."""
    return f["data_chunks_sent"] if f.get("protocol") == "sctp" else f["data_segments_sent"]


def _flatten(row: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for k, v in row.items():
        if isinstance(v, dict):
            flat.update(_flatten(v, f"{prefix}{k}."))
        else:
            flat[f"{prefix}{k}"] = v
    return flat

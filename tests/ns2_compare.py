"""Run the Fall & Floyd path in transim with the ns2 profile and in the ns-2 restatement
(`ns2ref`), and line up every packet the sender sent and every ACK the sink sent."""

from __future__ import annotations

from typing import Any

import transim


def segment(d: int | tuple[int, int]) -> dict[str, int]:
    if isinstance(d, tuple):
        return {"segment": d[0], "transmission": d[1]}
    return {"segment": d}


def scenario(
    variant: str,
    drops: list[int | tuple[int, int]],
    until_s: float = 6.0,
    limited_transmit: bool = True,
    precision_reduce: bool = True,
    window: int = 28,
    queue: int = 8,
) -> dict[str, Any]:
    return {
        "duration": f"{until_s}s",
        "seed": 1,
        "tcp": {
            "profile": "ns2",
            "recovery": variant,
            "rcv_buf": f"{window * 1000}B",
            "rto_min": "1s",
            "rto_initial": "6s",
            "limited_transmit": limited_transmit,
            "precision_reduce": precision_reduce,
        },
        "topology": {
            "kind": "explicit",
            "nodes": ["s", "r", "k"],
            "links": [
                {
                    "between": ["s", "r"],
                    "rate": "8Mbps",
                    "delay": "0ms",
                    "queue": 50,
                    "qdisc": "droptail_ns2",
                },
                {
                    "between": ["r", "k"],
                    "rate": "800kbps",
                    "delay": "100ms",
                    "queue": 50,
                    "qdisc": "droptail_ns2",
                    "forward": {
                        "queue": queue,
                        "drops": {"segments": [segment(d) for d in drops], "at": "enqueue"},
                    },
                },
            ],
        },
        "flows": [{"src": "s", "dst": "k", "start": "1s", "app": {"kind": "bulk"}}],
    }


def transim_timeline(doc: dict[str, Any]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    r = transim.run(doc, trace_packets=True)
    pt = r.packets()
    sent, acks = [], []
    for t, kind, fs, seq, ack, ln in zip(
        pt["t"], pt["kind"], pt["from_sender"], pt["seq"], pt["ack"], pt["len"], strict=True
    ):
        if kind != 0:
            continue
        ns = round(float(t) * 1e9)
        if fs:
            sent.append((ns, 0 if ln == 0 else int(seq) // 1000 + 1))
        else:
            acks.append((ns, int(ack) // 1000))
    return sent, acks

"""``transim report``: the main job. Runs the study reproductions and the example scenarios
and writes one self-contained ``report.html`` (and ``report.md``) with their tables, figures
and a summary of which findings reproduce.

Every run's files are written as soon as it finishes and the report is rewritten after each
section, so an interruption loses nothing already done.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from .data import resource
from .report_bbr import bbr_section
from .report_examples import (
    _asymmetric,
    _cc_comparison,
    _datacenter_fct,
    _dumbbell,
    _forced_drops,
    _incast,
    _linux_slowstart,
    _many_flows,
    _slow_start_exits,
    _wireless,
)
from .report_flow_control import flow_control_section
from .report_l4s import l4s_section
from .report_on_off import on_off_section
from .report_reordering import reordering_section
from .report_spraying import spraying_section

SCENARIOS = resource("scenarios")


@dataclass
class Section:
    """One part of the report: a title, what it shows, how to produce and rerun it."""

    key: str
    title: str
    text: str
    produce: Callable[[Path, str], str]
    command: str = ""
    scenarios: tuple[str, ...] = ()
    short: str = ""


def _cross_validation(out: Path, scale: str) -> str:
    from .peers.report_section import cross_validation

    return cross_validation(out, scale)


def _study_sctp(out: Path, scale: str) -> str:
    from .studies import sctp

    return sctp.reproduce(out, scale).replace("](", "](study1-sctp/")


def _study_atm(out: Path, scale: str) -> str:
    from .studies import atm

    return atm.reproduce(out, scale).replace("](", "](study2-atm/")


def _study_adaptive(out: Path, scale: str) -> str:
    from .studies import adaptive

    return adaptive.reproduce(out, scale).replace("](", "](study3-adaptive/")


def _study_sackplus(out: Path, scale: str) -> str:
    from .studies import sackplus

    return sackplus.reproduce(out, scale).replace("](", "](study4-sackplus/")


def _study_ful(out: Path, scale: str) -> str:
    from .studies import ful

    return ful.reproduce(out, scale).replace("](", "](study5-ful/")


SECTIONS = [
    Section(
        "study1-sctp",
        "Study 1: SCTP vs TCP transfer time in the initial slow start",
        "Kim & Lee (2006–07) sent N files round-robin over SCTP (one stream per file) and TCP "
        "on a Linux 2.6.15 testbed through a dummynet router, and measured the transfer time "
        "against delay, bandwidth and file size. They found SCTP about 15 % faster, because its "
        "initial window is larger; we rebuild the testbed and check the byte counts exactly.",
        _study_sctp,
        "transim reproduce sctp --scale {scale}",
        ("studies/sctp/testbed.toml", "studies/sctp/multihomed.toml"),
        "1. SCTP vs TCP",
    ),
    Section(
        "study2-atm",
        "Study 2: TCP parameters (Nagle, fast retransmit and recovery) over ATM",
        "Kim, Yuk, Park, Ryu and Park simulated in YATS n TCP connections, each on its own "
        "ATM VC, through one switch-to-switch bottleneck with UBR + early packet discard, "
        "ABR with binary EFCI feedback and ABR with explicit rates, and varied the number of "
        "VCs, the MTU, Nagle and fast retransmit/recovery. We simulate every cell.",
        _study_atm,
        "transim reproduce atm --scale {scale}",
        ("studies/atm/bottleneck.toml",),
        "2. TCP over ATM",
    ),
    Section(
        "study3-adaptive",
        "Study 3: an adaptive framework that switches TCP variants mid-session",
        "Hwang, Kim and Yoo built a decision map from ns-2 sweeps (Reno, Westwood, CUBIC, Veno "
        "over bandwidth × delay × loss, priorities by Welch's t-test) and a sender that "
        "estimates its path, looks it up and switches variant mid-session; on random paths it "
        "reached 93 % of the best variant on average. We run the sweep on Dask, build the map "
        "and run the framework and an oracle ablation.",
        _study_adaptive,
        "transim reproduce adaptive --scale {scale}",
        ("studies/adaptive/path.toml",),
        "3. Adaptive TCP",
    ),
    Section(
        "study4-sackplus",
        "Study 4: SackPlus — lost retransmissions in SACK recovery",
        "Park et al. (KIISE 2005) simulated in ns-2 a SACK sender that detects a lost "
        "retransmission from the SACK blocks (SackPlus) against Sack1, with forced, random and "
        "bursty loss on a wireless hop. SackPlus avoided most of Sack1's timeouts.",
        _study_sackplus,
        "transim reproduce sackplus --scale {scale}",
        (
            "studies/sackplus/forced-drop.toml",
            "studies/sackplus/random-loss.toml",
            "studies/sackplus/gilbert-loss.toml",
            "studies/sackplus/fairness.toml",
        ),
        "4. SackPlus",
    ),
    Section(
        "study5-ful",
        "Study 5: the FUL bit against uplink ACK-buffer overflow",
        "Kang & Jang proposed a reserved TCP header bit with which a receiver on an asymmetric "
        "(ADSL-like) link tells the sender that its uplink buffer is full, so the sender "
        "pauses instead of losing ACKs. They reported goodput gains for one and five flows; "
        "the delays and buffers the paper leaves open are ours.",
        _study_ful,
        "transim reproduce ful --scale {scale}",
        ("studies/ful/single-flow.toml", "studies/ful/multi-split.toml"),
        "5. FUL bit",
    ),
    Section(
        "dumbbell",
        "Two flows through one bottleneck",
        "scenarios/dumbbell.toml: 10 Mbps / 20 ms bottleneck, 50-packet queue, 0.5 % "
        "random loss on the data direction; NewReno.",
        _dumbbell,
        "transim run scenarios/dumbbell.toml --plot",
        ("dumbbell.toml",),
    ),
    Section(
        "forced-drops",
        "Tahoe, Reno, NewReno and SACK with three drops from one window",
        "scenarios/forced-drops.toml (Fall & Floyd 1996 topology): Tahoe goes back N, Reno "
        "times out, NewReno repairs one hole per round trip; with SACK (ns-2's Sack1, RFC 6675, "
        "and RFC 6675 with Proportional Rate Reduction, `tcp.prr`) the three holes are "
        "repaired in one round trip.",
        _forced_drops,
        "transim run scenarios/forced-drops.toml --set tcp.recovery=reno --plot",
        ("forced-drops.toml",),
    ),
    Section(
        "wireless-gilbert",
        "Bursty loss on a wireless hop",
        "scenarios/wireless-gilbert.toml: 600 kbps / 100 ms with a simple Gilbert chain.",
        _wireless,
        "transim run scenarios/wireless-gilbert.toml --plot",
        ("wireless-gilbert.toml",),
    ),
    Section(
        "reordering",
        "Packet reordering: spurious retransmissions, RFC 6675 against RACK-TLP",
        "scenarios/reordering.toml: two bulk flows share a 20 Mbps / 20 ms link whose "
        "forward direction adds to each packet's delay a draw uniform in [0, jitter), and "
        "packets may overtake one another (`jitter`, `reorder = true`); the queue and the "
        "windows are sized so that nothing is dropped. Every retransmission is therefore "
        "spurious, and D-SACK (`tcp.dsack`) makes the receiver report each one. One flow "
        "recovers by RFC 6675, which takes a segment passed by three others for lost; the "
        "other by RACK-TLP, which waits a reordering window (a quarter of the minimum RTT) "
        "before it marks a segment lost, and widens it by as much for each round trip that "
        "brings a D-SACK (RFC 8985). A spurious fast retransmission still halves the "
        "window, and the flow that halves loses its share of the link to the one that does "
        "not. A packet sent Δ after another overtakes it with chance (J - Δ)²/2J² for a "
        "jitter J above Δ; at 20 Mbps a packet takes 0.6 ms to send, so with a jitter of "
        "1 ms none can be passed by three others (that takes 1.8 ms).",
        reordering_section,
        "transim run scenarios/reordering.toml",
        ("reordering.toml",),
    ),
    Section(
        "asymmetric-access",
        "ACK congestion on an asymmetric access link",
        "scenarios/asymmetric-access.toml: 8 Mbps down, 128 kbps up, 10-packet uplink buffer.",
        _asymmetric,
        "transim run scenarios/asymmetric-access.toml",
        ("asymmetric-access.toml",),
    ),
    Section(
        "cc-comparison",
        "Every congestion control on one path",
        "scenarios/cc-comparison.toml: one bulk flow, 20 Mbps / 50 ms, 100-packet queue, "
        "0.1 % random loss, RFC 6675 SACK recovery, a 512 KB window; only tcp.cc changes. "
        "Hybla's slow start adds 2^rho - 1 segments per ACK; unpaced, its bursts overflow the "
        "queue on long paths (tcp.pacing = true paces it). The last two columns run the same "
        'flow with FQ-CoDel at the bottleneck (topology.bottleneck.qdisc = "fq_codel"); '
        "DCTCP negotiates ECN but neither queue marks, so it behaves as Reno there.",
        _cc_comparison,
        "transim run scenarios/cc-comparison.toml --set tcp.cc=cubic --plot",
        ("cc-comparison.toml",),
    ),
    Section(
        "many-flows",
        "Fifty CUBIC and fifty Reno flows from two entries",
        "scenarios/many-flows.toml: a `[[flows]]` entry with `count = 50` for each, every "
        "flow on its own hosts, sharing a 100 Mbps / 20 ms bottleneck with a 400-packet "
        "queue; RFC 6675 SACK recovery. CUBIC's window grows back faster than Reno's after "
        "each loss, so it takes most of the link; the table gives each group's share and "
        "Jain's fairness index within it.",
        _many_flows,
        "transim run scenarios/many-flows.toml",
        ("many-flows.toml",),
    ),
    Section(
        "datacenter-fct",
        "Flow completion times in a leaf-spine fabric under web-search traffic",
        "scenarios/datacenter-fct.toml: 32 hosts on 4 leaves and 4 spines (10 Gbps host "
        "links, 40 Gbps fabric, ECMP); 2,000 flows arrive as a Poisson process between random "
        'host pairs (`[traffic] pattern = "poisson"`), sizes drawn from the web-search '
        "workload of the DCTCP paper, at 30, 50 and 70 % of the hosts' capacity; Linux's "
        "defaults with a 10 ms minimum RTO. CUBIC over drop-tail queues (200 packets at the "
        "hosts, 400 in the fabric) against DCTCP with every port marking from 65 packets "
        "waiting: DCTCP keeps the queues short, so short flows finish sooner and lose "
        "nothing, while long flows keep their throughput. Under CUBIC a flow whose SYN is "
        "lost waits for the 3 s initial RTO, which sets some classes' means; DCTCP sends "
        "its SYNs ECN-capable, as Linux does, so a marking switch marks them instead. "
        "Slowdown is a flow's completion time over its ideal one: the same transfer, "
        "handshake included, alone on idle links with no window limit (each flow's "
        "`ideal_completion_time`).",
        _datacenter_fct,
        "transim run scenarios/datacenter-fct.toml --set traffic.load=0.7",
        ("datacenter-fct.toml",),
    ),
    Section(
        "incast",
        "TCP incast: goodput collapse, and fine-grained timeouts and DCTCP against it",
        "scenarios/incast.toml: an aggregator reads blocks striped over 1 to 64 servers, "
        "256 kB from each, and asks for the next block only when every share has arrived "
        '(`app = { kind = "rounds" }`); all shares meet at its 1 Gbps switch port with a '
        "64 kB buffer (RTT 100 µs); Linux 2.6's stack with Reno and SACK recovery. With "
        "Linux's 200 ms minimum RTO, a server that loses its share's last segments stalls the "
        "whole block for 200 ms, so a few timeouts cost more time than all the transfers; "
        "with a 1 ms minimum the stall is short, and what remains is the buffer overflowing "
        "as more servers send together (a single server's few drops are at its own 64 kB "
        "NIC queue, which its 87 kB window can overfill). DCTCP runs beside them, its "
        "switches marking from 20 packets (the DCTCP paper's threshold at 1 Gbps), with the "
        "200 ms minimum RTO and with the 10 ms its paper ran with: marking keeps the queue "
        "short, so fewer servers time out. These are the findings of Phanishayee et al. "
        "(FAST 2008), Vasudevan et al. (SIGCOMM 2009) and Alizadeh et al. (DCTCP, SIGCOMM "
        "2010) in shape, on a set-up of our "
        "choosing rather than theirs. Goodput is over the rounds after the first, whose time "
        "includes the handshakes.",
        _incast,
        "transim run scenarios/incast.toml --set traffic.tcp.rto_min=1ms",
        ("incast.toml",),
    ),
    Section(
        "spraying",
        "Packet spraying against per-flow ECMP: hash collisions, or reordering",
        "scenarios/spraying.toml: four bulk flows from the four hosts of one leaf to the four "
        "of another, over four spines (10 Gbps links throughout, 200-packet queues), Linux "
        "2.6's stack with CUBIC. The fabric could carry every flow at line rate if each had "
        "a spine of its own. Per-flow ECMP hashes each flow onto one spine, and here two "
        "pairs share a spine, so those four get half a link each (Al-Fares et al., SIGCOMM "
        '2008, on such collisions). Spraying (`topology.ecmp = "packet"`) sends every packet '
        "by a spine of its own, which evens the load but lets packets overtake one another "
        "where the spines' queues differ. Nothing is dropped in any run, so every "
        "retransmission is spurious, and D-SACK reports each. RFC 6675 takes three duplicate "
        "ACKs as a loss, retransmits and halves its window, and the sprayed flows end up "
        "slower in total than the colliding ones; RACK-TLP waits a reordering window that "
        "grows with each D-SACK, and takes nearly the whole fabric.",
        spraying_section,
        "transim run scenarios/spraying.toml --set topology.ecmp=packet "
        "--set tcp.recovery=rack-tlp",
        ("spraying.toml",),
    ),
    Section(
        "bbr",
        "BBR v1 and BBR v3 beside CUBIC: loss as a signal",
        "scenarios/bbr-coexistence.toml: two bulk flows share a 100 Mbps bottleneck with "
        "20 ms each way (a BDP of about 333 packets), Linux 2.6's stack with RACK-TLP; flow 1 "
        "runs CUBIC, flow 0 BBR v1, BBR v3 (draft-ietf-ccwg-bbr-04) or CUBIC, in a buffer of "
        "a tenth of the BDP, one BDP and four. BBR v1's model ignores loss: in the shallow "
        "buffer it keeps the queue overflowing and leaves CUBIC almost nothing. BBR v3 sets a "
        "bound on its data in flight where a round of probing lost more than 2 %, and cuts "
        "its short-term model in rounds with loss, so it drops far fewer packets and shares "
        "the shallow buffer. In the deep buffer CUBIC fills the queue and both BBRs, whose "
        "cwnd is held near twice their estimate of the BDP, get the smaller part. The same "
        "pattern was measured for BBR v1 by Hock et al. (ICNP 2017), in shape, on a set-up "
        "of our choosing.",
        bbr_section,
        "transim run scenarios/bbr-coexistence.toml --set tcp.cc=bbr",
        ("bbr-coexistence.toml",),
    ),
    Section(
        "l4s",
        "L4S: a scalable flow beside a Classic one in DualPI2",
        "scenarios/l4s-coexistence.toml: two bulk flows share a 100 Mbps bottleneck with 20 ms "
        "each way, Linux 2.6's stack with SACK, for 80 s; goodput is measured over the last 40 s,"
        " and each row is the mean of several seeds. Flow 0 is DCTCP sending ECT(1), the L4S "
        "identifier (RFC 9331); flow 1 is Reno or CUBIC, not ECN-capable. DualPI2 (RFC 9332) "
        "gives them two queues: the L queue marks from 1 ms of queueing, the Classic queue's PI2 "
        "controller aims at 15 ms and drops with p'² while the L queue is marked with 2p', and a "
        "round robin keeps 10 % of the link for the Classic queue (Linux's defaults). In one "
        "queue, DCTCP's step marking or PIE with ECN, the scalable flow takes nearly the whole "
        "link, since it answers each mark by a fraction of its window where Reno and CUBIC halve "
        "or cut by 30 %; that is RFC 9332's reason for two queues. In DualPI2 neither starves and"
        " the scalable flow queues about 0.1 ms, against several ms for the Classic flow and "
        "about 14 ms for both in PIE. The shares are not equal: the coupling factor 2 is derived "
        "for flows that add a segment per round trip, and this stack adds half of one with "
        "delayed ACKs, which by the same derivation leaves Reno the larger window (with delayed "
        "ACKs off the scalable flow gets about 60 % instead). TCP Prague's own changes are not "
        "modelled.",
        l4s_section,
        "transim run scenarios/l4s-coexistence.toml --set topology.bottleneck.qdisc=step",
        ("l4s-coexistence.toml",),
    ),
    Section(
        "cross-validation",
        "Cross-validation: the same scenarios in ns-3",
        "transim's TCP against ns-3's on the same paths (translated by `transim compare "
        "ns3`): NewReno on four paths and every congestion control both have on a clean "
        "10 Mbps / 20 ms path, goodput, retransmissions and drops side by side.",
        _cross_validation,
        "transim compare ns3 benches/b1.toml --set tcp.halving_base=pipe",
    ),
    Section(
        "linux-slowstart",
        "Linux 2.6 slow start with small writes",
        "scenarios/linux-slowstart.toml: 5 x 13.5 KB written round-robin in 1460-byte "
        "pieces over 10 Mbps / 10 ms.",
        _linux_slowstart,
        "transim run scenarios/linux-slowstart.toml --plot",
        ("linux-slowstart.toml",),
    ),
    Section(
        "slow-start-exits",
        "How CUBIC's first slow start ends",
        "scenarios/slow-start-exits.toml: one CUBIC flow on 10 Mbps / 20 ms with a 100-packet "
        "queue, for 3 s, run four ways with tcp.hystart. Without HyStart slow start ends when "
        "the queue overflows. HyStart ends it when a round's RTT rises above the minimum (by "
        "min RTT / 8 clamped to 4-16 ms with Linux's constants, by the whole min RTT with "
        "ns-3's) and sets ssthresh there. HyStart++ (RFC 9406, which RFC 9438 recommends) "
        "compares each round's least RTT with the last round's; at a rise it grows a quarter "
        "as fast for 5 rounds (Conservative Slow Start), then sets ssthresh.",
        _slow_start_exits,
        "transim run scenarios/slow-start-exits.toml --set tcp.hystart=rfc9406 --plot",
        ("slow-start-exits.toml",),
    ),
    Section(
        "flow-control",
        "Flow control: receiving applications slower than the path",
        "scenarios/slow-reader.toml: three flows share a 20 Mbps / 20 ms bottleneck. "
        '"player" reads at a video\'s 4 Mb/s, "trickle" at 64 kb/s through an 8 KB buffer, '
        '"bulk" at once. A slow reader\'s window is what its unread bytes leave of the '
        "buffer, so its sender runs at the reader's rate and the bulk flow takes the rest. "
        "The two slow readers run as TCP connections (RFC 9293 §3.8.6: window updates, the "
        "persist timer's probes) and again as SCTP associations (RFC 9260 §6: a_rwnd, "
        "window-update SACKs, one chunk in flight whatever the window); both transports hold "
        "their senders to the readers' rates. They differ in how often the receiver speaks "
        "up: SCTP's sends a window update whenever reading has opened max(buffer / 16, MTU) "
        "since its last SACK (Linux's rule), TCP's only once the window left is at most half "
        "the buffer (Linux's tcp_cleanup_rbuf). Goodput counts bytes delivered into the "
        "receive buffer, which the reader may not have read by the end.",
        flow_control_section,
        "transim run scenarios/slow-reader.toml",
        ("slow-reader.toml",),
    ),
    Section(
        "on-off",
        "Applications that pause: the window after idle",
        "scenarios/on-off.toml: a player fetches a 1 MB segment every 4 s over 20 Mbps / "
        "40 ms (app.at gives each write its time), so the sender is idle for about 3 s "
        "between segments. TCP as Linux runs it restarts from the initial window after an "
        "idle RTO (tcp_slow_start_after_idle) and climbs slow start again for every "
        "segment; keeping the window fetches each in about its transmission time plus a "
        "round trip. SCTP halves an idle destination's cwnd per RTO down to 4 MTUs (RFC "
        "9260 §7.2.1: three halvings per pause here), and Max.Burst lets at most four "
        "packets beyond the flight go per send. With its cwnd kept, a sender let loose with "
        "four packets more on every SACK overflows the queue; with Max.Burst's clamp kept "
        "for good (RFC 4960's text read literally, Linux 2.6) every segment starts from 4 "
        "MTUs. A segment's fetch time runs from its write to the sender seeing it all "
        "acknowledged.",
        on_off_section,
        "transim run scenarios/on-off.toml --set flows.0.protocol=sctp",
        ("on-off.toml",),
    ),
]


def _scenario_info(paths: tuple[str, ...]) -> tuple[list[tuple[str, int]], list[tuple[str, str]]]:
    """(path, seed) and (path, text) of a section's scenario files."""
    import tomllib

    seeds, sources = [], []
    for rel in paths:
        text = (SCENARIOS / rel).read_text(encoding="utf-8")
        seeds.append((f"scenarios/{rel}", int(tomllib.loads(text).get("seed", 1))))
        sources.append((f"scenarios/{rel}", text))
    return seeds, sources


def write_report(out: Path, done: dict[str, str], scale: str, elapsed: float) -> Path:
    """Write report.md and report.html with the sections finished so far."""
    from .report_html import RenderedSection, inline_html, render, to_html
    from .studies.findings import Finding
    from .studies.findings import read as read_findings
    from .studies.findings import table as findings_table

    parts = [
        "# transim reproduction report",
        "",
        f"Scale: {scale}. Sections finished: {len(done)} of {len(SECTIONS)}. "
        f"Run time {elapsed:.1f} s.",
        "",
        "Study reproductions first, then the engine's example scenarios. Each section's raw "
        "results are in the folder of the same name.",
    ]
    rendered = []
    for s in SECTIONS:
        if s.key not in done:
            continue
        findings = read_findings(out / s.key)
        parts += ["", f"## {s.title}", "", s.text]
        if findings:
            # The HTML page renders them from the same file, with their statuses marked.
            parts += ["", "### Findings", "", findings_table([Finding(**f) for f in findings])]
        parts += ["", done[s.key]]
        seeds, sources = _scenario_info(s.scenarios)
        rendered.append(
            RenderedSection(
                key=s.key,
                title=s.title,
                short=s.short or s.title,
                text=inline_html(s.text),
                command=s.command.format(scale=scale),
                scenarios=seeds,
                sources=sources,
                html=to_html(done[s.key], out),
                findings=findings,
            )
        )
    (out / "report.md").write_text("\n".join(parts) + "\n", encoding="utf-8")
    path = out / "report.html"
    missing = [s.title for s in SECTIONS if s.key not in done]
    path.write_text(render(rendered, scale, elapsed, missing), encoding="utf-8")
    return path


def main(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    done: dict[str, str] = {}
    t0 = time.perf_counter()
    for s in tqdm(SECTIONS, desc="report", unit="section"):
        done[s.key] = s.produce(out / s.key, args.scale)
        write_report(out, done, args.scale, time.perf_counter() - t0)
    path = write_report(out, done, args.scale, time.perf_counter() - t0)
    print(f"report written to {path} (and report.md beside it)")
    return 0

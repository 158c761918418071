"""Study 2 — TCP parameters (Nagle, fast retransmit & recovery) over ATM UBR and ABR
(Kim, Yuk, Park, Ryu, Park; simulated in YATS).

``transim reproduce atm [--scale quick|paper]`` runs, from ``scenarios/studies/atm/``:

1. Table 2: throughput and fairness against the number of VCs (10 … 70) for UBR + EPD,
   ABR + EFCI and ABR + ER (ERICA);
2. Figures 4–7: throughput and fairness against the MTU (512 … 9180 bytes) with Nagle and
   fast retransmit & recovery (FRR) each on and off, 50 VCs;
3. Table 4: LAN (1 km) against WAN (1000 km) with Nagle / FRR / both;
4. beyond the paper: early against partial packet discard, per-VC queueing, NewReno/SACK.

Every point is the mean over several seeds (the paper ran one); the spread is shown. Fairness
is Jain's index of T_i / O_i, O_i the max-min fair share the solver computes for each VC's
demand (its host's processing rate, its window over the round trip) on the path's goodput
capacity (after the cell tax and, for ABR, one RM cell in Nrm).
"""

from __future__ import annotations

import copy
import random
import statistics
import tomllib
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import _core  # noqa: E402
from ..data import resource  # noqa: E402
from .findings import Finding, study_report  # noqa: E402
from .runner import Job, RunStore, run_jobs  # noqa: E402

SCENARIO = resource("scenarios", "studies", "atm") / "bottleneck.toml"
SWITCHES: dict[str, dict[str, Any]] = {
    "EPD": {"service": "ubr", "discard": "epd", "epd_threshold": 3500},
    "EFCI": {"service": "abr", "feedback": "efci", "efci_high": 300, "efci_low": 200},
    "ER": {"service": "abr", "feedback": "erica"},
}
VCS = [10, 20, 30, 40, 50, 60, 70]
MTUS = [512, 1024, 2048, 4096, 9180]
# Paper, Table 2: VCs -> (EPD thr, EPD fair, EFCI thr, EFCI fair, ER thr, ER fair).
PAPER_TABLE2 = {
    10: (82.4, 82.5, 126.2, 100.0, 126.2, 100.0),
    20: (103.0, 81.0, 126.1, 97.6, 126.2, 100.0),
    30: (109.0, 76.6, 106.3, 83.6, 106.3, 100.0),
    40: (106.2, 66.6, 107.7, 85.2, 107.7, 100.0),
    50: (128.2, 62.6, 105.4, 79.5, 105.4, 100.0),
    60: (116.9, 66.0, 95.6, 61.4, 95.5, 100.0),
    70: (126.5, 59.6, 97.0, 51.4, 97.3, 100.0),
}
SCALES = {"quick": {"seeds": 3}, "paper": {"seeds": 10}}
START_SPREAD = 0.010  # connections start uniformly within the first 10 ms
LINK_BPS = 150e6
PROCESSING = 300e-6 * 1.05  # mean of the uniform [300, 330] us
NRM = 32
KM = 5e-6  # one-way propagation per km of fibre


def load() -> dict[str, Any]:
    return tomllib.loads(SCENARIO.read_text(encoding="utf-8"))


def cells(ip_bytes: int) -> int:
    """Cells of an IP packet with LLC/SNAP and the AAL5 trailer."""
    return -(-(ip_bytes + 16) // 48)


def goodput_capacity(mss: int, abr: bool) -> float:
    """The most TCP payload a 150 Mbps ATM link carries at this MSS (bit/s)."""
    c = LINK_BPS * mss / (cells(mss + 40) * 53)
    return c * (NRM - 1) / NRM if abr else c


def scenario(
    base: dict[str, Any],
    n: int,
    switch: str,
    seed: int,
    mtu: int = 2040,
    nagle: bool = True,
    frr: bool = True,
    km: float = 1.0,
    tcp: dict[str, Any] | None = None,
    atm: dict[str, Any] | None = None,
) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    doc["seed"] = seed
    doc["atm"] = {**doc["atm"], **{"discard": "tail"}, **SWITCHES[switch], **(atm or {})}
    if SWITCHES[switch]["service"] == "abr":
        doc["atm"].pop("discard", None)
        doc["atm"].pop("epd_threshold", None)
    doc["tcp"]["mss"] = mtu - 40
    doc["tcp"]["nagle"] = "rfc896" if nagle else "off"
    doc["tcp"]["fast_retransmit"] = frr
    doc["tcp"].update(tcp or {})
    doc["topology"]["bottleneck"]["delay"] = f"{km * KM * 1e6:g}us"
    rng = random.Random(seed)
    app = doc["flows"][0]["app"]
    doc["flows"] = [
        {"name": f"vc{i}", "app": app, "start": round(rng.uniform(0, START_SPREAD), 9)}
        for i in range(n)
    ]
    return doc


def metrics(doc: dict[str, Any], summary: dict[str, Any]) -> dict[str, float]:
    """Total throughput (Mbps), Jain's fairness of T_i / O_i (%) and the cell loss ratio."""
    flows = summary["flows"]
    n = len(flows)
    mss = doc["tcp"]["mss"]
    abr = doc["atm"]["service"] == "abr"
    duration = summary["simulated_time"]
    bn_delay = doc_delay(doc["topology"]["bottleneck"]["delay"])
    acc_delay = doc_delay(doc["topology"]["access"]["delay"])
    rtt = 2 * (bn_delay + 2 * acc_delay) + 2 * PROCESSING
    window = 65536 * 8 / rtt
    demand = min(mss * 8 / PROCESSING, window)
    cap = goodput_capacity(mss, abr)
    # Link 0: the bottleneck; 1 + 2i and 2 + 2i: VC i's own access links.
    capacities = [cap] + [cap] * (2 * n)
    paths = [([0, 1 + 2 * i, 2 + 2 * i], demand) for i in range(n)]
    shares = _core.max_min_fair(capacities, paths)
    x = []
    for f, share in zip(flows, shares, strict=True):
        active = max(duration - f["start"], 1e-9) / duration
        x.append(f["goodput_bps"] / (share * active))
    sent = sum(f["atm"]["data"]["sent"] for f in flows)
    lost = sum(sum(f["atm"]["data"]["cells_dropped"].values()) for f in flows)
    return {
        "thr": sum(f["goodput_bps"] for f in flows) / 1e6,
        "fair": 100.0 * (_core.jain(x) or 0.0),
        "clr": lost / max(sent, 1),
        "timeouts": sum(f["timeouts"] for f in flows),
        "bound": cap / 1e6,
    }


def doc_delay(text: str) -> float:
    for unit, mult in (("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * mult
    return float(text)


def mean_spread(vals: list[float]) -> tuple[float, float]:
    return statistics.fmean(vals), (statistics.stdev(vals) if len(vals) > 1 else 0.0)


def run_grid(
    store: RunStore, desc: str, points: dict[tuple, dict[str, Any]], jobs_parallel: int | None
) -> dict[tuple, dict[str, tuple[float, float]]]:
    """Run every (point, seed) scenario; per point, the mean and deviation of each metric."""
    jobs = [Job({"point": list(k[:-1]), "seed": k[-1]}, doc) for k, doc in points.items()]
    per: dict[tuple, list[dict[str, float]]] = {}
    for job, summary in run_jobs(jobs, store, desc, jobs_parallel):
        key = tuple(job.label["point"])
        per.setdefault(key, []).append(metrics(job.scenario, summary))
    return {k: {m: mean_spread([r[m] for r in rows]) for m in rows[0]} for k, rows in per.items()}


def fmt(ms: tuple[float, float], digits: int = 1) -> str:
    return f"{ms[0]:.{digits}f} ± {ms[1]:.{digits}f}"


def table2(
    out: Path, store: RunStore, seeds: list[int], jobs_parallel: int | None
) -> tuple[str, dict]:
    base = load()
    points = {(n, sw, s): scenario(base, n, sw, s) for n in VCS for sw in SWITCHES for s in seeds}
    res = run_grid(store, "table 2", points, jobs_parallel)
    head = "| VCs | " + " | ".join(
        f"{sw} thr (Mbps) | paper | {sw} fair (%) | paper" for sw in SWITCHES
    )
    lines = [head + " |", "|---" * (1 + 4 * len(SWITCHES)) + "|"]
    for n in VCS:
        row = [str(n)]
        for k, sw in enumerate(SWITCHES):
            r = res[(n, sw)]
            row += [
                fmt(r["thr"]),
                f"{PAPER_TABLE2[n][2 * k]}",
                fmt(r["fair"]),
                f"{PAPER_TABLE2[n][2 * k + 1]}",
            ]
        lines.append("| " + " | ".join(row) + " |")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for k, sw in enumerate(SWITCHES):
        for ax, m, off in ((axes[0], "thr", 0), (axes[1], "fair", 1)):
            ys = [res[(n, sw)][m][0] for n in VCS]
            es = [res[(n, sw)][m][1] for n in VCS]
            line = ax.errorbar(VCS, ys, yerr=es, marker="o", capsize=3, label=f"{sw} (ours)")
            ax.plot(
                VCS,
                [PAPER_TABLE2[n][2 * k + off] for n in VCS],
                "--",
                color=line[0].get_color(),
                alpha=0.6,
                label=f"{sw} (paper)",
            )
    bound = goodput_capacity(2000, False) / 1e6
    axes[0].axhline(bound, color="k", lw=0.8, ls=":", label=f"cell-tax bound {bound:.1f}")
    axes[0].set(xlabel="VCs", ylabel="throughput (Mbps)", title="Throughput")
    axes[1].set(xlabel="VCs", ylabel="Jain fairness of T/O (%)", title="Fairness", ylim=(0, 105))
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "table2.png", dpi=130)
    plt.close(fig)
    return "\n".join(lines) + "\n\n![table 2](table2.png)", res


COMBOS = {
    "Nagle+FRR": (True, True),
    "FRR only": (False, True),
    "Nagle only": (True, False),
    "neither": (False, False),
}


def mtu_sweep(
    out: Path, store: RunStore, seeds: list[int], jobs_parallel: int | None
) -> tuple[str, dict]:
    base = load()
    points = {
        (mtu, sw, c, s): scenario(base, 50, sw, s, mtu=mtu, nagle=nb, frr=fb)
        for mtu in MTUS
        for sw in SWITCHES
        for c, (nb, fb) in COMBOS.items()
        for s in seeds
    }
    res = run_grid(store, "MTU sweep", points, jobs_parallel)
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
    for j, sw in enumerate(SWITCHES):
        for c in COMBOS:
            for i, m in enumerate(("thr", "fair")):
                axes[i][j].errorbar(
                    MTUS,
                    [res[(mtu, sw, c)][m][0] for mtu in MTUS],
                    yerr=[res[(mtu, sw, c)][m][1] for mtu in MTUS],
                    marker="o",
                    capsize=2,
                    label=c,
                )
        axes[0][j].plot(
            MTUS,
            [goodput_capacity(m - 40, SWITCHES[sw]["service"] == "abr") / 1e6 for m in MTUS],
            "k:",
            lw=0.8,
            label="cell-tax bound",
        )
        axes[0][j].set(title=f"{sw}: throughput (Mbps)")
        axes[1][j].set(title=f"{sw}: fairness (%)", xlabel="MTU (bytes)", ylim=(0, 105))
    for ax in axes.flat:
        ax.set_xscale("log", base=2)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "mtu.png", dpi=130)
    plt.close(fig)
    lines = ["| switch | setting | " + " | ".join(f"MTU {m}" for m in MTUS) + " |"]
    lines.append("|---|---|" + "---|" * len(MTUS))
    for sw in SWITCHES:
        for c in COMBOS:
            cells_ = [
                f"{res[(m, sw, c)]['thr'][0]:.1f} / {res[(m, sw, c)]['fair'][0]:.0f} %"
                for m in MTUS
            ]
            lines.append(f"| {sw} | {c} | " + " | ".join(cells_) + " |")
    text = (
        "50 VCs, LAN. Each cell: throughput (Mbps) / fairness, mean over the seeds.\n\n"
        + "\n".join(lines)
        + "\n\n![MTU sweep](mtu.png)"
    )
    return text, res


def lan_wan(store: RunStore, seeds: list[int], jobs_parallel: int | None) -> tuple[str, dict]:
    base = load()
    dist = {"LAN (1 km)": 1.0, "WAN (1000 km)": 1000.0}
    points = {
        (d, sw, c, s): scenario(base, 50, sw, s, nagle=nb, frr=fb, km=km)
        for d, km in dist.items()
        for sw in SWITCHES
        for c, (nb, fb) in COMBOS.items()
        for s in seeds
    }
    res = run_grid(store, "LAN/WAN", points, jobs_parallel)
    lines = [
        "| distance | switch | " + " | ".join(COMBOS) + " |",
        "|---|---|" + "---|" * len(COMBOS),
    ]
    for d in dist:
        for sw in SWITCHES:
            cells_ = [
                f"{fmt(res[(d, sw, c)]['thr'])} / {res[(d, sw, c)]['fair'][0]:.0f} %"
                for c in COMBOS
            ]
            lines.append(f"| {d} | {sw} | " + " | ".join(cells_) + " |")
    return "50 VCs, MSS 2000: throughput (Mbps) / fairness.\n\n" + "\n".join(lines), res


def beyond(store: RunStore, seeds: list[int], jobs_parallel: int | None) -> str:
    base = load()
    variants: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
        "UBR, tail drop": ("EPD", {}, {"discard": "tail", "epd_threshold": None}),
        "UBR, PPD": ("EPD", {}, {"discard": "ppd", "epd_threshold": None}),
        "UBR, EPD (paper)": ("EPD", {}, {}),
        "UBR, EPD + PPD": ("EPD", {}, {"discard": "epd_ppd"}),
        "UBR, EPD, per-VC queueing": ("EPD", {}, {"per_vc_queueing": True}),
        "UBR, EPD, NewReno": ("EPD", {"recovery": "newreno"}, {}),
        "UBR, EPD, SACK": ("EPD", {"recovery": "rfc6675"}, {}),
        "ABR ER, basic ERICA (CCR from RM cells)": ("ER", {}, {"erica_ccr": "rm"}),
    }
    points = {}
    for name, (sw, tcp, atm) in variants.items():
        for s in seeds:
            doc = scenario(base, 50, sw, s, tcp=tcp, atm=atm)
            doc["atm"] = {k: v for k, v in doc["atm"].items() if v is not None}
            points[(name, s)] = doc
    res = run_grid(store, "beyond the paper", points, jobs_parallel)
    lines = [
        "| 50 VCs, LAN, MSS 2000 | throughput (Mbps) | fairness (%) | cell loss ratio | timeouts |",
        "|---|---|---|---|---|",
    ]
    for name in variants:
        r = res[(name,)]
        lines.append(
            f"| {name} | {fmt(r['thr'])} | {fmt(r['fair'])} | {r['clr'][0]:.4f} | "
            f"{r['timeouts'][0]:.1f} |"
        )
    return "\n".join(lines)


def status(ok: bool, partly: bool = False) -> str:
    return "reproduced" if ok else "partly" if partly else "not reproduced"


def findings(t2: dict, mtu: dict, lw: dict) -> list[Finding]:
    out: list[Finding] = []
    thr = lambda r: r["thr"][0]  # noqa: E731
    fair = lambda r: r["fair"][0]  # noqa: E731
    er = [mtu[(2048, "ER", c)] for c in COMBOS]
    er_thr = [thr(r) for r in er]
    er_fair = [fair(r) for r in er]
    spread = (max(er_thr) - min(er_thr)) / max(er_thr)
    out.append(
        Finding(
            "ER: throughput and fairness unchanged by Nagle or FRR; fairness ≈ 100 %",
            "unchanged, 100 %",
            f"thr {min(er_thr):.1f}–{max(er_thr):.1f} Mbps, fairness ≥ {min(er_fair):.1f} %",
            status(spread < 0.05 and min(er_fair) >= 95, spread < 0.10 or min(er_fair) >= 95),
            "MTU 2048, 50 VCs; the ER rate, not TCP's window, sets each VC's share",
        )
    )
    e = {c: mtu[(2048, "EFCI", c)] for c in COMBOS}
    d_frr = abs(thr(e["Nagle+FRR"]) - thr(e["Nagle only"]))
    d_nagle = abs(thr(e["Nagle+FRR"]) - thr(e["FRR only"]))
    out.append(
        Finding(
            "EFCI reacts to FRR but hardly to Nagle (throughput change, Mbps)",
            "FRR > Nagle",
            f"FRR {d_frr:.1f}, Nagle {d_nagle:.1f}",
            status(d_frr > 2 * d_nagle, d_frr > d_nagle),
            "MTU 2048, 50 VCs",
        )
    )
    p = {c: mtu[(2048, "EPD", c)] for c in COMBOS}
    g_frr = thr(p["Nagle+FRR"]) - thr(p["Nagle only"])
    g_nagle = thr(p["Nagle+FRR"]) - thr(p["FRR only"])
    out.append(
        Finding(
            "EPD gains throughput from FRR and from Nagle, FRR more (gain, Mbps)",
            "FRR > Nagle > 0",
            f"FRR {g_frr:+.1f}, Nagle {g_nagle:+.1f}",
            status(g_frr > g_nagle > 0, g_frr > 0),
            "MTU 2048, 50 VCs",
        )
    )
    f_off, f_on = fair(p["neither"]), fair(p["Nagle+FRR"])
    out.append(
        Finding(
            "EPD fairness is better with Nagle and FRR both off (%)",
            "off > on",
            f"off {f_off:.1f}, on {f_on:.1f}",
            status(f_off > f_on),
            "MTU 2048, 50 VCs",
        )
    )
    best = {sw: max(MTUS, key=lambda m: thr(mtu[(m, sw, "Nagle+FRR")])) for sw in SWITCHES}
    drops = {
        sw: thr(mtu[(4096, sw, "Nagle+FRR")]) / thr(mtu[(2048, sw, "Nagle+FRR")]) for sw in SWITCHES
    }
    n_best = sum(best[sw] == 2048 for sw in SWITCHES)
    out.append(
        Finding(
            "Best throughput at MTU 2048, sharp drop above",
            "best at 2048",
            ", ".join(
                f"{sw} best at {best[sw]} (4096: {100 * (drops[sw] - 1):+.0f} %)" for sw in SWITCHES
            ),
            status(n_best == 3 and all(d < 0.9 for d in drops.values()), n_best >= 1),
            "Nagle and FRR on, 50 VCs",
        )
    )
    lan = {c: lw[("LAN (1 km)", "EPD", c)] for c in COMBOS}
    wan = {c: lw[("WAN (1000 km)", "EPD", c)] for c in COMBOS}
    frr_lan = thr(lan["Nagle+FRR"]) - thr(lan["Nagle only"])
    frr_wan = thr(wan["Nagle+FRR"]) - thr(wan["Nagle only"])
    worse = thr(wan["Nagle+FRR"]) < thr(lan["Nagle+FRR"])
    out.append(
        Finding(
            "EPD: WAN worse than LAN; FRR helps less in the WAN",
            "WAN < LAN, FRR gain smaller",
            f"LAN {thr(lan['Nagle+FRR']):.1f}, WAN {thr(wan['Nagle+FRR']):.1f} Mbps; "
            f"FRR gain LAN {frr_lan:+.1f}, WAN {frr_wan:+.1f}",
            status(worse and frr_wan < frr_lan, worse or frr_wan < frr_lan),
        )
    )
    falls = {
        sw: (thr(t2[(70, sw)]) < thr(t2[(10, sw)]), fair(t2[(70, sw)]) < fair(t2[(10, sw)]))
        for sw in SWITCHES
    }
    n_fall = sum(a and b for a, b in falls.values())
    out.append(
        Finding(
            "Throughput and fairness fall as the number of VCs grows (10 → 70)",
            "both fall (EPD throughput rises in the paper's own table)",
            ", ".join(
                f"{sw}: thr {thr(t2[(10, sw)]):.0f}→{thr(t2[(70, sw)]):.0f}, "
                f"fair {fair(t2[(10, sw)]):.0f}→{fair(t2[(70, sw)]):.0f}"
                for sw in SWITCHES
            ),
            status(n_fall == 3, n_fall >= 1 or any(b for _, b in falls.values())),
        )
    )
    every = [r for r in list(t2.values()) + list(mtu.values()) + list(lw.values())]
    over = [r for r in every if r["thr"][0] >= r["bound"][0]]
    out.append(
        Finding(
            "Every throughput stays below the cell-tax bound",
            "below",
            f"{len(every) - len(over)} of {len(every)} points below",
            status(not over),
            "bound = 150 Mbps × MSS / (cells × 53), less 1/32 for ABR's RM cells",
        )
    )
    return out


def reproduce(out: Path, scale_name: str = "quick", jobs_parallel: int | None = None) -> str:
    """Run the whole study; write figures and report.md into ``out``; return markdown."""
    if scale_name not in SCALES:
        raise ValueError(f"scale {scale_name!r} is not one of {sorted(SCALES)}")
    out.mkdir(parents=True, exist_ok=True)
    store = RunStore.open(out / "runs.sqlite")
    seeds = list(range(1, SCALES[scale_name]["seeds"] + 1))
    t2_md, t2 = table2(out, store, seeds, jobs_parallel)
    mtu_md, mtu = mtu_sweep(out, store, seeds, jobs_parallel)
    lw_md, lw = lan_wan(store, seeds, jobs_parallel)
    found = findings(t2, mtu, lw)
    sections = [
        ("1. Table 2: throughput and fairness against the number of VCs", t2_md),
        ("2. Figures 4–7: MTU, Nagle and FRR", mtu_md),
        ("3. Table 4: LAN against WAN", lw_md),
        (
            "4. Beyond the paper: discard policies, queueing, recovery, ERICA",
            beyond(store, seeds, jobs_parallel),
        ),
    ]
    md = [
        f"Scale: {scale_name}, {len(seeds)} seeds per point (mean ± standard deviation; the "
        "paper ran one). Scenario file: scenarios/studies/atm/bottleneck.toml. Cells are "
        "simulated one by one (AAL5 + LLC/SNAP: MSS 2000 → 43 cells, 2279 bytes). Our choices "
        "where the paper is silent: YATS' TCP defaults (RTO min 1.5 s, initial RTO 3 s, "
        "delayed ACK 200 ms), an initial window of two segments, 300 µs processing spread "
        "over [300, 330] µs, connections starting uniformly within the first 10 ms, ERICA "
        "with target 0.9 and a 1 ms interval measuring each VC's rate itself, EFCI with "
        "TM 4.0's RIF = RDF = 1/16, ICR = PCR. A TCP connection that loses a retransmission "
        "waits for a 1.5 s timeout, longer than the 300 ms run: such stalled VCs are what "
        "lowers fairness here.",
    ]
    return study_report(out, "Study 2: TCP over ATM", md, sections, found)

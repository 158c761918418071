"""The ``transim`` command line: run, validate, bench, report."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from . import __version__
from .scenario import ScenarioError, check, flow_count, validate
from .studies import STUDIES


def _scenario_stem(path: str) -> str:
    return Path(path).stem


def cmd_run(args: argparse.Namespace) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from . import Interrupted, run_prepared
    from .progress import Progress
    from .scenario import duration_seconds, prepare
    from .summary_table import TERMINAL_ROWS

    plot = args.plot is not None
    if args.plot_flows is not None and not plot:
        raise ScenarioError(
            f"--plot-flows: got {args.plot_flows!r}, but nothing is plotted without --plot; "
            "add --plot (png or svg) to draw those flows"
        )
    # Read once: a scenario of 100,000 flows takes seconds to parse.
    doc, source = prepare(Path(args.scenario), args.set, args.seed)
    duration = duration_seconds(doc, source)
    plotted = _plotted_flows(args.plot_flows, doc) if plot else []
    listed = isinstance(doc.get("flows"), list)  # generated traffic is known only once built
    if plot and listed and not args.trace and isinstance(doc.get("trace", {}), dict):
        # Trace only what is plotted, unless the scenario chose (or --trace wants all).
        doc.setdefault("trace", {}).setdefault("only_flows", plotted)
    watch = Progress(duration, show=sys.stderr.isatty() and not args.quiet, max_wall=args.max_wall)
    interrupted = False
    out = Path(args.out) if args.out else Path("out") / _scenario_stem(args.scenario)
    tracing = plot or args.trace
    if tracing:
        import pyarrow as pa

        # The system allocator hands freed chunk buffers back; Arrow's default pool keeps
        # tens of MB more for a long streamed run (measured: 188 vs 210 MB peak).
        pa.set_memory_pool(pa.system_memory_pool())
    try:
        result = run_prepared(
            doc,
            source,
            trace_flows=True if tracing else None,
            trace_packets=True if tracing else None,
            pcap=args.pcap,
            pcap_links=args.pcap_links.split(",") if args.pcap_links else None,
            progress=watch,
            # Traces go to disk as the run goes: memory stays flat however long it is.
            trace_dir=out if tracing else None,
            # The progress bar stops a run only for Ctrl-C or --max-wall, whose moment is
            # arbitrary anyway: stopping a moment later lets router hops go without events.
            exact_stop=False,
            advise=True,
        )
    except Interrupted as e:
        result, interrupted = e.result, True
    finally:
        watch.close()
    stopped = result.stopped_at
    # The files first: they hold the results whatever happens to the terminal, and are
    # written from the engine's text before the table reads the summary. The engine makes
    # the table's digest of that text meanwhile (both let go of the GIL: at 100,000 flows
    # each takes a second or so), and it is printed once the files are written.
    with ThreadPoolExecutor(max_workers=1) as pool:
        limit = None if args.all_rows else TERMINAL_ROWS
        table = None if args.quiet else pool.submit(result.table, limit=limit)
        written = result.write(out) + result.trace_files
        if table is not None:
            print(table.result())
    if plot:
        from .plots import flow_count, plot_cwnd, plot_sequence

        result.load_traces()
        fmt = args.plot
        # Not the whole summary: at 100,000 flows reading it takes seconds.
        count = flow_count(result)
        plotted = [i for i in plotted if i < count]
        written.append(plot_cwnd(result, out / f"cwnd.{fmt}", flows=plotted))
        for i in plotted:
            written.append(plot_sequence(result, out / f"sequence_flow{i}.{fmt}", flow=i))
        if len(plotted) < count and not args.quiet:
            print(
                f"plotted {len(plotted)} of {count:,} flows "
                f"({', '.join(map(str, plotted))}); --plot-flows chooses others"
            )
    if not args.quiet:
        print(f"\nwrote {len(written)} files to {out}/: " + ", ".join(p.name for p in written))
        if args.pcap:
            print(f"packet captures in {args.pcap}/ (one .pcap per link direction)")
        _print_warnings(result.warnings)
    if stopped is not None:
        why = "interrupted" if interrupted else f"stopped after --max-wall {args.max_wall:g} s"
        print(
            f"{why} at {stopped:.6f} s of {duration:g} s simulated; the results written to "
            f"{out}/ cover that much (stopped_at in results.json)",
            file=sys.stderr,
        )
        return 130 if interrupted else 0
    return 0


#: Flows ``transim run --plot`` draws when ``--plot-flows`` does not say.
PLOT_FLOWS = 8


def _plotted_flows(given: str | None, doc: dict[str, object]) -> list[int]:
    """The flow indices ``--plot-flows`` names (default: the first ``PLOT_FLOWS``), checked
    against the scenario's flows when it lists them (generated traffic is known only once
    the run is built; indices past its flows are then skipped)."""
    count = flow_count(doc)
    if given is None:
        return list(range(PLOT_FLOWS if count is None else min(count, PLOT_FLOWS)))
    try:
        chosen = [int(x) for x in given.split(",") if x.strip()]
    except ValueError:
        raise ScenarioError(
            f"--plot-flows: got {given!r}; expected flow indices separated by commas, "
            "such as 0,3,17"
        ) from None
    wrong = [i for i in chosen if i < 0 or (count is not None and i >= count)]
    if wrong or not chosen:
        known = f"; the scenario has {count} flows (0 to {count - 1})" if count else ""
        raise ScenarioError(f"--plot-flows: got {given!r}{known}")
    return list(dict.fromkeys(chosen))


def _print_warnings(warnings: list[dict[str, Any]]) -> None:
    """The advice on a scenario, one paragraph each, on standard error."""
    for w in warnings:
        print(f"warning ({w['code']}): {w['message']}", file=sys.stderr)


def cmd_validate(args: argparse.Namespace) -> int:
    # The checks alone for the line: the normalised scenario, which with a million generated
    # flows takes gigabytes, only when it is to be shown.
    c = check(Path(args.scenario), args.set)
    flows = c["flows"]
    print(
        f"ok: {args.scenario}: {c['kind']} topology, {flows} flow"
        f"{'s' if flows != 1 else ''}, duration {c['duration']}, seed {c['seed']}"
    )
    _print_warnings(c["warnings"])
    if args.show:
        print(json.dumps(validate(Path(args.scenario), args.set), indent=2))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import main as bench_main

    args.only_given = args.only is not None
    if args.only is None:
        args.only = "B1,B2,B3,A1,A2,S0,S1"
    return bench_main(args)


def cmd_compare(args: argparse.Namespace) -> int:
    from .peers import Ns3Unavailable
    from .peers.compare import compare_ns3, plot_cwnd_pair

    flows = [int(x) for x in args.flows.split(",")] if args.flows else [0]
    try:
        c = compare_ns3(
            Path(args.scenario),
            args.set,
            trace_flows=flows,
            ns3_recovery=args.ns3_recovery,
            send_order=args.send_order,
            as_ns3=args.as_ns3,
        )
    except Ns3Unavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    print(c.table())
    out = Path(args.out) if args.out else Path("out") / f"compare-{_scenario_stem(args.scenario)}"
    out.mkdir(parents=True, exist_ok=True)
    png = plot_cwnd_pair(c, out / "cwnd_transim_vs_ns3.png")
    print(f"\ncwnd of both simulators: {png}")
    for o in c.send_orders:
        print(f"transmissions of flow {o.flow}: {o.write_csv(out / f'sent_flow{o.flow}.csv')}")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from .studies import adaptive, atm, ful, sackplus, sctp

    module = {"sctp": sctp, "atm": atm, "adaptive": adaptive, "sackplus": sackplus, "ful": ful}[
        args.study
    ]
    out = Path(args.out) if args.out else Path("out") / args.study
    if args.study == "adaptive":
        text = adaptive.reproduce(out, args.scale, args.jobs, args.scheduler)
    elif args.scale == "medium" or args.scheduler:
        print(
            f"error: --scale medium and --scheduler are for the adaptive study; "
            f"{args.study} has quick and paper and runs in this process",
            file=sys.stderr,
        )
        return 2
    else:
        text = module.reproduce(out, args.scale, args.jobs)
    print(text)
    print(f"written to {out}/report.md")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from . import sweep

    sw = sweep.parse(args.sweep)
    out = Path(args.out) if args.out else Path("out") / "sweeps" / sw.name
    store = sweep.Store(out / "results.sqlite")
    runs = sw.runs()
    if not args.resume:
        have = store.keys(None)
        if have and any(r.key in have for r in runs):
            print(
                f"{out / 'results.sqlite'} already holds runs of this sweep: rerun with "
                "--resume to skip them and run the rest",
                file=sys.stderr,
            )
            return 2
    try:
        o = sweep.execute(runs, store, sw.name, args.workers, args.scheduler, args.batch)
    finally:
        counts = store.count()
        store.close()
    where = args.scheduler or f"a local cluster of {o.workers or args.workers or os.cpu_count()}"
    print(
        f"{o.total} runs: {o.skipped} already done, {o.ran} ran on {where} "
        f"({o.failed} failed, recorded with their errors) in {o.wall:.1f} s; "
        f"batches of {o.batch}, {100 * o.overhead:.1f} % of worker time outside runs"
    )
    print(
        f"store {out / 'results.sqlite'}: {counts.get('ok', 0)} ok, {counts.get('error', 0)} errors"
    )
    table = sweep.glance(out / "results.sqlite", sw.name, sw.grid or {k: [] for k in sw.sample})
    if table:
        print(f"\n{table}")
    for line in sweep.advice_lines(out / "results.sqlite", sw.name):
        print(line, file=sys.stderr)
    if args.export:
        print(f"exported to {sweep.export(out / 'results.sqlite', args.export)}")
    return 1 if o.failed else 0


def cmd_decision_map(args: argparse.Namespace) -> int:
    from . import decision_map as dm

    if args.action == "build":
        if not args.out:
            print("error: decision-map build needs -o MAP.json", file=sys.stderr)
            return 2
        try:
            m = dm.build(args.source, alpha=args.alpha)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"wrote {dm.save(m, args.out)}: {len(m['cells'])} environments")
        return 0
    m = dm.read(args.source)
    print(dm.show(m, args.plot))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    import shutil

    from .data import examples, resource

    if args.copy:
        dest = Path(args.copy)
        shutil.copytree(resource("scenarios"), dest, dirs_exist_ok=True)
        print(
            f"copied the example and study scenarios into {dest}/ (try: transim run "
            f"{dest}/dumbbell.toml)"
        )
        return 0
    for path in examples():
        print(path)
    return 0


def cmd_estimators(args: argparse.Namespace) -> int:
    from .estimators import main as estimators_main

    return estimators_main(args)


def cmd_report(args: argparse.Namespace) -> int:
    from .report import main as report_main

    return report_main(args)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"got {text!r}; expected a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"got {value}; expected at least 1")
    return value


def path_arg(text: str) -> str:
    """An argparse type: a non-empty path (an empty ``--out ""`` is refused, not defaulted)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("got an empty path; give a directory or file name")
    return text


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"got {text!r}; expected a number") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"got {text}; expected a finite number above 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="transim",
        description="transim: a fast, exact, packet-level transport-protocol simulator",
    )
    p.add_argument("--version", action="version", version=f"transim {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser(
        "run", help="run a scenario file and print its summary (and any warnings on the scenario)"
    )
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override a scenario field, e.g. --set tcp.cc=reno (repeatable)",
    )
    r.add_argument("--seed", type=int, help="replace the scenario's seed")
    r.add_argument(
        "--out", type=path_arg, help="directory for results (default: out/<scenario name>)"
    )
    r.add_argument(
        "--plot",
        nargs="?",
        const="png",
        choices=["png", "svg"],
        help="also draw cwnd and sequence plots (png by default)",
    )
    r.add_argument(
        "--trace",
        action="store_true",
        help="write per-flow and per-packet traces (Parquet, streamed to disk as the run goes; "
        "trace.only_flows / start / end / interval in the scenario keep less)",
    )
    r.add_argument(
        "--pcap",
        metavar="DIR",
        type=path_arg,
        help="write a pcap file per link direction into DIR (Wireshark opens them)",
    )
    r.add_argument(
        "--pcap-links",
        metavar="A->B,...",
        help="capture only these link directions (default: all)",
    )
    r.add_argument(
        "--plot-flows",
        metavar="I,J,...",
        help=f"flows to plot, by index (default: the first {PLOT_FLOWS}); without --trace "
        "only these are traced",
    )
    r.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing on success (warnings on the scenario stay in results.json)",
    )
    r.add_argument(
        "--all-rows",
        action="store_true",
        help="print a row for every flow and link direction (by default at most 50 of each: "
        "the first flows, the busiest links; flows.csv and links.csv always hold all)",
    )
    r.add_argument(
        "--max-wall",
        type=positive_float,
        metavar="SECONDS",
        help="stop after this much wall time and keep the results so far",
    )
    r.set_defaults(func=cmd_run)

    v = sub.add_parser(
        "validate",
        help="check a scenario file without running it, with warnings on what it probably "
        "did not mean (a window too small for the path, ECN with nothing to mark, a run too "
        "short)",
    )
    v.add_argument("scenario")
    v.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    v.add_argument("--show", action="store_true", help="print the normalised scenario")
    v.set_defaults(func=cmd_validate)

    b = sub.add_parser(
        "bench",
        help="run the performance benchmarks (B1-B3 against ns-3, A1-A2 ATM, S0-S1 SACK, "
        "B4, B4A, B5, B6 scale)",
    )
    b.add_argument(
        "--only",
        default=None,
        help="comma-separated benchmark names (B1-B3, A1, A2, S0, S1, B4, B4A, B5, B6; default "
        "B1-B3, A1, A2, S0, S1)",
    )
    b.add_argument(
        "--peer",
        choices=["ns3"],
        help="run B1-B3 in the installed ns-3 and in transim alternately; ratio pair by pair",
    )
    b.add_argument(
        "--repeat", type=positive_int, default=3, help="runs per benchmark (median reported)"
    )
    b.add_argument("--json", help="also write the table as JSON to this file")
    b.set_defaults(func=cmd_bench)

    sw = sub.add_parser("sweep", help="run a parameter sweep on Dask (resumable, SQLite store)")
    sw.add_argument("sweep", help="sweep file (TOML)")
    sw.add_argument("--out", type=path_arg, help="output folder (default out/sweeps/NAME)")
    g = sw.add_mutually_exclusive_group()
    g.add_argument("--workers", type=positive_int, help="local worker processes (default: cores)")
    g.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786)")
    sw.add_argument("--resume", action="store_true", help="skip runs already in the store")
    sw.add_argument("--batch", type=positive_int, help="runs per task (default: ~1 s of work)")
    sw.add_argument("--export", help="write all rows to a .parquet or .csv file afterwards")
    sw.set_defaults(func=cmd_sweep)

    dmp = sub.add_parser("decision-map", help="build or show an adaptive-TCP decision map")
    dmp.add_argument("action", choices=["build", "show"])
    dmp.add_argument("source", help="build: a sweep's results.sqlite; show: a map file")
    dmp.add_argument("-o", "--out", type=path_arg, help="build: the map file to write (JSON)")
    dmp.add_argument("--alpha", type=float, default=0.05, help="Welch test level (0.05)")
    dmp.add_argument("--plot", help="show: also draw the best variant per cell into this PNG")
    dmp.set_defaults(func=cmd_decision_map)

    rp = sub.add_parser("reproduce", help="reproduce a published study (tables and figures)")
    rp.add_argument("study", choices=list(STUDIES), help="which study")
    rp.add_argument(
        "--scale",
        choices=["quick", "medium", "paper"],
        default="quick",
        help="quick: minutes on a laptop; paper: the paper's run sizes (medium: adaptive only)",
    )
    rp.add_argument("--out", type=path_arg, help="output directory (default: out/<study>)")
    rp.add_argument("--jobs", type=positive_int, help="parallel runs (default: one per core)")
    rp.add_argument(
        "--scheduler", help="adaptive: run the sweeps on this Dask scheduler (tcp://host:8786)"
    )
    rp.set_defaults(func=cmd_reproduce)

    cp = sub.add_parser(
        "compare", help="run a scenario in transim and in another simulator, side by side"
    )
    cp.add_argument("peer", choices=["ns3"], help="the other simulator")
    cp.add_argument("scenario", help="scenario TOML file (dumbbell or explicit topology)")
    cp.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    cp.add_argument(
        "--flows", metavar="I,J", help="flows whose cwnd is plotted (default: the first)"
    )
    cp.add_argument(
        "--ns3-recovery",
        choices=["classic", "prr"],
        default=None,
        help="ns-3's recovery for every flow: classic (like transim's NewReno / RFC 6675) or "
        "prr (ns-3's default); by default each flow's tcp.prr decides",
    )
    cp.add_argument(
        "--as-ns3",
        action="store_true",
        help="set ns-3's conventions in transim first (halving the pipe, the impatient timer, "
        "the first data segment ACKed at once, growth on leaving SACK recovery, a 2-byte PPP "
        "header on every link), so that what differs is the models",
    )
    cp.add_argument(
        "--send-order",
        action="store_true",
        help="also compare those flows' data transmissions one by one: say where the first "
        "differs and write both lists (sent_flowI.csv)",
    )
    cp.add_argument("--out", type=path_arg, help="folder for the plot (default out/compare-NAME)")
    cp.set_defaults(func=cmd_compare)

    ex = sub.add_parser("examples", help="list the example scenarios shipped with transim")
    ex.add_argument("--copy", metavar="DIR", help="copy them (and the study scenarios) into DIR")
    ex.set_defaults(func=cmd_examples)

    es = sub.add_parser("estimators", help="accuracy of the path estimators over a grid of paths")
    es.add_argument("--jobs", type=positive_int, default=2, help="parallel runs")
    es.set_defaults(func=cmd_estimators)

    rep = sub.add_parser(
        "report",
        help="the main job: study reproductions and examples, with tables and plots",
    )
    rep.add_argument("--out", type=path_arg, default="out/report", help="output directory")
    rep.add_argument("--scale", choices=["quick", "paper"], default="quick")
    rep.set_defaults(func=cmd_report)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (OSError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

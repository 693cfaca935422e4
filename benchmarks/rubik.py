"""Rubik's cube benchmark: table build time and size, nodes per second, solve times by optimal length.

Usage:
    python benchmarks/rubik.py --quick                 # smoke run, a few seconds, small tables
    python benchmarks/rubik.py --per-length 3 --timeout 300 --workers 2
    python benchmarks/rubik.py --sets random-optimal-htm --lengths 17 18 19

The full run reads ../shared/instances/rubik/benchmarks.tsv (published optimal lengths) and
prints, per optimal HTM length and over all the positions, how many native-ida solved within
the time limit, the median and worst time (a position not solved counts as slower than the
limit), nodes per position and per second, the share of the parallel iterations' time the
workers spent searching, whether every length equals the published one, and for nissy's
scrambles the published H48 means.  Each position's line (stderr) adds its start-up time.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzlesat.core import Limits, Status, run_strategy  # noqa: E402
from puzzlesat.domains import rubik as rk  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "instances" / "rubik" / "benchmarks.tsv"
PUBLISHED: dict[str, str] = {}  # label -> the time another solver took, from the shared file
# nissy's H48 solver, mean seconds over its 25 scrambles per length, one thread of a Ryzen 7 7700
# (nissy-core benchmarks/benchmarks.md, as quoted in issue 17), for the nissy-h48-benchmark set
H48_MEANS = {
    17: "H48 h6 1.8 GiB 1.25 s, h7 3.5 GiB 0.63 s",
    18: "H48 h6 9.45 s, h7 4.85 s",
    19: "H48 h6 46.3 s, h7 23.3 s",
}


def table_line(metric: str, name: str) -> str:
    """Load (or build) a table set and describe it."""
    from puzzlesat.native.rubik import cache as rubik_cache

    start = time.perf_counter()
    tables = rubik_cache.load(name, metric)
    took = time.perf_counter() - start
    return (
        f"| {metric} | {name} | {tables.nbytes / 1e6:.1f} MB | build {tables.build_seconds:.1f} s | "
        f"this load {took:.2f} s ({tables.loaded_from}) |"
    )


def run(
    rows: list[tuple[str, str, int]], strategies: list[str], options: dict[str, object], timeout: float, workers: int
) -> None:
    """Solve every (label, text, optimum) with every strategy and print the table by optimum."""
    nissy = any(label.startswith("nissy-") for label, _, _ in rows)  # H48's means are for these
    print(
        "| strategy | optimum | positions | optimal found | median s | worst s | M nodes/position | "
        "M nodes/s | workers busy | lengths ok | published |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in strategies:
        by_length: dict[int, list[tuple[float, bool, bool, float, float, float]]] = {}
        for label, text, optimum in rows:
            inst = rk.parse(text, label)
            res = run_strategy(rk.PUZZLE, inst, name, Limits(timeout=timeout, workers=workers, options=options))
            solved = res.status is Status.OPTIMAL
            ok = (not solved) or optimum < 0 or res.objective == optimum
            rate = float(res.stats.get("nodes_per_s", 0)) / 1e6
            nodes = float(res.stats.get("nodes", 0)) / 1e6
            busy = float(res.stats.get("workers_busy", 0))
            by_length.setdefault(optimum, []).append((res.wall_time, solved, ok, rate, nodes, busy))
            print(
                f"c {name} {label}: {res.status.value} length={res.objective} expected={optimum} "
                f"{res.wall_time:.2f}s nodes={res.stats.get('nodes', '-')} {rate:.2f} M nodes/s "
                f"start-up {res.stats.get('tables_s', 0) + res.stats.get('compile_s', 0):.2f}s "
                f"workers busy {busy:.2f}{PUBLISHED.get(label, '')}",
                file=sys.stderr,
            )
        groups = [(str(o) if o >= 0 else "?", by_length[o]) for o in sorted(by_length)]
        if len(groups) > 1:
            groups.append(("all", [r for _, runs in groups for r in runs]))
        for optimum, runs in groups:
            times = [t for t, s, *_ in runs if s]
            rates = [r for *_, r, _, _ in runs if r > 0]
            nodes = [n for *_, n, _ in runs if n > 0]
            busy = [b for *_, b in runs if b > 0]
            padded = [t if s else float("inf") for t, s, *_ in runs]
            middle = statistics.median(padded)
            median = f"{middle:.2f}" if middle != float("inf") else f">{timeout:.0f}"
            worst = f"{max(times):.2f}" if len(times) == len(runs) else f">{timeout:.0f}"
            rate = f"{statistics.median(rates):.1f}" if rates else "-"
            per_position = f"{statistics.median(nodes):.1f}" if nodes else "-"
            share = f"{statistics.median(busy):.2f}" if busy else "-"
            published = H48_MEANS.get(int(optimum), "-") if optimum.isdigit() and nissy else "-"
            print(
                f"| {name} | {optimum} | {len(runs)} | {len(times)} | {median} | {worst} | {per_position} | "
                f"{rate} | {share} | {all(r[2] for r in runs)} | {published} |"
            )


def shared_rows(sets: list[str], lengths: list[int], per_length: int, metric: str) -> list[tuple[str, str, int]]:
    """Positions from the shared benchmark file with a published optimum in the metric."""
    if not SHARED.exists():
        sys.exit(f"no shared instances at {SHARED}")
    column = "opt_htm" if metric == "htm" else "opt_qtm"
    with SHARED.open() as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r[column].isdigit()]
    out: list[tuple[str, str, int]] = []
    for r in rows:
        # the time the position's source publishes for its own solver
        found = re.search(r"published solve time ([0-9.]+) s", r.get("note", "") + " " + r.get("source", ""))
        if found:
            solver = (
                "Kociemba's bigoptsolver"
                if "bigoptsolver" in r.get("source", "")
                else {"random-optimal-htm": "Kociemba's optimal solver on PyPy", "vcube-test64": "vcube, C"}.get(
                    r["set"], "published"
                )
            )
            PUBLISHED[r["label"]] = f" ({solver}: {float(found.group(1)):.3g} s)"
    for length in lengths:
        chosen = [r for r in rows if int(r[column]) == length and (not sets or r["set"] in sets)][:per_length]
        out.extend((r["label"], r["facelet_URFDLB"], length) for r in chosen)
    return out


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smoke run on short scrambles, small tables")
    parser.add_argument("--metric", choices=rk.METRICS, default="htm")
    parser.add_argument("--sets", nargs="*", default=[], help="benchmark sets (default: all)")
    parser.add_argument("--lengths", nargs="*", type=int, default=[16, 17, 18, 19, 20])
    parser.add_argument("--per-length", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tables", default="phase1", help="phase1 (default), phase1x12, phase1x6, full or small")
    parser.add_argument("--strategies", nargs="*", default=["native-ida"])
    args = parser.parse_args(argv)
    if args.quick:
        rng = random.Random(1)
        rows = []
        for length in (3, 5):
            man = rk.random_maneuver(length, rng)
            rows.append((f"scramble-{length}", rk.format_maneuver(man), -1))
        print("| metric | tables | size | build | load |\n|---|---|---|---|---|")
        print(table_line("htm", "small"))
        run(rows, ["native-ida"], {"metric": "htm", "tables": "small", "progress": False}, 60.0, 1)
        return 0
    print("| metric | tables | size | build | load |\n|---|---|---|---|---|")
    print(table_line(args.metric, args.tables))
    rows = shared_rows(args.sets, args.lengths, args.per_length, args.metric)
    run(
        rows,
        args.strategies,
        {"metric": args.metric, "tables": args.tables, "progress": False},
        args.timeout,
        args.workers,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

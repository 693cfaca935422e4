"""Rubik's cube: nodes of whole iterations in one process, table sets side by side.

Node counts do not depend on the machine's load, so they are the figure to compare table
sets, pruning rules and kernels by; the seconds beside them are one process's and noisy.  The
search's CPU seconds (its thread's) count only the time it ran, so on a shared machine its
nodes per CPU second are the steadier rate to compare kernels by.

Usage:
    python benchmarks/rubik_nodes.py                                # nissy-17-01 and 17-03
    python benchmarks/rubik_nodes.py --tables phase1 phase1x12 phase1x6 --labels nissy-17-04
    python benchmarks/rubik_nodes.py --metric qtm --generated 18:2 20:4 --bound 17

A position with a published optimum B (``--labels``, from ../shared/instances/rubik/
benchmarks.tsv): bound B-1 searched to the end, then bound B to the first solution; these two
iterations hold nearly all of a solve's nodes.  A generated position (``--generated MOVES:SEED``,
the scramble ``puzzlesat generate rubik --moves MOVES --seed SEED`` writes): bound ``--bound``
searched to the end.  Each table set's totals are printed with their ratio to the first set's.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzlesat.domains import rubik as rk  # noqa: E402
from puzzlesat.native.rubik import ida as native  # noqa: E402
from puzzlesat.native.rubik.prefixes import PrefixReduction  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "instances" / "rubik" / "benchmarks.tsv"
PREFIX_DEPTH = 3  # the subtrees the kernel is called on, as in a solve


Position = tuple[str, rk.Cube, list[int], int | None]  # name, cube, bounds exhausted, bound to a first solution


def positions(args: argparse.Namespace) -> list[Position]:
    """The positions asked for, each with the iterations to search."""
    out: list[Position] = []
    column = "opt_htm" if args.metric == "htm" else "opt_qtm"
    if args.labels:
        if not SHARED.exists():
            sys.exit(f"no shared instances at {SHARED}; use --generated")
        with SHARED.open() as fh:
            rows = {r["label"]: r for r in csv.DictReader(fh, delimiter="\t")}
        for label in args.labels:
            row = rows.get(label)
            if row is None or not row[column].isdigit():
                sys.exit(f"{SHARED}: no position {label!r} with a published {args.metric.upper()} optimum")
            optimum = int(row[column])
            step = 2 if args.metric == "qtm" else 1  # a QTM bound keeps the position's parity
            out.append((label, rk.parse(row["facelet_URFDLB"], label).cube, [optimum - step], optimum))
    for spec in args.generated:
        moves, _, seed = spec.partition(":")
        if not (moves.isdigit() and seed.isdigit()):
            sys.exit(f"--generated {spec!r}: expected MOVES:SEED, e.g. 18:2")
        cube = rk.generate({"moves": int(moves)}, int(seed)).cube
        out.append((f"generated {spec}", cube, [args.bound], None))
    return out


def measure(
    cube: rk.Cube, metric: str, tables: str, exhausted: list[int], last: int | None
) -> tuple[int, float, float]:
    """Nodes, seconds and CPU seconds of the iterations."""
    searcher = native.make_searcher(cube, metric, tables, quiet=True)
    searcher.reduction = PrefixReduction.of(cube, searcher.moves)
    rows = native.prefixes(searcher.moves.next_state, PREFIX_DEPTH)
    searcher.prepare(native.HUGE_FROM)  # the tables in huge pages before the clock starts
    nodes, seconds, cpu = 0, 0.0, 0.0
    for bound in exhausted + ([last] if last is not None else []):
        start, cpu_start = time.perf_counter(), time.thread_time()
        _, _, count, per_row = searcher.run(rows, bound, False, 10**15)
        seconds += time.perf_counter() - start
        cpu += time.thread_time() - cpu_start
        nodes += int(per_row.sum())
        if bool(count) != (bound == last):
            expected = "a solution" if bound == last else "none (try a smaller --bound)"
            sys.exit(f"bound {bound}: {count} solutions found, expected {expected}")
    return nodes, max(seconds, 1e-9), max(cpu, 1e-9)  # a tiny search can take less than the clock's tick


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--metric", choices=rk.METRICS, default="htm")
    parser.add_argument("--tables", nargs="+", default=["phase1", "phase1x12"], help="table sets, first = reference")
    parser.add_argument("--labels", nargs="*", default=None, help="positions of the shared benchmark file")
    parser.add_argument("--generated", nargs="*", default=[], metavar="MOVES:SEED", help="generated scrambles")
    parser.add_argument("--bound", type=int, default=17, help="the bound searched for generated positions")
    args = parser.parse_args(argv)
    if args.labels is None:
        args.labels = [] if args.generated else ["nissy-17-01", "nissy-17-03"]
    todo = positions(args)
    print(
        "| tables | position | iterations | nodes | s | M nodes/s | CPU s | M nodes/CPU s |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    totals: list[tuple[str, int, float, float]] = []
    for tables in args.tables:
        all_nodes, all_seconds, all_cpu = 0, 0.0, 0.0
        for name, cube, exhausted, last in todo:
            nodes, seconds, cpu = measure(cube, args.metric, tables, exhausted, last)
            shown = ", ".join(map(str, exhausted)) + ("" if last is None else f", {last} to a solution")
            print(
                f"| {tables} | {name} | {shown} | {nodes:,} | {seconds:.2f} | {nodes / seconds / 1e6:.2f} "
                f"| {cpu:.2f} | {nodes / cpu / 1e6:.2f} |"
            )
            all_nodes, all_seconds, all_cpu = all_nodes + nodes, all_seconds + seconds, all_cpu + cpu
        totals.append((tables, all_nodes, all_seconds, all_cpu))
    print("\n| tables | nodes | s | CPU s | nodes / first | s / first | CPU s / first |\n|---|---|---|---|---|---|---|")
    _, first_nodes, first_seconds, first_cpu = totals[0]
    for tables, nodes, seconds, cpu in totals:
        print(
            f"| {tables} | {nodes:,} | {seconds:.2f} | {cpu:.2f} | {nodes / first_nodes:.3f} "
            f"| {seconds / first_seconds:.3f} | {cpu / first_cpu:.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

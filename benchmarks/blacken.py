"""Blacken: every strategy on generated boards of growing size and component count.

Prints a markdown table: for each board class (k, q, components) and strategy, how many of
the boards were proven optimal within the time limit, the median and worst wall time, and
the median move count found.  ``--quick`` runs a tiny smoke version in a few seconds.

    python benchmarks/blacken.py                 # k 7..12, q up to 25, 1..5 components
    python benchmarks/blacken.py --timeout 30 --seeds 3 --strategies native-bb cnf-steps:cadical195
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzlesat.core import Limits, Status, run_strategy  # noqa: E402
from puzzlesat.domains import blacken as bl  # noqa: E402

CLASSES = [
    (7, 6, 2),
    (7, 8, 4),
    (8, 10, 4),
    (9, 12, 4),
    (10, 12, 5),
    (10, 15, 5),
    (11, 20, 5),
    (12, 20, 1),
    (12, 25, 3),
    (12, 25, 5),
]
QUICK = [(6, 4, 2), (7, 6, 3)]
STRATEGIES = ["native-bb", "native-bb-par", "cpsat-steps", "cnf-steps:cadical195"]


def main(argv: list[str] | None = None) -> int:
    """Run the table; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny smoke run (a few seconds)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    parser.add_argument("--seeds", type=int, default=3, help="boards per class")
    parser.add_argument("--workers", type=int, default=2, help="processes of native-bb-par")
    parser.add_argument("--strategies", nargs="+", default=None)
    args = parser.parse_args(argv)
    classes = QUICK if args.quick else CLASSES
    strategies = args.strategies or (["native-bb", "cpsat-steps", "cnf-steps:cadical195"] if args.quick else STRATEGIES)
    seeds = 1 if args.quick else args.seeds
    timeout = min(args.timeout, 10.0) if args.quick else args.timeout
    print(f"timeout {timeout:g} s per run, {seeds} board(s) per class, native-bb-par with {args.workers} workers")
    print("| k | q | comp | strategy | proven | median s | worst s | moves (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for k, q, groups in classes:
        boards = [bl.generate({"size": k, "whites": q, "components": groups}, seed) for seed in range(seeds)]
        for name in strategies:
            times, moves, proven = [], [], 0
            for inst in boards:
                start = time.perf_counter()
                result = run_strategy(bl.PUZZLE, inst, name, Limits(timeout=timeout, workers=args.workers))
                times.append(result.wall_time or time.perf_counter() - start)
                if result.status is Status.ERROR:
                    print(f"ERROR {name} k={k} q={q}: {result.message}", file=sys.stderr)
                if result.objective is not None:
                    moves.append(result.objective)
                proven += result.status is Status.OPTIMAL
            med_moves = f"{statistics.median(moves):g}" if moves else "-"
            print(
                f"| {k} | {q} | {groups} | {name} | {proven}/{len(boards)} | {statistics.median(times):.2f} "
                f"| {max(times):.2f} | {med_moves} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

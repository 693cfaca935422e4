"""Time every Masyu strategy on the seed grids, generated puzzles and the public instances.

Each run solves and proves the answer unique (or finds a second loop), as ``solve --unique``
does; the table gives the median and worst wall time of the repeats per instance, the median
CPU time of this process (steadier than wall time on a shared machine; CP-SAT's worker
threads count in it too) and a summary per strategy.  ``--quick`` is the few-second smoke run the tests use.

    python benchmarks/masyu.py                      # everything, 20 s limit per run
    python benchmarks/masyu.py -s cnf-lazy:cadical195 --public-only
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from puzzlesat.core import Limits, Status, run_strategy  # noqa: E402
from puzzlesat.domains import masyu  # noqa: E402

SHIPPED = ["seed_7x7.txt", "seed_16x33.txt", "gen_20x20_s1.txt", "gen_30x30_s1.txt"]
PUBLIC = REPO.parent / "shared" / "instances" / "masyu"
ALL = ["cnf-lazy:cadical195", "cnf-lazy:glucose4", "cpsat-lazy", "cnf-rank:cadical195", "cpsat-circuit", "native-dfs"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=pathlib.Path, help="instances to time (default: all)")
    parser.add_argument("--quick", action="store_true", help="tiny smoke run (a few seconds)")
    parser.add_argument("--strategy", "-s", action="append", help="strategies to time (repeatable)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per instance and strategy")
    parser.add_argument("--public-only", action="store_true", help="only ../shared/instances/masyu")
    parser.add_argument("--no-unique", action="store_true", help="stop at the first loop")
    args = parser.parse_args(argv)

    if args.quick:
        files = [REPO / "instances" / "masyu" / "seed_7x7.txt", REPO / "instances" / "masyu" / "gen_10x10_s1.txt"]
        strategies = args.strategy or ["cnf-lazy:cadical195", "cnf-rank:cadical195"]
        repeat = 1
    else:
        files = [] if args.public_only else [REPO / "instances" / "masyu" / f for f in SHIPPED]
        if PUBLIC.is_dir():
            files += sorted(PUBLIC.glob("*.txt"), key=lambda p: (p.stat().st_size, p.name))
        strategies = args.strategy or ALL
        repeat = args.repeat
    if args.files:
        files = args.files
    unique = not args.no_unique
    print("| instance | size | strategy | status | median s | worst s | cpu s | unique |")
    print("|---|---|---|---|---|---|---|---|")
    per_strategy: dict[str, list[float]] = {s: [] for s in strategies}
    solved: dict[str, int] = {s: 0 for s in strategies}
    for path in files:
        inst = masyu.parse(path.read_text(), path.name)
        for name in strategies:
            times, cpu, status, uniq = [], [], "", "-"
            for _ in range(repeat):
                start, cpu_start = time.perf_counter(), time.process_time()
                result = run_strategy(
                    masyu.PUZZLE, inst, name, Limits(timeout=args.timeout, options={"unique": unique})
                )
                times.append(result.wall_time or time.perf_counter() - start)
                cpu.append(time.process_time() - cpu_start)
                status = result.status.value
                uniq = {True: "yes", False: "no"}.get(result.stats.get("unique"), "-")
                if result.status is not Status.SOLVED:
                    break  # a timeout will not get better on the next try
            per_strategy[name].append(max(times))
            if status == "SOLVED" and (uniq != "-" or not unique):
                solved[name] += 1
            print(
                f"| {path.stem} | {inst.rows}x{inst.cols} | {name} | {status} | "
                f"{statistics.median(times):.3f} | {max(times):.3f} | {statistics.median(cpu):.3f} | {uniq} |",
                flush=True,
            )
    print()
    print("| strategy | decided | median of worst s | worst s |")
    print("|---|---|---|---|")
    for name in strategies:
        worst = per_strategy[name]
        if worst:
            print(f"| {name} | {solved[name]}/{len(worst)} | {statistics.median(worst):.3f} | {max(worst):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The portfolio against the best single strategy in hindsight, on generated edge-matching boards.

For each instance, every member strategy runs alone in its own process (one at a time, so it
has the machine to itself), then the portfolio races them all.  The table shows, per
instance, the best and worst single strategy by their own solve time, the best one's time
counted from its process spawn (start-up and imports included, as the portfolio's is), the
portfolio's wall time from the first spawn to the verified answer, and the start-up plus
import time of the portfolio's winner.

Targets: the portfolio's median time within 1.3x the best single strategy's, both counted
from process spawn (so both pay process start-up and imports, which the table shows), and
the portfolio never slower than the worst single strategy counted the same way.  ``net`` is
``(portfolio - winner's start-up+import) / best single's own solve time`` (solve times under
0.1 s count as 0.1 s): large when a strategy with a slow start-up (numba) solves in
milliseconds but loses the race to one that starts faster.

    python benchmarks/portfolio.py            # ~2-4 minutes on 2 cores
    python benchmarks/portfolio.py --quick    # a smoke run in a few seconds
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from puzzlesat.core import Limits, Status, get_puzzle
from puzzlesat.portfolio import compare as cmp
from puzzlesat.portfolio import race as pf
from puzzlesat.portfolio.backends import Backend, default_start_method

FULL_SET = [(5, 2, 3), (5, 2, 4), (6, 2, 4), (6, 3, 4), (6, 3, 5), (7, 3, 5), (7, 3, 6), (8, 3, 6)]
QUICK_SET = [(4, 2, 2)]


def instances(sizes: list[tuple[int, int, int]], seeds: int) -> list[tuple[str, object]]:
    """Generated boards: (size, frame colours, inner colours) for each seed."""
    from puzzlesat.domains import eternity

    out = []
    for size, frame, inner in sizes:
        for seed in range(1, seeds + 1):
            inst = eternity.generate({"size": size, "frame_colours": frame, "inner_colours": inner}, seed)
            out.append((f"g{size}_f{frame}_i{inner}_s{seed}", inst))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table; exit 1 if a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one tiny board, two strategies")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per run (default 10, quick 20)")
    parser.add_argument("--seeds", type=int, default=1, help="boards per size")
    parser.add_argument("--jobs", type=int, default=None, help="cores for the portfolio (default: all)")
    parser.add_argument("--portfolio", default=None, help="members, comma separated (default: the puzzle's)")
    parser.add_argument(
        "--start-method",
        choices=("spawn", "fork"),
        default=None,
        help="how children start (default: $PUZZLESAT_START_METHOD or spawn)",
    )
    args = parser.parse_args(argv)

    puzzle = get_puzzle("eternity")
    if args.quick:
        members = ["native-rowscan", "cnf-heule"]
        boards = instances(QUICK_SET, 1)
        timeout = args.timeout or 20.0
    else:
        members = pf.portfolio_names(puzzle, args.portfolio)
        boards = instances(FULL_SET, args.seeds)
        timeout = args.timeout or 10.0
    singles = list(dict.fromkeys(members))
    began = time.monotonic()
    print(
        f"# portfolio benchmark: {len(boards)} boards, members {', '.join(members)}, timeout {timeout:g}s, "
        f"start method {args.start_method or default_start_method()}",
        file=sys.stderr,
    )

    records = cmp.compare(
        puzzle, boards, singles, Limits(timeout=timeout), Backend(jobs=1, start_method=args.start_method), stream=None
    )
    by = {(r.instance, r.strategy): r for r in records}

    def single_time(name: str, strategy: str) -> float:
        rec = by[name, strategy]
        return rec.time if rec.solved(puzzle.optimisation) and rec.time is not None else float("inf")

    def single_elapsed(name: str, strategy: str) -> float:
        rec = by[name, strategy]
        solved = rec.solved(puzzle.optimisation) and rec.elapsed is not None
        return rec.elapsed if solved and rec.elapsed is not None else float("inf")

    rows = []
    for name, inst in boards:
        res = pf.race(
            puzzle,
            inst,
            members,
            Limits(timeout=timeout),
            Backend(jobs=args.jobs, start_method=args.start_method),
            stream=None,
        )
        best_name = min(singles, key=lambda s: single_time(name, s))
        worst_name = max(singles, key=lambda s: single_time(name, s))
        winner = res.winner
        overhead = (winner.startup or 0.0) + (winner.load or 0.0) if winner else 0.0
        solved = res.result.status.is_final and res.result.status is not Status.UNKNOWN
        total = res.wall_time if solved else float("inf")
        rows.append(
            {
                "name": name,
                "best": best_name,
                "best_t": single_time(name, best_name),
                "best_elapsed": min(single_elapsed(name, s) for s in singles),
                "worst": worst_name,
                "worst_t": single_time(name, worst_name),
                "worst_elapsed": max(single_elapsed(name, s) for s in singles),
                "total": total,
                "overhead": overhead,
                "winner": winner.label if winner else "-",
                "startups": [o.startup for o in res.outcomes if o.startup is not None],
            }
        )

    def fmt(x: float) -> str:
        return "t/o" if x == float("inf") else f"{x:.2f}"

    inf = float("inf")
    print(
        "| board | best single: solve | best from spawn | worst from spawn | portfolio | winner "
        "| winner start-up+import | portfolio / best | net |"
    )
    print("|---|---|---:|---:|---:|---|---:|---:|---:|")
    ratios, nets, slower = [], [], []
    for row in rows:
        ratio = row["total"] / row["best_elapsed"] if row["best_elapsed"] != inf else inf
        net = (row["total"] - row["overhead"]) / max(row["best_t"], 0.1) if row["best_t"] != inf else inf
        if ratio != inf:
            ratios.append(ratio)
        if net != inf:
            nets.append(net)
        if row["total"] > row["worst_elapsed"]:
            slower.append(row["name"])
        print(
            f"| {row['name']} | {row['best']} {fmt(row['best_t'])} | {fmt(row['best_elapsed'])} "
            f"| {fmt(row['worst_elapsed'])} | {fmt(row['total'])} | {row['winner']} | {row['overhead']:.2f} "
            f"| {fmt(ratio)} | {fmt(net)} |"
        )
    startups = [s for row in rows for s in row["startups"]]
    print()
    print(
        f"median portfolio / best single (both from spawn): "
        f"{statistics.median(ratios) if ratios else float('nan'):.2f} (target <= 1.3)"
    )
    print(
        f"median net ratio, (portfolio - winner start-up+import) / best solve (>= 0.1 s): "
        f"{statistics.median(nets) if nets else float('nan'):.2f}"
    )
    print(
        f"process start-up (spawn to child entry): median {statistics.median(startups):.2f}s, max {max(startups):.2f}s"
    )
    print(f"never slower than the worst single: {'yes' if not slower else 'NO (' + ', '.join(slower) + ')'}")
    print(f"# took {time.monotonic() - began:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

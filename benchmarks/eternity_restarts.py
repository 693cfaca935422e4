"""native-rowscan's restart schedule: nodes to a first solution of generated peak boards.

Each board (:func:`eternity.peak_instance`, seeds ``--seed-start`` on, disjoint from the held-out
boards 100-110 of ``eternity.py --whole-process``) is solved with ``--orders`` candidate orders
(seeds s, s + 1000, ...) under each restart schedule ``FIRST,GROWTH`` (the first restart's node
budget and its growth; a huge FIRST is one search without restarts).  Nodes, not seconds: the
count is the same on a busy machine, and a node costs the same under every schedule.

    python benchmarks/eternity_restarts.py --size 7 --boards 40 --seed-start 200 \\
        --schedules 200000,1.5 10000000,2 1000000000000,2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _runner import print_table  # noqa: E402
from eternity import peak_instance  # noqa: E402

from puzzlesat.core import Limits  # noqa: E402
from puzzlesat.native.eternity import rowscan  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--seed-start", type=int, default=200)
    parser.add_argument("--orders", type=int, default=3, help="candidate orders per board")
    parser.add_argument("--schedules", nargs="+", default=["200000,1.5", "10000000,2"], help="FIRST,GROWTH")
    args = parser.parse_args()
    boards = [(s, peak_instance(args.size, s)) for s in range(args.seed_start, args.seed_start + args.boards)]
    rows = []
    for schedule in args.schedules:
        first, growth = schedule.split(",")
        rowscan.FIRST_RESTART_NODES, rowscan.RESTART_GROWTH = int(float(first)), float(growth)
        nodes = np.array(
            [
                rowscan.solve(board, Limits(seed=seed + 1000 * k), None).stats["nodes"]
                for seed, board in boards
                for k in range(args.orders)
            ],
            dtype=np.float64,
        )
        rows.append(
            [
                schedule,
                f"{np.median(nodes) / 1e6:.2f}",
                f"{np.exp(np.log(nodes).mean()) / 1e6:.2f}",
                f"{nodes.mean() / 1e6:.2f}",
                f"{np.percentile(nodes, 90) / 1e6:.2f}",
            ]
        )
        print(f"c {schedule}: done", file=sys.stderr)
    print_table(
        f"native-rowscan, {args.size}x{args.size} peak boards {args.seed_start}-{args.seed_start + args.boards - 1},"
        f" {args.orders} orders each: millions of nodes to a first solution",
        ["FIRST,GROWTH", "median", "geometric mean", "mean", "90th percentile"],
        rows,
    )


if __name__ == "__main__":
    main()

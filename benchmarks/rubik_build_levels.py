"""Rubik's cube: where a phase-1 table build's time goes, stage by stage and level by level.

Runs the stages of ``puzzlesat.native.rubik.phase1.build`` in memory, without its work folder
(no keeps, no files): the move tables, the symmetry classes, the table's allocation, each
breadth-first level (forward, backward or the rest at once, chosen as the build chooses), the corner table.
Each line gives the wall seconds and the CPU seconds of the whole process (every thread),
the entries the level found and the class rows it gave entries to.  CPU seconds are the
figure to compare on a shared machine: wall seconds there depend on the load.  The first
call of each kernel compiles it unless numba's cache holds it (run twice to see both).

Usage:
    python benchmarks/rubik_build_levels.py                  # phase1, HTM
    python benchmarks/rubik_build_levels.py --tables phase1x6 --metric qtm
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzlesat.domains.rubik import METRICS  # noqa: E402
from puzzlesat.native.rubik import phase1 as p1  # noqa: E402
from puzzlesat.native.rubik.symmetry import edge_maps, symmetry_inverses, ud_symmetries  # noqa: E402


class Clock:
    """Prints the wall and CPU seconds since the last line."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        self.total_cpu = 0.0

    def line(self, what: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        self.total_cpu += cpu - self.cpu
        print(f"| {what} | {wall - self.wall:.2f} | {cpu - self.cpu:.2f} |", flush=True)
        self.wall, self.cpu = time.perf_counter(), time.process_time()


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="phase1", choices=sorted(p1.TABLE_SETS))
    parser.add_argument("--metric", default="htm", choices=METRICS)
    args = parser.parse_args(argv)
    print(f"{args.tables} {args.metric}, {numba.get_num_threads()} threads\n| stage | wall s | CPU s |\n|---|---|---|")
    clock = Clock()
    small = p1._small_tables(args.metric, p1.TABLE_SETS[args.tables])
    clock.line("move tables, symmetry maps, inverse tables")
    syms = ud_symmetries()
    clsym, reps, selfsym = p1._classes(
        edge_maps(syms), symmetry_inverses(syms), small["slice_reduced"], small["slice_reps"]
    )
    clock.line(f"symmetry classes ({reps.shape[0]:,})")
    ncls = reps.shape[0]
    total = ncls * p1.N_TWIST
    table = np.full(ncls * p1.ROW_BYTES, 0xFF, np.uint8)
    clock.line(f"allocation ({table.nbytes / 1e6:.0f} MB)")
    goal = int(small["slice_reduced"][p1.slice_of(np.arange(12, dtype=np.int64))])
    goal_row = int(clsym[goal * p1.N_FLIP]) >> 4
    p1._set4(table, goal_row * p1.ROW, 0)
    steps = p1.twist_steps(small["twist_mv"], small["twist_conj"])
    moves = (small["flip_mv"], small["slice_mv"], steps)
    forward = (reps, clsym, selfsym, *moves, small["twist_conj"])
    threads = numba.get_num_threads()
    live, reached = np.zeros(ncls, np.uint8), np.zeros(ncls, np.uint8)
    live[goal_row] = 1
    depth, done, way = 0, 1, p1.FORWARD
    ways = {p1.FORWARD: "forward", p1.BACKWARD: "backward", p1.REST: "the rest at once"}
    while done < total:
        if way == p1.REST:
            found = p1._fill_rest(table, depth + 1, 0, ncls)
        elif way == p1.BACKWARD:
            found = p1._phase1_backward(table, depth, reps, clsym, *moves, live, reached, 0, ncls)
        else:
            found = p1._phase1_forward(table, depth, *forward, live, reached, 0, p1.FORWARD_CHUNKS, threads)
        done += int(found)
        clock.line(f"level {depth} to {depth + 1}, {ways[way]}: {int(found):,} entries, {int(reached.sum()):,} rows")
        depth += 1
        live, reached = reached, live
        reached[:] = 0
        way = p1.next_way(int(found), total - done)  # as the build chooses
    p1._corner_table(small, lambda d: None)
    clock.line("corner table")
    print(f"| all | | {clock.total_cpu:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

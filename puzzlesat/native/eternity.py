"""``native-rowscan``: a numba row-scan backtracker for edge matching with seeded restarts.

The wrapper builds the lookup the kernel needs: for each of the nine frame classes of a
cell (corner, side or inside, and which rim sides) and each (west, north) colour pair, the
list of tiles turned to fit, frame tiles kept apart from inside ones by the class.  Each
restart shuffles the order within every list with the run's seed, so different seeds (and
different restarts) explore differently; the node budget of a restart grows by half each
time, so the last restart always runs to the end and an exhausted search is a proof that
no solution exists.  On square boards the first corner tile is placed top-left (the board's
rotations map solutions onto each other).
"""

from __future__ import annotations

import time

import numpy as np

from puzzlesat.core import Limits, Result, Status
from puzzlesat.puzzles.eternity import GREY, Instance, Solution, rotated

FIRST_RESTART_NODES = 200_000
RESTART_GROWTH = 1.5
SLICE_NODES = 20_000_000  # nodes between two looks at the clock (well under a second)


def cell_class(instance: Instance, cell: int) -> int:
    """A number 0..8 for the cell's rim sides: bit pattern of N/E/S/W facing off the board."""
    sides = instance.frame_sides(cell)
    pattern = sum(1 << s for s in sides)
    return [0, 1, 2, 3, 4, -1, 5, -1, 6, 7, -1, -1, 8][pattern]


def lookup_lists(instance: Instance) -> dict[tuple[int, int, int], list[tuple[int, int, int, int]]]:
    """(class, west, north) -> fitting turned tiles as (tile, rotation, east, south).

    A turned tile fits a class when its grey sides are exactly the class's rim sides; turns
    that look the same are listed once.
    """
    classes = {cell_class(instance, cell): set(instance.frame_sides(cell)) for cell in range(instance.cells)}
    lists: dict[tuple[int, int, int], list[tuple[int, int, int, int]]] = {}
    for k, rim in classes.items():
        for tile, colours in enumerate(instance.tiles):
            seen = set()
            for rot in range(4):
                n, e, s, w = rotated(colours, rot)
                if {i for i, x in enumerate((n, e, s, w)) if x == GREY} == rim and (n, e, s, w) not in seen:
                    seen.add((n, e, s, w))
                    lists.setdefault((k, w, n), []).append((tile, rot, e, s))
    return lists


class Lookup:
    """The flat arrays the kernel reads, reshuffled per restart."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.lists = lookup_lists(instance)
        self.classes = np.array([cell_class(instance, c) for c in range(instance.cells)], dtype=np.int64)
        if instance.square:
            corners = [t for t in range(instance.cells) if instance.grey_count(t) == 2]
            self.first_corner = corners[0] if corners else -1
        else:
            self.first_corner = -1

    def arrays(self, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """(off, tile, rot, east, south) with every list in a fresh random order."""
        colours = self.instance.colours
        off = np.zeros((9, colours * colours + 1), dtype=np.int64)
        rows: list[tuple[int, int, int, int]] = []
        for k in range(9):
            for key in range(colours * colours):
                off[k, key] = len(rows)
                entries = list(self.lists.get((k, *divmod(key, colours)), []))
                if k == self.classes[0] and self.first_corner >= 0:
                    entries = [e for e in entries if e[0] == self.first_corner]
                order = rng.permutation(len(entries))
                rows.extend(entries[i] for i in order)
            off[k, colours * colours] = len(rows)
        table = np.array(rows, dtype=np.int64).reshape(-1, 4)
        return off, table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy(), table[:, 3].copy()


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Search with restarts until solved, exhausted, or out of time."""
    from puzzlesat.native import eternity_kernel as kernel

    compile_start = time.perf_counter()
    kernel.warm_up()
    compile_time = time.perf_counter() - compile_start
    start = time.perf_counter()
    lookup = Lookup(instance)
    rng = np.random.default_rng(limits.seed)
    n = instance.cells
    nodes = 0
    restarts = 0
    restart_budget = float(FIRST_RESTART_NODES)
    while True:
        off, tile, rot, east_c, south_c = lookup.arrays(rng)
        used = np.zeros(n, dtype=np.int64)
        choice = np.full(n, -1, dtype=np.int64)
        east = np.zeros(n, dtype=np.int64)
        south = np.zeros(n, dtype=np.int64)
        placed = np.zeros(n, dtype=np.int64)
        depth = np.zeros(1, dtype=np.int64)
        spent = 0
        while True:
            slice_nodes = int(min(SLICE_NODES, restart_budget - spent))
            status, done = kernel.search(instance.cols, instance.colours, lookup.classes, off, tile,
                                         east_c, south_c, used, choice, east, south, placed, depth,
                                         max(1, slice_nodes))
            spent += done
            nodes += done
            stats = {"nodes": nodes, "restarts": restarts, "compile_time": round(compile_time, 3)}
            if status == kernel.SOLVED:
                solution = Solution(tuple((int(tile[i]), int(rot[i])) for i in placed))
                return Result(Status.SOLVED, solution, wall_time=time.perf_counter() - start, stats=stats)
            if status == kernel.EXHAUSTED:
                return Result(Status.INFEASIBLE, wall_time=time.perf_counter() - start, stats=stats)
            remaining = limits.remaining(start)
            if remaining is not None and remaining <= 0:
                return Result(Status.UNKNOWN, wall_time=time.perf_counter() - start, stats=stats,
                              message="time limit")
            if spent >= restart_budget:
                break
        restarts += 1
        restart_budget *= RESTART_GROWTH

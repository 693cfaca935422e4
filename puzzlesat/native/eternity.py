"""``native-rowscan``: a numba row-scan backtracker for edge matching with seeded restarts.

The wrapper builds the lookup the kernel needs: for each of the nine frame classes of a
cell (corner, side or inside, and which rim sides) and each (west, north) colour pair, the
list of tiles turned to fit, frame tiles kept apart from inside ones by the class.  Each
restart shuffles the order within every list with the run's seed, so different seeds (and
different restarts) explore differently; the node budget of a restart grows by half each
time, so the last restart always runs to the end and an exhausted search is a proof that
no solution exists.  On square boards without hints the first corner tile is placed top-left
(the board's rotations map solutions onto each other).  A hinted cell gets a class of its
own whose one candidate is its hint, and hinted tiles are candidates nowhere else.
"""

from __future__ import annotations

import time

import numpy as np

from puzzlesat.core import Limits, Result, Status
from puzzlesat.core.kernel_status import decision_status
from puzzlesat.domains.eternity import GREY, Instance, Solution, rotated, symmetry_corner
from puzzlesat.native import eternity_kernel as kernel

FIRST_RESTART_NODES = 200_000
RESTART_GROWTH = 1.5
SLICE_NODES = 20_000_000  # nodes between two looks at the clock (well under a second)


# frame class of a cell from its rim sides as a bit pattern (N=1, E=2, S=4, W=8);
# -1 marks patterns no cell has (opposite sides both on the rim)
CLASS_OF_PATTERN = np.array([0, 1, 2, 3, 4, -1, 5, -1, 6, 7, -1, -1, 8, -1, -1, -1], dtype=np.int64)
CLASSES = 9


def cell_class(instance: Instance, cell: int) -> int:
    """The cell's frame class 0..8 (inside, four sides, four corners)."""
    return int(CLASS_OF_PATTERN[sum(1 << s for s in instance.frame_sides(cell))])


class Lookup:
    """The candidate table the kernel reads, reshuffled for each restart.

    One row per turned tile that fits some frame class (grey exactly on the class's rim
    sides; turns that look the same are kept once): class, key = west * C + north, tile,
    rotation, east, south.  Hinted cells have classes 9, 10, ... holding their hint alone.
    """

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.colours = instance.colours
        self.classes = np.array([cell_class(instance, c) for c in range(instance.cells)], dtype=np.int64)
        self.nclasses = CLASSES + len(instance.hints)
        tiles = np.array(instance.tiles, dtype=np.int64)
        sides = np.arange(4)
        turned = np.stack([tiles[:, (sides - r) % 4] for r in range(4)])  # (rotation, tile, side)
        pattern = ((turned == GREY) << sides).sum(axis=2)
        fits = CLASS_OF_PATTERN[pattern] >= 0
        for r in range(1, 4):  # a turn that looks like an earlier one adds nothing
            for earlier in range(r):
                fits[r] &= ~(turned[r] == turned[earlier]).all(axis=1)
        rot, tile = np.nonzero(fits)
        looks = turned[rot, tile]
        cls = CLASS_OF_PATTERN[pattern[rot, tile]]
        keep = np.isin(cls, self.classes) & ~np.isin(tile, [hint.tile for hint in instance.hints])
        corner = symmetry_corner(instance)
        if corner is not None:  # symmetry: the board's rotations map solutions onto each other
            keep &= (cls != self.classes[0]) | (tile == corner)
        rows = [
            np.stack([cls, looks[:, 3] * self.colours + looks[:, 0], tile, rot, looks[:, 1], looks[:, 2]], axis=1)[keep]
        ]
        for k, hint in enumerate(instance.hints):
            self.classes[hint.cell] = CLASSES + k
            north, east, south, west = rotated(instance.tiles[hint.tile], hint.rotation)
            rows.append(np.array([[CLASSES + k, west * self.colours + north, hint.tile, hint.rotation, east, south]]))
        self.rows = np.concatenate(rows).astype(np.int64)

    def arrays(self, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """(off, tile, rot, east, south), every (class, key) list in a fresh random order."""
        rows = self.rows
        order = np.lexsort((rng.random(len(rows)), rows[:, 1], rows[:, 0]))
        rows = rows[order]
        slots = self.colours * self.colours
        flat = rows[:, 0] * slots + rows[:, 1]
        off = np.searchsorted(flat, np.arange(self.nclasses * slots + 1)).astype(np.int64)
        off2d = np.empty((self.nclasses, slots + 1), dtype=np.int64)
        off2d[:, :slots] = off[:-1].reshape(self.nclasses, slots)
        off2d[:, slots] = off[slots::slots]
        return (off2d, *(np.ascontiguousarray(rows[:, i]) for i in (2, 3, 4, 5)))


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Search with restarts until solved, exhausted, or out of time."""
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
            status, done = kernel.search(
                instance.cols,
                instance.colours,
                lookup.classes,
                off,
                tile,
                east_c,
                south_c,
                used,
                choice,
                east,
                south,
                placed,
                depth,
                max(1, slice_nodes),
            )
            spent += done
            nodes += done
            stats = {"nodes": nodes, "restarts": restarts, "compile_time": round(compile_time, 3)}
            outcome = decision_status(status)
            if outcome is Status.SOLVED:
                solution = Solution(tuple((int(tile[i]), int(rot[i])) for i in placed))
                return Result(outcome, solution, wall_time=time.perf_counter() - start, stats=stats)
            if outcome is Status.INFEASIBLE:
                return Result(outcome, wall_time=time.perf_counter() - start, stats=stats)
            remaining = limits.remaining(start)
            if remaining is not None and remaining <= 0:
                return Result(Status.UNKNOWN, wall_time=time.perf_counter() - start, stats=stats, message="time limit")
            if spent >= restart_budget:
                break
        restarts += 1
        restart_budget *= RESTART_GROWTH

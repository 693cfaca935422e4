"""The row-scan search of ``native-rowscan``: the candidate lookup and a resumable search.

:class:`Lookup` builds the table the kernel (native/eternity_kernel.py) reads: for each of the
nine frame classes of a cell (corner, side or inside, and which rim sides) and each (west,
north) colour pair, the list of tiles turned to fit, frame tiles kept apart from inside ones
by the class.  Without hints the first corner tile is placed top-left on a square board, in
the top row on a rectangle (the board's rotations map solutions onto each other:
:func:`~puzzlesat.domains.eternity.first_corner`).  A hinted cell gets a class of its own
whose one candidate is its hint, and hinted tiles are candidates nowhere else.

:class:`Search` runs the kernel (the module built ahead of time when there is one, else
numba's: native/aot.py) in slices from the empty board or from a :data:`Task` (a partial
board), and cuts what it has left into tasks for other processes (native/eternity_split.py).
"""

from __future__ import annotations

import math
import random

import numpy as np

from puzzlesat.domains.eternity import GREY, Instance, Solution, first_corner, rotated
from puzzlesat.native import aot
from puzzlesat.native.eternity_arrays import State, Table

COUNT_LIMIT = 2**62  # a count's limit of boards: more than any search can reach


# frame class of a cell from its rim sides as a bit pattern (N=1, E=2, S=4, W=8);
# -1 marks patterns no cell has (opposite sides both on the rim)
CLASS_OF_PATTERN = np.array([0, 1, 2, 3, 4, -1, 5, -1, 6, 7, -1, -1, 8, -1, -1, -1], dtype=np.int64)
CLASSES = 9


def cell_class(instance: Instance, cell: int) -> int:
    """The cell's frame class 0..8 (inside, four sides, four corners)."""
    return int(CLASS_OF_PATTERN[sum(1 << s for s in instance.frame_sides(cell))])


class Draws:
    """The random numbers that order the candidates: the standard library's Mersenne Twister
    (``numpy.random`` would do as well, and cost every solve ~6 ms of start-up to import, a
    twentieth of a whole 7x7 solve with the kernels built), seeded by a text naming the seed
    (None: from the system): :func:`~puzzlesat.domains.eternity.generate` builds a board from
    ``random.Random(seed)``, and a board must not be ordered by the draws that built it."""

    def __init__(self, seed: int | None) -> None:
        self._random = random.Random(None if seed is None else f"candidate order {seed}")

    def random(self, count: int) -> np.ndarray:
        """``count`` numbers in [0, 1)."""
        return np.fromiter((self._random.random() for _ in range(count)), dtype=np.float64, count=count)


class Lookup:
    """The candidate table the kernel reads, reshuffled for each restart.

    One row per turned tile that fits some frame class (grey exactly on the class's rim
    sides; turns that look the same are kept once): class, key = west * C + north, tile,
    rotation, east, south.  Hinted cells have classes 9, 10, ... holding their hint alone.

    With ``twins``, identical pieces (tiles that are turns of each other) are interchangeable:
    :meth:`table` keeps the rows of one look in a list together, and the kernel tries only
    the first free one on a cell (the others' subtrees hold the same boards, the twins
    swapped).  Every board found then stands for :attr:`labelings` boards told apart by tile
    ids.  The hinted tiles and, when the symmetry breaking fixes it, the first corner tile's
    piece are left out (they are not free to swap).  ``symmetry`` False leaves out the rule that
    fixes the first corner tile.
    """

    def __init__(self, instance: Instance, twins: bool = False, symmetry: bool = True) -> None:
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
        fixed = first_corner(instance) if symmetry else None
        if fixed is not None:  # symmetry: the board's rotations map solutions onto each other
            corner, cells = fixed
            allowed = self.classes[list(cells)]
            keep &= (tile != corner) | np.isin(cls, allowed)
            if len(cells) == 1:
                keep &= (cls != allowed[0]) | (tile == corner)
        rows = [
            np.stack([cls, looks[:, 3] * self.colours + looks[:, 0], tile, rot, looks[:, 1], looks[:, 2]], axis=1)[keep]
        ]
        for k, hint in enumerate(instance.hints):
            self.classes[hint.cell] = CLASSES + k
            north, east, south, west = rotated(instance.tiles[hint.tile], hint.rotation)
            rows.append(np.array([[CLASSES + k, west * self.colours + north, hint.tile, hint.rotation, east, south]]))
        self.rows = np.concatenate(rows).astype(np.int64)
        # pieces: a tile's smallest turn; twins are the free tiles of a piece held by more than one
        smallest = [min(rotated(colours, r) for r in range(4)) for colours in instance.tiles]
        first_tile = {look: t for t, look in reversed(list(enumerate(smallest)))}
        piece = np.array([first_tile[look] for look in smallest], dtype=np.int64)  # its piece's first tile
        free = ~np.isin(np.arange(instance.cells), [hint.tile for hint in instance.hints])
        if fixed is not None:
            free &= piece != piece[fixed[0]]
        sizes = np.bincount(piece[free], minlength=instance.cells)
        self.twin_tiles = free & (sizes[piece] > 1) & twins
        self.labelings = math.prod(math.factorial(int(m)) for m in sizes if m > 1) if twins else 1
        # for the colour-count check: each tile's slots class * C + north, gives[gives_off[t]:gives_off[t + 1]]
        slots = self.nclasses * self.colours
        keys = np.sort(self.rows[:, 2] * slots + self.rows[:, 0] * self.colours + self.rows[:, 1] % self.colours)
        keys = keys[np.append(True, keys[1:] != keys[:-1])]  # np.unique, which would import numpy.ma (20 ms)
        tiles, self.gives = np.divmod(keys, slots)
        self.gives_off = np.searchsorted(tiles, np.arange(instance.cells + 1)).astype(np.int64)

    def table(self, rng: Draws) -> Table:
        """The kernel's :class:`Table`, every (class, key) list in a fresh random order.

        ``off[k, key]..off[k, key + 1]`` index the candidates of class ``k`` and key ``key``
        in ``tile``, ``rot``, ``east``, ``south``.

        ``after[i]`` is the candidate to try once the subtree of candidate ``i`` is done:
        ``i + 1``, or with twins the first candidate past ``i``'s twins, which the order keeps
        next to each other in a list (one of them is tried; the others hold the same boards).
        """
        rows = self.rows
        draw = rng.random(len(rows))
        twin = self.twin_tiles[rows[:, 2]]
        look = np.where(twin[:, None], rows[:, [0, 1, 4, 5]], -1 - np.arange(len(rows))[:, None])
        group = np.unique(look, axis=0, return_inverse=True)[1].ravel()  # twins in one list share a group
        first_draw = np.full(group.max() + 1 if len(rows) else 0, 2.0)
        np.minimum.at(first_draw, group, draw)
        order = np.lexsort((draw, first_draw[group], rows[:, 1], rows[:, 0]))
        rows, group = rows[order], group[order]
        ends = np.append(np.nonzero(group[1:] != group[:-1])[0] + 1, len(rows))
        after = np.repeat(ends, np.diff(np.append(0, ends))).astype(np.int64)
        slots = self.colours * self.colours
        flat = rows[:, 0] * slots + rows[:, 1]
        off = np.searchsorted(flat, np.arange(self.nclasses * slots + 1)).astype(np.int64)
        off2d = np.empty((self.nclasses, slots + 1), dtype=np.int64)
        off2d[:, :slots] = off[:-1].reshape(self.nclasses, slots)
        off2d[:, slots] = off[slots::slots]
        rot, east, south = (np.ascontiguousarray(rows[:, i]) for i in (3, 4, 5))
        tile = rows[:, 2].astype(np.uint16)  # unsigned: the kernel indexes ``used`` by it without a fix-up
        cols = self.instance.cols
        return Table(cols, self.colours, self.classes, off2d, tile, rot, east, south, after, self.gives_off, self.gives)


Task = tuple[np.ndarray, int]  # (candidates on cells 0..p-1, first candidate to try on cell p; -1: all)


class Search:
    """One search of the kernel, resumable call after call: from the empty board or from a :data:`Task`.

    ``check`` turns on the colour-count check (see the kernel).  The candidate order is drawn
    from ``rng``, or given as ``table`` (the parallel search hands one order to every worker).
    """

    def __init__(
        self,
        instance: Instance,
        lookup: Lookup,
        rng: Draws | None,
        check: bool = False,
        table: Table | None = None,
    ) -> None:
        self.instance = instance
        if table is None:
            assert rng is not None
            table = lookup.table(rng)
        self.table = table
        self.check = int(check)
        self.labelings = lookup.labelings  # boards told apart by tile ids per board found
        self.full_supply = np.bincount(lookup.gives, minlength=lookup.nclasses * lookup.colours).astype(np.int64)
        self.state = State.empty(instance.cells, len(self.full_supply))
        self.state.supply[:] = self.full_supply
        self.floor = 0

    @property
    def found(self) -> int:
        """Boards completed since the search (or its task) started."""
        return int(self.state.found[0])

    @property
    def pruned(self) -> int:
        """Placements the colour-count check refused since the search (or its task) started."""
        return int(self.state.pruned[0])

    def run(self, budget: int, limit: int = 1, plain: bool = False) -> tuple[int, int]:
        """(kernel status, nodes) of at most ``budget`` more nodes, stopping at the ``limit``-th board.

        ``plain`` runs them in Python (native/eternity_plain.py; not with ``check``), with no
        numba import: the same nodes, and the kernel can go on from where it stopped.
        """
        if plain and not self.check:
            from puzzlesat.native.eternity_plain import search as plain_search

            return plain_search(self.table, self.state, max(1, budget), limit, self.floor)
        kernel = aot.kernels("eternity")

        status, nodes = kernel.search(self.table, self.state, max(1, budget), limit, self.floor, self.check)
        return int(status), int(nodes)

    def board(self) -> Solution:
        """The board the last FOUND stopped at."""
        return Solution(tuple((int(self.table.tile[i]), int(self.table.rot[i])) for i in self.state.placed))

    def start(self, task: Task) -> None:
        """Set the search to run exactly the subtrees of ``task`` (its counts start at 0)."""
        prefix, first = task
        p = len(prefix)
        state = self.state
        state.used[:] = 0
        state.supply[:] = self.full_supply
        state.demand[:] = 0
        state.found[0] = state.pruned[0] = 0
        kernel = aot.kernels("eternity")

        kernel.replay(np.asarray(prefix, dtype=np.int64), self.table, state, self.check)
        if p < self.instance.cells:
            state.choice[p] = first
        state.depth[0] = p
        self.floor = p

    def _untried(self, d: int) -> bool:
        """True when cell ``d`` (placed) has candidates after the one placed there left to try."""
        table, state = self.table, self.state
        cols, colours = table.cols, table.colours
        west = state.east[d - 1] if d % cols else 0
        north = state.south[d - cols] if d >= cols else 0
        return bool(state.choice[d] < table.off[table.classes[d], west * colours + north + 1])

    def split(self) -> Task | None:
        """Give away the untried candidates of the shallowest cell that has some, as a task; None if none.

        This search keeps the subtree of the candidate placed there (its floor moves below that
        cell); the task holds the candidates after it, so the two share the search exactly.
        """
        placed, choice = self.state.placed, self.state.choice
        for d in range(self.floor, min(int(self.state.depth[0]), self.instance.cells)):
            if self._untried(d):
                task = (placed[:d].copy(), int(choice[d]))
                self.floor = d + 1
                return task
        return None

    def remaining(self) -> list[Task]:
        """Every task left of a search paused on BUDGET: the untried candidates of each cell, then the current cell."""
        depth, n = int(self.state.depth[0]), self.instance.cells
        placed, choice = self.state.placed, self.state.choice
        tasks = [(placed[:d].copy(), int(choice[d])) for d in range(self.floor, min(depth, n)) if self._untried(d)]
        if self.floor <= depth < n:
            tasks.append((placed[:depth].copy(), int(choice[depth])))
        return tasks

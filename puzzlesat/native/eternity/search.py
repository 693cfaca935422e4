"""The row-scan search of ``native-rowscan``: the candidate lookup and a resumable search.

:class:`Lookup` builds the table the kernel (native/eternity/kernel.py) reads: for each of the
nine frame classes of a cell (corner, side or inside, and which rim sides) and each (west,
north) colour pair, the list of tiles turned to fit, frame tiles kept apart from inside ones
by the class.  Without hints the first corner tile is placed top-left on a square board, in
the top row on a rectangle (the board's rotations map solutions onto each other:
:func:`~puzzlesat.domains.eternity.first_corner`).  A hinted cell gets a class of its own
whose one candidate is its hint, and hinted tiles are candidates nowhere else.

:class:`Search` runs the kernel (the module built ahead of time when there is one, else
numba's: native/aot.py) in slices from the empty board or from a :data:`Task` (a partial
board), and cuts what it has left into tasks for other processes (native/eternity/split.py).
"""

from __future__ import annotations

import math
import random
from array import array
from bisect import bisect_left
from collections import Counter

from puzzlesat.domains.eternity import GREY, Instance, Solution, first_corner, rotated
from puzzlesat.native import aot
from puzzlesat.native.eternity.arrays import State, Table, class_width, fill, zeros

COUNT_LIMIT = 2**62  # a count's limit of boards: more than any search can reach


# frame class of a cell from its rim sides as a bit pattern (N=1, E=2, S=4, W=8);
# -1 marks patterns no cell has (opposite sides both on the rim)
CLASS_OF_PATTERN = (0, 1, 2, 3, 4, -1, 5, -1, 6, 7, -1, -1, 8, -1, -1, -1)
CLASSES = 9


def cell_class(instance: Instance, cell: int) -> int:
    """The cell's frame class 0..8 (inside, four sides, four corners)."""
    return CLASS_OF_PATTERN[sum(1 << s for s in instance.frame_sides(cell))]


def look_class(look: tuple[int, ...]) -> int:
    """The frame class a tile turned to show ``look`` (N, E, S, W) fits: grey exactly on its rim sides; -1 for none."""
    return CLASS_OF_PATTERN[sum(1 << s for s in range(4) if look[s] == GREY)]


class Draws:
    """The random numbers that order the candidates: the standard library's Mersenne Twister
    (``numpy.random`` would do as well, and cost every solve ~6 ms of start-up to import, a
    twentieth of a whole 7x7 solve with the kernels built), seeded by a text naming the seed
    (None: from the system): :func:`~puzzlesat.domains.eternity.generate` builds a board from
    ``random.Random(seed)``, and a board must not be ordered by the draws that built it."""

    def __init__(self, seed: int | None) -> None:
        self._random = random.Random(None if seed is None else f"candidate order {seed}")

    def random(self, count: int) -> list[float]:
        """``count`` numbers in [0, 1)."""
        return [self._random.random() for _ in range(count)]


Row = tuple[int, int, int, int, int, int]  # class, west * C + north, tile, rotation, east, south


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
    fixes the first corner tile; ``corner`` names the corner tile it fixes instead of the first.

    Plain Python, no numpy: a solve with the kernels built ahead of time imports none (native/aot.py).
    """

    def __init__(
        self, instance: Instance, twins: bool = False, symmetry: bool = True, corner: int | None = None
    ) -> None:
        self.instance = instance
        self.colours = c = instance.colours
        classes = [cell_class(instance, cell) for cell in range(instance.cells)]
        present = set(classes)
        self.nclasses = CLASSES + len(instance.hints)
        hinted = {hint.tile for hint in instance.hints}
        fixed = first_corner(instance, corner) if symmetry else None
        allowed = [classes[cell] for cell in fixed[1]] if fixed is not None else []
        looks = [[rotated(colours, r) for r in range(4)] for colours in instance.tiles]
        self.rows: list[Row] = []
        for r in range(4):  # turn by turn, tile by tile: the order the draws follow
            for t, turns in enumerate(looks):
                look = turns[r]
                k = look_class(look)
                # a turn that looks like an earlier one adds nothing; a hinted tile lies on its cell only
                if look in turns[:r] or k not in present or t in hinted:
                    continue
                if fixed is not None:  # symmetry: the board's rotations map solutions onto each other
                    if t == fixed[0] and k not in allowed or len(allowed) == 1 and k == allowed[0] and t != fixed[0]:
                        continue
                north, east, south, west = look
                self.rows.append((k, west * c + north, t, r, east, south))
        for k, hint in enumerate(instance.hints):
            classes[hint.cell] = CLASSES + k
            north, east, south, west = rotated(instance.tiles[hint.tile], hint.rotation)
            self.rows.append((CLASSES + k, west * c + north, hint.tile, hint.rotation, east, south))
        self.classes = array("q", classes)
        # pieces: a tile's smallest turn; twins are the free tiles of a piece held by more than one
        smallest = [min(turns) for turns in looks]
        first_tile = {look: t for t, look in reversed(list(enumerate(smallest)))}
        self.piece = piece = [first_tile[look] for look in smallest]  # its piece's first tile
        free = [t not in hinted and (fixed is None or piece[t] != piece[fixed[0]]) for t in range(instance.cells)]
        sizes = Counter(piece[t] for t in range(instance.cells) if free[t])
        self.twin_tiles = [twins and free[t] and sizes[piece[t]] > 1 for t in range(instance.cells)]
        self.labelings = math.prod(math.factorial(m) for m in sizes.values() if m > 1) if twins else 1
        # for the colour-count check: each tile's slots class * C + north, gives[gives_off[t]:gives_off[t + 1]]
        slots = self.nclasses * c
        keys = sorted({row[2] * slots + row[0] * c + row[1] % c for row in self.rows})
        self.gives = array("q", (key % slots for key in keys))
        tiles = [key // slots for key in keys]
        self.gives_off = array("q", (bisect_left(tiles, t) for t in range(instance.cells + 1)))

    def table(self, rng: Draws) -> Table:
        """The kernel's :class:`Table`, every (class, key) list in a fresh random order.

        ``off[b]..off[b + 1]``, ``b = k * class_width(C) + key``, index the candidates of
        class ``k`` and key ``key`` in ``tile``, ``rot``, ``east``, ``south``.

        ``after[i]`` is the candidate to try once the subtree of candidate ``i`` is done:
        ``i + 1``, or with twins the first candidate past ``i``'s twins, which the order keeps
        next to each other in a list (one of them is tried; the others hold the same boards).
        """
        rows = self.rows
        draw = rng.random(len(rows))
        # twins in one list (same class, key, east and south) share a group, and its first draw
        group = [(row[0], row[1], row[4], row[5]) if self.twin_tiles[row[2]] else i for i, row in enumerate(rows)]
        first_draw: dict[object, float] = {}
        for g, x in zip(group, draw, strict=True):
            first_draw[g] = min(x, first_draw.get(g, 2.0))
        order = sorted(range(len(rows)), key=lambda i: (rows[i][0], rows[i][1], first_draw[group[i]], draw[i]))
        after = list(range(1, len(order) + 1))
        for n in range(len(order) - 2, -1, -1):  # past the last of a run of one group
            if group[order[n]] == group[order[n + 1]]:
                after[n] = after[n + 1]
        width = class_width(self.colours)
        flat = [rows[i][0] * width + rows[i][1] for i in order]
        off = array("q", (bisect_left(flat, b) for b in range(self.nclasses * width)))  # a class's last ends its lists
        tile = array("H", (rows[i][2] for i in order))  # unsigned: the kernel indexes ``used`` by it without a fix-up
        rot, east, south = (array("q", (rows[i][j] for i in order)) for j in (3, 4, 5))
        return Table(self.instance.cols, self.colours, self.classes, off, tile, rot, east, south, array("q", after),
                     self.gives_off, self.gives)  # fmt: skip


Task = tuple[array, int]  # (candidates on cells 0..p-1, first candidate to try on cell p; -1: all)


def load_kernels(bits: bool = False, replay_too: bool = False) -> float:
    """Load the kernels built ahead of time (native/aot.py), else compile them or load them
    from numba's cache: the count kernels on tile bitsets with ``bits``
    (native/eternity/count_kernel.py), else the search kernel, and with ``replay_too`` the
    kernel a task starts with (only the parallel searches start tasks); the seconds it took."""
    import time

    began = time.perf_counter()
    if aot.load("eternity") is None:
        from puzzlesat.native.eternity import count_kernel
        from puzzlesat.native.eternity import kernel as eternity_kernel
        from puzzlesat.native.first_dispatch import without_blas_probe

        with without_blas_probe():
            if bits:
                count_kernel.warm_up()
            else:
                eternity_kernel.warm_up(replay_too=replay_too)
    return max(time.perf_counter() - began, 1e-9)


class Search:
    """One search of the kernel, resumable call after call: from the empty board or from a :data:`Task`.

    ``check`` turns on the colour-count check (see the kernel).  The candidate order is drawn
    from ``rng``, or given as ``table`` (the parallel search hands one order to every worker).
    """

    kernel = "rowscan"  # what a count's stats say it ran on (:class:`CountSearch`: ``bitsets``)

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
        self.full_supply = zeros(lookup.nclasses * lookup.colours)
        for slot in lookup.gives:
            self.full_supply[slot] += 1
        self.state = State.empty(instance.cells, len(self.full_supply))
        self.state.supply[:] = self.full_supply
        self.floor = 0

    @property
    def found(self) -> int:
        """Boards completed since the search (or its task) started."""
        return self.state.found[0]

    @property
    def pruned(self) -> int:
        """Placements the colour-count check refused since the search (or its task) started."""
        return self.state.pruned[0]

    def run(self, budget: int, limit: int = 1, plain: bool = False) -> tuple[int, int]:
        """(kernel status, nodes) of at most ``budget`` more nodes, stopping at the ``limit``-th board.

        ``plain`` runs them in Python (native/eternity/plain.py; not with ``check``), with no
        numba import: the same nodes, and the kernel can go on from where it stopped.
        """
        if plain and not self.check:
            from puzzlesat.native.eternity.plain import search as plain_search

            return plain_search(self.table, self.state, max(1, budget), limit, self.floor)
        return aot.kernels("eternity").search(self.table, self.state, max(1, budget), limit, self.floor, self.check)

    def board(self) -> Solution:
        """The board the last FOUND stopped at."""
        return Solution(tuple((self.table.tile[i], self.table.rot[i]) for i in self.state.placed))

    def start(self, task: Task) -> None:
        """Set the search to run exactly the subtrees of ``task`` (its counts start at 0)."""
        prefix, first = task
        p = len(prefix)
        state = self.state
        fill(state.used, 0)
        state.supply[:] = self.full_supply
        fill(state.demand, 0)
        state.found[0] = state.pruned[0] = 0
        aot.kernels("eternity").replay(array("q", prefix), self.table, state, self.check)
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
        return state.choice[d] < table.off[table.classes[d] * class_width(colours) + west * colours + north + 1]

    def split(self) -> Task | None:
        """Give away the untried candidates of the shallowest cell that has some, as a task; None if none.

        This search keeps the subtree of the candidate placed there (its floor moves below that
        cell); the task holds the candidates after it, so the two share the search exactly.
        """
        placed, choice = self.state.placed, self.state.choice
        for d in range(self.floor, min(self.state.depth[0], self.instance.cells)):
            if self._untried(d):
                task = (placed[:d], choice[d])
                self.floor = d + 1
                return task
        return None

    def remaining(self) -> list[Task]:
        """Every task left of a search paused on BUDGET: the untried candidates of each cell, then the current cell."""
        depth, n = self.state.depth[0], self.instance.cells
        placed, choice = self.state.placed, self.state.choice
        tasks = [(placed[:d], choice[d]) for d in range(self.floor, min(depth, n)) if self._untried(d)]
        if self.floor <= depth < n:
            tasks.append((placed[:depth], choice[depth]))
        return tasks

"""Exact counts on boards of at most 64 tiles: :class:`CountSearch`, the row scan on tile bitsets.

It walks the tree :class:`~puzzlesat.native.eternity.search.Search` walks to exhaustion, node
for node (native/eternity/count_kernel.py says how), with the same calls (``start``, ``run``,
``split``, ``remaining``, ``board``), so a count and the parallel search (native/eternity/split.py)
take either.  A count takes this one when the board fits a machine word (64 tiles or fewer)
and the colour-count check is off (:func:`fits`).

A task is ``(rows on cells 0..p-1, first)``: ``first`` -1 opens cell p with all its free
candidates, a mask (0 or more) with those tiles only, :data:`PLACE_LAST` says the last row of
the prefix is a candidate this task places (one node: the other turn of a tile, given away).
"""

from __future__ import annotations

from array import array

from puzzlesat.core.kernel_status import EXHAUSTED
from puzzlesat.domains.eternity import Instance, Solution
from puzzlesat.native import aot
from puzzlesat.native.eternity.arrays import (
    ALT_SHIFT,
    FIELD,
    KEYS_AT,
    NORTH_MASK,
    NORTH_SHIFT,
    TILE_SHIFT,
    WEST_SHIFT,
    BitState,
    BitTable,
    class_width,
)
from puzzlesat.native.eternity.search import Lookup, Task

WORD = 64  # tiles a board may have for this search
PLACE_LAST = -2  # a task's ``first``: its prefix's last row is its own first node


def fits(instance: Instance, check: bool) -> bool:
    """True when a count of ``instance`` can run on tile bitsets: a word of tiles, no colour-count check."""
    return instance.cells <= WORD and not check


def bit_table(lookup: Lookup) -> BitTable:
    """The count kernel's :class:`BitTable` of the lookup's rows (row ``i`` is ``lookup.rows[i]``)."""
    rows, colours = lookup.rows, lookup.colours
    width = class_width(colours)
    if len(rows) > FIELD or colours > NORTH_MASK // 2:  # never with 64 tiles: 2,304 rows, 257 colours
        raise ValueError(f"{len(rows)} rows of {colours} colours do not fit the count kernel's words")
    nxt = [-1] * len(rows)
    last: dict[tuple[int, int, int], int] = {}
    blocks: dict[tuple[int, int], int] = {}  # (class, key): its block's index
    for i, (k, key, tile, _, _, _) in enumerate(rows):
        if (k, key, tile) in last:  # the same tile in another turn: tried after the first
            nxt[last[k, key, tile]] = i
        blocks.setdefault((k, key), len(blocks))
        last[k, key, tile] = i
    words = [
        i | tile << TILE_SHIFT | (nxt[i] + 1) << ALT_SHIFT | 2 * south << NORTH_SHIFT | 2 * east * colours << WEST_SHIFT
        for i, (_, _, tile, _, east, south) in enumerate(rows)
    ]
    pack = array("Q", words) + array("Q", [0]) * (len(blocks) * WORD)
    tab = array("Q", [0]) * (KEYS_AT + 2 * lookup.nclasses * width)
    for i, (k, key, tile, _, _, _) in enumerate(rows):
        at = KEYS_AT + 2 * (k * width + key)
        block = len(rows) + blocks[k, key] * WORD
        tab[at + 1] = block
        if not tab[at] >> tile & 1:  # the tile's first row in this key
            tab[at] |= 1 << tile
            pack[block + tile] = words[i]
    pieces: dict[int, int] = {}
    for tile, twin in enumerate(lookup.twin_tiles):
        if twin:
            pieces[lookup.piece[tile]] = pieces.get(lookup.piece[tile], 0) | 1 << tile
    for tile, twin in enumerate(lookup.twin_tiles):
        tab[tile] = pieces[lookup.piece[tile]] if twin else 1 << tile
    base = array("Q", (KEYS_AT + 2 * k * width for k in lookup.classes))
    return BitTable(lookup.instance.cols, tab, pack, base)


def next_turn(word: int) -> int:
    """The row tried after the row of ``word`` (the same tile in its next turn in the key), -1: none."""
    return (word >> ALT_SHIFT & FIELD) - 1


class CountSearch:
    """One count on tile bitsets, resumable call after call: from the empty board or from a task."""

    kernel = "bitsets"  # what a count's stats say it ran on
    check = 0  # the colour-count check is never on here (:func:`fits`)
    pruned = 0

    def __init__(self, instance: Instance, lookup: Lookup, table: BitTable | None = None) -> None:
        self.instance = instance
        self.rows = lookup.rows
        self.table = bit_table(lookup) if table is None else table
        self.labelings = lookup.labelings
        self.state = BitState.empty(instance.cells)
        self.floor = 0
        self._pending = 0  # nodes of the task's start, reported by the next run
        self._complete = False  # the task is one whole board
        self.start((array("q"), -1))

    @property
    def found(self) -> int:
        """Boards completed since the search (or its task) started."""
        return self.state.found[0]

    def run(self, budget: int, limit: int = 1, plain: bool = False) -> tuple[int, int]:
        """(kernel status, nodes) of at most ``budget`` more nodes, stopping at the ``limit``-th board."""
        pending, self._pending = self._pending, 0
        if self._complete:
            return EXHAUSTED, pending
        status, nodes = aot.kernels("eternity").count(
            self.table, self.state, max(1, budget - pending), limit, self.floor
        )
        return status, nodes + pending

    def placed(self, depth: int) -> array:
        """The rows on cells ``0..depth-1``."""
        cells = self.state.cells
        return array("q", (cells[3 * d + 1] & FIELD for d in range(depth)))

    def board(self) -> Solution:
        """The board the last FOUND stopped at."""
        rows = self.placed(self.instance.cells)
        return Solution(tuple((self.rows[i][2], self.rows[i][3]) for i in rows))

    def start(self, task: Task) -> None:
        """Set the search to run exactly the subtrees of ``task`` (its counts start at 0)."""
        prefix, first = task
        prefix = array("q", prefix)
        p, state = len(prefix), self.state
        state.found[0] = 0
        aot.kernels("eternity").count_replay(prefix, self.table, state)
        self._pending = int(first == PLACE_LAST)
        self._complete = p == self.instance.cells
        if self._complete:  # a whole board given away as its last turn
            state.found[0] = 1
        elif first >= 0:
            state.cells[3 * p] = first
        self.floor = p

    def _pieces(self, d: int) -> list[Task]:
        """The untried candidates of cell ``d`` as tasks (the other turns of the tile tried first)."""
        cells, tasks = self.state.cells, []
        alt = next_turn(cells[3 * d + 1])
        while alt >= 0:
            tasks.append((array("q", [*self.placed(d), alt]), PLACE_LAST))
            alt = next_turn(self.table.pack[alt])
        if cells[3 * d]:
            tasks.append((self.placed(d), cells[3 * d]))
        return tasks

    def split(self) -> Task | None:
        """Give away the untried candidates of the shallowest cell that has some, as a task; None if none.

        A cell with a tile's other turn pending gives that turn alone (its other candidates stay).
        """
        cells, n = self.state.cells, self.instance.cells
        for d in range(self.floor, min(self.state.depth[0], n)):
            word = cells[3 * d + 1]
            alt = next_turn(word)
            if alt >= 0:  # the cell's row now says the turn after the one given away is next
                cells[3 * d + 1] = word & ~(FIELD << ALT_SHIFT) | self.table.pack[alt] & FIELD << ALT_SHIFT
                return array("q", [*self.placed(d), alt]), PLACE_LAST
            if cells[3 * d]:
                task = (self.placed(d), cells[3 * d])
                cells[3 * d] = 0
                return task
        return None

    def remaining(self) -> list[Task]:
        """Every task left of a search paused on BUDGET: the untried candidates of each cell to the current one."""
        depth = self.state.depth[0]
        if self._complete or depth < self.floor:
            return []
        return [task for d in range(self.floor, min(depth + 1, self.instance.cells)) for task in self._pieces(d)]

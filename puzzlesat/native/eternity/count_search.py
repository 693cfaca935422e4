"""Exact counts on boards of at most 64 tiles: :class:`CountSearch`, the row scan on tile bitsets.

It walks the tree :class:`~puzzlesat.native.eternity.search.Search` walks to exhaustion, node
for node (native/eternity/count_kernel.py says how), with the same calls (``start``, ``run``,
``split``, ``remaining``, ``board``), so a count and the parallel search (native/eternity/split.py)
take either.  A count takes this one when the board fits a machine word (64 tiles or fewer)
and the colour-count check is off (:func:`fits`).

A task is ``(rows on cells 0..p-1, first)``: ``first`` -1 opens cell p with all its free
candidates, a mask (0 or more) with those tiles only.  Each entry of the kernel's stack is one
(a row placed, counted, and the candidates of the next cell, not yet), so what a search gives
away is exactly what it has not counted.
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
    bit = [WORD - 1 - tile for tile in range(len(lookup.twin_tiles))]  # the tiles' bits, the first tile's highest
    words = [
        i | b << TILE_SHIFT | (nxt[i] + 1) << ALT_SHIFT | 2 * south << NORTH_SHIFT | 2 * east * colours << WEST_SHIFT
        for i, b, east, south in ((i, bit[row[2]], row[4], row[5]) for i, row in enumerate(rows))
    ]
    pack = array("Q", words) + array("Q", [0]) * (len(blocks) * WORD)
    tab = array("Q", [0]) * (KEYS_AT + 2 * lookup.nclasses * width)
    for i, (k, key, tile, _, _, _) in enumerate(rows):
        at = KEYS_AT + 2 * (k * width + key)
        block = len(rows) + blocks[k, key] * WORD
        tab[at + 1] = block
        if not tab[at] >> bit[tile] & 1:  # the tile's first row in this key
            tab[at] |= 1 << bit[tile]
            pack[block + bit[tile]] = words[i]
    pieces: dict[int, int] = {}
    for tile, twin in enumerate(lookup.twin_tiles):
        if twin:
            pieces[lookup.piece[tile]] = pieces.get(lookup.piece[tile], 0) | 1 << bit[tile]
    for tile, twin in enumerate(lookup.twin_tiles):
        tab[bit[tile]] = pieces[lookup.piece[tile]] if twin else 1 << bit[tile]
    base = array("Q", (KEYS_AT + 2 * k * width for k in lookup.classes))
    return BitTable(lookup.instance.cols, tab, pack, base)


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
        self._complete = False  # the task is one whole board
        self.start((array("q"), -1))

    @property
    def found(self) -> int:
        """Boards completed since the search (or its task) started."""
        return self.state.found[0]

    def run(self, budget: int, limit: int = 1, plain: bool = False) -> tuple[int, int]:
        """(kernel status, nodes) of about ``budget`` more nodes (at least, but for the search's
        end; a few more: a cell's candidates are counted together), stopping at the ``limit``-th board."""
        if self._complete:
            return EXHAUSTED, 0
        return aot.kernels("eternity").count(self.table, self.state, max(1, budget), limit)

    def placed(self, depth: int) -> array:
        """The rows on cells ``0..depth-1``."""
        return array("q", (word & FIELD for word in self.state.placed[:depth]))

    def board(self) -> Solution:
        """The board the last FOUND stopped at."""
        rows = self.placed(self.instance.cells)
        return Solution(tuple((self.rows[i][2], self.rows[i][3]) for i in rows))

    def start(self, task: Task) -> None:
        """Set the search to run exactly the subtrees of ``task`` (its counts start at 0)."""
        prefix, first = task
        prefix = array("q", prefix)
        state = self.state
        aot.kernels("eternity").count_replay(prefix, self.table, state)
        self._complete = len(prefix) == len(self.table.base)
        if self._complete:  # a whole board given away (or a whole cut tree's partial board)
            state.found[0] = 1
        elif first >= 0:
            state.stack[1] = first

    def _task(self, entry: int) -> Task:
        """The stack's entry ``entry`` as a task: its row's cell and those before, and its candidates."""
        stack = self.state.stack
        word, cell = stack[3 * entry], stack[3 * entry + 2] & 0xFF
        prefix = array("q", [*self.placed(cell - 1), word & FIELD]) if cell else array("q")
        return prefix, stack[3 * entry + 1]

    def split(self) -> Task | None:
        """Give away the shallowest entry of the stack as a task (the biggest piece) when another
        is left; None if not."""
        ends = self.state.ends
        if self._complete or ends[1] - ends[0] < 2:
            return None
        task = self._task(ends[0])
        ends[0] += 1
        return task

    def remaining(self) -> list[Task]:
        """Every task left of a search paused on BUDGET or FOUND: the entries of its stack."""
        low, top = self.state.ends
        return [] if self._complete else [self._task(entry) for entry in range(low, top)]

"""The arrays the edge-matching kernels take, in bundles (native/eternity/kernel.py, native/eternity/score_kernel.py).

numba takes a NamedTuple of arrays as one argument, so the wrappers (native/eternity/search.py,
native/eternity/score.py) build these once per search and every call names a bundle or two
instead of some twenty arrays.  A kernel reads the arrays out of them once a call: a bundle
handed on at every node would cost a reference count per array.

The exact search's bundles (:class:`Table`, :class:`State`) hold the standard library's
``array.array``, typecode ``q`` (int64) unless said otherwise, so that a solve with the
kernels built ahead of time never imports numpy (native/aot.py); the JIT reads them through
numpy views of the same memory (:func:`numpy_views`).  The row scan's (:class:`Rows`,
:class:`ScanState`) hold numpy arrays.

numba pickles a bundle's class, by module and name, into the cache index of each kernel that
takes it, and an index naming a class that is gone fails the call instead of recompiling
(numba issue 6018): moving or renaming one of these classes calls for clearing numba's caches
of those kernels (the ``*.nbi`` files).
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:
    import numpy as np

Bundle = TypeVar("Bundle", bound=tuple[Any, ...])


def zeros(count: int, typecode: str = "q") -> array:
    """An array of ``count`` zeros."""
    return array(typecode, bytes(count * array(typecode).itemsize))


def fill(values: array, value: int) -> None:
    """Set every item of ``values`` to ``value``, in place."""
    values[:] = array(values.typecode, [value]) * len(values)


def class_width(colours: int) -> int:
    """The entries of :attr:`Table.off` per frame class: where the list of each (west, north)
    key starts, and where the last one ends (the kernel computes the same)."""
    return colours * colours + 1


def numpy_views(bundle: Bundle) -> Bundle:
    """The same bundle with numpy arrays over its ``array.array`` items' memory (what numba's JIT takes)."""
    import numpy as np

    return type(bundle)(*(np.frombuffer(a, dtype=a.typecode) if isinstance(a, array) else a for a in bundle))


class Table(NamedTuple):
    """What the kernel reads and never changes: the board and one drawn order of the candidates.

    ``off``, ``tile``, ``rot``, ``east``, ``south``, ``after``: the candidates in that order
    (:meth:`~puzzlesat.native.eternity.search.Lookup.table`), ``off`` flat (the lists of class
    ``k`` start at ``k * class_width(colours)``), ``tile`` as uint16 (typecode ``H``: the kernel
    indexes by it unsigned, without numba's negative-index fix-up); ``gives_off``, ``gives``:
    each tile's slots for the colour-count check.
    """

    cols: int
    colours: int
    classes: array
    off: array
    tile: array
    rot: array
    east: array
    south: array
    after: array
    gives_off: array
    gives: array


class State(NamedTuple):
    """A search's state, which the kernel updates in place (native/eternity/kernel.py)."""

    used: array
    choice: array
    east: array
    south: array
    placed: array
    depth: array
    found: array
    supply: array
    demand: array
    pruned: array

    @classmethod
    def empty(cls, cells: int, slots: int) -> State:
        """The state of the empty board, its colour counts zero."""
        used, east, south, placed, depth, found, supply, demand, pruned = (
            zeros(n) for n in (cells, cells, cells, cells, 1, 1, slots, slots, 1)
        )
        return cls(used, array("q", [-1]) * cells, east, south, placed, depth, found, supply, demand, pruned)


# A row of the count kernel as one word (:class:`BitTable`): its fields' shifts and widths.
ROW_BITS = 12  # the row's index (bits 0-11)
TILE_SHIFT = 12  # its tile's bit (6 bits: :class:`BitTable`)
ALT_SHIFT = 18  # the tile's next row in the same key, plus one (0: none; 12 bits)
NORTH_SHIFT = 30  # what it gives the key of the cell below: 2 * its south colour (11 bits)
WEST_SHIFT = 41  # and the key of the cell east of it: 2 * its east colour * the colours (23 bits)
FIELD = 0xFFF  # the mask of a 12-bit field
NORTH_MASK = 0x7FF  # and of the north field
KEYS_AT = 64  # where the keys start in ``BitTable.tab``: after the tiles' twin sets
STACKED = 256  # entries a cell may stack: the rows of one key, at most 64 tiles in 4 turns


class BitTable(NamedTuple):
    """What the count kernel reads and never changes (native/eternity/count_kernel.py): the board
    and the candidates of each (frame class, west, north) key as a set of tiles, one bit a tile:
    tile ``t`` is bit ``63 - t``, so that the kernel, which stacks a cell's candidates from the
    lowest bit up, takes them off in the order of the tiles' ids.

    Three uint64 arrays (typecode ``Q``), so that the kernel's loop keeps few pointers and no
    index is signed: ``tab`` per bit (``tab[bit]``, 0-63) the tiles tried in its tile's place
    (itself and its identical pieces), then per key two words, its tiles (``tab[k]``) and where
    their rows are in ``pack`` (``tab[k + 1]``), ``k = KEYS_AT + 2 * (class * width + west *
    colours + north)``; ``pack`` per row its word (``row | bit << 12 | (next + 1) << 18 | 2 *
    south << 30 | 2 * east * colours << 41``: the fields above, ``bit`` its tile's; ``next`` the
    tile's next row in the same key, a tile can fit one key in two turns), then per key some row
    has a block of 64 words, the word of the tile's first row there by bit; ``base`` per cell
    ``KEYS_AT + 2 * class * class_width(colours)``.
    """

    cols: int
    tab: array
    pack: array
    base: array


class BitState(NamedTuple):
    """A count's state, which the count kernel updates in place (native/eternity/count_kernel.py),
    uint64 but ``found``: ``placed`` per cell the word of the row on it, ``before`` per cell (and
    one past the last) the tiles on the cells before it (both hold for the cells up to the
    deepest entry's), ``stack`` its
    entries (three words each: a row's word, the free candidates of the next cell, and that cell
    with where the rows of its key are in ``pack``, ``cell | rows << 8``), ``ends`` where the
    search's entries start and end on it (the entries below ``ends[0]`` were given away),
    ``found[0]`` (boards completed)."""

    placed: array
    before: array
    stack: array
    ends: array
    found: array

    @classmethod
    def empty(cls, cells: int) -> BitState:
        """The state of the empty board, nothing stacked."""
        stack = zeros(3 * (STACKED * cells + 1), "Q")  # STACKED entries a cell, and a task's first
        return cls(zeros(cells, "Q"), zeros(cells + 1, "Q"), stack, zeros(2, "Q"), zeros(1))


class Rows(NamedTuple):
    """What the row scan reads and never changes: the fill order (the depth of each depth's west
    and north neighbour, -1 across the rim), the frame class of the cell of each depth, the
    candidate rows (a turned tile, uint16, and the colours it shows, one index for these five
    arrays and ``miss``), and the hints ahead: ``miss`` the sides of a hint a row misses on the
    cell west or north of it (uint8, 0 elsewhere), ``ahead`` per depth the depth of the hint its
    cell meets (-1: none); ``rare`` per tile the sides it shows of the colours to use up early
    (all 0: none)."""

    west_of: np.ndarray
    north_of: np.ndarray
    colours: int
    classes: np.ndarray
    tile: np.ndarray
    north: np.ndarray
    east: np.ndarray
    south: np.ndarray
    west: np.ndarray
    miss: np.ndarray
    ahead: np.ndarray
    rare: np.ndarray


class ScanState(NamedTuple):
    """One row scan's candidate lists, schedule and search state (the kernel updates it in place;
    native/eternity/score_kernel.py says what each array holds).  Rows are uint32 and tiles
    uint16: numba indexes with unsigned numbers without its fix-up for negative ones."""

    off: np.ndarray
    order: np.ndarray
    tiles: np.ndarray
    sides: np.ndarray
    allowed: np.ndarray
    used: np.ndarray
    placed: np.ndarray
    phase: np.ndarray
    choice: np.ndarray
    limit: np.ndarray
    errors: np.ndarray
    depth: np.ndarray
    best_placed: np.ndarray
    deep: np.ndarray
    deep_placed: np.ndarray
    need: np.ndarray
    rare_sum: np.ndarray

    @classmethod
    def start(
        cls,
        lists: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        allowed: np.ndarray,
        need: np.ndarray | None = None,
    ) -> ScanState:
        """The state of the empty board: ``lists`` (off, order, tiles, sides), the schedule and
        the rare colours' minimum per depth (None: none)."""
        import numpy as np

        cells = len(allowed)
        used = np.zeros(cells, dtype=np.uint8)
        placed, best_placed = np.zeros(cells, dtype=np.uint32), np.zeros(cells, dtype=np.uint32)
        phase, limit = np.zeros(cells, dtype=np.int64), np.zeros(cells, dtype=np.int64)
        choice = np.full(cells, -1, dtype=np.int64)
        errors, depth = np.zeros(cells + 1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        deep, deep_placed = np.zeros(1, dtype=np.int64), np.zeros(cells, dtype=np.uint32)
        need = np.zeros(cells, dtype=np.int64) if need is None else need
        rare_sum = np.zeros(cells + 1, dtype=np.int64)
        return cls(
            *lists,
            allowed,
            used,
            placed,
            phase,
            choice,
            limit,
            errors,
            depth,
            best_placed,
            deep,
            deep_placed,
            need,
            rare_sum,
        )

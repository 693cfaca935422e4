"""The row-scan kernels as C functions: what ``puzzlesat kernels build`` compiles, and how a solve calls them.

A solve with the kernels built ahead of time loads them with ``ctypes`` and hands them the
address and length of every ``array.array`` of a :class:`~puzzlesat.native.eternity.arrays.Table`
and a :class:`~puzzlesat.native.eternity.arrays.State`: it imports neither numba nor numpy
(numpy's import alone was a third of a whole 7x7 solve).  :func:`wrappers` declares the C
functions as numba ``cfunc`` callbacks that view those addresses as arrays (``numba.carray``), put
the bundles together again and call the kernels of native/eternity/kernel.py, compiled into
them; native/aot.py turns them into a shared library.  :class:`Built` calls that library and
:class:`Jit` numba's JIT, through numpy views of the same arrays: the same calls, the same nodes.

The C functions (every argument 64 bits: an integer, or the address of an array and then its length)::

    int64 puzzlesat_eternity_search(TABLE, STATE, budget, limit, floor, check, int64 *nodes)
    int64 puzzlesat_eternity_replay(int64 *prefix, length, TABLE, STATE, check)
    int64 puzzlesat_eternity_count(BITS, COUNT, budget, limit, int64 *nodes)
    int64 puzzlesat_eternity_count_replay(int64 *prefix, length, BITS, COUNT)

    TABLE = cols, colours, classes, cells, off, offs, uint16 *tile, rows, rot, east, south,
            after, gives_off, tiles + 1, gives, gives_length
    STATE = used, choice, east, south, placed, depth, found, pruned, supply, demand, slots
    BITS  = cols, uint64 *tab, tab_length, uint64 *pack, pack_length, uint64 *base, cells
    COUNT = uint64 *placed, uint64 *before, uint64 *stack, uint64 *ends, found

``search`` and ``count`` return the kernel status and write the nodes; the replays return 0.
(``count`` is the count kernel of native/eternity/count_kernel.py, on a
:class:`~puzzlesat.native.eternity.arrays.BitTable` and a :class:`~puzzlesat.native.eternity.arrays.BitState`.)
"""

from __future__ import annotations

import ctypes
from array import array
from typing import Any

from puzzlesat.native.eternity.arrays import STACKED, BitState, BitTable, State, Table, numpy_views

TABLE_ARGS = 16  # the C arguments a Table takes, and a State:
STATE_ARGS = 11
BITS_ARGS = 7  # and a BitTable, and a BitState:
COUNT_ARGS = 5


def _address(values: array) -> int:
    return values.buffer_info()[0]


def table_args(t: Table) -> tuple[int, ...]:
    """TABLE, as the C functions take it (module docstring)."""
    a = _address
    return (
        t.cols, t.colours, a(t.classes), len(t.classes), a(t.off), len(t.off), a(t.tile), len(t.tile),
        a(t.rot), a(t.east), a(t.south), a(t.after), a(t.gives_off), len(t.gives_off), a(t.gives), len(t.gives),
    )  # fmt: skip


def state_args(s: State) -> tuple[int, ...]:
    """STATE, as the C functions take it (module docstring)."""
    a = _address
    return (
        a(s.used), a(s.choice), a(s.east), a(s.south), a(s.placed),
        a(s.depth), a(s.found), a(s.pruned), a(s.supply), a(s.demand), len(s.supply),
    )  # fmt: skip


def bits_args(t: BitTable) -> tuple[int, ...]:
    """BITS, as the C functions take it (module docstring)."""
    a = _address
    return t.cols, a(t.tab), len(t.tab), a(t.pack), len(t.pack), a(t.base), len(t.base)


def count_args(s: BitState) -> tuple[int, ...]:
    """COUNT, as the C functions take it (module docstring)."""
    return tuple(map(_address, s))


class Built:
    """The kernels of a library built by native/aot.py, called through ``ctypes``."""

    def __init__(self, library: ctypes.CDLL) -> None:
        self._search = library.puzzlesat_eternity_search
        self._replay = library.puzzlesat_eternity_replay
        word = ctypes.c_int64
        self._search.argtypes = [word] * (TABLE_ARGS + STATE_ARGS + 5)
        self._replay.argtypes = [word] * (2 + TABLE_ARGS + STATE_ARGS + 1)
        self._search.restype = self._replay.restype = word
        self._count = library.puzzlesat_eternity_count
        self._count_replay = library.puzzlesat_eternity_count_replay
        self._count.argtypes = [word] * (BITS_ARGS + COUNT_ARGS + 3)
        self._count_replay.argtypes = [word] * (2 + BITS_ARGS + COUNT_ARGS)
        self._count.restype = self._count_replay.restype = word
        self._nodes = array("q", [0])

    def search(self, t: Table, s: State, budget: int, limit: int, floor: int, check: int) -> tuple[int, int]:
        """The kernel's ``search`` (native/eternity/kernel.py): (status, nodes)."""
        status = self._search(*table_args(t), *state_args(s), budget, limit, floor, check, _address(self._nodes))
        return status, self._nodes[0]

    def replay(self, prefix: array, t: Table, s: State, check: int) -> None:
        """The kernel's ``replay``: place ``prefix`` on the empty board."""
        self._replay(_address(prefix), len(prefix), *table_args(t), *state_args(s), check)

    def count(self, t: BitTable, s: BitState, budget: int, limit: int) -> tuple[int, int]:
        """The count kernel's ``count`` (native/eternity/count_kernel.py): (status, nodes)."""
        status = self._count(*bits_args(t), *count_args(s), budget, limit, _address(self._nodes))
        return status, self._nodes[0]

    def count_replay(self, prefix: array, t: BitTable, s: BitState) -> None:
        """The count kernel's ``replay``: place ``prefix`` on the empty board."""
        self._count_replay(_address(prefix), len(prefix), *bits_args(t), *count_args(s))


class Jit:
    """The same calls on numba's JIT (compiled, or loaded from numba's cache, at the first)."""

    def __init__(self) -> None:
        from puzzlesat.native.eternity import kernel as eternity_kernel

        self._kernel = eternity_kernel

    def search(self, t: Table, s: State, budget: int, limit: int, floor: int, check: int) -> tuple[int, int]:
        status, nodes = self._kernel.search(numpy_views(t), numpy_views(s), budget, limit, floor, check)
        return int(status), int(nodes)

    def replay(self, prefix: array, t: Table, s: State, check: int) -> None:
        import numpy as np

        self._kernel.replay(np.frombuffer(prefix, dtype=np.int64), numpy_views(t), numpy_views(s), check)

    def count(self, t: BitTable, s: BitState, budget: int, limit: int) -> tuple[int, int]:
        from puzzlesat.native.eternity import count_kernel

        status, nodes = count_kernel.count(numpy_views(t), numpy_views(s), budget, limit)
        return int(status), int(nodes)

    def count_replay(self, prefix: array, t: BitTable, s: BitState) -> None:
        import numpy as np

        from puzzlesat.native.eternity import count_kernel

        count_kernel.replay(np.frombuffer(prefix, dtype=np.int64), numpy_views(t), numpy_views(s))


def wrappers() -> dict[str, Any]:
    """The C functions (module docstring) as numba ``cfunc`` callbacks, by the name that follows
    ``puzzlesat_eternity_``; compiling them compiles the kernels into them."""
    from numba import carray, cfunc, njit, types

    from puzzlesat.native.eternity import count_kernel, kernel

    word, address, tiles = types.int64, types.CPointer(types.int64), types.CPointer(types.uint16)
    words = types.CPointer(types.uint64)
    table = [word, word, address, word, address, word, tiles, word, *[address] * 5, word, address, word]
    state = [*[address] * 10, word]
    bits = [word, words, word, words, word, words, word]
    counting = [words, words, words, words, address]
    assert (len(table), len(state), len(bits), len(counting)) == (TABLE_ARGS, STATE_ARGS, BITS_ARGS, COUNT_ARGS)

    @njit(inline="always")
    def bundles(
        cols, colours, classes, cells, off, offs, tile, rows, rot, east, south, after, gives_off, tiles1, gives, ngives,
        used, choice, s_east, s_south, placed, depth, found, pruned, supply, demand, slots,
    ):  # pragma: no cover - compiled  # fmt: skip
        """The Table and the State over TABLE and STATE's arrays."""
        t = Table(
            cols, colours, carray(classes, cells), carray(off, offs), carray(tile, rows), carray(rot, rows),
            carray(east, rows), carray(south, rows), carray(after, rows), carray(gives_off, tiles1),
            carray(gives, ngives),
        )  # fmt: skip
        s = State(
            carray(used, cells), carray(choice, cells), carray(s_east, cells), carray(s_south, cells),
            carray(placed, cells), carray(depth, 1), carray(found, 1), carray(supply, slots),
            carray(demand, slots), carray(pruned, 1),
        )  # fmt: skip
        return t, s

    @cfunc(word(*table, *state, word, word, word, word, address))
    def search(
        cols, colours, classes, cells, off, offs, tile, rows, rot, east, south, after, gives_off, tiles1, gives, ngives,
        used, choice, s_east, s_south, placed, depth, found, pruned, supply, demand, slots,
        budget, limit, floor, check, nodes,
    ):  # pragma: no cover - compiled  # fmt: skip
        t, s = bundles(
            cols, colours, classes, cells, off, offs, tile, rows, rot, east, south, after, gives_off, tiles1, gives,
            ngives, used, choice, s_east, s_south, placed, depth, found, pruned, supply, demand, slots,
        )  # fmt: skip
        status, done = kernel.search(t, s, budget, limit, floor, check)
        nodes[0] = done
        return status

    @cfunc(word(address, word, *table, *state, word))
    def replay(
        prefix, length,
        cols, colours, classes, cells, off, offs, tile, rows, rot, east, south, after, gives_off, tiles1, gives, ngives,
        used, choice, s_east, s_south, placed, depth, found, pruned, supply, demand, slots,
        check,
    ):  # pragma: no cover - compiled  # fmt: skip
        t, s = bundles(
            cols, colours, classes, cells, off, offs, tile, rows, rot, east, south, after, gives_off, tiles1, gives,
            ngives, used, choice, s_east, s_south, placed, depth, found, pruned, supply, demand, slots,
        )  # fmt: skip
        kernel.replay(carray(prefix, length), t, s, check)
        return 0

    @njit(inline="always")
    def bit_bundles(
        cols, tab, ntab, pack, npack, base, cells, placed, before, stack, ends, found
    ):  # pragma: no cover - compiled
        """The BitTable and the BitState over BITS and COUNT's arrays."""
        t = BitTable(cols, carray(tab, ntab), carray(pack, npack), carray(base, cells))
        s = BitState(
            carray(placed, cells), carray(before, cells + 1), carray(stack, 3 * (STACKED * cells + 1)), carray(ends, 2),
            carray(found, 1),
        )  # fmt: skip
        return t, s

    @cfunc(word(*bits, *counting, word, word, address))
    def count(
        cols, tab, ntab, pack, npack, base, cells, placed, before, stack, ends, found, budget, limit, nodes,
    ):  # pragma: no cover - compiled  # fmt: skip
        t, s = bit_bundles(cols, tab, ntab, pack, npack, base, cells, placed, before, stack, ends, found)
        status, done = count_kernel.count(t, s, budget, limit)
        nodes[0] = done
        return status

    @cfunc(word(address, word, *bits, *counting))
    def count_replay(
        prefix, length, cols, tab, ntab, pack, npack, base, cells, placed, before, stack, ends, found,
    ):  # pragma: no cover - compiled  # fmt: skip
        t, s = bit_bundles(cols, tab, ntab, pack, npack, base, cells, placed, before, stack, ends, found)
        count_kernel.replay(carray(prefix, length), t, s)
        return 0

    return {"search": search, "replay": replay, "count": count, "count_replay": count_replay}

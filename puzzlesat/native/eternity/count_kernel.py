"""The numba kernel of exact counts on boards of at most 64 tiles: the row scan on tile bitsets.

The same tree as native/eternity/kernel.py, node for node (a count visits every node whatever
the order), walked with one machine word: the tiles on the board are the bits of ``used``, and
the candidates of each (frame class, west, north) key the bits of a word of the table, so the
free candidates of a cell are one AND, computed once when the scan reaches the cell, and each
next one is its lowest bit (a count-trailing-zeros), never a tile looked at and skipped because
it is on the board.  Tiles are tried in the order of their ids, not in a drawn order: the nodes
and boards of a whole tree do not depend on it.

Everything a row gives the search is one word (its row, tile, next turn, and the parts of the
keys of the cells east of it and below it: :class:`~puzzlesat.native.eternity.arrays.BitTable`),
a depth's state three words side by side, and every index is unsigned: the loop keeps its
pointers and counters in registers, loads one word a candidate from the rows and one from the
keys, and numba adds no fix-up for negative indices.  This layout made the kernel 1.4x faster
than the same loop over ten arrays (benchmarks/eternity_exact.py, docs/eternity.md).

Identical pieces (``twins``) are tried once: choosing a tile takes its twins out of the cell's
candidates.  A tile that fits one key in two turns (a tile with three sides of one colour) has
its second row tried right after the first (the word's ``next`` field).

A search may start below the root (a task of the parallel search): cells ``0..floor-1`` are
already placed (:func:`replay`) and the search is exhausted when it backtracks past ``floor``.
Each completed board adds one to ``found[0]``; the search stops at the ``limit``-th.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.native.eternity.arrays import ALT_SHIFT, FIELD, NORTH_MASK, NORTH_SHIFT, TILE_SHIFT, WEST_SHIFT

U = np.uint64


@njit(cache=True)
def count(t, s, budget, limit, floor):  # pragma: no cover - compiled
    """Depth-first row scan to exhaustion, resumable; ``t`` a
    :class:`~puzzlesat.native.eternity.arrays.BitTable`, ``s`` a
    :class:`~puzzlesat.native.eternity.arrays.BitState` (updated in place).

    The candidates of a cell are tried in one loop that looks at the next cell's candidates
    before going there: a tile that leaves the next cell none is a node (placed, and taken off
    at once) that never touches the state, and the scan stays on the cell.

    Returns:
        (status, nodes): FOUND with the ``limit``-th board in ``cells`` (its last tile not in
        ``used``: the search goes on from it); EXHAUSTED when the search below the starting
        state is done; BUDGET when ``budget`` nodes were placed (call again to go on).
    """
    tab, pack, cb, st = t.tab, t.pack, t.base, s.cells
    n, cols, low = U(cb.shape[0]), U(t.cols), U(floor)
    one, zero, three, field, six = U(1), U(0), U(3), U(FIELD), U(63)
    twins = False  # some tile has identical pieces to take out with it
    for b in range(64):
        twins |= tab[b] & ~(one << U(b)) != zero
    used = s.used[0]
    found = s.found[0]
    d = U(s.depth[0])
    nodes = 0
    status = EXHAUSTED
    i = three * d
    r, p, row_base = st[i], st[i + one], st[i + U(2)]  # the cell's candidates left, its row tried last
    a = (p >> U(ALT_SHIFT)) & field  # that row's next turn, plus one: tried next
    while True:
        leaf = d + one == n
        base = zero  # the next cell's (class, west = 0, north) key
        if not leaf:
            base = cb[d + one]
            if d + one >= cols:
                base += (st[three * (d + one - cols) + one] >> U(NORTH_SHIFT)) & U(NORTH_MASK)
        down = False
        while True:
            if a != zero:  # the other turn of the tile just tried
                p = pack[a - one]
            elif r == zero:
                break
            else:
                b = U(trailing_zeros(r))
                r &= r - one  # not ``r &= ~tab[b]`` without twins: no load between a bit and the next
                if twins:
                    r &= ~tab[b]
                p = pack[row_base + b]
            a = (p >> U(ALT_SHIFT)) & field
            nodes += 1
            if leaf:  # a board: counted, its last tile never put in ``used``
                found += 1
                if found >= limit:
                    status = FOUND
                    break
            else:
                k = base + (p >> U(WEST_SHIFT))
                bit = one << ((p >> U(TILE_SHIFT)) & six)
                m = tab[k] & ~(used | bit)
                if m != zero:  # the next cell has candidates: go there
                    i = three * d
                    st[i], st[i + one] = r, p
                    used |= bit
                    row_base = tab[k + one]
                    d += one
                    st[i + U(5)] = row_base
                    r, p, a = m, zero, zero
                    down = True
                    break
            if nodes >= budget:
                status = BUDGET
                break
        if down and nodes >= budget:
            status = BUDGET
        if status != EXHAUSTED:  # paused: the cell's candidates left, and its row tried last
            i = three * d
            st[i], st[i + one] = r, p
            depth = np.int64(d)
            break
        if down:
            continue
        if d == low:  # nothing left here, and the search began here: done
            depth = np.int64(floor) - 1
            break
        d -= one  # nothing left here: take the tile off the cell before
        i = three * d
        r, p, row_base = st[i], st[i + one], st[i + U(2)]
        used ^= one << ((p >> U(TILE_SHIFT)) & six)
        a = (p >> U(ALT_SHIFT)) & field
    s.used[0] = used
    s.found[0] = found
    s.depth[0] = depth
    return status, nodes


@njit(cache=True)
def replay(prefix, t, s):  # pragma: no cover - compiled
    """Place the rows ``prefix`` on cells 0, 1, ... of the empty board, and open the next cell
    with all its free candidates (a task's start)."""
    tab, pack, cb, st = t.tab, t.pack, t.base, s.cells
    n, cols = cb.shape[0], t.cols
    used = U(0)
    west = U(0)
    for d in range(prefix.shape[0] + 1):
        if d == n:
            break
        k = cb[d] + west
        if d >= cols:
            k += (st[3 * (d - cols) + 1] >> U(NORTH_SHIFT)) & U(NORTH_MASK)
        st[3 * d], st[3 * d + 1], st[3 * d + 2] = tab[k] & ~used, U(0), tab[k + U(1)]
        if d < prefix.shape[0]:
            p = pack[prefix[d]]
            st[3 * d], st[3 * d + 1] = U(0), p
            west = p >> U(WEST_SHIFT)
            used |= U(1) << ((p >> U(TILE_SHIFT)) & U(63))
    s.used[0] = used
    s.depth[0] = prefix.shape[0]


def warm_up() -> None:
    """Compile (or load from cache) both kernels on a 1x1 board with no candidates."""
    from puzzlesat.native.eternity.arrays import KEYS_AT, BitState, BitTable, numpy_views, zeros

    table = numpy_views(BitTable(1, zeros(KEYS_AT + 2, "Q"), zeros(64, "Q"), zeros(1, "Q")))
    state = numpy_views(BitState.empty(1))
    replay(np.zeros(0, dtype=np.int64), table, state)
    count(table, state, 1, 1, 0)

"""The numba kernel of exact counts on boards of at most 64 tiles: the row scan on tile bitsets.

The same tree as native/eternity/kernel.py, node for node (a count visits every node whatever
the order), walked with one machine word: the tiles on the board are the bits of ``used``, and
the candidates of each (frame class, west, north) key the bits of ``masks[key]``, so the free
candidates of a cell are ``masks[key] & ~used``, computed once when the scan reaches the cell,
and each next one is its lowest bit (a count-trailing-zeros), never a tile looked at and
skipped because it is on the board.  Tiles are tried in the order of their ids, not in a drawn
order: the nodes and boards of a whole tree do not depend on it.

Identical pieces (``twins``) are tried once: choosing a tile takes its twins out of the cell's
candidates.  A tile that fits one key in two turns (a tile with three sides of one colour) has
its second row tried right after the first (``alt``).

A search may start below the root (a task of the parallel search): cells ``0..floor-1`` are
already placed (:func:`replay`) and the search is exhausted when it backtracks past ``floor``.
Each completed board adds one to ``found[0]``; the search stops at the ``limit``-th.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND

ROW = 0xFFFF  # pack: the row in the low 16 bits, south in the next 16, east times the colours above


@njit(cache=True)
def count(t, s, budget, limit, floor):  # pragma: no cover - compiled
    """Depth-first row scan to exhaustion, resumable; ``t`` a
    :class:`~puzzlesat.native.eternity.arrays.BitTable`, ``s`` a
    :class:`~puzzlesat.native.eternity.arrays.BitState` (updated in place).

    The candidates of a cell are tried in one loop that looks at the next cell's candidates
    before going there: a tile that leaves the next cell none is a node (placed, and taken off
    at once) that never touches the state, and the scan stays on the cell.

    Returns:
        (status, nodes): FOUND with the ``limit``-th board in ``placed`` (its last tile not in
        ``used``: the search goes on from it); EXHAUSTED when the search below the starting
        state is done; BUDGET when ``budget`` nodes were placed (call again to go on).
    """
    cols, classbase, keyid, masks = t.cols, t.classbase, t.keyid, t.masks
    pack, rowpack, nxt, twins = t.pack, t.rowpack, t.nxt, t.twins
    rem, alt, kid, tbit, placed, south = s.rem, s.alt, s.kid, s.tbit, s.placed, s.south
    n = classbase.shape[0]
    one, zero = np.uint64(1), np.uint64(0)
    used = s.used[0]
    found = s.found[0]
    d = s.depth[0]
    nodes = 0
    status = EXHAUSTED
    while True:
        r, a, b = rem[d], alt[d], tbit[d]  # the cell's candidates left, and the tile tried last
        row_base = kid[d] * 64
        leaf = d + 1 == n
        base = 0  # the next cell's (class, west = 0, north) key
        if not leaf:
            base = classbase[d + 1] + (south[d + 1 - cols] if d + 1 >= cols else 0)
        down = False
        stop = False
        while True:
            if a >= 0:  # the other turn of the tile just tried
                p = rowpack[a]
                a = nxt[a]
            elif r == zero:
                break
            else:
                b = np.int64(trailing_zeros(r))
                r &= ~twins[b]
                p = pack[row_base + b]
                a = nxt[p & ROW]
            nodes += 1
            if leaf:  # a board: counted, its last tile never put in ``used``
                found += 1
                if found >= limit:
                    placed[d] = p & ROW
                    south[d] = (p >> 16) & ROW
                    status, stop = FOUND, True
                    break
            else:
                key = base + (p >> 32)
                bit = one << np.uint64(b)
                m = masks[key] & ~(used | bit)
                if m != zero:  # the next cell has candidates: go there
                    rem[d], alt[d], tbit[d] = r, a, b
                    placed[d] = p & ROW
                    south[d] = (p >> 16) & ROW
                    used |= bit
                    d += 1
                    kid[d], rem[d], alt[d] = keyid[key], m, -1
                    down = True
                    break
            if nodes >= budget:
                status, stop = BUDGET, True
                break
        if stop:
            rem[d], alt[d], tbit[d] = r, a, b
            break
        if down:
            if nodes >= budget:
                status = BUDGET
                break
            continue
        d -= 1  # nothing left here: take the tile off the cell before
        if d < floor:
            break
        used ^= one << np.uint64(tbit[d])
    s.used[0] = used
    s.found[0] = found
    s.depth[0] = d
    return status, nodes


@njit(cache=True)
def replay(prefix, t, s):  # pragma: no cover - compiled
    """Place the rows ``prefix`` on cells 0, 1, ... of the empty board, and open the next cell
    with all its free candidates (a task's start)."""
    cols, classbase, keyid, masks = t.cols, t.classbase, t.keyid, t.masks
    n = classbase.shape[0]
    used = np.uint64(0)
    west = 0  # times the colours
    for d in range(prefix.shape[0] + 1):
        if d == n:
            break
        north = s.south[d - cols] if d >= cols else 0
        key = classbase[d] + west + north
        s.kid[d] = keyid[key]
        s.rem[d] = masks[key] & ~used
        s.alt[d] = -1
        if d < prefix.shape[0]:
            row = prefix[d]
            p = t.rowpack[row]
            s.placed[d] = row
            s.tbit[d] = t.rowtile[row]
            s.south[d] = (p >> 16) & ROW
            s.rem[d] = 0
            west = p >> 32
            used |= np.uint64(1) << np.uint64(t.rowtile[row])
    s.used[0] = used
    s.depth[0] = prefix.shape[0]


def warm_up() -> None:
    """Compile (or load from cache) both kernels on a 1x1 board with no candidates."""
    from puzzlesat.native.eternity.arrays import BitState, BitTable, numpy_views, zeros

    none = zeros(0)
    table = numpy_views(BitTable(1, 1, zeros(1), zeros(2), zeros(2, "Q"), zeros(64), none, none, none, zeros(64, "Q")))
    state = numpy_views(BitState.empty(1))
    replay(np.zeros(0, dtype=np.int64), table, state)
    count(table, state, 1, 1, 0)

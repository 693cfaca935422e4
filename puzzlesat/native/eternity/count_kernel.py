"""The numba kernel of exact counts on boards of at most 64 tiles: the row scan on tile bitsets.

The same tree as native/eternity/kernel.py, node for node (a count visits every node whatever
the order), walked with one machine word: the tiles on the board are the bits of a word, and
the candidates of each (frame class, west, north) key the bits of a word of the table, so the
free candidates of a cell are one AND, and each next one is its lowest bit (a count of trailing
zeros), never a tile looked at and skipped because it is on the board.

The walk keeps a stack of entries, each a row placed on a cell (a node, counted) and the free
candidates of the next cell (not counted yet): an entry is taken off the top, its row put on
its cell, and each candidate row of the next cell counted and looked at once, without a branch
on what it finds: its own next cell's free candidates are computed and the row is written on
the stack as a new entry, which is kept (the top moved past it) when that set is not empty.
A row that leaves its next cell nothing is so a node that costs no branch, and going back up is
taking the next entry: the only branch that depends on the tree is the end of a cell's
candidates.  This made the kernel 1.3x faster than the scan that tried a cell's candidates one
by one and branched on each (docs/eternity.md, *Exact counts*).  The last cell's boards are
its candidates, counted with one ``popcnt``; with twins or tiles of two turns, or when the
``limit``-th board is among them, each of its rows is stacked as a whole board instead, an
entry of cell ``n`` (:func:`_last`), counted as a board when it is taken.

Everything a row gives the search is one word (its row, tile, next turn, and the parts of the
keys of the cells east of it and below it: :class:`~puzzlesat.native.eternity.arrays.BitTable`),
and an entry is three: the row's word, the next cell's candidates, and the next cell with
where the rows of its key are in ``pack`` (``cell | rows << 8``), so taking an entry waits on
no other load.  Every index is unsigned, so numba adds no fix-up for negative ones.

Identical pieces (``twins``) are tried once: the lowest bit of a cell's identical candidates
stands for them all.  A tile that fits one key in two turns (a tile with three sides of one
colour) has each turn counted and stacked (the word's ``next`` field).  Candidates are stacked
from the lowest bit up, and tile ``t`` is bit ``63 - t``
(:class:`~puzzlesat.native.eternity.arrays.BitTable`), so entries come off in the order of the
tiles' ids, as the kernel before this one tried them (the count and the nodes do not depend on
it, only which board is found first).

A search may start below the root (a task of the parallel search): :func:`replay` places cells
``0..p-1`` and stacks one entry with the candidates of cell ``p``; the stack's entries from
``ends[0]`` up are the search's, and those below are given away (native/eternity/count_search.py).
Each completed board adds one to ``found[0]``; the search stops when ``found[0]`` reaches
``limit``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.native.eternity.arrays import ALT_SHIFT, FIELD, NORTH_MASK, NORTH_SHIFT, TILE_SHIFT, WEST_SHIFT

U = np.uint64


@njit(cache=True)
def count(t, s, budget, limit):  # pragma: no cover - compiled
    """Walk the stack to its bottom, resumable; ``t`` a
    :class:`~puzzlesat.native.eternity.arrays.BitTable`, ``s`` a
    :class:`~puzzlesat.native.eternity.arrays.BitState` (updated in place).

    Returns:
        (status, nodes): FOUND when ``found[0]`` reached ``limit``, the board in ``placed`` (the
        search goes on from the next entry); EXHAUSTED when the stack is empty; BUDGET once
        ``budget`` nodes were placed (a cell's candidates are all counted before it stops: a
        few nodes more; call again to go on).
    """
    tab, pack, cb = t.tab, t.pack, t.base
    placed, before, stack, ends = s.placed, s.before, s.stack, s.ends
    n, cols = U(cb.shape[0]), U(t.cols)
    one, zero, three, field, six, byte = U(1), U(0), U(3), U(FIELD), U(63), U(255)
    twins = False  # some tile has identical pieces to take out with it
    for b in range(64):
        twins |= tab[b] & ~(one << U(b)) != zero
    plain = not twins  # nor a tile that fits a key in two turns: a last cell's boards are its candidates
    for i in range(pack.shape[0]):
        plain &= (pack[i] >> U(ALT_SHIFT)) & field == zero
    low, top = ends[0], ends[1]
    found = s.found[0]
    nodes = 0
    status = EXHAUSTED
    while top > low:
        top -= one
        j = three * top
        w, m, at = stack[j], stack[j + one], stack[j + U(2)]
        c = at & byte  # the cell of the candidates ``m``; ``w`` the row on the cell before
        u = zero  # the tiles on cells 0..c-1
        if c != zero:
            placed[c - one] = w
            u = before[c - one] | (one << ((w >> U(TILE_SHIFT)) & six))
            before[c] = u
        row_base = at >> U(8)
        if c + one >= n:  # the last cell, or a whole board
            top, rows, found = _last(tab, pack, stack, top, m, c, row_base, n, twins, plain, found, limit)
            nodes += rows
            if c == n and found >= limit:
                status = FOUND
                break
        else:
            nb = cb[c + one]  # the key of cell c + 1 but its west colour
            if c + one >= cols:
                nb += (placed[c + one - cols] >> U(NORTH_SHIFT)) & U(NORTH_MASK)
            nxt = c + one
            while m != zero:
                b = U(trailing_zeros(m))
                m &= m - one
                if twins:
                    m &= ~tab[b]
                free = ~(u | (one << b))
                x = pack[row_base + b]
                k = nb + (x >> U(WEST_SHIFT))
                f = tab[k] & free
                i = three * top
                stack[i], stack[i + one], stack[i + U(2)] = x, f, nxt | (tab[k + one] << U(8))
                top += U(f != zero)
                nodes += 1
                a = (x >> U(ALT_SHIFT)) & field
                while a != zero:  # the tile's other turns in the key
                    x = pack[a - one]
                    a = (x >> U(ALT_SHIFT)) & field
                    k = nb + (x >> U(WEST_SHIFT))
                    f = tab[k] & free
                    i = three * top
                    stack[i], stack[i + one], stack[i + U(2)] = x, f, nxt | (tab[k + one] << U(8))
                    top += U(f != zero)
                    nodes += 1
        if nodes >= budget:
            status = BUDGET
            break
    ends[1] = top
    s.found[0] = found
    return status, nodes


@njit(cache=True)
def _last(tab, pack, stack, top, m, c, row_base, n, twins, plain, found, limit):  # pragma: no cover - compiled
    """An entry of the last cell (``c`` is ``n - 1``) or a whole board (``c`` is ``n``): (the new
    top, the nodes counted, ``found``).  The last cell's boards are its candidates, counted at
    once, but with twins or tiles of two turns, or when the ``limit``-th board is among them:
    then each of its rows is stacked as a whole board, counted as a node here and as a board
    when it is taken, so that a stop comes at each board."""
    one, zero, three, field = U(1), U(0), U(3), U(FIELD)
    if c == n:
        return top, 0, found + 1
    q, rows = m, 0
    while q != zero:
        q &= q - one
        rows += 1
    if plain and found + rows < limit:
        return top, rows, found + rows
    rows = 0
    while m != zero:
        b = U(trailing_zeros(m))
        m &= m - one
        if twins:
            m &= ~tab[b]
        x = pack[row_base + b]
        while True:  # the tile's turns in the key
            i = three * top
            stack[i], stack[i + one], stack[i + U(2)] = x, zero, n
            top += one
            rows += 1
            a = (x >> U(ALT_SHIFT)) & field
            if a == zero:
                break
            x = pack[a - one]
    return top, rows, found


@njit(cache=True)
def replay(prefix, t, s):  # pragma: no cover - compiled
    """Place the rows ``prefix`` on cells 0, 1, ... of the empty board, and stack one entry: the
    next cell with all its free candidates (a task's start; none when ``prefix`` fills the board)."""
    tab, pack, cb = t.tab, t.pack, t.base
    placed, before, stack = s.placed, s.before, s.stack
    n, cols, p = cb.shape[0], t.cols, prefix.shape[0]
    used = U(0)
    w = U(0)
    for d in range(p):
        before[d] = used
        w = pack[prefix[d]]
        placed[d] = w
        used |= U(1) << ((w >> U(TILE_SHIFT)) & U(63))
    s.found[0] = 0
    s.ends[0] = 0
    s.ends[1] = 0
    if p < n:
        k = cb[p] + (w >> U(WEST_SHIFT) if p > 0 else U(0))
        if p >= cols:
            k += (placed[p - cols] >> U(NORTH_SHIFT)) & U(NORTH_MASK)
        stack[0], stack[1], stack[2] = w, tab[k] & ~used, U(p) | (tab[k + U(1)] << U(8))
        s.ends[1] = 1


def warm_up() -> None:
    """Compile (or load from cache) both kernels on a 1x1 board with no candidates."""
    from puzzlesat.native.eternity.arrays import KEYS_AT, BitState, BitTable, numpy_views, zeros

    table = numpy_views(BitTable(1, zeros(KEYS_AT + 2, "Q"), zeros(64, "Q"), zeros(1, "Q")))
    state = numpy_views(BitState.empty(1))
    replay(np.zeros(0, dtype=np.int64), table, state)
    count(table, state, 1, 1)

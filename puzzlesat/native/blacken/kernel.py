"""Numba kernel of the blacken branch and bound: a resumable depth-first search.

The board is padded by one ring of OFF cells, flat, ``P = k + 2`` cells a row, so a walk
from any cell next to a white stone never needs a bounds check.  Every array is int64.  The
lower bounds it cuts with are in :mod:`puzzlesat.domains.blacken.bound_kernel`.

The search state lives in caller-owned arrays, so :func:`search` can stop after a node
budget and be called again to continue (timeouts, and the shared bound of the parallel
search).  Steps, as labelled in the code:

- S1 a node whose candidate list is used up, or whose children cannot beat the best, is left
  (the last move is taken back);
- S2 the next candidate is played, unless it commutes with the last move and sorts before it;
- S3 a position without white stones is a new best answer; stop when it meets the target;
- S4 transposition table: a position already reached in as few moves is cut;
- S5 lower bound: a position whose moves so far plus :func:`bound` cannot beat the best is cut;
- S6 the node's moves are generated, ordered by the stones they flip now.

numba's cache checks only this file's own source: after a change to the bound kernels, change
this file too (a note here will do), or the cached search keeps the old bounds compiled in.
The component bound's work limit is the node limit of the current call (``limit`` is reused).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND
from puzzlesat.domains.blacken.bound_kernel import BLACK, EMPTY, WHITE, bound, split_bound

# indices into the state vector ``st``; ANSWER is the length of this search's best answer (0: none)
DEPTH, BEST, NODES, H1, H2, ROOT, WLEFT, FTOP, TARGET, TTCUTS, ANSWER, BOUNDCUTS = range(12)
STATE_SIZE = 12


class Tree(NamedTuple):
    """The search's arrays (every one int64), built once by :class:`puzzlesat.native.blacken.bb.Search`.

    The position: ``grid`` (the padded board), ``whites`` (the white stones' cells), ``dirs``
    (the eight steps); the transposition table ``ttk1``, ``ttk2``, ``ttd`` keyed by the Zobrist
    keys ``zob`` (and ``zlast``, the last move's); ``st``, the state vector (the indices
    above); per depth ``path`` (the move played), ``cand``, ``ncand``, ``cidx`` (the moves and
    the next to try), ``fstart`` (where its flips start in ``flipbuf``); ``best_path``;
    scratch ``mark``, ``order``, ``score``; ``compmask`` (per cell, the components next to it).
    numba pickles this class into the search's cache index: moving or renaming it calls for
    clearing that cache (native/eternity/arrays.py says why).
    """

    grid: np.ndarray
    whites: np.ndarray
    dirs: np.ndarray
    zob: np.ndarray
    zlast: np.ndarray
    ttk1: np.ndarray
    ttk2: np.ndarray
    ttd: np.ndarray
    st: np.ndarray
    path: np.ndarray
    best_path: np.ndarray
    cand: np.ndarray
    ncand: np.ndarray
    cidx: np.ndarray
    fstart: np.ndarray
    flipbuf: np.ndarray
    mark: np.ndarray
    order: np.ndarray
    score: np.ndarray
    compmask: np.ndarray


@njit(cache=True)
def push(grid, dirs, zob, st, flipbuf, p):  # type: ignore[no-untyped-def]
    """Place a black stone on ``p`` and flip (Reversi rule); returns the stones flipped."""
    top = st[FTOP]
    start = top
    grid[p] = BLACK
    st[H1] ^= zob[0, p]
    st[H2] ^= zob[1, p]
    for i in range(8):
        d = dirs[i]
        c = p + d
        while grid[c] == WHITE:
            c += d
        if c != p + d and grid[c] == BLACK:
            c = p + d
            while grid[c] == WHITE:
                grid[c] = BLACK
                st[H1] ^= zob[0, c]
                st[H2] ^= zob[1, c]
                flipbuf[top] = c
                top += 1
                c += d
    st[FTOP] = top
    st[WLEFT] -= top - start
    return top - start


@njit(cache=True)
def pop(grid, zob, st, flipbuf, p, ftop):  # type: ignore[no-untyped-def]
    """Take back the stone on ``p`` and the flips recorded above ``ftop``."""
    top = st[FTOP]
    while top > ftop:
        top -= 1
        c = flipbuf[top]
        grid[c] = WHITE
        st[H1] ^= zob[0, c]
        st[H2] ^= zob[1, c]
    st[WLEFT] += st[FTOP] - ftop
    st[FTOP] = ftop
    grid[p] = EMPTY
    st[H1] ^= zob[0, p]
    st[H2] ^= zob[1, p]


@njit(cache=True)
def generate(grid, whites, dirs, mark, stamp, cand, ncand, level, score):  # type: ignore[no-untyped-def]
    """Fill ``cand[level]`` with the legal moves, most stones flipped now first."""
    m = 0
    for j in range(whites.shape[0]):
        w = whites[j]
        if grid[w] != WHITE:
            continue
        for i in range(8):
            p = w + dirs[i]
            if grid[p] == EMPTY and mark[p] != stamp:
                mark[p] = stamp
                flips = 0
                reach = 0
                for e in range(8):
                    d = dirs[e]
                    c = p + d
                    while grid[c] == WHITE:
                        c += d
                    run = (c - p) // d - 1
                    reach += run
                    if run > 0 and grid[c] == BLACK:
                        flips += run
                # key: flips now, then whites on the move's lines; stable for equal keys
                key = flips * 256 + reach
                k = m
                while k > 0 and score[k - 1] < key:
                    score[k] = score[k - 1]
                    cand[level, k] = cand[level, k - 1]
                    k -= 1
                score[k] = key
                cand[level, k] = p
                m += 1
    ncand[level] = m


@njit(cache=True)
def search(t, b, budget):  # type: ignore[no-untyped-def]
    """Run the depth-first branch and bound for up to ``budget`` nodes.

    ``t``: the :class:`Tree`; ``b``: the component bound's
    :class:`~puzzlesat.domains.blacken.bound.Bounds`.

    Returns:
        EXHAUSTED (the subtree below ``st[ROOT]`` is searched: the best is optimal there),
        BUDGET (call again to continue) or FOUND (an answer of ``st[TARGET]`` moves).
    """
    grid, whites, dirs, zob, zlast, st, path, best_path = (
        t.grid,
        t.whites,
        t.dirs,
        t.zob,
        t.zlast,
        t.st,
        t.path,
        t.best_path,
    )
    ttk1, ttk2, ttd, cand, ncand, cidx, fstart, flipbuf = (
        t.ttk1,
        t.ttk2,
        t.ttd,
        t.cand,
        t.ncand,
        t.cidx,
        t.fstart,
        t.flipbuf,
    )
    mark, order, score, compmask, ccells = t.mark, t.order, t.score, t.compmask, b.ccells
    limit = st[NODES] + budget
    mask = ttk1.shape[0] - 1
    stamp = mark[0]
    while True:
        g = st[DEPTH]
        # S1
        if cidx[g] >= ncand[g] or g + 1 >= st[BEST]:
            if g == st[ROOT]:
                mark[0] = stamp
                return EXHAUSTED
            pop(grid, zob, st, flipbuf, path[g - 1], fstart[g - 1])
            st[DEPTH] = g - 1
            continue
        if st[NODES] >= limit:
            mark[0] = stamp
            return BUDGET
        # S2 (partial order: two moves next to disjoint sets of components commute, so
        # only the order with the smaller cell first is searched)
        p = cand[g, cidx[g]]
        cidx[g] += 1
        if g > 0 and compmask[p] & compmask[path[g - 1]] == 0 and p < path[g - 1]:
            continue
        fstart[g] = st[FTOP]
        path[g] = p
        push(grid, dirs, zob, st, flipbuf, p)
        st[NODES] += 1
        # S3
        if st[WLEFT] == 0:
            st[BEST] = g + 1
            st[ANSWER] = g + 1
            for i in range(g + 1):
                best_path[i] = path[i]
            pop(grid, zob, st, flipbuf, p, fstart[g])
            if st[BEST] <= st[TARGET]:
                mark[0] = stamp
                return FOUND
            continue
        # S4
        # (keyed with the last move too: it decides which children the partial order allows)
        key1 = st[H1] ^ zlast[0, p]
        key2 = st[H2] ^ zlast[1, p]
        slot = key1 & mask
        if ttk1[slot] == key1 and ttk2[slot] == key2 and ttd[slot] <= g + 1:
            st[TTCUTS] += 1
            pop(grid, zob, st, flipbuf, p, fstart[g])
            continue
        ttk1[slot] = key1
        ttk2[slot] = key2
        ttd[slot] = g + 1
        # S5 (mark[0] holds the stamp; cells of the padded frame never use mark)
        stamp += 1
        h = bound(grid, whites, dirs, mark, stamp, order)
        if g + 1 + h < st[BEST] and ccells.shape[0] > 0:
            h = max(h, split_bound(grid, b, limit))
        if g + 1 + h >= st[BEST]:
            st[BOUNDCUTS] += 1
            pop(grid, zob, st, flipbuf, p, fstart[g])
            continue
        # S6
        stamp += 1
        generate(grid, whites, dirs, mark, stamp, cand, ncand, g + 1, score)
        cidx[g + 1] = 0
        st[DEPTH] = g + 1

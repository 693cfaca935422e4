"""The IDA* iteration of ``native-ida`` on phase-1 coordinates (tables: :mod:`.phase1`).

A node holds, for each of the three axes (UD, RL, FB), the cube's twist, flip and slice as
seen along that axis and its phase-1x24 distance, plus the corner permutation and every
cubie's code (for the inverse).  A move updates them through move tables (on the RL and FB
axes the move is the conjugated one).  The lower bound is the largest of the three
distances and the corner distance (one more when the three distances are equal, see
:func:`bound_of`); near the leaves, the same bound of the inverse cube too (its coordinates
from :func:`rubik_phase1.inverse_tables`).  A distance is a lower bound: exact in a 4-bit
table, a window above a base in a 2-bit one (:func:`rubik_phase1.distance`), where a move
also keeps at least the parent's distance minus one; the leaves compare every cubie.  The
tables are read with software prefetch (:mod:`puzzlesat.native.memory`), in rounds per
node (see :func:`_expand`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND, FULL
from puzzlesat.native.memory import prefetch
from puzzlesat.native.rubik.arrays import Phase1Arrays, Root
from puzzlesat.native.rubik.phase1 import (
    INV_CMOVE,
    INV_EMOVE,
    INV_FLIP,
    INV_SLICE,
    INV_TWIST,
    INV_WHERE,
    N_FLIP,
    N_TWIST,
    distance,
    entry_byte,
    phase1_index,
)


@njit(cache=True, inline="always")
def bound_of(d0: int, d1: int, d2: int, corners: int) -> int:
    """The lower bound from the three axis distances and the corner distance.

    When the three axis distances are equal and positive, one more move is needed: a
    solution of exactly that length would lower all three by one at every move, but the
    cube one move before solved is at distance 0 on the axis of that last move.  It holds
    for lower bounds too: if three lower bounds are equal, a distance above them gives the
    same bound.
    """
    h = max(d0, d1, d2, corners)
    if d0 == d1 and d1 == d2 and d0 > 0 and d0 >= corners:
        h = d0 + 1
    return h


@njit(cache=True, inline="always")
def _record(solutions: np.ndarray, count: int, path: np.ndarray, bound: int) -> int:
    """Store the path as solution number ``count`` if there is room; the new count."""
    if count < solutions.shape[0]:
        for i in range(bound):
            solutions[count, i] = path[i]
    return count + 1


@njit(cache=True, inline="always")  # inlined: 12% fewer instructions per node
def _expand(d, only, rem, node, next_state, tables, scratch) -> int:  # noqa: ANN001
    """Generate the children of level ``d`` (every canonical move, or only move ``only``)
    as rows of ``kids[d]`` (move, automaton state, then twist, flip, slice and distance per
    axis, corners, corner distance) and list those whose lower bound is at most ``rem`` in
    ``order[d]``.  Returns ``(generated << 8) | kept``.

    The reads go in rounds.  First the axis on which the parent is farthest (it prunes the
    most) for every child; then the other two axes and the corners for the children still
    in; then, if ``0 < rem < inverse_below``, the three axes of the inverse cube (:func:`_inverse`).
    Each round prefetches every entry before it reads any, so the misses overlap.  The
    corner table is read only when the parent's corner distance plus one could exceed
    ``rem``; otherwise the child keeps that sum, an upper bound, which :func:`bound_of` may
    take for the exact value: it only ever stands where it is at most ``rem``.
    Rows are not moved: each round lists the children it keeps in ``order[d]``, without a
    branch (the index is written, and the count grows by the test's outcome).

    ``node``: the search's levels, ``(canon, blocked, known, tw, fl, sl, dist, cp, codes, kids)``
    (see :func:`search`); ``tables``: :class:`~puzzlesat.native.rubik.arrays.Phase1Arrays`;
    ``scratch``: ``(raw, idx1, idx2, order)``.
    """
    canon, blocked, known, tw, fl, sl, dist, cp, codes, kids = node
    twist_mv, flip_mv, slice_mv, corner_mv = tables.twist_mv, tables.flip_mv, tables.slice_mv, tables.corner_mv
    clsym, twist_conj, phase1, corners = tables.clsym, tables.twist_conj, tables.phase1, tables.corners
    axis_moves, inverse, inverse_below, base = tables.axis_moves, tables.inverse, tables.inverse_below, tables.base
    raw, idx1, idx2, order = scratch
    n = 0
    barred = blocked[known[d, 0]]
    for m in range(next_state.shape[1]):
        if only >= 0 and m != only:
            continue
        ns = next_state[canon[d], m]
        if ns < 0 or (barred >> m) & 1:
            continue
        kids[d, n, 0] = m
        kids[d, n, 1] = ns
        kids[d, n, 16] = 0
        for k in range(3):
            mk = axis_moves[k, m]
            kids[d, n, 2 + 4 * k] = twist_mv[tw[d, k], mk]
            f1 = flip_mv[fl[d, k], mk]
            s1 = slice_mv[sl[d, k], mk]
            kids[d, n, 3 + 4 * k] = f1
            kids[d, n, 4 + 4 * k] = s1
            raw[3 * n + k] = s1 * N_FLIP + f1
            prefetch(clsym, s1 * N_FLIP + f1)
        kids[d, n, 14] = corner_mv[cp[d], m]
        n += 1
    a0, a1, a2 = 0, 1, 2  # the axes by the parent's distance, largest first
    if dist[d, a1] > dist[d, a0]:
        a0, a1 = a1, a0
    if dist[d, a2] > dist[d, a1]:
        a1, a2 = a2, a1
        if dist[d, a1] > dist[d, a0]:
            a0, a1 = a1, a0
    # round 1: axis a0 of every child
    for j in range(n):
        idx1[j] = phase1_index(clsym, twist_conj, raw[3 * j + a0], kids[d, j, 2 + 4 * a0])
        prefetch(phase1, entry_byte(idx1[j], base))
    kept = 0
    for j in range(n):
        nd = max(distance(phase1, idx1[j], base), dist[d, a0] - 1)
        kids[d, j, 5 + 4 * a0] = nd
        order[d, kept] = j
        kept += nd <= rem
    # round 2: axes a1 and a2 and the corners of the children still in
    pc = dist[d, 3] + 1  # the children's corner distance at most
    corner_free = pc <= rem
    n1 = kept
    for i in range(n1):
        j = order[d, i]
        idx1[i] = phase1_index(clsym, twist_conj, raw[3 * j + a1], kids[d, j, 2 + 4 * a1])
        prefetch(phase1, entry_byte(idx1[i], base))
        idx2[i] = phase1_index(clsym, twist_conj, raw[3 * j + a2], kids[d, j, 2 + 4 * a2])
        prefetch(phase1, entry_byte(idx2[i], base))
        if not corner_free:
            prefetch(corners, kids[d, j, 14] * N_TWIST + kids[d, j, 2])
    kept = 0
    for i in range(n1):
        j = order[d, i]
        c = pc if corner_free else corners[kids[d, j, 14] * N_TWIST + kids[d, j, 2]]
        kids[d, j, 5 + 4 * a1] = max(distance(phase1, idx1[i], base), dist[d, a1] - 1)
        kids[d, j, 5 + 4 * a2] = max(distance(phase1, idx2[i], base), dist[d, a2] - 1)
        kids[d, j, 15] = c
        order[d, kept] = j  # kept <= i: never overwrites an entry still to be read
        kept += bound_of(kids[d, j, 5], kids[d, j, 9], kids[d, j, 13], c) <= rem
    if 0 < rem < inverse_below and kept:
        tables = (clsym, twist_conj, phase1, base, inverse, blocked)
        kept = _inverse(d, kept, rem, codes, kids, order, known, tables, raw, idx2)
    return (n << 8) | kept


@njit(cache=True, inline="always")
def inverse_coordinates(codes, d, move, inverse, flipslice, twist, at) -> None:  # noqa: ANN001
    """The inverse of the cube ``codes[d]`` (cubie codes) after ``move``, on the UD, RL and FB
    axes: its ``slice * 2048 + flip`` into ``flipslice[at:at + 3]``, its twist into
    ``twist[at:at + 3]``.  Sums of per-cubie entries of :func:`rubik_phase1.inverse_tables`,
    the three axes packed side by side."""
    mo = move * 24
    twists = 0
    for c in range(8):
        twists += inverse[INV_TWIST + c * 24 + inverse[INV_CMOVE + mo + codes[d, c]]]
    flips = 0
    where = 0
    for e in range(12):
        code = inverse[INV_EMOVE + mo + codes[d, 8 + e]]
        flips += inverse[INV_FLIP + e * 24 + code]
        where += inverse[INV_WHERE + e * 24 + code]
    for k in range(3):
        flipslice[at + k] = inverse[INV_SLICE + ((where >> (15 * k)) & 32767)] + ((flips >> (11 * k)) & 2047)
        twist[at + k] = (twists >> (12 * k)) & 4095


@njit(cache=True, inline="always")
def _inverse(d, n, rem, codes, kids, order, known, tables, raw, idx) -> int:  # noqa: ANN001
    """Keep, of the ``n`` children of level ``d`` listed in ``order[d]``, those whose inverse
    cube's bound on the three axes is at most ``rem``; returns how many are kept.
    ``tables``: ``(clsym, twist_conj, phase1, base, inverse, blocked)``; ``blocked[1 << k]``
    holds the moves that turn axis ``k`` (see :func:`search`).

    Each child also notes the axes on which its inverse is exactly ``rem`` moves from the
    phase-1 goal (bits 0-2 of column 16).  On such an axis, no solution of ``rem`` moves
    from the child starts with a turn of that axis's two faces: the inverse's solution
    ends with the inverse of that turn, which stays in the axis's phase-1 group, so the
    inverse would reach the goal one move sooner.  :func:`_expand` skips those moves.
    Bits 3-14 hold the inverse's three distances and bit 15 says they are there.

    The coordinates come from the parent's cubie codes and the child's move
    (:func:`inverse_coordinates`).  On the axis the move turns, the child's inverse is as
    far from the goal as its parent's (``known[d, 1:]``, when the parent's was looked up):
    it is the parent's inverse with the move's inverse made first, and a distance to a
    group's goal does not change when an element of the group is made first.  That entry
    is not read, and in a 2-bit table it keeps the parent's bound where the read gives 0.
    """
    clsym, twist_conj, phase1, base, inverse, blocked = tables
    for i in range(n):
        m = kids[d, order[d, i], 0]
        inverse_coordinates(codes, d, m, inverse, raw, idx, 3 * i)
        for k in range(3):
            if known[d, 1 + k] >= 0 and (blocked[1 << k] >> m) & 1:
                raw[3 * i + k] = -1  # the parent's distance
            else:
                prefetch(clsym, raw[3 * i + k])
    for i in range(3 * n):
        if raw[i] >= 0:
            idx[i] = phase1_index(clsym, twist_conj, raw[i], idx[i])
            prefetch(phase1, entry_byte(idx[i], base))
    kept = 0
    for i in range(n):
        j = order[d, i]
        e0 = distance(phase1, idx[3 * i], base) if raw[3 * i] >= 0 else known[d, 1]
        e1 = distance(phase1, idx[3 * i + 1], base) if raw[3 * i + 1] >= 0 else known[d, 2]
        e2 = distance(phase1, idx[3 * i + 2], base) if raw[3 * i + 2] >= 0 else known[d, 3]
        tight = (e0 == rem) | (e1 == rem) << 1 | (e2 == rem) << 2
        kids[d, j, 16] = tight | e0 << 3 | e1 << 7 | e2 << 11 | 1 << 15
        order[d, kept] = j
        kept += bound_of(e0, e1, e2, 0) <= rem
    return kept


@njit(cache=True, inline="always")
def _descend(d, j, node, order, inverse, path) -> None:  # noqa: ANN001
    """Make the ``j``-th kept child of level ``d`` the node at level ``d + 1`` (``node``: see :func:`_expand`)."""
    canon, _, known, tw, fl, sl, dist, cp, codes, kids = node
    child = order[d, j]
    path[d] = kids[d, child, 0]
    canon[d + 1] = kids[d, child, 1]
    noted = kids[d, child, 16]  # see _inverse
    known[d + 1, 0] = noted & 7
    for k in range(3):
        known[d + 1, 1 + k] = (noted >> (3 + 4 * k)) & 15 if noted >> 15 else -1
    for k in range(3):
        tw[d + 1, k] = kids[d, child, 2 + 4 * k]
        fl[d + 1, k] = kids[d, child, 3 + 4 * k]
        sl[d + 1, k] = kids[d, child, 4 + 4 * k]
        dist[d + 1, k] = kids[d, child, 5 + 4 * k]
    cp[d + 1] = kids[d, child, 14]
    dist[d + 1, 3] = kids[d, child, 15]
    mo = path[d] * 24
    for c in range(8):
        codes[d + 1, c] = inverse[INV_CMOVE + mo + codes[d, c]]
    for e in range(8, 20):
        codes[d + 1, e] = inverse[INV_EMOVE + mo + codes[d, e]]


@njit(cache=True, inline="always")
def _solved(dist, cp, codes, d) -> bool:  # noqa: ANN001
    """Every cubie home and unturned.  The distances and the corner permutation only
    shortcut the test: with a slice coordinate that tells only some orders apart
    (``phase1x6``), distance 0 on every axis still allows double swaps within the slices,
    and in a 2-bit table (``phase1x12``) a distance 0 is only a lower bound."""
    if dist[d, 0] != 0 or dist[d, 1] != 0 or dist[d, 2] != 0 or cp[d] != 0:
        return False
    for c in range(8):
        if codes[d, c] != 3 * c:
            return False
    for e in range(12):
        if codes[d, 8 + e] != 2 * e:
            return False
    return True


@njit(cache=True)
def search(
    root: Root,
    prefixes: np.ndarray,
    bound: int,
    next_state: np.ndarray,
    tables: Phase1Arrays,
    find_all: bool,
    budget: int,
    max_solutions: int,
):  # noqa: ANN201
    """One IDA* iteration (depth-first to exactly ``bound`` moves) below each prefix.

    Args:
        root: the position (:class:`~puzzlesat.native.rubik.arrays.Root`).
        prefixes: ``(P, p)`` canonical first moves; each row's subtree is searched in turn.
        next_state: ``(S, M)`` canonical-sequence automaton; -1 forbids the move.
        tables: :class:`~puzzlesat.native.rubik.arrays.Phase1Arrays`.
        find_all: collect every solution of length ``bound`` instead of stopping at one.
        budget: node limit for the whole call; max_solutions: capacity of the solution array.

    Returns:
        ``(status, solutions, count, nodes_per_prefix)``: status EXHAUSTED (every subtree
        searched), FOUND (stopped at the first solution), BUDGET (node budget spent) or FULL
        (the solution array is full).
    """
    axes0, corner0, corner_dist0, codes0 = root.axes, root.corner, root.corner_dist, root.codes
    axis_moves, inverse = tables.axis_moves, tables.inverse
    nprefix, plen = prefixes.shape
    levels = bound + 2
    moves = next_state.shape[1]
    tw = np.zeros((levels, 3), np.int64)
    fl = np.zeros((levels, 3), np.int64)
    sl = np.zeros((levels, 3), np.int64)
    dist = np.zeros((levels, 4), np.int64)
    cp = np.zeros(levels, np.int64)
    canon = np.zeros(levels, np.int64)
    known = np.full((levels, 4), -1, np.int64)  # the node's tight inverse axes, its inverse's distances
    known[:, 0] = 0
    blocked = np.zeros(8, np.int64)  # tight axes -> the moves they bar, one bit per move
    for k in range(3):
        for m in range(moves):
            if axis_moves[k, m] * 6 // moves % 3 == 0:  # a U or D turn as seen on axis k
                for mask in range(8):
                    if (mask >> k) & 1:
                        blocked[mask] |= 1 << m
    kids = np.zeros((levels, moves, 17), np.int64)
    nkids = np.zeros(levels, np.int64)
    nxt = np.zeros(levels, np.int64)
    path = np.zeros(levels, np.int64)
    raw = np.zeros(3 * moves, np.int64)
    idx1 = np.zeros(moves, np.int64)
    idx2 = np.zeros(3 * moves, np.int64)
    order = np.zeros((levels, moves), np.int64)
    codes = np.zeros((levels, 20), np.int64)
    solutions = np.full((max_solutions, max(bound, 1)), -1, np.int64)
    node = (canon, blocked, known, tw, fl, sl, dist, cp, codes, kids)
    scratch = (raw, idx1, idx2, order)
    count = 0
    nodes_per_prefix = np.zeros(nprefix, np.int64)
    total = 0
    for pi in range(nprefix):
        for k in range(3):
            tw[0, k] = axes0[k, 0]
            fl[0, k] = axes0[k, 1]
            sl[0, k] = axes0[k, 2]
            dist[0, k] = axes0[k, 3]
        cp[0] = corner0
        dist[0, 3] = corner_dist0
        codes[0, :] = codes0
        nodes = 0
        alive = bound_of(dist[0, 0], dist[0, 1], dist[0, 2], dist[0, 3]) <= bound
        for d in range(plen):
            if not alive:
                break
            if d >= bound:
                alive = False
                break
            got = _expand(d, prefixes[pi, d], bound - d - 1, node, next_state, tables, scratch)
            nodes += got >> 8
            if got & 255 == 0:
                alive = False
                break
            _descend(d, 0, node, order, inverse, path)
            if d + 1 < bound and _solved(dist, cp, codes, d + 1):
                alive = False
        if alive and plen == bound:
            alive = False
            if _solved(dist, cp, codes, plen):
                count = _record(solutions, count, path, bound)
                if not find_all or count >= max_solutions:
                    nodes_per_prefix[pi] = nodes
                    return (FOUND if not find_all else FULL), solutions, count, nodes_per_prefix
        if alive:
            d = plen
            got = _expand(d, -1, bound - d - 1, node, next_state, tables, scratch)
            nodes += got >> 8
            nkids[d] = got & 255
            nxt[d] = 0
            while d >= plen:
                j = nxt[d]
                if j == nkids[d]:
                    d -= 1
                    continue
                nxt[d] = j + 1
                _descend(d, j, node, order, inverse, path)
                if d + 1 == bound:
                    if not _solved(dist, cp, codes, d + 1):
                        continue
                    count = _record(solutions, count, path, bound)
                    if not find_all or count >= max_solutions:
                        nodes_per_prefix[pi] = nodes
                        return (FOUND if not find_all else FULL), solutions, count, nodes_per_prefix
                    continue
                if _solved(dist, cp, codes, d + 1):
                    continue
                if total + nodes > budget:
                    nodes_per_prefix[pi] = nodes
                    return BUDGET, solutions, count, nodes_per_prefix
                d += 1
                got = _expand(d, -1, bound - d - 1, node, next_state, tables, scratch)
                nodes += got >> 8
                nkids[d] = got & 255
                nxt[d] = 0
        nodes_per_prefix[pi] = nodes
        total += nodes
    return EXHAUSTED, solutions, count, nodes_per_prefix

"""The IDA* iteration of ``native-ida`` on phase-1 coordinates (tables: :mod:`rubik_phase1`).

A node holds, for each of the three axes (UD, RL, FB), the cube's twist, flip and slice as
seen along that axis and its exact phase-1x24 distance, plus the corner permutation.  A
move updates them through move tables (on the RL and FB axes the move is the conjugated
one), and the child's distance follows from the parent's and the table's value mod 3.
The lower bound is the largest of the three distances and the corner distance.  All three
distances and the corner distance are 0 only on the solved cube.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat.native.rubik_phase1 import N_FLIP, N_TWIST, ROW, get2


@njit(cache=True, inline="always")
def _step(d, m, rem, tw, fl, sl, dist, cp, twist_mv, flip_mv, slice_mv, corner_mv, clsym, twist_conj,  # noqa: ANN001
          phase1, corners, axis_moves) -> bool:
    """Make the child of level ``d`` by move ``m`` at level ``d + 1``; False if its lower
    bound exceeds ``rem`` (the child is then only partly written)."""
    for k in range(3):
        mk = axis_moves[k, m]
        t1 = twist_mv[tw[d, k], mk]
        f1 = flip_mv[fl[d, k], mk]
        s1 = slice_mv[sl[d, k], mk]
        cs = clsym[s1 * N_FLIP + f1]
        v = get2(phase1, (cs >> 4) * ROW + twist_conj[t1, cs & 15])
        pd = dist[d, k]
        diff = (v - pd % 3 + 3) % 3
        nd = pd + 1 if diff == 1 else (pd - 1 if diff == 2 else pd)
        if nd > rem:
            return False
        tw[d + 1, k] = t1
        fl[d + 1, k] = f1
        sl[d + 1, k] = s1
        dist[d + 1, k] = nd
    c1 = corner_mv[cp[d], m]
    cd = corners[c1 * N_TWIST + tw[d + 1, 0]]
    if cd > rem:
        return False
    cp[d + 1] = c1
    dist[d + 1, 3] = cd
    return True


@njit(cache=True, inline="always")
def _solved(dist, d) -> bool:  # noqa: ANN001
    return dist[d, 0] == 0 and dist[d, 1] == 0 and dist[d, 2] == 0 and dist[d, 3] == 0


@njit(cache=True)
def search(axes0: np.ndarray, corner0: int, corner_dist0: int, prefixes: np.ndarray, bound: int,
           next_state: np.ndarray, twist_mv: np.ndarray, flip_mv: np.ndarray, slice_mv: np.ndarray,
           corner_mv: np.ndarray, clsym: np.ndarray, twist_conj: np.ndarray, phase1: np.ndarray,
           corners: np.ndarray, axis_moves: np.ndarray, find_all: bool, budget: int,
           max_solutions: int):  # noqa: ANN201
    """One IDA* iteration (depth-first to exactly ``bound`` moves) below each prefix.

    Args:
        axes0: ``(3, 4)`` twist, flip, slice and phase-1 distance of the root on each axis.
        corner0, corner_dist0: the root's corner permutation and corner distance.
        prefixes: ``(P, p)`` canonical first moves; each row's subtree is searched in turn.
        next_state: ``(S, M)`` canonical-sequence automaton; -1 forbids the move.
        the rest: :class:`rubik_phase1.Phase1Tables`.
        find_all: collect every solution of length ``bound`` instead of stopping at one.
        budget: node limit for the whole call; max_solutions: capacity of the solution array.

    Returns:
        ``(status, solutions, count, nodes_per_prefix)``: status 0 = subtrees exhausted,
        1 = stopped at the first solution, 2 = node budget spent, 3 = solution array full.
    """
    nprefix, plen = prefixes.shape
    levels = bound + 2
    moves = next_state.shape[1]
    tw = np.zeros((levels, 3), np.int64)
    fl = np.zeros((levels, 3), np.int64)
    sl = np.zeros((levels, 3), np.int64)
    dist = np.zeros((levels, 4), np.int64)
    cp = np.zeros(levels, np.int64)
    canon = np.zeros(levels, np.int64)
    nxt = np.zeros(levels, np.int64)
    path = np.zeros(levels, np.int64)
    solutions = np.full((max_solutions, max(bound, 1)), -1, np.int64)
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
        nodes = 0
        alive = max(dist[0, 0], dist[0, 1], dist[0, 2], dist[0, 3]) <= bound
        for d in range(plen):
            if not alive:
                break
            m = prefixes[pi, d]
            ns = next_state[canon[d], m]
            if ns < 0 or d >= bound:
                alive = False
                break
            nodes += 1
            if not _step(d, m, bound - d - 1, tw, fl, sl, dist, cp, twist_mv, flip_mv, slice_mv, corner_mv,
                         clsym, twist_conj, phase1, corners, axis_moves):
                alive = False
                break
            canon[d + 1] = ns
            path[d] = m
            if d + 1 < bound and _solved(dist, d + 1):
                alive = False
        if alive and plen == bound:
            # the bounds are all 0 at the last level: solved
            if count < max_solutions:
                for i in range(bound):
                    solutions[count, i] = path[i]
            count += 1
            alive = False
            if not find_all or count >= max_solutions:
                nodes_per_prefix[pi] = nodes
                return (1 if not find_all else 3), solutions, count, nodes_per_prefix
        if alive:
            d = plen
            nxt[d] = 0
            while d >= plen:
                m = nxt[d]
                if m == moves:
                    d -= 1
                    continue
                nxt[d] = m + 1
                ns = next_state[canon[d], m]
                if ns < 0:
                    continue
                nodes += 1
                rem = bound - d - 1
                if not _step(d, m, rem, tw, fl, sl, dist, cp, twist_mv, flip_mv, slice_mv, corner_mv,
                             clsym, twist_conj, phase1, corners, axis_moves):
                    continue
                path[d] = m
                if rem == 0:
                    if count < max_solutions:
                        for i in range(bound):
                            solutions[count, i] = path[i]
                    count += 1
                    if not find_all or count >= max_solutions:
                        nodes_per_prefix[pi] = nodes
                        return (1 if not find_all else 3), solutions, count, nodes_per_prefix
                    continue
                if _solved(dist, d + 1):
                    continue
                if total + nodes > budget:
                    nodes_per_prefix[pi] = nodes
                    return 2, solutions, count, nodes_per_prefix
                canon[d + 1] = ns
                d += 1
                nxt[d] = 0
        nodes_per_prefix[pi] = nodes
        total += nodes
    return 0, solutions, count, nodes_per_prefix

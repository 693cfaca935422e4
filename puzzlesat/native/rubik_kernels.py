"""Numba kernels for the Rubik's cube: pattern-database BFS and the IDA* search.

A cube is held as "where is each cubie": ``cpos[c]``/``cori[c]`` for the 8 corners and
``epos[e]``/``eori[e]`` for the 12 edges.  A move ``m`` sends the cubie at position ``p`` to
``dest[m, p]`` and adds ``add[m, p]`` to its orientation (mod 3 for corners, 2 for edges).

A pattern database (PDB) tracks ``k`` cubies of one kind (Korf 1997, "Finding optimal
solutions to Rubik's Cube using pattern databases"): its index is the rank of their
positions as a partial permutation (mixed radix n, n-1, ..., n-k+1) times ``mod**kor`` plus
their orientations (``kor`` = k, or k-1 when every cubie is tracked, since the last
orientation follows from the others).  Distances are stored 4 bits per entry (two per byte).

Every kernel works on int64/uint8 arrays, holds no Python objects and does no I/O.
"""

from __future__ import annotations

import numpy as np
from numba import njit

UNSEEN = 15  # nibble value of an entry not reached yet (every distance here is < 15)
POPCOUNT = np.array([bin(i).count("1") for i in range(4096)], np.int64)  # 12-bit masks


@njit(cache=True)
def _popcount(x: int) -> int:
    return POPCOUNT[x]


@njit(cache=True)
def pdb_index(pos: np.ndarray, ori: np.ndarray, tracked: np.ndarray, k: int, n: int, mod: int,
              kor: int) -> int:
    """Index of the tracked cubies' positions and orientations (see the module docstring)."""
    used = 0
    rank = 0
    for i in range(k):
        p = pos[tracked[i]]
        rank = rank * (n - i) + p - _popcount(used & ((1 << p) - 1))
        used |= 1 << p
    o = 0
    for i in range(kor):
        o = o * mod + ori[tracked[i]]
    return rank * mod ** kor + o


@njit(cache=True)
def pdb_index_codes(codes: np.ndarray, tracked: np.ndarray, k: int, n: int, mod: int, kor: int) -> int:
    """:func:`pdb_index` for cubies held as ``position * mod + orientation`` codes."""
    used = 0
    rank = 0
    o = 0
    for i in range(k):
        code = codes[tracked[i]]
        p = code // mod
        rank = rank * (n - i) + p - POPCOUNT[used & ((1 << p) - 1)]
        used |= 1 << p
        if i < kor:
            o = o * mod + code - p * mod
    return rank * mod ** kor + o


@njit(cache=True)
def pdb_unrank(index: int, tracked: np.ndarray, k: int, n: int, mod: int, kor: int,
               pos: np.ndarray, ori: np.ndarray) -> None:
    """Inverse of :func:`pdb_index`: fill ``pos`` and ``ori`` of the tracked cubies."""
    omul = mod ** kor
    o = index % omul
    rank = index // omul
    total = 0
    for i in range(kor - 1, -1, -1):
        ori[tracked[i]] = o % mod
        total += o % mod
        o //= mod
    if kor < k:
        ori[tracked[k - 1]] = (mod - total % mod) % mod
    digits = np.empty(k, np.int64)
    for i in range(k - 1, -1, -1):
        digits[i] = rank % (n - i)
        rank //= n - i
    used = 0
    for i in range(k):
        d = digits[i]
        p = 0
        while True:
            if not (used >> p) & 1:
                if d == 0:
                    break
                d -= 1
            p += 1
        pos[tracked[i]] = p
        used |= 1 << p


@njit(cache=True)
def _nibble(table: np.ndarray, i: int) -> int:
    return (table[i >> 1] >> ((i & 1) << 2)) & 15


@njit(cache=True)
def _set_nibble(table: np.ndarray, i: int, value: int) -> None:
    shift = (i & 1) << 2
    table[i >> 1] = (table[i >> 1] & ~(15 << shift)) | (value << shift)


@njit(cache=True)
def bfs_level(table: np.ndarray, offset: int, size: int, depth: int, tracked: np.ndarray, k: int,
              n: int, mod: int, kor: int, dest: np.ndarray, add: np.ndarray, backward: bool) -> int:
    """Fill the entries at ``depth + 1`` of one PDB; returns how many were set.

    Forward: expand every entry at ``depth``.  Backward (cheaper once most entries are
    known): give every unseen entry ``depth + 1`` if one move leads to an entry at ``depth``.
    The move set is closed under inverses, so both directions find the same entries.
    """
    pos = np.zeros(n, np.int64)
    ori = np.zeros(n, np.int64)
    npos = np.zeros(n, np.int64)
    nori = np.zeros(n, np.int64)
    moves = dest.shape[0]
    found = 0
    for idx in range(size):
        value = _nibble(table, offset + idx)
        if backward:
            if value != UNSEEN:
                continue
        elif value != depth:
            continue
        pdb_unrank(idx, tracked, k, n, mod, kor, pos, ori)
        for m in range(moves):
            for i in range(k):
                c = tracked[i]
                npos[c] = dest[m, pos[c]]
                nori[c] = (ori[c] + add[m, pos[c]]) % mod
            nidx = pdb_index(npos, nori, tracked, k, n, mod, kor)
            if backward:
                if _nibble(table, offset + nidx) == depth:
                    _set_nibble(table, offset + idx, depth + 1)
                    found += 1
                    break
            elif _nibble(table, offset + nidx) == UNSEEN:
                _set_nibble(table, offset + nidx, depth + 1)
                found += 1
    return found


@njit(cache=True)
def heuristic(cc: np.ndarray, ec: np.ndarray, specs: np.ndarray, tracked: np.ndarray, table: np.ndarray,
              cutoff: int, sym_pdb: np.ndarray, sym_pre: np.ndarray, sym_code: np.ndarray,
              conj: np.ndarray) -> int:
    """Max over the PDBs, then over edge PDBs looked up on conjugated cubes; stops early once
    the value exceeds ``cutoff``.

    ``cc``/``ec`` hold each corner's/edge's ``position * mod + orientation``;
    ``specs[j] = (kind, k, n, mod, kor, offset)`` with kind 0 = corners, 1 = edges.
    Lookup ``l`` reads edge PDB ``sym_pdb[l]`` on ``S^-1 C S`` for a whole-cube rotation S:
    its tracked edge ``e'`` is the cube's edge ``sym_pre[l, e']``, whose code maps through
    ``sym_code[l, e]``.  Rotations map moves to moves, so this is a lower bound too.
    ``conj`` is scratch space for 12 codes.
    """
    best = 0
    for j in range(specs.shape[0]):
        if specs[j, 0] == 0:
            idx = pdb_index_codes(cc, tracked[j], specs[j, 1], 8, 3, specs[j, 4])
        else:
            idx = pdb_index_codes(ec, tracked[j], specs[j, 1], 12, 2, specs[j, 4])
        value = _nibble(table, specs[j, 5] + idx)
        if value > best:
            best = value
            if best > cutoff:
                return best
    if sym_pdb.shape[0]:
        for lk in range(sym_pdb.shape[0]):
            j = sym_pdb[lk]
            k = specs[j, 1]
            for i in range(k):
                e2 = tracked[j, i]
                e = sym_pre[lk, e2]
                conj[e2] = sym_code[lk, e, ec[e]]
            idx = pdb_index_codes(conj, tracked[j], k, 12, 2, specs[j, 4])
            value = _nibble(table, specs[j, 5] + idx)
            if value > best:
                best = value
                if best > cutoff:
                    return best
    return best


@njit(cache=True)
def _invert(codes: np.ndarray, mod: int, out: np.ndarray) -> None:
    # the inverse cube: cubie c at position p turned by o becomes cubie p at position c turned by -o
    for c in range(codes.shape[0]):
        p = codes[c] // mod
        o = codes[c] - p * mod
        out[p] = c * mod + (mod - o) % mod


@njit(cache=True)
def full_heuristic(cc: np.ndarray, ec: np.ndarray, specs: np.ndarray, tracked: np.ndarray, table: np.ndarray,
                   dual: bool, sym_pdb: np.ndarray, sym_pre: np.ndarray, sym_code: np.ndarray) -> int:
    """The lower bound used by the search, for one state (no cutoff)."""
    conj = np.empty(12, np.int64)
    h = heuristic(cc, ec, specs, tracked, table, 99, sym_pdb, sym_pre, sym_code, conj)
    if dual:
        icc = np.empty(8, np.int64)
        iec = np.empty(12, np.int64)
        _invert(cc, 3, icc)
        _invert(ec, 2, iec)
        h = max(h, heuristic(icc, iec, specs, tracked, table, 99, sym_pdb, sym_pre, sym_code, conj))
    return h


@njit(cache=True)
def _is_solved(cc: np.ndarray, ec: np.ndarray) -> bool:
    for c in range(8):
        if cc[c] != 3 * c:
            return False
    for e in range(12):
        if ec[e] != 2 * e:
            return False
    return True


@njit(cache=True)
def search(cc0: np.ndarray, ec0: np.ndarray, prefixes: np.ndarray, bound: int, ctab: np.ndarray,
           etab: np.ndarray, next_state: np.ndarray, specs: np.ndarray, tracked: np.ndarray,
           table: np.ndarray, dual: bool, find_all: bool, budget: int, max_solutions: int,
           sym_pdb: np.ndarray, sym_pre: np.ndarray, sym_code: np.ndarray):  # noqa: ANN201
    """One IDA* iteration (depth-first search to exactly ``bound`` moves) below each prefix.

    Args:
        cc0, ec0: the position to solve, as cubie codes ``position * mod + orientation``.
        prefixes: ``(P, p)`` canonical first moves; each row's subtree is searched in turn.
        bound: the iteration's threshold (total length, prefix included).
        ctab, etab: ``(M, 24)`` new code of a cubie code under each move of the metric.
        next_state: ``(S, M)`` canonical-sequence automaton; -1 forbids the move.
        specs, tracked, table: the PDBs.
        dual: also look the inverse cube up (its distance is the same).
        find_all: collect every solution of length ``bound`` instead of stopping at one.
        budget: node limit for the whole call.
        max_solutions: capacity of the solution array.
        sym_pdb, sym_pre, sym_code: extra edge lookups on conjugated cubes (see heuristic).

    Returns:
        ``(status, solutions, count, nodes_per_prefix)``: status 0 = subtrees exhausted,
        1 = stopped at the first solution, 2 = node budget spent, 3 = solution array full.
    """
    nprefix, plen = prefixes.shape
    depth_cap = bound + 1
    cc = np.empty((depth_cap, 8), np.int64)
    ec = np.empty((depth_cap, 12), np.int64)
    icc = np.empty(8, np.int64)
    iec = np.empty(12, np.int64)
    conj = np.empty(12, np.int64)
    canon = np.zeros(depth_cap, np.int64)
    next_move = np.zeros(depth_cap, np.int64)
    path = np.zeros(max(depth_cap, 1), np.int64)
    solutions = np.full((max_solutions, max(bound, 1)), -1, np.int64)
    count = 0
    nodes_per_prefix = np.zeros(nprefix, np.int64)
    total_nodes = 0
    moves = next_state.shape[1]
    for pi in range(nprefix):
        nodes = 0
        cc[0, :] = cc0
        ec[0, :] = ec0
        canon[0] = 0
        alive = True
        # P1: walk down the prefix, pruning as the search would
        for d in range(plen):
            m = prefixes[pi, d]
            ns = next_state[canon[d], m]
            if ns < 0 or d >= bound:
                alive = False
                break
            for c in range(8):
                cc[d + 1, c] = ctab[m, cc[d, c]]
            for e in range(12):
                ec[d + 1, e] = etab[m, ec[d, e]]
            canon[d + 1] = ns
            path[d] = m
            nodes += 1
            h = heuristic(cc[d + 1], ec[d + 1], specs, tracked, table, bound - d - 1, sym_pdb, sym_pre, sym_code, conj)
            if d + 1 + h > bound:
                alive = False
                break
            if dual:
                _invert(cc[d + 1], 3, icc)
                _invert(ec[d + 1], 2, iec)
                h = heuristic(icc, iec, specs, tracked, table, bound - d - 1, sym_pdb, sym_pre, sym_code, conj)
                if d + 1 + h > bound:
                    alive = False
                    break
        if not alive:
            nodes_per_prefix[pi] = nodes
            total_nodes += nodes
            continue
        # P2: depth-first search below the prefix; d is the depth of the state on top
        d = plen
        next_move[d] = 0
        if d == 0 and heuristic(cc[0], ec[0], specs, tracked, table, bound, sym_pdb, sym_pre, sym_code, conj) > bound:
            d = -1
        while d >= plen:
            if d == bound:
                if _is_solved(cc[d], ec[d]):
                    if count < max_solutions:
                        for i in range(bound):
                            solutions[count, i] = path[i]
                    count += 1
                    if not find_all:
                        nodes_per_prefix[pi] = nodes
                        return 1, solutions, count, nodes_per_prefix
                    if count >= max_solutions:
                        nodes_per_prefix[pi] = nodes
                        return 3, solutions, count, nodes_per_prefix
                d -= 1
                continue
            m = next_move[d]
            if m >= moves:
                d -= 1
                continue
            next_move[d] = m + 1
            ns = next_state[canon[d], m]
            if ns < 0:
                continue
            for c in range(8):
                cc[d + 1, c] = ctab[m, cc[d, c]]
            for e in range(12):
                ec[d + 1, e] = etab[m, ec[d, e]]
            nodes += 1
            if total_nodes + nodes > budget:
                nodes_per_prefix[pi] = nodes
                return 2, solutions, count, nodes_per_prefix
            h = heuristic(cc[d + 1], ec[d + 1], specs, tracked, table, bound - d - 1, sym_pdb, sym_pre, sym_code, conj)
            if d + 1 + h > bound:
                continue
            if dual:
                _invert(cc[d + 1], 3, icc)
                _invert(ec[d + 1], 2, iec)
                h2 = heuristic(icc, iec, specs, tracked, table, bound - d - 1, sym_pdb, sym_pre, sym_code, conj)
                if d + 1 + h2 > bound:
                    continue
            if h == 0 and d + 1 < bound and _is_solved(cc[d + 1], ec[d + 1]):
                # solved early: anything longer through here is a shorter solution padded
                continue
            path[d] = m
            canon[d + 1] = ns
            next_move[d + 1] = 0
            d += 1
        nodes_per_prefix[pi] = nodes
        total_nodes += nodes
    return 0, solutions, count, nodes_per_prefix

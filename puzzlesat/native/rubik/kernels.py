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

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND, FULL
from puzzlesat.native.rubik.arrays import Codes, Pdbs, Turns

UNSEEN = 15  # nibble value of an entry not reached yet (every distance here is < 15)
POPCOUNT = np.array([bin(i).count("1") for i in range(4096)], np.uint8)  # 12-bit masks


@njit(cache=True)
def _popcount(x: int) -> int:
    return POPCOUNT[x]


@njit(cache=True)
def pdb_index(pos: np.ndarray, ori: np.ndarray, tracked: np.ndarray, k: int, n: int, mod: int, kor: int) -> int:
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
    return rank * mod**kor + o


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
    return rank * mod**kor + o


@njit(cache=True)
def pdb_unrank(
    index: int, tracked: np.ndarray, k: int, n: int, mod: int, kor: int, pos: np.ndarray, ori: np.ndarray
) -> None:
    """Inverse of :func:`pdb_index`: fill ``pos`` and ``ori`` of the tracked cubies."""
    omul = mod**kor
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
def heuristic(cc: np.ndarray, ec: np.ndarray, pdbs: Pdbs, cutoff: int, conj: np.ndarray) -> int:
    """Max over the PDBs, then over edge PDBs looked up on conjugated cubes; stops early once
    the value exceeds ``cutoff``.

    ``cc``/``ec`` hold each corner's/edge's ``position * mod + orientation``;
    ``pdbs.specs[j] = (kind, k, n, mod, kor, offset)`` with kind 0 = corners, 1 = edges.
    Lookup ``l`` reads edge PDB ``sym_pdb[l]`` on ``S^-1 C S`` for a whole-cube rotation S:
    its tracked edge ``e'`` is the cube's edge ``sym_pre[l, e']``, whose code maps through
    ``sym_code[l, e]``.  Rotations map moves to moves, so this is a lower bound too.
    ``conj`` is scratch space for 12 codes.
    """
    specs, tracked, table = pdbs.specs, pdbs.tracked, pdbs.table
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
    for lk in range(pdbs.sym_pdb.shape[0]):
        value = _sym_lookup(ec, lk, pdbs, conj)
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
def full_heuristic(cube: Codes, pdbs: Pdbs) -> int:
    """The lower bound used by the search, for one state (no cutoff)."""
    cc, ec = cube.corners, cube.edges
    conj = np.empty(12, np.int64)
    h = heuristic(cc, ec, pdbs, 99, conj)
    if pdbs.dual:
        icc = np.empty(8, np.int64)
        iec = np.empty(12, np.int64)
        _invert(cc, 3, icc)
        _invert(ec, 2, iec)
        h = max(h, heuristic(icc, iec, pdbs, 99, conj))
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
def _one_move_away(cc: np.ndarray, ec: np.ndarray) -> bool:
    """False when no single face turn can solve the cube (it moves only 4 corners and 4 edges)."""
    off = 0
    for c in range(8):
        if cc[c] != 3 * c:
            off += 1
    if off > 4:
        return False
    off = 0
    for e in range(12):
        if ec[e] != 2 * e:
            off += 1
    return off <= 4


@njit(cache=True)
def _lookup(
    codes: np.ndarray, j: int, n: int, mod: int, specs: np.ndarray, tracked: np.ndarray, table: np.ndarray
) -> int:
    idx = pdb_index_codes(codes, tracked[j], specs[j, 1], n, mod, specs[j, 4])
    return _nibble(table, specs[j, 5] + idx)


@njit(cache=True)
def _sym_lookup(ec: np.ndarray, lk: int, pdbs: Pdbs, conj: np.ndarray) -> int:
    """Lookup ``lk`` on a rotated cube (see :func:`heuristic`); ``conj``: scratch for 12 codes."""
    specs, tracked, table = pdbs.specs, pdbs.tracked, pdbs.table
    sym_pdb, sym_pre, sym_code = pdbs.sym_pdb, pdbs.sym_pre, pdbs.sym_code
    j = sym_pdb[lk]
    k = specs[j, 1]
    for i in range(k):
        e2 = tracked[j, i]
        e = sym_pre[lk, e2]
        conj[e2] = sym_code[lk, e, ec[e]]
    idx = pdb_index_codes(conj, tracked[j], k, 12, 2, specs[j, 4])
    return _nibble(table, specs[j, 5] + idx)


@njit(cache=True)
def prunes(
    cc: np.ndarray, ec: np.ndarray, rem: int, pdbs: Pdbs, icc: np.ndarray, iec: np.ndarray, conj: np.ndarray
) -> bool:
    """True when some lower bound of the state exceeds ``rem`` moves.

    The same bounds as :func:`full_heuristic`, read cheapest and likeliest to prune first
    (corner PDBs on the cube and its inverse, then the edge PDBs, then the lookups on
    rotated cubes), stopping at the first that prunes.  ``rem`` 0 and 1 are decided
    without memory traffic where possible.  ``icc``, ``iec``, ``conj``: scratch for 8, 12 and 12 codes.
    """
    specs, tracked, table, dual = pdbs.specs, pdbs.tracked, pdbs.table, pdbs.dual
    if rem == 0:
        return not _is_solved(cc, ec)
    if rem == 1 and not _one_move_away(cc, ec):
        return True
    nspec = specs.shape[0]
    for j in range(nspec):
        if specs[j, 0] == 0 and _lookup(cc, j, 8, 3, specs, tracked, table) > rem:
            return True
    if dual:
        _invert(cc, 3, icc)
        for j in range(nspec):
            if specs[j, 0] == 0 and _lookup(icc, j, 8, 3, specs, tracked, table) > rem:
                return True
    for j in range(nspec):
        if specs[j, 0] == 1 and _lookup(ec, j, 12, 2, specs, tracked, table) > rem:
            return True
    if dual:
        _invert(ec, 2, iec)
        for j in range(nspec):
            if specs[j, 0] == 1 and _lookup(iec, j, 12, 2, specs, tracked, table) > rem:
                return True
    for lk in range(pdbs.sym_pdb.shape[0]):
        if _sym_lookup(ec, lk, pdbs, conj) > rem:
            return True
        if dual and _sym_lookup(iec, lk, pdbs, conj) > rem:
            return True
    return False


@njit(cache=True)
def _row_solved(kc: np.ndarray, ke: np.ndarray, i: int) -> bool:
    for c in range(8):
        if kc[i, c] != 3 * c:
            return False
    for e in range(12):
        if ke[i, e] != 2 * e:
            return False
    return True


@njit(cache=True)
def _row_one_move_away(kc: np.ndarray, ke: np.ndarray, i: int) -> bool:
    off = 0
    for c in range(8):
        if kc[i, c] != 3 * c:
            off += 1
    if off > 4:
        return False
    off = 0
    for e in range(12):
        if ke[i, e] != 2 * e:
            off += 1
    return off <= 4


@njit(cache=True)
def corner_index_row(codes: np.ndarray, row: int, tracked: np.ndarray, j: int, k: int, kor: int) -> int:
    """:func:`corner_index` of ``codes[row]`` for the PDB ``j`` (no array views in the hot path)."""
    used = 0
    rank = 0
    o = 0
    omul = 1
    for i in range(k):
        code = codes[row, tracked[j, i]]
        p = code // 3
        rank = rank * (8 - i) + p - np.int64(POPCOUNT[used & ((1 << p) - 1)])
        used |= 1 << p
        if i < kor:
            o = o * 3 + code - p * 3
            omul *= 3
    return rank * omul + o


@njit(cache=True)
def edge_index_row(codes: np.ndarray, row: int, tracked: np.ndarray, j: int, k: int, kor: int) -> int:
    """:func:`edge_index` of ``codes[row]`` for the PDB ``j``."""
    used = 0
    rank = 0
    o = 0
    for i in range(k):
        code = codes[row, tracked[j, i]]
        p = code >> 1
        rank = rank * (12 - i) + p - np.int64(POPCOUNT[used & ((1 << p) - 1)])
        used |= 1 << p
        if i < kor:
            o = (o << 1) | (code & 1)
    return (rank << kor) + o


@njit(cache=True)
def _invert_row(codes: np.ndarray, row: int, n: int, mod: int, out: np.ndarray) -> None:
    for c in range(n):
        p = codes[row, c] // mod
        o = codes[row, c] - p * mod
        out[0, p] = c * mod + (mod - o) % mod


@njit(cache=True)
def _gather(table: np.ndarray, idx: np.ndarray, nq: int, vals: np.ndarray) -> None:
    # a tight loop of independent loads: the CPU keeps many cache misses in flight at once
    for q in range(nq):
        i = idx[q]
        vals[q] = (table[i >> 1] >> ((i & 1) << 2)) & 15


@njit(cache=True)
def _compact(kc: np.ndarray, ke: np.ndarray, km: np.ndarray, kns: np.ndarray, n: int, alive: np.ndarray) -> int:
    w = 0
    for i in range(n):
        if alive[i]:
            if w != i:
                kc[w, :] = kc[i, :]
                ke[w, :] = ke[i, :]
                km[w] = km[i]
                kns[w] = kns[i]
            w += 1
    return w


@njit(cache=True)
def _keep_within(table: np.ndarray, q: int, n: int, rem: int, kids, scratch) -> int:  # noqa: ANN001
    """Read the ``q`` queued lookups (``q // n`` per child) and keep the children whose bounds all fit ``rem``."""
    idx, vals, alive = scratch[0], scratch[1], scratch[2]
    _gather(table, idx, q, vals)
    per = q // n
    for i in range(n):
        ok = True
        for t in range(per):
            if vals[i * per + t] > rem:
                ok = False
        alive[i] = ok
    return _compact(kids[0], kids[1], kids[2], kids[3], n, alive)


@njit(cache=True)
def _stage(kind: int, n: int, rem: int, kids, pdbs: Pdbs, scratch) -> int:  # noqa: ANN001
    """Look the ``kind`` PDBs up for every child (and its inverse): indices first, then the loads.

    ``kids``, ``scratch``: see :func:`expand`.
    """
    kc, ke = kids[0], kids[1]
    specs, tracked, dual = pdbs.specs, pdbs.tracked, pdbs.dual
    idx, icc, iec = scratch[0], scratch[3], scratch[4]
    q = 0
    for i in range(n):
        if kind == 0:
            for j in range(specs.shape[0]):
                if specs[j, 0] == 0:
                    idx[q] = specs[j, 5] + corner_index_row(kc, i, tracked, j, specs[j, 1], specs[j, 4])
                    q += 1
            if dual:
                _invert_row(kc, i, 8, 3, icc)
                for j in range(specs.shape[0]):
                    if specs[j, 0] == 0:
                        idx[q] = specs[j, 5] + corner_index_row(icc, 0, tracked, j, specs[j, 1], specs[j, 4])
                        q += 1
        else:
            for j in range(specs.shape[0]):
                if specs[j, 0] == 1:
                    idx[q] = specs[j, 5] + edge_index_row(ke, i, tracked, j, specs[j, 1], specs[j, 4])
                    q += 1
            if dual:
                _invert_row(ke, i, 12, 2, iec)
                for j in range(specs.shape[0]):
                    if specs[j, 0] == 1:
                        idx[q] = specs[j, 5] + edge_index_row(iec, 0, tracked, j, specs[j, 1], specs[j, 4])
                        q += 1
    if q == 0:
        return n
    return _keep_within(pdbs.table, q, n, rem, kids, scratch)


@njit(cache=True)
def _sym_stage(n: int, rem: int, kids, pdbs: Pdbs, scratch) -> int:  # noqa: ANN001
    """The edge lookups on rotated cubes for every child, batched like :func:`_stage`."""
    sym_pdb, sym_pre, sym_code = pdbs.sym_pdb, pdbs.sym_pre, pdbs.sym_code
    nsym = sym_pdb.shape[0]
    if nsym == 0 or n == 0:
        return n
    ke = kids[1]
    specs, tracked, dual = pdbs.specs, pdbs.tracked, pdbs.dual
    idx, iec, conj = scratch[0], scratch[4], scratch[5]
    q = 0
    for i in range(n):
        for side in range(2 if dual else 1):
            if side == 0:
                for e in range(12):
                    iec[0, e] = ke[i, e]
            else:
                _invert_row(ke, i, 12, 2, iec)
            for lk in range(nsym):
                j = sym_pdb[lk]
                k = specs[j, 1]
                for t in range(k):
                    e2 = tracked[j, t]
                    e = sym_pre[lk, e2]
                    conj[0, e2] = sym_code[lk, e, iec[0, e]]
                idx[q] = specs[j, 5] + edge_index_row(conj, 0, tracked, j, k, specs[j, 4])
                q += 1
    return _keep_within(pdbs.table, q, n, rem, kids, scratch)


@njit(cache=True)
def expand(cc: np.ndarray, ec: np.ndarray, state: int, rem: int, turns: Turns, pdbs: Pdbs, kids, scratch):  # noqa: ANN001, ANN201
    """Generate the canonical children of a state and keep those that pass every bound for ``rem``.

    The bounds are read in stages, cheapest and likeliest to prune first (corner PDBs of
    each child and its inverse, then the edge PDBs, then the rotated-cube lookups); each
    stage computes all its indices before loading, so the memory accesses overlap.
    Returns ``(generated, kept)``; the kept children are in ``kids``: ``(kc, ke, km, kns)``,
    their corner and edge codes, move and automaton state, in move order.  ``scratch``:
    ``(idx, vals, alive, icc, iec, conj)``, the lookups' indices and values, a flag per
    child, and ``(1, 8)``, ``(1, 12)``, ``(1, 12)`` rows of codes.
    """
    ctab, etab, next_state = turns.ctab, turns.etab, turns.next_state
    kc, ke, km, kns = kids
    alive = scratch[2]
    n = 0
    for m in range(next_state.shape[1]):
        ns = next_state[state, m]
        if ns < 0:
            continue
        for c in range(8):
            kc[n, c] = ctab[m, cc[c]]
        for e in range(12):
            ke[n, e] = etab[m, ec[e]]
        km[n] = m
        kns[n] = ns
        n += 1
    generated = n
    if rem == 0:
        for i in range(n):
            alive[i] = _row_solved(kc, ke, i)
        return generated, _compact(kc, ke, km, kns, n, alive)
    for i in range(n):
        # a state solved before the bound is a shorter solution padded; at rem 1 only
        # states one face turn from solved can pass
        alive[i] = not _row_solved(kc, ke, i) and (rem > 1 or _row_one_move_away(kc, ke, i))
    n = _compact(kc, ke, km, kns, n, alive)
    if n == 0:
        return generated, 0
    n = _stage(0, n, rem, kids, pdbs, scratch)
    if n == 0:
        return generated, 0
    n = _stage(1, n, rem, kids, pdbs, scratch)
    n = _sym_stage(n, rem, kids, pdbs, scratch)
    return generated, n


@njit(cache=True)
def search(
    cube: Codes,
    prefixes: np.ndarray,
    bound: int,
    turns: Turns,
    pdbs: Pdbs,
    find_all: bool,
    budget: int,
    max_solutions: int,
):  # noqa: ANN201
    """One IDA* iteration (depth-first search to exactly ``bound`` moves) below each prefix.

    Args:
        cube: the position to solve, as cubie codes ``position * mod + orientation``.
        prefixes: ``(P, p)`` canonical first moves; each row's subtree is searched in turn.
        bound: the iteration's threshold (total length, prefix included).
        turns: the moves on cubie codes, and the canonical-sequence automaton.
        pdbs: the PDBs, and the extra edge lookups on conjugated cubes (see :func:`heuristic`).
        find_all: collect every solution of length ``bound`` instead of stopping at one.
        budget: node limit for the whole call.
        max_solutions: capacity of the solution array.

    Returns:
        ``(status, solutions, count, nodes_per_prefix)``: status EXHAUSTED (every subtree
        searched), FOUND (stopped at the first solution), BUDGET (node budget spent) or FULL
        (the solution array is full).
        A node is a state generated by a move (then pruned or expanded).
    """
    cc0, ec0 = cube.corners, cube.edges
    ctab, etab, next_state = turns.ctab, turns.etab, turns.next_state
    nprefix, plen = prefixes.shape
    depth_cap = bound + 1
    moves = next_state.shape[1]
    nsym = pdbs.sym_pdb.shape[0]
    cc = np.empty((depth_cap, 8), np.int64)
    ec = np.empty((depth_cap, 12), np.int64)
    kc = np.empty((depth_cap, moves, 8), np.int64)
    ke = np.empty((depth_cap, moves, 12), np.int64)
    km = np.zeros((depth_cap, moves), np.int64)
    kns = np.zeros((depth_cap, moves), np.int64)
    nkids = np.zeros(depth_cap, np.int64)
    pos = np.zeros(depth_cap, np.int64)
    idx = np.zeros(moves * 2 * max(pdbs.specs.shape[0], nsym, 1), np.int64)
    vals = np.zeros(idx.shape[0], np.int64)
    alive = np.zeros(moves, np.bool_)
    icc = np.empty(8, np.int64)
    iec = np.empty(12, np.int64)
    conj = np.empty(12, np.int64)
    icc2 = np.empty((1, 8), np.int64)
    iec2 = np.empty((1, 12), np.int64)
    conj2 = np.empty((1, 12), np.int64)
    scratch = (idx, vals, alive, icc2, iec2, conj2)
    canon = np.zeros(depth_cap, np.int64)
    path = np.zeros(max(depth_cap, 1), np.int64)
    solutions = np.full((max_solutions, max(bound, 1)), -1, np.int64)
    count = 0
    nodes_per_prefix = np.zeros(nprefix, np.int64)
    total_nodes = 0
    for pi in range(nprefix):
        nodes = 0
        cc[0, :] = cc0
        ec[0, :] = ec0
        canon[0] = 0
        alive_prefix = True
        # P1: walk down the prefix, pruning as the search would
        for d in range(plen):
            m = prefixes[pi, d]
            ns = next_state[canon[d], m]
            if ns < 0 or d >= bound:
                alive_prefix = False
                break
            for c in range(8):
                cc[d + 1, c] = ctab[m, cc[d, c]]
            for e in range(12):
                ec[d + 1, e] = etab[m, ec[d, e]]
            canon[d + 1] = ns
            path[d] = m
            nodes += 1
            if prunes(cc[d + 1], ec[d + 1], bound - d - 1, pdbs, icc, iec, conj):
                alive_prefix = False
                break
            if d + 1 < bound and _is_solved(cc[d + 1], ec[d + 1]):
                alive_prefix = False
                break
        if alive_prefix and plen == 0 and prunes(cc[0], ec[0], bound, pdbs, icc, iec, conj):
            alive_prefix = False
        if not alive_prefix:
            nodes_per_prefix[pi] = nodes
            total_nodes += nodes
            continue
        if plen == bound:
            # the prefix itself reached the bound, solved (prunes() with rem 0)
            if count < max_solutions:
                for i in range(bound):
                    solutions[count, i] = path[i]
            count += 1
            nodes_per_prefix[pi] = nodes
            total_nodes += nodes
            if not find_all:
                return FOUND, solutions, count, nodes_per_prefix
            if count >= max_solutions:
                return FULL, solutions, count, nodes_per_prefix
            continue
        # P2: depth-first search below the prefix; d is the depth of the state being expanded
        d = plen
        gen, nkids[d] = expand(
            cc[d], ec[d], int(canon[d]), bound - d - 1, turns, pdbs, (kc[d], ke[d], km[d], kns[d]), scratch
        )
        nodes += gen
        pos[d] = 0
        while d >= plen:
            if pos[d] >= nkids[d]:
                d -= 1
                continue
            k = pos[d]
            pos[d] = k + 1
            path[d] = km[d, k]
            if d + 1 == bound:
                # kept children at the bound are solved
                if count < max_solutions:
                    for i in range(bound):
                        solutions[count, i] = path[i]
                count += 1
                if not find_all:
                    nodes_per_prefix[pi] = nodes
                    return FOUND, solutions, count, nodes_per_prefix
                if count >= max_solutions:
                    nodes_per_prefix[pi] = nodes
                    return FULL, solutions, count, nodes_per_prefix
                continue
            cc[d + 1, :] = kc[d, k, :]
            ec[d + 1, :] = ke[d, k, :]
            canon[d + 1] = kns[d, k]
            d += 1
            if total_nodes + nodes > budget:
                nodes_per_prefix[pi] = nodes
                return BUDGET, solutions, count, nodes_per_prefix
            gen, nkids[d] = expand(
                cc[d], ec[d], int(canon[d]), bound - d - 1, turns, pdbs, (kc[d], ke[d], km[d], kns[d]), scratch
            )
            nodes += gen
            pos[d] = 0
        nodes_per_prefix[pi] = nodes
        total_nodes += nodes
    return EXHAUSTED, solutions, count, nodes_per_prefix

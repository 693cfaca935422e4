"""Coordinates, symmetries and pruning tables for the phase-1 optimal solver (Reid, Kociemba).

Coordinates of a cube (Kociemba's cubie model, see :mod:`puzzlesat.domains.rubik`):

- ``twist`` (3^7 = 2187): the corner orientations;
- ``flip`` (2^11 = 2048): the edge orientations;
- ``slice`` (12*11*10*9 = 11880): where the four UD-slice edges FR FL BL BR are, in order;
- ``corners`` (8! = 40320): the corner permutation.

A move changes each coordinate through a move table.  The *phase-1x24 distance* of a cube
is the number of moves that bring twist, flip and slice all home (every edge and corner
oriented, the slice edges home and in order).  It is unchanged by the 16 symmetries that
keep the UD axis (rotations about it, the half turn about FB and the left-right mirror),
so the table is indexed by the symmetry class of ``flipslice = slice * 2048 + flip``
(1,523,864 classes of 24,330,240) and the twist as seen from the class representative:
1,523,864 * 2187 distances, 4 bits each (1.67 GB): exact up to the last level the build
makes, then one value for the rest (:func:`next_way`; HTM: exact to 10, 11 for 11 to 13, so
every entry is a lower bound).  Looking the same table up on the
cube conjugated by the URF diagonal rotation (the RL and FB axes) gives three bounds for
one table, and looking it up on the inverse cube three more (a cube and its inverse are
equally far from solved; :func:`inverse_tables`).  A distance of the inverse is not within
one of its parent's, which is why the table holds the distances rather than the values
mod 3 of Kociemba's solver.  A second table gives the exact distance of the corners (permutation
and twist, 88,179,840 entries, one byte each).

The ``phase1x12`` set stores its table in 2 bits per entry, a window of three distances
above a base (:func:`pack2`, :func:`distance`): 0.42 GB for 1.67 G entries.

Tables are built when first needed, or ahead by ``puzzlesat tables build``, with every core
(progress and the time left reported, :mod:`puzzlesat.core.progress`), in a work folder that
lets a stopped build resume, and kept in the cache folder like every set of the cube
(:mod:`.cache`: digests and stamps checked when loaded, rebuilt when damaged).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from puzzlesat.core import progress
from puzzlesat.core.cache import cache_dir
from puzzlesat.domains.rubik import SOLVED, Cube, move_cubes
from puzzlesat.native.memory import huge_page_copy
from puzzlesat.native.rubik.symmetry import axis_symmetries, edge_maps, move_index, symmetry_inverses, ud_symmetries
from puzzlesat.native.rubik.tables import move_set
from puzzlesat.native.table_build import BuildStopped, Progress, Workspace

VERSION = 3  # 1: distances mod 3 in 2 bits; 2: every distance exact (3: the tail as one value, see build)
N_TWIST, N_FLIP, N_SLICE, N_CORNERS = 2187, 2048, 11880, 40320
N_FLIPSLICE = N_SLICE * N_FLIP
# table set -> how many orders of the four slice edges its slice coordinate tells apart
TABLE_SETS = {"phase1": 24, "phase1x6": 6, "phase1x12": 12}
TWO_BITS = ("phase1x12",)  # the sets whose table is packed by pack2
TOP_CODES = 3  # a 2-bit table's codes above its base: the base is its largest value minus this
CLASSES = {24: 1_523_864, 12: 763_160, 6: 382_780}  # slice orders told apart -> flipslice symmetry classes
ROW = 2188  # entries per class row (2187 twists + 1 pad: a row is 1094 whole bytes)
ROW_BYTES = ROW // 2
EMPTY = 15


# ----------------------------------------------------------------------------- coordinates


@njit(cache=True)
def orientation_of(o: np.ndarray, n: int, mod: int) -> int:
    """The orientations of the first ``n`` pieces as a base-``mod`` number (the last
    piece's orientation follows from the others)."""
    x = 0
    for i in range(n):
        x = mod * x + o[i]
    return x


@njit(cache=True)
def set_orientation(x: int, o: np.ndarray, n: int, mod: int) -> None:
    """The inverse of :func:`orientation_of`, completing piece ``n`` so the sum is 0 mod ``mod``."""
    total = 0
    for i in range(n - 1, -1, -1):
        o[i] = x % mod
        total += o[i]
        x //= mod
    o[n] = (mod - total % mod) % mod


@njit(cache=True)
def twist_of(co: np.ndarray) -> int:
    return orientation_of(co, 7, 3)


@njit(cache=True)
def set_twist(t: int, co: np.ndarray) -> None:
    set_orientation(t, co, 7, 3)


@njit(cache=True)
def flip_of(eo: np.ndarray) -> int:
    return orientation_of(eo, 11, 2)


@njit(cache=True)
def set_flip(f: int, eo: np.ndarray) -> None:
    set_orientation(f, eo, 11, 2)


@njit(cache=True)
def slice_of(ep: np.ndarray) -> int:
    """Positions of edges 8, 9, 10, 11 in turn, each ranked among the positions still free."""
    used = 0
    s = 0
    for e in range(8, 12):
        p = 0
        while ep[p] != e:
            p += 1
        rank = 0
        for q in range(p):
            if not (used >> q) & 1:
                rank += 1
        s = s * (20 - e) + rank
        used |= 1 << p
    return s


@njit(cache=True)
def set_slice(s: int, ep: np.ndarray) -> None:
    """Edges 8..11 where ``s`` puts them; the other positions get edges 0..7 in order."""
    ranks = np.empty(4, np.int64)
    for k in range(3, -1, -1):
        ranks[k] = s % (12 - k)
        s //= 12 - k
    for i in range(12):
        ep[i] = -1
    for k in range(4):
        r = ranks[k]
        p = 0
        while True:
            if ep[p] == -1:
                if r == 0:
                    break
                r -= 1
            p += 1
        ep[p] = 8 + k
    e = 0
    for i in range(12):
        if ep[i] == -1:
            ep[i] = e
            e += 1


def slice_reduction(orders: int) -> tuple[np.ndarray, np.ndarray]:
    """The slice coordinate of a table set: ``(reduced, reps)``, ``reduced[s]`` for each
    ordered slice ``s`` and one ordered ``reps[r]`` for each reduced value ``r``.

    With 24 orders it is the ordered slice itself.  With 6, two orders are the same when
    they differ by a double swap of slice edges (FR<->FL with BL<->BR, and so on: the Klein
    four-group, normal in the group of all 24 orders).  That relabelling commutes with the
    moves (which move places, not names) and is kept by every symmetry of the UD axis
    (which renames the slice edges among themselves and flips all four or none), so the
    reduced coordinate has its own move tables and symmetry classes, and its goal, a
    group that holds every U and D turn, keeps the search's rules valid.  With 12, two
    orders are the same when they differ by the slice's half turn (FR<->BL with FL<->BR):
    that subgroup is not normal, but the relabelling is still of names only, and every
    symmetry of the UD axis maps the two diagonal pairs to themselves or to each other,
    so it maps the half turn to itself and the same holds.
    """
    if orders == 24:
        return np.arange(N_SLICE, dtype=np.int16), np.arange(N_SLICE, dtype=np.int64)
    if orders not in (6, 12):
        raise ValueError(f"no slice reduction keeping {orders} orders")
    swaps = ((0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 0, 1), (3, 2, 1, 0)) if orders == 6 else ((0, 1, 2, 3), (2, 3, 0, 1))
    ep = np.empty(12, np.int64)
    canonical = np.empty(N_SLICE, np.int64)
    for x in range(N_SLICE):
        set_slice(x, ep)
        places = [int(np.flatnonzero(ep == 8 + k)[0]) for k in range(4)]
        best = N_SLICE
        for perm in swaps:
            ep[:] = 0
            for k in range(4):
                ep[places[perm[k]]] = 8 + k
            best = min(best, int(slice_of(ep)))
        canonical[x] = best
    reps, reduced = np.unique(canonical, return_inverse=True)
    return reduced.astype(np.int16), reps.astype(np.int64)


@njit(cache=True)
def corners_of(cp: np.ndarray) -> int:
    c = 0
    for i in range(8):
        smaller = 0
        for j in range(i + 1, 8):
            if cp[j] < cp[i]:
                smaller += 1
        c = c * (8 - i) + smaller
    return c


@njit(cache=True)
def set_corners(c: int, cp: np.ndarray) -> None:
    digits = np.empty(8, np.int64)
    for i in range(7, -1, -1):
        digits[i] = c % (8 - i)
        c //= 8 - i
    used = 0
    for i in range(8):
        r = digits[i]
        v = 0
        while True:
            if not (used >> v) & 1:
                if r == 0:
                    break
                r -= 1
            v += 1
        cp[i] = v
        used |= 1 << v


def coordinates(cube: Cube) -> tuple[int, int, int, int]:
    """``(twist, flip, slice, corners)`` of a cube, in plain Python: the root's coordinates are
    known before numba has loaded anything (its first use costs a second or more)."""
    twist = 0
    for o in cube.co[:7]:
        twist = 3 * twist + o
    flip = 0
    for o in cube.eo[:11]:
        flip = 2 * flip + o
    slc, used = 0, 0
    for e in range(8, 12):
        p = cube.ep.index(e)
        slc = slc * (20 - e) + sum(1 for q in range(p) if not (used >> q) & 1)
        used |= 1 << p
    corners = 0
    for i in range(8):
        corners = corners * (8 - i) + sum(1 for j in range(i + 1, 8) if cube.cp[j] < cube.cp[i])
    return twist, flip, slc, corners


@njit(cache=True)
def _move_tables(mcp: np.ndarray, mco: np.ndarray, mep: np.ndarray, meo: np.ndarray):  # noqa: ANN202
    nm = mcp.shape[0]
    twist = np.empty((N_TWIST, nm), np.int16)
    flip = np.empty((N_FLIP, nm), np.int16)
    slc = np.empty((N_SLICE, nm), np.int16)
    corners = np.empty((N_CORNERS, nm), np.uint16)
    a = np.empty(12, np.int64)
    b = np.empty(12, np.int64)
    for m in range(nm):
        for t in range(N_TWIST):
            set_twist(t, a)
            for i in range(8):
                b[i] = (a[mcp[m, i]] + mco[m, i]) % 3
            twist[t, m] = twist_of(b)
        for f in range(N_FLIP):
            set_flip(f, a)
            for i in range(12):
                b[i] = a[mep[m, i]] ^ meo[m, i]
            flip[f, m] = flip_of(b)
        for s in range(N_SLICE):
            set_slice(s, a)
            for i in range(12):
                b[i] = a[mep[m, i]]
            slc[s, m] = slice_of(b)
        for c in range(N_CORNERS):
            set_corners(c, a)
            for i in range(8):
                b[i] = a[mcp[m, i]]
            corners[c, m] = corners_of(b)
    return twist, flip, slc, corners


@njit(cache=True)
def _classes(emaps: np.ndarray, inverse: np.ndarray, reduced: np.ndarray, slice_reps: np.ndarray):  # noqa: ANN202
    """Symmetry classes of flipslice (``slice * 2048 + flip``, the slice reduced by
    :func:`slice_reduction`): ``clsym[x] = class << 4 | s`` with ``sym_s(x)`` the class
    representative (the smallest member), ``reps``, and each class's self-symmetries."""
    n_flipslice = slice_reps.shape[0] * N_FLIP
    clsym = np.full(n_flipslice, 0xFFFFFFFF, np.uint32)
    reps = np.empty(n_flipslice // 8, np.int64)
    selfsym = np.zeros(n_flipslice // 8, np.uint16)
    ep = np.empty(12, np.int64)
    eo = np.empty(12, np.int64)
    ep2 = np.empty(12, np.int64)
    eo2 = np.empty(12, np.int64)
    ncls = 0
    for x in range(n_flipslice):
        if clsym[x] != 0xFFFFFFFF:
            continue
        set_slice(slice_reps[x // N_FLIP], ep)
        set_flip(x % N_FLIP, eo)
        for s in range(emaps.shape[0]):
            for i in range(12):
                q = emaps[s, 1, i]
                ep2[i] = emaps[s, 0, ep[q]]
                eo2[i] = eo[q] ^ emaps[s, 2, i] ^ emaps[s, 3, ep[q]]
            y = reduced[slice_of(ep2)] * N_FLIP + flip_of(eo2)
            if y == x:
                selfsym[ncls] |= 1 << s
            if clsym[y] == 0xFFFFFFFF:
                clsym[y] = (ncls << 4) | inverse[s]
        reps[ncls] = x
        ncls += 1
    return clsym, reps[:ncls].copy(), selfsym[:ncls].copy()


# ----------------------------------------------------------------------------- pruning tables


@njit(cache=True, inline="always")
def get4(table: np.ndarray, i: int) -> int:
    return (table[i >> 1] >> ((i & 1) << 2)) & 15


@njit(cache=True, inline="always")
def entry_byte(i: int, base: int) -> int:
    """The byte that holds entry ``i`` of a phase-1 table (4 bits an entry when ``base`` < 0,
    else 2): what to prefetch."""
    return i >> 1 if base < 0 else i >> 2


@njit(cache=True, inline="always")
def distance(table: np.ndarray, i: int, base: int) -> int:
    """Entry ``i`` of a phase-1 table as a lower bound: exact in a 4-bit table (``base`` < 0);
    in a 2-bit one (:func:`pack2`) ``base + code`` for codes 1 to 3, and 0 for code 0."""
    if base < 0:
        return get4(table, i)
    code = (table[entry_byte(i, base)] >> ((i & 3) << 1)) & 3
    return base + code if code else 0


@njit(cache=True)
def pack2(table: np.ndarray, base: int) -> np.ndarray:
    """A 4-bit table in 2 bits per entry: code 0 for a distance up to ``base``, ``d - base``
    above it, 3 for ``base + 3`` and more (a lower bound again).

    nxopt's and H48's idea, without their fallback.  The search reads the code as a lower
    bound (:func:`distance`), and on the cube's own axes also takes its parent's distance
    minus one, so what the window loses shows only deep in the tree, where few nodes are.
    """
    out = np.zeros(table.size // 2, np.uint8)
    for i in range(table.size * 2):
        v = get4(table, i)
        code = 0 if v <= base else min(v - base, 3)
        out[i >> 2] |= code << ((i & 3) << 1)
    return out


@njit(cache=True, inline="always")
def phase1_index(clsym: np.ndarray, twist_conj: np.ndarray, flipslice: int, twist: int) -> int:
    """The phase-1 table index of a cube's ``flipslice`` (``slice * 2048 + flip``) and twist:
    its class row, at the twist as seen from the class representative."""
    cs = clsym[flipslice]
    return (cs >> 4) * ROW + twist_conj[twist, cs & 15]


@njit(cache=True, inline="always")
def _set4(table: np.ndarray, i: int, v: int) -> None:
    sh = (i & 1) << 2
    table[i >> 1] = (table[i >> 1] & ~(15 << sh)) | (v << sh)


FORWARD_CHUNKS = 512  # a forward level's units of source rows (1/512 of them each); a group runs 32


def twist_steps(twist_mv: np.ndarray, twist_conj: np.ndarray) -> np.ndarray:
    """``(M, 16, 2187)``: ``steps[m, s, t]`` is twist ``t`` after move ``m``, as seen through
    symmetry ``s``.  A build's level reads a row's twists in order through one ``(m, s)``
    slice (4.4 KB, read in order) instead of two tables read across."""
    return np.ascontiguousarray(twist_conj[twist_mv.T.astype(np.int64)].transpose(0, 2, 1))


@njit(cache=True, inline="never")  # its own function: numba's parallel pass stalls on it inlined
def _spread(table: np.ndarray, base: int, step: np.ndarray, rows: np.ndarray, n: int, value: int) -> int:
    """Give ``value`` to the empty entries among ``base + step[rows[j]]``, ``j < n``; how many.

    Without a branch (the test's outcome is a number that masks the write): about half the
    entries a big level meets are empty, a branch the processor cannot guess.  On the level
    from depth 9 to 10 of ``phase1`` this takes 0.6 of the CPU time of the branching loop."""
    new = 0
    for j in range(n):
        i = base + step[rows[j]]
        at = i >> 1
        shift = (i & 1) << 2
        v = np.int64(table[at])
        empty = int(((v >> shift) & 15) == EMPTY)
        table[at] = v ^ ((empty * (EMPTY ^ value)) << shift)
        new += empty
    return new


@njit(cache=True, parallel=True)
def _phase1_forward(
    table, depth, reps, clsym, selfsym, flip_mv, slice_mv, steps, twist_conj, live, reached, first, last, parts
):  # noqa: ANN001, ANN202, E501
    """Fill every empty neighbour of the entries at ``depth`` in chunks ``first`` to ``last - 1``
    of the class rows with ``depth + 1``; how many.  Two passes: the threads share out the
    source rows, and list each one's twists at ``depth`` and its neighbours' classes under
    every move; then each of the ``parts`` threads writes only the neighbours in its own rows
    (blocks of 64 rows dealt in turn): no two threads write one byte, so an entry is set with
    a plain write, without a compare-and-swap, and the table comes out the same in any order.
    A chunk run again only fills what is still empty.  Only rows marked in ``live`` are read
    (it holds every row with an entry at ``depth``); a row given an entry is marked in ``reached``."""
    nd = depth + 1
    nm = flip_mv.shape[1]
    ncls = reps.shape[0]
    lo, hi = first * ncls // FORWARD_CHUNKS, last * ncls // FORWARD_CHUNKS
    counts = np.zeros(hi - lo + 1, np.int64)  # counts[r + 1]: row lo + r's entries at depth
    for r in prange(hi - lo):
        c = lo + r
        if live[c] == 0:
            continue
        n = 0
        for b in range(ROW_BYTES):  # (a row's pad entry reads EMPTY, never a depth)
            byte = table[c * ROW_BYTES + b]
            if byte != 0xFF:
                n += int(byte & 15 == depth) + int(byte >> 4 == depth)
        counts[r + 1] = n
    starts = np.cumsum(counts)
    twists = np.empty(starts[-1], np.int16)
    near = np.empty((hi - lo, nm), np.uint32)  # the class and symmetry of each row's neighbour under each move
    for r in prange(hi - lo):
        if counts[r + 1] == 0:
            continue
        c = lo + r
        at = starts[r]
        for b in range(ROW_BYTES):
            byte = table[c * ROW_BYTES + b]
            if byte == 0xFF:
                continue
            if byte & 15 == depth:
                twists[at] = 2 * b
                at += 1
            if byte >> 4 == depth:
                twists[at] = 2 * b + 1
                at += 1
        flip = reps[c] % N_FLIP
        slc = reps[c] // N_FLIP
        for m in range(nm):
            near[r, m] = clsym[slice_mv[slc, m] * N_FLIP + flip_mv[flip, m]]
    found = np.zeros(parts, np.int64)
    for part in prange(parts):
        new = 0
        for r in range(hi - lo):
            n = counts[r + 1]
            if n == 0:
                continue
            rows = twists[starts[r] : starts[r + 1]]
            for m in range(nm):
                cs = near[r, m]
                c1 = cs >> 4
                if (c1 >> 6) % parts != part:
                    continue
                step = steps[m, cs & 15]
                mask = selfsym[c1]
                base = c1 * ROW
                before = new
                if mask == 1:  # nearly every row: no symmetry fixes the class
                    new += _spread(table, base, step, rows, n, nd)
                else:
                    for j in range(n):
                        t1 = step[rows[j]]
                        if get4(table, base + t1) == EMPTY:
                            _set4(table, base + t1, nd)
                            new += 1
                            for k in range(1, 16):
                                i = base + twist_conj[t1, k]
                                if (mask >> k) & 1 and get4(table, i) == EMPTY:
                                    _set4(table, i, nd)
                                    new += 1
                if new != before:
                    reached[c1] = 1
        found[part] = new
    return found.sum()


@njit(cache=True, parallel=True)
def _phase1_backward(table, depth, reps, clsym, flip_mv, slice_mv, steps, live, reached, lo, hi):  # noqa: ANN001, ANN202
    """Give ``depth + 1`` to every empty entry of class rows ``lo`` to ``hi - 1`` with a
    neighbour at ``depth``; in parallel over the rows (each writes only its own row's bytes,
    which no other entry shares).  Neighbours in a row not marked in ``live`` (which holds
    every row with an entry at ``depth``) are not read; a row given an entry is marked in ``reached``."""
    nd = depth + 1
    nm = flip_mv.shape[1]
    found = np.zeros(hi - lo, np.int64)
    for r in prange(hi - lo):
        c = lo + r
        todo = np.empty(N_TWIST, np.int64)
        n = 0
        for t in range(N_TWIST):
            if get4(table, c * ROW + t) == EMPTY:
                todo[n] = t
                n += 1
        if n == 0:
            continue
        flip = reps[c] % N_FLIP
        slc = reps[c] // N_FLIP
        hits = 0
        for m in range(nm):
            if n == 0:
                break
            cs = clsym[slice_mv[slc, m] * N_FLIP + flip_mv[flip, m]]
            if live[cs >> 4] == 0:
                continue
            row1 = (cs >> 4) * ROW
            step = steps[m, cs & 15]
            kept = 0
            for j in range(n):
                t = todo[j]
                if get4(table, row1 + step[t]) == depth:
                    _set4(table, c * ROW + t, nd)
                    hits += 1
                else:
                    todo[kept] = t
                    kept += 1
            n = kept
        found[r] = hits
        if hits:
            reached[c] = 1
    return found.sum()


@njit(cache=True, parallel=True)
def _corner_level(table, depth, corner_mv, twist_mv, backward):  # noqa: ANN001, ANN202
    """One breadth-first level of the corner table (one byte per entry, 255 = empty), in
    parallel over the corner permutations.  Going forward, threads may write the same
    ``depth + 1`` into one entry at once (a byte written whole, the same value), so the new
    entries are counted after."""
    nm = corner_mv.shape[1]
    found = np.zeros(N_CORNERS, np.int64)
    if backward:
        for c in prange(N_CORNERS):
            hits = 0
            for t in range(N_TWIST):
                if table[c * N_TWIST + t] != 255:
                    continue
                for m in range(nm):
                    if table[corner_mv[c, m] * N_TWIST + twist_mv[t, m]] == depth:
                        table[c * N_TWIST + t] = depth + 1
                        hits += 1
                        break
            found[c] = hits
        return found.sum()
    for c in prange(N_CORNERS):
        for t in range(N_TWIST):
            if table[c * N_TWIST + t] != depth:
                continue
            for m in range(nm):
                i = corner_mv[c, m] * N_TWIST + twist_mv[t, m]
                if table[i] == 255:
                    table[i] = depth + 1
    for c in prange(N_CORNERS):
        hits = 0
        for t in range(N_TWIST):
            if table[c * N_TWIST + t] == depth + 1:
                hits += 1
        found[c] = hits
    return found.sum()


# ----------------------------------------------------------------------------- the table set


@dataclass
class Phase1Tables:
    """Everything the phase-1 search reads (see the module docstring).

    Attributes:
        metric: ``htm`` or ``qtm``; ``moves`` and the move tables follow its move order.
        name: the table set (:data:`TABLE_SETS`).
        twist_mv, flip_mv, slice_mv, corner_mv: ``(N, M)`` move tables.
        clsym: flipslice -> ``class << 4 | symmetry``; twist_conj: ``(2187, 16)``.
        phase1: distances (lower bounds: the last value stands for itself and more,
            :func:`next_way`), 4 bits each, row ``class`` of 2188 entries; or 2 bits each
            above ``base`` (:func:`pack2`).
        corners: exact corner distances, index ``corners * 2187 + twist``.
        axis_moves: ``(3, M)`` the move as seen on each axis.
        inverse: :func:`inverse_tables`; max_depth: the largest value in ``phase1``.
        base: the 2-bit table's base, -1 for a 4-bit table (:func:`distance`).
        slice_reduced: the ordered slice coordinate -> the set's (:func:`slice_reduction`).
    """

    metric: str
    name: str
    twist_mv: np.ndarray
    flip_mv: np.ndarray
    slice_mv: np.ndarray
    corner_mv: np.ndarray
    clsym: np.ndarray
    twist_conj: np.ndarray
    phase1: np.ndarray
    corners: np.ndarray
    axis_moves: np.ndarray
    inverse: np.ndarray
    slice_reduced: np.ndarray
    max_depth: int
    base: int
    build_seconds: float = 0.0
    loaded_from: str = ""

    @property
    def nbytes(self) -> int:
        return int(self.phase1.nbytes + self.corners.nbytes + self.clsym.nbytes)

    @property
    def mapped(self) -> bool:
        """Whether the big tables are mapped from their files (loaded), not in memory (built by
        this process, where numpy advises huge pages for them)."""
        return any(isinstance(a, np.memmap) for a in (self.phase1, self.clsym, self.corners))

    def in_huge_pages(self) -> Phase1Tables:
        """The same tables with the mapped big ones copied into huge pages (private to this
        process, 1.9 GB more memory; the search reads about 1.3x faster, see docs/rubik.md)."""

        def copied(array: np.ndarray) -> np.ndarray:
            return huge_page_copy(array) if isinstance(array, np.memmap) else array

        return replace(self, phase1=copied(self.phase1), clsym=copied(self.clsym), corners=copied(self.corners))

    def axis_coordinates(self, cube: Cube) -> np.ndarray:
        """``(3, 4)``: twist, flip, slice and phase-1 distance (:func:`distance`) on each axis."""
        out = np.zeros((3, 4), np.int64)
        for k, sym in enumerate(axis_symmetries()):
            t, f, s, _ = coordinates(sym(cube))
            s = int(self.slice_reduced[s])
            out[k, :3] = t, f, s
            out[k, 3] = self.entry(t, f, s)
        return out

    def entry(self, twist: int, flip: int, slc: int) -> int:
        """The table's :func:`distance` at the set's coordinates (``slc`` already reduced).

        The functions' Python forms: no numba start-up here."""
        index = phase1_index.py_func(self.clsym, self.twist_conj, slc * N_FLIP + flip, twist)
        return int(distance.py_func(self.phase1, index, self.base))


def _small_tables(metric: str, orders: int = 24) -> dict[str, np.ndarray]:
    """Move tables, symmetry maps, the axis move maps and the slice reduction (seconds to
    compute) of a metric, for a slice coordinate keeping ``orders`` orders."""
    moves = move_set(metric).moves
    cubes = [move_cubes()[f * 3 + t - 1] for f, t in moves]
    mcp, mco, mep, meo = (np.array([getattr(c, a) for c in cubes], np.int64) for a in ("cp", "co", "ep", "eo"))
    twist_mv, flip_mv, ordered_mv, corner_mv = _move_tables(mcp, mco, mep, meo)
    reduced, slice_reps = slice_reduction(orders)
    slice_mv = reduced[ordered_mv[slice_reps]]
    syms = ud_symmetries()
    twist_conj = np.zeros((N_TWIST, 16), np.int16)
    co = np.zeros(8, np.int64)
    for t in range(N_TWIST):
        set_twist(t, co)
        cube = Cube(SOLVED.cp, tuple(int(x) for x in co), SOLVED.ep, SOLVED.eo)
        for k, s in enumerate(syms):
            twist_conj[t, k] = twist_of(np.array(s(cube).co))
    axis_moves = np.array([[move_index(s(c), moves) for c in cubes] for s in axis_symmetries()], np.int64)
    return {
        "twist_mv": twist_mv,
        "flip_mv": flip_mv,
        "slice_mv": slice_mv,
        "corner_mv": corner_mv,
        "twist_conj": twist_conj,
        "axis_moves": axis_moves,
        "slice_reduced": reduced,
        "slice_reps": slice_reps,
        "inverse": inverse_tables(metric, reduced),
    }


# The inverse-cube tables, one int64 array; where each part starts:
INV_TWIST = 0  # [corner * 24 + code]: the three views' twist digits, 12 bits per view
INV_FLIP = INV_TWIST + 8 * 24  # [edge * 24 + code]: the three views' flip bits, 11 bits per view
INV_WHERE = INV_FLIP + 12 * 24  # [edge * 24 + code]: a slice edge's place, base 12, 15 bits per view
INV_SLICE = INV_WHERE + 12 * 24  # [where]: slice * 2048
INV_CMOVE = INV_SLICE + 12**4  # [move * 24 + code]: a corner's code after the move
INV_EMOVE = INV_CMOVE + 18 * 24  # [move * 24 + code]: an edge's code after the move
INV_SIZE = INV_EMOVE + 18 * 24


def inverse_tables(metric: str, reduced: np.ndarray | None = None) -> np.ndarray:
    """Tables that give the phase-1 coordinates of the inverse cube on the three axes.

    The search carries each cubie's code (``position * 3 + twist``, ``position * 2 + flip``;
    :func:`rubik.cube_arrays`), which a move changes one cubie at a time (``INV_CMOVE``,
    ``INV_EMOVE``).  If cubie ``c`` of the cube is at position ``p`` with twist ``o``, the
    inverse has cubie ``p`` at position ``c`` with twist ``-o``; its view ``R Y R^-1`` along
    an axis has at position ``i`` what the inverse has at ``R^-1.cp[i]``.  So every digit of
    every view's twist and flip comes from one cubie's code: tables per cubie give them,
    shifted to their place, and the sum over the cubies is the coordinate.  For the slice,
    each slice edge adds its position times ``12**(3 - k)`` (``k`` = which slice edge), and
    ``INV_SLICE`` turns that base-12 number into the slice coordinate (``reduced`` by
    :func:`slice_reduction`, if given).  The three views are packed side by side in one sum.
    """
    out = np.zeros(INV_SIZE, np.int64)
    for k, sym in enumerate(axis_symmetries()):
        r, ri = sym.rotation, sym.rotation.inverse()
        for i in range(7):  # the eighth corner's twist follows from the others
            for code in range(24):
                pos, tw = divmod(code, 3)  # the inverse has corner pos at ri.cp[i], twisted by -tw
                digit = (r.co[pos] + (-tw) % 3 + ri.co[i]) % 3
                out[INV_TWIST + ri.cp[i] * 24 + code] += (digit * 3 ** (6 - i)) << (12 * k)
        for i in range(12):
            for code in range(24):
                pos, fl = divmod(code, 2)
                edge = r.ep[pos]
                if i < 11:
                    out[INV_FLIP + ri.ep[i] * 24 + code] += ((r.eo[pos] + fl + ri.eo[i]) % 2 << (10 - i)) << (11 * k)
                if edge >= 8:
                    out[INV_WHERE + ri.ep[i] * 24 + code] += (i * 12 ** (11 - edge)) << (15 * k)
    ep = np.zeros(12, np.int64)
    for w in range(12**4):
        places = [w // 12**3, w // 144 % 12, w // 12 % 12, w % 12]
        if len(set(places)) == 4:
            ep[:] = 0
            for e, q in enumerate(places):
                ep[q] = 8 + e
            s = slice_of(ep)
            out[INV_SLICE + w] = (s if reduced is None else int(reduced[s])) * N_FLIP
    ms = move_set(metric)
    out[INV_CMOVE : INV_CMOVE + ms.ctab.size] = ms.ctab.ravel()
    out[INV_EMOVE : INV_EMOVE + ms.etab.size] = ms.etab.ravel()
    return out


LEVEL_GROUPS = 16  # steps of a breadth-first level: its work can be kept after each 1/16 of it
FORWARD, BACKWARD, REST = 0, 1, 2  # how a level is made (noted with it): see next_way


def next_way(found: int, left: int) -> int:
    """How the next breadth-first level is made, from the entries the last one ``found`` and the
    entries still empty (``left``).

    ``FORWARD`` (from the entries at the last depth) while they are few; ``BACKWARD`` (every
    empty entry looks for a neighbour at the last depth) once they are a quarter of those
    left or more; and ``REST`` once they are at least as many as those left: every empty
    entry is then given the next depth, which is a lower bound of its distance (it is at
    least that far), and the build stops.  In HTM that is after depth 10 of ``phase1``: 41 %
    of the entries are left, 40.6 % at 11, the rest at 12 or 13 (0.33 %); those levels took
    a third of the build (docs/rubik.md), and the search reads their 12s and 13s as 11s.
    """
    if found >= left:
        return REST
    return BACKWARD if found * 4 >= left else FORWARD


@njit(cache=True, inline="never")
def _fill_bytes(table: np.ndarray, start: int, end: int, value: int) -> int:
    """:func:`_fill_rest` on bytes ``start`` to ``end - 1``, one at a time (both halves)."""
    n = 0
    for b in range(start, end):
        v = np.int64(table[b])
        low = int((v & 15) == EMPTY)
        high = int((v >> 4) == EMPTY)
        table[b] = v ^ (low * (EMPTY ^ value)) ^ ((high * (EMPTY ^ value)) << 4)
        n += low + high
    return n


@njit(cache=True, inline="never")
def _fill_words(words: np.ndarray, start: int, end: int, spread: np.uint64) -> int:
    """:func:`_fill_rest` on 64-bit words ``start`` to ``end - 1``, 16 entries at a time: a
    nibble is empty when its four bits are set, which one AND of the shifted word finds for
    all 16 (bit 0 of each), and ``spread`` (``EMPTY ^ value`` in every nibble) masked by
    them turns those into ``value``."""
    ones = np.uint64(0x1111111111111111)
    n = 0
    for k in range(start, end):
        w = words[k]
        e = w & (w >> np.uint64(1)) & (w >> np.uint64(2)) & (w >> np.uint64(3)) & ones
        words[k] = w ^ ((e * np.uint64(15)) & spread)
        c = (e + (e >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)  # the empties, counted per byte
        n += int((c * np.uint64(0x0101010101010101)) >> np.uint64(56))
    return n


@njit(cache=True, parallel=True)
def _fill_rest(table: np.ndarray, value: int, lo: int, hi: int) -> int:
    """Give ``value`` to every empty entry of class rows ``lo`` to ``hi - 1`` (not to the rows'
    pad entries, which stay empty); how many.  Run again, it fills only what is still empty.

    The rows' bytes are taken 8 at a time (:func:`_fill_words`, 0.25 of the CPU time of a
    byte at a time), pads included, which are then emptied again: a pad is always empty."""
    start, end = lo * ROW_BYTES, hi * ROW_BYTES
    first, last = (start + 7) // 8, end // 8  # the whole words
    words = table[: table.size // 8 * 8].view(np.uint64)
    spread = np.uint64(0x1111111111111111) * np.uint64(EMPTY ^ value)
    parts = 64
    found = np.zeros(parts + 2, np.int64)
    if first >= last:
        found[0] = _fill_bytes(table, start, end, value)
    else:
        found[0] = _fill_bytes(table, start, first * 8, value)
        found[1] = _fill_bytes(table, last * 8, end, value)
        for p in prange(parts):
            found[2 + p] = _fill_words(
                words, first + (last - first) * p // parts, first + (last - first) * (p + 1) // parts, spread
            )
    for r in range(lo, hi):
        table[(r + 1) * ROW_BYTES - 1] |= EMPTY << 4
    return found.sum() - (hi - lo)


# Where a build's time goes (the phase1 HTM build, `python benchmarks/rubik_build_levels.py`:
# each stage's CPU seconds, halved where both cores run it, plus about 3 s to write the files):
# the share of the time done once the phase-1 table holds a share of its entries.  The progress
# bar shows this share, and its estimate of the time left scales the share still to do by this
# run's own speed.
TIME_PROFILE = ((0.0, 0.12), (0.0092, 0.19), (0.0986, 0.35), (0.591, 0.80), (1.0, 0.82))
CLASSES_SHARE = 0.07  # the move tables and the symmetry classes (the table is allocated meanwhile)
CORNERS_SHARE = 0.90  # the corner table (and the 2-bit packing); then the files are written and checked


@njit(cache=True, parallel=True)
def _count4(table: np.ndarray) -> np.ndarray:
    """How many entries of a 4-bit table hold each value (a stopped build's counts)."""
    parts = 64
    counts = np.zeros((parts, 16), np.int64)
    n = table.size
    for p in prange(parts):
        for b in range(p * n // parts, (p + 1) * n // parts):
            counts[p, table[b] & 15] += 1
            counts[p, table[b] >> 4] += 1
    return counts.sum(axis=0)


def _time_share(filled: float) -> float:
    """:data:`TIME_PROFILE` read at a share of the phase-1 entries filled."""
    xs, ys = zip(*TIME_PROFILE, strict=True)
    return float(np.interp(filled, xs, ys))


def build(
    name: str, metric: str, ws: Workspace, quiet: bool = False, stop_at: float | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Build the big tables of a table set (:data:`TABLE_SETS`) by breadth-first search from
    the solved cube, in the work folder ``ws``, continuing where a stopped build left it.

    Returns every array of the set, and the table's largest value and base.  Raises
    :class:`BuildStopped` once ``stop_at`` (a :func:`time.monotonic` time) has passed, after
    keeping the work done; Ctrl-C keeps it too.
    """
    # the table's 1.67 GB are allocated meanwhile, on another core (the first write of fresh memory is slow)
    new_table = ws.array_ahead("phase1", CLASSES[TABLE_SETS[name]] * ROW_BYTES, np.uint8, 0xFF)
    small = _small_tables(metric, TABLE_SETS[name])
    label = f"c building rubik {metric} {name} tables"
    bar = Progress(label, quiet, float(ws.state.get("share", 0.0)))

    def step(share: float, what: str, **state: Any) -> None:
        ws.state.update(share=share, **state)
        bar.update(share, what)
        if stop_at is not None and time.monotonic() >= stop_at:
            ws.keep()
            bar.close()
            raise BuildStopped(f"the rubik {name} tables", share)
        if ws.due():
            ws.keep()

    if not quiet:
        again = "resuming the build of" if ws.resumed else "building"
        progress.line(f"c {again} the rubik {metric} {name} tables (once; kept in {cache_dir()})")
    if "classes" not in ws.state:
        bar.update(0.0, "symmetry classes", force=True)
        syms = ud_symmetries()
        classes = _classes(edge_maps(syms), symmetry_inverses(syms), small["slice_reduced"], small["slice_reps"])
        for key, data in zip(("clsym", "reps", "selfsym"), classes, strict=True):
            ws.save(key, data)
        ws.keep(classes=True, share=CLASSES_SHARE)
        step(CLASSES_SHARE, "symmetry classes")
    clsym, reps, selfsym = (ws.load(k) for k in ("clsym", "reps", "selfsym"))
    flip_mv, slice_mv, twist_mv, twist_conj = (small[k] for k in ("flip_mv", "slice_mv", "twist_mv", "twist_conj"))
    ncls = reps.shape[0]
    if ncls != CLASSES[TABLE_SETS[name]]:
        raise RuntimeError(f"phase-1 table: {ncls} symmetry classes, expected {CLASSES[TABLE_SETS[name]]}")
    total = ncls * N_TWIST
    phase1 = new_table()
    steps = twist_steps(twist_mv, twist_conj)
    parts = numba.get_num_threads()
    forward = (reps, clsym, selfsym, flip_mv, slice_mv, steps, twist_conj)
    # rows that may hold an entry at the level's depth (read by it), and at the next depth
    # (marked by it); a resumed build reads every row until past what its kept table holds
    live = np.ones(ncls, np.uint8)
    if "level" not in ws.state:  # a new table: the goal is its one entry
        goal = int(small["slice_reduced"][slice_of(np.arange(12, dtype=np.int64))])
        goal_row = int(clsym[goal * N_FLIP]) >> 4
        _set4(phase1, goal_row * ROW, 0)
        ws.state["level"] = (0, FORWARD, 0)
        live[:] = 0
        live[goal_row] = 1
        done, new, deepest = 1, 0, 0
    else:
        level = ws.state["level"][0]
        counts = _count4(phase1)  # every entry the kept table holds, some maybe past its note
        done = total - int(counts[EMPTY] - ncls)  # (each row's pad entry stays empty)
        new = int(counts[level + 1])
        deepest = max(v for v in range(EMPTY) if counts[v])
    # the level in progress (from depth to depth + 1), its direction and its next group of rows
    depth, way, group = ws.state["level"]
    kept = deepest
    reached = np.ones(ncls, np.uint8) if group or depth < kept else np.zeros(ncls, np.uint8)
    try:
        while done < total:
            for g in range(group, LEVEL_GROUPS):
                lo, hi = g * ncls // LEVEL_GROUPS, (g + 1) * ncls // LEVEL_GROUPS  # class rows
                if way == REST:
                    found = _fill_rest(phase1, depth + 1, lo, hi)
                elif way == BACKWARD:
                    found = _phase1_backward(
                        phase1, depth, reps, clsym, flip_mv, slice_mv, steps, live, reached, lo, hi
                    )
                else:
                    first, last = g * FORWARD_CHUNKS // LEVEL_GROUPS, (g + 1) * FORWARD_CHUNKS // LEVEL_GROUPS
                    found = _phase1_forward(phase1, depth, *forward, live, reached, first, last, parts)
                new += int(found)
                done += int(found)
                step(_time_share(done / total), f"phase 1 depth {depth + 1}", level=(depth, way, g + 1))
            if new == 0:
                raise RuntimeError("phase-1 table: breadth-first search stopped early")
            depth, group, deepest = depth + 1, 0, max(deepest, depth + 1)  # (a kept table may be ahead)
            live, reached = reached, live
            reached[:] = 1 if depth < kept else 0
            way, new = next_way(new, total - done), 0
            ws.state["level"] = (depth, way, 0)
    except KeyboardInterrupt:
        ws.keep()  # what the levels did up to the last group (the interrupted one is done again)
        raise
    if deepest >= EMPTY:
        raise RuntimeError("phase-1 table: a distance does not fit in 4 bits")
    base = deepest - TOP_CODES if name in TWO_BITS else -1
    if base >= 0:
        bar.update(_time_share(1.0), "2 bits an entry", force=True)
        phase1 = pack2(phase1, base)
    corners = _corner_table(small, lambda d: bar.update(_time_share(1.0), f"corners depth {d}"))
    bar.update(CORNERS_SHARE, "writing the files", force=True)
    bar.close()
    return small | {"clsym": clsym, "phase1": phase1, "corners": corners}, {"max_depth": deepest, "base": base}


def _corner_table(small: dict[str, np.ndarray], shown: Callable[[int], None]) -> np.ndarray:
    """The exact corner distances (seconds to build: a stopped build starts them again)."""
    corners = np.full(N_CORNERS * N_TWIST, 255, np.uint8)
    corners[0] = 0
    done, depth, frontier = 1, 0, 1
    while done < corners.size:
        backward = frontier * 4 >= corners.size - done
        frontier = int(_corner_level(corners, depth, small["corner_mv"], small["twist_mv"], backward))
        if frontier == 0:
            raise RuntimeError("corner table: breadth-first search stopped early")
        done += frontier
        depth += 1
        shown(depth)
    return corners


BIG = ("clsym", "phase1", "corners")  # mapped from the cache files; the rest is read whole
SMALL = ("twist_mv", "flip_mv", "slice_mv", "corner_mv", "twist_conj", "axis_moves", "inverse")
MAPPED = BIG
NOTE_NEEDS = ("max_depth",)  # what a set's note holds besides its digests and build time


def file_keys(name: str) -> tuple[str, ...]:
    """The arrays of a set kept in the cache (:mod:`.cache`); a reduced slice coordinate has its map too."""
    return BIG + SMALL + (("slice_reduced",) if TABLE_SETS[name] != 24 else ())


def assemble(name: str, metric: str, a: dict[str, np.ndarray], meta: dict[str, Any], loaded_from: str) -> Phase1Tables:
    """The set's :class:`Phase1Tables` from its arrays and note (:mod:`.cache` reads them)."""
    return Phase1Tables(
        metric,
        name,
        a["twist_mv"],
        a["flip_mv"],
        a["slice_mv"],
        a["corner_mv"],
        a["clsym"],
        a["twist_conj"],
        a["phase1"],
        a["corners"],
        a["axis_moves"],
        a["inverse"],
        a.get("slice_reduced", np.arange(N_SLICE, dtype=np.int16)),
        int(meta["max_depth"]),
        int(meta.get("base", -1)),  # notes before 2-bit tables: -1
        float(meta["build_seconds"]),
        loaded_from,
    )

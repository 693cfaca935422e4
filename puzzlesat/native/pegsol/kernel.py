"""Numba kernel of the peg-solitaire depth-first search on two-word grid bitboards.

A position is a pair of uint64 words: bit ``i = r * W + c`` of the board's bounding box
(``W`` columns, at most :data:`KEY_BITS` cells) is set when (r, c) holds a peg.  The legal
jumps of one direction come from a few shifts and masks, for every peg at once: with ``s``
the direction's step in bits, ``P`` the pegs and ``E`` the empty board cells, the jumping
pegs are ``P & P>>s & E>>2s & M`` (``M``: the cells from which that jump stays on the
board).  The search takes them cell by cell in the order's scan direction, and at a cell
the directions in the order's priority.

Pruning, each sound, so that exhausting the search is a proof:

- a table of *dead* positions (from which every line of play fails), keyed by the
  position's canonical form under the board symmetries that fix the goal (a symmetric image
  of a dead position is dead).  It is a fixed-size hash table of 4-slot buckets (one 64-byte
  line); each entry keeps the bit length of the subtree it took to prove (its *work*, in
  bits 56..62 of the high word; bit 63 marks a used slot), and a new entry replaces the
  bucket's entry of least work, so a full table keeps the expensive refutations;
- pagoda functions (integer weights ``w`` with ``w(to) <= w(from) + w(over)`` for every
  jump, so the weighted peg count never grows): a child worth less than the goal is dead;
- the meet in the middle: an exact set of the positions the reversed game reaches from
  the goal in its last k jumps decides every position k jumps before the end.

The search is resumable: boards, pending jumps and pagoda values per depth live in arrays
the caller owns, and the kernel stops after ``budget`` new nodes so the wrapper can watch
the clock.

The small helpers are plain ``njit`` functions, which LLVM inlines where they are called:
numba's own ``inline="always"`` added about half a second to a fresh install's first solve
(0.5 s of the 4 s CPU) and no speed (``benchmarks/first_solve.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND, MEET
from puzzlesat.native.memory import prefetch

KEY_BITS = 120  # position bits; the high word's bits 56..63 hold the work and the used mark

_MUL_LO = np.uint64(0x9E3779B97F4A7C15)
_MUL_HI = np.uint64(0xC2B2AE3D27D4EB4F)
_SHIFT = np.uint64(29)
_THREE = np.uint64(3)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_BYTE = np.uint64(255)
_USED = np.uint64(1) << np.uint64(63)
_WORK_SHIFT = np.uint64(56)
_WORK = np.uint64(127) << _WORK_SHIFT
_KEY_HI = (np.uint64(1) << _WORK_SHIFT) - np.uint64(1)


@njit(cache=True)
def _shift(lo, hi, s):  # type: ignore[no-untyped-def]
    """The two-word set moved by ``s`` bits: bit i of the answer is bit i + s of (lo, hi)."""
    if s == 0:
        return lo, hi
    if s > 0:
        if s >= 64:
            return hi >> np.uint64(s - 64), _ZERO
        u = np.uint64(s)
        return (lo >> u) | (hi << np.uint64(64 - s)), hi >> u
    t = -s
    if t >= 64:
        return _ZERO, lo << np.uint64(t - 64)
    u = np.uint64(t)
    return lo << u, (hi << u) | (lo >> np.uint64(64 - t))


@njit(cache=True)
def generate(lo, hi, full_lo, full_hi, steps, from_masks, out):  # type: ignore[no-untyped-def]
    """The jumping pegs of each direction k, written to ``out[2k], out[2k+1]``."""
    elo = full_lo & ~lo
    ehi = full_hi & ~hi
    for k in range(4):
        s = steps[k]
        olo, ohi = _shift(lo, hi, s)
        tlo, thi = _shift(elo, ehi, 2 * s)
        out[2 * k] = lo & olo & tlo & from_masks[k, 0]
        out[2 * k + 1] = hi & ohi & thi & from_masks[k, 1]


@njit(cache=True)
def _bucket(lo, hi, mask):  # type: ignore[no-untyped-def]
    # first slot of the 4-slot bucket; a slot is two words, so a bucket is one 64-byte line
    h = lo * _MUL_LO ^ hi * _MUL_HI
    h ^= h >> _SHIFT
    h = h * _MUL_LO
    return np.int64((h >> _SHIFT) & mask & ~_THREE) * 2


@njit(cache=True)
def insert(lo, hi, work, table, mask):  # type: ignore[no-untyped-def]
    """Store a position with its work (0..127); returns (its slot, 1 if it took an empty slot).

    A position already there keeps the larger work; a full bucket gives up its entry of
    least work."""
    base = _bucket(lo, hi, mask)
    tagged = hi | _USED | (np.uint64(work) << _WORK_SHIFT)
    least = base
    least_work = np.uint64(1 << 8)
    for k in range(0, 8, 2):
        word = table[base + k + 1]
        if word == _ZERO:
            table[base + k] = lo
            table[base + k + 1] = tagged
            return (base + k) // 2, 1
        if (word & _KEY_HI) == hi and table[base + k] == lo:
            if (word & _WORK) < (tagged & _WORK):
                table[base + k + 1] = tagged
            return (base + k) // 2, 0
        held = (word & _WORK) >> _WORK_SHIFT
        if held < least_work:
            least_work = held
            least = base + k
    table[least] = lo
    table[least + 1] = tagged
    return least // 2, 0


@njit(cache=True)
def find(lo, hi, table, mask):  # type: ignore[no-untyped-def]
    """The slot holding a position, or -1."""
    base = _bucket(lo, hi, mask)
    for k in range(0, 8, 2):
        if (table[base + k + 1] & ~_WORK) == (hi | _USED) and table[base + k] == lo:
            return (base + k) // 2
    return -1


@njit(cache=True)
def rehash(old, new):  # type: ignore[no-untyped-def]
    """Insert every position of table ``old`` into the (larger, empty) table ``new``."""
    mask = np.uint64(new.shape[0] // 2 - 1)
    for slot in range(0, old.shape[0], 2):
        word = old[slot + 1]
        if word != _ZERO:
            insert(old[slot], word & _KEY_HI, np.int64((word & _WORK) >> _WORK_SHIFT), new, mask)


@njit(cache=True)
def canonical(lo, hi, sym_tables, chunks):  # type: ignore[no-untyped-def]
    """The least (high word first) image of a position under the symmetries in ``sym_tables``:
    per symmetry and byte of the position, the image of that byte's bits."""
    best_lo = lo
    best_hi = hi
    for s in range(sym_tables.shape[0]):
        ilo = _ZERO
        ihi = _ZERO
        for i in range(chunks):
            word = lo if i < 8 else hi
            byte = np.int64((word >> np.uint64(8 * (i & 7))) & _BYTE)
            ilo |= sym_tables[s, i, byte, 0]
            ihi |= sym_tables[s, i, byte, 1]
        if ihi < best_hi or (ihi == best_hi and ilo < best_lo):
            best_lo = ilo
            best_hi = ihi
    return best_lo, best_hi


@njit(cache=True)
def pagoda_values(lo, hi, weights, out):  # type: ignore[no-untyped-def]
    """Each pagoda's weighted peg count of a position, into ``out``."""
    for k in range(weights.shape[0]):
        total = 0
        for i in range(weights.shape[1]):
            word = lo if i < 64 else hi
            if (word >> np.uint64(i & 63)) & _ONE:
                total += weights[k, i]
        out[k] = total


@njit(cache=True)
def set_has(lo, hi, table, mask):  # type: ignore[no-untyped-def]
    """Whether an exact set (open addressing, linear probing; never full) holds a position."""
    slot = _bucket(lo, hi, mask)
    size = table.shape[0]
    tag = hi | _USED
    while table[slot + 1] != _ZERO:
        if table[slot + 1] == tag and table[slot] == lo:
            return True
        slot = (slot + 2) % size
    return False


@njit(cache=True)
def set_add(lo, hi, table, mask):  # type: ignore[no-untyped-def]
    """Add a position to an exact set; True when it was not there.  The caller keeps the
    set at most half full."""
    slot = _bucket(lo, hi, mask)
    size = table.shape[0]
    tag = hi | _USED
    while table[slot + 1] != _ZERO:
        if table[slot + 1] == tag and table[slot] == lo:
            return False
        slot = (slot + 2) % size
    table[slot] = lo
    table[slot + 1] = tag
    return True


@njit(cache=True)
def next_layer(layer, count, game, seen, out):  # type: ignore[no-untyped-def]
    """The canonical positions one jump after those of ``layer[:count]``, added to the exact
    set ``seen`` and listed in ``out``; returns how many, or -1 when ``out`` is too small.

    ``game``: the :class:`~puzzlesat.native.pegsol.arrays.Game` (its board and symmetries).
    """
    full, steps, from_masks, jump_masks = game.full, game.steps, game.from_masks, game.jump_masks
    sym_tables, chunks = game.sym_tables, game.chunks
    mask = np.uint64(seen.shape[0] // 2 - 1)
    moves = np.empty(8, dtype=np.uint64)
    n = 0
    for i in range(count):
        lo = layer[i, 0]
        hi = layer[i, 1]
        generate(lo, hi, full[0], full[1], steps, from_masks, moves)
        for k in range(8):
            x = moves[k]
            while x != _ZERO:
                cell = np.int64(trailing_zeros(x)) + 64 * (k & 1)
                x &= x - _ONE
                code = (k >> 1) * 128 + cell
                klo, khi = canonical(lo ^ jump_masks[code, 0], hi ^ jump_masks[code, 1], sym_tables, chunks)
                if set_add(klo, khi, seen, mask):
                    if n == out.shape[0]:
                        return -1
                    out[n, 0] = klo
                    out[n, 1] = khi
                    n += 1
    return n


@njit(cache=True)
def _expand(
    d, lo, hi, full_lo, full_hi, steps, from_masks, jump_masks, moves, sym_tables, chunks, sym_depth, table, mask
):  # type: ignore[no-untyped-def]
    """Write the jumps of the position at depth ``d`` to ``moves[d]`` and prefetch the
    table buckets of its children, so that their misses overlap."""
    generate(lo, hi, full_lo, full_hi, steps, from_masks, moves[d])
    for k in range(8):
        x = moves[d, k]
        while x != _ZERO:
            cell = np.int64(trailing_zeros(x)) + 64 * (k & 1)
            x &= x - _ONE
            code = (k >> 1) * 128 + cell
            klo = lo ^ jump_masks[code, 0]
            khi = hi ^ jump_masks[code, 1]
            if d + 1 <= sym_depth:
                klo, khi = canonical(klo, khi, sym_tables, chunks)
            prefetch(table, _bucket(klo, khi, mask))


@njit(cache=True)
def search(game, tree, cuts, budget, order):  # type: ignore[no-untyped-def]
    """Depth-first search for ``game.depth_goal`` jumps that turn ``tree.board[0]`` into the goal.

    Args:
        game: a :class:`~puzzlesat.native.pegsol.arrays.Game`: the board's bits, the
            goal, and ``sym_tables``, per symmetry that fixes the goal (identity left out; S
            may be 0), byte position and byte value the image's two words; positions at
            most ``sym_depth`` deep are keyed by their canonical form, deeper ones (many,
            cheap to refute) by themselves: a position's key depends only on it.
        tree: a :class:`~puzzlesat.native.pegsol.arrays.Tree`, updated in place: per depth
            the position, the jumps not yet tried, the pagoda values, the node count when
            the search entered it (the work of a refutation), the jump played; ``state``
            ``[depth, entries, nodes so far]``; the dead positions (module docstring).
        cuts: a :class:`~puzzlesat.native.pegsol.arrays.Cuts`: the integer pagoda
            ``weights`` ``[K, 128]`` and ``goal_values``; ``meet_depth`` and ``endgame``, the
            meet in the middle (-1 to switch it off): ``endgame`` is the exact set
            (:func:`set_add`) of the canonical positions that the reversed game reaches from
            the goal in ``depth_goal - meet_depth`` jumps (see :func:`next_layer`), and a
            child at ``meet_depth`` whose complement is there wins, any other is dead;
            ``share`` ``[k, n]``: this search takes only the first jumps whose code (cell *
            4 + direction) is k modulo n (n = 1: all), so the n shares split the tree.
        budget: new nodes to expand before returning BUDGET.
        order: ``[scan, d0, d1, d2, d3, rank per cell (128)]``: scan 0 takes cells from
            the lowest bit, 1 from the highest, 2 the one of least rank; then the direction
            priority.

    Returns:
        (status, nodes): FOUND, EXHAUSTED (no solution), BUDGET or MEET (the position at
        depth ``state[0]`` = ``meet_depth`` wins).
    """
    full, steps, from_masks, jump_masks = game.full, game.steps, game.from_masks, game.jump_masks
    chunks, sym_tables, sym_depth = game.chunks, game.sym_tables, game.sym_depth
    goal_lo, goal_hi, depth_goal = game.goal_lo, game.goal_hi, game.depth_goal
    board, moves, pagoda, entered = tree.board, tree.moves, tree.pagoda, tree.entered
    chosen, state, table = tree.chosen, tree.state, tree.table
    weights, goal_values, meet_depth, endgame, share = (
        cuts.weights,
        cuts.goal_values,
        cuts.meet_depth,
        cuts.endgame,
        cuts.share,
    )
    full_lo = full[0]
    full_hi = full[1]
    mask = np.uint64(table.shape[0] // 2 - 1)
    emask = np.uint64(endgame.shape[0] // 2 - 1)
    n_pagodas = weights.shape[0]
    high_first = order[0] == 1
    by_rank = order[0] == 2
    d = state[0]
    nodes = 0
    if d < 0:
        d = np.int64(0)  # not a literal 0: one compiled _expand serves both calls
        pagoda_values(board[0, 0], board[0, 1], weights, pagoda[0])
        _expand(
            d,
            board[0, 0],
            board[0, 1],
            full_lo,
            full_hi,
            steps,
            from_masks,
            jump_masks,
            moves,
            sym_tables,
            chunks,
            sym_depth,
            table,
            mask,
        )
        entered[0] = state[2]
    while True:
        if nodes >= budget:
            state[0] = d
            state[2] += nodes
            return BUDGET, nodes
        lo = board[d, 0]
        hi = board[d, 1]
        if d == depth_goal:
            if lo == goal_lo and hi == goal_hi:
                state[0] = d
                state[2] += nodes
                return FOUND, nodes
            d -= 1
            continue
        # S1: the next jump at this depth: the first cell in scan order, then by direction
        ulo = moves[d, 0] | moves[d, 2] | moves[d, 4] | moves[d, 6]
        uhi = moves[d, 1] | moves[d, 3] | moves[d, 5] | moves[d, 7]
        if ulo == _ZERO and uhi == _ZERO:
            # S2: every jump from here failed, so the position is dead
            work = 64 - np.int64(leading_zeros(np.uint64(state[2] + nodes - entered[d] + 1)))
            if d <= sym_depth:
                lo, hi = canonical(lo, hi, sym_tables, chunks)
            state[1] += insert(lo, hi, work, table, mask)[1]
            d -= 1
            if d < 0:
                state[0] = d
                state[2] += nodes
                return EXHAUSTED, nodes
            continue
        if by_rank:
            cell = -1
            best = np.int64(1) << 40
            for w in range(2):
                x = ulo if w == 0 else uhi
                while x != _ZERO:
                    c = np.int64(trailing_zeros(x)) + 64 * w
                    x &= x - _ONE
                    if order[5 + c] < best:
                        best = order[5 + c]
                        cell = c
        elif high_first:
            cell = 127 - np.int64(leading_zeros(uhi)) if uhi != _ZERO else 63 - np.int64(leading_zeros(ulo))
        else:
            cell = np.int64(trailing_zeros(ulo)) if ulo != _ZERO else 64 + np.int64(trailing_zeros(uhi))
        word = 0 if cell < 64 else 1
        bit = _ONE << np.uint64(cell & 63)
        direction = 0
        for p in range(1, 5):
            direction = order[p]
            if moves[d, 2 * direction + word] & bit:
                break
        moves[d, 2 * direction + word] &= ~bit
        if d == 0 and (cell * 4 + direction) % share[1] != share[0]:
            continue
        code = direction * 128 + cell
        # S3: pagoda cut: a child worth less than the goal can never reach it
        if n_pagodas > 0:
            step = steps[direction]
            cut = False
            for k in range(n_pagodas):
                value = pagoda[d, k] + weights[k, cell + 2 * step] - weights[k, cell] - weights[k, cell + step]
                pagoda[d + 1, k] = value
                if value < goal_values[k]:
                    cut = True
            if cut:
                continue
        # S4: skip children already shown dead (reached before, or a symmetric image)
        nlo = lo ^ jump_masks[code, 0]
        nhi = hi ^ jump_masks[code, 1]
        klo, khi = nlo, nhi
        if d + 1 <= sym_depth:
            klo, khi = canonical(nlo, nhi, sym_tables, chunks)
        if find(klo, khi, table, mask) >= 0:
            continue
        chosen[d] = cell * 4 + direction
        nodes += 1
        # S5: at the meeting depth, the endgame set decides: a win, or a dead position
        if d + 1 == meet_depth:
            wlo, whi = canonical(nlo ^ full_lo, nhi ^ full_hi, sym_tables, chunks)
            if not set_has(wlo, whi, endgame, emask):
                continue
            d += 1
            board[d, 0] = nlo
            board[d, 1] = nhi
            state[0] = d
            state[2] += nodes
            return MEET, nodes
        d += 1
        board[d, 0] = nlo
        board[d, 1] = nhi
        entered[d] = state[2] + nodes
        if d < depth_goal:
            _expand(
                d,
                nlo,
                nhi,
                full_lo,
                full_hi,
                steps,
                from_masks,
                jump_masks,
                moves,
                sym_tables,
                chunks,
                sym_depth,
                table,
                mask,
            )

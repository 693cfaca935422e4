"""Numba kernel of the peg-solitaire depth-first search on two-word bitboards.

A position is a pair of uint64 words (cells 0..63 and 64..126 of the board, numbered in the
wrapper's order).  Jump ``j`` is legal when both bits of ``fo[j]`` (from, over) are set and
the bit of ``to[j]`` is clear; playing it XORs the three bits.  Positions from which every
line of play fails go into a lossy hash table (buckets of 4, replace a pseudo-random slot when
full): a position found there is skipped.  Only truly dead positions are stored, so dropping
entries costs time, never correctness, and exhausting the search is a proof.

The search is resumable: depth, boards and the next jump to try live in arrays the caller
owns, and the kernel stops after ``budget`` new nodes so the wrapper can watch the clock.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND, MEET

_MUL_LO = np.uint64(0x9E3779B97F4A7C15)
_MUL_HI = np.uint64(0xC2B2AE3D27D4EB4F)
_SHIFT = np.uint64(29)
_TOP = np.uint64(62)
_THREE = np.uint64(3)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_USED = np.uint64(1) << np.uint64(63)


@njit(cache=True)
def _bucket(lo: np.uint64, hi: np.uint64, mask: np.uint64) -> np.int64:
    # first slot of the 4-slot bucket; a slot is two words, so a bucket is one 64-byte line
    h = lo * _MUL_LO ^ hi * _MUL_HI
    h ^= h >> _SHIFT
    h = h * _MUL_LO
    return np.int64((h >> _SHIFT) & mask & ~_THREE) * 2


@njit(cache=True)
def _insert(lo, hi, table, mask):  # type: ignore[no-untyped-def]
    """Store a position; returns (its slot, 1 if it took an empty slot else 0)."""
    base = _bucket(lo, hi, mask)
    tag = hi | _USED
    for k in range(0, 8, 2):
        if table[base + k + 1] == _ZERO or (table[base + k + 1] == tag and table[base + k] == lo):
            fresh = 1 if table[base + k + 1] == _ZERO else 0
            table[base + k] = lo
            table[base + k + 1] = tag
            return (base + k) // 2, fresh
    slot = base + np.int64((lo * _MUL_HI) >> _TOP) * 2
    table[slot] = lo
    table[slot + 1] = tag
    return slot // 2, 0


@njit(cache=True)
def _find(lo, hi, table, mask):  # type: ignore[no-untyped-def]
    """The slot holding a position, or -1."""
    base = _bucket(lo, hi, mask)
    tag = hi | _USED
    for k in range(0, 8, 2):
        if table[base + k + 1] == tag and table[base + k] == lo:
            return (base + k) // 2
    return -1


@njit(cache=True)
def rehash(old, new):  # type: ignore[no-untyped-def]
    """Insert every position of table ``old`` into the (larger, empty) table ``new``."""
    mask = np.uint64(new.shape[0] // 2 - 1)
    for slot in range(0, old.shape[0], 2):
        if old[slot + 1] != _ZERO:
            _insert(old[slot], old[slot + 1] & ~_USED, new, mask)


@njit(cache=True)
def search(
    fo_lo,
    fo_hi,
    to_lo,
    to_hi,
    goal_lo,
    goal_hi,
    depth_goal,  # type: ignore[no-untyped-def]
    board_lo,
    board_hi,
    next_move,
    chosen,
    state,
    table,
    budget,
    meet,
    full_lo,
    full_hi,
    canon,
    wins,
    win_paths,
):
    """Depth-first search for ``depth_goal`` jumps that turn ``board[0]`` into the goal.

    Args:
        fo_lo, fo_hi: per jump, the bits of its from and over cells (jumps in try order).
        to_lo, to_hi: per jump, the bit of its landing cell.
        goal_lo, goal_hi: the goal position.
        depth_goal: jumps in every solution (start pegs - goal pegs).
        board_lo, board_hi: position at each depth (``[0]`` = start), length depth_goal + 1.
        next_move: per depth, the first jump index not yet tried.
        chosen: per depth, the jump played (the solution once FOUND).
        state: ``[depth, entries, meet slot]``: where to resume, dead positions stored so far.
        table: the dead positions, two words a slot (low word, then high word with bit 63
            set to mark the slot used); slots a power of 2, at least 4.  ``state[1]``
            counts the entries stored.
        budget: new nodes to expand before returning BUDGET.
        meet: ``[store_depth, check_depth]``, or ``[-1, -1]`` to switch meeting off.  For the
            complement game (goal = start with pegs and holes swapped) a jump sequence from
            start to Y, played backwards from the complement of Y, ends on the goal.  So the
            complement of every position reached at depth k <= store_depth is a *winning*
            position (depth_goal - k jumps from the start), stored in ``wins`` with its path
            (canonical jump ids ``canon[j]``) in ``win_paths``; reaching a stored one at any
            depth >= check_depth = depth_goal - store_depth solves the game.  (Peg counts
            tell the depths apart, so one table serves them all.)
        full_lo, full_hi: every board cell, to take complements.
        canon: per jump in this order, its canonical id (the order may change on restarts).
        wins, win_paths: the table of winning positions (same layout as ``table``) and, per
            slot, the store_depth jump ids that reach its complement.

    Returns:
        (status, chosen, nodes): FOUND, EXHAUSTED (no solution), BUDGET or MEET (the
        position at check_depth is in ``wins``, in slot ``state[2]``).
    """
    n_moves = fo_lo.shape[0]
    mask = np.uint64(table.shape[0] // 2 - 1)
    wmask = np.uint64(wins.shape[0] // 2 - 1)
    d = state[0]
    nodes = 0
    while True:
        if nodes >= budget:
            state[0] = d
            return BUDGET, chosen, nodes
        lo = board_lo[d]
        hi = board_hi[d]
        if d == depth_goal:
            if lo == goal_lo and hi == goal_hi:
                state[0] = d
                return FOUND, chosen, nodes
            d -= 1
            if d < 0:
                state[0] = d
                return EXHAUSTED, chosen, nodes
            continue
        # S1: find the next legal jump at this depth, in the static order
        j = next_move[d]
        while j < n_moves:
            a = fo_lo[j]
            b = fo_hi[j]
            if (lo & a) == a and (hi & b) == b and (lo & to_lo[j]) == _ZERO and (hi & to_hi[j]) == _ZERO:
                break
            j += 1
        if j >= n_moves:
            # S2: every jump from here failed, so the position is dead
            state[1] += _insert(lo, hi, table, mask)[1]
            d -= 1
            if d < 0:
                state[0] = d
                return EXHAUSTED, chosen, nodes
            continue
        next_move[d] = j + 1
        nlo = lo ^ (fo_lo[j] | to_lo[j])
        nhi = hi ^ (fo_hi[j] | to_hi[j])
        # S3: skip children already shown dead (reached before by another order of jumps)
        if _find(nlo, nhi, table, mask) >= 0:
            continue
        chosen[d] = j
        d += 1
        board_lo[d] = nlo
        board_hi[d] = nhi
        next_move[d] = 0
        nodes += 1
        # S4: meet a winning position (complement game only)
        if 0 <= meet[1] <= d:
            slot = _find(nlo, nhi, wins, wmask)
            if slot >= 0:
                state[0] = d
                state[2] = slot
                return MEET, chosen, nodes
        if d <= meet[0]:
            slot, _ = _insert(nlo ^ full_lo, nhi ^ full_hi, wins, wmask)
            for i in range(d):
                win_paths[slot, i] = canon[chosen[i]]

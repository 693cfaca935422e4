"""Numba kernels of the blacken lower bounds, shared by every strategy that needs a bound.

The board is padded by one ring of OFF cells, flat, ``P = k + 2`` cells a row, so a walk
from any cell next to a white stone never needs a bounds check.  Every array is int64.

:func:`bound` is the packing bound and :func:`split_bound` the component bound; the native
branch and bound (:mod:`puzzlesat.native.blacken.kernel`) calls them at every node, the CNF
and CP-SAT step models take their value on the initial position as the least move count to
try (:mod:`puzzlesat.domains.blacken.bound`).  Both are numba code: the component bound
solves each white component exactly, which pure Python cannot do at the speed the search needs.
"""

from __future__ import annotations

from numba import njit

EMPTY, WHITE, BLACK, OFF = 0, 1, 2, 3
DEAD = 1 << 20
LOW31 = (1 << 31) - 1


@njit(cache=True)
def line_ends(grid, w, d):  # type: ignore[no-untyped-def]
    """The first cells that are not white on both sides of the white run through ``w`` along ``d``."""
    a = w - d
    while grid[a] == WHITE:
        a -= d
    b = w + d
    while grid[b] == WHITE:
        b += d
    return a, b


@njit(cache=True)
def mark_ends(grid, w, dirs, mark, stamp):  # type: ignore[no-untyped-def]
    """Stamp the empty cells at both ends of the four white runs through ``w`` (the cells a
    move there would need), so that another stone counted later shares none of them."""
    for i in range(4):
        d = dirs[i]
        a, b = line_ends(grid, w, d)
        if grid[a] == EMPTY:
            mark[a] = stamp
        if grid[b] == EMPTY:
            mark[b] = stamp


@njit(cache=True)
def bound(grid, whites, dirs, mark, stamp, order):  # type: ignore[no-untyped-def]
    """A lower bound on the moves still needed (DEAD when a white stone can never flip).

    The move that flips a white stone w is placed on an empty end of one of the four lines of
    white stones through w (ends only turn black, so these sets only shrink).  White stones
    whose end sets are pairwise disjoint need distinct moves: a greedy packing, fewest ends
    first, counts them.  When no white stone has an empty end facing a black one, the next
    move flips nothing, which adds one.
    """
    n = 0
    flippable = False
    for j in range(whites.shape[0]):
        w = whites[j]
        if grid[w] != WHITE:
            continue
        ends = 0
        for i in range(4):
            d = dirs[i]
            a, b = line_ends(grid, w, d)
            if grid[a] == EMPTY:
                ends += 1
                if grid[b] == BLACK:
                    flippable = True
            if grid[b] == EMPTY:
                ends += 1
                if grid[a] == BLACK:
                    flippable = True
        if ends == 0:
            return DEAD
        order[n] = ends * 4096 + w
        n += 1
    if n == 0:
        return 0
    count = 0
    # fewest ends first, whites in index order within a count: the order of sorting order[:n],
    # without the sort (numba's sort alone doubled the kernel's compile time)
    for j in range(8 * n):
        if order[j % n] // 4096 != j // n + 1:
            continue
        w = order[j % n] % 4096
        free = True
        for i in range(4):
            d = dirs[i]
            a, b = line_ends(grid, w, d)
            if (grid[a] == EMPTY and mark[a] == stamp) or (grid[b] == EMPTY and mark[b] == stamp):
                free = False
                break
        if free:
            count += 1
            mark_ends(grid, w, dirs, mark, stamp)
    if not flippable:
        count += 1
    return count


@njit(cache=True)
def _mix(mask, gid):  # type: ignore[no-untyped-def]
    """A well-mixed hash of (mask, component): every bit of the mask reaches the low bits."""
    # 31-bit steps whose products stay below 2**63: numba's int64 overflow is undefined (LLVM
    # may drop a mask after it), and plain Python must give the same slots (native/plain.py)
    h = (mask ^ (mask >> 31) ^ (gid * 0x9E3779B1)) & LOW31
    h = ((h ^ (h >> 15)) * 0x2C1B3C6D) & LOW31
    h = ((h ^ (h >> 12)) * 0x297A2D39) & LOW31
    return h ^ (h >> 15)


@njit(cache=True)
def _memo_slot(mkeys, mcomp, mask, gid):  # type: ignore[no-untyped-def]
    """The memo slot holding (mask, gid), or the empty slot where it would go."""
    size = mkeys.shape[0]
    slot = _mix(mask, gid) & (size - 1)
    while mkeys[slot] != 0 and not (mkeys[slot] == mask + 1 and mcomp[slot] == gid):
        slot = (slot + 1) & (size - 1)
    return slot


@njit(cache=True)
def _memo_store(mkeys, mcomp, mval, work, mask, gid, value, exact):  # type: ignore[no-untyped-def]
    slot = _memo_slot(mkeys, mcomp, mask, gid)
    if mkeys[slot] == 0:
        work[1] += 1
    mkeys[slot] = mask + 1
    mcomp[slot] = gid
    mval[slot] = value * 2 + exact


@njit(cache=True)
def _comp_place(grid, dirs, comp_of, gid, cells, nw, p):  # type: ignore[no-untyped-def]
    """Play p inside component gid only; returns the flipped stones as a mask over cells[:nw]."""
    grid[p] = BLACK
    flipped = 0
    for e in range(8):
        d = dirs[e]
        c = p + d
        if not (grid[c] == WHITE and comp_of[c] == gid):
            continue
        while grid[c] == WHITE:
            c += d
        if grid[c] == BLACK:
            c = p + d
            while grid[c] == WHITE:
                grid[c] = BLACK
                for j in range(nw):
                    if cells[j] == c:
                        flipped |= 1 << j
                        break
                c += d
    return flipped


@njit(cache=True)
def _comp_unplace(grid, cells, nw, p, flipped):  # type: ignore[no-untyped-def]
    for j in range(nw):
        if flipped & (1 << j):
            grid[cells[j]] = WHITE
    grid[p] = EMPTY


# frame fields of comp_value's explicit stack
F_MASK, F_CAP, F_H, F_BEST, F_M, F_K, F_P, F_FLIP = range(8)


@njit(cache=True)
def comp_value(  # type: ignore[no-untyped-def]
    grid, dirs, comp_of, gid, cells, nw, nc, weight, mkeys, mcomp, mval, work, limit, cap, cmark, frames, fmoves
):
    """V_G: the least weighted cost of the moves that finish component ``gid`` alone.

    ``cells[:nw]`` are the component's white stones, ``cells[nw:nc]`` the empty cells next
    to them at the start.  A move on cell p costs ``weight[p]`` = 12 / (number of components
    next to p): a move serves at most that many components, so the sum of V_G over the
    components, divided by 12, bounds the moves still needed.

    A memoised depth-first branch and bound on an explicit stack (``frames``, ``fmoves``):
    a result below ``cap`` is exact, one at or above it a lower bound (memo entries keep
    which).  Returns -2 when ``work`` passes ``limit`` or the memo fills (the board is left
    as it was), DEAD when the component can no longer be finished.  The arrays are those of
    :class:`~puzzlesat.domains.blacken.bound.Bounds`, one by one: the bundle handed on at
    every call would cost a reference count per array.
    """
    size = mkeys.shape[0]
    d = 0
    frames[0, F_CAP] = cap
    entering = True
    ret = 0
    while True:
        if entering:
            entering = False
            fcap = frames[d, F_CAP]
            mask = 0
            for i in range(nc):
                if grid[cells[i]] == BLACK:
                    mask |= 1 << i
            slot = _memo_slot(mkeys, mcomp, mask, gid)
            known = 0
            immediate = False
            if mkeys[slot] != 0:
                if mval[slot] & 1 or mval[slot] >> 1 >= fcap:
                    ret = mval[slot] >> 1
                    immediate = True
                else:
                    known = mval[slot] >> 1
            if not immediate:
                left = False
                for i in range(nw):
                    if grid[cells[i]] == WHITE:
                        left = True
                        break
                if not left:
                    _memo_store(mkeys, mcomp, mval, work, mask, gid, 0, 1)
                    ret = 0
                    immediate = True
            if not immediate:
                h = max(known, comp_packing(grid, dirs, cells, nw, nc, weight, cmark))
                if h >= fcap:
                    _memo_store(mkeys, mcomp, mval, work, mask, gid, h, 0)
                    ret = h
                    immediate = True
                else:
                    # the moves, most flips first
                    m = 0
                    for i in range(nw, nc):
                        p = cells[i]
                        if grid[p] != EMPTY:
                            continue
                        adjacent = False
                        flips = 0
                        for e in range(8):
                            dd = dirs[e]
                            c = p + dd
                            if grid[c] == WHITE and comp_of[c] == gid:
                                adjacent = True
                                while grid[c] == WHITE:
                                    c += dd
                                if grid[c] == BLACK:
                                    flips += (c - p) // dd - 1
                        if not adjacent:
                            continue
                        key = flips * 64 - weight[p]
                        k = m
                        while k > 0 and fmoves[d, 64 + k - 1] < key:
                            fmoves[d, 64 + k] = fmoves[d, 64 + k - 1]
                            fmoves[d, k] = fmoves[d, k - 1]
                            k -= 1
                        fmoves[d, 64 + k] = key
                        fmoves[d, k] = p
                        m += 1
                    frames[d, F_MASK] = mask
                    frames[d, F_H] = h
                    frames[d, F_BEST] = DEAD
                    frames[d, F_M] = m
                    frames[d, F_K] = 0
            if immediate:
                if d == 0:
                    return ret
                d -= 1
                _comp_unplace(grid, cells, nw, frames[d, F_P], frames[d, F_FLIP])
                p = frames[d, F_P]
                if ret < DEAD and weight[p] + ret < frames[d, F_BEST]:
                    frames[d, F_BEST] = weight[p] + ret
        # the next move of frame d, or the frame's result
        descended = False
        while frames[d, F_K] < frames[d, F_M]:
            p = fmoves[d, frames[d, F_K]]
            frames[d, F_K] += 1
            here = min(frames[d, F_CAP], frames[d, F_BEST])
            if weight[p] >= here:
                # the child costs at least its move: a lower bound, never an exact value below cap
                frames[d, F_BEST] = min(frames[d, F_BEST], weight[p])
                continue
            work[0] += 1
            if work[0] > limit or work[1] * 10 > size * 7:
                for dd in range(d - 1, -1, -1):
                    _comp_unplace(grid, cells, nw, frames[dd, F_P], frames[dd, F_FLIP])
                return -2
            frames[d, F_P] = p
            frames[d, F_FLIP] = _comp_place(grid, dirs, comp_of, gid, cells, nw, p)
            frames[d + 1, F_CAP] = here - weight[p]
            d += 1
            entering = True
            descended = True
            break
        if descended:
            continue
        best = frames[d, F_BEST]
        if best >= frames[d, F_CAP] and best < DEAD:
            best = max(best, frames[d, F_H])
        _memo_store(mkeys, mcomp, mval, work, frames[d, F_MASK], gid, best, 1 if best < frames[d, F_CAP] else 0)
        ret = best
        if d == 0:
            return ret
        d -= 1
        _comp_unplace(grid, cells, nw, frames[d, F_P], frames[d, F_FLIP])
        p = frames[d, F_P]
        if ret < DEAD and weight[p] + ret < frames[d, F_BEST]:
            frames[d, F_BEST] = weight[p] + ret


@njit(cache=True)
def comp_packing(grid, dirs, cells, nw, nc, weight, cmark):  # type: ignore[no-untyped-def]
    """A cheap lower bound on V_G: the weighted packing of :func:`bound` inside one component.

    Packed white stones need distinct moves, each costing at least the cheapest weight
    among its line ends; a component with no stone flippable next needs one more move (the
    black end of its first flip), costing at least the cheapest weight of its cells.
    """
    cmark[0] += 1
    stamp = cmark[0]
    total = 0
    flippable = False
    left = False
    for j in range(nw):
        w = cells[j]
        if grid[w] != WHITE:
            continue
        left = True
        free = True
        cheapest = DEAD
        for i in range(4):
            d = dirs[i]
            a, b = line_ends(grid, w, d)
            if grid[a] == EMPTY:
                cheapest = min(cheapest, weight[a])
                free = free and cmark[a] != stamp
                flippable = flippable or grid[b] == BLACK
            if grid[b] == EMPTY:
                cheapest = min(cheapest, weight[b])
                free = free and cmark[b] != stamp
                flippable = flippable or grid[a] == BLACK
        if cheapest == DEAD:
            return DEAD
        if free:
            total += cheapest
            mark_ends(grid, w, dirs, cmark, stamp)
    if left and not flippable:
        cheapest = DEAD
        for i in range(nw, nc):
            if grid[cells[i]] == EMPTY:
                cheapest = min(cheapest, weight[cells[i]])
        if cheapest == DEAD:
            return DEAD
        total += cheapest
    return total


@njit(cache=True)
def split_bound(grid, b, limit):  # type: ignore[no-untyped-def]
    """The sum of V_G over the components, in moves (rounded up); DEAD when one is stuck.

    ``b``: the :class:`~puzzlesat.domains.blacken.bound.Bounds`; ``limit``: the work limit
    of :func:`comp_value`.  A component whose exact value is too costly (``too_big``) counts
    its weighted packing.
    """
    dirs, comp_of, ccells, cnw, cnc, weight, work, too_big = (
        b.dirs,
        b.comp_of,
        b.ccells,
        b.cnw,
        b.cnc,
        b.weight,
        b.work,
        b.too_big,
    )
    mkeys, mcomp, mval, cmark, frames, fmoves = b.mkeys, b.mcomp, b.mval, b.cmark, b.frames, b.fmoves
    total = 0
    for g in range(ccells.shape[0]):
        if too_big[g] == 0:
            work[0] = 0
            v = comp_value(
                grid,
                dirs,
                comp_of,
                g,
                ccells[g],
                cnw[g],
                cnc[g],
                weight,
                mkeys,
                mcomp,
                mval,
                work,
                limit,
                DEAD,
                cmark,
                frames,
                fmoves,
            )
            if v == -2:
                too_big[g] = 1
            elif v >= DEAD:
                return DEAD
            else:
                total += v
                continue
        v = comp_packing(grid, dirs, ccells[g], cnw[g], cnc[g], weight, cmark)
        if v >= DEAD:
            return DEAD
        total += v
    return (total + 11) // 12

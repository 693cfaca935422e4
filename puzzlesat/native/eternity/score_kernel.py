"""The numba kernels of the best-score search for edge matching (see native/eternity/score.py).

``scan``: a row-scan backtracker that may leave edges unmatched where a schedule allows it.
The cells are filled in an order in which each cell's west and north neighbours come before
it and its east and south ones after it (row-major, or the last rows column by column); the
cell of depth ``d`` takes its candidates in four phases, each a list of turned tiles of the
cell's frame class keyed by the colours its west and north neighbours show:

0. both sides match (key ``west * C + north``): no error;
1. the north side matches, the west one not (key ``north``): one error;
2. the west side matches, the north one not (key ``west``): one error;
3. neither matches (key 0, every turned tile of the class): two errors, only when ``double``.

A candidate is placed only when the errors so far stay within ``min(allowed[d], best - 1)``:
the schedule ``allowed`` (errors allowed up to and including cell ``d``; none early, more late
in the scan, as Blackwood's and Verhaard's solvers do) and the best full board's errors, so
every board completed is better than the last.  On a cell west or north of a hint, a tile that
misses the hint makes an error certain at the hint's depth: it is placed only when that error
fits the schedule there too (it always does in the complete schedule), so the scan does not fill
the cells in between to find out (the lists put the tiles that fit the hint first, so the walk of
a list ends at the first that cannot be placed).  With Blackwood's colour exhaustion (``rows.rare``,
``s.need``) a tile is placed only when the sides of the rare colours placed so far, its own
with them, reach the minimum ``need[d]``; the lists put the tiles showing most of them first.

``window_best``: branch and bound re-solving a set of cells (a window) of a full board: the
tiles on them are taken off and put back, each turned to fit, to miss as few edges as
possible against the fixed cells around them and each other.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND

KEPT = 4  # the phase of a kept cell (a revisit's head): past the last phase, so never changed


@njit(cache=True)
def scan(rows, s, best, double, budget):  # pragma: no cover - compiled
    """Depth-first row scan with scheduled errors, resumable.

    Args:
        rows: a :class:`~puzzlesat.native.eternity.arrays.Rows`: the depths ``west_of[d]``
            and ``north_of[d]`` of the neighbours of the cell of depth ``d`` (-1 across the
            rim), ``colours``, the frame ``classes`` by depth (hinted cells have a class
            holding their hint alone), the candidate rows ``tile``, ``north``, ``east``,
            ``south``, ``west`` (a turned tile and its four colours), and the hints ahead:
            ``miss`` per row, ``ahead`` per depth.
        s: a :class:`~puzzlesat.native.eternity.arrays.ScanState`, updated in place:
            ``off[p, k, key]..off[p, k, key + 1]`` index the lists of phase p, class k:
            ``order[p]`` the rows, ``tiles[p]`` their tiles and ``sides[p]`` the colour they
            show on the side the phase leaves unmatched (west in phase 1, north in phase 2),
            so that a list is walked without looking the rows up; ``allowed[d]`` the errors
            allowed once cell ``d`` is placed; ``used`` per tile; per depth ``placed`` (the
            row), ``phase`` (:data:`KEPT` for a cell the scan keeps: backtracking into it ends
            the search, EXHAUSTED), and ``choice`` and ``limit`` (where the walk of its list goes
            on and where that list ends; ``choice`` -1: a cell to enter afresh); ``errors[d]``
            the unmatched edges before cell ``d`` (length cells + 1); ``depth[0]`` the
            current depth; ``best_placed`` the rows of the last board found, written on FOUND;
            ``deep[0]`` the most depths short of a full board the scan has filled so far and ``deep_placed`` the rows
            of the first partial board that deep (its deepest board, as Blackwood's solver
            reports one per restart, for :mod:`~puzzlesat.native.eternity.completion`);
            ``need[d]`` the least rare sides placed once cell ``d`` is and ``rare_sum[d]`` those
            placed before cell ``d`` (length cells + 1).
        best: the best full board's errors in ``best[0]``; boards must beat it.
        double: 1 to allow phase 3 (both sides unmatched).
        budget: node budget of this call.

    Returns:
        (status, nodes): FOUND with a better board in ``best_placed`` (call again to search on
        for a still better one), EXHAUSTED, or BUDGET.

    Phase 0, where nearly every node is placed, has a path of its own on flat views of its
    lists.  Rows and tiles are unsigned and phase 0 walks its list with unsigned indices:
    numba then indexes without its fix-up for negative indices (measured: benchmarks/score_scan.py).
    """
    west_of, north_of, ncolours, cell_class = rows.west_of, rows.north_of, rows.colours, rows.classes
    r_tile, r_north, r_east, r_south, r_west = rows.tile, rows.north, rows.east, rows.south, rows.west
    r_miss, ahead, rare = rows.miss, rows.ahead, rows.rare
    off, order, tiles, sides, allowed, used = s.off, s.order, s.tiles, s.sides, s.allowed, s.used
    placed, phase, choice, limit, errors, depth = s.placed, s.phase, s.choice, s.limit, s.errors, s.depth
    least, rare_sum = s.need, s.rare_sum
    n = cell_class.shape[0]
    stride = off.shape[2]
    off0, order0, tiles0 = off[0].reshape(-1), order[0], tiles[0]
    one = np.uint64(1)
    d = depth[0]
    fresh = 0 <= d < n and choice[d] < 0  # cell d entered from above: its state is stale
    nodes = 0
    while True:
        if d == n:
            best[0] = errors[n]
            s.best_placed[:] = placed
            d -= 1
            used[r_tile[placed[d]]] = 0
            depth[0] = d
            return FOUND, nodes
        if d < 0:
            depth[0] = d
            return EXHAUSTED, nodes
        slack = min(allowed[d], best[0] - 1) - errors[d]
        found = False
        hit = np.uint32(0)
        need = 0
        west = north = -1  # the colours the west and north neighbours show, read when needed
        short = least[d] - rare_sum[d]  # the rare sides the tile here must show at least
        p = 0 if fresh else phase[d]
        i = -1 if fresh else choice[d]
        stop = 0 if fresh else limit[d]
        if p == 0:
            if slack >= 0:
                if fresh:
                    west = r_east[placed[west_of[d]]] if west_of[d] >= 0 else 0
                    north = r_south[placed[north_of[d]]] if north_of[d] >= 0 else 0
                    key = cell_class[d] * stride + west * ncolours + north
                    i = off0[key]
                    stop = off0[key + 1]
                j, end = np.uint64(i), np.uint64(stop)
                while j < end and (used[tiles0[j]] != 0 or rare[tiles0[j]] < short):
                    j += one
                i = np.int64(j)
                if j < end:
                    hit = order0[j]
                    found = ahead[d] < 0 or r_miss[hit] <= min(allowed[ahead[d]], best[0] - 1) - errors[d]
            if not found:
                p = 1
                i = -1
        while not found and p < 4:
            need = 1 if p < 3 else 2
            if need > slack or (p == 3 and double == 0):
                break
            if west < 0:
                west = r_east[placed[west_of[d]]] if west_of[d] >= 0 else 0
                north = r_south[placed[north_of[d]]] if north_of[d] >= 0 else 0
            if i < 0:
                key = north if p == 1 else (west if p == 2 else 0)
                i = off[p, cell_class[d], key]
                stop = off[p, cell_class[d], key + 1]
            if p == 1:
                while i < stop and (used[tiles[1, i]] != 0 or sides[1, i] == west or rare[tiles[1, i]] < short):
                    i += 1
            elif p == 2:
                while i < stop and (used[tiles[2, i]] != 0 or sides[2, i] == north or rare[tiles[2, i]] < short):
                    i += 1
            else:
                while i < stop and (
                    used[tiles[3, i]] != 0
                    or r_west[order[3, i]] == west
                    or r_north[order[3, i]] == north
                    or rare[tiles[3, i]] < short
                ):
                    i += 1
            if i < stop and (
                ahead[d] < 0 or r_miss[order[p, i]] <= min(allowed[ahead[d]], best[0] - 1) - errors[d] - need
            ):
                hit = order[p, i]
                found = True
            else:
                p += 1
                i = -1
        if found:
            used[r_tile[hit]] = 1
            rare_sum[d + 1] = rare_sum[d] + rare[r_tile[hit]]
            placed[d] = hit
            phase[d] = p
            choice[d] = i + 1
            limit[d] = stop
            errors[d + 1] = errors[d] + need
            d += 1
            if s.deep[0] < d < n:  # deeper than ever, not full: a copy at most once per depth
                s.deep[0] = d
                s.deep_placed[:d] = placed[:d]
            fresh = True
            nodes += 1
            if nodes >= budget:
                if d < n:
                    choice[d] = -1
                depth[0] = d
                return BUDGET, nodes
        else:
            d -= 1
            fresh = False
            if d >= 0:
                used[r_tile[placed[d]]] = 0


@njit(cache=True)
def window_best(
    cells,
    around,
    looks,
    fits,
    current,
    budget,
    out,
):  # pragma: no cover - compiled
    """Branch and bound over the tiles of a window: the assignment with fewest unmatched edges.

    Args:
        cells: the window's cells, in the order they are filled (row-major).
        around: ``around[j, s]`` the colour the cell across side s shows, when fixed (outside
            the window), ``-2 - i`` when it is window cell i's side facing it, or -1 for the
            board's rim (no edge).
        looks: ``looks[t, q, s]`` colour on side s of window tile t in its q-th look.
        fits: ``fits[j, t, q]`` 1 when look q of tile t fits cell j's frame class.
        current: errors of the board's own assignment; only fewer count.
        budget: node limit.
        out: ``out[j] = t * 4 + q`` for the best assignment found (when better than current).

    Returns:
        (best errors found, nodes): ``current`` when nothing better was found.
    """
    m = cells.shape[0]
    best = current
    tq = np.full(m, -1, dtype=np.int64)  # per depth: next (tile, look) index to try
    pick = np.full(m, -1, dtype=np.int64)
    cost = np.zeros(m + 1, dtype=np.int64)
    used = np.zeros(m, dtype=np.int64)
    d = 0
    nodes = 0
    while d >= 0 and nodes < budget:
        if d == m:
            if cost[m] < best:
                best = cost[m]
                for j in range(m):
                    out[j] = pick[j]
            d -= 1
            used[pick[d] // 4] = 0
            continue
        x = tq[d] + 1
        placed_one = False
        while x < m * 4:
            t = x // 4
            q = x % 4
            if used[t] == 0 and fits[d, t, q] == 1:
                c = cost[d]
                for s in range(4):
                    a = around[d, s]
                    if a == -1:
                        continue
                    if a >= 0:
                        if looks[t, q, s] != a:
                            c += 1
                    else:
                        j = -2 - a
                        if j < d:  # a window cell already placed: its opposite side
                            tj = pick[j] // 4
                            qj = pick[j] % 4
                            if looks[tj, qj, (s + 2) % 4] != looks[t, q, s]:
                                c += 1
                if c < best:
                    tq[d] = x
                    pick[d] = x
                    used[t] = 1
                    cost[d + 1] = c
                    d += 1
                    if d < m:
                        tq[d] = -1
                    nodes += 1
                    placed_one = True
                    break
            x += 1
        if not placed_one:
            tq[d] = -1
            d -= 1
            if d >= 0:
                used[pick[d] // 4] = 0
    return best, nodes


@njit(cache=True)
def assignment(cost):  # pragma: no cover - compiled
    """The assignment of rows to columns of a square cost matrix with the least total cost.

    The Hungarian method with potentials, one shortest augmenting path per row (O(n^3)).
    Returns ``col_of[row]``.
    """
    n = cost.shape[0]
    inf = np.int64(1) << 60
    u = np.zeros(n + 1, dtype=np.int64)
    v = np.zeros(n + 1, dtype=np.int64)
    row_of = np.zeros(n + 1, dtype=np.int64)  # column j (1-based) -> its row (1-based), 0 free
    way = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        row_of[0] = i
        j0 = 0
        minv = np.full(n + 1, inf, dtype=np.int64)
        done = np.zeros(n + 1, dtype=np.bool_)
        while True:
            done[j0] = True
            i0 = row_of[j0]
            delta = inf
            j1 = 0
            for j in range(1, n + 1):
                if not done[j]:
                    cur = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(n + 1):
                if done[j]:
                    u[row_of[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if row_of[j0] == 0:
                break
        while j0 != 0:
            j1 = way[j0]
            row_of[j0] = row_of[j1]
            j0 = j1
    col_of = np.zeros(n, dtype=np.int64)
    for j in range(1, n + 1):
        col_of[row_of[j] - 1] = j - 1
    return col_of


def warm_up() -> None:
    """Compile (or load from cache) the three kernels on tiny inputs."""
    from puzzlesat.native.eternity.arrays import Rows, ScanState

    z = np.zeros(4, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    off, order = np.zeros((4, 9, 5), dtype=np.int32), np.zeros((4, 0), dtype=np.uint32)
    state = ScanState.start((off, order, np.zeros((4, 0), dtype=np.uint16), np.zeros((4, 0), dtype=np.int16)), z)
    west_of, north_of = np.array([-1, 0, -1, 2], dtype=np.int64), np.array([-1, -1, 0, 1], dtype=np.int64)
    rows = Rows(
        west_of,
        north_of,
        2,
        z,
        np.zeros(0, dtype=np.uint16),
        empty,
        empty,
        empty,
        empty,
        np.zeros(0, dtype=np.uint8),
        np.full(4, -1, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
    )
    scan(rows, state, np.zeros(1, dtype=np.int64), 0, 1)
    window_best(
        np.zeros(1, dtype=np.int64),
        np.full((1, 4), -1, dtype=np.int64),
        np.zeros((1, 4, 4), dtype=np.int64),
        np.ones((1, 1, 4), dtype=np.int64),
        1,
        10,
        np.zeros(1, dtype=np.int64),
    )
    assignment(np.zeros((2, 2), dtype=np.int64))

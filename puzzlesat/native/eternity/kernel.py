"""The numba kernel of the row-scan edge-matching backtracker (see native/eternity/search.py).

Cells are filled in row-major order.  Cell ``d`` belongs to a frame class (one of nine:
four corners, four sides, inside) and looks up its candidates by the colour pair
(west, north) already fixed by its left and upper neighbours: the candidates of class ``k``
and pair ``key = west * C + north`` are ``cand_*[off[b]:off[b + 1]]``, ``b = k * (C * C + 1) + key``, each a tile
pre-rotated so that its west and north colours match and its grey sides face the rim.

The same search counts: every completed board adds one to ``found[0]``, and the search
stops at the ``limit``-th (a decision search asks for 1; a count for more than there can be,
and runs on to exhaustion).

A search may start below the root (a task of the parallel search): cells ``0..floor-1`` are
already placed (:func:`replay`) and the search is exhausted when it backtracks past ``floor``.

The colour-count check (``check`` 1) keeps two counts per slot ``class * C + colour``:
``supply``, the tiles not on the board that can lie on a cell of that class with that north
colour (``gives[gives_off[t]:gives_off[t + 1]]`` lists tile ``t``'s slots), and ``demand``, the
empty cells of that class whose upper neighbour is placed and shows them that colour.  Each
such cell needs a tile of its own, so a placement that leaves some demand above its supply is
refused at once (counted in ``pruned[0]``, not as a node): it catches a cell of the next row
that no tile left can serve, rows before the scan gets there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND


@njit(cache=True, inline="always")
def book(
    d, i, cols, ncolours, cell_class, cand_tile, cand_south, south, gives_off, gives, supply, demand
):  # pragma: no cover - compiled
    """Book candidate ``i`` on cell ``d`` in the colour counts; False (nothing booked) when a count fails.

    It takes the arrays it reads one by one, unlike :func:`search`: the tuple of a
    :class:`~puzzlesat.native.eternity.arrays.Table` handed on at every node costs a reference
    count per array, which made the checked search 1.4 times slower (measured).
    """
    n = cell_class.shape[0]
    t = cand_tile[i]
    ok = True
    if d >= cols:
        demand[cell_class[d] * ncolours + south[d - cols]] -= 1
    for j in range(gives_off[t], gives_off[t + 1]):
        s = gives[j]
        supply[s] -= 1
        if supply[s] < demand[s]:
            ok = False
    if d + cols < n:
        s = cell_class[d + cols] * ncolours + cand_south[i]
        demand[s] += 1
        if demand[s] > supply[s]:
            ok = False
    if not ok:
        unbook(d, i, cols, ncolours, cell_class, cand_tile, cand_south, south, gives_off, gives, supply, demand)
    return ok


@njit(cache=True, inline="always")
def unbook(
    d, i, cols, ncolours, cell_class, cand_tile, cand_south, south, gives_off, gives, supply, demand
):  # pragma: no cover - compiled
    """Undo :func:`book` of candidate ``i`` on cell ``d``."""
    n = cell_class.shape[0]
    t = cand_tile[i]
    if d >= cols:
        demand[cell_class[d] * ncolours + south[d - cols]] += 1
    for j in range(gives_off[t], gives_off[t + 1]):
        supply[gives[j]] += 1
    if d + cols < n:
        demand[cell_class[d + cols] * ncolours + cand_south[i]] -= 1


@njit(cache=True)
def search(t, s, budget, limit, floor, check):  # pragma: no cover - compiled
    """Depth-first row-scan search, resumable.

    Args:
        t: the candidate lookup, a :class:`~puzzlesat.native.eternity.arrays.Table`: board
            width ``cols``, ``colours``, each cell's frame class (``classes``), the
            candidates ``off``, ``tile``, ``east``, ``south`` (module docstring), ``after``
            (per candidate, the one to try once its subtree is done: the next, or the first
            past its twins, identical pieces: native/eternity/search.py) and the colour-count
            check's ``gives_off``, ``gives``.
        s: the search's state, a :class:`~puzzlesat.native.eternity.arrays.State`, updated in
            place: ``used`` (1 for tiles on the board), per depth ``choice`` (the next
            candidate index to try, -1: not started) and ``placed`` (the candidate placed),
            ``east``, ``south`` (the colours each placed cell shows to its right and
            downward), ``depth[0]``, ``found[0]`` (boards completed so far), the check's
            ``supply``, ``demand`` and ``pruned[0]`` (placements it refused).
        budget: node budget for this call.
        limit: stop at a completed board once ``found[0]`` reaches it.
        floor: the first cell this search places (cells before it stay as they are).
        check: 1 for the colour-count check (module docstring), 0 for none.

    Returns:
        (status, nodes): FOUND with the ``limit``-th board in ``placed``; EXHAUSTED when the
        search below the starting state is done (every board in it counted); BUDGET when the
        budget ran out (resume by calling again, with the same or a higher limit).
    """
    cols, ncolours, cell_class, off = t.cols, t.colours, t.classes, t.off
    cand_tile, cand_east, cand_south, after = t.tile, t.east, t.south, t.after
    used, choice, east, south, placed, found = s.used, s.choice, s.east, s.south, s.placed, s.found
    gives_off, gives, supply, demand, pruned, depth = t.gives_off, t.gives, s.supply, s.demand, s.pruned, s.depth
    n = cell_class.shape[0]
    width = ncolours * ncolours + 1
    one = np.uint64(1)
    d = depth[0]
    nodes = 0
    while True:
        if d == n:
            if found[0] >= limit:
                depth[0] = d
                return FOUND, nodes
            # counted when it was completed: take the last tile off and go on
            d -= 1
            used[cand_tile[placed[d]]] = 0
            if check:
                unbook(
                    d,
                    placed[d],
                    cols,
                    ncolours,
                    cell_class,
                    cand_tile,
                    cand_south,
                    south,
                    gives_off,
                    gives,
                    supply,
                    demand,
                )
            continue
        if d < floor:
            depth[0] = d
            return EXHAUSTED, nodes
        # the cell before a row's first is on the east rim and shows grey (0) east: no d % cols
        west = east[d - 1] if d > 0 else 0
        north = south[d - cols] if d >= cols else 0
        base = cell_class[d] * width + west * ncolours + north
        i = choice[d]
        if i < 0:
            i = off[base]
        stop = off[base + 1]
        j, end = np.uint64(i), np.uint64(stop)  # unsigned: numba indexes without its negative-index fix-up
        while j < end:
            if used[cand_tile[j]] == 0:
                if check == 0 or book(
                    d, j, cols, ncolours, cell_class, cand_tile, cand_south, south, gives_off, gives, supply, demand
                ):
                    break
                pruned[0] += 1
            j += one
        i = np.int64(j)
        if i < stop:
            used[cand_tile[i]] = 1
            placed[d] = i
            east[d] = cand_east[i]
            south[d] = cand_south[i]
            choice[d] = after[i]
            d += 1
            if d < n:
                choice[d] = -1
            else:
                found[0] += 1
            nodes += 1
            if nodes >= budget:
                depth[0] = d
                return BUDGET, nodes
        else:
            # no candidate left here: undo the cell before and try its next candidate
            choice[d] = -1
            d -= 1
            if d >= floor:
                used[cand_tile[placed[d]]] = 0
                if check:
                    unbook(
                        d,
                        placed[d],
                        cols,
                        ncolours,
                        cell_class,
                        cand_tile,
                        cand_south,
                        south,
                        gives_off,
                        gives,
                        supply,
                        demand,
                    )


@njit(cache=True)
def replay(prefix, t, s, check):  # pragma: no cover - compiled
    """Place the candidates ``prefix`` on cells 0, 1, ... of an empty board (a task's start)."""
    for d in range(prefix.shape[0]):
        i = prefix[d]
        s.used[t.tile[i]] = 1
        s.placed[d] = i
        s.east[d] = t.east[i]
        s.south[d] = t.south[i]
        s.choice[d] = i + 1
        if check:
            book(d, i, t.cols, t.colours, t.classes, t.tile, t.south, s.south, t.gives_off, t.gives, s.supply, s.demand)


def warm_up(replay_too: bool = False) -> None:
    """Compile (or load from cache) the search kernel on a 2x2 board with no candidates.

    ``replay_too`` also the kernel that starts a task (only the parallel search calls it):
    each kernel compiled costs a second or more on a fresh install, so only what runs.
    """
    from puzzlesat.native.eternity.arrays import State, Table, numpy_views, zeros

    none = zeros(0)
    table = numpy_views(Table(2, 2, zeros(4), zeros(9 * 5), zeros(0, "H"), none, none, none, none, zeros(5), none))
    state = numpy_views(State.empty(4, 40))
    search(table, state, 1, 1, 0, 1)
    if replay_too:
        replay(np.zeros(0, dtype=np.int64), table, state, 1)

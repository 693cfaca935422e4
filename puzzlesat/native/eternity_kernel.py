"""The numba kernel of the row-scan edge-matching backtracker (see native/eternity.py).

Cells are filled in row-major order.  Cell ``d`` belongs to a frame class (one of nine:
four corners, four sides, inside) and looks up its candidates by the colour pair
(west, north) already fixed by its left and upper neighbours: the candidates of class ``k``
and pair ``key = west * C + north`` are ``cand_*[off[k, key]:off[k, key + 1]]``, each a tile
pre-rotated so that its west and north colours match and its grey sides face the rim.

The same search counts: every completed board adds one to ``found[0]``, and the search
stops at the ``limit``-th (a decision search asks for 1; a count for more than there can be,
and runs on to exhaustion).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzlesat.core.kernel_status import BUDGET, EXHAUSTED, FOUND


@njit(cache=True)
def search(
    cols,
    ncolours,
    cell_class,
    off,
    cand_tile,
    cand_east,
    cand_south,
    used,
    choice,
    east,
    south,
    placed,
    depth,
    budget,
    found,
    limit,
):  # pragma: no cover - compiled
    """Depth-first row-scan search, resumable.

    Args:
        cols, ncolours: board width and colour count.
        cell_class: frame class of each cell.
        off, cand_tile, cand_east, cand_south: the candidate lookup (module docstring).
        used: 1 for tiles on the board.
        choice: per depth, the next candidate index to try (-1: not started).
        east, south: colours each placed cell shows to its right and downward.
        placed: per depth, the candidate index placed there.
        depth: the state's current depth, in ``depth[0]`` (updated in place).
        budget: node budget for this call.
        found: boards completed so far, in ``found[0]`` (int64, updated in place).
        limit: stop at a completed board once ``found[0]`` reaches it.

    Returns:
        (status, nodes): FOUND with the ``limit``-th board in ``placed``; EXHAUSTED when the
        search below the starting state is done (every board in it counted); BUDGET when the
        budget ran out (resume by calling again, with the same or a higher limit).
    """
    n = cell_class.shape[0]
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
            continue
        if d < 0:
            depth[0] = d
            return EXHAUSTED, nodes
        col = d % cols
        west = east[d - 1] if col > 0 else 0
        north = south[d - cols] if d >= cols else 0
        key = west * ncolours + north
        k = cell_class[d]
        i = choice[d]
        if i < 0:
            i = off[k, key]
        stop = off[k, key + 1]
        while i < stop and used[cand_tile[i]] != 0:
            i += 1
        if i < stop:
            used[cand_tile[i]] = 1
            placed[d] = i
            east[d] = cand_east[i]
            south[d] = cand_south[i]
            choice[d] = i + 1
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
            if d >= 0:
                used[cand_tile[placed[d]]] = 0


def warm_up() -> None:
    """Compile (or load from cache) the kernel on a 2x2 board."""
    off = np.zeros((9, 5), dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    state = [np.zeros(4, dtype=np.int64) for _ in range(5)]
    search(
        2,
        2,
        np.zeros(4, dtype=np.int64),
        off,
        empty,
        empty,
        empty,
        state[0],
        state[1] - 1,
        state[2],
        state[3],
        state[4],
        np.zeros(1, dtype=np.int64),
        1,
        np.zeros(1, dtype=np.int64),
        1,
    )

"""The best completion of a partial board: its empty cells filled with the tiles left over.

Blackwood's solver reports the deepest partial board of each restart (all but a few cells
placed, every edge among them matched but for a small budget), and many of the best boards come
from filling the few cells left with the tiles left over, mismatches allowed: here that
completion is an exact branch and bound (:func:`~puzzlesat.native.eternity.score_kernel.window_best`,
the kernel of the neighbourhood search's windows) minimising the unmatched edges around and
between the empty cells.  Hinted cells left empty get their hint first.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.domains.eternity import Instance

NODES = 200_000  # a completion's node budget: 12 cells take a few thousand on the official pieces


def neighbours(instance: Instance) -> np.ndarray:
    """``neighbours[cell, side]``: the cell across that side (north, east, south, west), -1 across the rim."""
    rows, cols = instance.rows, instance.cols
    cell = np.arange(instance.cells)
    r, c = cell // cols, cell % cols
    return np.stack(
        [
            np.where(r > 0, cell - cols, -1),
            np.where(c < cols - 1, cell + 1, -1),
            np.where(r < rows - 1, cell + cols, -1),
            np.where(c > 0, cell - 1, -1),
        ],
        axis=1,
    )


def complete(instance: Instance, look: np.ndarray, board: np.ndarray, nodes: int = NODES) -> tuple[np.ndarray, bool]:
    """``board`` (tile, rotation) per cell, -1 on the empty ones, filled with the tiles it lacks so
    as to miss as few edges as possible (a tile on the rim shows grey outward, as in every legal
    board).  Returns the full board and True when the search was exhaustive (the completion is
    the best one), False when ``nodes`` ran out first (the best one found).

    ``look`` is :func:`~puzzlesat.native.eternity.score.looks` of the instance.
    """
    from puzzlesat.native.eternity.score_kernel import window_best

    full = np.array(board, dtype=np.int64, copy=True)
    for hint in instance.hints:
        if full[hint.cell, 0] < 0:
            full[hint.cell] = (hint.tile, hint.rotation)
    empty = np.flatnonzero(full[:, 0] < 0)
    m = len(empty)
    if m == 0:
        return full, True
    placed = np.zeros(len(instance.tiles), dtype=bool)
    placed[full[full[:, 0] >= 0, 0]] = True
    tiles = np.flatnonzero(~placed)
    assert len(tiles) == m, "a partial board lacks exactly the tiles of its empty cells"
    nb = neighbours(instance)
    index = np.full(instance.cells, -1, dtype=np.int64)
    index[empty] = np.arange(m)
    around = np.full((m, 4), -1, dtype=np.int64)
    for j, cell in enumerate(empty):
        for side in range(4):
            other = nb[cell, side]
            if other < 0:
                continue
            if index[other] >= 0:
                around[j, side] = -2 - index[other]
            else:
                around[j, side] = look[full[other, 0], full[other, 1], (side + 2) % 4]
    rim = ((nb[empty] < 0) << np.arange(4)).sum(axis=1)  # per empty cell: the sides on the rim
    grey = ((look[tiles] == 0) << np.arange(4)).sum(axis=2)  # per tile and turn: its grey sides
    fits = (grey[None, :, :] == rim[:, None, None]).astype(np.int64)
    out = np.full(m, -1, dtype=np.int64)
    budget = max(1, nodes)
    _, spent = window_best(empty, around, look[tiles], fits, 4 * m + 1, budget, out)
    assert out[0] >= 0, "the tiles left fit the empty cells' frame classes (the scan places tiles by class)"
    full[empty, 0] = tiles[out // 4]
    full[empty, 1] = out % 4
    return full, spent < budget

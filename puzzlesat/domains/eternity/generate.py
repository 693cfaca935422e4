"""Eternity boards with a planted solution, and an unsolvable variant of one."""

from __future__ import annotations

import random
from typing import Any

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.eternity.formats import MAX_CELLS, MAX_COLOURS
from puzzlesat.domains.eternity.instance import GREY, Instance, N, rotated


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A puzzle with a planted solution, its tiles shuffled and rotated.

    Args:
        options: ``size`` (or ``rows`` and ``cols``), ``frame_colours`` (colours on edges
            between two frame cells) and ``inner_colours`` (all other inside edges).
        seed: the random seed; the same seed gives the same puzzle.

    Returns:
        An instance with ``1 + frame_colours + inner_colours`` colours.
    """
    size = options.get("size") or 4
    rows = options.get("rows") or size
    cols = options.get("cols") or size
    frame_colours = options.get("frame_colours") or 1
    inner_colours = options.get("inner_colours") or 1
    if rows < 2 or cols < 2:
        raise InvalidInstanceError(f"--rows {rows} --cols {cols}: board must be at least 2x2")
    if rows * cols > MAX_CELLS:
        raise InvalidInstanceError(
            f"--rows {rows} --cols {cols}: a {rows}x{cols} board has more cells than the limit of {MAX_CELLS}"
        )
    colours = f"--frame-colours {frame_colours} --inner-colours {inner_colours}"
    if 1 + frame_colours + inner_colours > MAX_COLOURS:
        raise InvalidInstanceError(
            f"{colours}: {1 + frame_colours + inner_colours} colours, more than the limit of {MAX_COLOURS}"
        )
    if frame_colours < 1 or inner_colours < 1:
        raise InvalidInstanceError(f"{colours}: need at least one frame colour and one inner colour")
    rng = random.Random(seed)

    def edge_colour(frame_edge: bool) -> int:
        if frame_edge:
            return rng.randint(1, frame_colours)
        return frame_colours + rng.randint(1, inner_colours)

    # horizontal[r][c]: colour between (r, c) and (r, c+1); vertical[r][c]: (r, c) and (r+1, c)
    horizontal = [[edge_colour(r in (0, rows - 1)) for c in range(cols - 1)] for r in range(rows)]
    vertical = [[edge_colour(c in (0, cols - 1)) for c in range(cols)] for r in range(rows - 1)]
    solved = []
    for r in range(rows):
        for c in range(cols):
            north = vertical[r - 1][c] if r > 0 else GREY
            east = horizontal[r][c] if c < cols - 1 else GREY
            south = vertical[r][c] if r < rows - 1 else GREY
            west = horizontal[r][c - 1] if c > 0 else GREY
            solved.append(rotated((north, east, south, west), rng.randrange(4)))
    rng.shuffle(solved)
    return Instance(rows, cols, 1 + frame_colours + inner_colours, tuple(solved))


def make_unsolvable(instance: Instance) -> Instance:
    """Recolour one inner edge of one inner tile so that colour counts turn odd.

    Every inside colour must occur an even number of times (edges pair up), so changing a
    single edge to another inner colour leaves no solution.  Used by tests.
    """
    tiles = list(instance.tiles)
    index = next(i for i, t in enumerate(tiles) if GREY not in t)
    north = tiles[index][N]
    _, inner = instance.colour_domains()
    others = sorted(inner - {north}) or [north % (instance.colours - 1) + 1]
    tiles[index] = (others[0], *tiles[index][1:])  # type: ignore[assignment]
    return Instance(instance.rows, instance.cols, instance.colours, tuple(tiles))

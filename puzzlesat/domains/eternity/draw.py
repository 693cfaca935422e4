"""Eternity's board as an SVG picture (the drawing itself is in :mod:`puzzlesat.domains.eternity.svg`)."""

from __future__ import annotations

from puzzlesat.domains.eternity.instance import Instance, Solution, rotated
from puzzlesat.domains.eternity.verify import mismatches


def draw_svg(instance: Instance, solution: Solution | None) -> str:
    """The board as an SVG picture: hint pieces outlined, mismatched edges in red; without a
    solution, the pieces as given, in input order.

    Cells whose tile or rotation is out of range are left white.
    """
    from puzzlesat.domains.eternity.svg import draw_board  # loaded only when a picture is asked for

    if solution is None:
        return draw_board(instance.rows, instance.cols, list(instance.tiles))
    looks = [
        rotated(instance.tiles[t], r) if 0 <= t < instance.cells and 0 <= r < 4 else None
        for t, r in solution.placements
    ]
    drawable = None not in looks and len(looks) == instance.cells
    return draw_board(
        instance.rows,
        instance.cols,
        looks,
        hinted={hint.cell for hint in instance.hints},
        mismatched=mismatches(instance, solution) if drawable else [],
    )

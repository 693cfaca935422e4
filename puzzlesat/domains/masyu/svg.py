"""A picture of a masyu grid: the cells, the circles and, with a solution, the loop."""

from __future__ import annotations

from puzzlesat.domains.masyu.instance import Instance, Solution
from puzzlesat.domains.svg import Picture

CELL = 24
LOOP = "#1f5fbf"


def draw(instance: Instance, solution: Solution | None, cell: int = CELL) -> str:
    """The SVG text of the grid, its circles and the loop (when there is one)."""
    w, h = instance.cols * cell, instance.rows * cell
    picture = Picture(w + 2, h + 2)
    picture.rect(0, 0, w + 2, h + 2, fill="white")
    for r in range(instance.rows + 1):
        picture.line(1, r * cell + 1, w + 1, r * cell + 1, stroke="#ccc")
    for c in range(instance.cols + 1):
        picture.line(c * cell + 1, 1, c * cell + 1, h + 1, stroke="#ccc")
    centre = cell / 2 + 1
    if solution is not None:
        points = [(c * cell + centre, r * cell + centre) for r, c in [*solution.cells(), solution.start]]
        picture.polyline(points, stroke=LOOP, stroke_width=round(cell / 6, 1), stroke_linejoin="round")
    for (r, c), colour in [(p, "black") for p in instance.black] + [(p, "white") for p in instance.white]:
        picture.circle(
            c * cell + centre, r * cell + centre, round(cell * 0.36, 1), fill=colour, stroke="black", stroke_width=1.5
        )
    return picture.svg()

"""Random Masyu loops and the circles a loop allows (the generator's raw material)."""

from __future__ import annotations

import random

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.masyu.instance import BLACK, WHITE, Cell, EdgeKey, Solution, solution_from_edges


def allowed_clues(solution: Solution) -> dict[Cell, int]:
    """For each loop cell, the circle it could carry with this loop (WHITE/BLACK), if any."""
    order = solution.cells()
    n = len(order)
    straight = [order[i - 1][0] == order[(i + 1) % n][0] or order[i - 1][1] == order[(i + 1) % n][1] for i in range(n)]
    clues: dict[Cell, int] = {}
    for i, cell in enumerate(order):
        before, after = straight[i - 1], straight[(i + 1) % n]
        if straight[i] and not (before and after):
            clues[cell] = WHITE
        elif not straight[i] and before and after:
            clues[cell] = BLACK
    return clues


def random_loop(rows: int, cols: int, rng: random.Random, fill: float = 0.5, blob: float = 0.05) -> Solution:
    """A random simple loop: the boundary of a random hole-free region of grid squares.

    The squares between four cell centres form a ``(rows-1) x (cols-1)`` grid; the boundary
    of a region of squares with no hole and no two squares meeting only at a corner is one
    simple loop through cell centres.
    """
    fr, fc = rows - 1, cols - 1
    if fr < 1 or fc < 1:
        raise InvalidInstanceError(f"a loop needs at least a 2x2 grid, got {rows}x{cols}")
    inside = [[False] * fc for _ in range(fr)]

    def filled(r: int, c: int) -> bool:
        return 0 <= r < fr and 0 <= c < fc and inside[r][c]

    def ok_to_add(r: int, c: int) -> bool:
        # no pinch: around each corner of the new square, no diagonal-only contact
        inside[r][c] = True
        good = True
        for vr in (r, r + 1):
            for vc in (c, c + 1):
                a, b = filled(vr - 1, vc - 1), filled(vr - 1, vc)
                d, e = filled(vr, vc - 1), filled(vr, vc)
                if (a and e and not b and not d) or (b and d and not a and not e):
                    good = False
        # no hole: every empty square must still reach the frame
        if good and sum(filled(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))) >= 2:
            good = _stays_hole_free(inside, fr, fc)
        inside[r][c] = good
        return good

    inside[rng.randrange(fr)][rng.randrange(fc)] = True
    count, target = 1, max(1, int(fr * fc * fill))
    frontier_tries = 0
    while count < target and frontier_tries < 40 * fr * fc:
        frontier_tries += 1
        r, c = rng.randrange(fr), rng.randrange(fc)
        touching = filled(r - 1, c) + filled(r + 1, c) + filled(r, c - 1) + filled(r, c + 1)
        # mostly grow thin corridors, so the loop runs past most cells and turns often
        if inside[r][c] or touching == 0 or (touching > 1 and rng.random() > blob):
            continue
        if ok_to_add(r, c):
            count += 1
    edges: set[EdgeKey] = set()
    for r in range(fr):
        for c in range(fc):
            if not inside[r][c]:
                continue
            # square (r, c) has corners (r, c), (r, c+1), (r+1, c), (r+1, c+1)
            if not filled(r - 1, c):
                edges.add(("h", r, c))
            if not filled(r + 1, c):
                edges.add(("h", r + 1, c))
            if not filled(r, c - 1):
                edges.add(("v", r, c))
            if not filled(r, c + 1):
                edges.add(("v", r, c + 1))
    return solution_from_edges(edges)


def _stays_hole_free(inside: list[list[bool]], fr: int, fc: int) -> bool:
    """True when every empty square reaches the outside through empty squares."""
    seen = [[False] * fc for _ in range(fr)]
    stack = [
        (r, c) for r in range(fr) for c in range(fc) if (r in (0, fr - 1) or c in (0, fc - 1)) and not inside[r][c]
    ]
    for r, c in stack:
        seen[r][c] = True
    while stack:
        r, c = stack.pop()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < fr and 0 <= nc < fc and not seen[nr][nc] and not inside[nr][nc]:
                seen[nr][nc] = True
                stack.append((nr, nc))
    return all(seen[r][c] or inside[r][c] for r in range(fr) for c in range(fc))

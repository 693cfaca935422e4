"""Random Blacken boards: clusters of white stones off the frame."""

from __future__ import annotations

import random
from typing import Any

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.blacken.instance import DIRECTIONS, Cell, Instance, components


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A random board: ``whites`` stones in ``components`` separate 8-connected groups.

    Args:
        options: ``size`` (k, default 7), ``whites`` (q, default 6), ``components``
            (default 2).
        seed: the random seed; the same seed gives the same board.

    Raises:
        InvalidInstanceError: the stones do not fit the board in that many groups.
    """
    size = options.get("size") or 7
    q = options.get("whites")
    q = 6 if q is None else q
    groups = options.get("components") or (1 if q else 0)
    if size < 3:
        raise InvalidInstanceError(f"--size {size}: board size must be at least 3")
    if q < groups or (q > 0 and groups < 1):
        raise InvalidInstanceError(f"--whites {q} --components {groups}: cannot split {q} white stones into {groups}")
    if q > (size - 2) ** 2:
        raise InvalidInstanceError(f"--whites {q} --size {size}: {q} white stones do not fit inside the board's frame")
    rng = random.Random(seed)
    inner = [(r, c) for r in range(1, size - 1) for c in range(1, size - 1)]
    inner_set = set(inner)
    for _ in range(2000):
        owner: dict[Cell, int] = {}
        ok = True
        for g in range(groups):
            free = [cell for cell in inner if not _touches(cell, owner, None) and cell not in owner]
            if not free:
                ok = False
                break
            owner[rng.choice(free)] = g
        for _ in range(q - groups if ok else 0):
            g = rng.randrange(groups)
            grow = sorted({(r + dr, c + dc) for (r, c), o in owner.items() if o == g for dr, dc in DIRECTIONS})
            grow = [cell for cell in grow if cell in inner_set and cell not in owner and not _touches(cell, owner, g)]
            if not grow:
                ok = False
                break
            owner[rng.choice(grow)] = g
        if ok and len(components(owner)) == groups:
            cells = list(owner)
            rng.shuffle(cells)
            return Instance(size, tuple(cells))
    raise InvalidInstanceError(f"could not place {q} stones in {groups} components on a {size}x{size} board")


def _touches(cell: Cell, owner: dict[Cell, int], group: int | None) -> bool:
    """True when the cell is next to a stone of another group than ``group``."""
    r, c = cell
    for dr, dc in DIRECTIONS:
        o = owner.get((r + dr, c + dc))
        if o is not None and o != group:
            return True
    return False

"""The Masyu generator: a random loop, then circles that make it the only answer.

The loop comes from :func:`puzzlesat.domains.masyu.random_loop`; the circles are chosen by
:func:`unique_clues`, which proves uniqueness with the incremental solver of ``cnf-lazy``
(:class:`puzzlesat.encoders.masyu.LazySolver`).  The puzzle registry names :func:`generate`
by dotted path, so the domain module never imports this solver-backed layer.
"""

from __future__ import annotations

import random
from typing import Any

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.masyu import (
    BLACK,
    MAX_CELLS,
    WHITE,
    Cell,
    Instance,
    Solution,
    allowed_clues,
    random_loop,
    verify,
)
from puzzlesat.encoders.masyu import LazySolver


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A puzzle with exactly one solution, built around a random loop.

    A random loop gets every circle it allows; while another loop obeys them all, that
    loop replaces it (see :func:`unique_clues`); then circles are
    taken away in a random order while an incremental SAT solver proves the answer unique.

    Args:
        options: ``rows`` and ``cols`` (or ``size``), ``fill`` (percent of the grid's squares
            inside the loop, default 50).
        seed: the random seed; the same seed gives the same puzzle.
    """
    size = options.get("size") or 10
    rows = options.get("rows") or size
    cols = options.get("cols") or size
    fill = (options.get("fill") or 50) / 100
    if rows < 2 or cols < 2:
        raise InvalidInstanceError(f"--rows {rows} --cols {cols}: grid must be at least 2x2")
    if rows * cols > MAX_CELLS:
        raise InvalidInstanceError(
            f"--rows {rows} --cols {cols}: a {rows}x{cols} grid has more cells than the limit of {MAX_CELLS}"
        )
    rng = random.Random(seed)
    for _ in range(100):
        loop = random_loop(rows, cols, rng, fill)
        kept = unique_clues(rows, cols, loop, rng)
        if kept is not None:
            black = tuple(sorted(c for c, k in kept.items() if k == BLACK))
            white = tuple(sorted(c for c, k in kept.items() if k == WHITE))
            return Instance(rows, cols, black, white)
    raise InvalidInstanceError(f"no unique {rows}x{cols} puzzle found in 100 tries (seed {seed})")


def unique_clues(
    rows: int, cols: int, loop: Solution, rng: random.Random, max_moves: int = 60
) -> dict[Cell, int] | None:
    """Circles that make some loop the only answer, starting the search from ``loop``.

    Every circle a loop allows is placed; while another loop obeys them all, that loop is
    taken instead (it allows every circle the first one did, and more), earlier loops stay
    forbidden.  Once the answer is unique, circles are dropped in random order while it stays
    so, each check one incremental solve under assumptions.

    Args:
        rows, cols: the grid.
        loop: the loop to start from.
        rng: decides the order in which circles are tried for removal.
        max_moves: how many times the loop may be replaced before giving up.

    Returns:
        The circles kept (cell -> WHITE/BLACK), or None when no unique set was found.
    """
    lazy = LazySolver(Instance(rows, cols), selectors=True)
    selectors: dict[tuple[Cell, int], int] = {}

    def assume(clues: dict[Cell, int]) -> list[int]:
        out = []
        for cell, colour in sorted(clues.items()):
            if (cell, colour) not in selectors:
                selectors[cell, colour] = lazy.add_selector(cell, colour)
            out.append(selectors[cell, colour])
        return out

    def as_instance(clues: dict[Cell, int]) -> Instance:
        return Instance(
            rows,
            cols,
            tuple(sorted(c for c, k in clues.items() if k == BLACK)),
            tuple(sorted(c for c, k in clues.items() if k == WHITE)),
        )

    def unique(clues: dict[Cell, int], seen: list[Solution]) -> bool:
        # earlier loops are forbidden in the solver, so they are checked here instead
        if any(not verify(as_instance(clues), old) for old in seen):
            return False
        sat, _ = lazy.next_loop(assumptions=assume(clues))
        return sat is False

    try:
        seen: list[Solution] = []
        for _ in range(max_moves):
            clues = allowed_clues(loop)
            lazy.forbid(loop)
            sat, other = lazy.next_loop(assumptions=assume(clues))
            if sat is None or other is None and sat:
                return None
            if not sat:
                if not unique(clues, seen):
                    return None
                break
            seen.append(loop)
            assert other is not None
            loop = other
        else:
            return None
        seen.append(loop)  # the answer itself: forbidden in the solver, allowed by every clue set
        answer = seen.pop()
        order = sorted(clues)
        rng.shuffle(order)
        kept = dict(clues)
        for cell in order:
            trial = {c: k for c, k in kept.items() if c != cell}
            if trial and unique(trial, seen):
                kept = trial
        del answer
        return kept
    finally:
        lazy.close()

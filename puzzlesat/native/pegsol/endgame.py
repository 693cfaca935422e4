"""The meet in the middle of ``native-dfs``: the last k jumps, searched backwards from the goal.

A game played backwards is the same game on the complemented board: the jumps that take X
to the goal, in reverse order, take the complement of the goal to the complement of X.  So
the positions k jumps before the goal are the complements of the positions the game
reaches in k jumps from the complement of the goal, and a breadth-first search from there,
one layer of canonical positions per jump (:func:`.kernel.next_layer`), lists them
all.  The depth-first search from the start then stops k jumps early: a position there
wins when its complement is in the last layer, and is dead otherwise.

The layers grow until the next one would pass ``limit`` positions or the time budget is
spent; the last full layer is the meeting set, the earlier ones rebuild the path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from puzzlesat.domains.pegsol import Move

if TYPE_CHECKING:
    from puzzlesat.native.pegsol.arrays import Game
    from puzzlesat.native.pegsol.layout import Layout


@dataclass
class Endgame:
    """The layers of the backward search: ``sets[j]`` holds the canonical positions j jumps
    from the complement of the goal (an exact hash set, two words a slot)."""

    sets: list[np.ndarray] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def depth(self) -> int:
        """The jumps it covers (k)."""
        return len(self.sets) - 1


def build(layout: Layout, goal_cells: list[Any], jumps: int, limit: int, seconds: float, game: Game) -> Endgame:
    """The layers from the complement of the goal, at most ``jumps - 1`` of them, none past
    ``limit`` positions, and no new one started after ``seconds``."""
    from puzzlesat.native.pegsol.kernel import canonical, next_layer, set_add

    began = time.perf_counter()
    lo, hi = layout.words(set(layout.cells) - set(goal_cells))
    first = canonical(np.uint64(lo), np.uint64(hi), game.sym_tables, game.chunks)
    layer = np.array([first], dtype=np.uint64)
    seen = np.zeros(4, dtype=np.uint64)
    set_add(layer[0, 0], layer[0, 1], seen, np.uint64(1))
    out = Endgame([seen], [1])
    while out.depth < jumps - 1 and time.perf_counter() - began < seconds:
        capacity = min(limit, max(1024, 16 * len(layer)))
        nxt = np.zeros((capacity, 2), dtype=np.uint64)
        seen = np.zeros(4 << max(1, capacity - 1).bit_length(), dtype=np.uint64)
        count = next_layer(layer, len(layer), game, seen, nxt)
        if count < 0 and capacity < limit:  # a layer that grew more than 16-fold
            nxt = np.zeros((limit, 2), dtype=np.uint64)
            seen = np.zeros(4 << max(1, limit - 1).bit_length(), dtype=np.uint64)
            count = next_layer(layer, len(layer), game, seen, nxt)
        if count < 0:
            break
        out.sets.append(seen)
        out.sizes.append(count)
        layer = nxt[:count]
        if count == 0:
            break
    out.seconds = time.perf_counter() - began
    return out


def tail(layout: Layout, endgame: Endgame, position: tuple[int, int], game: Game) -> list[Move]:
    """The jumps from a winning position (its complement in the last layer) to the goal.

    Walks back from Y = complement of the position through the layers, one un-jump at a
    time to a position of the layer before, down to the complement of the goal; the jumps
    that built Y, in reverse order, lead from the position to the goal.
    """
    from puzzlesat.native.pegsol.kernel import canonical, set_has

    cells = layout.cells
    value = (int(position[0]) | int(position[1]) << 64) ^ sum(1 << layout.index(x) for x in cells)
    path: list[Move] = []
    jumps = [(a, b, c) for a in cells for b, c in _lines(a) if b in cells and c in cells]
    for j in range(endgame.depth, 0, -1):
        previous = endgame.sets[j - 1]
        mask = np.uint64(previous.shape[0] // 2 - 1)
        for a, b, c in jumps:
            ia, ib, ic = layout.index(a), layout.index(b), layout.index(c)
            if value >> ic & 1 and not value >> ia & 1 and not value >> ib & 1:
                before = value ^ (1 << ia | 1 << ib | 1 << ic)
                key = canonical(np.uint64(before & (2**64 - 1)), np.uint64(before >> 64), game.sym_tables, game.chunks)
                if set_has(np.uint64(key[0]), np.uint64(key[1]), previous, mask):  # numba returns ints
                    path.append(Move(*a, *c))
                    value = before
                    break
        else:
            raise AssertionError(f"no position of layer {j - 1} leads to the met position's complement")
    return path


def _lines(a: tuple[int, int]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    r, c = a
    return [((r + dr, c + dc), (r + 2 * dr, c + 2 * dc)) for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))]

"""The grid bitboard of ``native-dfs``: cell numbering, direction masks, symmetry tables, pagoda cuts.

A board's cells are numbered ``(r - top) * width + (c - left)`` in its bounding box, so a
jump in one direction is the same shift for every cell (see :mod:`.kernel`).
Everything here builds the kernel's constant arrays; nothing runs per node.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from puzzlesat.domains.pegsol import DIRECTIONS, HOLE, OFF, PEG, Cell, Instance, Move, pagoda_certificate

if TYPE_CHECKING:
    from collections.abc import Callable

BITS = 128  # two words
MAX_PAGODAS = 8
HARVEST_POSITIONS = 4096  # dead positions of most work looked at for pagoda cuts
HARVEST_LPS = 40  # linear programs at most per harvest
HARVEST_SECONDS = 2.0


@dataclass(frozen=True)
class Layout:
    """Where each board cell sits in the two words, and the per-direction constants."""

    top: int
    left: int
    height: int
    width: int
    cells: frozenset[Cell]

    @classmethod
    def of(cls, instance: Instance) -> Layout:
        """The bounding box of the instance's board cells."""
        cells = instance.cells
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        top, left = min(rows), min(cols)
        return cls(top, left, max(rows) - top + 1, max(cols) - left + 1, frozenset(cells))

    @property
    def size(self) -> int:
        """Bits a position needs."""
        return self.height * self.width

    def index(self, cell: Cell) -> int:
        """The bit of a board cell."""
        return (cell[0] - self.top) * self.width + cell[1] - self.left

    def cell(self, index: int) -> Cell:
        """The board cell of a bit."""
        return self.top + index // self.width, self.left + index % self.width

    def words(self, cells: list[Cell] | set[Cell] | frozenset[Cell]) -> tuple[int, int]:
        """The two words (as Python ints) with the bits of ``cells``."""
        value = sum(1 << self.index(x) for x in cells)
        return value & (2**64 - 1), value >> 64

    def pegs(self, matrix: tuple[tuple[int, ...], ...]) -> list[Cell]:
        """The cells holding a peg in a matrix."""
        return [x for x in sorted(self.cells) if matrix[x[0]][x[1]] == PEG]

    def steps(self) -> np.ndarray:
        """Per direction (N, E, S, W), the step in bits."""
        return np.array([dr * self.width + dc for dr, dc in DIRECTIONS], dtype=np.int64)

    def from_masks(self) -> np.ndarray:
        """Per direction, the cells a jump that way may start from (over and landing on the board)."""
        out = np.zeros((4, 2), dtype=np.uint64)
        for k, (dr, dc) in enumerate(DIRECTIONS):
            starts = [
                (r, c)
                for r, c in self.cells
                if (r + dr, c + dc) in self.cells and (r + 2 * dr, c + 2 * dc) in self.cells
            ]
            out[k] = self.words(starts)
        return out

    def jump_masks(self) -> np.ndarray:
        """Per direction * 128 + cell, the from, over and landing bits of that jump (0 when off the board)."""
        out = np.zeros((4 * BITS, 2), dtype=np.uint64)
        for k, (dr, dc) in enumerate(DIRECTIONS):
            for r, c in self.cells:
                line = [(r, c), (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)]
                if all(x in self.cells for x in line):
                    out[k * BITS + self.index((r, c))] = self.words(line)
        return out

    def move(self, code: int) -> Move:
        """The jump ``cell * 4 + direction`` as a move."""
        (dr, dc), (r, c) = DIRECTIONS[code % 4], self.cell(code // 4)
        return Move(r, c, r + 2 * dr, c + 2 * dc)

    def symmetries(self, fixed: list[Cell]) -> list[Callable[[Cell], Cell]]:
        """The maps of the bounding box's symmetry group (identity first) that send the board
        onto itself and the set ``fixed`` onto itself."""
        h, w, t, left = self.height - 1, self.width - 1, self.top, self.left

        def box(f: Callable[[int, int], tuple[int, int]]) -> Callable[[Cell], Cell]:
            def apply(x: Cell) -> Cell:
                r, c = f(x[0] - t, x[1] - left)
                return r + t, c + left

            return apply

        maps = [
            box(lambda r, c: (r, c)),
            box(lambda r, c: (h - r, c)),
            box(lambda r, c: (r, w - c)),
            box(lambda r, c: (h - r, w - c)),
        ]
        if h == w:
            maps += [
                box(lambda r, c: (c, r)),
                box(lambda r, c: (w - c, r)),
                box(lambda r, c: (c, h - r)),
                box(lambda r, c: (w - c, h - r)),
            ]
        keep = set(fixed)
        return [m for m in maps if {m(x) for x in self.cells} == self.cells and {m(x) for x in keep} == keep]

    def symmetry_tables(self, maps: list[Callable[[Cell], Cell]]) -> np.ndarray:
        """``[S, 16, 256, 2]``: per map (identity left out), byte position and byte value, the
        two words of the image of that byte's cells."""
        out = np.zeros((max(0, len(maps) - 1), 16, 256, 2), dtype=np.uint64)
        values = np.arange(256, dtype=np.uint64)
        for s, m in enumerate(maps[1:]):
            for i in range(16):
                for b in range(8):
                    j = 8 * i + b
                    if j >= self.size or self.cell(j) not in self.cells:
                        continue
                    image = self.index(m(self.cell(j)))
                    has = (values >> np.uint64(b)) & np.uint64(1)
                    out[s, i, :, image // 64] |= has << np.uint64(image % 64)
        return out

    def chunks(self) -> int:
        """Bytes a position spans."""
        return (self.size + 7) // 8

    def decode(self, lo: int, hi: int) -> list[Cell]:
        """The pegs of a position."""
        value = int(lo) | int(hi) << 64
        return [self.cell(i) for i in range(self.size) if value >> i & 1]


def harvest_pagodas(
    layout: Layout, instance: Instance, table: np.ndarray, have: np.ndarray, goal: list[Cell]
) -> list[np.ndarray]:
    """New pagoda cuts from the dead positions that took the most work to refute.

    The positions come from the search's dead table.  For each, in order of work, not
    already cut by a known pagoda, linear programming looks for a pagoda function worth more
    on the goal than on it (:func:`pegsol.pagoda_certificate`, checked in exact fractions;
    weights in [-1, 1]: a negative weight charges for a peg that must still leave), and
    each one found becomes integer weights per bit (scaled by the common denominator).

    Returns:
        The new weight rows (``BITS`` int64 each), at most ``MAX_PAGODAS - len(have)``.
    """
    used = table[1::2]
    slots = np.flatnonzero(used)
    if not len(slots) or len(have) >= MAX_PAGODAS:
        return []
    work = (used[slots] >> np.uint64(56)) & np.uint64(127)
    top = slots[np.argsort(-work.astype(np.int64), kind="stable")[:HARVEST_POSITIONS]]
    key_hi = np.uint64((1 << 56) - 1)
    shifts = np.arange(64, dtype=np.uint64)
    lo = (table[2 * top][:, None] >> shifts) & np.uint64(1)
    hi = ((table[2 * top + 1] & key_hi)[:, None] >> shifts) & np.uint64(1)
    positions = np.concatenate([lo, hi], axis=1).astype(np.int64)
    goal_bits = np.zeros(BITS, dtype=np.int64)
    goal_bits[[layout.index(x) for x in goal]] = 1
    found: list[np.ndarray] = []
    cut = np.zeros(len(top), dtype=bool)
    for weights in have:
        cut |= positions @ weights < goal_bits @ weights
    began = time.perf_counter()
    lps = 0
    for row in range(len(top)):
        if len(have) + len(found) >= MAX_PAGODAS or lps >= HARVEST_LPS or time.perf_counter() - began > HARVEST_SECONDS:
            break
        if cut[row]:
            continue
        lps += 1
        pegs = {layout.cell(int(i)) for i in np.flatnonzero(positions[row])}
        start = tuple(
            tuple(OFF if v == OFF else (PEG if (r, c) in pegs else HOLE) for c, v in enumerate(line))
            for r, line in enumerate(instance.start)
        )
        cert = pagoda_certificate(Instance(instance.rows, instance.cols, start, instance.target), low=-1.0)
        if cert is None:
            continue
        fractions = cert[0]
        scale = 1
        for w in fractions.values():
            scale = scale * w.denominator // np.gcd(scale, w.denominator)
        if scale > 1 << 20:
            continue
        weights = np.zeros(BITS, dtype=np.int64)
        for x, w in fractions.items():
            weights[layout.index(x)] = int(w * scale)
        found.append(weights)
        cut |= positions @ weights < goal_bits @ weights
    return found

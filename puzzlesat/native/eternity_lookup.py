"""The candidate lookup of the edge-matching row scans (``native-rowscan`` and its ``--score`` search).

Each cell belongs to one of nine frame classes (inside, four sides, four corners); the
lookup lists, per class and (west, north) colour pair, the tiles turned to fit.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.domains.eternity import GREY, Instance, first_corner, rotated

# frame class of a cell from its rim sides as a bit pattern (N=1, E=2, S=4, W=8);
# -1 marks patterns no cell has (opposite sides both on the rim)
CLASS_OF_PATTERN = np.array([0, 1, 2, 3, 4, -1, 5, -1, 6, 7, -1, -1, 8, -1, -1, -1], dtype=np.int64)
CLASSES = 9


def cell_class(instance: Instance, cell: int) -> int:
    """The cell's frame class 0..8 (inside, four sides, four corners)."""
    return int(CLASS_OF_PATTERN[sum(1 << s for s in instance.frame_sides(cell))])


class Lookup:
    """The candidate table the kernel reads, reshuffled for each restart.

    One row per turned tile that fits some frame class (grey exactly on the class's rim
    sides; turns that look the same are kept once): class, key = west * C + north, tile,
    rotation, east, south.  Hinted cells have classes 9, 10, ... holding their hint alone.
    ``symmetry`` False leaves out the rule that fixes the first corner tile.
    """

    def __init__(self, instance: Instance, symmetry: bool = True) -> None:
        self.instance = instance
        self.colours = instance.colours
        self.classes = np.array([cell_class(instance, c) for c in range(instance.cells)], dtype=np.int64)
        self.nclasses = CLASSES + len(instance.hints)
        tiles = np.array(instance.tiles, dtype=np.int64)
        sides = np.arange(4)
        turned = np.stack([tiles[:, (sides - r) % 4] for r in range(4)])  # (rotation, tile, side)
        pattern = ((turned == GREY) << sides).sum(axis=2)
        fits = CLASS_OF_PATTERN[pattern] >= 0
        for r in range(1, 4):  # a turn that looks like an earlier one adds nothing
            for earlier in range(r):
                fits[r] &= ~(turned[r] == turned[earlier]).all(axis=1)
        rot, tile = np.nonzero(fits)
        looks = turned[rot, tile]
        cls = CLASS_OF_PATTERN[pattern[rot, tile]]
        keep = np.isin(cls, self.classes) & ~np.isin(tile, [hint.tile for hint in instance.hints])
        fixed = first_corner(instance) if symmetry else None
        if fixed is not None:  # symmetry: the board's rotations map solutions onto each other
            corner, cells = fixed
            allowed = self.classes[list(cells)]
            keep &= (tile != corner) | np.isin(cls, allowed)
            if len(cells) == 1:
                keep &= (cls != allowed[0]) | (tile == corner)
        rows = [
            np.stack([cls, looks[:, 3] * self.colours + looks[:, 0], tile, rot, looks[:, 1], looks[:, 2]], axis=1)[keep]
        ]
        for k, hint in enumerate(instance.hints):
            self.classes[hint.cell] = CLASSES + k
            north, east, south, west = rotated(instance.tiles[hint.tile], hint.rotation)
            rows.append(np.array([[CLASSES + k, west * self.colours + north, hint.tile, hint.rotation, east, south]]))
        self.rows = np.concatenate(rows).astype(np.int64)

    def arrays(self, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """(off, tile, rot, east, south), every (class, key) list in a fresh random order."""
        rows = self.rows
        order = np.lexsort((rng.random(len(rows)), rows[:, 1], rows[:, 0]))
        rows = rows[order]
        slots = self.colours * self.colours
        flat = rows[:, 0] * slots + rows[:, 1]
        off = np.searchsorted(flat, np.arange(self.nclasses * slots + 1)).astype(np.int64)
        off2d = np.empty((self.nclasses, slots + 1), dtype=np.int64)
        off2d[:, :slots] = off[:-1].reshape(self.nclasses, slots)
        off2d[:, slots] = off[slots::slots]
        return (off2d, *(np.ascontiguousarray(rows[:, i]) for i in (2, 3, 4, 5)))

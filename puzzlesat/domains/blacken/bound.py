"""The blacken lower bound on moves, shared by the native search and the CNF and CP-SAT step models.

A :class:`BoundBoard` holds an instance as the flat padded board of
:mod:`puzzlesat.domains.blacken.bound_kernel` and the arrays of its two bounds: the packing
bound (white stones whose line ends are disjoint need distinct moves) and the component
bound (every white component solved alone, exactly and memoised, a move next to m
components costing 1/m).  The native branch and bound extends it with its search state;
the step models start from :func:`move_lower_bound`, its value on the initial position.
The kernels and numpy are imported on first use, so that importing this module loads neither
numba nor numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.blacken.instance import DIRECTIONS, Cell, Instance, components

if TYPE_CHECKING:
    import numpy as np

MEMO_BITS = 21
SPLIT_WORK = 200_000  # moves tried when one component's exact value is first computed


class Bounds(NamedTuple):
    """The component bound's arrays (:func:`~puzzlesat.domains.blacken.bound_kernel.split_bound`).

    Per cell: ``comp_of`` (the usable component of a white stone, -1 for none), ``weight``
    (12 / the components next to it) and ``cmark`` (scratch marks); per component ``g``:
    ``ccells[g]`` (its white stones, then the empty cells next to them), ``cnw[g]`` and
    ``cnc[g]`` (how many of each) and ``too_big[g]`` (1 once its exact value cost too much);
    the memo ``mkeys``, ``mcomp``, ``mval``; ``work`` (moves tried, memo entries); the explicit
    stack ``frames``, ``fmoves``; and ``dirs``, the eight steps on the padded board.  numba
    pickles this class into the cache index of the kernels that take it: moving or renaming it
    calls for clearing their caches (native/eternity/arrays.py says why).
    """

    dirs: np.ndarray
    comp_of: np.ndarray
    ccells: np.ndarray
    cnw: np.ndarray
    cnc: np.ndarray
    weight: np.ndarray
    mkeys: np.ndarray
    mcomp: np.ndarray
    mval: np.ndarray
    work: np.ndarray
    too_big: np.ndarray
    cmark: np.ndarray
    frames: np.ndarray
    fmoves: np.ndarray


class BoundBoard:
    """The padded board of an instance and the arrays of its lower bounds.

    >>> from puzzlesat.domains.blacken import Instance
    >>> BoundBoard(Instance(5, ((2, 2),))).root_bound()
    2
    """

    def __init__(self, instance: Instance, memo_bits: int = MEMO_BITS, split: bool = True) -> None:
        import numpy as np

        from puzzlesat.domains.blacken import bound_kernel as bk

        self.bk: Any = bk
        self.instance = instance
        k = instance.size
        self.width = p = k + 2
        if p * p >= 4096:
            raise InvalidInstanceError(f"board size {k} is too large for the native search (at most 61)")
        self.grid0 = np.full(p * p, bk.OFF, dtype=np.int64)
        for r in range(k):
            self.grid0[(r + 1) * p + 1 : (r + 1) * p + 1 + k] = bk.EMPTY
        for r, c in instance.whites:
            self.grid0[self.index((r, c))] = bk.WHITE
        self.whites = np.array(sorted({self.index(cell) for cell in instance.whites}), dtype=np.int64)
        # four line directions first: bound() walks dirs[0..3] both ways
        order = [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)]
        assert set(order) == set(DIRECTIONS)
        self.dirs = np.array([dr * p + dc for dr, dc in order], dtype=np.int64)
        self.mark = np.zeros(p * p, dtype=np.int64)
        self.order = np.zeros(len(self.whites) + 1, dtype=np.int64)
        self._components(split, memo_bits)

    def _components(self, split: bool, memo_bits: int) -> None:
        """Arrays of the component bound: cells of each component and the cell weights."""
        import numpy as np

        self.groups = groups = components(self.instance.whites) if split else []
        self.near = near = [sorted({(r + dr, c + dc) for r, c in g for dr, dc in DIRECTIONS} - set(g)) for g in groups]
        # the exact value needs a component's cells in one 62-bit mask
        usable = [i for i, g in enumerate(groups) if len(g) + len(near[i]) <= 62]
        p2 = self.width * self.width
        comp_of = np.full(p2, -1, dtype=np.int64)
        weight = np.zeros(p2, dtype=np.int64)
        width = max([len(groups[i]) + len(near[i]) for i in usable], default=1)
        ccells = np.zeros((len(usable), width), dtype=np.int64)
        cnw = np.zeros(len(usable), dtype=np.int64)
        cnc = np.zeros(len(usable), dtype=np.int64)
        mult: dict[Cell, int] = {}
        for cells in near:
            for cell in cells:
                mult[cell] = mult.get(cell, 0) + 1
        for cell, m in mult.items():
            weight[self.index(cell)] = 12 // m if m <= 4 else 1
        for g, i in enumerate(usable):
            flat = [self.index(c) for c in groups[i]] + [self.index(c) for c in near[i]]
            ccells[g, : len(flat)] = flat
            cnw[g] = len(groups[i])
            cnc[g] = len(flat)
            for c in groups[i]:
                comp_of[self.index(c)] = g
        mkeys = np.zeros(1 << memo_bits if usable else 1, dtype=np.int64)
        self.bounds = Bounds(
            dirs=self.dirs,
            comp_of=comp_of,
            ccells=ccells,
            cnw=cnw,
            cnc=cnc,
            weight=weight,
            mkeys=mkeys,
            mcomp=np.zeros_like(mkeys),
            mval=np.zeros_like(mkeys),
            work=np.zeros(2, dtype=np.int64),
            too_big=np.zeros(len(usable), dtype=np.int64),
            cmark=np.zeros(p2, dtype=np.int64),
            frames=np.zeros((64, 8), dtype=np.int64),
            fmoves=np.zeros((64, 128), dtype=np.int64),
        )
        self.split_work = SPLIT_WORK

    def index(self, cell: Cell) -> int:
        """Padded flat index of a board cell."""
        return (cell[0] + 1) * self.width + cell[1] + 1

    def cell(self, index: int) -> Cell:
        """Board cell of a padded flat index."""
        r, c = divmod(int(index), self.width)
        return (r - 1, c - 1)

    def packing_bound(self, grid: np.ndarray) -> int:
        """The packing bound of a position (DEAD when a white stone can never flip)."""
        self.mark[0] += 1
        return int(self.bk.bound(grid, self.whites, self.dirs, self.mark, self.mark[0], self.order))

    def split_bound(self, grid: np.ndarray) -> int:
        """The component bound of a position (0 without usable components)."""
        if self.bounds.ccells.shape[0] == 0:
            return 0
        return int(self.bk.split_bound(grid, self.bounds, self.split_work))

    def root_bound(self) -> int:
        """The larger of the two bounds on the initial position."""
        return max(self.packing_bound(self.grid0), self.split_bound(self.grid0.copy()))


def move_lower_bound(instance: Instance) -> int:
    """At least this many moves turn every stone black (0 without white stones).

    >>> from puzzlesat.domains.blacken import Instance
    >>> move_lower_bound(Instance(5, ((2, 2),))), move_lower_bound(Instance(5, ()))
    (2, 0)
    """
    if not instance.whites:
        return 0
    return BoundBoard(instance).root_bound()

"""Eternity's instance and solution: tiles, hint pieces, placements, and the board's rotations."""

from __future__ import annotations

from dataclasses import dataclass

from puzzlesat.core import load_target

GREY = 0
N, E, S, W = range(4)
Tile = tuple[int, int, int, int]


@dataclass(frozen=True)
class Hint:
    """A hint piece: ``tile`` lies on ``cell`` (row-major) turned ``rotation`` clockwise quarter turns."""

    tile: int
    cell: int
    rotation: int


@dataclass(frozen=True)
class Instance:
    """A board of ``rows x cols`` cells, the tiles to place on it and the hint pieces.

    >>> Instance(2, 2, 2, ((0, 1, 1, 0), (0, 0, 1, 1), (1, 1, 0, 0), (1, 0, 0, 1))).square
    True
    """

    rows: int
    cols: int
    colours: int
    tiles: tuple[Tile, ...]
    hints: tuple[Hint, ...] = ()

    @property
    def square(self) -> bool:
        """True for a g x g board, written with the seed's two-number header."""
        return self.rows == self.cols

    @property
    def cells(self) -> int:
        """Number of cells (= number of tiles)."""
        return self.rows * self.cols

    def _repr_svg_(self) -> str:
        """The pieces as given, as a notebook shows them (:func:`draw_svg`)."""
        return load_target("puzzlesat.domains.eternity:draw_svg")(self, None)  # type: ignore[no-any-return]

    def is_frame(self, cell: int) -> bool:
        """True for a cell on the outer ring of the board."""
        r, c = divmod(cell, self.cols)
        return r in (0, self.rows - 1) or c in (0, self.cols - 1)

    def frame_sides(self, cell: int) -> tuple[int, ...]:
        """The sides of ``cell`` that face off the board (and must be grey)."""
        r, c = divmod(cell, self.cols)
        sides = []
        if r == 0:
            sides.append(N)
        if c == self.cols - 1:
            sides.append(E)
        if r == self.rows - 1:
            sides.append(S)
        if c == 0:
            sides.append(W)
        return tuple(sides)

    def grey_count(self, tile: int) -> int:
        """Number of grey edges of a tile: 2 corner, 1 border, 0 inner."""
        return sum(1 for colour in self.tiles[tile] if colour == GREY)

    def colour_domains(self) -> tuple[frozenset[int], frozenset[int]]:
        """(frame colours, inner colours): colours seen on frame-to-frame edges and elsewhere.

        On a border or corner tile, the sides next to a grey side run along the frame; every
        other non-grey side (all sides of a tile without grey) points into the board.
        """
        frame: set[int] = set()
        inner: set[int] = set()
        for tile in self.tiles:
            for side, colour in enumerate(tile):
                if colour == GREY:
                    continue
                along = tile[(side + 1) % 4] == GREY or tile[(side - 1) % 4] == GREY
                (frame if along else inner).add(colour)
        return frozenset(frame), frozenset(inner)

    def transposed(self) -> Instance:
        """The mirror image in the main diagonal: each tile's colours in reverse order (its mirror
        image in that diagonal), the board ``cols x rows``, a hint on the mirrored cell; its
        solutions are this board's :meth:`Solution.transposed`, tile ids kept.

        >>> Instance(1, 2, 3, ((0, 1, 0, 0), (0, 0, 0, 2))).transposed()
        Instance(rows=2, cols=1, colours=3, tiles=((0, 0, 1, 0), (2, 0, 0, 0)), hints=())
        """
        hints = tuple(
            Hint(h.tile, (h.cell % self.cols) * self.rows + h.cell // self.cols, -h.rotation % 4) for h in self.hints
        )
        tiles = tuple((w, s, e, n) for n, e, s, w in self.tiles)
        return Instance(self.cols, self.rows, self.colours, tiles, hints)


@dataclass(frozen=True)
class Solution:
    """The placement of each cell, row-major: ``(tile id, clockwise quarter turns)``."""

    placements: tuple[tuple[int, int], ...]

    def transposed(self, rows: int, cols: int) -> Solution:
        """This solution of a ``rows x cols`` board mirrored in its main diagonal: a solution of
        :meth:`Instance.transposed` (and back).  A tile turned ``k`` there shows the reverse of
        its colours turned ``-k`` (:func:`rotated`).

        >>> Solution(((0, 1), (1, 0))).transposed(1, 2)
        Solution(placements=((0, 3), (1, 0)))
        """
        cells = (c * cols + r for r in range(cols) for c in range(rows))  # row-major over the mirror
        return Solution(tuple((self.placements[i][0], -self.placements[i][1] % 4) for i in cells))


def rotated(tile: Tile, turns: int) -> Tile:
    """The tile's colours on sides N, E, S, W after ``turns`` clockwise quarter turns.

    >>> rotated((1, 2, 3, 4), 1)
    (4, 1, 2, 3)
    """
    t = turns % 4
    return (tile[(0 - t) % 4], tile[(1 - t) % 4], tile[(2 - t) % 4], tile[(3 - t) % 4])


def placements(instance: Instance) -> dict[int, list[tuple[int, int]]]:
    """Cell -> the (tile, rotation) pairs whose grey sides are exactly the cell's frame sides.

    Rotations that give a tile the same look on a cell are kept once.  A hinted cell holds
    its hint alone and a hinted tile goes nowhere else.  Both the CNF and the CP-SAT
    formulation place tiles from these lists.
    """
    by_cell: dict[int, list[tuple[int, int]]] = {hint.cell: [(hint.tile, hint.rotation)] for hint in instance.hints}
    hinted = {hint.tile for hint in instance.hints}
    for cell in range(instance.cells):
        if cell in by_cell:
            continue
        frame = set(instance.frame_sides(cell))
        options = []
        for tile, colours in enumerate(instance.tiles):
            if tile in hinted:
                continue
            looks = set()
            for rot in range(4):
                sides = rotated(colours, rot)
                if {s for s in range(4) if sides[s] == GREY} == frame and sides not in looks:
                    looks.add(sides)
                    options.append((tile, rot))
        by_cell[cell] = options
    return dict(sorted(by_cell.items()))


def board_rotations(instance: Instance) -> int:
    """How many rotations map the board onto itself: 4 on a square, 2 on a rectangle (the half turn).

    Each of them maps a solution onto a solution, and every one but the identity moves every
    corner cell to another corner cell, so it moves the tile there: the rotations of a
    solution are all different solutions (no solution is its own rotation, since a tile lies
    on one cell only; identical pieces are told apart by their ids).
    """
    return 4 if instance.square else 2


def corner_tiles(instance: Instance) -> list[int]:
    """The tiles with two grey sides, in the order of their ids."""
    return [t for t in range(instance.cells) if instance.grey_count(t) == 2]


def first_corner(instance: Instance, tile: int | None = None) -> tuple[int, tuple[int, ...]] | None:
    """Symmetry breaking: (the first corner tile, the cells it may lie on), or None when it may not.

    The cells are the top-left one on a square and the two top corners on a rectangle: of the
    :func:`board_rotations` of any solution, exactly one puts the first corner tile there, so
    the solutions kept are one per class of rotations.  Any corner tile would do as well:
    ``tile`` names the one to fix instead of the first (an exact count picks the one whose
    search tree is smallest: native/eternity/count_tree.py).  A hint piece already fixes the
    board's turn (and turning the board would move it), so with hints there is none.

    >>> first_corner(Instance(2, 3, 2, ((0, 1, 1, 0),) * 6))
    (0, (0, 2))
    """
    if instance.hints:
        return None
    corners = corner_tiles(instance)
    if not corners:
        return None
    if tile is not None and tile not in corners:
        raise ValueError(f"tile {tile!r} is not a corner tile: the corner tiles are {corners}")
    return corners[0] if tile is None else tile, (0,) if instance.square else (0, instance.cols - 1)

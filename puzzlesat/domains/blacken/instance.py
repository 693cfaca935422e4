"""Blacken's instance and solution, a board that plays moves, and the simple bounds on the answer."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from puzzlesat.core import load_target

Cell = tuple[int, int]
EMPTY, WHITE, BLACK = 0, 1, 2
DIRECTIONS: tuple[Cell, ...] = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


@dataclass(frozen=True)
class Instance:
    """A ``size x size`` board and its white stones, in input order.

    >>> inst = Instance(7, ((1, 3), (2, 3), (3, 3), (4, 1), (4, 5), (5, 3)))
    >>> inst.q, lower_bound(inst), upper_bound(inst)
    (6, 4, 12)
    """

    size: int
    whites: tuple[Cell, ...]

    def _repr_svg_(self) -> str:
        """The picture a notebook shows (:mod:`puzzlesat.domains.blacken.svg`)."""
        return load_target("puzzlesat.domains.blacken:PUZZLE").draw_svg(self)  # type: ignore[no-any-return]

    @property
    def q(self) -> int:
        """Number of white stones."""
        return len(self.whites)

    def on_board(self, cell: Cell) -> bool:
        """True when the cell lies on the board."""
        return 0 <= cell[0] < self.size and 0 <= cell[1] < self.size

    def frontier(self) -> list[Cell]:
        """Empty cells next to a white stone, row-major: the only cells a move can ever use."""
        white = set(self.whites)
        cells = {(r + dr, c + dc) for r, c in self.whites for dr, dc in DIRECTIONS}
        return sorted(cell for cell in cells if cell not in white and self.on_board(cell))

    def transformed(self, turns: int, mirror: bool = False) -> Instance:
        """The board rotated ``turns`` quarter turns clockwise, mirrored left-right first if asked.

        >>> Instance(5, ((1, 2),)).transformed(1).whites
        ((2, 3),)
        """
        n = self.size - 1
        out = []
        for r, c in self.whites:
            if mirror:
                c = n - c
            for _ in range(turns % 4):
                r, c = c, n - r
            out.append((r, c))
        return Instance(self.size, tuple(out))


@dataclass(frozen=True)
class Solution:
    """The placed stones in play order; ``claimed`` and ``board`` come from a parsed answer.

    Attributes:
        moves: the cells of the placed stones, in play order.
        claimed: the number after ``The result is``, when read from a file.
        board: the final board rows as drawn in a file, when present.
    """

    moves: tuple[Cell, ...]
    claimed: int | None = None
    board: tuple[str, ...] | None = None


class Board:
    """A position: make and unmake moves with :meth:`push` / :meth:`pop`.

    >>> board = Board(Instance(5, ((2, 2),)))
    >>> board.push((2, 1)), board.push((2, 3)), board.whites_left
    ([], [(2, 2)], 0)
    >>> board.pop(); board.whites_left
    1
    """

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.size = instance.size
        self.grid = [[EMPTY] * self.size for _ in range(self.size)]
        for r, c in instance.whites:
            self.grid[r][c] = WHITE
        self.whites_left = len(set(instance.whites))
        self.stack: list[tuple[Cell, list[Cell]]] = []

    def at(self, cell: Cell) -> int:
        """EMPTY, WHITE or BLACK; off the board reads as EMPTY."""
        r, c = cell
        if 0 <= r < self.size and 0 <= c < self.size:
            return self.grid[r][c]
        return EMPTY

    def touches_white(self, cell: Cell) -> bool:
        """True when a white stone lies in the cell's 8-neighbourhood."""
        r, c = cell
        return any(self.at((r + dr, c + dc)) == WHITE for dr, dc in DIRECTIONS)

    def is_legal(self, cell: Cell) -> bool:
        """A move on an empty board cell next to a white stone."""
        return self.instance.on_board(cell) and self.at(cell) == EMPTY and self.touches_white(cell)

    def flips(self, cell: Cell) -> list[Cell]:
        """The white stones a black stone on ``cell`` would turn (Reversi rule)."""
        out: list[Cell] = []
        r, c = cell
        for dr, dc in DIRECTIONS:
            run: list[Cell] = []
            rr, cc = r + dr, c + dc
            while self.at((rr, cc)) == WHITE:
                run.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if run and self.at((rr, cc)) == BLACK:
                out.extend(run)
        return out

    def legal_moves(self) -> list[Cell]:
        """Every legal move, row-major."""
        return [(r, c) for r in range(self.size) for c in range(self.size) if self.is_legal((r, c))]

    def push(self, cell: Cell) -> list[Cell]:
        """Play a move (legality unchecked) and return the stones it flipped."""
        flipped = self.flips(cell)
        self.grid[cell[0]][cell[1]] = BLACK
        for r, c in flipped:
            self.grid[r][c] = BLACK
        self.whites_left -= len(flipped)
        self.stack.append((cell, flipped))
        return flipped

    def pop(self) -> None:
        """Take back the last move."""
        (r, c), flipped = self.stack.pop()
        self.grid[r][c] = EMPTY
        for rr, cc in flipped:
            self.grid[rr][cc] = WHITE
        self.whites_left += len(flipped)

    def key(self) -> frozenset[Cell]:
        """The black cells: they determine the position."""
        return frozenset((r, c) for r in range(self.size) for c in range(self.size) if self.grid[r][c] == BLACK)


def components(whites: Iterable[Cell]) -> list[list[Cell]]:
    """The 8-connected components of a set of stones, each sorted, in order of first cell.

    >>> components([(1, 1), (2, 2), (4, 4)])
    [[(1, 1), (2, 2)], [(4, 4)]]
    """
    left = set(whites)
    out = []
    for start in sorted(left):
        if start not in left:
            continue
        left.discard(start)
        comp, todo = [start], [start]
        while todo:
            r, c = todo.pop()
            for dr, dc in DIRECTIONS:
                nb = (r + dr, c + dc)
                if nb in left:
                    left.discard(nb)
                    comp.append(nb)
                    todo.append(nb)
        out.append(sorted(comp))
    return out


def lower_bound(instance: Instance) -> int:
    """The seed's lower bound: the number of 8-connected white components.

    Not a true lower bound: one stone can serve up to four lone white stones, and the
    16 lone stones of ``instances/blacken/lattice_10x10.txt`` need only 12 moves.  The
    solvers start from :func:`puzzlesat.domains.blacken.bound.move_lower_bound` instead.
    """
    return len(components(instance.whites))


def upper_bound(instance: Instance) -> int:
    """The seed's upper bound: min(2q, empty cells next to a white stone)."""
    return min(2 * instance.q, len(instance.frontier()))


def replay(instance: Instance, moves: Iterable[Cell]) -> tuple[Board, list[str]]:
    """Play the moves; returns the final board and every illegal move met (which are skipped)."""
    board = Board(instance)
    problems = []
    for number, cell in enumerate(moves, start=1):
        where = f"move {number} (x: {cell[1] + 1} y: {cell[0] + 1})"
        if not instance.on_board(cell):
            problems.append(f"{where}: off the {instance.size}x{instance.size} board")
        elif board.at(cell) != EMPTY:
            problems.append(f"{where}: the cell already holds a stone")
        elif not board.touches_white(cell):
            problems.append(f"{where}: no white stone next to it")
        else:
            board.push(cell)
    return board, problems

"""Peg solitaire's instance and solution: boards, jumps and moves, and a board that plays them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from puzzlesat.core import InvalidSolutionError, load_target

PEG, HOLE, OFF = 1, -1, 0
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))
Matrix = tuple[tuple[int, ...], ...]
Cell = tuple[int, int]
Jump = tuple[Cell, Cell, Cell]


class IllegalMoveError(InvalidSolutionError):
    """A jump that the rules do not allow on the current board."""


@dataclass(frozen=True)
class Move:
    """One jump from ``(r1, c1)`` to ``(r2, c2)``, two cells away in a row or column.

    >>> m = Move.from_text("3:1-3:3")
    >>> m, str(m), m.over
    (Move(r1=3, c1=1, r2=3, c2=3), '3:1-3:3', (3, 2))
    """

    r1: int
    c1: int
    r2: int
    c2: int

    @property
    def source(self) -> Cell:
        """The cell of the jumping peg."""
        return (self.r1, self.c1)

    @property
    def target(self) -> Cell:
        """The hole the peg lands in."""
        return (self.r2, self.c2)

    @property
    def over(self) -> Cell:
        """The cell of the jumped (removed) peg."""
        return ((self.r1 + self.r2) // 2, (self.c1 + self.c2) // 2)

    @property
    def is_jump_shape(self) -> bool:
        """True when the two cells are two apart in one row or one column."""
        dr, dc = abs(self.r2 - self.r1), abs(self.c2 - self.c1)
        return (dr, dc) in ((2, 0), (0, 2))

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Parse ``r1:c1-r2:c2``.

        Raises:
            ValueError: text not of that shape.
        """
        match = re.fullmatch(_MOVE_RE, text.strip())
        if match is None:
            raise ValueError(f"expected a move 'r1:c1-r2:c2', got {text.strip()!r}")
        r1, c1, r2, c2 = (int(g) for g in match.groups())
        return cls(r1, c1, r2, c2)

    def __str__(self) -> str:
        return f"{self.r1}:{self.c1}-{self.r2}:{self.c2}"


# ASCII digits only (``\d`` would also match '３'), no more than an int64 holds; compiled on
# first use by re's cache (listing the puzzles parses nothing)
_MOVE_RE = r"(-?[0-9]{1,18})\s*:\s*(-?[0-9]{1,18})\s*-\s*(-?[0-9]{1,18})\s*:\s*(-?[0-9]{1,18})"


@dataclass(frozen=True)
class Instance:
    """A board, its start position and its goal.

    Attributes:
        rows: number of rows m.
        cols: number of columns n.
        start: the m x n start matrix (1 peg, -1 hole, 0 off the board).
        goal: the explicit goal matrix, or None for the seed's complement goal.

    >>> inst = Instance(1, 3, ((1, 1, -1),))
    >>> inst.target, inst.moves_needed
    (((-1, -1, 1),), 1)
    """

    rows: int
    cols: int
    start: Matrix
    goal: Matrix | None = None

    def _repr_svg_(self) -> str:
        """The picture a notebook shows (:mod:`puzzlesat.domains.pegsol.svg`)."""
        return load_target("puzzlesat.domains.pegsol:PUZZLE").draw_svg(self)  # type: ignore[no-any-return]

    @property
    def target(self) -> Matrix:
        """The goal matrix; for the complement form, start with pegs and holes swapped."""
        if self.goal is not None:
            return self.goal
        return tuple(tuple(-v for v in row) for row in self.start)

    @property
    def cells(self) -> list[Cell]:
        """The cells on the board, row-major."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols) if self.start[r][c] != OFF]

    def on_board(self, cell: Cell) -> bool:
        """True for a cell inside the matrix and part of the board."""
        r, c = cell
        return 0 <= r < self.rows and 0 <= c < self.cols and self.start[r][c] != OFF

    def jumps(self) -> list[Jump]:
        """Every ``(from, over, to)`` triple of board cells in a line, row-major then N, E, S, W."""
        out = []
        for r, c in self.cells:
            for dr, dc in DIRECTIONS:
                over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
                if self.on_board(over) and self.on_board(to):
                    out.append(((r, c), over, to))
        return out

    @property
    def start_pegs(self) -> int:
        """Pegs on the start board."""
        return sum(v == PEG for row in self.start for v in row)

    @property
    def goal_pegs(self) -> int:
        """Pegs on the goal board."""
        return sum(v == PEG for row in self.target for v in row)

    @property
    def moves_needed(self) -> int:
        """Each jump removes one peg, so every solution has exactly this many jumps."""
        return self.start_pegs - self.goal_pegs

    def transpose(self) -> Instance:
        """The same puzzle reflected in the main diagonal."""

        def tr(m: Matrix) -> Matrix:
            return tuple(tuple(m[r][c] for r in range(self.rows)) for c in range(self.cols))

        return Instance(self.cols, self.rows, tr(self.start), None if self.goal is None else tr(self.goal))

    def mirror(self) -> Instance:
        """The same puzzle reflected left to right."""

        def mi(m: Matrix) -> Matrix:
            return tuple(tuple(reversed(row)) for row in m)

        return Instance(self.rows, self.cols, mi(self.start), None if self.goal is None else mi(self.goal))


@dataclass(frozen=True)
class Solution:
    """The jumps, in order."""

    moves: tuple[Move, ...]


class Board:
    """A mutable position with make/unmake of jumps, for verifiers and search.

    >>> b = Board(Instance(1, 4, ((1, 1, -1, -1),)))
    >>> b.push(Move(0, 0, 0, 2)); b.matrix()
    ((-1, -1, 1, -1),)
    >>> b.pop(); b.matrix()
    Move(r1=0, c1=0, r2=0, c2=2)
    ((1, 1, -1, -1),)
    """

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.pegs: set[Cell] = {cell for cell in instance.cells if instance.start[cell[0]][cell[1]] == PEG}
        self.stack: list[Move] = []

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` cannot be played now, or None if it can."""
        if not move.is_jump_shape:
            return f"{move}: a jump goes exactly two cells along a row or column"
        for cell, what in ((move.source, "start"), (move.over, "jumped"), (move.target, "landing")):
            if not self.instance.on_board(cell):
                return f"{move}: {what} cell {cell} is not on the board"
        if move.source not in self.pegs:
            return f"{move}: no peg on {move.source}"
        if move.over not in self.pegs:
            return f"{move}: no peg to jump over on {move.over}"
        if move.target in self.pegs:
            return f"{move}: landing cell {move.target} is not empty"
        return None

    def legal_moves(self) -> list[Move]:
        """The jumps playable now."""
        return [
            Move(*a, *c)
            for a, b, c in self.instance.jumps()
            if a in self.pegs and b in self.pegs and c not in self.pegs
        ]

    def push(self, move: Move) -> None:
        """Play a jump.

        Raises:
            IllegalMoveError: the jump breaks the rules on this board.
        """
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        self.pegs -= {move.source, move.over}
        self.pegs.add(move.target)
        self.stack.append(move)

    def pop(self) -> Move:
        """Take back the last jump and return it."""
        move = self.stack.pop()
        self.pegs.discard(move.target)
        self.pegs |= {move.source, move.over}
        return move

    def matrix(self) -> Matrix:
        """The current position as a matrix."""
        inst = self.instance
        return tuple(
            tuple(OFF if inst.start[r][c] == OFF else (PEG if (r, c) in self.pegs else HOLE) for c in range(inst.cols))
            for r in range(inst.rows)
        )

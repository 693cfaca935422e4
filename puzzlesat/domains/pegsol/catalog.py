"""The single vacancy -> single survivor problems of a peg solitaire board, up to symmetry.

A *problem* on a board is a pair (start, finish) of board cells: the board full of pegs but
for a hole on ``start``, to be reduced to one peg on ``finish``.  The board's symmetries
(the maps of the square's dihedral group that send the board onto itself: 8 for the English,
French, German and diamond boards and square rectangles, 4 for other rectangles) act on the
pairs, and symmetric problems have the same answer, so a catalog solves one representative
per orbit: the pair that is smallest in row-major order among its images.

The catalog's evidence for a ruled-out problem comes from :func:`proof` (peg count,
position-class parity, a pagoda function written out with its weights) or from an exhausted
search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from puzzlesat.core import InvalidInstanceError
from puzzlesat.domains.pegsol.generate import named_board
from puzzlesat.domains.pegsol.impossible import pagoda_certificate, prove_impossible
from puzzlesat.domains.pegsol.instance import HOLE, OFF, PEG, Cell, Instance, Move, Solution

Map = Callable[[Cell], Cell]


@dataclass(frozen=True)
class Problem:
    """One orbit of (start, finish) pairs, by its representative.

    Attributes:
        start: the single vacancy of the start board.
        finish: the cell of the single survivor.
        orbit: how many (start, finish) pairs the board's symmetries map this one to.
    """

    start: Cell
    finish: Cell
    orbit: int


def board_cells(board: str, rows: int | None = None, cols: int | None = None) -> tuple[int, int, list[Cell]]:
    """The matrix size and the cells of a named board (see :func:`pegsol.named_board`).

    Raises:
        InvalidInstanceError: an unknown name, a bad size, or a size given for a named board.
    """
    if board != "rect" and (rows is not None or cols is not None):
        raise InvalidInstanceError(f"--rows and --cols size a rect board; the {board} board has its own shape")
    for flag, value in (("--rows", rows), ("--cols", cols)):
        if value is not None and value < 1:
            raise InvalidInstanceError(f"{flag} must be at least 1, got {value}")
    shape = named_board(board, rows, cols)
    height, width = len(shape), len(shape[0])
    return height, width, [(r, c) for r in range(height) for c in range(width) if shape[r][c] != OFF]


def symmetries(rows: int, cols: int, cells: list[Cell]) -> list[Map]:
    """The maps of the rows x cols matrix's symmetry group that send ``cells`` onto itself.

    >>> len(symmetries(3, 3, [(r, c) for r in range(3) for c in range(3)]))
    8
    >>> len(symmetries(2, 3, [(r, c) for r in range(2) for c in range(3)]))
    4
    """
    h, w = rows - 1, cols - 1
    maps: list[Map] = [
        lambda x: x,
        lambda x: (h - x[0], x[1]),
        lambda x: (x[0], w - x[1]),
        lambda x: (h - x[0], w - x[1]),
    ]
    if rows == cols:  # the diagonal reflections and the quarter turns
        maps += [
            lambda x: (x[1], x[0]),
            lambda x: (w - x[1], x[0]),
            lambda x: (x[1], h - x[0]),
            lambda x: (w - x[1], h - x[0]),
        ]
    on = set(cells)
    return [m for m in maps if {m(x) for x in cells} == on]


def problems(rows: int, cols: int, cells: list[Cell]) -> list[Problem]:
    """One representative per orbit of (start, finish) pairs, in row-major order of the pair.

    >>> sq = [(r, c) for r in range(3) for c in range(3)]
    >>> [(p.start, p.finish, p.orbit) for p in problems(3, 3, sq)][:3]
    [((0, 0), (0, 0), 4), ((0, 0), (0, 1), 8), ((0, 0), (0, 2), 8)]
    """
    maps = symmetries(rows, cols, cells)
    out = []
    for start in cells:
        for finish in cells:
            images = {(m(start), m(finish)) for m in maps}
            if min(images) == (start, finish):
                out.append(Problem(start, finish, len(images)))
    return out


def problem_instance(rows: int, cols: int, cells: list[Cell], start: Cell, finish: Cell) -> Instance:
    """The board full but for a hole on ``start``, with the goal of one peg on ``finish``."""
    on = set(cells)

    def matrix(value: Callable[[Cell], int]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(value((r, c)) if (r, c) in on else OFF for c in range(cols)) for r in range(rows))

    return Instance(
        rows,
        cols,
        matrix(lambda x: HOLE if x == start else PEG),
        matrix(lambda x: PEG if x == finish else HOLE),
    )


def cell_text(cell: Cell) -> str:
    """A cell as the catalog writes it: ``r:c``, 0-based."""
    return f"{cell[0]}:{cell[1]}"


def pagoda_evidence(instance: Instance) -> str | None:
    """The pagoda certificate written out: its nonzero weights ``r:c=w``, the values on the
    start and on the goal; None when linear programming finds none."""
    cert = pagoda_certificate(instance)
    if cert is None:
        return None
    weights, on_start, on_goal = cert
    listed = " ".join(f"{cell_text(x)}={w}" for x, w in sorted(weights.items()) if w)
    return f"pagoda function: weights {listed}; worth {on_start} on the start and {on_goal} on the goal"


def proof(instance: Instance) -> tuple[str, str] | None:
    """``(reason, evidence)`` when a proof rules the problem out: ``count`` or ``parity``
    (:func:`pegsol.prove_impossible`'s text) or ``pagoda`` (:func:`pagoda_evidence`); else None."""
    cheap = prove_impossible(instance, pagoda=False)
    if cheap is not None:
        return ("parity" if cheap.startswith("position-class parity") else "count"), cheap
    pagoda = pagoda_evidence(instance)
    return None if pagoda is None else ("pagoda", pagoda)


def reverse(rows: int, cols: int, cells: list[Cell], problem: Problem) -> tuple[Cell, Cell, Map]:
    """The representative of the reversed problem (``finish`` -> ``start``), and the map that
    takes its cells back to this problem's.

    A game played backwards is the same game on the complemented board: the jumps that take
    the board with one hole on ``f`` to one peg on ``s``, played in reverse order, take the
    board with one hole on ``s`` to one peg on ``f``.  So a problem and its reverse are both
    solvable or both not, and a solution of one, reversed, solves the other.
    """
    maps = symmetries(rows, cols, cells)
    (start, finish), m = min((((m(problem.finish), m(problem.start)), m) for m in maps), key=lambda x: x[0])
    back = next(k for k in maps if all(k(m(x)) == x for x in cells))
    return start, finish, back


def reversed_solution(solution: Solution, back: Map) -> Solution:
    """The reverse problem's solution played backwards, its cells mapped by ``back``."""
    return Solution(tuple(Move(*back(mv.source), *back(mv.target)) for mv in reversed(solution.moves)))

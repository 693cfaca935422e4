"""Blacken ("Othello" stones): turn every white stone black in the fewest moves.

Rules (SPEC.md §4).  A k x k board holds q white stones, none on the frame.  A move puts a
black stone on an empty cell that touches (8-neighbourhood) a white stone; then, in each of
the 8 directions from the new stone, an unbroken run of white stones that ends at a black
stone turns black (the Reversi rule; flipped stones do not flip further).  The goal is to
have no white stone left, in as few moves as possible.

Conventions: cells are ``(row, col)``, 0-based, (0, 0) top-left.  The seed's files speak
1-based ``x,y`` with x the column and y the row, so ``x,y`` is the cell ``(y - 1, x - 1)``.

Input: a first line ``k q`` (the seed's command-line arguments) and then one ``x,y`` line per
white stone.  A file of ``x,y`` lines alone is accepted too: k is then the smallest board
that keeps every stone off the frame (the board size never changes the answer, since every
move and every flip stays next to a white stone).

Output (the seed's): ``The result is N.``, the moves ``x: X y: Y`` in play order, a blank
line, then the final board, one row a line, each cell as wide as the largest move number:
the move number on a placed stone, ``B`` on a flipped stone, ``W`` on a stone still white
(never in a valid answer) and a blank on an empty cell.

Size limits (checked before any board is built): a board of at most :data:`MAX_SIZE` x
:data:`MAX_SIZE`, at most :data:`MAX_WHITES` white stones and :data:`MAX_INPUT_CHARS`
characters of text.

This package: ``instance`` (board, moves, simple bounds), ``formats`` (parse and format, the
final board in text), ``verify``, ``search`` (breadth-first and greedy answers),
``generate``, ``bound`` and its numba kernel ``bound_kernel`` (the move lower bound the
formulations share), ``svg`` (the picture); here the declaration :data:`PUZZLE` and every
public name.
"""

from __future__ import annotations

from puzzlesat.core import Option, Puzzle
from puzzlesat.domains.blacken.formats import (
    MAX_INPUT_CHARS,
    MAX_SIZE,
    MAX_WHITES,
    draw,
    format_solution,
    parse,
    parse_solution,
    write_instance,
)
from puzzlesat.domains.blacken.generate import generate
from puzzlesat.domains.blacken.instance import (
    BLACK,
    DIRECTIONS,
    EMPTY,
    WHITE,
    Board,
    Cell,
    Instance,
    Solution,
    components,
    lower_bound,
    replay,
    upper_bound,
)
from puzzlesat.domains.blacken.search import BFS_POSITIONS, bfs_optimum, greedy
from puzzlesat.domains.blacken.verify import verify

__all__ = [
    "BFS_POSITIONS",
    "BLACK",
    "Board",
    "Cell",
    "DIRECTIONS",
    "EMPTY",
    "HORIZON",
    "Instance",
    "MAX_INPUT_CHARS",
    "MAX_SIZE",
    "MAX_WHITES",
    "PUZZLE",
    "Solution",
    "WHITE",
    "bfs_optimum",
    "components",
    "draw",
    "format_solution",
    "generate",
    "greedy",
    "lower_bound",
    "parse",
    "parse_solution",
    "replay",
    "upper_bound",
    "verify",
    "write_instance",
]


# the option of both step models (cpsat-steps, cnf-steps); they solve by raising the horizon
# themselves: this one is for export
HORIZON = Option(
    "horizon", int, None, "export: the question 'every stone black within N moves?' (default: greedy's N)", low=0
)
PUZZLE = Puzzle(
    name="blacken",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.blacken:generate",
    write_instance=write_instance,
    draw="puzzlesat.domains.blacken.svg:draw",
    # each declared beside its formulation, read on first use; the default first
    strategies=(
        "puzzlesat.native.blacken.bb:BRANCH_AND_BOUND",
        "puzzlesat.native.blacken.bb:PARALLEL",
        "puzzlesat.models.blacken:STRATEGY",
        "puzzlesat.encoders.blacken:STRATEGY",
        "puzzlesat.native.blacken.bb:BFS",
    ),
    portfolio=("native-bb", "cpsat-steps", "cnf-steps:cadical195"),
    generator_options=(
        Option("size", int, None, "board size k (k x k), default 7", low=3, high=MAX_SIZE),
        Option("whites", int, None, "number of white stones q, default 6", low=0, high=MAX_WHITES),
        Option("components", int, None, "number of 8-connected white groups, default 2", low=1, high=MAX_WHITES),
    ),
    optimisation=True,
)

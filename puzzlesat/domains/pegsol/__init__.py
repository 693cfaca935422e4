"""Peg solitaire ("Resta Um"): jump pegs over pegs until the board matches a goal.

Conventions: cells are ``(row, col)`` with (0, 0) top-left, 0-based.  A board matrix holds
``1`` for a peg, ``-1`` for a hole and ``0`` for a cell that is not part of the board.  A move
(a *jump*) takes the peg on ``(r1, c1)`` over the peg on the orthogonally adjacent cell into
the hole ``(r2, c2)`` two cells away; the jumped peg is removed.

Input (the seed's format): ``m n`` then m rows of n values.  The goal is then the seed's
*complement*: every initial hole ends with a peg and every initial peg position ends empty.
A second form adds m more rows, the explicit goal board (same off-board cells), e.g. the
English board with one peg left in the centre.  ``#`` starts a comment.

Output: one jump a line ``r1:c1-r2:c2`` (the jumping peg, then its landing hole), or the
single line ``Impossivel`` when no sequence of jumps reaches the goal.

Before any search, :func:`prove_impossible` tries three cheap proofs: peg counts, the
position-class parity of the (r+c) mod 3 and (r-c) mod 3 classes, and a pagoda function
found by linear programming (Berlekamp, Conway & Guy, *Winning Ways* ch. 23; Kiyomi &
Matsui, *Integer programming based algorithms for peg solitaire problems*, 2001).

Size limits (checked before the board is built): a matrix of at most :data:`MAX_SIDE` rows
and columns, at most :data:`MAX_CELLS` board cells, and :data:`MAX_INPUT_CHARS` characters.

This package: ``instance`` (boards, moves, :class:`Board`), ``formats`` (parse and format),
``verify``, ``impossible`` (the three proofs), ``reach`` (jumps each plan step may play),
``generate`` (named and random boards), ``results`` (presolve),
``catalog`` (a board's problems up to symmetry), ``certificates`` (impossibility proofs as
files, re-checked without a solver), ``svg`` (the picture); here the declaration
:data:`PUZZLE` and every public name.
"""

from __future__ import annotations

from puzzlesat.core import Option, Puzzle
from puzzlesat.domains.pegsol.formats import (
    IMPOSSIBLE,
    MAX_CELLS,
    MAX_INPUT_CHARS,
    MAX_SIDE,
    format_solution,
    parse,
    parse_solution,
    write_instance,
)
from puzzlesat.domains.pegsol.generate import generate, named_board
from puzzlesat.domains.pegsol.impossible import class_counts, pagoda_certificate, parity_signature, prove_impossible
from puzzlesat.domains.pegsol.instance import (
    DIRECTIONS,
    HOLE,
    OFF,
    PEG,
    Board,
    Cell,
    IllegalMoveError,
    Instance,
    Jump,
    Matrix,
    Move,
    Solution,
)
from puzzlesat.domains.pegsol.reach import step_jumps
from puzzlesat.domains.pegsol.results import presolve
from puzzlesat.domains.pegsol.verify import verify

__all__ = [
    "Board",
    "Cell",
    "DIRECTIONS",
    "HOLE",
    "IMPOSSIBLE",
    "IllegalMoveError",
    "Instance",
    "Jump",
    "MAX_CELLS",
    "MAX_INPUT_CHARS",
    "MAX_SIDE",
    "Matrix",
    "Move",
    "OFF",
    "PEG",
    "PUZZLE",
    "REACH",
    "Solution",
    "class_counts",
    "format_solution",
    "generate",
    "named_board",
    "pagoda_certificate",
    "parity_signature",
    "parse",
    "parse_solution",
    "presolve",
    "prove_impossible",
    "step_jumps",
    "verify",
    "write_instance",
]


# the option cnf-plan and cpsat-plan share
REACH = Option("reach", bool, True, "allow at each step only the jumps that can happen that early and that late")
PUZZLE = Puzzle(
    name="pegsol",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.pegsol:generate",
    write_instance=write_instance,
    draw="puzzlesat.domains.pegsol.svg:draw",
    # each declared beside its formulation, read on first use; the default first
    strategies=(
        "puzzlesat.native.pegsol.dfs:STRATEGY",
        "puzzlesat.encoders.pegsol:STRATEGY",
        "puzzlesat.models.pegsol:STRATEGY",
    ),
    portfolio=("native-dfs", "cnf-plan:cadical195", "cpsat-plan"),
    presolve=presolve,
    generator_options=(
        Option(
            "board", str, None, "english, french, german, diamond or rect (default english; rect with --rows/--cols)"
        ),
        Option("rows", int, None, "rows of a rect board", low=1, high=MAX_CELLS),
        Option("cols", int, None, "columns of a rect board", low=1, high=MAX_CELLS),
        Option("hole", str, None, "the start hole R,C (default: the centre)"),
        Option(
            "holes",
            int,
            None,
            "instead of --hole: this many holes at random cells (uses --seed)",
            low=1,
            high=MAX_CELLS,
        ),
        Option("goal", str, None, "'complement' (default, the seed's goal) or R,C: finish with one peg there"),
    ),
    solve_options=(
        Option("no_proofs", bool, False, "skip the impossibility proofs (counts, parity, pagoda) before search"),
    ),
    write_argument="puzzlesat.domains.pegsol.certificates:write_argument",
    check_argument="puzzlesat.domains.pegsol.certificates:check_argument",
)

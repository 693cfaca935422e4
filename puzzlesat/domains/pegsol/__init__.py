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

from puzzlesat.core import SAT_SOLVERS, Option, Puzzle, Strategy
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
    "CNF_PLAN_OPTIONS",
    "CPSAT_PLAN_OPTIONS",
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
    "ORDERING",
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


# the SAT plans' options (cnf-plan and cpsat-plan)
ORDERING = Option("ordering", bool, True, "order independent consecutive jumps (symmetry breaking)")
REACH = Option("reach", bool, True, "allow at each step only the jumps that can happen that early and that late")
# cnf-plan's rule groups (encoders/pegsol.py says what each one adds)
CNF_PLAN_OPTIONS = (
    Option(
        "ordering",
        int,
        1,
        "independent jumps: 0 any order, 1 consecutive ones by index, 2 the lexicographic normal form",
        low=0,
        high=2,
    ),
    REACH,
    Option(
        "parity",
        int,
        1,
        "position-class parities as clauses: 0 none, 1 at the last step (meets the goal), 2 at every step",
        low=0,
        high=2,
    ),
    Option("symmetry", bool, True, "first jump the smallest of its orbit under the symmetries of start and goal"),
    Option("count", bool, False, "exactly start pegs - t pegs after t jumps (sequential form)"),
    Option("pagoda", bool, False, "pagoda bounds at every step (LP pagodas of the goal's pegs and start's holes)"),
    Option("reverse", bool, False, "encode the game played backwards on the complemented board"),
    Option("parallel", bool, True, "parallel steps of jumps on disjoint cells (Foata normal form); 0: one jump a step"),
    Option("steps", int, None, "parallel form: this many steps (default: from the first possible up to T)", low=1),
    Option("window", int, 3, "parallel form: horizons solved at once, in turns (CaDiCaL)", low=1, high=8),
)
# cpsat-plan's rule groups (models/pegsol.py)
CPSAT_PLAN_OPTIONS = (ORDERING, REACH, Option("redundant", bool, True, "peg-count constraint per step (redundant)"))
PUZZLE = Puzzle(
    name="pegsol",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.pegsol:generate",
    write_instance=write_instance,
    draw="puzzlesat.domains.pegsol.svg:draw",
    strategies=(
        Strategy(
            "native-dfs",
            "puzzlesat.native.pegsol:solve",
            "numba bitboard DFS: dead-position table up to symmetry, pagoda cuts, endgame search back from the goal; "
            "proves impossibility by exhaustion",
            options=(
                Option("order", str, None, "one fixed move order and no restarts: symK or randomN"),
                Option("table_bits", int, None, "log2 of the dead-position table's slots (default 24)", low=4, high=30),
                Option("no_restarts", bool, False, "one search, no restarts with other move orders"),
                Option("no_meet", bool, False, "no endgame search back from the goal (meet in the middle)"),
                Option("endgame_size", int, None, "most positions in the endgame's last layer (default 2**21)", low=1),
                Option("no_pagoda", bool, False, "no pagoda cuts learned from the dead positions"),
                Option("no_symmetry", bool, False, "key dead positions as they are, not up to the goal's symmetries"),
                Option(
                    "sym_depth", int, None, "positions at most this many jumps deep are keyed up to symmetry", low=0
                ),
                Option(
                    "plain_nodes",
                    int,
                    None,
                    "nodes searched in plain Python before the numba kernel loads (default 2**15; 0: none)",
                    low=0,
                ),
            ),
        ),
        Strategy(
            "cnf-plan",
            "puzzlesat.encoders.pegsol:solve",
            "SAT planning, horizon = pegs to remove, one jump a step, explanatory frame axioms, "
            "ordering of independent consecutive jumps; any pysat solver",
            variants=SAT_SOLVERS,
            default_variant="cadical195",
            encoder="puzzlesat.encoders.pegsol:encode",
            options=CNF_PLAN_OPTIONS,
        ),
        Strategy(
            "cpsat-plan",
            "puzzlesat.models.pegsol:solve",
            "CP-SAT: the same fixed-horizon plan (one jump a step, frame axioms, ordering)",
            model="puzzlesat.models.pegsol:build_model",
            options=CPSAT_PLAN_OPTIONS,
        ),
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

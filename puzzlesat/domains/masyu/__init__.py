"""Masyu: one closed loop through cell centres that visits every circle and obeys its rule.

Conventions: cells are ``(row, col)`` with (0, 0) top-left, numbered ``row * cols + col``;
files use 1-based coordinates, (1 1) = top-left.  The loop moves orthogonally, never enters a
cell twice, and passes every circled cell.  White circle: straight through, and a turn in at
least one of the two loop cells next to it.  Black circle: a turn, and straight on through
the next cell on both arms.

Input (the 2011 Intel threading challenge): ``rows cols``, then two groups, each a line ``B``
or ``W`` followed by ``row col`` pairs (up to 5 a line), ended by the pair ``0 0``; either
colour may come first.  Output: ``row col`` of a loop cell, then the moves ``U D L R`` from
it, 40 a line, back to the start; ``NO SOLUTION`` when no loop exists.

Edges are named by the cell they leave to the right or downwards: ``("h", r, c)`` joins
(r, c) and (r, c+1), ``("v", r, c)`` joins (r, c) and (r+1, c).

Size limits (checked before any grid is built): at most :data:`MAX_CELLS` cells, sides up
to :data:`MAX_SIDE`, and :data:`MAX_INPUT_CHARS` characters of text.

This package: ``instance`` (grid, loop, edge names), ``formats`` (parse and format, URLs),
``verify``, ``generate`` (random loops), ``results`` (presolve and notes), ``draw`` (text),
``rules`` (the degree and circle rules as clauses, which the CNF and CP-SAT formulations
share) and ``svg`` (the picture, loaded when one is asked for); here the declaration
:data:`PUZZLE` and every public name.
"""

from __future__ import annotations

import math

from puzzlesat.core import Option, Puzzle
from puzzlesat.domains.masyu.draw import draw_text
from puzzlesat.domains.masyu.formats import (
    MAX_CELLS,
    MAX_INPUT_CHARS,
    MAX_SIDE,
    MOVES_PER_LINE,
    NO_SOLUTION,
    PZPR_DIGITS,
    format_solution,
    from_url,
    parse,
    parse_any,
    parse_solution,
    to_url,
    write_instance,
)
from puzzlesat.domains.masyu.generate import allowed_clues, random_loop
from puzzlesat.domains.masyu.instance import (
    BLACK,
    EMPTY,
    STEP,
    WHITE,
    Cell,
    EdgeKey,
    Instance,
    Solution,
    edge_between,
    edge_cells,
    loops_of,
    solution_from_cycle,
    solution_from_edges,
)
from puzzlesat.domains.masyu.results import notes, presolve, trivial_answer
from puzzlesat.domains.masyu.verify import verify

__all__ = [
    "BLACK",
    "Cell",
    "EMPTY",
    "EdgeKey",
    "Instance",
    "MAX_CELLS",
    "MAX_INPUT_CHARS",
    "MAX_SIDE",
    "MOVES_PER_LINE",
    "NO_SOLUTION",
    "PUZZLE",
    "PZPR_DIGITS",
    "STEP",
    "Solution",
    "WHITE",
    "allowed_clues",
    "draw_text",
    "edge_between",
    "edge_cells",
    "format_solution",
    "from_url",
    "loops_of",
    "notes",
    "parse",
    "parse_any",
    "parse_solution",
    "presolve",
    "random_loop",
    "solution_from_cycle",
    "solution_from_edges",
    "to_url",
    "trivial_answer",
    "verify",
    "write_instance",
]


PUZZLE = Puzzle(
    name="masyu",
    parse=parse_any,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.encoders.masyu_generator:generate",
    write_instance=write_instance,
    # each declared beside its formulation, read on first use; the default first
    strategies=(
        "puzzlesat.encoders.masyu:STRATEGIES",
        "puzzlesat.models.masyu:STRATEGIES",
        "puzzlesat.native.masyu.dfs:STRATEGY",
    ),
    # cnf-lazy wins every measured set (docs/portfolio.md, the mixed masyu set; 41 of the 42 largest
    # of a public collection): --portfolio runs it alone, in the puzzlesat process, and races nothing
    portfolio=("cnf-lazy:cadical195",),
    generator_options=(
        Option("size", int, None, "grid size (size x size), default 10", low=2, high=math.isqrt(MAX_CELLS)),
        Option("rows", int, None, "rows (overrides --size)", low=2, high=MAX_SIDE),
        Option("cols", int, None, "columns (overrides --size)", low=2, high=MAX_SIDE),
        Option("fill", int, None, "percent of the grid's squares inside the loop (default 50)", low=1, high=100),
    ),
    solve_options=(
        Option("unique", bool, False, "prove the solution unique, or show a second one"),
        Option("draw", bool, False, "also draw the loop in text on stderr"),
        Option("url", bool, False, "also print the puzzle's puzz.link URL on stderr"),
    ),
    notes=notes,
    draw="puzzlesat.domains.masyu.svg:draw",
    presolve=presolve,
    modes=("unique",),
)

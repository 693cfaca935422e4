"""Edge matching (Eternity II): a board of square tiles whose touching edges share a colour.

Conventions: cells are ``(row, col)`` with (0, 0) top-left, numbered ``row * cols + col``.
A tile lists its edge colours clockwise from the top: N, E, S, W (sides 0..3).  Rotating a
tile ``r`` clockwise quarter turns puts its listed colour ``(s - r) mod 4`` on side ``s``.
Colour 0 (grey) lies on the board frame and nowhere else.

Input (the seed's format): ``g c`` then g*g lines ``N E S W``; tile ids are the 0-based line
order; c counts the colours with grey (the seed) or without it (Heule's benchmark files).
Rectangles use the header ``rows cols c``.  Output: one ``tile rotations`` line per cell,
left to right, top to bottom, or ``SOLUTION NOT FOUND``.

Hint pieces (Eternity II's starter and clue pieces) pin a tile to a cell in a given turn.
They come from a hints file (``--hints FILE``: lines ``TILE ROW COL ROTATION``, see
:func:`parse_hints`) and belong to the instance: every formulation and the verifier honour
them, and the instance text carries them after its tiles, in a section opened by a line
``hints`` (how an exported sidecar keeps them).

Size limits (checked before anything is allocated): at most :data:`MAX_CELLS` cells and
:data:`MAX_COLOURS` colours, and :data:`MAX_INPUT_CHARS` characters of text.

This package: ``instance`` (tiles, hints, placements, board rotations), ``formats`` (parse
and format, hints files), ``verify`` (and the score), ``generate``, ``results`` (notes),
``draw`` (the SVG picture of a board and an answer), ``svg`` (the drawing of tiles, loaded
when a picture is asked for); here the declaration :data:`PUZZLE` and every public name.
"""

from __future__ import annotations

import math

from puzzlesat.core import Option, Puzzle
from puzzlesat.domains.eternity.draw import draw_svg
from puzzlesat.domains.eternity.formats import (
    HINTS_SECTION,
    MAX_CELLS,
    MAX_COLOURS,
    MAX_INPUT_CHARS,
    NOT_FOUND,
    format_solution,
    hint_problem,
    parse,
    parse_hints,
    parse_solution,
    read_hints,
    with_hints,
    write_instance,
)
from puzzlesat.domains.eternity.generate import generate, make_unsolvable
from puzzlesat.domains.eternity.instance import (
    GREY,
    E,
    Hint,
    Instance,
    N,
    S,
    Solution,
    Tile,
    W,
    board_rotations,
    corner_tiles,
    first_corner,
    placements,
    rotated,
)
from puzzlesat.domains.eternity.results import notes
from puzzlesat.domains.eternity.verify import max_score, mismatches, score, verify, verify_run

__all__ = [
    "E",
    "GREY",
    "HINTS_SECTION",
    "Hint",
    "Instance",
    "MAX_CELLS",
    "MAX_COLOURS",
    "MAX_INPUT_CHARS",
    "N",
    "NOT_FOUND",
    "PUZZLE",
    "S",
    "SYMMETRY",
    "Solution",
    "Tile",
    "W",
    "board_rotations",
    "corner_tiles",
    "draw_svg",
    "first_corner",
    "format_solution",
    "generate",
    "hint_problem",
    "make_unsolvable",
    "max_score",
    "mismatches",
    "notes",
    "parse",
    "parse_hints",
    "parse_solution",
    "placements",
    "read_hints",
    "rotated",
    "score",
    "verify",
    "verify_run",
    "with_hints",
    "write_instance",
]


# the option cpsat-table and cnf-heule share
SYMMETRY = Option(
    "symmetry", bool, True, "without hints: one corner tile fixed top-left (square) or in the top row (rectangle)"
)
PUZZLE = Puzzle(
    name="eternity",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.eternity:generate",
    write_instance=write_instance,
    # each declared beside its formulation, read on first use; the default first
    strategies=(
        "puzzlesat.native.eternity.rowscan:STRATEGY",
        "puzzlesat.models.eternity:STRATEGY",
        "puzzlesat.encoders.eternity:STRATEGY",
        "puzzlesat.encoders.eternity_maxsat:STRATEGY",
    ),
    # two members for a 2-core machine: native-rowscan wins the public boards, cnf-heule some
    # generated 7x7 ones (benchmarks/portfolio.py, docs/portfolio.md); the first has the head start
    portfolio=("native-rowscan", "cnf-heule:cadical195"),
    instance_options=(Option("hints", str, None, "a hints file: lines 'TILE ROW COL ROTATION' pinning tiles"),),
    amend=read_hints,
    solve_options=(
        Option(
            "count",
            bool,
            False,
            "count every solution (a board and its rotations once) and print the number",
        ),
        Option(
            "score",
            bool,
            False,
            "maximise matched edges over legal boards; anytime: the best board at the time limit or "
            "Ctrl-C, 'c score N/MAX' on stderr",
        ),
        Option(
            "checkpoint",
            str,
            None,
            "with --score (native-rowscan): rewrite this file with the best board as it improves "
            "(atomically), and its picture beside it (FILE.svg); with --count: with the tasks of the "
            "count finished so far",
            writes=True,
        ),
        Option(
            "resume",
            str,
            None,
            "with --score (native-rowscan): start from this checkpoint (or board) file and keep it up to date; "
            "with --count: count only the tasks this count checkpoint has not finished",
            writes=True,
        ),
        Option(
            "target",
            int,
            None,
            "with --score (native-rowscan): hunt at this score, the bound kept there; every distinct board "
            "of this score or more is kept (--boards), the ladder shown on a terminal",
            low=1,
            high=MAX_CELLS * 2,
        ),
        Option(
            "boards",
            str,
            None,
            "with --target: write each distinct board found into this folder, one file each "
            "(SCORE-TIME-KEY.txt; never the same board twice, also across --resume)",
        ),
    ),
    notes=notes,
    draw="puzzlesat.domains.eternity:draw_svg",
    verify_run=verify_run,
    check_options=(Option("score", bool, False, "accept mismatched edges; print the matched ones (c score N/MAX)"),),
    check=verify_run,
    modes=("count", "score", "checkpoint", "resume", "target", "boards"),
    generator_options=(
        Option("size", int, None, "board size g (g x g), default 4", low=2, high=math.isqrt(MAX_CELLS)),
        Option("rows", int, None, "rows, for a rectangle (overrides --size)", low=2, high=MAX_CELLS // 2),
        Option("cols", int, None, "columns, for a rectangle (overrides --size)", low=2, high=MAX_CELLS // 2),
        Option("frame_colours", int, None, "colours on edges along the frame, default 1", low=1, high=MAX_COLOURS),
        Option("inner_colours", int, None, "colours on the other inside edges, default 1", low=1, high=MAX_COLOURS),
    ),
)

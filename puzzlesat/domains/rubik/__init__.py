"""Rubik's cube (3x3x3): shortest solving maneuvers in the half-turn and quarter-turn metrics.

Conventions (Kociemba's cubie model: faces ``U R F D L B``, moves ``(face, turns)`` written
``U``, ``U2``, ``U'``, the cubies, their orientations and the 54-facelet string) are stated
once, in :mod:`puzzlesat.domains.rubik.cube`.

Input (auto-detected):

- a maneuver applied to a solved cube, e.g. ``R U R' U' F2``;
- the seed's position form ``U:... R:... F:... D:... L:... B:...`` (any colour letters,
  the centre sticker names the face's colour);
- Singmaster (Reid) cubie notation, 20 tokens, solved = ``UF UR UB UL DF DR DB DL FR FL BR
  BL UFR URB UBL ULF DRF DFL DLB DBR``;
- the Kociemba facelet string (54 letters from ``URFDLB``).

Output: one maneuver per line followed by its length, e.g. ``R U2 F'  (3f)`` in HTM or
``R U2 F'  (4q)`` in QTM.  Lines starting with ``#`` are comments in every input form.

Size limits: an input of at most :data:`MAX_INPUT_CHARS` characters and a maneuver of at
most :data:`MAX_MANEUVER_MOVES` moves, checked before any move is applied.

This package: ``cube`` (the cubie model, facelet tables, moves as cubes), ``maneuvers``
(read, write and measure maneuvers; each metric's moves), ``notation`` (facelets, Singmaster
and position forms read into a cube), ``instance``, ``formats`` (parse and format),
``verify``, ``generate``, ``results`` (a bounded model's answer), ``options`` (metric,
horizon, depth cap), ``svg`` (the picture); here the declaration :data:`PUZZLE` and every
public name.
"""

from __future__ import annotations

from typing import Any

from puzzlesat.core import Option, Puzzle
from puzzlesat.domains.rubik.cube import (
    CORNER_COLOURS,
    CORNER_FACELETS,
    CORNER_NAMES,
    EDGE_COLOURS,
    EDGE_FACELETS,
    EDGE_NAMES,
    FACES,
    SINGMASTER_CORNERS,
    SINGMASTER_EDGES,
    SINGMASTER_FACELETS,
    SOLVED,
    SOLVED_FACELETS,
    SOLVED_SINGMASTER,
    B,
    Cube,
    D,
    F,
    L,
    Maneuver,
    Move,
    R,
    U,
    facelets_to_singmaster,
    move_cubes,
    parity,
)
from puzzlesat.domains.rubik.formats import MAX_INPUT_CHARS, format_solution, parse, parse_solution, write_instance
from puzzlesat.domains.rubik.generate import generate, random_cube, random_maneuver
from puzzlesat.domains.rubik.instance import Instance, Solution
from puzzlesat.domains.rubik.maneuvers import (
    MAX_MANEUVER_MOVES,
    METRICS,
    forbidden_pairs,
    forbidden_triples,
    format_maneuver,
    invert_maneuver,
    maneuver_length,
    metric_moves,
    parse_maneuver,
    simplify,
)
from puzzlesat.domains.rubik.notation import (
    facelets_to_cube,
    facelets_to_position,
    position_to_facelets,
    singmaster_to_facelets,
)
from puzzlesat.domains.rubik.options import (
    HORIZON,
    MAX_DEPTH,
    MAX_DEPTH_OPTION,
    METRIC,
    max_depth_of,
    metric_of,
)
from puzzlesat.domains.rubik.results import bounded_answer
from puzzlesat.domains.rubik.verify import verify

__all__ = [
    "B",
    "CORNER_COLOURS",
    "CORNER_FACELETS",
    "CORNER_NAMES",
    "Cube",
    "D",
    "EDGE_COLOURS",
    "EDGE_FACELETS",
    "EDGE_NAMES",
    "F",
    "FACES",
    "HORIZON",
    "Instance",
    "L",
    "MAX_DEPTH",
    "MAX_DEPTH_OPTION",
    "MAX_INPUT_CHARS",
    "MAX_MANEUVER_MOVES",
    "METRIC",
    "METRICS",
    "Maneuver",
    "Move",
    "PUZZLE",
    "R",
    "SINGMASTER_CORNERS",
    "SINGMASTER_EDGES",
    "SINGMASTER_FACELETS",
    "SOLVED",
    "SOLVED_FACELETS",
    "SOLVED_SINGMASTER",
    "Solution",
    "U",
    "bounded_answer",
    "facelets_to_cube",
    "facelets_to_position",
    "facelets_to_singmaster",
    "forbidden_pairs",
    "forbidden_triples",
    "format_maneuver",
    "format_solution",
    "generate",
    "invert_maneuver",
    "maneuver_length",
    "max_depth_of",
    "metric_moves",
    "metric_of",
    "move_cubes",
    "parity",
    "parse",
    "parse_maneuver",
    "parse_solution",
    "position_to_facelets",
    "random_cube",
    "random_maneuver",
    "simplify",
    "singmaster_to_facelets",
    "verify",
    "write_instance",
]


def __getattr__(name: str) -> Any:
    # MOVE_CUBES is built on first access, not at import
    if name == "MOVE_CUBES":
        return move_cubes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PUZZLE = Puzzle(
    name="rubik",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.rubik:generate",
    write_instance=write_instance,
    draw="puzzlesat.domains.rubik.svg:draw",
    # each declared beside its formulation, read on first use; the default first
    strategies=(
        "puzzlesat.native.rubik.ida:STRATEGY",
        "puzzlesat.models.rubik:STRATEGY",
        "puzzlesat.encoders.rubik:STRATEGY",
    ),
    # native-ida wins every measured scramble (docs/portfolio.md, the mixed rubik set): --portfolio
    # runs it alone, in the puzzlesat process, and races nothing
    portfolio=("native-ida",),
    generator_options=(
        Option(
            "moves", int, None, "scramble length (default: a uniformly random position)", low=0, high=MAX_MANEUVER_MOVES
        ),
    ),
    solve_options=(
        METRIC,
        Option("all", bool, False, "every shortest solution"),
        Option("extra", int, 0, "also the solutions up to N moves longer than the shortest", low=0),
        MAX_DEPTH_OPTION,
        Option(
            "tables",
            str,
            "auto",
            "native-ida pruning tables, built once and cached; memory of a search (shared by its workers): "
            "phase1 2.3 GB (tables 1.85 GB), phase1x12 0.95 GB (0.55 GB, 2-bit), phase1x6 0.9 GB (0.53 GB), "
            "full 0.45 GB (Korf's, 87 MB), small (0.4 MB); auto: small first, then the largest that fits "
            "--memory-limit once a position needs it (build times: docs/rubik.md, Tables; "
            "puzzlesat tables list / build)",
            choices=("auto", "phase1", "phase1x12", "phase1x6", "full", "small"),
        ),
    ),
    optimisation=True,
    modes=("all", "extra"),
)

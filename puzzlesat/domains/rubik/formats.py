"""Rubik's text formats: a position in any of the four input forms, the maneuvers of an answer."""

from __future__ import annotations

import re

from puzzlesat.core import InvalidInstanceError, ParseError, check_length, content_lines
from puzzlesat.domains.rubik.cube import FACES, SOLVED, Move
from puzzlesat.domains.rubik.instance import Instance, Solution
from puzzlesat.domains.rubik.maneuvers import MAX_MANEUVER_MOVES, format_maneuver, maneuver_length, parse_maneuver
from puzzlesat.domains.rubik.notation import (
    facelets_to_cube,
    facelets_to_position,
    position_to_facelets,
    singmaster_to_facelets,
)

# a 10 000-move maneuver is about 30 kB of text: 100 kB leaves room for comments
MAX_INPUT_CHARS = 100_000


def parse(text: str, source: str = "<input>") -> Instance:
    """Read a position in any of the four input forms (auto-detected).

    >>> parse("R U R' U'").form
    'maneuver'
    >>> from puzzlesat.domains.rubik.cube import SOLVED_SINGMASTER
    >>> parse(SOLVED_SINGMASTER).cube.is_solved
    True

    Raises:
        ParseError: the text follows none of the forms.
        InvalidInstanceError: a position that cannot be reached (twisted corner, flipped edge,
            swapped pair, a cubie missing or twice), naming what is wrong.
    """
    check_length(text, source, MAX_INPUT_CHARS)
    lines = content_lines(text)
    if not lines:
        raise ParseError(
            f"{source}:1: empty input; expected a maneuver, a position, Singmaster "
            "notation or a 54-letter facelet string"
        )
    lineno = lines[0][0]
    joined = " ".join(line for _, line in lines)
    tokens = joined.split()
    maneuver = None
    if all(":" in t for t in tokens):
        form = "position"
        cube = facelets_to_cube(position_to_facelets(joined, source, lineno), source, lineno)
    elif len(tokens) == 1 and len(tokens[0]) > 3 and set(tokens[0]) <= set(FACES):
        # one word of face letters is no move (a move is one letter and a suffix): a facelet
        # string, maybe of the wrong length
        form = "facelets"
        cube = facelets_to_cube(tokens[0], source, lineno)
    elif tokens and all(len(t) in (2, 3) and set(t) <= set(FACES) for t in tokens):
        form = "singmaster"
        cube = facelets_to_cube(singmaster_to_facelets(tokens, source, lineno), source, lineno)
    else:
        form = "maneuver"
        moves: list[Move] = []
        for ln, line in lines:
            moves.extend(parse_maneuver(line, source, ln, MAX_MANEUVER_MOVES - len(moves)))
        maneuver = tuple(moves)
        cube = SOLVED.apply(maneuver)
    problems = cube.problems()
    if problems:
        raise InvalidInstanceError(f"{source}:{lineno}: illegal cube: " + "; ".join(problems))
    return Instance(cube, form, maneuver)


def write_instance(instance: Instance) -> str:
    """The instance in its own input form (maneuver, position, facelets or Singmaster)."""
    if instance.form == "maneuver" and instance.maneuver is not None:
        return format_maneuver(instance.maneuver) + "\n"
    if instance.form == "facelets":
        return instance.cube.to_facelets() + "\n"
    if instance.form == "position":
        return facelets_to_position(instance.cube.to_facelets()) + "\n"
    return instance.cube.to_singmaster() + "\n"


def format_solution(instance: Instance, solution: Solution | None) -> str:
    """One maneuver per line with its length, e.g. ``R U2 F'  (3f)``.

    >>> format_solution(parse("F U2 R'"), Solution((parse_maneuver("R U2 F'"),), "qtm"))
    "R U2 F'  (4q)\\n"
    """
    if solution is None:
        return "NO SOLUTION FOUND\n"
    unit = "q" if solution.metric == "qtm" else "f"
    lines = []
    for man in solution.maneuvers:
        text = format_maneuver(man)
        lines.append(f"{text}{'  ' if text else ''}({maneuver_length(man, solution.metric)}{unit})")
    return "\n".join(lines) + "\n"


# ASCII digits only (``\d`` would also match '３'), no more than an int64 holds
_LENGTH_RE = r"\(\s*([0-9]{1,18})\s*([fhqFHQ]|htm|qtm)\*?\s*\)\s*$"  # compiled on first use (re's cache)


def parse_solution(instance: Instance, text: str, source: str = "<solution>") -> Solution | None:
    """Read maneuvers, one per line, each optionally followed by ``(Nf)`` or ``(Nq)``.

    Raises:
        ParseError: a token that is not a move, or no maneuver at all.
    """
    if text.strip() == "NO SOLUTION FOUND":
        return None
    maneuvers = []
    claimed: list[tuple[int, str] | None] = []
    metric = "htm"
    for lineno, line in content_lines(text):
        match = re.search(_LENGTH_RE, line)
        if match:
            metric = "qtm" if match.group(2).lower() in ("q", "qtm") else "htm"
            claimed.append((int(match.group(1)), metric))
            line = line[: match.start()]
        else:
            claimed.append(None)
        maneuvers.append(parse_maneuver(line, source, lineno))
    if not maneuvers:
        raise ParseError(f"{source}:1: expected at least one maneuver line")
    return Solution(tuple(maneuvers), metric, tuple(claimed))

"""Maneuvers: read and written as ``R U2 F'``, their length in a metric, the moves of each metric
and the consecutive moves no canonical sequence has."""

from __future__ import annotations

import re

from puzzlesat.core import ParseError
from puzzlesat.domains.rubik.cube import FACES, Maneuver, Move

METRICS = ("htm", "qtm")

# Every position is at most 20 moves (HTM) from solved and published scrambles run to a few
# dozen moves; 10 000 moves take about 0.1 s to apply (a 10 MB maneuver took 26 s).
MAX_MANEUVER_MOVES = 10_000

_MOVE_RE = r"^([URFDLB])(2'|'2|2|'|3|)$"  # compiled on first use (re's cache)


def parse_maneuver(text: str, source: str = "<maneuver>", lineno: int = 1, limit: int = MAX_MANEUVER_MOVES) -> Maneuver:
    """Read a maneuver such as ``R U2 F'`` (also ``U2'``, ``U3`` and ``U'2``).

    >>> parse_maneuver("R U2 F'")
    ((1, 1), (0, 2), (2, 3))

    Args:
        text: the moves, separated by spaces.
        source: the file, for messages.
        lineno: the line, for messages.
        limit: the most moves accepted (what is left of :data:`MAX_MANEUVER_MOVES` when a
            maneuver runs over several lines).

    Raises:
        ParseError: a token that is not a move, or more than ``limit`` moves.
    """
    moves = []
    move_re = re.compile(_MOVE_RE)
    tokens = text.replace("(", " ").replace(")", " ").split()
    if len(tokens) > limit:
        raise ParseError(f"{source}:{lineno}: a maneuver longer than the limit of {MAX_MANEUVER_MOVES} moves")
    for token in tokens:
        match = move_re.match(token.replace("’", "'"))
        if not match:
            raise ParseError(f"{source}:{lineno}: expected a move like R, U2 or F', got {token!r}")
        face = FACES.index(match.group(1))
        turns = {"": 1, "2": 2, "2'": 2, "'2": 2, "'": 3, "3": 3}[match.group(2)]
        moves.append((face, turns))
    return tuple(moves)


def format_maneuver(maneuver: Maneuver) -> str:
    """Write a maneuver, ``U``, ``U2``, ``U'`` style.

    >>> format_maneuver(((1, 1), (0, 2), (2, 3)))
    "R U2 F'"
    """
    return " ".join(FACES[f] + ("", "2", "'")[t - 1] for f, t in maneuver)


def maneuver_length(maneuver: Maneuver, metric: str) -> int:
    """Length in the half-turn metric (every move 1) or quarter-turn metric (a half turn 2).

    >>> maneuver_length(parse_maneuver("R U2 F'"), "qtm")
    4
    """
    if metric == "qtm":
        return sum(2 if t == 2 else 1 for _, t in maneuver)
    return len(maneuver)


def simplify(maneuver: Maneuver) -> Maneuver:
    """Merge consecutive turns of the same face (``U U`` -> ``U2``, ``U U'`` -> nothing).

    >>> format_maneuver(simplify(parse_maneuver("U U' D R R")))
    'D R2'
    """
    out: list[Move] = []
    for face, turns in maneuver:
        if out and out[-1][0] == face:
            total = (out[-1][1] + turns) % 4
            out.pop()
            if total:
                out.append((face, total))
        else:
            out.append((face, turns % 4))
    return tuple(out)


def invert_maneuver(maneuver: Maneuver) -> Maneuver:
    """The maneuver that undoes ``maneuver``."""
    return tuple((f, 4 - t if t != 2 else 2) for f, t in reversed(maneuver))


def metric_moves(metric: str) -> tuple[Move, ...]:
    """The moves of a metric: HTM has 18 (face, 1|2|3), QTM has 12 (face, 1|3).

    >>> len(metric_moves("htm")), len(metric_moves("qtm"))
    (18, 12)
    """
    turns = (1, 2, 3) if metric == "htm" else (1, 3)
    return tuple((f, t) for f in range(6) for t in turns)


def forbidden_pairs(metric: str) -> list[tuple[int, int]]:
    """Consecutive move indices (into :func:`metric_moves`) that no canonical sequence has.

    A face never turns twice in a row (QTM: except ``X X`` for a half turn), and opposite
    faces turn in the order U before D, R before L, F before B.  In QTM ``X X X`` is
    forbidden as well (see :func:`forbidden_triples`).
    """
    moves = metric_moves(metric)
    out = []
    for a, (fa, ta) in enumerate(moves):
        for b, (fb, tb) in enumerate(moves):
            if fb == fa - 3:
                out.append((a, b))
            elif fb == fa and not (metric == "qtm" and ta == 1 and tb == 1):
                out.append((a, b))
    return out


def forbidden_triples(metric: str) -> list[tuple[int, int, int]]:
    """QTM only: three clockwise quarter turns of one face (= one counter-clockwise)."""
    if metric != "qtm":
        return []
    return [(a, a, a) for a, (_, t) in enumerate(metric_moves(metric)) if t == 1]

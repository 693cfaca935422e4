"""Rubik's cube (3x3x3): shortest solving maneuvers in the half-turn and quarter-turn metrics.

Conventions (Kociemba's cubie model).  Faces are ``U R F D L B`` (numbered 0..5); a move is
``(face, turns)`` with ``turns`` 1, 2 or 3 clockwise quarter turns, written ``U``, ``U2``,
``U'``.  The cube is a permutation of 8 corners and 12 edges with orientations:

- corners ``URF UFL ULB UBR DFR DLF DBL DRB`` (0..7), twist 0..2 counted clockwise from the
  U/D sticker;
- edges ``UR UF UL UB DR DF DL DB FR FL BL BR`` (0..11), flip 0..1.

``cp[i]`` is the corner sitting in position ``i`` (the "replaced by" convention), so applying
move ``m`` to cube ``c`` is the product ``c * m`` with ``(a*b).cp[i] = a.cp[b.cp[i]]``.

Facelets follow the 54-character Kociemba string: faces in the order U R F D L B, each read
row by row as on the usual net (U seen with B at the top, D with F at the top, the side
faces with U at the top).

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
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from puzzlesat.core import (
    SAT_SOLVERS,
    InvalidInstanceError,
    Option,
    ParseError,
    Puzzle,
    Result,
    Status,
    Strategy,
    check_length,
    content_lines,
)

if TYPE_CHECKING:
    from puzzlesat.core.horizon import HorizonOutcome

FACES = "URFDLB"
U, R, F, D, L, B = range(6)
CORNER_NAMES = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
EDGE_NAMES = ("UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR")
METRICS = ("htm", "qtm")

Move = tuple[int, int]
Maneuver = tuple[Move, ...]

# Every position is at most 20 moves (HTM) from solved and published scrambles run to a few
# dozen moves; 10 000 moves take about 0.1 s to apply (a 10 MB maneuver took 26 s).
MAX_MANEUVER_MOVES = 10_000
# a 10 000-move maneuver is about 30 kB of text: 100 kB leaves room for comments
MAX_INPUT_CHARS = 100_000


def _facelet(face: str, n: int) -> int:
    return FACES.index(face) * 9 + n - 1


# The facelets of each cubie position, the U/D sticker first, then clockwise.
CORNER_FACELETS = tuple(
    tuple(_facelet(f, n) for f, n in c)
    for c in (
        (("U", 9), ("R", 1), ("F", 3)),
        (("U", 7), ("F", 1), ("L", 3)),
        (("U", 1), ("L", 1), ("B", 3)),
        (("U", 3), ("B", 1), ("R", 3)),
        (("D", 3), ("F", 9), ("R", 7)),
        (("D", 1), ("L", 9), ("F", 7)),
        (("D", 7), ("B", 9), ("L", 7)),
        (("D", 9), ("R", 9), ("B", 7)),
    )
)
EDGE_FACELETS = tuple(
    tuple(_facelet(f, n) for f, n in e)
    for e in (
        (("U", 6), ("R", 2)),
        (("U", 8), ("F", 2)),
        (("U", 4), ("L", 2)),
        (("U", 2), ("B", 2)),
        (("D", 6), ("R", 8)),
        (("D", 2), ("F", 8)),
        (("D", 4), ("L", 8)),
        (("D", 8), ("B", 8)),
        (("F", 6), ("R", 4)),
        (("F", 4), ("L", 6)),
        (("B", 6), ("L", 4)),
        (("B", 4), ("R", 6)),
    )
)
CORNER_COLOURS = tuple(
    tuple(FACES.index(ch) for ch in name) for name in ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
)
EDGE_COLOURS = tuple(tuple(FACES.index(ch) for ch in name) for name in EDGE_NAMES)

# Singmaster (Reid) positions in the order of the notation; each names its faces.
SINGMASTER_EDGES = ("UF", "UR", "UB", "UL", "DF", "DR", "DB", "DL", "FR", "FL", "BR", "BL")
SINGMASTER_CORNERS = ("UFR", "URB", "UBL", "ULF", "DRF", "DFL", "DLB", "DBR")
SOLVED_SINGMASTER = " ".join(SINGMASTER_EDGES + SINGMASTER_CORNERS)
SOLVED_FACELETS = "".join(ch * 9 for ch in FACES)


@dataclass(frozen=True)
class Cube:
    """A cube state at the cubie level (see the module docstring for the conventions).

    >>> Cube.solved().apply(parse_maneuver("R U R' U'")).apply(parse_maneuver("U R U' R'")).is_solved
    True
    """

    cp: tuple[int, ...]
    co: tuple[int, ...]
    ep: tuple[int, ...]
    eo: tuple[int, ...]

    @staticmethod
    def solved() -> Cube:
        """The solved cube."""
        return Cube(tuple(range(8)), (0,) * 8, tuple(range(12)), (0,) * 12)

    @property
    def is_solved(self) -> bool:
        """True for the solved cube."""
        return self == SOLVED

    def __mul__(self, other: Cube) -> Cube:
        """The product ``self * other``: first ``self``, then ``other``."""
        acp, aco, aep, aeo = self.cp, self.co, self.ep, self.eo
        cp = tuple([acp[j] for j in other.cp])
        co = tuple([(aco[j] + k) % 3 for j, k in zip(other.cp, other.co, strict=True)])
        ep = tuple([aep[j] for j in other.ep])
        eo = tuple([aeo[j] ^ k for j, k in zip(other.ep, other.eo, strict=True)])
        return Cube(cp, co, ep, eo)

    def inverse(self) -> Cube:
        """The cube that undoes this one: ``c * c.inverse()`` is solved."""
        cp = [0] * 8
        co = [0] * 8
        ep = [0] * 12
        eo = [0] * 12
        for i in range(8):
            cp[self.cp[i]] = i
        for i in range(8):
            co[i] = (-self.co[cp[i]]) % 3
        for i in range(12):
            ep[self.ep[i]] = i
        for i in range(12):
            eo[i] = self.eo[ep[i]]
        return Cube(tuple(cp), tuple(co), tuple(ep), tuple(eo))

    def move(self, mv: Move) -> Cube:
        """The cube after one move ``(face, turns)``."""
        return self * move_cubes()[mv[0] * 3 + mv[1] - 1]

    def apply(self, maneuver: Maneuver) -> Cube:
        """The cube after a whole maneuver."""
        cube = self
        for mv in maneuver:
            cube = cube.move(mv)
        return cube

    def problems(self) -> list[str]:
        """Why this cube cannot be reached from the solved one; empty if it can.

        >>> Cube((0, 1, 2, 3, 4, 5, 6, 7), (1,) + (0,) * 7, tuple(range(12)), (0,) * 12).problems()
        ['a corner is twisted: the corner twists add up to 1, not 0 (mod 3)']
        """
        out = []
        for kind, perm, names in (("corner", self.cp, CORNER_NAMES), ("edge", self.ep, EDGE_NAMES)):
            seen = sorted(set(perm))
            if seen != list(range(len(names))):
                missing = [names[i] for i in range(len(names)) if i not in perm]
                twice = sorted({names[p] for p in perm if 0 <= p < len(names) and perm.count(p) > 1})
                out.append(
                    f"every {kind} must appear once: "
                    + (f"{', '.join(twice)} appear(s) twice" if twice else "")
                    + (", " if twice and missing else "")
                    + (f"{', '.join(missing)} missing" if missing else "")
                )
        if out:
            return out
        twist = sum(self.co) % 3
        if twist:
            out.append(f"a corner is twisted: the corner twists add up to {twist}, not 0 (mod 3)")
        flip = sum(self.eo) % 2
        if flip:
            out.append("an edge is flipped: the edge flips add up to 1, not 0 (mod 2)")
        cpar, epar = parity(self.cp), parity(self.ep)
        if cpar != epar:
            out.append(
                f"two pieces are swapped: the corner permutation is {'odd' if cpar else 'even'} "
                f"but the edge permutation is {'odd' if epar else 'even'}"
            )
        return out

    def to_facelets(self) -> str:
        """The 54-character Kociemba facelet string (URFDLB).

        >>> Cube.solved().to_facelets() == SOLVED_FACELETS
        True
        """
        f = list(SOLVED_FACELETS)
        for i in range(8):
            for k in range(3):
                f[CORNER_FACELETS[i][(k + self.co[i]) % 3]] = FACES[CORNER_COLOURS[self.cp[i]][k]]
        for i in range(12):
            for k in range(2):
                f[EDGE_FACELETS[i][(k + self.eo[i]) % 2]] = FACES[EDGE_COLOURS[self.ep[i]][k]]
        return "".join(f)

    def to_singmaster(self) -> str:
        """The Singmaster (Reid) cubie string.

        >>> Cube.solved().to_singmaster() == SOLVED_SINGMASTER
        True
        """
        return facelets_to_singmaster(self.to_facelets())


SOLVED = Cube.solved()


def parity(perm: tuple[int, ...]) -> int:
    """0 for an even permutation, 1 for an odd one.

    >>> parity((1, 0, 2))
    1
    """
    seen = [False] * len(perm)
    swaps = 0
    for i in range(len(perm)):
        j = i
        length = 0
        while not seen[j]:
            seen[j] = True
            j = perm[j]
            length += 1
        if length:
            swaps += length - 1
    return swaps % 2


def _basic_moves() -> list[Cube]:
    """The six clockwise quarter turns U R F D L B as cubes."""
    cu, cd = (3, 0, 1, 2, 4, 5, 6, 7), (0, 1, 2, 3, 5, 6, 7, 4)
    return [
        Cube(cu, (0,) * 8, (3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11), (0,) * 12),
        Cube((4, 1, 2, 0, 7, 5, 6, 3), (2, 0, 0, 1, 1, 0, 0, 2), (8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0), (0,) * 12),
        Cube(
            (1, 5, 2, 3, 0, 4, 6, 7),
            (1, 2, 0, 0, 2, 1, 0, 0),
            (0, 9, 2, 3, 4, 8, 6, 7, 1, 5, 10, 11),
            (0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0),
        ),
        Cube(cd, (0,) * 8, (0, 1, 2, 3, 5, 6, 7, 4, 8, 9, 10, 11), (0,) * 12),
        Cube((0, 2, 6, 3, 4, 1, 5, 7), (0, 1, 2, 0, 0, 2, 1, 0), (0, 1, 10, 3, 4, 5, 9, 7, 8, 2, 6, 11), (0,) * 12),
        Cube(
            (0, 1, 3, 7, 4, 5, 2, 6),
            (0, 0, 1, 2, 0, 0, 2, 1),
            (0, 1, 2, 11, 4, 5, 6, 10, 8, 9, 3, 7),
            (0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1),
        ),
    ]


@functools.cache
def move_cubes() -> tuple[Cube, ...]:
    """The 18 moves as cubes, index ``face * 3 + turns - 1``; built on first use."""
    out = []
    for base in _basic_moves():
        cube = SOLVED
        for _ in range(3):
            cube = cube * base
            out.append(cube)
    return tuple(out)


def __getattr__(name: str) -> Any:
    # MOVE_CUBES is built on first access, not at import
    if name == "MOVE_CUBES":
        return move_cubes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------- maneuvers

_MOVE_RE = re.compile(r"^([URFDLB])(2'|'2|2|'|3|)$")


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
    tokens = text.replace("(", " ").replace(")", " ").split()
    if len(tokens) > limit:
        raise ParseError(f"{source}:{lineno}: a maneuver longer than the limit of {MAX_MANEUVER_MOVES} moves")
    for token in tokens:
        match = _MOVE_RE.match(token.replace("’", "'"))
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


def bounded_answer(outcome: HorizonOutcome, max_depth: int, stats: dict[str, Any], wall: float) -> Result:
    """The answer of a bounded model (cpsat-bmc, cnf-bmc) raised up to ``max_depth`` moves.

    Every length up to the cap refuted proves nothing beyond the cap: that is UNKNOWN, not INFEASIBLE.
    """
    if outcome.status is Status.INFEASIBLE:
        return Result(
            Status.UNKNOWN, None, None, wall, stats, message=f"no solution within {max_depth} moves (--max-depth)"
        )
    objective = outcome.solution.length if outcome.solution is not None else None
    return Result(outcome.status, outcome.solution, objective, wall, stats, message=outcome.message)


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


# ---------------------------------------------------------------------------- facelets


def facelets_to_cube(facelets: str, source: str = "<input>", lineno: int = 1) -> Cube:
    """Read a 54-character URFDLB facelet string into a cube (legality not checked here).

    Raises:
        ParseError: not 54 letters from URFDLB.
        InvalidInstanceError: a wrong centre, or stickers that form no cubie.
    """
    if len(facelets) != 54 or any(ch not in FACES for ch in facelets):
        raise ParseError(
            f"{source}:{lineno}: expected a facelet string of 54 letters from URFDLB, "
            f"got {len(facelets)} characters: {facelets!r}"
        )
    where = f"{source}:{lineno}"
    for i, ch in enumerate(FACES):
        if facelets[4 + 9 * i] != ch:
            raise InvalidInstanceError(f"{where}: the centre of face {ch} must be {ch}, got {facelets[4 + 9 * i]!r}")
    # colour counts are not checked here: a cubie missing or twice (reported by
    # Cube.problems with its name) is the clearer message for the same mistake
    col = [FACES.index(ch) for ch in facelets]
    cp, co, ep, eo = [0] * 8, [0] * 8, [0] * 12, [0] * 12
    for i in range(8):
        stickers = [col[f] for f in CORNER_FACELETS[i]]
        found = False
        for ori in range(3):
            if stickers[ori] in (U, D):
                c1, c2 = stickers[(ori + 1) % 3], stickers[(ori + 2) % 3]
                for j in range(8):
                    if CORNER_COLOURS[j] == (stickers[ori], c1, c2):
                        cp[i], co[i], found = j, ori, True
                break
        if not found:
            raise InvalidInstanceError(
                f"{where}: the stickers at corner {CORNER_NAMES[i]} "
                f"({''.join(FACES[s] for s in stickers)}) form no corner cubie"
            )
    for i in range(12):
        a, b = (col[f] for f in EDGE_FACELETS[i])
        for j in range(12):
            if EDGE_COLOURS[j] == (a, b):
                ep[i], eo[i] = j, 0
                break
            if EDGE_COLOURS[j] == (b, a):
                ep[i], eo[i] = j, 1
                break
        else:
            raise InvalidInstanceError(
                f"{where}: the stickers at edge {EDGE_NAMES[i]} ({FACES[a]}{FACES[b]}) form no edge cubie"
            )
    return Cube(tuple(cp), tuple(co), tuple(ep), tuple(eo))


def _singmaster_facelets() -> list[tuple[int, ...]]:
    """For each Singmaster token, the facelet indices in the order its position names faces."""
    out = []
    for name in SINGMASTER_EDGES + SINGMASTER_CORNERS:
        if len(name) == 2:
            pos = next(i for i, n in enumerate(EDGE_NAMES) if set(n) == set(name))
            table = EDGE_FACELETS[pos]
            faces = EDGE_NAMES[pos]
        else:
            pos = next(i for i, n in enumerate(CORNER_NAMES) if set(n) == set(name))
            table = CORNER_FACELETS[pos]
            faces = CORNER_NAMES[pos]
        # every facelet of a position lies on the face named by the same letter
        out.append(tuple(table[faces.index(ch)] for ch in name))
    return out


SINGMASTER_FACELETS = _singmaster_facelets()


def facelets_to_singmaster(facelets: str) -> str:
    """Convert a facelet string to Singmaster notation."""
    return " ".join("".join(facelets[f] for f in fs) for fs in SINGMASTER_FACELETS)


def singmaster_to_facelets(tokens: list[str], source: str = "<input>", lineno: int = 1) -> str:
    """Convert 20 Singmaster tokens to a facelet string.

    Raises:
        ParseError: wrong token count or shape.
    """
    if len(tokens) != 20:
        raise ParseError(f"{source}:{lineno}: Singmaster notation has 20 cubies, got {len(tokens)} tokens")
    f = list(SOLVED_FACELETS)
    for k, (token, facelets) in enumerate(zip(tokens, SINGMASTER_FACELETS, strict=True)):
        want = 2 if k < 12 else 3
        if len(token) != want or any(ch not in FACES for ch in token):
            where = SINGMASTER_EDGES[k] if k < 12 else SINGMASTER_CORNERS[k - 12]
            raise ParseError(
                f"{source}:{lineno}: token {k + 1} (position {where}) must be {want} letters from URFDLB, got {token!r}"
            )
        for ch, idx in zip(token, facelets, strict=True):
            f[idx] = ch
    return "".join(f)


def position_to_facelets(text: str, source: str = "<input>", lineno: int = 1) -> str:
    """Convert the seed's position form ``U:xxxxxxxxx R:... F:... D:... L:... B:...``.

    Colours are any letters; each face's centre sticker gives the colour of that face.

    Raises:
        ParseError: missing or repeated faces, wrong sticker counts, or a colour used by no
            centre.
    """
    faces: dict[str, str] = {}
    for token in text.split():
        name, sep, stickers = token.partition(":")
        name = name.upper()
        if not sep or name not in FACES or len(name) != 1:
            raise ParseError(f"{source}:{lineno}: expected 'FACE:stickers' with FACE in URFDLB, got {token!r}")
        if name in faces:
            raise ParseError(f"{source}:{lineno}: face {name} given twice")
        if len(stickers) != 9:
            raise ParseError(f"{source}:{lineno}: face {name} needs 9 stickers, got {len(stickers)} in {token!r}")
        faces[name] = stickers.upper()
    missing = [f for f in FACES if f not in faces]
    if missing:
        raise ParseError(f"{source}:{lineno}: face(s) {', '.join(missing)} missing from the position")
    colour_of = {faces[f][4]: f for f in FACES}
    if len(colour_of) != 6:
        raise ParseError(
            f"{source}:{lineno}: the six centres must have six different colours, got "
            + "".join(faces[f][4] for f in FACES)
        )
    out = []
    for f in FACES:
        for ch in faces[f]:
            if ch not in colour_of:
                raise ParseError(f"{source}:{lineno}: colour {ch!r} on face {f} is the colour of no centre")
            out.append(colour_of[ch])
    return "".join(out)


def facelets_to_position(facelets: str) -> str:
    """Write a facelet string in the seed's position form (face letters as colours)."""
    return " ".join(f"{f}:{facelets[9 * i : 9 * i + 9]}" for i, f in enumerate(FACES))


# ---------------------------------------------------------------------------- instance I/O


@dataclass(frozen=True)
class Instance:
    """A position to solve and the form it was given in.

    Attributes:
        cube: the position.
        form: ``maneuver``, ``position``, ``singmaster`` or ``facelets``.
        maneuver: the scramble, when the position was given as a maneuver.
    """

    cube: Cube
    form: str = "singmaster"
    maneuver: Maneuver | None = None

    def _repr_svg_(self) -> str:
        """The picture a notebook shows (:mod:`puzzlesat.domains.rubik_svg`)."""
        return PUZZLE.draw_svg(self)


@dataclass(frozen=True)
class Solution:
    """Solving maneuvers (the first is the answer; more with ``--all``/``--extra``).

    Attributes:
        maneuvers: each one solves the position.
        metric: ``htm`` or ``qtm``, the metric lengths are counted in.
        claimed: from a parsed answer, each maneuver's length annotation ``(Nf)``/``(Nq)``
            as (length, metric), or None where the line has none; empty when not parsed.
    """

    maneuvers: tuple[Maneuver, ...]
    metric: str = "htm"
    claimed: tuple[tuple[int, str] | None, ...] = ()

    @property
    def length(self) -> int:
        """Length of the first maneuver in the solution's metric."""
        return maneuver_length(self.maneuvers[0], self.metric)


def parse(text: str, source: str = "<input>") -> Instance:
    """Read a position in any of the four input forms (auto-detected).

    >>> parse("R U R' U'").form
    'maneuver'
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
_LENGTH_RE = re.compile(r"\(\s*([0-9]{1,18})\s*([fhqFHQ]|htm|qtm)\*?\s*\)\s*$")


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
        match = _LENGTH_RE.search(line)
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


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Apply every maneuver to the position; each must leave the cube solved.

    >>> verify(parse("R U"), Solution((parse_maneuver("U' R'"),)))
    []
    """
    problems = []
    if not solution.maneuvers:
        return ["no maneuver given"]
    if solution.metric not in METRICS:
        problems.append(f"unknown metric {solution.metric!r}")
    for k, man in enumerate(solution.maneuvers):
        if not instance.cube.apply(man).is_solved:
            problems.append(f"maneuver {k + 1} ({format_maneuver(man) or 'empty'}) does not solve the cube")
    for k, (man, claim) in enumerate(zip(solution.maneuvers, solution.claimed, strict=False)):
        if claim is not None and claim[0] != maneuver_length(man, claim[1]):
            unit = "q" if claim[1] == "qtm" else "f"
            problems.append(
                f"maneuver {k + 1} is annotated ({claim[0]}{unit}) but is "
                f"{maneuver_length(man, claim[1])} moves long in {claim[1].upper()}"
            )
    if len(set(solution.maneuvers)) != len(solution.maneuvers):
        problems.append("the same maneuver is listed twice")
    return problems


def random_cube(rng: random.Random) -> Cube:
    """A uniformly random reachable cube."""
    while True:
        cp = list(range(8))
        ep = list(range(12))
        rng.shuffle(cp)
        rng.shuffle(ep)
        if parity(tuple(cp)) == parity(tuple(ep)):
            break
    co = [rng.randrange(3) for _ in range(7)]
    co.append((-sum(co)) % 3)
    eo = [rng.randrange(2) for _ in range(11)]
    eo.append(sum(eo) % 2)
    return Cube(tuple(cp), tuple(co), tuple(ep), tuple(eo))


def random_maneuver(length: int, rng: random.Random) -> Maneuver:
    """A random maneuver without two turns of one face in a row."""
    moves: list[Move] = []
    while len(moves) < length:
        face = rng.randrange(6)
        if moves and moves[-1][0] == face:
            continue
        moves.append((face, rng.randint(1, 3)))
    return tuple(moves)


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A scramble of ``moves`` random turns (a maneuver), or a uniformly random position.

    Args:
        options: ``moves`` (scramble length, 0 for the solved cube; absent = a uniformly random
            position, written in Singmaster notation).
        seed: the random seed.
    """
    rng = random.Random(seed)
    moves = options.get("moves")
    if moves is not None and moves < 0:
        raise InvalidInstanceError(f"--moves {moves}: expected at least 0")
    if moves == 0:  # a scramble of no moves: the solved cube (an empty maneuver reads as no input)
        return Instance(SOLVED, "singmaster")
    if moves is not None:
        man = random_maneuver(moves, rng)
        return Instance(SOLVED.apply(man), "maneuver", man)
    return Instance(random_cube(rng), "singmaster")


# the bounded models solve by raising N themselves: this one is for export
HORIZON = Option("horizon", int, 6, "export: the question 'solvable in N moves?'", low=0)
METRIC = Option("metric", str, "htm", "htm (half turns count 1) or qtm (half turns count 2)", choices=METRICS)
# the longest maneuver each strategy looks for when --max-depth is not given, (htm, qtm):
# native-ida reaches God's number, a bounded model asks a solver one question per length
# and stops where those questions grow too hard
MAX_DEPTH = {"native-ida": (20, 26), "cpsat-bmc": (10, 12), "cnf-bmc": (12, 14)}
MAX_DEPTH_OPTION = Option(
    "max_depth",
    int,
    None,
    "give up beyond this length (default: "
    + ", ".join(f"{name} {htm} htm / {qtm} qtm" for name, (htm, qtm) in MAX_DEPTH.items())
    + ")",
    low=0,
)


def metric_of(options: dict[str, Any]) -> str:
    """The metric a run asks for (``--metric``), lower case; the declared default when not given."""
    return str(options.get("metric") or METRIC.default).lower()


def max_depth_of(strategy: str, options: dict[str, Any], metric: str) -> int:
    """``--max-depth``, or the strategy's default for the metric (:data:`MAX_DEPTH`)."""
    given = options.get("max_depth")
    if given is not None:
        return int(given)
    htm, qtm = MAX_DEPTH[strategy]
    return qtm if metric == "qtm" else htm


# cpsat-bmc's options (models/rubik.py)
BMC_OPTIONS = (HORIZON, Option("canonical", bool, True, "only canonical move sequences (redundant)"))

PUZZLE = Puzzle(
    name="rubik",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.rubik:generate",
    write_instance=write_instance,
    draw="puzzlesat.domains.rubik_svg:draw",
    strategies=(
        Strategy(
            "native-ida",
            "puzzlesat.native.rubik:solve",
            "optimal: solutions up to 10 moves (12 in QTM) by bidirectional breadth-first search in numpy "
            "(no tables, nothing to compile), longer ones by IDA* in numba: phase-1 tables on three axes + corner "
            "table (Reid, Kociemba; or Korf's pattern databases with -O tables=full), split by first moves over "
            "--workers",
            options=(
                Option("progress", bool, True, "report the progress of long searches and table builds"),
                Option(
                    "plain_depth",
                    int,
                    None,
                    "the longest solution the breadth-first search looks for before the IDA* "
                    "(default 10 htm / 12 qtm; 0: none)",
                    low=0,
                ),
            ),
            modes=("all", "extra"),
        ),
        Strategy(
            "cpsat-bmc",
            "puzzlesat.models.rubik:solve",
            "CP-SAT bounded model 'solvable in N moves?', N = 0, 1, 2, ... (shallow positions)",
            model="puzzlesat.models.rubik:build_model",
            options=BMC_OPTIONS,
        ),
        Strategy(
            "cnf-bmc",
            "puzzlesat.encoders.rubik:solve",
            "CNF bounded model 'solvable in N moves?', N = 0, 1, 2, ...; any pysat solver",
            variants=SAT_SOLVERS,
            default_variant="cadical195",
            encoder="puzzlesat.encoders.rubik:encode",
            options=(HORIZON,),
        ),
    ),
    portfolio=("native-ida", "cnf-bmc:cadical195"),
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

"""The cube at the cubie level (Kociemba's model): faces, cubies, facelets, moves as cubes.

Faces are ``U R F D L B`` (numbered 0..5); a move is ``(face, turns)`` with ``turns`` 1, 2 or
3 clockwise quarter turns.  The cube is a permutation of 8 corners and 12 edges with
orientations:

- corners ``URF UFL ULB UBR DFR DLF DBL DRB`` (0..7), twist 0..2 counted clockwise from the
  U/D sticker;
- edges ``UR UF UL UB DR DF DL DB FR FL BL BR`` (0..11), flip 0..1.

``cp[i]`` is the corner sitting in position ``i`` (the "replaced by" convention), so applying
move ``m`` to cube ``c`` is the product ``c * m`` with ``(a*b).cp[i] = a.cp[b.cp[i]]``.

Facelets follow the 54-character Kociemba string: faces in the order U R F D L B, each read
row by row as on the usual net (U seen with B at the top, D with F at the top, the side
faces with U at the top).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

FACES = "URFDLB"
U, R, F, D, L, B = range(6)
CORNER_NAMES = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
EDGE_NAMES = ("UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR")

Move = tuple[int, int]
Maneuver = tuple[Move, ...]


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

    >>> from puzzlesat.domains.rubik.maneuvers import parse_maneuver
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

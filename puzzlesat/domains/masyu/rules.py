"""The local rules of Masyu as clauses over named literals, shared by the CNF and CP-SAT formulations.

:func:`rule_clauses` writes every cell's degree (0 or 2), the circles and their rules, and
the 2x2 stray loop as clauses; :func:`cut_clause` is the clause that cuts off one piece of a
model that splits into several loops.  The pysat encodings of :mod:`puzzlesat.encoders.masyu`
and the CP-SAT models of :mod:`puzzlesat.models.masyu` both read them, so the formulations
cannot drift apart.  A literal is ``(key, positive)``, the key naming an edge
``("h"|"v", r, c)`` or a used cell ``("u", r, c)``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from itertools import combinations

from puzzlesat.domains.masyu.instance import BLACK, Cell, EdgeKey, Instance, edge_cells

Key = tuple[Hashable, ...]
Lit = tuple[Key, bool]  # (named variable, True for the positive literal)


def used(cell: Cell) -> Key:
    """The key of the 'loop passes this cell' variable."""
    return ("u", cell[0], cell[1])


class Grid:
    """Edge accessors that resolve off-board edges to None (a false constant).

    The tables are built once, so rule generation does dictionary look-ups only.
    """

    STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self._edges = Instance(rows, cols).edges()
        self._table: dict[tuple[int, int, str], EdgeKey] = {}
        for key in self._edges:
            (r1, c1), (r2, c2) = edge_cells(key)
            if key[0] == "h":
                self._table[r1, c1, "R"] = key
                self._table[r2, c2, "L"] = key
            else:
                self._table[r1, c1, "D"] = key
                self._table[r2, c2, "U"] = key
        self._incident = {
            (r, c): [e for d in "UDLR" if (e := self._table.get((r, c, d))) is not None]
            for r in range(rows)
            for c in range(cols)
        }

    def edge(self, r: int, c: int, d: str) -> EdgeKey | None:
        """The edge leaving cell (r, c) in direction U/D/L/R, None off the board."""
        return self._table.get((r, c, d))

    def beyond(self, r: int, c: int, d: str) -> EdgeKey | None:
        """The edge two steps away: from the neighbour in direction d, onwards in d."""
        if (r, c, d) not in self._table:
            return None
        dr, dc = self.STEPS[d]
        return self._table.get((r + dr, c + dc, d))

    def incident(self, r: int, c: int) -> list[EdgeKey]:
        """The on-board edges around a cell."""
        return self._incident[r, c]

    def edges(self) -> list[EdgeKey]:
        """All edges of the board."""
        return list(self._edges)


def _clause(lits: Iterable[tuple[EdgeKey | Key | None, bool]]) -> list[Lit] | None:
    """Drop false constants (off-board edges taken positively); None if a literal is true."""
    out: list[Lit] = []
    for key, positive in lits:
        if key is None:
            if not positive:
                return None  # "not off-board edge" is true: the clause holds
            continue
        out.append((key, positive))
    return out


def degree_clauses(grid: Grid) -> Iterator[list[Lit]]:
    """Every cell has degree 0 or 2, and ``u`` says whether it is used."""
    for r in range(grid.rows):
        for c in range(grid.cols):
            inc = grid.incident(r, c)
            u = used((r, c))
            yield [(u, False), *((e, True) for e in inc)]
            for e in inc:
                yield [(e, False), (u, True)]
                # degree is not 1: an edge in use needs a second one
                yield [(e, False), *((f, True) for f in inc if f != e)]
            # degree is at most 2
            for trio in combinations(inc, 3):
                yield [(e, False) for e in trio]


def circle_clauses(grid: Grid, cell: Cell, colour: int) -> Iterator[list[Lit]]:
    """The rule of one circle, given that the cell is used (its ``u`` is forced elsewhere)."""
    r, c = cell
    e = {d: grid.edge(r, c, d) for d in "UDLR"}
    far = {d: grid.beyond(r, c, d) for d in "UDLR"}
    if colour == BLACK:
        # black circle: turn here, and go straight on through the next cell on both arms
        for a, b in (("L", "R"), ("U", "D")):
            cl = _clause([(e[a], False), (e[b], False)])
            if cl is not None:
                yield cl
        for d in "UDLR":
            cl = _clause([(e[d], False), (far[d], True)])
            if cl is not None:
                yield cl
    else:
        # white circle: straight through ...
        for a, b in (("L", "R"), ("R", "L"), ("U", "D"), ("D", "U")):
            cl = _clause([(e[a], False), (e[b], True)])
            if cl is not None:
                yield cl
        # ... and a turn in at least one of the two cells beside it on the loop
        for a, b in (("L", "R"), ("U", "D")):
            cl = _clause([(e[a], False), (e[b], False), (far[a], False), (far[b], False)])
            if cl is not None:
                yield cl


def small_loop_clauses(instance: Instance) -> Iterator[list[Lit]]:
    """No loop around a single 2x2 block of cells unless it could hold every circle."""
    circles = set(instance.circles)
    for r in range(instance.rows - 1):
        for c in range(instance.cols - 1):
            if circles - {(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)}:
                yield [(("h", r, c), False), (("h", r + 1, c), False), (("v", r, c), False), (("v", r, c + 1), False)]


def rule_clauses(instance: Instance) -> Iterator[list[Lit]]:
    """All local rules of an instance: degrees, circles used, circle rules, no 2x2 stray loop."""
    grid = Grid(instance.rows, instance.cols)
    yield from degree_clauses(grid)
    yield from small_loop_clauses(instance)
    for cell in instance.circles:
        yield [(used(cell), True)]
        yield from circle_clauses(grid, cell, instance.clue(*cell))


def cut_clause(instance_circles: frozenset[Cell], loop: list[Cell], outside: list[Cell], grid: Grid) -> list[Lit]:
    """The answer crosses the boundary of ``loop``'s cells if it holds cells on both sides.

    One cell inside and one outside are chosen (circles when there are, which are always
    used, so their literals drop out); the clause is valid for every single loop.
    """
    inside = set(loop)
    a = next((cell for cell in loop if cell in instance_circles), loop[0])
    b = next((cell for cell in outside if cell in instance_circles), outside[0])
    lits: list[Lit] = []
    if a not in instance_circles:
        lits.append((used(a), False))
    if b not in instance_circles:
        lits.append((used(b), False))
    for r, c in loop:
        for e in grid.incident(r, c):
            x, y = edge_cells(e)
            if (x in inside) != (y in inside):
                lits.append((e, True))
    return lits

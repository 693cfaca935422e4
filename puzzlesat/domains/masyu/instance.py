"""Masyu's instance and solution: a grid with circles, and a loop as cells or edges."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from puzzlesat.core import load_target

EMPTY, WHITE, BLACK = 0, 1, 2
STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
Cell = tuple[int, int]
EdgeKey = tuple[str, int, int]


@dataclass(frozen=True)
class Instance:
    """A ``rows x cols`` grid and its circles (0-based cells, sorted).

    >>> inst = Instance(2, 3, black=((0, 0),), white=((1, 1),))
    >>> inst.clue(0, 0), inst.clue(1, 1), inst.clue(1, 2)
    (2, 1, 0)
    """

    rows: int
    cols: int
    black: tuple[Cell, ...] = ()
    white: tuple[Cell, ...] = ()

    def _repr_svg_(self) -> str:
        """The grid and its circles, as a notebook shows them (:mod:`puzzlesat.domains.masyu.svg`)."""
        return load_target("puzzlesat.domains.masyu:PUZZLE").draw_svg(self)  # type: ignore[no-any-return]

    def clue(self, r: int, c: int) -> int:
        """EMPTY, WHITE or BLACK for one cell."""
        return self.grid[r * self.cols + c]

    @functools.cached_property
    def grid(self) -> tuple[int, ...]:
        """Row-major clue codes (0 empty, 1 white, 2 black), as puzz.link numbers them."""
        cells = [EMPTY] * (self.rows * self.cols)
        for r, c in self.white:
            cells[r * self.cols + c] = WHITE
        for r, c in self.black:
            cells[r * self.cols + c] = BLACK
        return tuple(cells)

    @property
    def circles(self) -> tuple[Cell, ...]:
        """Every circled cell, sorted."""
        return tuple(sorted(self.black + self.white))

    def edges(self) -> list[EdgeKey]:
        """Every edge of the grid: horizontal ones row by row, then vertical ones."""
        hs = [("h", r, c) for r in range(self.rows) for c in range(self.cols - 1)]
        vs = [("v", r, c) for r in range(self.rows - 1) for c in range(self.cols)]
        return hs + vs

    def has_edge(self, key: EdgeKey) -> bool:
        """True when the edge lies on the board."""
        kind, r, c = key
        if kind == "h":
            return 0 <= r < self.rows and 0 <= c < self.cols - 1
        return 0 <= r < self.rows - 1 and 0 <= c < self.cols

    def cell_edges(self, r: int, c: int) -> dict[str, EdgeKey | None]:
        """The four edges around a cell by direction U/D/L/R; None where the board ends."""
        found: dict[str, EdgeKey | None] = {
            "U": ("v", r - 1, c),
            "D": ("v", r, c),
            "L": ("h", r, c - 1),
            "R": ("h", r, c),
        }
        return {d: (k if k is not None and self.has_edge(k) else None) for d, k in found.items()}

    def transposed(self) -> Instance:
        """The mirror image in the main diagonal (a symmetry of the rules)."""
        return Instance(
            self.cols,
            self.rows,
            tuple(sorted((c, r) for r, c in self.black)),
            tuple(sorted((c, r) for r, c in self.white)),
        )


@dataclass(frozen=True)
class Solution:
    """A loop: its start cell (0-based) and the moves that walk it back to the start.

    >>> Solution((0, 0), "RDLU").cells()
    [(0, 0), (0, 1), (1, 1), (1, 0)]
    """

    start: Cell
    moves: str

    def cells(self) -> list[Cell]:
        """The cells in walking order, start first, the return to the start left out."""
        r, c = self.start
        out = [(r, c)]
        for move in self.moves[:-1]:
            dr, dc = STEP[move]
            r, c = r + dr, c + dc
            out.append((r, c))
        return out

    def edge_keys(self) -> set[EdgeKey]:
        """The edges the loop uses (assumes valid moves)."""
        keys: set[EdgeKey] = set()
        r, c = self.start
        for move in self.moves:
            dr, dc = STEP[move]
            nr, nc = r + dr, c + dc
            keys.add(edge_between((r, c), (nr, nc)))
            r, c = nr, nc
        return keys


def edge_between(a: Cell, b: Cell) -> EdgeKey:
    """The key of the edge joining two orthogonal neighbours.

    >>> edge_between((2, 3), (1, 3))
    ('v', 1, 3)
    """
    (r1, c1), (r2, c2) = sorted((a, b))
    return ("h", r1, c1) if r1 == r2 else ("v", r1, c1)


def edge_cells(key: EdgeKey) -> tuple[Cell, Cell]:
    """The two cells an edge joins."""
    kind, r, c = key
    return ((r, c), (r, c + 1)) if kind == "h" else ((r, c), (r + 1, c))


def loops_of(edges: Iterable[EdgeKey]) -> list[list[Cell]]:
    """Split a set of edges in which every cell has degree 0 or 2 into its cycles.

    Cells of degree other than 2 end a path; such paths are returned as well, so callers
    can treat every component alike.

    >>> loops_of([("h", 0, 0), ("v", 0, 0), ("v", 0, 1), ("h", 1, 0)])
    [[(0, 0), (0, 1), (1, 1), (1, 0)]]
    """
    adjacency: dict[Cell, list[Cell]] = {}
    for key in edges:
        a, b = edge_cells(key)
        adjacency.setdefault(a, []).append(b)
        adjacency.setdefault(b, []).append(a)
    seen: set[Cell] = set()
    components: list[list[Cell]] = []
    for first in sorted(adjacency):
        if first in seen:
            continue
        stack, comp = [first], []
        seen.add(first)
        while stack:
            cell = stack.pop()
            comp.append(cell)
            for nxt in adjacency[cell]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        components.append(_walk_order(comp, adjacency))
    return components


def _walk_order(comp: list[Cell], adjacency: dict[Cell, list[Cell]]) -> list[Cell]:
    """A cycle's cells in walking order from its top-left cell, first step to the right."""
    if any(len(adjacency[cell]) != 2 for cell in comp):
        return sorted(comp)
    start = min(comp)
    nbrs = sorted(adjacency[start], key=lambda cell: (cell[0] != start[0], cell))
    order, prev, cur = [start], start, nbrs[0]
    while cur != start:
        order.append(cur)
        a, b = adjacency[cur]
        prev, cur = cur, (b if a == prev else a)
    return order


def solution_from_cycle(cycle: list[Cell]) -> Solution:
    """The Solution that walks a cycle of cells (in order) from its first cell."""
    moves = []
    names = {v: k for k, v in STEP.items()}
    for i, (r, c) in enumerate(cycle):
        nr, nc = cycle[(i + 1) % len(cycle)]
        moves.append(names[(nr - r, nc - c)])
    return Solution(cycle[0], "".join(moves))


def solution_from_edges(edges: Iterable[EdgeKey]) -> Solution:
    """The canonical Solution of a single loop given as edges: top-left cell, first move R.

    Raises:
        InvalidSolutionError-like ValueError: the edges are not exactly one loop.
    """
    loops = loops_of(edges)
    if len(loops) != 1:
        raise ValueError(f"expected one loop, got {len(loops)} components")
    return solution_from_cycle(loops[0])

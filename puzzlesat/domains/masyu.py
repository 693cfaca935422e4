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
"""

from __future__ import annotations

import functools
import math
import random
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from puzzlesat.core import (
    InvalidInstanceError,
    Limits,
    Option,
    ParseError,
    Puzzle,
    Result,
    Status,
    Strategy,
    check_length,
    is_int,
)
from puzzlesat.core.uniqueness import record_uniqueness

NO_SOLUTION = "NO SOLUTION"
EMPTY, WHITE, BLACK = 0, 1, 2
MOVES_PER_LINE = 40
STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
SOLVERS = ("cadical195", "cadical153", "glucose4", "glucose3", "maplechrono", "minisat22", "cadical300")
FULL_SOLVERS = ("cadical195", "kissat404", "cadical153", "glucose4", "maplechrono", "minisat22", "cadical300")
PZPR_DIGITS = "0123456789abcdefghijklmnopq"  # base 27: three cells per character, weights 9, 3, 1
# The complete encodings grow faster than the cells (cnf-rank: a binary rank per cell; a
# 1000x1000 grid took 5.6 GB): the cnf-rank encoding measured 165 MB at 60x60 and 481 MB at
# 100x100 (cpsat-circuit 170 MB).  The largest public puzzles are 40x58 and 35x65.
MAX_CELLS = 10_000
MAX_SIDE = 1000
# a grid of MAX_CELLS cells, every one a circle, is about 100 kB in the challenge format
MAX_INPUT_CHARS = 1_000_000

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
        """The grid and its circles, as a notebook shows them (:mod:`puzzlesat.domains.masyu_svg`)."""
        return PUZZLE.draw_svg(self)

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


def presolve(instance: Instance, limits: Limits) -> Result | None:
    """The engine's answer before any strategy: :func:`trivial_answer` for a grid without
    circles or too thin for a loop, else None (a strategy searches)."""
    if instance.circles and instance.rows >= 2 and instance.cols >= 2:
        return None
    return trivial_answer(instance, time.perf_counter(), bool(limits.options.get("unique")))


def trivial_answer(instance: Instance, start: float, unique: bool = False) -> Result:
    """The answer every strategy gives without search: no circles, or a grid too thin for a loop.

    Without circles any 2x2 square is a loop; it is unique only on a 2x2 grid.

    Args:
        instance: a grid with no circles, or fewer than 2 rows or columns.
        start: the strategy's start time (:func:`time.perf_counter`), for the wall time.
        unique: also report whether the answer is unique.
    """
    if instance.rows < 2 or instance.cols < 2:
        return Result(
            Status.INFEASIBLE,
            None,
            wall_time=time.perf_counter() - start,
            message="a loop needs at least 2 rows and 2 columns",
        )

    def square(r: int, c: int) -> Solution:
        return solution_from_edges([("h", r, c), ("h", r + 1, c), ("v", r, c), ("v", r, c + 1)])

    result = Result(Status.SOLVED, square(0, 0), wall_time=time.perf_counter() - start, message="no circles")
    if unique:
        other = None if instance.rows * instance.cols == 4 else square(0, 1) if instance.cols > 2 else square(1, 0)
        record_uniqueness(result, other is not None, other, noun="loop")
    return result


# ---------------------------------------------------------------- reading and writing


def parse(text: str, source: str = "<input>") -> Instance:
    """Read the challenge format: ``rows cols``, then the ``B`` and ``W`` groups.

    Raises:
        ParseError: malformed text, a coordinate off the board, a cell given twice or a
            group without its ``0 0`` end, naming the source and line.

    >>> parse("3 3\\nW\\n2 2 0 0\\nB\\n1 1 0 0\\n").black
    ((0, 0),)
    """
    check_length(text, source, MAX_INPUT_CHARS)
    lines = [(n, line.split()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, parts) for n, parts in lines if parts]
    if not lines:
        raise ParseError(f"{source}:1: empty input, expected 'rows cols'")
    lineno, header = lines[0]
    if len(header) != 2 or not all(is_int(t) for t in header):
        raise ParseError(f"{source}:{lineno}: expected 'rows cols', got {' '.join(header)!r}")
    rows, cols = int(header[0]), int(header[1])
    _check_size(rows, cols, f"{source}:{lineno}")
    groups: dict[str, list[Cell]] = {}
    owner: dict[Cell, tuple[str, int]] = {}
    i = 1
    while i < len(lines):
        lineno, parts = lines[i]
        colour = parts[0].upper()
        if len(parts) != 1 or colour not in ("B", "W"):
            raise ParseError(f"{source}:{lineno}: expected a group line 'B' or 'W', got {' '.join(parts)!r}")
        if colour in groups:
            raise ParseError(f"{source}:{lineno}: second {colour!r} group")
        cells: list[Cell] = []
        groups[colour] = cells
        numbers: list[tuple[int, int]] = []  # (value, line)
        ended = False
        i += 1
        while i < len(lines) and not ended:
            lineno, parts = lines[i]
            if not is_int(parts[0]):
                if parts[0].upper() not in ("B", "W"):
                    raise ParseError(f"{source}:{lineno}: expected integers, got {parts[0]!r}")
                break
            for token in parts:
                if not is_int(token):
                    raise ParseError(f"{source}:{lineno}: expected integers, got {token!r}")
                if ended:
                    raise ParseError(f"{source}:{lineno}: numbers after the '0 0' that ends the {colour} group")
                numbers.append((int(token), lineno))
                if len(numbers) % 2 == 0:
                    (r, where), (c, _) = numbers[-2], numbers[-1]
                    if r == 0 and c == 0:
                        ended = True
                        continue
                    if not (1 <= r <= rows and 1 <= c <= cols):
                        raise ParseError(f"{source}:{where}: cell ({r} {c}) is off the {rows}x{cols} grid")
                    cell = (r - 1, c - 1)
                    if cell in owner and owner[cell][0] == colour:
                        continue  # the seed's own 7x7 example lists a black cell twice
                    if cell in owner:
                        raise ParseError(
                            f"{source}:{where}: cell ({r} {c}) already given in the "
                            f"{owner[cell][0]} group on line {owner[cell][1]}"
                        )
                    owner[cell] = (colour, where)
                    cells.append(cell)
            i += 1
        if not ended:
            raise ParseError(f"{source}:{lineno}: the {colour} group has no '0 0' end")
    return Instance(rows, cols, tuple(sorted(groups.get("B", []))), tuple(sorted(groups.get("W", []))))


def _group_lines(cells: tuple[Cell, ...]) -> list[str]:
    pairs = [f"{r + 1} {c + 1}" for r, c in cells] + ["0 0"]
    return [" ".join(pairs[i : i + 5]) for i in range(0, len(pairs), 5)]


def write_instance(instance: Instance) -> str:
    """The instance in the challenge format, black group first, five pairs a line.

    >>> print(write_instance(Instance(2, 2, ((0, 0),), ())), end="")
    2 2
    B
    1 1 0 0
    W
    0 0
    """
    lines = [f"{instance.rows} {instance.cols}", "B", *_group_lines(instance.black), "W", *_group_lines(instance.white)]
    return "\n".join(lines) + "\n"


def format_solution(instance: Instance, solution: Solution | None) -> str:
    """The challenge output: ``row col`` (1-based), then the moves 40 a line; or NO SOLUTION."""
    if solution is None:
        return NO_SOLUTION + "\n"
    r, c = solution.start
    moves = solution.moves
    body = [moves[i : i + MOVES_PER_LINE] for i in range(0, len(moves), MOVES_PER_LINE)]
    return "\n".join([f"{r + 1} {c + 1}", *body]) + "\n"


def parse_solution(instance: Instance, text: str, source: str = "<solution>") -> Solution | None:
    """Read an answer in the challenge's output format; None for a 'no solution' message.

    Raises:
        ParseError: no start line, or a character other than U, D, L, R in the moves.
    """
    check_length(text, source, MAX_INPUT_CHARS)
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise ParseError(f"{source}:1: empty answer, expected 'row col' and the moves")
    if len(lines) == 1 and "SOLUTION" in lines[0][1].upper():
        return None
    lineno, first = lines[0]
    parts = first.split()
    if len(parts) != 2 or not all(is_int(p) for p in parts):
        raise ParseError(f"{source}:{lineno}: expected the start cell 'row col', got {first!r}")
    moves = []
    for lineno, line in lines[1:]:
        bad = [ch for ch in line if ch not in STEP and not ch.isspace()]
        if bad:
            raise ParseError(f"{source}:{lineno}: expected moves U, D, L, R, got {bad[0]!r}")
        moves.append("".join(line.split()))
    return Solution((int(parts[0]) - 1, int(parts[1]) - 1), "".join(moves))


# ---------------------------------------------------------------- puzz.link URLs


def _check_size(rows: int, cols: int, where: str) -> None:
    """Refuse a grid outside the size limits, before anything is allocated for it."""
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise ParseError(f"{where}: grid size {rows}x{cols} out of range 1..{MAX_SIDE}")
    if rows * cols > MAX_CELLS:
        raise ParseError(f"{where}: a {rows}x{cols} grid has {rows * cols} cells, more than the limit of {MAX_CELLS}")


def from_url(url: str, source: str = "<url>", lineno: int = 1) -> Instance:
    """Read a puzz.link / pzprxs URL (``?masyu/W/H/BODY`` or ``?mashu/...``).

    >>> from_url("https://puzz.link/p?masyu/3/2/i0").black
    ((0, 0),)

    Raises:
        ParseError: not a masyu URL, bad size, a body longer than the grid or a character
            outside base 27.
    """
    where = f"{source}:{lineno}"
    match = re.search(r"[?/](?:masyu|mashu)/(.*)$", url.strip())
    if match is None:
        raise ParseError(f"{where}: expected a puzz.link masyu URL '...?masyu/W/H/BODY', got {url!r}")
    parts = [p for p in match.group(1).split("/") if p != ""]
    while parts and not is_int(parts[0]):
        if any(ch.isdigit() for ch in parts[0]):
            raise ParseError(f"{where}: expected width and height in ASCII digits, got {parts[0]!r} in {url!r}")
        parts.pop(0)  # editor flags such as 'v:'
    if len(parts) < 2 or not (is_int(parts[0]) and is_int(parts[1])):
        raise ParseError(f"{where}: expected width and height after 'masyu/' in {url!r}")
    cols, rows = int(parts[0]), int(parts[1])
    _check_size(rows, cols, where)
    body = parts[2] if len(parts) > 2 else ""
    cells = [EMPTY] * (rows * cols)
    if len(body) > -(-len(cells) // 3) or len(parts) > 3:  # a digit holds three cells
        raise ParseError(
            f"{where}: the URL's body is longer than a {cols}x{rows} grid needs "
            f"({len(body)} characters for {len(cells)} cells, at most {-(-len(cells) // 3)})"
        )
    pos = 0
    for ch in body:
        digit = PZPR_DIGITS.find(ch)
        if digit < 0:
            raise ParseError(f"{where}: character {ch!r} is not a base-27 digit in {url!r}")
        for weight in (9, 3, 1):
            if pos < len(cells):
                cells[pos] = (digit // weight) % 3
            pos += 1
    black = tuple(divmod(i, cols) for i, v in enumerate(cells) if v == BLACK)
    white = tuple(divmod(i, cols) for i, v in enumerate(cells) if v == WHITE)
    return Instance(rows, cols, black, white)  # type: ignore[arg-type]


def to_url(instance: Instance, host: str = "https://puzz.link/p?") -> str:
    """The puzz.link URL of an instance.

    >>> to_url(Instance(2, 3, ((0, 0),), ()))
    'https://puzz.link/p?masyu/3/2/i0'
    """
    cells = list(instance.grid)
    cells += [EMPTY] * (-len(cells) % 3)
    body = "".join(PZPR_DIGITS[cells[i] * 9 + cells[i + 1] * 3 + cells[i + 2]] for i in range(0, len(cells), 3))
    return f"{host}masyu/{instance.cols}/{instance.rows}/{body}"


def parse_any(text: str, source: str = "<input>") -> Instance:
    """Read either the challenge format or a puzz.link URL (a file holding one line)."""
    check_length(text, source, MAX_INPUT_CHARS)
    stripped = text.strip()
    if re.search(r"[?/](masyu|mashu)/", stripped) and "\n" not in stripped:
        lineno = text[: text.index(stripped)].count("\n") + 1
        return from_url(stripped, source, lineno)
    return parse(text, source)


# ---------------------------------------------------------------- the rules


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Every rule the loop breaks; an empty list means the puzzle is solved.

    Checks: moves stay on the board, the loop closes on its start, no cell is entered twice
    (no crossing), every circle is visited, and each white and black rule.
    """
    rows, cols = instance.rows, instance.cols
    problems: list[str] = []
    r, c = solution.start
    if not (0 <= r < rows and 0 <= c < cols):
        return [f"start cell ({r + 1} {c + 1}) is off the {rows}x{cols} grid"]
    if len(solution.moves) < 4:
        return [f"a loop needs at least 4 moves, got {len(solution.moves)}"]
    order = [(r, c)]
    first_visit: dict[Cell, int] = {(r, c): 0}
    for step, move in enumerate(solution.moves, start=1):
        if move not in STEP:
            return [f"move {step}: {move!r} is not one of U, D, L, R"]
        dr, dc = STEP[move]
        r, c = r + dr, c + dc
        if not (0 <= r < rows and 0 <= c < cols):
            return [f"move {step} ({move}) leaves the grid at ({r + 1} {c + 1})"]
        if step == len(solution.moves):
            break
        if (r, c) in first_visit:
            problems.append(
                f"move {step}: cell ({r + 1} {c + 1}) entered twice "
                f"(first at move {first_visit[(r, c)]}): the loop crosses or touches itself"
            )
        else:
            first_visit[(r, c)] = step
        order.append((r, c))
    if (r, c) != solution.start:
        problems.append(
            f"the moves end at ({r + 1} {c + 1}), not back on the start "
            f"({solution.start[0] + 1} {solution.start[1] + 1})"
        )
    if problems:
        return problems
    n = len(order)
    straight = []
    for i in range(n):
        pr, pc = order[i - 1]
        nr, nc = order[(i + 1) % n]
        straight.append(pr == nr or pc == nc)
    position = {cell: i for i, cell in enumerate(order)}
    for cell in instance.circles:
        if cell not in position:
            kind = "black" if instance.clue(*cell) == BLACK else "white"
            problems.append(f"{kind} circle ({cell[0] + 1} {cell[1] + 1}) is not on the loop")
    for cell in instance.white:
        if cell not in position:
            continue
        i = position[cell]
        if not straight[i]:
            problems.append(f"white circle ({cell[0] + 1} {cell[1] + 1}): the loop turns on it")
        elif straight[i - 1] and straight[(i + 1) % n]:
            problems.append(f"white circle ({cell[0] + 1} {cell[1] + 1}): no turn in either cell next to it")
    for cell in instance.black:
        if cell not in position:
            continue
        i = position[cell]
        if straight[i]:
            problems.append(f"black circle ({cell[0] + 1} {cell[1] + 1}): the loop goes straight through it")
        if not straight[i - 1] or not straight[(i + 1) % n]:
            problems.append(f"black circle ({cell[0] + 1} {cell[1] + 1}): the loop turns in a cell next to it")
    return problems


def allowed_clues(solution: Solution) -> dict[Cell, int]:
    """For each loop cell, the circle it could carry with this loop (WHITE/BLACK), if any."""
    order = solution.cells()
    n = len(order)
    straight = [order[i - 1][0] == order[(i + 1) % n][0] or order[i - 1][1] == order[(i + 1) % n][1] for i in range(n)]
    clues: dict[Cell, int] = {}
    for i, cell in enumerate(order):
        before, after = straight[i - 1], straight[(i + 1) % n]
        if straight[i] and not (before and after):
            clues[cell] = WHITE
        elif not straight[i] and before and after:
            clues[cell] = BLACK
    return clues


# ---------------------------------------------------------------- drawing

_BOX = {
    frozenset("UD"): "│",
    frozenset("LR"): "─",
    frozenset("DR"): "┌",
    frozenset("DL"): "┐",
    frozenset("UR"): "└",
    frozenset("UL"): "┘",
}


def draw_text(instance: Instance, solution: Solution | None) -> str:
    """The grid with the loop drawn in box characters; ● black, ○ white, · empty."""
    dirs: dict[Cell, set[str]] = {}
    if solution is not None:
        r, c = solution.start
        back = {"U": "D", "D": "U", "L": "R", "R": "L"}
        for move in solution.moves:
            dirs.setdefault((r, c), set()).add(move)
            dr, dc = STEP[move]
            r, c = r + dr, c + dc
            dirs.setdefault((r, c), set()).add(back[move])
    out = []
    for r in range(instance.rows):
        line = []
        below = []
        for c in range(instance.cols):
            clue = instance.clue(r, c)
            d = dirs.get((r, c), set())
            ch = {BLACK: "●", WHITE: "○"}.get(clue) or _BOX.get(frozenset(d), "·")
            line.append(ch)
            if c + 1 < instance.cols:
                line.append("─" if "R" in d else " ")
            below.append("│" if "D" in d else " ")
            if c + 1 < instance.cols:
                below.append(" ")
        out.append("".join(line).rstrip())
        if r + 1 < instance.rows:
            out.append("".join(below).rstrip())
    return "\n".join(out) + "\n"


def notes(instance: Instance, result: Result, options: dict[str, Any]) -> list[str]:
    """What to show after an answer: the loop drawn in text (``draw``), the puzz.link URL
    (``url``) and the second loop of a puzzle that is not unique."""
    lines = []
    if options.get("draw"):
        lines.extend(draw_text(instance, result.solution).splitlines())
    if options.get("url"):
        lines.append(f"c puzz.link: {to_url(instance)}")
    other = result.second_solution
    if other is not None:
        lines.append("c a second loop (the puzzle is not unique):")
        lines.extend(format_solution(instance, other).splitlines())
        if options.get("draw"):
            lines.extend(draw_text(instance, other).splitlines())
    return lines


# ---------------------------------------------------------------- loops and clues for the generator


def random_loop(rows: int, cols: int, rng: random.Random, fill: float = 0.5, blob: float = 0.05) -> Solution:
    """A random simple loop: the boundary of a random hole-free region of grid squares.

    The squares between four cell centres form a ``(rows-1) x (cols-1)`` grid; the boundary
    of a region of squares with no hole and no two squares meeting only at a corner is one
    simple loop through cell centres.
    """
    fr, fc = rows - 1, cols - 1
    if fr < 1 or fc < 1:
        raise InvalidInstanceError(f"a loop needs at least a 2x2 grid, got {rows}x{cols}")
    inside = [[False] * fc for _ in range(fr)]

    def filled(r: int, c: int) -> bool:
        return 0 <= r < fr and 0 <= c < fc and inside[r][c]

    def ok_to_add(r: int, c: int) -> bool:
        # no pinch: around each corner of the new square, no diagonal-only contact
        inside[r][c] = True
        good = True
        for vr in (r, r + 1):
            for vc in (c, c + 1):
                a, b = filled(vr - 1, vc - 1), filled(vr - 1, vc)
                d, e = filled(vr, vc - 1), filled(vr, vc)
                if (a and e and not b and not d) or (b and d and not a and not e):
                    good = False
        # no hole: every empty square must still reach the frame
        if good and sum(filled(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))) >= 2:
            good = _stays_hole_free(inside, fr, fc)
        inside[r][c] = good
        return good

    inside[rng.randrange(fr)][rng.randrange(fc)] = True
    count, target = 1, max(1, int(fr * fc * fill))
    frontier_tries = 0
    while count < target and frontier_tries < 40 * fr * fc:
        frontier_tries += 1
        r, c = rng.randrange(fr), rng.randrange(fc)
        touching = filled(r - 1, c) + filled(r + 1, c) + filled(r, c - 1) + filled(r, c + 1)
        # mostly grow thin corridors, so the loop runs past most cells and turns often
        if inside[r][c] or touching == 0 or (touching > 1 and rng.random() > blob):
            continue
        if ok_to_add(r, c):
            count += 1
    edges: set[EdgeKey] = set()
    for r in range(fr):
        for c in range(fc):
            if not inside[r][c]:
                continue
            # square (r, c) has corners (r, c), (r, c+1), (r+1, c), (r+1, c+1)
            if not filled(r - 1, c):
                edges.add(("h", r, c))
            if not filled(r + 1, c):
                edges.add(("h", r + 1, c))
            if not filled(r, c - 1):
                edges.add(("v", r, c))
            if not filled(r, c + 1):
                edges.add(("v", r, c + 1))
    return solution_from_edges(edges)


def _stays_hole_free(inside: list[list[bool]], fr: int, fc: int) -> bool:
    """True when every empty square reaches the outside through empty squares."""
    seen = [[False] * fc for _ in range(fr)]
    stack = [
        (r, c) for r in range(fr) for c in range(fc) if (r in (0, fr - 1) or c in (0, fc - 1)) and not inside[r][c]
    ]
    for r, c in stack:
        seen[r][c] = True
    while stack:
        r, c = stack.pop()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < fr and 0 <= nc < fc and not seen[nr][nc] and not inside[nr][nc]:
                seen[nr][nc] = True
                stack.append((nr, nc))
    return all(seen[r][c] or inside[r][c] for r in range(fr) for c in range(fc))


PUZZLE = Puzzle(
    name="masyu",
    parse=parse_any,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.encoders.masyu_generator:generate",
    write_instance=write_instance,
    strategies=(
        Strategy(
            "cnf-lazy",
            "puzzlesat.encoders.masyu:solve_lazy",
            "incremental SAT: degree 0/2 and circle clauses, a cut clause for each separate loop",
            variants=SOLVERS,
            default_variant="cadical195",
            modes=("unique",),
        ),
        Strategy(
            "cnf-rank",
            "puzzlesat.encoders.masyu:solve_rank",
            "complete CNF: oriented loop with binary ranks (no separate loops); any pysat solver",
            variants=FULL_SOLVERS,
            default_variant="cadical195",
            encoder="puzzlesat.encoders.masyu:encode",
            options=(
                Option("symmetry", bool, True, "fix the loop's direction at the first circle"),
                Option("cuts", bool, False, "add the cut clauses a cnf-lazy run needed (a head start)"),
            ),
            modes=("unique",),
        ),
        Strategy(
            "cpsat-lazy",
            "puzzlesat.models.masyu:solve_lazy",
            "CP-SAT: degree 0/2 and circle rules, cuts for separate loops added between solves",
            model="puzzlesat.models.masyu:build_model",
            modes=("unique",),
        ),
        Strategy(
            "cpsat-circuit",
            "puzzlesat.models.masyu:solve_circuit",
            "CP-SAT add_circuit over both arc directions, a self-loop for each skipped cell",
            model="puzzlesat.models.masyu:build_circuit_model",
            modes=("unique",),
        ),
        Strategy(
            "native-dfs",
            "puzzlesat.native.masyu:solve",
            "numba: propagate circle and degree rules, close no early loop, branch on path ends",
            modes=("unique",),
        ),
    ),
    portfolio=("cnf-lazy:cadical195", "cnf-lazy:glucose4", "cpsat-lazy"),
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
    draw="puzzlesat.domains.masyu_svg:draw",
    presolve=presolve,
    modes=("unique",),
)

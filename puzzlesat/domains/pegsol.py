"""Peg solitaire ("Resta Um"): jump pegs over pegs until the board matches a goal.

Conventions: cells are ``(row, col)`` with (0, 0) top-left, 0-based.  A board matrix holds
``1`` for a peg, ``-1`` for a hole and ``0`` for a cell that is not part of the board.  A move
(a *jump*) takes the peg on ``(r1, c1)`` over the peg on the orthogonally adjacent cell into
the hole ``(r2, c2)`` two cells away; the jumped peg is removed.

Input (the seed's format): ``m n`` then m rows of n values.  The goal is then the seed's
*complement*: every initial hole ends with a peg and every initial peg position ends empty.
A second form adds m more rows, the explicit goal board (same off-board cells), e.g. the
English board with one peg left in the centre.  ``#`` starts a comment.

Output: one jump a line ``r1:c1-r2:c2`` (the jumping peg, then its landing hole), or the
single line ``Impossivel`` when no sequence of jumps reaches the goal.

Before any search, :func:`prove_impossible` tries three cheap proofs: peg counts, the
position-class parity of the (r+c) mod 3 and (r-c) mod 3 classes, and a pagoda function
found by linear programming (Berlekamp, Conway & Guy, *Winning Ways* ch. 23; Kiyomi &
Matsui, *Integer programming based algorithms for peg solitaire problems*, 2001).

Size limits (checked before the board is built): a matrix of at most :data:`MAX_SIDE` rows
and columns, at most :data:`MAX_CELLS` board cells, and :data:`MAX_INPUT_CHARS` characters.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fractions import Fraction

from puzzlesat.core import (
    SAT_SOLVERS,
    InvalidInstanceError,
    InvalidSolutionError,
    Limits,
    Option,
    ParseError,
    Puzzle,
    Result,
    Status,
    Strategy,
    check_length,
    content_lines,
    is_int,
)

IMPOSSIBLE = "Impossivel"
PEG, HOLE, OFF = 1, -1, 0
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))

# The SAT plans hold a copy of the board per jump, and there are about as many jumps as
# cells, so they grow with the cube of the cells: the cnf-plan encoding alone measured
# 171 MB at 64 cells, 356 MB at 81 and 694 MB at 100 (a 12x12 board's solve took 3.8-5.5 GB).
# The public boards have at most 45 cells (German, 9x9).
MAX_CELLS = 81
# bounds the matrix read before the board cells are counted (off-board cells are cheap)
MAX_SIDE = 100
# MAX_SIDE rows of MAX_SIDE values, twice (start and goal), with room for comments
MAX_INPUT_CHARS = 1_000_000

Matrix = tuple[tuple[int, ...], ...]
Cell = tuple[int, int]
Jump = tuple[Cell, Cell, Cell]


class IllegalMoveError(InvalidSolutionError):
    """A jump that the rules do not allow on the current board."""


@dataclass(frozen=True)
class Move:
    """One jump from ``(r1, c1)`` to ``(r2, c2)``, two cells away in a row or column.

    >>> m = Move.from_text("3:1-3:3")
    >>> m, str(m), m.over
    (Move(r1=3, c1=1, r2=3, c2=3), '3:1-3:3', (3, 2))
    """

    r1: int
    c1: int
    r2: int
    c2: int

    @property
    def source(self) -> Cell:
        """The cell of the jumping peg."""
        return (self.r1, self.c1)

    @property
    def target(self) -> Cell:
        """The hole the peg lands in."""
        return (self.r2, self.c2)

    @property
    def over(self) -> Cell:
        """The cell of the jumped (removed) peg."""
        return ((self.r1 + self.r2) // 2, (self.c1 + self.c2) // 2)

    @property
    def is_jump_shape(self) -> bool:
        """True when the two cells are two apart in one row or one column."""
        dr, dc = abs(self.r2 - self.r1), abs(self.c2 - self.c1)
        return (dr, dc) in ((2, 0), (0, 2))

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Parse ``r1:c1-r2:c2``.

        Raises:
            ValueError: text not of that shape.
        """
        match = _MOVE_RE.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"expected a move 'r1:c1-r2:c2', got {text.strip()!r}")
        r1, c1, r2, c2 = (int(g) for g in match.groups())
        return cls(r1, c1, r2, c2)

    def __str__(self) -> str:
        return f"{self.r1}:{self.c1}-{self.r2}:{self.c2}"


# ASCII digits only (``\d`` would also match '３'), no more than an int64 holds
_MOVE_RE = re.compile(r"(-?[0-9]{1,18})\s*:\s*(-?[0-9]{1,18})\s*-\s*(-?[0-9]{1,18})\s*:\s*(-?[0-9]{1,18})")


@dataclass(frozen=True)
class Instance:
    """A board, its start position and its goal.

    Attributes:
        rows: number of rows m.
        cols: number of columns n.
        start: the m x n start matrix (1 peg, -1 hole, 0 off the board).
        goal: the explicit goal matrix, or None for the seed's complement goal.

    >>> inst = Instance(1, 3, ((1, 1, -1),))
    >>> inst.target, inst.moves_needed
    (((-1, -1, 1),), 1)
    """

    rows: int
    cols: int
    start: Matrix
    goal: Matrix | None = None

    def _repr_svg_(self) -> str:
        """The picture a notebook shows (:mod:`puzzlesat.domains.pegsol_svg`)."""
        return PUZZLE.draw_svg(self)

    @property
    def target(self) -> Matrix:
        """The goal matrix; for the complement form, start with pegs and holes swapped."""
        if self.goal is not None:
            return self.goal
        return tuple(tuple(-v for v in row) for row in self.start)

    @property
    def cells(self) -> list[Cell]:
        """The cells on the board, row-major."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols) if self.start[r][c] != OFF]

    def on_board(self, cell: Cell) -> bool:
        """True for a cell inside the matrix and part of the board."""
        r, c = cell
        return 0 <= r < self.rows and 0 <= c < self.cols and self.start[r][c] != OFF

    def jumps(self) -> list[Jump]:
        """Every ``(from, over, to)`` triple of board cells in a line, row-major then N, E, S, W."""
        out = []
        for r, c in self.cells:
            for dr, dc in DIRECTIONS:
                over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
                if self.on_board(over) and self.on_board(to):
                    out.append(((r, c), over, to))
        return out

    @property
    def start_pegs(self) -> int:
        """Pegs on the start board."""
        return sum(v == PEG for row in self.start for v in row)

    @property
    def goal_pegs(self) -> int:
        """Pegs on the goal board."""
        return sum(v == PEG for row in self.target for v in row)

    @property
    def moves_needed(self) -> int:
        """Each jump removes one peg, so every solution has exactly this many jumps."""
        return self.start_pegs - self.goal_pegs

    def transpose(self) -> Instance:
        """The same puzzle reflected in the main diagonal."""

        def tr(m: Matrix) -> Matrix:
            return tuple(tuple(m[r][c] for r in range(self.rows)) for c in range(self.cols))

        return Instance(self.cols, self.rows, tr(self.start), None if self.goal is None else tr(self.goal))

    def mirror(self) -> Instance:
        """The same puzzle reflected left to right."""

        def mi(m: Matrix) -> Matrix:
            return tuple(tuple(reversed(row)) for row in m)

        return Instance(self.rows, self.cols, mi(self.start), None if self.goal is None else mi(self.goal))


@dataclass(frozen=True)
class Solution:
    """The jumps, in order."""

    moves: tuple[Move, ...]


class Board:
    """A mutable position with make/unmake of jumps, for verifiers and search.

    >>> b = Board(Instance(1, 4, ((1, 1, -1, -1),)))
    >>> b.push(Move(0, 0, 0, 2)); b.matrix()
    ((-1, -1, 1, -1),)
    >>> b.pop(); b.matrix()
    Move(r1=0, c1=0, r2=0, c2=2)
    ((1, 1, -1, -1),)
    """

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.pegs: set[Cell] = {cell for cell in instance.cells if instance.start[cell[0]][cell[1]] == PEG}
        self.stack: list[Move] = []

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` cannot be played now, or None if it can."""
        if not move.is_jump_shape:
            return f"{move}: a jump goes exactly two cells along a row or column"
        for cell, what in ((move.source, "start"), (move.over, "jumped"), (move.target, "landing")):
            if not self.instance.on_board(cell):
                return f"{move}: {what} cell {cell} is not on the board"
        if move.source not in self.pegs:
            return f"{move}: no peg on {move.source}"
        if move.over not in self.pegs:
            return f"{move}: no peg to jump over on {move.over}"
        if move.target in self.pegs:
            return f"{move}: landing cell {move.target} is not empty"
        return None

    def legal_moves(self) -> list[Move]:
        """The jumps playable now."""
        return [
            Move(*a, *c)
            for a, b, c in self.instance.jumps()
            if a in self.pegs and b in self.pegs and c not in self.pegs
        ]

    def push(self, move: Move) -> None:
        """Play a jump.

        Raises:
            IllegalMoveError: the jump breaks the rules on this board.
        """
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        self.pegs -= {move.source, move.over}
        self.pegs.add(move.target)
        self.stack.append(move)

    def pop(self) -> Move:
        """Take back the last jump and return it."""
        move = self.stack.pop()
        self.pegs.discard(move.target)
        self.pegs |= {move.source, move.over}
        return move

    def matrix(self) -> Matrix:
        """The current position as a matrix."""
        inst = self.instance
        return tuple(
            tuple(OFF if inst.start[r][c] == OFF else (PEG if (r, c) in self.pegs else HOLE) for c in range(inst.cols))
            for r in range(inst.rows)
        )


def parse(text: str, source: str = "<input>") -> Instance:
    """Read ``m n`` and the start matrix, optionally followed by a goal matrix.

    Raises:
        ParseError: malformed text, ragged rows, values other than 1/-1/0, or a goal whose
            off-board cells differ from the start's; the message names source and line.
    """
    check_length(text, source, MAX_INPUT_CHARS)
    lines = [(lineno, line.split()) for lineno, line in content_lines(text)]
    if not lines:
        raise ParseError(f"{source}:1: empty input, expected a header 'm n'")
    lineno, header = lines[0]
    if len(header) != 2 or not all(is_int(t) for t in header):
        raise ParseError(f"{source}:{lineno}: expected header 'm n' (rows cols), got {' '.join(header)!r}")
    rows, cols = int(header[0]), int(header[1])
    header_no = lineno
    if rows < 1 or cols < 1:
        raise ParseError(f"{source}:{lineno}: board must have at least 1 row and 1 column, got {rows}x{cols}")
    if rows > MAX_SIDE or cols > MAX_SIDE:
        raise ParseError(f"{source}:{lineno}: a {rows}x{cols} matrix is larger than the limit of {MAX_SIDE} a side")
    body = lines[1:]
    if len(body) not in (rows, 2 * rows):
        # too many: the first line beyond the goal; too few: the last line there is
        where = body[2 * rows][0] if len(body) > 2 * rows else (body[-1][0] if body else lineno)
        raise ParseError(
            f"{source}:{where}: expected {rows} rows (start) or {2 * rows} rows (start and goal) "
            f"of {cols} values, got {len(body)} rows"
        )
    matrix: list[tuple[int, ...]] = []
    for lineno, parts in body:
        if len(parts) != cols:
            raise ParseError(f"{source}:{lineno}: expected {cols} values in the row, got {len(parts)}")
        values = []
        for token in parts:
            if token not in ("1", "-1", "0", "+1", "-0"):
                raise ParseError(f"{source}:{lineno}: expected 1 (peg), -1 (hole) or 0 (off board), got {token!r}")
            values.append(int(token))
        matrix.append(tuple(values))
    start = tuple(matrix[:rows])
    goal = tuple(matrix[rows:]) if len(matrix) == 2 * rows else None
    cells = sum(v != OFF for row in start for v in row)
    if cells > MAX_CELLS:
        raise ParseError(f"{source}:{header_no}: the board has {cells} cells, more than the limit of {MAX_CELLS}")
    if goal is not None:
        for r in range(rows):
            for c in range(cols):
                if (start[r][c] == OFF) != (goal[r][c] == OFF):
                    raise ParseError(
                        f"{source}:{body[rows + r][0]}: goal cell ({r}, {c}) is "
                        f"{'off' if goal[r][c] == OFF else 'on'} the board but the start's is not"
                    )
    return Instance(rows, cols, start, goal)


def write_instance(instance: Instance) -> str:
    """The instance in the input format (the goal rows only when the goal is explicit)."""
    lines = [f"{instance.rows} {instance.cols}"]
    lines += [" ".join(str(v) for v in row) for row in instance.start]
    if instance.goal is not None:
        lines += [" ".join(str(v) for v in row) for row in instance.goal]
    return "\n".join(lines) + "\n"


def format_solution(instance: Instance, solution: Solution | None) -> str:
    """The seed's output: one ``r1:c1-r2:c2`` line per jump, or ``Impossivel``."""
    if solution is None:
        return IMPOSSIBLE + "\n"
    return "".join(f"{move}\n" for move in solution.moves)


def parse_solution(instance: Instance, text: str, source: str = "<solution>") -> Solution | None:
    """Read an answer in the seed's output format; None for ``Impossivel``.

    Raises:
        ParseError: a line that is not ``r1:c1-r2:c2``.
    """
    if text.strip().lower() in (IMPOSSIBLE.lower(), "impossível"):
        return None
    check_length(text, source, MAX_INPUT_CHARS)
    moves = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            moves.append(Move.from_text(line))
        except ValueError as exc:
            raise ParseError(f"{source}:{lineno}: {exc}") from None
    return Solution(tuple(moves))


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Replay the jumps; report the first illegal one, or every cell that misses the goal."""
    board = Board(instance)
    for index, move in enumerate(solution.moves):
        try:
            board.push(move)
        except IllegalMoveError as exc:
            return [f"jump {index + 1}: {exc}"]
    problems = []
    final = board.matrix()
    for r, c in instance.cells:
        want = instance.target[r][c]
        if final[r][c] != want:
            problems.append(
                f"cell ({r}, {c}) ends with {'a peg' if final[r][c] == PEG else 'a hole'}, "
                f"the goal has {'a peg' if want == PEG else 'a hole'}"
            )
    return problems


def class_counts(instance: Instance, matrix: Matrix) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Pegs in each (r+c) mod 3 class and in each (r-c) mod 3 class."""
    plus = [0, 0, 0]
    minus = [0, 0, 0]
    for r, c in instance.cells:
        if matrix[r][c] == PEG:
            plus[(r + c) % 3] += 1
            minus[(r - c) % 3] += 1
    return (plus[0], plus[1], plus[2]), (minus[0], minus[1], minus[2])


def parity_signature(instance: Instance, matrix: Matrix) -> tuple[int, ...]:
    """The jump-invariant parities: (n0+n1, n1+n2) mod 2 for both diagonal classings.

    A jump takes one peg from each of two classes and adds one to the third, so it flips the
    parity of all three counts and leaves the parity of every pairwise sum unchanged.
    """
    plus, minus = class_counts(instance, matrix)
    return ((plus[0] + plus[1]) % 2, (plus[1] + plus[2]) % 2, (minus[0] + minus[1]) % 2, (minus[1] + minus[2]) % 2)


def pagoda_certificate(instance: Instance, low: float = 0.0) -> tuple[dict[Cell, Fraction], Fraction, Fraction] | None:
    """A pagoda function worth more on the goal than on the start, if linear programming finds one.

    A pagoda function p has ``p(to) <= p(from) + p(over)`` for every jump, so the sum of p
    over the pegs never grows; a goal worth more than the start is out of reach.  The
    classical definition has p >= 0 (``low`` = 0); the argument holds for negative weights
    too, which can also charge for pegs that must still leave (``low`` < 0).  This is the
    dual of the LP relaxation of "how often is each jump used".  The LP answer is rounded to
    small fractions and re-checked exactly, so a returned certificate is a proof.

    Returns:
        (p, value on start, value on goal), or None (no certificate found).
    """
    from fractions import Fraction  # exact weights, only when a proof is sought

    try:
        from ortools.linear_solver import pywraplp
    except ImportError:  # pragma: no cover - ortools is a dependency
        return None
    cells = instance.cells
    jumps = instance.jumps()
    diff = {(r, c): int(instance.target[r][c] == PEG) - int(instance.start[r][c] == PEG) for r, c in cells}
    if not any(diff.values()):
        return None
    lp = pywraplp.Solver.CreateSolver("GLOP")
    if lp is None:  # pragma: no cover
        return None
    # p >= 0 is the classical definition; the box keeps the LP bounded (pagodas scale freely)
    var = {cell: lp.NumVar(low, 1.0, f"p{cell}") for cell in cells}
    for a, b, c in jumps:  # p(to) - p(from) - p(over) <= 0, through the low-level API (faster)
        row = lp.Constraint(-lp.infinity(), 0.0)
        row.SetCoefficient(var[c], 1.0)
        row.SetCoefficient(var[a], -1.0)
        row.SetCoefficient(var[b], -1.0)
    objective = lp.Objective()
    for cell in cells:
        objective.SetCoefficient(var[cell], float(diff[cell]))
    objective.SetMaximization()
    if lp.Solve() != pywraplp.Solver.OPTIMAL or lp.Objective().Value() < 1e-7:
        return None
    values = {cell: var[cell].solution_value() for cell in cells}
    for limit in (12, 60, 1000):
        p = {cell: Fraction(values[cell]).limit_denominator(limit) for cell in cells}
        if all(p[c] <= p[a] + p[b] for a, b, c in jumps):
            on_start = sum((p[cell] for cell in cells if instance.start[cell[0]][cell[1]] == PEG), Fraction(0))
            on_goal = sum((p[cell] for cell in cells if instance.target[cell[0]][cell[1]] == PEG), Fraction(0))
            if on_goal > on_start:
                return p, on_start, on_goal
    return None


def _count_proof(instance: Instance) -> str | None:
    start, goal = instance.start_pegs, instance.goal_pegs
    if goal > start:
        return f"peg count: the goal has {goal} pegs but the start only {start}, and jumps only remove pegs"
    if goal == 0 and start > 0:
        return f"peg count: the goal is an empty board, but a jump always leaves a peg (start has {start})"
    if start == goal and instance.start != instance.target:
        return f"peg count: start and goal both have {start} pegs, so no jump may be made, yet they differ"
    return None


def prove_impossible(instance: Instance, pagoda: bool = True) -> str | None:
    """A short proof that the goal cannot be reached, or None when none of the tests applies.

    Tests, cheapest first: peg counts; position-class parity; a pagoda function (LP).

    >>> five = generate({"board": "rect", "rows": 5, "cols": 5}, 0)
    >>> prove_impossible(five)[:22]
    'position-class parity:'
    """
    reason = _count_proof(instance)
    if reason is not None:
        return reason
    if parity_signature(instance, instance.start) != parity_signature(instance, instance.target):
        (sp, sm), (gp, gm) = class_counts(instance, instance.start), class_counts(instance, instance.target)
        return (
            "position-class parity: a jump flips the parity of all three (r+c) mod 3 and all three "
            f"(r-c) mod 3 peg counts; start has {sp} / {sm}, goal {gp} / {gm}, "
            "which no number of jumps can match"
        )
    if pagoda:
        cert = pagoda_certificate(instance)
        if cert is not None:
            _, on_start, on_goal = cert
            return (
                f"pagoda function: a weighting of the cells that no jump increases is worth {on_start} "
                f"on the start and {on_goal} on the goal"
            )
    return None


def step_jumps(instance: Instance, reach: bool = True) -> list[list[int]]:
    """For each step t, the indices into ``instance.jumps()`` that may be played at t.

    A jump is kept when the planning graph grown from the start (cells that may hold a peg
    or a hole after t jumps) allows it, and the one grown backward from the goal does too.
    Both the CNF and the CP-SAT plan create jump variables only for these.
    """
    jumps = instance.jumps()
    horizon = instance.moves_needed
    if not reach:
        return [list(range(len(jumps))) for _ in range(horizon)]
    cells = instance.cells
    start, target = instance.start, instance.target
    fwd: list[tuple[set[Cell], set[Cell]]] = []
    may_peg = {x for x in cells if start[x[0]][x[1]] == PEG}
    may_hole = set(cells) - may_peg
    for _ in range(horizon):
        fwd.append((set(may_peg), set(may_hole)))
        for a, b, c in jumps:
            if a in fwd[-1][0] and b in fwd[-1][0] and c in fwd[-1][1]:
                may_peg.add(c)
                may_hole |= {a, b}
    bwd: list[tuple[set[Cell], set[Cell]]] = [(set(), set())] * horizon
    may_peg = {x for x in cells if target[x[0]][x[1]] == PEG}
    may_hole = set(cells) - may_peg
    for t in reversed(range(horizon)):
        bwd[t] = (set(may_peg), set(may_hole))  # the position after jump t
        for a, b, c in jumps:
            if a in bwd[t][1] and b in bwd[t][1] and c in bwd[t][0]:
                may_peg |= {a, b}
                may_hole.add(c)
    out = []
    for t in range(horizon):
        (fp, fh), (bp, bh) = fwd[t], bwd[t]
        out.append(
            [
                k
                for k, (a, b, c) in enumerate(jumps)
                if a in fp and b in fp and c in fh and a in bh and b in bh and c in bp
            ]
        )
    return out


def presolve(instance: Instance, limits: Limits) -> Result | None:
    """What the engine does before any strategy: settle trivial boards and try the impossibility proofs.

    Returns:
        A final Result (SOLVED with no jumps, or INFEASIBLE naming the proof), or None when
        the strategy has to search.  The ``no_proofs`` solve option skips the parity and
        pagoda proofs (the peg count fixes every search's horizon, so it always runs).
    """
    if instance.start == instance.target:
        return Result(Status.SOLVED, Solution(()), message="the start is the goal")
    # the horizon of every search is the peg difference, so the count test always runs
    reason = _count_proof(instance)
    if reason is None and not limits.options.get("no_proofs"):
        reason = prove_impossible(instance)
    if reason is None:
        return None
    return Result(Status.INFEASIBLE, None, stats={"nodes": 0}, message=reason)


def named_board(name: str, rows: int | None = None, cols: int | None = None) -> list[list[int]]:
    """The shape of a named board, all pegs (0 marks cells off the board).

    Boards: ``english`` (33 holes), ``french`` (37), ``german`` (45), ``diamond`` (41),
    ``rect`` (``rows`` x ``cols``, default 6x6).

    Raises:
        InvalidInstanceError: an unknown name or a bad size.
    """
    if name == "rect":
        rows, cols = rows or 6, cols or rows or 6
        if rows < 1 or cols < 1:
            raise InvalidInstanceError(f"rect board needs positive --rows and --cols, got {rows}x{cols}")
        if rows * cols > MAX_CELLS:
            raise InvalidInstanceError(
                f"--rows {rows} --cols {cols}: a {rows}x{cols} board has more cells than the limit of {MAX_CELLS}"
            )
        return [[PEG] * cols for _ in range(rows)]
    if name in ("english", "german"):
        size, arm = (7, 2) if name == "english" else (9, 3)
        return [
            [PEG if (arm <= r < size - arm) or (arm <= c < size - arm) else OFF for c in range(size)]
            for r in range(size)
        ]
    if name == "french":
        return [[PEG if abs(r - 3) + abs(c - 3) <= 4 else OFF for c in range(7)] for r in range(7)]
    if name == "diamond":
        return [[PEG if abs(r - 4) + abs(c - 4) <= 4 else OFF for c in range(9)] for r in range(9)]
    raise InvalidInstanceError(f"--board {name!r}: unknown board; expected english, french, german, diamond or rect")


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A named board with holes, in the seed's complement form or with a one-peg goal.

    Args:
        options: ``board`` (english, french, german, diamond, rect), ``rows``/``cols`` (rect
            size), ``hole`` ("R,C", default the centre cell or the first cell of the middle
            row), ``holes`` (that many holes at random cells instead), ``goal`` ("complement",
            the default, or "R,C": one peg left on that cell, written with an explicit goal).
        seed: random seed for ``holes``.

    Raises:
        InvalidInstanceError: bad board name, size or cell.
    """
    name = options.get("board") or ("rect" if options.get("rows") or options.get("cols") else "english")
    shape = named_board(name, options.get("rows"), options.get("cols"))
    rows, cols = len(shape), len(shape[0])
    cells = [(r, c) for r in range(rows) for c in range(cols) if shape[r][c] != OFF]

    def cell_of(text: str, flag: str) -> Cell:
        parts = text.replace(":", ",").split(",")
        if len(parts) != 2 or not all(is_int(p) for p in parts):
            raise InvalidInstanceError(f"--{flag} expects R,C, got {text!r}")
        cell = (int(parts[0]), int(parts[1]))
        if cell not in cells:
            raise InvalidInstanceError(f"--{flag} {text!r}: cell {cell} is not on the {name} board")
        return cell

    if options.get("holes"):
        count = options["holes"]
        if not 1 <= count < len(cells):
            raise InvalidInstanceError(f"--holes must be between 1 and {len(cells) - 1}, got {count}")
        holes = random.Random(seed).sample(cells, count)
    elif options.get("hole"):
        holes = [cell_of(options["hole"], "hole")]
    else:
        centre = (rows // 2, cols // 2)
        holes = [centre if centre in cells else cells[0]]
    for r, c in holes:
        shape[r][c] = HOLE
    start = tuple(tuple(row) for row in shape)
    goal_opt = options.get("goal")
    if not goal_opt or goal_opt == "complement":
        return Instance(rows, cols, start)
    last = cell_of(goal_opt, "goal")
    goal = tuple(
        tuple(OFF if v == OFF else (PEG if (r, c) == last else HOLE) for c, v in enumerate(row))
        for r, row in enumerate(start)
    )
    return Instance(rows, cols, start, goal)


# the SAT plans' options (cnf-plan and cpsat-plan)
ORDERING = Option("ordering", bool, True, "order independent consecutive jumps (symmetry breaking)")
REACH = Option("reach", bool, True, "allow at each step only the jumps that can happen that early and that late")

# cnf-plan's rule groups (encoders/pegsol.py says what each one adds)
CNF_PLAN_OPTIONS = (
    Option(
        "ordering",
        int,
        1,
        "independent jumps: 0 any order, 1 consecutive ones by index, 2 the lexicographic normal form",
        low=0,
        high=2,
    ),
    REACH,
    Option(
        "parity",
        int,
        1,
        "position-class parities as clauses: 0 none, 1 at the last step (meets the goal), 2 at every step",
        low=0,
        high=2,
    ),
    Option("symmetry", bool, True, "first jump the smallest of its orbit under the symmetries of start and goal"),
    Option("count", bool, False, "exactly start pegs - t pegs after t jumps (sequential form)"),
    Option("pagoda", bool, False, "pagoda bounds at every step (LP pagodas of the goal's pegs and start's holes)"),
    Option("reverse", bool, False, "encode the game played backwards on the complemented board"),
    Option("parallel", bool, True, "parallel steps of jumps on disjoint cells (Foata normal form); 0: one jump a step"),
    Option("steps", int, None, "parallel form: this many steps (default: from the first possible up to T)", low=1),
    Option("window", int, 3, "parallel form: horizons solved at once, in turns (CaDiCaL)", low=1, high=8),
)

# cpsat-plan's rule groups (models/pegsol.py)
CPSAT_PLAN_OPTIONS = (ORDERING, REACH, Option("redundant", bool, True, "peg-count constraint per step (redundant)"))

PUZZLE = Puzzle(
    name="pegsol",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.pegsol:generate",
    write_instance=write_instance,
    draw="puzzlesat.domains.pegsol_svg:draw",
    strategies=(
        Strategy(
            "native-dfs",
            "puzzlesat.native.pegsol:solve",
            "numba bitboard DFS: dead-position table up to symmetry, pagoda cuts, endgame search back from the goal; "
            "proves impossibility by exhaustion",
            options=(
                Option("order", str, None, "one fixed move order and no restarts: symK or randomN"),
                Option("table_bits", int, None, "log2 of the dead-position table's slots (default 24)", low=4, high=30),
                Option("no_restarts", bool, False, "one search, no restarts with other move orders"),
                Option("no_meet", bool, False, "no endgame search back from the goal (meet in the middle)"),
                Option("endgame_size", int, None, "most positions in the endgame's last layer (default 2**21)", low=1),
                Option("no_pagoda", bool, False, "no pagoda cuts learned from the dead positions"),
                Option("no_symmetry", bool, False, "key dead positions as they are, not up to the goal's symmetries"),
                Option(
                    "sym_depth", int, None, "positions at most this many jumps deep are keyed up to symmetry", low=0
                ),
            ),
        ),
        Strategy(
            "cnf-plan",
            "puzzlesat.encoders.pegsol:solve",
            "SAT planning, horizon = pegs to remove, one jump a step, explanatory frame axioms, "
            "ordering of independent consecutive jumps; any pysat solver",
            variants=SAT_SOLVERS,
            default_variant="cadical195",
            encoder="puzzlesat.encoders.pegsol:encode",
            options=CNF_PLAN_OPTIONS,
        ),
        Strategy(
            "cpsat-plan",
            "puzzlesat.models.pegsol:solve",
            "CP-SAT: the same fixed-horizon plan (one jump a step, frame axioms, ordering)",
            model="puzzlesat.models.pegsol:build_model",
            options=CPSAT_PLAN_OPTIONS,
        ),
    ),
    portfolio=("native-dfs", "cnf-plan:cadical195", "cpsat-plan"),
    presolve=presolve,
    generator_options=(
        Option(
            "board", str, None, "english, french, german, diamond or rect (default english; rect with --rows/--cols)"
        ),
        Option("rows", int, None, "rows of a rect board", low=1, high=MAX_CELLS),
        Option("cols", int, None, "columns of a rect board", low=1, high=MAX_CELLS),
        Option("hole", str, None, "the start hole R,C (default: the centre)"),
        Option(
            "holes",
            int,
            None,
            "instead of --hole: this many holes at random cells (uses --seed)",
            low=1,
            high=MAX_CELLS,
        ),
        Option("goal", str, None, "'complement' (default, the seed's goal) or R,C: finish with one peg there"),
    ),
    solve_options=(
        Option("no_proofs", bool, False, "skip the impossibility proofs (counts, parity, pagoda) before search"),
    ),
    write_argument="puzzlesat.domains.pegsol_proof:write_argument",
    check_argument="puzzlesat.domains.pegsol_proof:check_argument",
)

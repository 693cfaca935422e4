"""Blacken ("Othello" stones): turn every white stone black in the fewest moves.

Rules (SPEC.md §4).  A k x k board holds q white stones, none on the frame.  A move puts a
black stone on an empty cell that touches (8-neighbourhood) a white stone; then, in each of
the 8 directions from the new stone, an unbroken run of white stones that ends at a black
stone turns black (the Reversi rule; flipped stones do not flip further).  The goal is to
have no white stone left, in as few moves as possible.

Conventions: cells are ``(row, col)``, 0-based, (0, 0) top-left.  The seed's files speak
1-based ``x,y`` with x the column and y the row, so ``x,y`` is the cell ``(y - 1, x - 1)``.

Input: a first line ``k q`` (the seed's command-line arguments) and then one ``x,y`` line per
white stone.  A file of ``x,y`` lines alone is accepted too: k is then the smallest board
that keeps every stone off the frame (the board size never changes the answer, since every
move and every flip stays next to a white stone).

Output (the seed's): ``The result is N.``, the moves ``x: X y: Y`` in play order, a blank
line, then the final board, one row a line, each cell as wide as the largest move number:
the move number on a placed stone, ``B`` on a flipped stone, ``W`` on a stone still white
(never in a valid answer) and a blank on an empty cell.

Size limits (checked before any board is built): a board of at most :data:`MAX_SIZE` x
:data:`MAX_SIZE`, at most :data:`MAX_WHITES` white stones and :data:`MAX_INPUT_CHARS`
characters of text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from puzzlesat.core import InvalidInstanceError, Option, ParseError, Puzzle, Strategy, check_length, is_int

Cell = tuple[int, int]

EMPTY, WHITE, BLACK = 0, 1, 2
DIRECTIONS: tuple[Cell, ...] = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
SOLVERS = ("cadical195", "cadical153", "cadical300", "glucose4", "glucose3", "maplechrono", "minisat22", "lingeling")

# the native search indexes a framed (k+2)^2 board in 12 bits: k <= 61; the public boards
# are at most 12x12
MAX_SIZE = 61
# The time-indexed models hold a board per step, up to 2q steps: 150 stones on a 30x30
# board measured 633 MB for the cnf-steps encoding (cpsat-steps 387 MB).  The public boards
# have at most 25.
MAX_WHITES = 150
# a stone is one short line: a megabyte is far more than MAX_WHITES stones need
MAX_INPUT_CHARS = 1_000_000

# ASCII digits only (``\d`` would also match '３'), no more than an int64 holds
_PAIR = re.compile(r"^\s*(-?[0-9]{1,18})\s*[,;\s]\s*(-?[0-9]{1,18})\s*$")
_MOVE = re.compile(r"^\s*x:\s*(-?[0-9]{1,18})\s+y:\s*(-?[0-9]{1,18})\s*$")
_RESULT = re.compile(r"^\s*The result is\s+(-?[0-9]{1,18})\s*\.?\s*$")


@dataclass(frozen=True)
class Instance:
    """A ``size x size`` board and its white stones, in input order.

    >>> inst = Instance(7, ((1, 3), (2, 3), (3, 3), (4, 1), (4, 5), (5, 3)))
    >>> inst.q, lower_bound(inst), upper_bound(inst)
    (6, 4, 12)
    """

    size: int
    whites: tuple[Cell, ...]

    def _repr_svg_(self) -> str:
        """The picture a notebook shows (:mod:`puzzlesat.domains.blacken_svg`)."""
        return PUZZLE.draw_svg(self)

    @property
    def q(self) -> int:
        """Number of white stones."""
        return len(self.whites)

    def on_board(self, cell: Cell) -> bool:
        """True when the cell lies on the board."""
        return 0 <= cell[0] < self.size and 0 <= cell[1] < self.size

    def frontier(self) -> list[Cell]:
        """Empty cells next to a white stone, row-major: the only cells a move can ever use."""
        white = set(self.whites)
        cells = {(r + dr, c + dc) for r, c in self.whites for dr, dc in DIRECTIONS}
        return sorted(cell for cell in cells if cell not in white and self.on_board(cell))

    def transformed(self, turns: int, mirror: bool = False) -> Instance:
        """The board rotated ``turns`` quarter turns clockwise, mirrored left-right first if asked.

        >>> Instance(5, ((1, 2),)).transformed(1).whites
        ((2, 3),)
        """
        n = self.size - 1
        out = []
        for r, c in self.whites:
            if mirror:
                c = n - c
            for _ in range(turns % 4):
                r, c = c, n - r
            out.append((r, c))
        return Instance(self.size, tuple(out))


@dataclass(frozen=True)
class Solution:
    """The placed stones in play order; ``claimed`` and ``board`` come from a parsed answer.

    Attributes:
        moves: the cells of the placed stones, in play order.
        claimed: the number after ``The result is``, when read from a file.
        board: the final board rows as drawn in a file, when present.
    """

    moves: tuple[Cell, ...]
    claimed: int | None = None
    board: tuple[str, ...] | None = None


class Board:
    """A position: make and unmake moves with :meth:`push` / :meth:`pop`.

    >>> board = Board(Instance(5, ((2, 2),)))
    >>> board.push((2, 1)), board.push((2, 3)), board.whites_left
    ([], [(2, 2)], 0)
    >>> board.pop(); board.whites_left
    1
    """

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.size = instance.size
        self.grid = [[EMPTY] * self.size for _ in range(self.size)]
        for r, c in instance.whites:
            self.grid[r][c] = WHITE
        self.whites_left = len(set(instance.whites))
        self.stack: list[tuple[Cell, list[Cell]]] = []

    def at(self, cell: Cell) -> int:
        """EMPTY, WHITE or BLACK; off the board reads as EMPTY."""
        r, c = cell
        if 0 <= r < self.size and 0 <= c < self.size:
            return self.grid[r][c]
        return EMPTY

    def touches_white(self, cell: Cell) -> bool:
        """True when a white stone lies in the cell's 8-neighbourhood."""
        r, c = cell
        return any(self.at((r + dr, c + dc)) == WHITE for dr, dc in DIRECTIONS)

    def is_legal(self, cell: Cell) -> bool:
        """A move on an empty board cell next to a white stone."""
        return self.instance.on_board(cell) and self.at(cell) == EMPTY and self.touches_white(cell)

    def flips(self, cell: Cell) -> list[Cell]:
        """The white stones a black stone on ``cell`` would turn (Reversi rule)."""
        out: list[Cell] = []
        r, c = cell
        for dr, dc in DIRECTIONS:
            run: list[Cell] = []
            rr, cc = r + dr, c + dc
            while self.at((rr, cc)) == WHITE:
                run.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if run and self.at((rr, cc)) == BLACK:
                out.extend(run)
        return out

    def legal_moves(self) -> list[Cell]:
        """Every legal move, row-major."""
        return [(r, c) for r in range(self.size) for c in range(self.size) if self.is_legal((r, c))]

    def push(self, cell: Cell) -> list[Cell]:
        """Play a move (legality unchecked) and return the stones it flipped."""
        flipped = self.flips(cell)
        self.grid[cell[0]][cell[1]] = BLACK
        for r, c in flipped:
            self.grid[r][c] = BLACK
        self.whites_left -= len(flipped)
        self.stack.append((cell, flipped))
        return flipped

    def pop(self) -> None:
        """Take back the last move."""
        (r, c), flipped = self.stack.pop()
        self.grid[r][c] = EMPTY
        for rr, cc in flipped:
            self.grid[rr][cc] = WHITE
        self.whites_left += len(flipped)

    def key(self) -> frozenset[Cell]:
        """The black cells: they determine the position."""
        return frozenset((r, c) for r in range(self.size) for c in range(self.size) if self.grid[r][c] == BLACK)


def components(whites: Iterable[Cell]) -> list[list[Cell]]:
    """The 8-connected components of a set of stones, each sorted, in order of first cell.

    >>> components([(1, 1), (2, 2), (4, 4)])
    [[(1, 1), (2, 2)], [(4, 4)]]
    """
    left = set(whites)
    out = []
    for start in sorted(left):
        if start not in left:
            continue
        left.discard(start)
        comp, todo = [start], [start]
        while todo:
            r, c = todo.pop()
            for dr, dc in DIRECTIONS:
                nb = (r + dr, c + dc)
                if nb in left:
                    left.discard(nb)
                    comp.append(nb)
                    todo.append(nb)
        out.append(sorted(comp))
    return out


def lower_bound(instance: Instance) -> int:
    """The seed's lower bound: the number of 8-connected white components.

    Not a true lower bound: one stone can serve up to four lone white stones, and the
    16 lone stones of ``instances/blacken/lattice_10x10.txt`` need only 12 moves.  The
    solvers start from :func:`puzzlesat.domains.blacken_bound.move_lower_bound` instead.
    """
    return len(components(instance.whites))


def upper_bound(instance: Instance) -> int:
    """The seed's upper bound: min(2q, empty cells next to a white stone)."""
    return min(2 * instance.q, len(instance.frontier()))


def replay(instance: Instance, moves: Iterable[Cell]) -> tuple[Board, list[str]]:
    """Play the moves; returns the final board and every illegal move met (which are skipped)."""
    board = Board(instance)
    problems = []
    for number, cell in enumerate(moves, start=1):
        where = f"move {number} (x: {cell[1] + 1} y: {cell[0] + 1})"
        if not instance.on_board(cell):
            problems.append(f"{where}: off the {instance.size}x{instance.size} board")
        elif board.at(cell) != EMPTY:
            problems.append(f"{where}: the cell already holds a stone")
        elif not board.touches_white(cell):
            problems.append(f"{where}: no white stone next to it")
        else:
            board.push(cell)
    return board, problems


def draw(instance: Instance, moves: tuple[Cell, ...]) -> list[str]:
    """The final board after the moves, one string a row (see the module docstring)."""
    board, _ = replay(instance, moves)
    width = len(str(len(moves))) if moves else 1
    number = {cell: i for i, cell in enumerate(moves, start=1)}
    rows = []
    for r in range(instance.size):
        parts = []
        for c in range(instance.size):
            if (r, c) in number and board.grid[r][c] == BLACK:
                text = str(number[(r, c)])
            else:
                text = " BW"[0 if board.grid[r][c] == EMPTY else (2 if board.grid[r][c] == WHITE else 1)]
            parts.append(text.rjust(width))
        rows.append("".join(parts))
    return rows


def parse(text: str, source: str = "<input>") -> Instance:
    """Read ``k q`` then ``x,y`` lines (or ``x,y`` lines alone).

    Raises:
        ParseError: malformed lines, a wrong count, a stone off the board, on the frame or
            given twice, naming the source and line.
    """
    check_length(text, source, MAX_INPUT_CHARS)
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise ParseError(f"{source}:1: empty input, expected 'k q' then one 'x,y' line per white stone")
    size: int | None = None
    count: int | None = None
    first_no, first = lines[0]
    if "," not in first:
        parts = first.split()
        if len(parts) != 2 or not all(is_int(p) for p in parts):
            raise ParseError(f"{source}:{first_no}: expected 'k q' (board size, white stones), got {first!r}")
        size, count = int(parts[0]), int(parts[1])
        if size < 3:
            raise ParseError(f"{source}:{first_no}: board size must be at least 3, got {size}")
        if size > MAX_SIZE:
            raise ParseError(f"{source}:{first_no}: board size {size} is larger than the limit of {MAX_SIZE}")
        if count < 0:
            raise ParseError(f"{source}:{first_no}: number of white stones must not be negative, got {count}")
        if count > MAX_WHITES:
            raise ParseError(f"{source}:{first_no}: {count} white stones, more than the limit of {MAX_WHITES}")
        lines = lines[1:]
    cells: list[Cell] = []
    seen: dict[Cell, int] = {}
    for lineno, line in lines:
        match = _PAIR.match(line)
        if match is None:
            raise ParseError(f"{source}:{lineno}: expected 'x,y', got {line!r}")
        x, y = int(match.group(1)), int(match.group(2))
        if len(cells) == MAX_WHITES:
            raise ParseError(f"{source}:{lineno}: more white stones than the limit of {MAX_WHITES}")
        if count is not None and len(cells) == count:
            raise ParseError(f"{source}:{lineno}: header says {count} white stones, the file lists more")
        cell = (y - 1, x - 1)
        if cell in seen:
            raise ParseError(f"{source}:{lineno}: stone {x},{y} already given on line {seen[cell]}")
        seen[cell] = lineno
        if size is not None:
            if not (1 <= x <= size and 1 <= y <= size):
                raise ParseError(f"{source}:{lineno}: stone {x},{y} is off the {size}x{size} board")
            if x in (1, size) or y in (1, size):
                raise ParseError(f"{source}:{lineno}: stone {x},{y} lies on the frame of the {size}x{size} board")
        elif x < 2 or y < 2:
            raise ParseError(f"{source}:{lineno}: stone {x},{y} lies on the frame (coordinates start at 1)")
        elif max(x, y) + 1 > MAX_SIZE:
            raise ParseError(f"{source}:{lineno}: stone {x},{y} needs a board larger than the limit {MAX_SIZE}")
        cells.append(cell)
    if count is not None and len(cells) != count:
        raise ParseError(f"{source}:{first_no}: header says {count} white stones, the file lists {len(cells)}")
    if size is None:
        size = max(3, max(max(r, c) for r, c in cells) + 2) if cells else 3
    return Instance(size, tuple(cells))


def write_instance(instance: Instance) -> str:
    """The instance in the input format: ``k q`` then ``x,y`` lines."""
    return "".join([f"{instance.size} {instance.q}\n", *(f"{c + 1},{r + 1}\n" for r, c in instance.whites)])


def format_solution(instance: Instance, solution: Solution | None) -> str:
    """The seed's output: the result line, the moves, a blank line and the final board."""
    if solution is None:
        return "No solution.\n"
    lines = [f"The result is {len(solution.moves)}."]
    lines.extend(f"x: {c + 1} y: {r + 1}" for r, c in solution.moves)
    lines.append("")
    lines.extend(draw(instance, solution.moves))
    return "\n".join(lines) + "\n"


def parse_solution(instance: Instance, text: str, source: str = "<solution>") -> Solution | None:
    """Read an answer in the seed's output format (the board drawing is optional).

    Raises:
        ParseError: no result line, or a malformed move line.
    """
    lines = text.splitlines()
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index == len(lines):
        raise ParseError(f"{source}:1: empty answer, expected 'The result is N.'")
    if lines[index].strip() == "No solution.":
        return None
    match = _RESULT.match(lines[index])
    if match is None:
        raise ParseError(f"{source}:{index + 1}: expected 'The result is N.', got {lines[index]!r}")
    claimed = int(match.group(1))
    index += 1
    moves: list[Cell] = []
    while index < len(lines) and lines[index].strip():
        move = _MOVE.match(lines[index])
        if move is None:
            raise ParseError(f"{source}:{index + 1}: expected a move 'x: X y: Y', got {lines[index]!r}")
        moves.append((int(move.group(2)) - 1, int(move.group(1)) - 1))
        index += 1
    board: tuple[str, ...] | None = None
    if index < len(lines):
        rows = lines[index + 1 :]
        while rows and not rows[-1].strip():
            rows.pop()
        board = tuple(rows) if rows else None
    return Solution(tuple(moves), claimed, board)


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Every rule the answer breaks; an empty list means every white stone ends black.

    Replays the moves under the Reversi rule; checks the claimed count and, when the answer
    carries a board drawing, that it shows the stones the moves really flip.
    """
    final, problems = replay(instance, solution.moves)
    if solution.claimed is not None and solution.claimed != len(solution.moves):
        problems.append(f"the result line says {solution.claimed} moves, the answer lists {len(solution.moves)}")
    left = [(r, c) for r, c in instance.whites if final.grid[r][c] == WHITE]
    if left:
        shown = ", ".join(f"{c + 1},{r + 1}" for r, c in left[:5])
        problems.append(f"{len(left)} white stone(s) left after the last move: {shown}")
    if solution.board is not None:
        want = draw(instance, solution.moves)
        width = len(want[0]) if want else 0
        got = [row.ljust(width) for row in solution.board] + [" " * width] * (len(want) - len(solution.board))
        if len(got) != len(want):
            problems.append(f"the board drawing has {len(solution.board)} rows, expected {len(want)}")
        else:
            for y, (a, b) in enumerate(zip(got, want, strict=True), start=1):
                if a.rstrip() != b.rstrip():
                    problems.append(f"board row y={y}: drawn {a.rstrip()!r}, the moves give {b.rstrip()!r}")
    return problems


# the positions breadth-first search may hold (a few hundred MB of Python bytes objects)
BFS_POSITIONS = 2_000_000


def bfs_optimum(instance: Instance, max_states: int = BFS_POSITIONS) -> tuple[Cell, ...] | None:
    """A shortest answer by breadth-first search over positions: the reference for tests.

    Returns:
        The moves, or None when the search passed ``max_states`` positions first.

    Raises:
        InvalidInstanceError: no sequence of moves turns every stone black.
    """
    k = instance.size
    start = bytearray(k * k)
    for r, c in instance.whites:
        start[r * k + c] = WHITE
    if WHITE not in start:
        return ()
    steps = list(DIRECTIONS)

    def inside(r: int, c: int) -> bool:
        return 0 <= r < k and 0 <= c < k

    parent: dict[bytes, tuple[bytes, int] | None] = {bytes(start): None}
    frontier = [bytes(start)]
    while frontier:
        following = []
        for state in frontier:
            cells: set[int] = set()
            for i, v in enumerate(state):
                if v == WHITE:
                    r, c = divmod(i, k)
                    cells.update(
                        (r + dr) * k + c + dc
                        for dr, dc in steps
                        if inside(r + dr, c + dc) and state[(r + dr) * k + c + dc] == EMPTY
                    )
            for move in sorted(cells):
                child = bytearray(state)
                child[move] = BLACK
                r0, c0 = divmod(move, k)
                for dr, dc in steps:
                    r, c, run = r0 + dr, c0 + dc, []
                    while inside(r, c) and state[r * k + c] == WHITE:
                        run.append(r * k + c)
                        r, c = r + dr, c + dc
                    if run and inside(r, c) and state[r * k + c] == BLACK:
                        for i in run:
                            child[i] = BLACK
                key = bytes(child)
                if key in parent:
                    continue
                parent[key] = (state, move)
                if WHITE not in child:
                    path = []
                    link = parent[key]
                    while link is not None:
                        path.append(divmod(link[1], k))
                        link = parent[link[0]]
                    return tuple(path[::-1])
                following.append(key)
                if len(parent) > max_states:
                    return None
        frontier = following
    raise InvalidInstanceError("no sequence of moves turns every stone black")


def greedy(instance: Instance, seed: int = 0, tries: int = 20) -> tuple[Cell, ...] | None:
    """A quick answer: play the move flipping most (ties at random), best of ``tries`` runs."""
    rng = random.Random(seed)
    best: tuple[Cell, ...] | None = None
    for attempt in range(tries):
        board = Board(instance)
        moves: list[Cell] = []
        while board.whites_left:
            legal = board.legal_moves()
            if not legal or (best is not None and len(moves) >= len(best)):
                break
            scored = [(len(board.flips(m)), rng.random() if attempt else 0.0, m) for m in legal]
            move = max(scored)[2]
            board.push(move)
            moves.append(move)
        if board.whites_left == 0 and (best is None or len(moves) < len(best)):
            best = tuple(moves)
    return best


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A random board: ``whites`` stones in ``components`` separate 8-connected groups.

    Args:
        options: ``size`` (k, default 7), ``whites`` (q, default 6), ``components``
            (default 2).
        seed: the random seed; the same seed gives the same board.

    Raises:
        InvalidInstanceError: the stones do not fit the board in that many groups.
    """
    size = options.get("size") or 7
    q = options.get("whites")
    q = 6 if q is None else q
    groups = options.get("components") or (1 if q else 0)
    if size < 3:
        raise InvalidInstanceError(f"--size {size}: board size must be at least 3")
    if q < groups or (q > 0 and groups < 1):
        raise InvalidInstanceError(f"--whites {q} --components {groups}: cannot split {q} white stones into {groups}")
    if q > (size - 2) ** 2:
        raise InvalidInstanceError(f"--whites {q} --size {size}: {q} white stones do not fit inside the board's frame")
    rng = random.Random(seed)
    inner = [(r, c) for r in range(1, size - 1) for c in range(1, size - 1)]
    inner_set = set(inner)
    for _ in range(2000):
        owner: dict[Cell, int] = {}
        ok = True
        for g in range(groups):
            free = [cell for cell in inner if not _touches(cell, owner, None) and cell not in owner]
            if not free:
                ok = False
                break
            owner[rng.choice(free)] = g
        for _ in range(q - groups if ok else 0):
            g = rng.randrange(groups)
            grow = sorted({(r + dr, c + dc) for (r, c), o in owner.items() if o == g for dr, dc in DIRECTIONS})
            grow = [cell for cell in grow if cell in inner_set and cell not in owner and not _touches(cell, owner, g)]
            if not grow:
                ok = False
                break
            owner[rng.choice(grow)] = g
        if ok and len(components(owner)) == groups:
            cells = list(owner)
            rng.shuffle(cells)
            return Instance(size, tuple(cells))
    raise InvalidInstanceError(f"could not place {q} stones in {groups} components on a {size}x{size} board")


def _touches(cell: Cell, owner: dict[Cell, int], group: int | None) -> bool:
    """True when the cell is next to a stone of another group than ``group``."""
    r, c = cell
    for dr, dc in DIRECTIONS:
        o = owner.get((r + dr, c + dc))
        if o is not None and o != group:
            return True
    return False


# the step models solve by raising the horizon themselves: this one is for export
HORIZON = Option(
    "horizon", int, None, "export: the question 'every stone black within N moves?' (default: greedy's N)", low=0
)

PUZZLE = Puzzle(
    name="blacken",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.blacken:generate",
    write_instance=write_instance,
    draw="puzzlesat.domains.blacken_svg:draw",
    strategies=(
        Strategy(
            "native-bb",
            "puzzlesat.native.blacken:solve",
            "numba depth-first branch and bound: moves ordered by flips, transposition table, "
            "partial order of commuting moves, exact per-component lower bound; proves optimality",
        ),
        Strategy(
            "native-bb-par",
            "puzzlesat.native.blacken:solve_parallel",
            "the native search split into subtrees over --workers processes, best bound shared",
        ),
        Strategy(
            "cpsat-steps",
            "puzzlesat.models.blacken:solve",
            "CP-SAT time-indexed model (board per step, one placement per step), minimises moves",
            model="puzzlesat.models.blacken:build_model",
            options=(HORIZON,),
        ),
        Strategy(
            "cnf-steps",
            "puzzlesat.encoders.blacken:solve",
            "time-indexed CNF; the horizon raised from the lower bound under assumptions "
            "(incremental CaDiCaL); export with -O horizon=N asks 'in N moves?'",
            variants=SOLVERS,
            default_variant="cadical195",
            encoder="puzzlesat.encoders.blacken:encode",
            options=(HORIZON,),
        ),
        Strategy(
            "bfs",
            "puzzlesat.native.blacken:solve_bfs",
            "breadth-first search over positions in pure Python: the reference for small boards",
        ),
    ),
    portfolio=("native-bb", "cpsat-steps", "cnf-steps:cadical195"),
    generator_options=(
        Option("size", int, None, "board size k (k x k), default 7", low=3, high=MAX_SIZE),
        Option("whites", int, None, "number of white stones q, default 6", low=0, high=MAX_WHITES),
        Option("components", int, None, "number of 8-connected white groups, default 2", low=1, high=MAX_WHITES),
    ),
    optimisation=True,
)

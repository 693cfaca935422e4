"""Blacken's text formats: the seed's stone lists and answers (moves and the final board), and their size limits."""

from __future__ import annotations

import re

from puzzlesat.core import ParseError, check_length, is_int
from puzzlesat.domains.blacken.instance import BLACK, EMPTY, WHITE, Cell, Instance, Solution, replay

# the native search indexes a framed (k+2)^2 board in 12 bits: k <= 61; the public boards
# are at most 12x12
MAX_SIZE = 61
# The time-indexed models hold a board per step, up to 2q steps: 150 stones on a 30x30
# board measured 633 MB for the cnf-steps encoding (cpsat-steps 387 MB).  The public boards
# have at most 25.
MAX_WHITES = 150
# a stone is one short line: a megabyte is far more than MAX_WHITES stones need
MAX_INPUT_CHARS = 1_000_000
# ASCII digits only (``\d`` would also match '３'), no more than an int64 holds; compiled on
# first use by re's cache (listing the puzzles parses nothing)
_PAIR = r"^\s*(-?[0-9]{1,18})\s*[,;\s]\s*(-?[0-9]{1,18})\s*$"
_MOVE = r"^\s*x:\s*(-?[0-9]{1,18})\s+y:\s*(-?[0-9]{1,18})\s*$"
_RESULT = r"^\s*The result is\s+(-?[0-9]{1,18})\s*\.?\s*$"


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
        match = re.match(_PAIR, line)
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
    match = re.match(_RESULT, lines[index])
    if match is None:
        raise ParseError(f"{source}:{index + 1}: expected 'The result is N.', got {lines[index]!r}")
    claimed = int(match.group(1))
    index += 1
    moves: list[Cell] = []
    while index < len(lines) and lines[index].strip():
        move = re.match(_MOVE, lines[index])
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

"""Peg solitaire's text formats: the seed's matrices, jump lists, and their size limits."""

from __future__ import annotations

from puzzlesat.core import ParseError, check_length, content_lines, is_int
from puzzlesat.domains.pegsol.instance import OFF, Instance, Move, Solution

IMPOSSIBLE = "Impossivel"
# The SAT plans hold a copy of the board per jump, and there are about as many jumps as
# cells, so they grow with the cube of the cells: the cnf-plan encoding alone measured
# 171 MB at 64 cells, 356 MB at 81 and 694 MB at 100 (a 12x12 board's solve took 3.8-5.5 GB).
# The public boards have at most 45 cells (German, 9x9).
MAX_CELLS = 81
# bounds the matrix read before the board cells are counted (off-board cells are cheap)
MAX_SIDE = 100
# MAX_SIDE rows of MAX_SIDE values, twice (start and goal), with room for comments
MAX_INPUT_CHARS = 1_000_000


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

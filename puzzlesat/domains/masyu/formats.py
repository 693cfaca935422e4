"""Masyu's text formats: the challenge format, solutions as moves, puzz.link URLs, and their size limits."""

from __future__ import annotations

import re

from puzzlesat.core import ParseError, check_length, is_int
from puzzlesat.domains.masyu.instance import BLACK, EMPTY, STEP, WHITE, Cell, Instance, Solution

NO_SOLUTION = "NO SOLUTION"
MOVES_PER_LINE = 40
PZPR_DIGITS = "0123456789abcdefghijklmnopq"  # base 27: three cells per character, weights 9, 3, 1
# The complete encodings grow faster than the cells (cnf-rank: a binary rank per cell; a
# 1000x1000 grid took 5.6 GB): the cnf-rank encoding measured 165 MB at 60x60 and 481 MB at
# 100x100 (cpsat-circuit 170 MB).  The largest public puzzles are 40x58 and 35x65.
MAX_CELLS = 10_000
MAX_SIDE = 1000
# a grid of MAX_CELLS cells, every one a circle, is about 100 kB in the challenge format
MAX_INPUT_CHARS = 1_000_000


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

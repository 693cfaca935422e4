"""Named board shapes and random solvable peg solitaire instances."""

from __future__ import annotations

import random
from typing import Any

from puzzlesat.core import InvalidInstanceError, is_int
from puzzlesat.domains.pegsol.formats import MAX_CELLS
from puzzlesat.domains.pegsol.instance import HOLE, OFF, PEG, Cell, Instance


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

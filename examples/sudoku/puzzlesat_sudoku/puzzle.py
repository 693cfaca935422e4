"""The sudoku puzzle: its file format, its verifier, its generator and its declaration.

A file holds one puzzle: 81 cells row by row (whitespace ignored), ``1``-``9`` for a given
digit, ``.`` or ``0`` for a blank.  The answer is the 81 digits on one line, or
``NO SOLUTION``.  Nothing here imports a solver library: puzzlesat reads this module to list
the puzzle, and imports a strategy's module only when it runs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from puzzlesat import SAT_SOLVERS, Option, ParseError, Puzzle, Strategy

SIZE = 9
CELLS = SIZE * SIZE
NO_SOLUTION = "NO SOLUTION"


@dataclass(frozen=True)
class Sudoku:
    """One puzzle: ``givens[i]`` is the digit of cell ``i`` (row-major), 0 for a blank."""

    givens: tuple[int, ...]


Answer = tuple[int, ...]  # the 81 digits, row-major


def units() -> list[list[int]]:
    """The 27 groups of cells that hold every digit once: rows, columns, boxes."""
    rows = [[9 * r + c for c in range(9)] for r in range(9)]
    cols = [[9 * r + c for r in range(9)] for c in range(9)]
    boxes = [[9 * (br + r) + bc + c for r in range(3) for c in range(3)] for br in (0, 3, 6) for bc in (0, 3, 6)]
    return rows + cols + boxes


def peers(cell: int) -> set[int]:
    """The cells that share a row, column or box with ``cell``."""
    return {other for unit in units() if cell in unit for other in unit} - {cell}


PEERS = [sorted(peers(cell)) for cell in range(CELLS)]


def _cells(text: str, source: str, what: str, blanks: str) -> tuple[int, ...]:
    """The digits of a text (whitespace ignored); a bad character or count names its line."""
    digits: list[int] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        for char in line:
            if char.isspace():
                continue
            if char in blanks:
                digits.append(0)
            elif char in "123456789":
                digits.append(int(char))
            else:
                expected = "1-9" + (f" or one of {blanks}" if blanks else "")
                raise ParseError(f"{source}:{lineno}: {char!r} in {what}: expected {expected}")
    if len(digits) != CELLS:
        raise ParseError(f"{source}: {what} has {len(digits)} cells, expected {CELLS}")
    return tuple(digits)


def parse(text: str, source: str) -> Sudoku:
    """A puzzle file; raises ParseError naming the source and the line."""
    return Sudoku(_cells(text, source, "the puzzle", ".0"))


def write_instance(instance: Sudoku) -> str:
    """Nine lines of nine cells, ``.`` for a blank."""
    text = "".join(str(d) if d else "." for d in instance.givens)
    return "".join(text[r : r + 9] + "\n" for r in range(0, CELLS, 9))


def format_answer(instance: Sudoku, answer: Answer | None) -> str:
    """The 81 digits on one line, or ``NO SOLUTION``."""
    return NO_SOLUTION + "\n" if answer is None else "".join(map(str, answer)) + "\n"


def parse_answer(instance: Sudoku, text: str, source: str) -> Answer | None:
    """An answer as :func:`format_answer` writes it; None for ``NO SOLUTION``."""
    if text.strip() == NO_SOLUTION:
        return None
    return _cells(text, source, "the answer", "")


def verify(instance: Sudoku, answer: Answer) -> list[str]:
    """What is wrong with an answer: empty when it fills every cell, keeps the givens and
    puts every digit once in each row, column and box."""
    if len(answer) != CELLS or any(d not in range(1, 10) for d in answer):
        return [f"expected {CELLS} digits 1-9"]
    givens = enumerate(instance.givens)
    problems = [f"cell {divmod(i, 9)} changes the given {g}" for i, g in givens if g and g != answer[i]]
    names = [f"row {k}" for k in range(9)] + [f"column {k}" for k in range(9)] + [f"box {k}" for k in range(9)]
    for name, unit in zip(names, units(), strict=True):
        if sorted(answer[i] for i in unit) != list(range(1, 10)):
            problems.append(f"{name} does not hold every digit once")
    return problems


def search(givens: tuple[int, ...], limit: int, rng: random.Random | None = None) -> list[Answer]:
    """Up to ``limit`` answers by depth-first search, fewest candidates first (plain Python).

    ``rng`` shuffles the digits tried, for the generator's random full grids.
    """
    grid = list(givens)
    found: list[Answer] = []
    digits = list(range(1, 10))

    def candidates(cell: int) -> list[int]:
        used = {grid[p] for p in PEERS[cell]}
        return [d for d in digits if d not in used]

    def descend() -> None:
        blanks = [(len(cands), cell, cands) for cell in range(CELLS) if not grid[cell] for cands in [candidates(cell)]]
        if not blanks:
            found.append(tuple(grid))
            return
        _, cell, cands = min(blanks)
        if rng is not None:
            rng.shuffle(cands)
        for digit in cands:
            grid[cell] = digit
            descend()
            if len(found) >= limit:
                return
        grid[cell] = 0

    if all(not g or g not in {givens[p] for p in PEERS[i]} for i, g in enumerate(givens)):
        descend()
    return found


def generate(options: dict[str, Any], seed: int) -> Sudoku:
    """A puzzle with exactly one answer: a random full grid, then blanks made in a random
    order while the answer stays unique, down to ``givens`` cells (default: as few as that
    order allows)."""
    rng = random.Random(seed)
    grid = list(search((0,) * CELLS, 1, rng)[0])
    floor = options.get("givens") or 17
    order = list(range(CELLS))
    rng.shuffle(order)
    for cell in order:
        if sum(1 for d in grid if d) <= floor:
            break
        kept, grid[cell] = grid[cell], 0
        if len(search(tuple(grid), 2)) != 1:
            grid[cell] = kept
    return Sudoku(tuple(grid))


UNIQUE = Option("unique", bool, False, "prove the answer unique, or show a second one")

PUZZLE = Puzzle(
    name="sudoku",
    parse=parse,
    format=format_answer,
    parse_solution=parse_answer,
    verify=verify,
    generator="puzzlesat_sudoku.puzzle:generate",
    write_instance=write_instance,
    strategies=(
        Strategy(
            "cpsat-alldiff",
            "puzzlesat_sudoku.cpsat:solve",
            "CP-SAT: a 1-9 variable per cell, AllDifferent per row, column and box",
            model="puzzlesat_sudoku.cpsat:build_model",
        ),
        Strategy(
            "cnf-onehot",
            "puzzlesat_sudoku.cnf:solve",
            "CNF: a Boolean per (cell, digit), exactly one digit per cell and one cell per digit and unit",
            variants=tuple(s for s in SAT_SOLVERS if "kissat" not in s),  # incremental: --unique adds a clause
            default_variant="cadical195",
            encoder="puzzlesat_sudoku.cnf:encode",
            options=(Option("redundant", bool, True, "also 'at most one cell per digit and unit' (implied)"),),
            modes=("unique",),
        ),
        Strategy(
            "python-dfs",
            "puzzlesat_sudoku.dfs:solve",
            "plain Python depth-first search, fewest candidates first (the generator's own)",
            modes=("unique",),
        ),
    ),
    portfolio=("cpsat-alldiff", "cnf-onehot:cadical195"),
    generator_options=(Option("givens", int, None, "stop blanking at this many givens (default 17)", low=17, high=81),),
    solve_options=(UNIQUE,),
    modes=("unique",),
)

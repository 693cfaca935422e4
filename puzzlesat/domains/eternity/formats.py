"""Eternity's text formats: the seed's tile lists, hints files, solutions, and their size limits."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from puzzlesat.core import ParseError, check_length, content_lines, int_tokens, is_int, read_named
from puzzlesat.domains.eternity.instance import GREY, Hint, Instance, Solution, rotated

NOT_FOUND = "SOLUTION NOT FOUND"
# The Heule CNF grows with the square of the cells (every tile on every cell in four turns):
# measured 263 MB at 16x16, 680 MB at 20x20 and past 1.2 GB at 24x24 for the encoding
# alone, so 21x21 (about 830 MB) is the largest board kept under 1 GB.  The largest public
# sets (Owen's graded boards) are 20x20.
MAX_CELLS = 441
# The native lookup holds 9 classes x colours^2 slots of int64 (a header of 20 000 colours
# asked for 27 GiB); 1000 colours cost about 220 MB.  Public sets use at most 29.
MAX_COLOURS = 1000
# 441 tile lines take about 10 kB; a megabyte leaves room for any spacing or comment.
MAX_INPUT_CHARS = 1_000_000


def parse(text: str, source: str = "<input>") -> Instance:
    """Read the seed format (``g c`` header) or the rectangle form (``rows cols c``).

    Raises:
        ParseError: malformed text, a wrong tile count or a colour out of range, naming the
            source and line.
    """
    check_length(text, source, MAX_INPUT_CHARS)
    lines = text.splitlines()
    section = next((i for i, line in enumerate(lines) if line.strip() == HINTS_SECTION), len(lines))
    rows_of_ints = int_tokens("\n".join(lines[:section]), source)
    if not rows_of_ints:
        raise ParseError(f"{source}:1: empty input, expected a header 'g c' or 'rows cols c'")
    lineno, header = rows_of_ints[0]
    if len(header) == 2:
        rows, cols, colours = header[0], header[0], header[1]
    elif len(header) == 3:
        rows, cols, colours = header
    else:
        raise ParseError(f"{source}:{lineno}: expected header 'g c' or 'rows cols c', got {len(header)} numbers")
    if rows < 2 or cols < 2:
        raise ParseError(f"{source}:{lineno}: board must be at least 2x2, got {rows}x{cols}")
    if colours < 2:
        raise ParseError(f"{source}:{lineno}: need at least 2 colours (grey and one more), got {colours}")
    if rows * cols > MAX_CELLS:
        raise ParseError(
            f"{source}:{lineno}: a {rows}x{cols} board has {rows * cols} cells, more than the limit of {MAX_CELLS}"
        )
    if colours > MAX_COLOURS:
        raise ParseError(f"{source}:{lineno}: {colours} colours, more than the limit of {MAX_COLOURS}")
    body = rows_of_ints[1:]
    if len(body) != rows * cols:
        # too many: the first line beyond the board; too few: the last line there is
        where = body[rows * cols][0] if len(body) > rows * cols else (body[-1][0] if body else lineno)
        raise ParseError(
            f"{source}:{where}: expected {rows * cols} tile lines for a {rows}x{cols} board, got {len(body)}"
        )
    # The seed counts grey in c (colours 0..c-1); Heule's benchmark files count only the
    # others (colours 0..c).  Both are read; anything above c is an error.
    tiles = []
    for lineno, values in body:
        if len(values) != 4:
            raise ParseError(f"{source}:{lineno}: expected 4 colours 'N E S W', got {len(values)} numbers")
        for value in values:
            if not 0 <= value <= colours:
                raise ParseError(f"{source}:{lineno}: colour {value} out of range 0..{colours}")
        tiles.append((values[0], values[1], values[2], values[3]))
    if any(colours in tile for tile in tiles):
        colours += 1
    instance = Instance(rows, cols, colours, tuple(tiles))
    if section < len(lines):  # blank lines in place of the others keep the file's line numbers
        instance = with_hints(instance, "\n" * (section + 1) + "\n".join(lines[section + 1 :]), source)
    return instance


HINTS_SECTION = "hints"


def parse_hints(
    instance: Instance, text: str, source: str = "<hints>", given: tuple[Hint, ...] = ()
) -> tuple[Hint, ...]:
    """Read hint lines ``TILE ROW COL ROTATION`` and check them against the board.

    Tile ids are 0-based as in our output, rows and columns count from the top-left and the
    rotation is in clockwise quarter turns; ``#`` starts a comment.  A line may end with
    ``-> N E S W``, the colours the turned tile shows, which are then checked.  The official
    Eternity II hints file numbers its pieces from 1 (by line of ``e2_16x16.txt``) and states
    every line's colours: a file whose colours all match only when its ids are read 1-based
    is read so.

    Raises:
        ParseError: naming the file and line of a malformed line, a tile, cell or rotation out
            of range, a tile or cell hinted twice, a hint whose grey edges do not face the
            frame, or colours that do not match; ``given`` hints count as already read.
    """
    check_length(text, source, MAX_INPUT_CHARS)
    lines = []  # (line number, tile, row, col, rotation, stated colours or None)
    for lineno, line in content_lines(text):
        head, arrow, tail = line.partition("->")
        parts, colours = head.split(), tail.split()
        if len(parts) != 4 or (arrow and len(colours) != 4) or not all(is_int(p) for p in parts + colours):
            raise ParseError(f"{source}:{lineno}: expected 'TILE ROW COL ROTATION [-> N E S W]', got {line!r}")
        tile, row, col, rot = (int(p) for p in parts)
        lines.append((lineno, tile, row, col, rot, tuple(int(c) for c in colours) if arrow else None))

    def shows(tile: int, rot: int, stated: tuple[int, ...] | None) -> bool:
        return stated is None or (0 <= tile < instance.cells and rotated(instance.tiles[tile], rot) == stated)

    one_based = (
        bool(lines)
        and all(stated is not None for *_, stated in lines)
        and not all(shows(tile, rot, stated) for _, tile, _, _, rot, stated in lines)
        and all(shows(tile - 1, rot, stated) for _, tile, _, _, rot, stated in lines)
    )
    hints: list[Hint] = []
    for lineno, tile, row, col, rot, stated in lines:
        tile -= one_based
        where = f"{source}:{lineno}"
        if not 0 <= tile < instance.cells:
            raise ParseError(f"{where}: tile {tile} does not exist (tiles 0..{instance.cells - 1})")
        if not (0 <= row < instance.rows and 0 <= col < instance.cols):
            raise ParseError(f"{where}: cell ({row}, {col}) is off the {instance.rows}x{instance.cols} board")
        if not 0 <= rot < 4:
            raise ParseError(f"{where}: rotation {rot} not in 0..3")
        hint = Hint(tile, row * instance.cols + col, rot)
        problem = hint_problem(instance, hint, [*given, *hints])
        if problem:
            raise ParseError(f"{where}: {problem}")
        if not shows(tile, rot, stated):
            raise ParseError(
                f"{where}: tile {tile} turned {rot} shows {rotated(instance.tiles[tile], rot)}, not {stated}"
            )
        hints.append(hint)
    return tuple(hints)


def hint_problem(instance: Instance, hint: Hint, others: list[Hint] | tuple[Hint, ...]) -> str:
    """Why a hint cannot join the others on this board ('' when it can)."""
    row, col = divmod(hint.cell, instance.cols)
    for other in others:
        if other.tile == hint.tile:
            return f"tile {hint.tile} is hinted twice (cells {divmod(other.cell, instance.cols)} and {(row, col)})"
        if other.cell == hint.cell:
            return f"cell {(row, col)} is hinted twice (tiles {other.tile} and {hint.tile})"
    look = rotated(instance.tiles[hint.tile], hint.rotation)
    if {s for s in range(4) if look[s] == GREY} != set(instance.frame_sides(hint.cell)):
        return (
            f"tile {hint.tile} turned {hint.rotation} shows {look}: "
            f"its grey edges do not face the frame at {(row, col)}"
        )
    return ""


def with_hints(instance: Instance, text: str, source: str = "<hints>") -> Instance:
    """The instance with the hints of ``text`` (see :func:`parse_hints`) added to its own."""
    return replace(instance, hints=instance.hints + parse_hints(instance, text, source, instance.hints))


def read_hints(instance: Instance, options: dict[str, Any]) -> Instance:
    """The instance completed by its instance options: ``hints``, a hints file to read."""
    path = options.get("hints")
    if not path:
        return instance
    text = read_named(path)
    return with_hints(instance, text, path)


def write_instance(instance: Instance) -> str:
    """The instance in the input format (seed header for square boards)."""
    header = (
        f"{instance.rows} {instance.colours}"
        if instance.square
        else f"{instance.rows} {instance.cols} {instance.colours}"
    )
    hints = [
        HINTS_SECTION,
        *(f"{h.tile} {h.cell // instance.cols} {h.cell % instance.cols} {h.rotation}" for h in instance.hints),
    ]
    return (
        "\n".join([header, *(" ".join(map(str, t)) for t in instance.tiles), *(hints if instance.hints else [])]) + "\n"
    )


def format_solution(instance: Instance, solution: Solution | None) -> str:
    """The seed's output: ``tile rotations`` per cell, or ``SOLUTION NOT FOUND``."""
    if solution is None:
        return NOT_FOUND + "\n"
    return "".join(f"{tile} {rot}\n" for tile, rot in solution.placements)


def parse_solution(instance: Instance, text: str, source: str = "<solution>") -> Solution | None:
    """Read an answer in the seed's output format; None for ``SOLUTION NOT FOUND``.

    ``#`` starts a comment (a ``--checkpoint`` file keeps its run's record in one).

    Raises:
        ParseError: malformed lines or the wrong number of cells.
    """
    if text.strip() == NOT_FOUND:
        return None
    check_length(text, source, MAX_INPUT_CHARS)
    lines = int_tokens("\n".join(line.partition("#")[0] for line in text.splitlines()), source)
    for lineno, values in lines:
        if len(values) != 2:
            raise ParseError(f"{source}:{lineno}: expected 'tile rotations', got {len(values)} numbers")
    if len(lines) != instance.cells:
        where = lines[instance.cells][0] if len(lines) > instance.cells else (lines[-1][0] if lines else 1)
        raise ParseError(f"{source}:{where}: expected {instance.cells} 'tile rotations' lines, got {len(lines)}")
    return Solution(tuple((values[0], values[1]) for _, values in lines))

"""Edge matching (Eternity II): a board of square tiles whose touching edges share a colour.

Conventions: cells are ``(row, col)`` with (0, 0) top-left, numbered ``row * cols + col``.
A tile lists its edge colours clockwise from the top: N, E, S, W (sides 0..3).  Rotating a
tile ``r`` clockwise quarter turns puts its listed colour ``(s - r) mod 4`` on side ``s``.
Colour 0 (grey) lies on the board frame and nowhere else.

Input (the seed's format): ``g c`` then g*g lines ``N E S W``; tile ids are the 0-based line
order; c counts the colours with grey (the seed) or without it (Heule's benchmark files).
Rectangles use the header ``rows cols c``.  Output: one ``tile rotations`` line per cell,
left to right, top to bottom, or ``SOLUTION NOT FOUND``.

Hint pieces (Eternity II's starter and clue pieces) pin a tile to a cell in a given turn.
They come from a hints file (``--hints FILE``: lines ``TILE ROW COL ROTATION``, see
:func:`parse_hints`) and belong to the instance: every formulation and the verifier honour
them, and the instance text carries them after its tiles, in a section opened by a line
``hints`` (how an exported sidecar keeps them).

Size limits (checked before anything is allocated): at most :data:`MAX_CELLS` cells and
:data:`MAX_COLOURS` colours, and :data:`MAX_INPUT_CHARS` characters of text.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any

from puzzlesat.core import (
    SAT_SOLVERS,
    InvalidInstanceError,
    Option,
    ParseError,
    Puzzle,
    PuzzlesatError,
    Result,
    Strategy,
    check_length,
    content_lines,
    int_tokens,
    is_int,
    read_text,
)

NOT_FOUND = "SOLUTION NOT FOUND"
GREY = 0
N, E, S, W = range(4)

Tile = tuple[int, int, int, int]

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


@dataclass(frozen=True)
class Hint:
    """A hint piece: ``tile`` lies on ``cell`` (row-major) turned ``rotation`` clockwise quarter turns."""

    tile: int
    cell: int
    rotation: int


@dataclass(frozen=True)
class Instance:
    """A board of ``rows x cols`` cells, the tiles to place on it and the hint pieces.

    >>> Instance(2, 2, 2, ((0, 1, 1, 0), (0, 0, 1, 1), (1, 1, 0, 0), (1, 0, 0, 1))).square
    True
    """

    rows: int
    cols: int
    colours: int
    tiles: tuple[Tile, ...]
    hints: tuple[Hint, ...] = ()

    @property
    def square(self) -> bool:
        """True for a g x g board, written with the seed's two-number header."""
        return self.rows == self.cols

    @property
    def cells(self) -> int:
        """Number of cells (= number of tiles)."""
        return self.rows * self.cols

    def _repr_svg_(self) -> str:
        """The pieces as given, as a notebook shows them (:func:`draw_svg`)."""
        return draw_svg(self, None)

    def is_frame(self, cell: int) -> bool:
        """True for a cell on the outer ring of the board."""
        r, c = divmod(cell, self.cols)
        return r in (0, self.rows - 1) or c in (0, self.cols - 1)

    def frame_sides(self, cell: int) -> tuple[int, ...]:
        """The sides of ``cell`` that face off the board (and must be grey)."""
        r, c = divmod(cell, self.cols)
        sides = []
        if r == 0:
            sides.append(N)
        if c == self.cols - 1:
            sides.append(E)
        if r == self.rows - 1:
            sides.append(S)
        if c == 0:
            sides.append(W)
        return tuple(sides)

    def grey_count(self, tile: int) -> int:
        """Number of grey edges of a tile: 2 corner, 1 border, 0 inner."""
        return sum(1 for colour in self.tiles[tile] if colour == GREY)

    def colour_domains(self) -> tuple[frozenset[int], frozenset[int]]:
        """(frame colours, inner colours): colours seen on frame-to-frame edges and elsewhere.

        On a border or corner tile, the sides next to a grey side run along the frame; every
        other non-grey side (all sides of a tile without grey) points into the board.
        """
        frame: set[int] = set()
        inner: set[int] = set()
        for tile in self.tiles:
            for side, colour in enumerate(tile):
                if colour == GREY:
                    continue
                along = tile[(side + 1) % 4] == GREY or tile[(side - 1) % 4] == GREY
                (frame if along else inner).add(colour)
        return frozenset(frame), frozenset(inner)


@dataclass(frozen=True)
class Solution:
    """The placement of each cell, row-major: ``(tile id, clockwise quarter turns)``."""

    placements: tuple[tuple[int, int], ...]


def rotated(tile: Tile, turns: int) -> Tile:
    """The tile's colours on sides N, E, S, W after ``turns`` clockwise quarter turns.

    >>> rotated((1, 2, 3, 4), 1)
    (4, 1, 2, 3)
    """
    t = turns % 4
    return (tile[(0 - t) % 4], tile[(1 - t) % 4], tile[(2 - t) % 4], tile[(3 - t) % 4])


def placements(instance: Instance) -> dict[int, list[tuple[int, int]]]:
    """Cell -> the (tile, rotation) pairs whose grey sides are exactly the cell's frame sides.

    Rotations that give a tile the same look on a cell are kept once.  A hinted cell holds
    its hint alone and a hinted tile goes nowhere else.  Both the CNF and the CP-SAT
    formulation place tiles from these lists.
    """
    by_cell: dict[int, list[tuple[int, int]]] = {hint.cell: [(hint.tile, hint.rotation)] for hint in instance.hints}
    hinted = {hint.tile for hint in instance.hints}
    for cell in range(instance.cells):
        if cell in by_cell:
            continue
        frame = set(instance.frame_sides(cell))
        options = []
        for tile, colours in enumerate(instance.tiles):
            if tile in hinted:
                continue
            looks = set()
            for rot in range(4):
                sides = rotated(colours, rot)
                if {s for s in range(4) if sides[s] == GREY} == frame and sides not in looks:
                    looks.add(sides)
                    options.append((tile, rot))
        by_cell[cell] = options
    return dict(sorted(by_cell.items()))


def board_rotations(instance: Instance) -> int:
    """How many rotations map the board onto itself: 4 on a square, 2 on a rectangle (the half turn).

    Each of them maps a solution onto a solution, and every one but the identity moves every
    corner cell to another corner cell, so it moves the tile there: the rotations of a
    solution are all different solutions (no solution is its own rotation, since a tile lies
    on one cell only; identical pieces are told apart by their ids).
    """
    return 4 if instance.square else 2


def first_corner(instance: Instance) -> tuple[int, tuple[int, ...]] | None:
    """Symmetry breaking: (the first corner tile, the cells it may lie on), or None when it may not.

    The cells are the top-left one on a square and the two top corners on a rectangle: of the
    :func:`board_rotations` of any solution, exactly one puts the first corner tile there, so
    the solutions kept are one per class of rotations.  A hint piece already fixes the
    board's turn (and turning the board would move it), so with hints there is none.

    >>> first_corner(Instance(2, 3, 2, ((0, 1, 1, 0),) * 6))
    (0, (0, 2))
    """
    if instance.hints:
        return None
    corners = [t for t in range(instance.cells) if instance.grey_count(t) == 2]
    if not corners:
        return None
    return corners[0], (0,) if instance.square else (0, instance.cols - 1)


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
    try:
        text = read_text(path, path)
    except OSError as exc:
        raise PuzzlesatError(f"{path}: cannot read: {exc.strerror or exc}") from None
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


def verify(instance: Instance, solution: Solution, matching: bool = True) -> list[str]:
    """Every rule the placement breaks; an empty list means the board is solved.

    With ``matching`` False, edges whose colours differ are allowed: the board need only be
    legal (every tile once, grey exactly on the frame, the hints kept), as a scored board is.
    """
    problems: list[str] = []
    n = instance.cells
    if len(solution.placements) != n:
        return [f"expected {n} placements, got {len(solution.placements)}"]
    seen: dict[int, int] = {}
    for cell, (tile, rot) in enumerate(solution.placements):
        if not 0 <= tile < n:
            problems.append(f"cell {divmod(cell, instance.cols)}: tile {tile} does not exist")
        elif tile in seen:
            problems.append(
                f"tile {tile} used twice (cells {divmod(seen[tile], instance.cols)} and {divmod(cell, instance.cols)})"
            )
        else:
            seen[tile] = cell
        if not 0 <= rot < 4:
            problems.append(f"cell {divmod(cell, instance.cols)}: rotation {rot} not in 0..3")
    if problems:
        return problems
    board = [rotated(instance.tiles[t], r) for t, r in solution.placements]
    for hint in instance.hints:
        tile, rot = solution.placements[hint.cell]
        if tile != hint.tile or board[hint.cell] != rotated(instance.tiles[hint.tile], hint.rotation):
            problems.append(
                f"cell {divmod(hint.cell, instance.cols)}: the hint wants tile {hint.tile} turned {hint.rotation}, "
                f"got tile {tile} turned {rot}"
            )
    for cell, sides in enumerate(board):
        row, col = divmod(cell, instance.cols)
        frame = instance.frame_sides(cell)
        for side in range(4):
            if side in frame and sides[side] != GREY:
                problems.append(f"cell {(row, col)}: side {'NESW'[side]} faces the frame but is colour {sides[side]}")
            if side not in frame and sides[side] == GREY:
                problems.append(f"cell {(row, col)}: grey edge inside the board on side {'NESW'[side]}")
        if not matching:
            continue
        if col + 1 < instance.cols and sides[E] != board[cell + 1][W]:
            problems.append(
                f"cells {(row, col)} and {(row, col + 1)}: colours {sides[E]} and {board[cell + 1][W]} meet"
            )
        if row + 1 < instance.rows and sides[S] != board[cell + instance.cols][N]:
            problems.append(
                f"cells {(row, col)} and {(row + 1, col)}: colours {sides[S]} and {board[cell + instance.cols][N]} meet"
            )
    return problems


def mismatches(instance: Instance, solution: Solution) -> list[tuple[int, int]]:
    """The adjacent cell pairs ``(cell, east or south neighbour)`` whose touching colours differ."""
    board = [rotated(instance.tiles[t], r) for t, r in solution.placements]
    cols = instance.cols
    pairs = [(c, c + 1) for c in range(instance.cells) if c % cols + 1 < cols and board[c][E] != board[c + 1][W]]
    pairs += [(c, c + cols) for c in range(instance.cells - cols) if board[c][S] != board[c + cols][N]]
    return sorted(pairs)


def max_score(instance: Instance) -> int:
    """The number of adjacent cell pairs: 2g(g-1) on a g x g board (480 on Eternity II's 16x16)."""
    return instance.rows * (instance.cols - 1) + (instance.rows - 1) * instance.cols


def score(instance: Instance, solution: Solution) -> int:
    """Matched adjacent edges of a full board (tiles and rotations in range): :func:`max_score` when solved."""
    return max_score(instance) - len(mismatches(instance, solution))


def draw_svg(instance: Instance, solution: Solution | None) -> str:
    """The board as an SVG picture: hint pieces outlined, mismatched edges in red; without a
    solution, the pieces as given, in input order.

    Cells whose tile or rotation is out of range are left white.
    """
    from puzzlesat.domains.eternity_svg import draw_board  # loaded only when a picture is asked for

    if solution is None:
        return draw_board(instance.rows, instance.cols, list(instance.tiles))
    looks = [
        rotated(instance.tiles[t], r) if 0 <= t < instance.cells and 0 <= r < 4 else None
        for t, r in solution.placements
    ]
    drawable = None not in looks and len(looks) == instance.cells
    return draw_board(
        instance.rows,
        instance.cols,
        looks,
        hinted={hint.cell for hint in instance.hints},
        mismatched=mismatches(instance, solution) if drawable else [],
    )


def notes(instance: Instance, result: Result, options: dict[str, Any]) -> list[str]:
    """With ``score``, the line ``c score N/MAX`` (counted again here) to show after an answer."""
    if options.get("score"):
        return [f"c score {score(instance, result.solution)}/{max_score(instance)}"]
    return []


def verify_run(instance: Instance, solution: Solution, options: dict[str, Any]) -> list[str]:
    """The verifier of a run: with ``score`` the board need only be legal (mismatches scored)."""
    return verify(instance, solution, matching=not options.get("score"))


def generate(options: dict[str, Any], seed: int) -> Instance:
    """A puzzle with a planted solution, its tiles shuffled and rotated.

    Args:
        options: ``size`` (or ``rows`` and ``cols``), ``frame_colours`` (colours on edges
            between two frame cells) and ``inner_colours`` (all other inside edges).
        seed: the random seed; the same seed gives the same puzzle.

    Returns:
        An instance with ``1 + frame_colours + inner_colours`` colours.
    """
    size = options.get("size") or 4
    rows = options.get("rows") or size
    cols = options.get("cols") or size
    frame_colours = options.get("frame_colours") or 1
    inner_colours = options.get("inner_colours") or 1
    if rows < 2 or cols < 2:
        raise InvalidInstanceError(f"--rows {rows} --cols {cols}: board must be at least 2x2")
    if rows * cols > MAX_CELLS:
        raise InvalidInstanceError(
            f"--rows {rows} --cols {cols}: a {rows}x{cols} board has more cells than the limit of {MAX_CELLS}"
        )
    colours = f"--frame-colours {frame_colours} --inner-colours {inner_colours}"
    if 1 + frame_colours + inner_colours > MAX_COLOURS:
        raise InvalidInstanceError(
            f"{colours}: {1 + frame_colours + inner_colours} colours, more than the limit of {MAX_COLOURS}"
        )
    if frame_colours < 1 or inner_colours < 1:
        raise InvalidInstanceError(f"{colours}: need at least one frame colour and one inner colour")
    rng = random.Random(seed)

    def edge_colour(frame_edge: bool) -> int:
        if frame_edge:
            return rng.randint(1, frame_colours)
        return frame_colours + rng.randint(1, inner_colours)

    # horizontal[r][c]: colour between (r, c) and (r, c+1); vertical[r][c]: (r, c) and (r+1, c)
    horizontal = [[edge_colour(r in (0, rows - 1)) for c in range(cols - 1)] for r in range(rows)]
    vertical = [[edge_colour(c in (0, cols - 1)) for c in range(cols)] for r in range(rows - 1)]
    solved = []
    for r in range(rows):
        for c in range(cols):
            north = vertical[r - 1][c] if r > 0 else GREY
            east = horizontal[r][c] if c < cols - 1 else GREY
            south = vertical[r][c] if r < rows - 1 else GREY
            west = horizontal[r][c - 1] if c > 0 else GREY
            solved.append(rotated((north, east, south, west), rng.randrange(4)))
    rng.shuffle(solved)
    return Instance(rows, cols, 1 + frame_colours + inner_colours, tuple(solved))


def make_unsolvable(instance: Instance) -> Instance:
    """Recolour one inner edge of one inner tile so that colour counts turn odd.

    Every inside colour must occur an even number of times (edges pair up), so changing a
    single edge to another inner colour leaves no solution.  Used by tests.
    """
    tiles = list(instance.tiles)
    index = next(i for i, t in enumerate(tiles) if GREY not in t)
    north = tiles[index][N]
    _, inner = instance.colour_domains()
    others = sorted(inner - {north}) or [north % (instance.colours - 1) + 1]
    tiles[index] = (others[0], *tiles[index][1:])  # type: ignore[assignment]
    return Instance(instance.rows, instance.cols, instance.colours, tuple(tiles))


SYMMETRY = Option(
    "symmetry", bool, True, "without hints: one corner tile fixed top-left (square) or in the top row (rectangle)"
)
# cnf-heule's clause families (Heule 2008); the defaults are the fastest measured
HEULE_OPTIONS = (
    Option("amo", bool, True, "at most one tile per cell and one cell per tile (redundant)"),
    Option("support", bool, True, "an edge colour implies a tile on each side that shows it"),
    Option("forbidden", bool, False, "a placed tile forbids the colours it does not show"),
    SYMMETRY,
)
TABLE_OPTIONS = (SYMMETRY,)
ROWSCAN_OPTIONS = (
    Option(
        "colour_check",
        bool,
        False,
        "refuse a tile that leaves more cells needing a (class, north colour) than tiles left to fill them",
    ),
    Option("twins", bool, True, "identical pieces tried once per cell (counts multiplied back)"),
)

PUZZLE = Puzzle(
    name="eternity",
    parse=parse,
    format=format_solution,
    parse_solution=parse_solution,
    verify=verify,
    generator="puzzlesat.domains.eternity:generate",
    write_instance=write_instance,
    strategies=(
        Strategy(
            "native-rowscan",
            "puzzlesat.native.eternity:solve",
            "numba row-scan backtracker, (west, north) lookup of pre-rotated tiles, seeded restarts; "
            "--workers N shares one tree between N processes",
            options=ROWSCAN_OPTIONS,
            modes=("count", "score", "checkpoint", "resume"),
        ),
        Strategy(
            "cpsat-table",
            "puzzlesat.models.eternity:solve",
            "CP-SAT: a table constraint per cell over (tile, N, E, S, W), AllDifferent tiles",
            model="puzzlesat.models.eternity:build_model",
            options=TABLE_OPTIONS,
            modes=("score",),
        ),
        Strategy(
            "cnf-heule",
            "puzzlesat.encoders.eternity:solve",
            "Heule 2008 CNF: compatible tile-to-cell vars, one-hot edge colours; any pysat solver",
            variants=SAT_SOLVERS,
            default_variant="cadical195",
            encoder="puzzlesat.encoders.eternity:encode",
            options=HEULE_OPTIONS,
            # counting adds a blocking clause per board: Kissat takes no clauses between calls
            modes=tuple(f"count:{v}" for v in SAT_SOLVERS if "kissat" not in v),
        ),
        Strategy(
            "maxsat-rc2",
            "puzzlesat.encoders.eternity_maxsat:solve",
            "weighted CNF, one soft clause per edge (matched); pysat's RC2 proves the best score; small boards",
            encoder="puzzlesat.encoders.eternity_maxsat:encode",
            modes=("score",),
        ),
    ),
    # two members for a 2-core machine: measured with benchmarks/portfolio.py
    portfolio=("native-rowscan", "cnf-heule:cadical195"),
    instance_options=(Option("hints", str, None, "a hints file: lines 'TILE ROW COL ROTATION' pinning tiles"),),
    amend=read_hints,
    solve_options=(
        Option(
            "count",
            bool,
            False,
            "count every solution (a board and its rotations once) and print the number",
        ),
        Option(
            "score",
            bool,
            False,
            "maximise matched edges over legal boards; anytime: the best board at the time limit or "
            "Ctrl-C, 'c score N/MAX' on stderr",
        ),
        Option(
            "checkpoint",
            str,
            None,
            "with --score (native-rowscan): rewrite this file with the best board as it improves "
            "(atomically), and its picture beside it (FILE.svg)",
            writes=True,
        ),
        Option(
            "resume",
            str,
            None,
            "with --score (native-rowscan): start from this checkpoint (or board) file and keep it up to date",
            writes=True,
        ),
    ),
    notes=notes,
    draw="puzzlesat.domains.eternity:draw_svg",
    verify_run=verify_run,
    check_options=(Option("score", bool, False, "accept mismatched edges; print the matched ones (c score N/MAX)"),),
    check=verify_run,
    modes=("count", "score", "checkpoint", "resume"),
    generator_options=(
        Option("size", int, None, "board size g (g x g), default 4", low=2, high=math.isqrt(MAX_CELLS)),
        Option("rows", int, None, "rows, for a rectangle (overrides --size)", low=2, high=MAX_CELLS // 2),
        Option("cols", int, None, "columns, for a rectangle (overrides --size)", low=2, high=MAX_CELLS // 2),
        Option("frame_colours", int, None, "colours on edges along the frame, default 1", low=1, high=MAX_COLOURS),
        Option("inner_colours", int, None, "colours on the other inside edges, default 1", low=1, high=MAX_COLOURS),
    ),
)

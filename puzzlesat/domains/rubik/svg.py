"""A picture of a cube position and its solution: the net of facelets, then a strip of moves.

The net is the usual cross (U on top; L, F, R, B in a row; D below), each face read as in
the facelet string, in the common colour scheme (U white, R red, F green, D yellow, L
orange, B blue) with the face's letter on its centre.  Under it, each move of the answer
(the first maneuver of a solution) with a small net of the cube after it, so the strip
ends on the solved cube, or visibly not.
"""

from __future__ import annotations

from puzzlesat.domains.rubik.cube import FACES, Cube
from puzzlesat.domains.rubik.instance import Instance, Solution
from puzzlesat.domains.rubik.maneuvers import format_maneuver, maneuver_length
from puzzlesat.domains.svg import Picture

COLOURS = {"U": "#ffffff", "R": "#c41e3a", "F": "#009e60", "D": "#ffd500", "L": "#ff5800", "B": "#0051ba"}
NET = {"U": (1, 0), "L": (0, 1), "F": (1, 1), "R": (2, 1), "B": (3, 1), "D": (1, 2)}  # (column, row) of 3x3 blocks
BIG, SMALL = 20, 6
GAP = 16
STEP = 12 * SMALL + 14  # width of one move in the strip
PER_ROW = 10
TITLE = 20
SCRAMBLE_CHARS = 80


def net(cube: Cube, size: float, letters: bool = False) -> Picture:
    """The cube's net, ``size`` pixels a facelet."""
    picture = Picture(12 * size, 9 * size)
    facelets = cube.to_facelets()
    for f, face in enumerate(FACES):
        bx, by = NET[face]
        for k in range(9):
            x, y = (bx * 3 + k % 3) * size, (by * 3 + k // 3) * size
            colour = COLOURS[facelets[9 * f + k]]
            picture.rect(x, y, size, size, fill=colour, stroke="#222", stroke_width=max(0.5, size / 16))
        if letters:
            cx, cy = (bx * 3 + 1.5) * size, (by * 3 + 1.5) * size
            ink = "#fff" if face in "RFBL" else "#333"
            picture.text(cx, cy + 1, face, size * 0.6, fill=ink, font_weight="bold")
    return picture


def draw(instance: Instance, solution: Solution | None) -> str:
    """The SVG text: the position's net, and with a solution the strip of its first maneuver."""
    moves = solution.maneuvers[0] if solution is not None and solution.maneuvers else ()
    width = max(12 * BIG, min(len(moves), PER_ROW) * STEP) + 2 * GAP
    strip_rows = -(-len(moves) // PER_ROW) if solution is not None else 0
    strip_height = strip_rows * (9 * SMALL + TITLE + 8)
    height = GAP + TITLE + 9 * BIG + GAP + (TITLE + strip_height if solution is not None else 0) + GAP
    picture = Picture(width, height)
    picture.rect(0, 0, width, height, fill="white")
    title = "position"
    if instance.maneuver is not None:
        scramble = format_maneuver(instance.maneuver)
        cut = scramble if len(scramble) <= SCRAMBLE_CHARS else scramble[: SCRAMBLE_CHARS - 1] + "…"
        title = f"scramble: {cut}" if scramble else "solved cube"
    picture.text(GAP, GAP + TITLE / 2, title, 14, fill="#222", text_anchor="start")
    picture.group(net(instance.cube, BIG, letters=True), GAP, GAP + TITLE)
    if solution is None:
        return picture.svg()
    top = GAP + TITLE + 9 * BIG + GAP
    unit = "q" if solution.metric == "qtm" else "f"
    more = len(solution.maneuvers) - 1
    caption = f"solution: {maneuver_length(moves, solution.metric)}{unit}" if moves else "solution: already solved"
    if more:
        caption += f" (the first of {more + 1})"
    picture.text(GAP, top + TITLE / 2, caption, 14, fill="#222", text_anchor="start")
    cube = instance.cube
    for i, move in enumerate(moves):
        cube = cube.move(move)
        x = GAP + i % PER_ROW * STEP
        y = top + TITLE + i // PER_ROW * (9 * SMALL + TITLE + 8)
        picture.text(x + 6 * SMALL, y + TITLE / 2, f"{i + 1}. {format_maneuver((move,))}", 12, fill="#222")
        picture.group(net(cube, SMALL), x, y + TITLE)
    return picture.svg()

"""A picture of a blacken game: the start board, and the board after the moves with each
placed stone's number.

Stones sit on cells of a green board as in Othello.  On the final board a placed stone is
black with its move number in white, a stone that was white and was turned is black with a
grey ring, and a stone still white (never in a valid answer) stays white.  A move the rules
refuse is skipped, as the verifier does, and drawn as a red ring with its number in red.
"""

from __future__ import annotations

from puzzlesat.domains.blacken.instance import BLACK, EMPTY, WHITE, Cell, Instance, Solution, replay
from puzzlesat.domains.svg import Picture

CELL = 30
GAP = 24
CAPTION = 22
FELT, GRID = "#2e7d4f", "#1b5e36"
RING, ILLEGAL = "#9e9e9e", "#e53935"


def draw(instance: Instance, solution: Solution | None) -> str:
    """The SVG text: the start board, and with a solution the board after its moves."""
    side = instance.size * CELL
    boards = [("start", _board(instance, ()))]
    if solution is not None:
        count = len(solution.moves)
        boards.append((f"after {count} move{'s' if count != 1 else ''}", _board(instance, solution.moves)))
    picture = Picture(len(boards) * (side + GAP) + GAP, side + CAPTION + 2 * GAP)
    picture.rect(0, 0, picture.width, picture.height, fill="white")
    for i, (caption, board) in enumerate(boards):
        x = GAP + i * (side + GAP)
        picture.group(board, x, GAP)
        picture.text(x + side / 2, GAP + side + CAPTION / 2 + 4, caption, 14, fill="#222")
    return picture.svg()


def _board(instance: Instance, moves: tuple[Cell, ...]) -> Picture:
    """One board after ``moves`` (played as the verifier plays them)."""
    side = instance.size * CELL
    board = Picture(side, side)
    board.rect(0, 0, side, side, fill=FELT)
    for k in range(instance.size + 1):
        board.line(0, k * CELL, side, k * CELL, stroke=GRID, stroke_width=1)
        board.line(k * CELL, 0, k * CELL, side, stroke=GRID, stroke_width=1)
    played, _ = replay(instance, moves)
    number: dict[Cell, int] = {}
    for i, cell in enumerate(moves, start=1):
        number.setdefault(cell, i)
    whites = set(instance.whites)
    radius = CELL * 0.4
    for r in range(instance.size):
        for c in range(instance.size):
            cx, cy = c * CELL + CELL / 2, r * CELL + CELL / 2
            stone = played.grid[r][c]
            if stone == WHITE:
                board.circle(cx, cy, radius, fill="white", stroke="#333", stroke_width=1)
            elif stone == BLACK and (r, c) in whites:
                board.circle(cx, cy, radius, fill="black", stroke=RING, stroke_width=2.5)
            elif stone == BLACK:
                board.circle(cx, cy, radius, fill="black")
                board.text(cx, cy + 1, str(number.get((r, c), "")), CELL * 0.45, fill="white", font_weight="bold")
            elif stone == EMPTY and (r, c) in number:  # a refused move: not on the board
                board.circle(cx, cy, radius, fill="none", stroke=ILLEGAL, stroke_width=2)
                board.text(cx, cy + 1, str(number[(r, c)]), CELL * 0.45, fill=ILLEGAL, font_weight="bold")
    return board

"""A picture of a peg solitaire game: the start board, then the board after each jump.

Each jump's frame shows the peg's path as an arrow into the hole it landed in, and a red
ring where the jumped peg was taken off.  Without a solution the picture is the start and
the goal.  A jump the rules refuse ends the strip with its frame captioned in red, so
``check --svg`` shows where an answer goes wrong; a game that ends elsewhere than the goal
gets the goal as a last frame.
"""

from __future__ import annotations

from puzzlesat.domains.pegsol.instance import OFF, PEG, Board, Instance, Matrix, Move, Solution
from puzzlesat.domains.svg import Picture

CELL = 16
GAP = 14
CAPTION = 16
WIDTH = 960  # frames wrap to rows of about this width
BOARD, EDGE = "#f1e4c6", "#bfa677"
PEG_FILL, MOVED, TAKEN, ILLEGAL = "#3d2b1f", "#d9730d", "#c62828", "#c62828"


def draw(instance: Instance, solution: Solution | None) -> str:
    """The SVG text: start and goal, or the start and the board after each jump."""
    frames: list[tuple[str, Matrix, Move | None, bool]] = [("start", instance.start, None, False)]
    if solution is None:
        frames.append(("goal", instance.target, None, False))
    else:
        board = Board(instance)
        for number, move in enumerate(solution.moves, start=1):
            if board.illegal_reason(move) is not None:
                frames.append((f"{number}: {move} illegal", board.matrix(), move, True))
                break
            board.push(move)
            frames.append((f"{number}: {move}", board.matrix(), move, False))
        if frames[-1][1] != instance.target and not frames[-1][3]:
            frames.append(("goal", instance.target, None, False))
    fw, fh = max(instance.cols * CELL, 84), instance.rows * CELL + CAPTION  # room for "31: 5:3-3:3"
    per_row = max(1, min(len(frames), (WIDTH + GAP) // (fw + GAP)))
    lines = -(-len(frames) // per_row)
    picture = Picture(per_row * (fw + GAP) + GAP, lines * (fh + GAP) + GAP)
    picture.rect(0, 0, picture.width, picture.height, fill="white")
    for i, (caption, matrix, jump, illegal) in enumerate(frames):
        frame = _frame(instance, matrix, jump, illegal)
        x, y = GAP + i % per_row * (fw + GAP), GAP + i // per_row * (fh + GAP)
        picture.group(frame, x + (fw - instance.cols * CELL) / 2, y)
        colour = ILLEGAL if illegal else "#222"
        picture.text(x + fw / 2, y + instance.rows * CELL + CAPTION / 2 + 2, caption, 11, fill=colour)
    return picture.svg()


def _frame(instance: Instance, matrix: Matrix, move: Move | None, illegal: bool) -> Picture:
    """One board: pegs and holes, and the jump that led to it."""
    frame = Picture(instance.cols * CELL, instance.rows * CELL)
    half = CELL / 2
    for r in range(instance.rows):
        for c in range(instance.cols):
            if instance.start[r][c] == OFF:
                continue
            frame.rect(c * CELL, r * CELL, CELL, CELL, fill=BOARD, stroke=EDGE, stroke_width=0.5)
            cx, cy = c * CELL + half, r * CELL + half
            if matrix[r][c] == PEG:
                landed = move is not None and not illegal and (r, c) == move.target
                frame.circle(cx, cy, CELL * 0.34, fill=MOVED if landed else PEG_FILL)
            else:
                frame.circle(cx, cy, CELL * 0.16, fill="none", stroke=EDGE, stroke_width=1)
    if move is not None:
        (r1, c1), (r2, c2), (ro, co) = move.source, move.target, move.over
        if not illegal:
            frame.circle(co * CELL + half, ro * CELL + half, CELL * 0.3, fill="none", stroke=TAKEN, stroke_width=1.5)
        x1, y1, x2, y2 = c1 * CELL + half, r1 * CELL + half, c2 * CELL + half, r2 * CELL + half
        colour = ILLEGAL if illegal else MOVED
        frame.line(x1, y1, x2 - (x2 - x1) * 0.18, y2 - (y2 - y1) * 0.18, stroke=colour, stroke_width=2)
        frame.arrow_head(x1, y1, x2 - (x2 - x1) * 0.1, y2 - (y2 - y1) * 0.1, CELL * 0.4, fill=colour)
    return frame

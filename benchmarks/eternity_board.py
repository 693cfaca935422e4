"""A full legal edge-matching board in seconds: greedy row-scan placement, then swaps.

Not a solver (the issue's best-score search is its own piece of work): it gives a board that
uses every tile once, keeps grey exactly on the frame and keeps the hints, with as many
matched edges as a greedy pass and a few seconds of hill climbing find.  The docs' picture of
the official 16x16 board comes from it.

Usage:
    python benchmarks/eternity_board.py INSTANCE [--hints HINTS] [--seconds 20] [--seed 0] [--svg FILE] > board.txt
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from puzzlesat.domains import eternity
from puzzlesat.domains.eternity import E, Instance, N, S, Solution, W, rotated


def fitting_turn(instance: Instance, tile: int, cell: int) -> list[int]:
    """The turns that put the tile's grey sides exactly on the cell's frame sides."""
    frame = set(instance.frame_sides(cell))
    looks = [rotated(instance.tiles[tile], r) for r in range(4)]
    return [r for r in range(4) if {s for s in range(4) if looks[r][s] == eternity.GREY} == frame]


def matches(instance: Instance, board: list[tuple[int, int]], cell: int, tile: int, rot: int) -> int:
    """Edges the tile turned ``rot`` on ``cell`` matches with the tiles around it on ``board``."""
    look = rotated(instance.tiles[tile], rot)
    row, col = divmod(cell, instance.cols)
    count = 0
    for side, (dr, dc, facing) in enumerate(((-1, 0, S), (0, 1, W), (1, 0, N), (0, -1, E))):
        r, c = row + dr, col + dc
        if 0 <= r < instance.rows and 0 <= c < instance.cols and board[r * instance.cols + c][0] >= 0:
            other = board[r * instance.cols + c]
            count += look[side] == rotated(instance.tiles[other[0]], other[1])[facing]
    return count


def greedy(instance: Instance, rng: random.Random) -> list[tuple[int, int]]:
    """Row by row, the unused tile and turn matching most of the placed neighbours (hints first)."""
    board = [(-1, 0)] * instance.cells
    for hint in instance.hints:
        board[hint.cell] = (hint.tile, hint.rotation)
    free = set(range(instance.cells)) - {hint.tile for hint in instance.hints}
    for cell in range(instance.cells):
        if board[cell][0] >= 0:
            continue
        options = [(t, r) for t in free for r in fitting_turn(instance, t, cell)]
        best = max(matches(instance, board, cell, t, r) for t, r in options)
        tile, rot = rng.choice([(t, r) for t, r in options if matches(instance, board, cell, t, r) == best])
        board[cell] = (tile, rot)
        free.remove(tile)
    return board


def climb(instance: Instance, board: list[tuple[int, int]], seconds: float, rng: random.Random) -> None:
    """Swap two tiles of the same kind (each in its best turn) while the score does not drop."""
    hinted = {hint.cell for hint in instance.hints}
    groups: dict[int, list[int]] = {}
    for cell in range(instance.cells):
        if cell not in hinted:
            groups.setdefault(len(instance.frame_sides(cell)), []).append(cell)
    kinds = [cells for cells in groups.values() if len(cells) > 1]
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        cells = rng.choice(kinds)
        a, b = rng.sample(cells, 2)
        before = matches(instance, board, a, *board[a]) + matches(instance, board, b, *board[b])
        old = board[a], board[b]
        ta, tb = old[1][0], old[0][0]
        board[a], board[b] = (-1, 0), (-1, 0)  # place each against the other's old neighbours
        board[a] = max(((ta, r) for r in fitting_turn(instance, ta, a)), key=lambda p: matches(instance, board, a, *p))
        board[b] = max(((tb, r) for r in fitting_turn(instance, tb, b)), key=lambda p: matches(instance, board, b, *p))
        after = matches(instance, board, a, *board[a]) + matches(instance, board, b, *board[b])
        if after < before:
            board[a], board[b] = old


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instance")
    parser.add_argument("--hints")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--svg")
    args = parser.parse_args()
    instance = eternity.parse(Path(args.instance).read_text(), args.instance)
    instance = eternity.read_hints(instance, {"hints": args.hints})
    rng = random.Random(args.seed)
    board = greedy(instance, rng)
    climb(instance, board, args.seconds, rng)
    solution = Solution(tuple(board))
    assert eternity.verify(instance, solution, matching=False) == []
    print(f"c score {eternity.score(instance, solution)}/{eternity.max_score(instance)}", file=sys.stderr)
    if args.svg:
        Path(args.svg).write_text(eternity.draw_svg(instance, solution))
    sys.stdout.write(eternity.format_solution(instance, solution))


if __name__ == "__main__":
    main()

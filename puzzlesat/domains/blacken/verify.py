"""Blacken's verifier: replays the moves and checks the answer's text matches them."""

from __future__ import annotations

from puzzlesat.domains.blacken.formats import draw
from puzzlesat.domains.blacken.instance import WHITE, Instance, Solution, replay


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Every rule the answer breaks; an empty list means every white stone ends black.

    Replays the moves under the Reversi rule; checks the claimed count and, when the answer
    carries a board drawing, that it shows the stones the moves really flip.
    """
    final, problems = replay(instance, solution.moves)
    if solution.claimed is not None and solution.claimed != len(solution.moves):
        problems.append(f"the result line says {solution.claimed} moves, the answer lists {len(solution.moves)}")
    left = [(r, c) for r, c in instance.whites if final.grid[r][c] == WHITE]
    if left:
        shown = ", ".join(f"{c + 1},{r + 1}" for r, c in left[:5])
        problems.append(f"{len(left)} white stone(s) left after the last move: {shown}")
    if solution.board is not None:
        want = draw(instance, solution.moves)
        width = len(want[0]) if want else 0
        got = [row.ljust(width) for row in solution.board] + [" " * width] * (len(want) - len(solution.board))
        if len(got) != len(want):
            problems.append(f"the board drawing has {len(solution.board)} rows, expected {len(want)}")
        else:
            for y, (a, b) in enumerate(zip(got, want, strict=True), start=1):
                if a.rstrip() != b.rstrip():
                    problems.append(f"board row y={y}: drawn {a.rstrip()!r}, the moves give {b.rstrip()!r}")
    return problems

"""Peg solitaire's verifier: replays the jumps and compares the end with the goal."""

from __future__ import annotations

from puzzlesat.domains.pegsol.instance import PEG, Board, IllegalMoveError, Instance, Solution


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Replay the jumps; report the first illegal one, or every cell that misses the goal."""
    board = Board(instance)
    for index, move in enumerate(solution.moves):
        try:
            board.push(move)
        except IllegalMoveError as exc:
            return [f"jump {index + 1}: {exc}"]
    problems = []
    final = board.matrix()
    for r, c in instance.cells:
        want = instance.target[r][c]
        if final[r][c] != want:
            problems.append(
                f"cell ({r}, {c}) ends with {'a peg' if final[r][c] == PEG else 'a hole'}, "
                f"the goal has {'a peg' if want == PEG else 'a hole'}"
            )
    return problems

"""Masyu's verifier: every problem a proposed loop has, in words."""

from __future__ import annotations

from puzzlesat.domains.masyu.instance import BLACK, STEP, Cell, Instance, Solution


def verify(instance: Instance, solution: Solution) -> list[str]:
    """Every rule the loop breaks; an empty list means the puzzle is solved.

    Checks: moves stay on the board, the loop closes on its start, no cell is entered twice
    (no crossing), every circle is visited, and each white and black rule.
    """
    rows, cols = instance.rows, instance.cols
    problems: list[str] = []
    r, c = solution.start
    if not (0 <= r < rows and 0 <= c < cols):
        return [f"start cell ({r + 1} {c + 1}) is off the {rows}x{cols} grid"]
    if len(solution.moves) < 4:
        return [f"a loop needs at least 4 moves, got {len(solution.moves)}"]
    order = [(r, c)]
    first_visit: dict[Cell, int] = {(r, c): 0}
    for step, move in enumerate(solution.moves, start=1):
        if move not in STEP:
            return [f"move {step}: {move!r} is not one of U, D, L, R"]
        dr, dc = STEP[move]
        r, c = r + dr, c + dc
        if not (0 <= r < rows and 0 <= c < cols):
            return [f"move {step} ({move}) leaves the grid at ({r + 1} {c + 1})"]
        if step == len(solution.moves):
            break
        if (r, c) in first_visit:
            problems.append(
                f"move {step}: cell ({r + 1} {c + 1}) entered twice "
                f"(first at move {first_visit[(r, c)]}): the loop crosses or touches itself"
            )
        else:
            first_visit[(r, c)] = step
        order.append((r, c))
    if (r, c) != solution.start:
        problems.append(
            f"the moves end at ({r + 1} {c + 1}), not back on the start "
            f"({solution.start[0] + 1} {solution.start[1] + 1})"
        )
    if problems:
        return problems
    n = len(order)
    straight = []
    for i in range(n):
        pr, pc = order[i - 1]
        nr, nc = order[(i + 1) % n]
        straight.append(pr == nr or pc == nc)
    position = {cell: i for i, cell in enumerate(order)}
    for cell in instance.circles:
        if cell not in position:
            kind = "black" if instance.clue(*cell) == BLACK else "white"
            problems.append(f"{kind} circle ({cell[0] + 1} {cell[1] + 1}) is not on the loop")
    for cell in instance.white:
        if cell not in position:
            continue
        i = position[cell]
        if not straight[i]:
            problems.append(f"white circle ({cell[0] + 1} {cell[1] + 1}): the loop turns on it")
        elif straight[i - 1] and straight[(i + 1) % n]:
            problems.append(f"white circle ({cell[0] + 1} {cell[1] + 1}): no turn in either cell next to it")
    for cell in instance.black:
        if cell not in position:
            continue
        i = position[cell]
        if straight[i]:
            problems.append(f"black circle ({cell[0] + 1} {cell[1] + 1}): the loop goes straight through it")
        if not straight[i - 1] or not straight[(i + 1) % n]:
            problems.append(f"black circle ({cell[0] + 1} {cell[1] + 1}): the loop turns in a cell next to it")
    return problems

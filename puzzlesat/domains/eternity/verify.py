"""Eternity's verifier, and the score of a board (its matched edges)."""

from __future__ import annotations

from typing import Any

from puzzlesat.domains.eternity.instance import GREY, E, Instance, N, S, Solution, W, rotated


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


def verify_run(instance: Instance, solution: Solution, options: dict[str, Any]) -> list[str]:
    """The verifier of a run: with ``score`` the board need only be legal (mismatches scored)."""
    return verify(instance, solution, matching=not options.get("score"))

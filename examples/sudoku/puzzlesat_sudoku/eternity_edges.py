"""``cpsat-element``: another CP-SAT model of eternity's edges, added to a built-in puzzle.

puzzlesat's own ``cpsat-table`` links each cell's tile to its four edge colours with one table
constraint over (tile, N, E, S, W).  This model instead gives each cell a tile and a rotation,
combines them into one orientation index ``4 * tile + rotation``, and reads each side's
colour with an element constraint on a precomputed array of that side's colour for every
orientation.  The shared edges are integer colour variables: two neighbours agree because
their element constraints write the same variable.

The declaration, :data:`STRATEGY`, is what the entry point names; ortools is imported only
inside the functions, when the strategy runs or is exported.
"""

from __future__ import annotations

import time
from typing import Any

from puzzlesat import TIME_LIMIT, Limits, Result, Status, Strategy
from puzzlesat.domains.eternity import GREY, Instance, Solution, rotated
from puzzlesat.models.cpsat import model_size, solve_model

STRATEGY = Strategy(
    "cpsat-element",
    "puzzlesat_sudoku.eternity_edges:solve",
    "CP-SAT: tile and rotation per cell, side colours read by element constraints (plugin example)",
    model="puzzlesat_sudoku.eternity_edges:build_model",
    puzzle="eternity",
)


def build_model(instance: Instance, options: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The model and each cell's orientation variable (``4 * tile + rotation``)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    rows, cols, n = instance.rows, instance.cols, instance.cells
    turned = [rotated(tile, r) for tile in instance.tiles for r in range(4)]  # index 4 * tile + r
    top = instance.colours - 1
    grey = model.new_constant(GREY)
    # h[r][c]: the edge right of (r, c); v[r][c]: the edge below it; grey off the board
    h = [[model.new_int_var(1, top, f"h[{r},{c}]") if c < cols - 1 else grey for c in range(cols)] for r in range(rows)]
    v = [[model.new_int_var(1, top, f"v[{r},{c}]") if r < rows - 1 else grey for c in range(cols)] for r in range(rows)]
    tile = [model.new_int_var(0, n - 1, f"tile[{cell}]") for cell in range(n)]
    orient = []
    for cell in range(n):
        r, c = divmod(cell, cols)
        k = model.new_int_var(0, 4 * n - 1, f"orient[{cell}]")
        model.add_division_equality(tile[cell], k, 4)
        sides = (v[r - 1][c] if r else grey, h[r][c], v[r][c], h[r][c - 1] if c else grey)
        for side, colour in enumerate(sides):
            model.add_element(k, [t[side] for t in turned], colour)
        orient.append(k)
    model.add_all_different(tile)
    for hint in instance.hints:
        model.add(orient[hint.cell] == 4 * hint.tile + hint.rotation)
    return model, orient


def solve(instance: Instance, limits: Limits, variant: str | None) -> Result:
    """Solve the model; a board is each cell's (tile, rotation) read from its orientation."""
    start = time.perf_counter()
    model, orient = build_model(instance, limits.options)
    run = solve_model(model, limits, limits.remaining(start))
    stats = {**model_size(model), **run.stats}
    elapsed = time.perf_counter() - start
    if run.status is Status.SOLVED:
        board = Solution(tuple(divmod(run.solver.value(k), 4) for k in orient))
        return Result(Status.SOLVED, board, wall_time=elapsed, stats=stats)
    message = {Status.UNKNOWN: TIME_LIMIT, Status.ERROR: run.message}.get(run.status, "")
    return Result(run.status, wall_time=elapsed, stats=stats, message=message)

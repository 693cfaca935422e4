"""The ``cpsat-alldiff`` strategy: one integer variable per cell, AllDifferent per unit.

It uses puzzlesat's CP-SAT building block :func:`puzzlesat.models.cpsat.solve_model`, which
applies the run's time limit, seed and workers and maps CP-SAT's status to puzzlesat's.
"""

from __future__ import annotations

import time
from typing import Any

from puzzlesat import TIME_LIMIT, Limits, Result, Status
from puzzlesat.models.cpsat import model_size, solve_model
from puzzlesat_sudoku.puzzle import CELLS, Sudoku, units


def build_model(instance: Sudoku, options: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The model and its cell variables (``puzzlesat export sudoku -s cpsat-alldiff --format cpsat``)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    cells = [model.new_int_var(1, 9, f"cell[{i // 9},{i % 9}]") for i in range(CELLS)]
    for unit in units():
        model.add_all_different([cells[i] for i in unit])
    for i, given in enumerate(instance.givens):
        if given:
            model.add(cells[i] == given)
    return model, cells


def solve(instance: Sudoku, limits: Limits, variant: str | None) -> Result:
    """Solve the model within the time limit."""
    start = time.perf_counter()
    model, cells = build_model(instance, limits.options)
    run = solve_model(model, limits, limits.remaining(start))
    stats = {**model_size(model), **run.stats}
    elapsed = time.perf_counter() - start
    if run.status is Status.SOLVED:
        return Result(Status.SOLVED, tuple(run.solver.value(v) for v in cells), wall_time=elapsed, stats=stats)
    message = {Status.UNKNOWN: TIME_LIMIT, Status.ERROR: run.message}.get(run.status, "")
    return Result(run.status, wall_time=elapsed, stats=stats, message=message)

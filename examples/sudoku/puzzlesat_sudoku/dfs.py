"""The ``python-dfs`` strategy: the generator's own search, with puzzlesat's time limit."""

from __future__ import annotations

import time

from puzzlesat import Limits, Result, Status
from puzzlesat.core.uniqueness import record_uniqueness
from puzzlesat_sudoku.puzzle import Sudoku, search


def solve(instance: Sudoku, limits: Limits, variant: str | None) -> Result:
    """Search for one answer (two with ``unique``).  Sudoku's search is fast enough that it
    ignores the time limit; the engine still stops it at the limit."""
    start = time.perf_counter()
    unique = bool(limits.options.get("unique"))
    found = search(instance.givens, 2 if unique else 1)
    elapsed = time.perf_counter() - start
    if not found:
        return Result(Status.INFEASIBLE, wall_time=elapsed, message="search exhausted")
    result = Result(Status.SOLVED, found[0], wall_time=elapsed)
    if unique:
        record_uniqueness(result, len(found) > 1, found[1] if len(found) > 1 else None)
    return result

"""The ``cnf-onehot`` strategy: a Boolean ``("x", cell, digit)`` per cell and digit.

Clauses: every cell holds at least one digit and at most one; every unit holds every digit
in at least one cell (and, option ``redundant``, in at most one); a given is a unit clause.
The encoding is an :class:`puzzlesat.encoders.dimacs.Encoding`, so ``puzzlesat export``
writes it as DIMACS and ``puzzlesat decode`` reads an external solver's answer back.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from puzzlesat import Limits, Result
from puzzlesat.core.uniqueness import record_uniqueness
from puzzlesat.encoders.dimacs import Encoding, cnf_stats
from puzzlesat.encoders.sat import open_solver, sat_result, solve_limited, solver_stats
from puzzlesat_sudoku.puzzle import CELLS, Sudoku, units


def encode(instance: Sudoku, options: dict[str, Any]) -> Encoding:
    """The CNF of one puzzle, its variables named ``("x", cell, digit)``."""
    from pysat.formula import CNF, IDPool

    pool = IDPool()
    cnf = CNF()

    def x(cell: int, digit: int) -> int:
        return int(pool.id(("x", cell, digit)))

    digits = range(1, 10)
    for cell in range(CELLS):
        cnf.append([x(cell, d) for d in digits])
        cnf.extend([-x(cell, a), -x(cell, b)] for a, b in itertools.combinations(digits, 2))
        if instance.givens[cell]:
            cnf.append([x(cell, instance.givens[cell])])
    for unit in units():
        for d in digits:
            cnf.append([x(cell, d) for cell in unit])
            if options["redundant"]:  # the engine fills in the declared default
                cnf.extend([-x(a, d), -x(b, d)] for a, b in itertools.combinations(unit, 2))

    def decode(true_keys: set[tuple[Any, ...]]) -> tuple[int, ...]:
        grid = [0] * CELLS
        for _, cell, digit in true_keys:
            grid[cell] = digit
        return tuple(grid)

    return Encoding(cnf, pool, decode, cnf_stats(cnf))


def solve(instance: Sudoku, limits: Limits, variant: str | None) -> Result:
    """Solve with the pysat solver ``variant``; with ``unique``, forbid the answer and solve again."""
    start = time.perf_counter()
    encoding = encode(instance, limits.options)
    stats: dict[str, Any] = dict(encoding.stats)
    assert variant is not None  # the engine names the default variant when the name has none
    with open_solver(variant, encoding.cnf.clauses) as solver:
        outcome = solve_limited(solver, limits.remaining(start))
        result = sat_result(outcome, lambda: encoding.decode(encoding.true_keys(solver.get_model())), stats=stats)
        if outcome and limits.options["unique"]:
            answer = result.solution
            solver.add_clause([-encoding.pool.id(("x", cell, d)) for cell, d in enumerate(answer)])
            again = solve_limited(solver, limits.remaining(start))
            second = encoding.decode(encoding.true_keys(solver.get_model())) if again else None
            record_uniqueness(result, again, second)
        stats.update(solver_stats(solver))
    result.wall_time = time.perf_counter() - start
    return result

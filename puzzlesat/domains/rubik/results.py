"""Rubik's Result building: the answer of a bounded model raised up to its depth cap."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from puzzlesat.core import Result, Status

if TYPE_CHECKING:
    from puzzlesat.core.horizon import HorizonOutcome


def bounded_answer(outcome: HorizonOutcome, max_depth: int, stats: dict[str, Any], wall: float) -> Result:
    """The answer of a bounded model (cpsat-bmc, cnf-bmc) raised up to ``max_depth`` moves.

    Every length up to the cap refuted proves nothing beyond the cap: that is UNKNOWN, not INFEASIBLE.
    """
    if outcome.status is Status.INFEASIBLE:
        return Result(
            Status.UNKNOWN, None, None, wall, stats, message=f"no solution within {max_depth} moves (--max-depth)"
        )
    objective = outcome.solution.length if outcome.solution is not None else None
    return Result(outcome.status, outcome.solution, objective, wall, stats, message=outcome.message)

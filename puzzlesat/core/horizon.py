"""The "raise the horizon" loop of the bounded formulations: a plan of N steps?  N = first, next, ...

Blacken's ``cnf-steps`` and Rubik's ``cpsat-bmc`` and ``cnf-bmc`` ask a solver whether a plan
of N steps exists for growing N.  The first plan found is optimal because every horizon
asked before it was refuted, so the caller passes only horizons whose gaps hold no plan
(a proven lower bound to start from; QTM lengths keep the corner parity).  The loop knows
no solver: each formulation answers one horizon in ``try_horizon``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from puzzlesat.core import Result, Status


@dataclass(frozen=True)
class HorizonOutcome:
    """How raising the horizon ended; the caller adds objective, statistics and wall time.

    Attributes:
        status: OPTIMAL (a plan, every shorter horizon refuted), SOLVED (the known plan,
            not proven: time ran out), UNKNOWN (time ran out, no plan), ERROR, or
            INFEASIBLE: every horizon asked was refuted and no plan is known (whether that
            proves anything depends on the caller's last horizon).
        solution: the plan, or None.
        message: why the search stopped short, or "".
    """

    status: Status
    solution: Any = None
    message: str = ""


def raise_horizon(
    try_horizon: Callable[[int], Result],
    horizons: Iterable[int],
    time_left: Callable[[], float | None],
    known: Any = None,
) -> HorizonOutcome:
    """Ask each horizon in turn until one has a plan, the time runs out or they are used up.

    Args:
        try_horizon: answers "a plan of n steps?" with SOLVED and the plan, INFEASIBLE (a
            proof that there is none), UNKNOWN (time ran out) or ERROR (with a message); it
            sets its solver's time limit from the same clock as ``time_left``.
        horizons: increasing, such that no plan is shorter than the first or falls between
            two of them.
        time_left: seconds left, or None for no limit; looked at before each horizon.
        known: a plan as long as the horizon that would follow the last one (blacken: the
            greedy answer of H moves after horizons up to H - 1), so optimal once every
            horizon is refuted; or None.

    Returns:
        OPTIMAL with the first plan found, or with ``known`` once every horizon is refuted;
        SOLVED with ``known`` and UNKNOWN without it when time runs out; ERROR as
        ``try_horizon`` reported it; INFEASIBLE when every horizon was refuted and there is
        no ``known`` plan.
    """
    for n in horizons:
        left = time_left()
        answer = try_horizon(n) if left is None or left > 0 else Result(Status.UNKNOWN)
        if answer.status is Status.INFEASIBLE:
            continue
        if answer.status is Status.SOLVED or answer.status is Status.OPTIMAL:
            return HorizonOutcome(Status.OPTIMAL, answer.solution)
        if answer.status is Status.UNKNOWN:
            if known is not None:
                return HorizonOutcome(Status.SOLVED, known, "timeout: best found, not proven")
            return HorizonOutcome(Status.UNKNOWN, None, f"time limit at horizon {n}; no solution shorter than {n}")
        return HorizonOutcome(Status.ERROR, None, answer.message or f"horizon {n}: {answer.status.value}")
    if known is not None:
        return HorizonOutcome(Status.OPTIMAL, known)
    return HorizonOutcome(Status.INFEASIBLE, None, "every horizon refuted")

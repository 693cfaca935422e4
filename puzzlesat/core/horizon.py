"""The horizon schedules of the bounded formulations: a plan of N steps?  N = first, next, ...

Blacken's ``cnf-steps``, Rubik's ``cpsat-bmc`` and ``cnf-bmc`` and pegsol's parallel
``cnf-plan`` ask a solver whether a plan of N steps exists for growing N, in one of two
schedules:

- :func:`raise_horizon`, one horizon after the other.  The first plan found is optimal
  because every horizon asked before it was refuted, so the caller passes only horizons
  whose gaps hold no plan (a proven lower bound to start from; QTM lengths keep the corner
  parity);
- :func:`interleave_horizons`, a window of consecutive horizons at once in equal turns
  (Rintanen's algorithm B), for questions where a plan within N steps fits every larger
  horizon: a hard refutation at N does not hold back an easy plan at N + 1.

Neither knows a solver: each formulation answers one horizon (or one turn of it) itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from puzzlesat.core import Result, Status

H = TypeVar("H")  # a formulation's solver for one horizon


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


def interleave_horizons(
    open_horizon: Callable[[int], H],
    turn: Callable[[H], bool | None],
    close: Callable[[H], None],
    horizons: Sequence[int],
    window: int,
    time_left: Callable[[], float | None],
) -> tuple[bool | None, H]:
    """Run ``window`` consecutive horizons at once, a turn each in order, until one decides.

    A plan within n steps must fit every larger horizon (a shorter plan with its last steps
    empty), so a refutation at n settles every horizon up to n: those solvers are closed and
    the next horizons join.

    Args:
        open_horizon: a solver for horizon n (e.g. its encoding loaded into an incremental solver).
        turn: runs one turn of a solver (a conflict budget): True, a plan; False, refuted;
            None, undecided yet.  Read the plan's model here: the solver is closed afterwards.
        close: frees a solver; called once for every solver opened, before this returns.
        horizons: increasing and consecutive as far as plans go; the last one decides alone.
        window: how many horizons run at once (at least 1).
        time_left: seconds left, or None for no limit; looked at before each turn.

    Returns:
        (outcome, solver): True and the solver that found a plan; False and the last
        horizon's solver when it was refuted; None and the solver whose turn found the time
        used up.
    """
    pending = list(horizons)
    active: list[tuple[int, H]] = []
    try:
        while True:
            while len(active) < window and pending:
                n = pending.pop(0)
                active.append((n, open_horizon(n)))
            for n, solver in active:
                left = time_left()
                if left is not None and left <= 0:
                    return None, solver
                outcome = turn(solver)
                if outcome is None:
                    continue
                if outcome or n == horizons[-1]:
                    return outcome, solver
                for n2, done in active:
                    if n2 <= n:
                        close(done)
                active = [entry for entry in active if entry[0] > n]
                pending = [n2 for n2 in pending if n2 > n]
                break
    finally:
        for _, solver in active:
            close(solver)

"""One CP-SAT solve for every model: the limits applied, every status mapped, the statistics read.

Models build their ``CpModel`` and call :func:`solve_model`; nothing else in ``models/``
creates a ``CpSolver`` or reads its status codes.  A status CP-SAT adds in a later release
is an ERROR, never UNKNOWN: UNKNOWN claims that only the time ran out.

CP-SAT solves in a thread of its own while the calling thread waits in Python
(:func:`solve_waiting`): CP-SAT's presolve does not watch its time limit everywhere (it expands
the 16x16 board's 256 tables into 150,000 Booleans in one step of seconds under load), so a
signal must reach Python while CP-SAT is busy.  Ctrl-C and the engine's hard deadline
(:func:`puzzlesat.core.deadline.backstop`) land at once in the waiting thread, which stops the
search and leaves; CP-SAT then ends at its next look at its stop flag.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from puzzlesat.core import Limits, Status

MIN_TIME = 0.01  # seconds: a limit of 0 would make CP-SAT return before it reads the model
STOP_WAIT = 0.1  # seconds to wait for a stopped solve to end before leaving it to end alone


@dataclass(frozen=True)
class CpSatRun:
    """How one solve ended.

    Attributes:
        status: SOLVED (a solution; OPTIMAL for an objective proven optimal), INFEASIBLE,
            UNKNOWN (time ran out) or ERROR (an invalid model or a status not known here).
        solver: the ``CpSolver``, to read the solution's values from.
        message: CP-SAT's status name, with the validation message for an invalid model.
    """

    status: Status
    solver: Any
    message: str

    @property
    def stats(self) -> dict[str, int]:
        """The search statistics every model reports: conflicts, branches, workers."""
        return {
            "conflicts": int(self.solver.num_conflicts),
            "branches": int(self.solver.num_branches),
            "workers": int(self.solver.parameters.num_workers),
        }


def model_size(model: Any) -> dict[str, int]:
    """The ``variables`` and ``constraints`` statistics of a model."""
    return {"variables": len(model.proto.variables), "constraints": len(model.proto.constraints)}


def status_of(code: Any, optimise: bool = False) -> Status:
    """The Status of a ``CpSolverStatus``.

    Args:
        code: what ``CpSolver.solve`` returned.
        optimise: the model has an objective, so OPTIMAL is a proof of optimality; without
            one CP-SAT says OPTIMAL for any solution of a feasibility model.

    Returns:
        OPTIMAL (``optimise`` only) or SOLVED for a solution, INFEASIBLE, UNKNOWN, or ERROR
        for MODEL_INVALID and for any code not known here.
    """
    from ortools.sat.python import cp_model

    if code == cp_model.OPTIMAL:
        return Status.OPTIMAL if optimise else Status.SOLVED
    if code == cp_model.FEASIBLE:
        return Status.SOLVED
    if code == cp_model.INFEASIBLE:
        return Status.INFEASIBLE
    if code == cp_model.UNKNOWN:
        return Status.UNKNOWN
    return Status.ERROR


class _Solutions:
    """The ``CpSolverSolutionCallback`` that hands each solution to a function (made on first use:
    the class derives from one in ortools, imported only where a strategy runs)."""

    def __new__(cls, on_solution: Callable[[Any], None]) -> Any:
        from ortools.sat.python import cp_model

        class Callback(cp_model.CpSolverSolutionCallback):  # type: ignore[misc]
            def on_solution_callback(self) -> None:
                on_solution(self)

        return Callback()


def solve_model(
    model: Any,
    limits: Limits,
    time_left: float | None,
    optimise: bool = False,
    on_solution: Callable[[Any], None] | None = None,
) -> CpSatRun:
    """Solve a model with the run's seed and workers, for at most ``time_left`` seconds.

    Args:
        model: a ``CpModel``.
        limits: the run's seed and workers (at least one worker).
        time_left: seconds the solve may take (at least :data:`MIN_TIME`), None for no limit.
        optimise: the model minimises an objective (see :func:`status_of`).
        on_solution: called with the solver's callback (``value``, ``objective_value``) at
            each solution found, each better than the last (a race member shares them).

    Returns:
        The mapped status, the solver and a message.
    """
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, limits.workers)
    solver.parameters.random_seed = limits.seed
    if time_left is not None:
        solver.parameters.max_time_in_seconds = max(MIN_TIME, time_left)
    solver.parameters.catch_sigint_signal = False  # Ctrl-C is Python's: KeyboardInterrupt, not an answer
    code = solve_waiting(solver, model, None if on_solution is None else _Solutions(on_solution))
    status = status_of(code, optimise)
    message = solver.status_name(code)
    if code == cp_model.MODEL_INVALID:
        message = f"CP-SAT: invalid model: {solver.solution_info() or model.validate()}"
    elif status is Status.ERROR:
        message = f"CP-SAT: unexpected status {message} ({int(code)})"
    return CpSatRun(status, solver, message)


def solve_waiting(solver: Any, model: Any, callback: Any = None) -> Any:
    """``solver.solve(model[, callback])`` in a thread of its own, this thread waiting for it in
    Python, where signals land (see the module docstring).

    An exception while waiting (KeyboardInterrupt, the hard deadline's DeadlineExceeded) stops
    the search, waits :data:`STOP_WAIT` seconds for the solve to end, and is raised; a solve
    still busy then (in a step of presolve that does not look at the stop flag) ends alone, in
    its daemon thread, holding a core until it does.

    Returns:
        What ``solver.solve`` returned (a ``CpSolverStatus``).
    """
    answer: list[Any] = []

    def work() -> None:
        try:
            answer.append(solver.solve(model) if callback is None else solver.solve(model, callback))
        except BaseException as exc:  # handed to the waiting thread
            answer.append(exc)

    thread = threading.Thread(target=work, name="puzzlesat-cpsat", daemon=True)
    thread.start()
    try:
        thread.join()
    except BaseException:
        solver.stop_search()
        thread.join(STOP_WAIT)
        raise
    if isinstance(answer[0], BaseException):
        raise answer[0]
    return answer[0]

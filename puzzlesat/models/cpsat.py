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

A race member that optimises calls :func:`solve_beating` instead of :func:`solve_model`: a
model that must beat the race's best, built again whenever another member shares a better
answer.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from puzzlesat.core import Limits, Status
from puzzlesat.core.incumbent import Entry, Incumbent

THREAD = "puzzlesat-cpsat"  # the name of the thread a solve runs in (see :func:`solving`)
MIN_TIME = 0.01  # seconds: a limit of 0 would make CP-SAT return before it reads the model
STOP_WAIT = 0.1  # seconds to wait for a stopped solve to end before leaving it to end alone
WATCH_EVERY = 0.05  # seconds between a racing solve's looks at the race's best (one stat each)
# a racing solve runs at least this long, and as long as its model took to build, before a better
# answer from the race stops it: a member sharing a better board every few milliseconds (the
# row scan's first second) would otherwise leave CP-SAT nothing but model builds
MIN_SOLVE = 0.5


@dataclass(frozen=True)
class CpSatRun:
    """How one solve ended.

    Attributes:
        status: SOLVED (a solution; OPTIMAL for an objective proven optimal), INFEASIBLE,
            UNKNOWN (time ran out) or ERROR (an invalid model or a status not known here).
        solver: the ``CpSolver``, to read the solution's values from.
        message: CP-SAT's status name, with the validation message for an invalid model.
        stopped: ``watch`` stopped the search (its status says what it had by then).
    """

    status: Status
    solver: Any
    message: str
    stopped: bool = False

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
    watch: Callable[[], bool] | None = None,
) -> CpSatRun:
    """Solve a model with the run's seed and workers, for at most ``time_left`` seconds.

    Args:
        model: a ``CpModel``.
        limits: the run's seed and workers (at least one worker).
        time_left: seconds the solve may take (at least :data:`MIN_TIME`), None for no limit.
        optimise: the model minimises an objective (see :func:`status_of`).
        on_solution: called with the solver's callback (``value``, ``objective_value``) at
            each solution found, each better than the last (a race member shares them).
        watch: looked at every :data:`WATCH_EVERY` seconds while CP-SAT searches; True stops
            the search (``stopped`` in the run).

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
    stopped = threading.Event()
    code = solve_waiting(solver, model, None if on_solution is None else _Solutions(on_solution), watch, stopped)
    status = status_of(code, optimise)
    message = solver.status_name(code)
    if code == cp_model.MODEL_INVALID:
        message = f"CP-SAT: invalid model: {solver.solution_info() or model.validate()}"
    elif status is Status.ERROR:
        message = f"CP-SAT: unexpected status {message} ({int(code)})"
    return CpSatRun(status, solver, message, stopped.is_set())


def solve_waiting(
    solver: Any,
    model: Any,
    callback: Any = None,
    watch: Callable[[], bool] | None = None,
    stopped: threading.Event | None = None,
) -> Any:
    """``solver.solve(model[, callback])`` in a thread of its own, this thread waiting for it in
    Python, where signals land (see the module docstring).

    An exception while waiting (KeyboardInterrupt, the hard deadline's DeadlineExceeded) stops
    the search, waits :data:`STOP_WAIT` seconds for the solve to end, and is raised; a solve
    still busy then (in a step of presolve that does not look at the stop flag) ends alone, in
    its daemon thread, holding a core until it does.  ``watch`` is looked at every
    :data:`WATCH_EVERY` seconds meanwhile: True stops the search (and sets ``stopped``).

    Returns:
        What ``solver.solve`` returned (a ``CpSolverStatus``).
    """
    answer: list[Any] = []
    done = threading.Event()  # waited on, not the thread: see below

    def work() -> None:
        try:
            answer.append(solver.solve(model) if callback is None else solver.solve(model, callback))
        except BaseException as exc:  # handed to the waiting thread
            answer.append(exc)
        finally:
            done.set()

    # Python 3.11's Thread.join, interrupted by Ctrl-C, marks a thread still running as ended,
    # and the interpreter then exits under a running CP-SAT, which aborts (SIGABRT) in C++'s
    # std::terminate; an Event's wait has no such state
    threading.Thread(target=work, name=THREAD, daemon=True).start()
    try:
        while not done.wait(None if watch is None else WATCH_EVERY):
            if watch is not None and watch():
                if stopped is not None:
                    stopped.set()
                solver.stop_search()
                done.wait()
    except BaseException:
        solver.stop_search()
        done.wait(STOP_WAIT)
        raise
    if isinstance(answer[0], BaseException):
        raise answer[0]
    return answer[0]


def solving() -> bool:
    """True while a CP-SAT solve told to stop still runs (a presolve step that does not look at
    its stop flag): the interpreter's exit under it would abort in C++ (std::terminate)."""
    return any(thread.name == THREAD and thread.is_alive() for thread in threading.enumerate())


@dataclass(frozen=True)
class Beating:
    """How a racing solve ended: the last run, its model, the race's best answer that model had
    to beat (None: there was none) and how many better answers stopped a search before it.
    INFEASIBLE with ``held`` proves ``held`` optimal."""

    run: CpSatRun
    model: Any
    held: Entry | None
    restarts: int


def solve_beating(
    build: Callable[[Entry | None], Any],
    limits: Limits,
    start: float,
    race: Incumbent | None,
    share: Callable[[Any], int] | None = None,
) -> Beating:
    """Minimise a model that must beat the race's best answer, built again each time the race
    has a better one than this solve holds.

    CP-SAT takes no new bound during a search, so a member that waits for its next solve to
    read the race's best proves nothing the race has not left behind.  Here the model
    ``build(held)`` admits only answers strictly better than ``held`` (the race's best when it
    was built); once another member shares a better one than this solve has found, the search
    stops (after :data:`MIN_SOLVE` seconds, or the model's build time if longer) and a tighter
    model is built.  Its INFEASIBLE is the proof that ``held`` is optimal: the proof of a bound,
    which is often far quicker than finding the optimum (a 5x5 edge-matching board: 0.06 s to
    refute score 39, 2 s to find 38 and prove it).

    Args:
        build: the model that beats ``held`` (any answer when None); it may add ``held``'s
            solution as hints.
        limits: the run's limits (seed, workers, timeout counted from ``start``).
        start: the :func:`time.perf_counter` time the run began.
        race: the race's best answer (``limits.shared``); None solves ``build(None)`` once.
        share: called with each solution found; returns the objective it offered the race.

    Returns:
        The last run and its model, the answer it had to beat, and how many times the race's
        answers stopped a search.
    """
    restarts = 0
    while True:
        held = None if race is None else race.best()
        began = time.perf_counter()
        model = build(held)
        building = time.perf_counter() - began
        run = _solve_racing(model, limits, start, race, share, held, max(MIN_SOLVE, building))
        left = limits.remaining(start)
        if not run.stopped or (left is not None and left <= 2 * building):  # no time to build and search
            return Beating(run, model, held, restarts)
        restarts += 1


def _solve_racing(
    model: Any,
    limits: Limits,
    start: float,
    race: Incumbent | None,
    share: Callable[[Any], int] | None,
    held: Entry | None,
    gap: float,
) -> CpSatRun:
    """One solve of :func:`solve_beating`, stopped once the race holds an answer better than any
    this solve found (or than ``held``) and it has run ``gap`` seconds."""
    built = time.perf_counter()
    own = math.inf if held is None else held.objective
    sharing = threading.Lock()  # an answer offered but not yet counted as this solve's is not another's

    def found(callback: Any) -> None:
        nonlocal own
        assert share is not None
        with sharing:
            own = min(own, share(callback))

    def beaten() -> bool:
        if race is None or time.perf_counter() - built < gap:
            return False
        with sharing:
            bound = race.bound()
            return bound is not None and bound < own

    return solve_model(
        model,
        limits,
        limits.remaining(start),
        optimise=True,
        on_solution=None if share is None else found,
        watch=None if race is None else beaten,
    )

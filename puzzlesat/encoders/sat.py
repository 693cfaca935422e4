"""Running a pysat solver under a time limit, collecting its statistics, and mapping its
answer to a Status (:func:`sat_result`, the one place every encoder does it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from puzzlesat.core import TIME_LIMIT, BackendUnavailable, Result, Status


def sat_result(
    outcome: bool | None, decode: Callable[[], Any], *, wall_time: float = 0.0, stats: dict[str, Any] | None = None
) -> Result:
    """The Result of one pysat answer (True, False, or None when it stopped first).

    SAT is SOLVED with ``decode()`` (called only then: the model decoded into a solution),
    UNSAT is INFEASIBLE (the solver refuted the formula), and a stop is UNKNOWN with the
    message :data:`~puzzlesat.core.TIME_LIMIT`.

    >>> sat_result(None, lambda: "board").message, sat_result(True, lambda: "board").solution
    ('time limit', 'board')
    """
    stats = {} if stats is None else stats
    if outcome is None:
        return Result(Status.UNKNOWN, wall_time=wall_time, stats=stats, message=TIME_LIMIT)
    if not outcome:
        return Result(Status.INFEASIBLE, wall_time=wall_time, stats=stats)
    return Result(Status.SOLVED, decode(), wall_time=wall_time, stats=stats)


@contextmanager
def open_solver(name: str, clauses: Sequence[Sequence[int]] = (), proof: bool = False) -> Iterator[Any]:
    """A pysat solver by name (``cadical195``, ``kissat404``, ...), deleted on exit.

    ``proof``: log a DRUP proof (``get_proof()``); only :data:`~puzzlesat.core.certify.PROOF_SOLVERS`.

    Raises:
        BackendUnavailable: pysat does not know the name.
    """
    from pysat.solvers import Solver, SolverNames

    if not any(name in names for names in vars(SolverNames).values() if isinstance(names, tuple)):
        raise BackendUnavailable(f"pysat has no solver named {name!r}")
    solver = Solver(name=name, bootstrap_with=clauses, with_proof=proof)
    try:
        yield solver
    finally:
        solver.delete()


# the solvers :func:`solve_once` runs in a child killed at the deadline, as pysat cannot stop
# them here: Kissat takes neither interrupts nor budgets, and CaDiCaL 3.0's first call does
# work that no conflict budget bounds (8 s for a slice of 1000 conflicts on janko 139's 127,000
# clauses at load 37), all of it holding the GIL
IN_CHILD = ("kissat", "ks", "cadical300", "cd30", "cdl30")

# clauses a message to the Kissat child holds (:func:`solve_once`): pickling the 16x16 board's
# 1.6 M clauses in one call takes 2 s under load, a C call no deadline interrupts; a chunk
# takes a few milliseconds
CHUNK = 20_000

# the fewest conflicts of a slice of CaDiCaL's search (:func:`solve_limited`): each call to
# solve starts with work of its own: slices of 100 left a 20x36 masyu (janko 139) unsolved at 30 s
# that slices of 1000 solve in 11 s
SLICE_CONFLICTS = 1000


def solve_limited(solver: Any, timeout: float | None, assumptions: Sequence[int] = ()) -> bool | None:
    """``solver.solve`` that gives up after ``timeout`` seconds (None: no limit).

    pysat's CaDiCaL keeps the GIL while it solves, so a timer cannot interrupt it: it runs
    in slices of a conflict budget (learnt clauses survive between slices), the slice grown
    while it takes under a twentieth of a second, and cut to what the time left holds at
    the rate the conflicts have come.  Kissat takes neither interrupts nor budgets: use
    :func:`solve_once` for it.

    Returns:
        True (SAT), False (UNSAT) or None (stopped before an answer).
    """
    assumptions = list(assumptions)
    if timeout is None:
        return bool(solver.solve(assumptions=assumptions))
    deadline = time.perf_counter() + timeout
    if "cadical" in type(solver.solver).__name__.lower():
        budget, spent, searched = SLICE_CONFLICTS, 0, 0.0
        while True:
            started = time.perf_counter()
            solver.conf_budget(budget)
            outcome = solver.solve_limited(assumptions=assumptions)
            if outcome is not None:
                return bool(outcome)
            now = time.perf_counter()
            if now >= deadline:
                return None
            # doubled while a slice is quick; near the deadline, no more conflicts than the
            # slower of the last slice's rate and the whole run's fits in the time left
            spent, searched = spent + budget, searched + now - started
            rate = min(budget / max(now - started, 1e-6), spent / max(searched, 1e-6))
            grown = 2 * budget if now - started < 0.05 else budget
            budget = max(SLICE_CONFLICTS, min(int(rate * (deadline - now)), grown))
    timer = threading.Timer(timeout, solver.interrupt)
    timer.start()
    try:
        outcome = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
    solver.clear_interrupt()
    return None if outcome is None else bool(outcome)


def solve_once(
    name: str, clauses: list[list[int]], timeout: float | None
) -> tuple[bool | None, list[int], dict[str, int]]:
    """Solve a CNF once with any solver, Kissat included, stopping it at ``timeout``.

    A solver that cannot be stopped in-process (:data:`IN_CHILD`) runs in a child process
    (:func:`puzzlesat.core.processes.start`: it dies with this process) that is killed at the
    deadline; the clauses go to it in chunks of :data:`CHUNK` once it has started, so that a
    hard deadline lands between two of them.  The others run here through :func:`solve_limited`.

    Returns:
        (outcome, model, stats): outcome True/False/None as for :func:`solve_limited`.
    """
    from puzzlesat.core import certify  # here: listing the strategies imports the encoders, not certify

    session = certify.active()
    if session is not None and name in certify.PROOF_SOLVERS:  # log the proof now, not in a second run
        started = time.perf_counter()
        with open_solver(name, clauses, proof=True) as solver:
            outcome = solve_limited(solver, timeout)
            if outcome is False:
                session.scratch = (clauses, solver.get_proof(), time.perf_counter() - started)
            return outcome, (solver.get_model() or []) if outcome else [], solver_stats(solver)
    if timeout is None or not name.startswith(IN_CHILD):
        with open_solver(name, clauses) as solver:
            outcome = solve_limited(solver, timeout)
            return outcome, (solver.get_model() or []) if outcome else [], solver_stats(solver)
    import multiprocessing

    from puzzlesat.core import processes

    deadline = time.perf_counter() + timeout
    receive, send = multiprocessing.Pipe(duplex=False)
    take, give = multiprocessing.Pipe(duplex=False)
    try:
        child = processes.start(_solve_in_child, (name, take, send), name=f"puzzlesat-{name}")
    finally:
        send.close()
        take.close()
    try:
        for first in range(0, len(clauses), CHUNK):
            give.send(clauses[first : first + CHUNK])
        give.send(None)
        if receive.poll(max(0.0, deadline - time.perf_counter())):
            outcome, model, stats = receive.recv()
            return outcome, model, stats
        return None, [], {}
    except (EOFError, BrokenPipeError):  # the child died without an answer
        return None, [], {}
    finally:
        processes.stop_trees([child], grace=0.0)
        receive.close()
        give.close()


def _solve_in_child(name: str, take: Any, send: Any) -> None:
    """Child side of :func:`solve_once`: take the clauses chunk by chunk (None ends them), solve,
    and send (outcome, model, statistics) back."""
    with open_solver(name) as solver:
        while (chunk := take.recv()) is not None:
            solver.append_formula(chunk)
        outcome = bool(solver.solve())
        send.send((outcome, solver.get_model() or [] if outcome else [], solver_stats(solver)))


def solver_stats(solver: Any) -> dict[str, int]:
    """Conflicts, decisions and propagations the solver has accumulated (where it reports them)."""
    try:
        stats = solver.accum_stats() or {}
    except NotImplementedError:  # Kissat in pysat keeps its statistics to itself
        return {}
    return {key: int(stats[key]) for key in ("conflicts", "decisions", "propagations") if key in stats}


def refute(
    kind: str,
    claim: str,
    clauses: Sequence[Sequence[int]],
    name: str,
    timeout: float | None,
    *,
    assumptions: Sequence[int] = (),
    rests_on: str = "",
) -> None:
    """Certify that ``clauses`` with ``assumptions`` are unsatisfiable, when a certify session runs.

    The proof comes from the last :func:`solve_once` call on this very clause list when
    there was one; otherwise from a fresh, non-incremental proof-logging run of ``name`` on
    the clauses with the assumptions as unit clauses (an incremental solver's proof under
    assumptions need not end in the empty clause).  Without a session this does nothing.

    Args:
        kind: the answer's claim it backs: ``no solution``, ``optimal`` or ``unique``.
        claim: what the clauses say cannot be, in words ("no plan of 4 moves").
        clauses: everything the solver was given.
        name: the pysat solver that made the claim; one without proofs leaves it uncertified.
        timeout: seconds for a fresh proof run.
        assumptions: literals the claim was made under; written as unit clauses.
        rests_on: the argument some clauses rely on beyond the CNF (masyu's loop cuts).
    """
    from puzzlesat.core import certify

    session = certify.active()
    if session is None:
        return
    if name not in certify.PROOF_SOLVERS:
        reason = f"{name} writes no proof through pysat; use one of {', '.join(certify.PROOF_SOLVERS[:3])}"
        session.note(kind, claim, "uncertified", f"claimed by {name}", reason)
        return
    scratch = getattr(session, "scratch", None)
    if scratch is not None and scratch[0] is clauses and not assumptions:
        _, proof, seconds = scratch
        formula: Sequence[Sequence[int]] = clauses
    else:
        formula = [*clauses, *([lit] for lit in assumptions)]
        started = time.perf_counter()
        with open_solver(name, formula, proof=True) as solver:
            outcome = solve_limited(solver, timeout)
            proof, seconds = (solver.get_proof() if outcome is False else []), time.perf_counter() - started
        if outcome is None:
            session.note(kind, claim, "uncertified", f"claimed by {name}", "the proof-logging run ran out of time")
            return
        if outcome:
            session.note(kind, claim, "rejected", f"{name}'s proof run found a model", "the claim is false")
            return
    session.scratch = None
    session.refutation(kind, claim, formula, proof, name, seconds, rests_on)

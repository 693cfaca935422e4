"""The shared CP-SAT run: limits applied, every solver status mapped, statistics read."""

from __future__ import annotations

from typing import Any

import pytest

from puzzlesat.core import Limits, Status
from puzzlesat.models import cpsat

cp_model = pytest.importorskip("ortools.sat.python.cp_model")


def small_model(lower: int, minimise: bool = False) -> tuple[Any, Any]:
    """x in 0..3 with x >= lower, optionally minimising x."""
    model = cp_model.CpModel()
    x = model.new_int_var(0, 3, "x")
    model.add(x >= lower)
    if minimise:
        model.minimize(x)
    return model, x


@pytest.mark.parametrize(
    ("code", "optimise", "status"),
    [
        (cp_model.OPTIMAL, False, Status.SOLVED),
        (cp_model.OPTIMAL, True, Status.OPTIMAL),
        (cp_model.FEASIBLE, False, Status.SOLVED),
        (cp_model.FEASIBLE, True, Status.SOLVED),
        (cp_model.INFEASIBLE, False, Status.INFEASIBLE),
        (cp_model.UNKNOWN, False, Status.UNKNOWN),
        (cp_model.MODEL_INVALID, False, Status.ERROR),
        (99, False, Status.ERROR),
    ],
)
def test_status_of(code: Any, optimise: bool, status: Status) -> None:
    assert cpsat.status_of(code, optimise) is status


def test_feasible_model_is_solved() -> None:
    model, x = small_model(2)
    run = cpsat.solve_model(model, Limits(workers=0), None)
    assert run.status is Status.SOLVED and run.solver.value(x) >= 2
    assert set(run.stats) == {"conflicts", "branches", "workers"} and run.stats["workers"] == 1
    assert cpsat.model_size(model) == {"variables": 1, "constraints": 1}


def test_proven_optimum() -> None:
    model, x = small_model(2, minimise=True)
    run = cpsat.solve_model(model, Limits(), 10.0, optimise=True)
    assert run.status is Status.OPTIMAL and run.solver.value(x) == 2


def test_infeasible_model() -> None:
    model, _ = small_model(5)
    assert cpsat.solve_model(model, Limits(), None).status is Status.INFEASIBLE


def test_invalid_model_is_an_error_naming_the_problem() -> None:
    model, _ = small_model(0)
    domain = model.proto.variables[0].domain
    domain[0], domain[1] = 3, 1  # an empty interval: CP-SAT refuses the model
    run = cpsat.solve_model(model, Limits(), None)
    assert run.status is Status.ERROR
    assert "invalid model" in run.message and "domain" in run.message


def test_unknown_status_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real_solver = cp_model.CpSolver

    class FutureSolver:
        """A CpSolver of a later release, answering with a status this code does not know."""

        def __init__(self) -> None:
            self.parameters = real_solver().parameters

        def solve(self, model: Any) -> int:
            return 7

        def status_name(self, code: int) -> str:
            return "NEW_STATUS"

        def stop_search(self) -> None:
            """Ctrl-C's way in (:func:`puzzlesat.models.cpsat.solve_waiting`)."""

    monkeypatch.setattr(cp_model, "CpSolver", FutureSolver)
    run = cpsat.solve_model(small_model(0)[0], Limits(), None)
    assert run.status is Status.ERROR and "NEW_STATUS" in run.message


def test_an_interrupted_wait_still_sees_the_solve_it_left() -> None:
    """Ctrl-C in the wait, while presolve ignores the stop flag (the 16x16 table model's
    expansion): the wait raises at once and :func:`cpsat.solving` stays True until CP-SAT has
    ended (Python 3.11's interrupted ``Thread.join`` marked such a thread ended, and the
    command line then exited under it: SIGABRT)."""
    import signal
    import threading
    import time

    from puzzlesat.domains.eternity.generate import generate
    from puzzlesat.models.eternity import build_model

    instance = generate({"size": 16, "frame_colours": 5, "inner_colours": 17}, seed=1)
    model, _ = build_model(instance)
    solver = cp_model.CpSolver()
    solver.parameters.catch_sigint_signal = False
    solver.parameters.max_time_in_seconds = 30
    threading.Timer(0.3, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        cpsat.solve_waiting(solver, model)
    assert time.monotonic() - start < 0.3 + cpsat.STOP_WAIT + 1
    assert cpsat.solving()  # still in presolve
    while cpsat.solving() and time.monotonic() - start < 60:
        time.sleep(0.05)
    assert not cpsat.solving()

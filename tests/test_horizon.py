"""The shared "raise the horizon" loop, on scripted answers."""

from __future__ import annotations

from collections.abc import Callable

from puzzlesat.core import Result, Status
from puzzlesat.core.horizon import interleave_horizons, raise_horizon


def scripted(answers: dict[int, Result], asked: list[int]) -> Callable[[int], Result]:
    """A try_horizon that refutes every horizon not in ``answers`` and records what it was asked."""

    def try_horizon(n: int) -> Result:
        asked.append(n)
        return answers.get(n, Result(Status.INFEASIBLE))

    return try_horizon


def no_limit() -> float | None:
    return None


def test_first_plan_is_optimal() -> None:
    asked: list[int] = []
    outcome = raise_horizon(scripted({3: Result(Status.SOLVED, "abc")}, asked), range(1, 9), no_limit)
    assert (outcome.status, outcome.solution, asked) == (Status.OPTIMAL, "abc", [1, 2, 3])


def test_every_horizon_refuted() -> None:
    asked: list[int] = []
    outcome = raise_horizon(scripted({}, asked), range(0, 6, 2), no_limit)
    assert (outcome.status, outcome.solution, asked) == (Status.INFEASIBLE, None, [0, 2, 4])


def test_known_plan_is_optimal_once_every_horizon_is_refuted() -> None:
    outcome = raise_horizon(scripted({}, []), range(2, 4), no_limit, known="abcd")
    assert (outcome.status, outcome.solution) == (Status.OPTIMAL, "abcd")


def test_timeout_keeps_the_known_plan_unproven() -> None:
    asked: list[int] = []
    outcome = raise_horizon(scripted({3: Result(Status.UNKNOWN)}, asked), range(2, 6), no_limit, known="abcdef")
    assert (outcome.status, outcome.solution, asked) == (Status.SOLVED, "abcdef", [2, 3])
    assert "not proven" in outcome.message


def test_timeout_without_a_plan_names_the_horizon() -> None:
    outcome = raise_horizon(scripted({3: Result(Status.UNKNOWN)}, []), range(2, 6), no_limit)
    assert (outcome.status, outcome.solution) == (Status.UNKNOWN, None)
    assert "no solution shorter than 3" in outcome.message


def test_no_time_left_asks_nothing() -> None:
    asked: list[int] = []
    outcome = raise_horizon(scripted({}, asked), range(5), lambda: 0.0)
    assert (outcome.status, asked) == (Status.UNKNOWN, [])


def test_error_stops_with_its_message() -> None:
    asked: list[int] = []
    outcome = raise_horizon(scripted({1: Result(Status.ERROR, message="bad model")}, asked), range(5), no_limit)
    assert (outcome.status, outcome.message, asked) == (Status.ERROR, "bad model", [0, 1])


class Scripted:
    """A horizon's solver that answers ``answer`` on its ``turns``-th turn and None before."""

    def __init__(self, n: int, turns: int, answer: bool) -> None:
        self.n, self.turns, self.answer = n, turns, answer


def interleaved(
    script: dict[int, tuple[int, bool]],
    horizons: range,
    window: int,
    time_left: Callable[[], float | None] = no_limit,
) -> tuple[bool | None, int, list[int]]:
    """Run interleave_horizons on scripted solvers (every horizon not scripted: refuted on its first turn).

    Returns the outcome, the horizon of the solver returned, and the horizons in the order of their turns.
    """
    opened: list[int] = []
    closed: list[Scripted] = []
    turns: list[int] = []

    def open_horizon(n: int) -> Scripted:
        opened.append(n)
        return Scripted(n, *script.get(n, (1, False)))

    def turn(solver: Scripted) -> bool | None:
        turns.append(solver.n)
        solver.turns -= 1
        return solver.answer if solver.turns == 0 else None

    outcome, solver = interleave_horizons(open_horizon, turn, closed.append, horizons, window, time_left)
    assert sorted(opened) == sorted(s.n for s in closed)  # every solver opened is closed once
    return outcome, solver.n, turns


def test_interleaved_easy_plan_is_not_held_back_by_a_hard_refutation() -> None:
    outcome, n, turns = interleaved({1: (10, False), 2: (2, True)}, range(1, 6), window=2)
    assert (outcome, n, turns) == (True, 2, [1, 2, 1, 2])


def test_interleaved_refutation_settles_the_shorter_horizons() -> None:
    # 2 refuted first: 1 is settled with it (a plan in 1 step would fit in 2) and 3, 4 join
    outcome, n, turns = interleaved({1: (5, False), 2: (1, False), 4: (1, True), 3: (3, True)}, range(1, 6), window=2)
    assert (outcome, n, turns) == (True, 4, [1, 2, 3, 4])


def test_interleaved_every_horizon_refuted() -> None:
    outcome, n, turns = interleaved({}, range(3, 6), window=3)
    assert (outcome, n, turns) == (False, 5, [3, 4, 5])


def test_interleaved_no_time_left() -> None:
    outcome, n, turns = interleaved({}, range(3, 6), window=2, time_left=lambda: 0.0)
    assert (outcome, n, turns) == (None, 3, [])

"""The shared "raise the horizon" loop, on scripted answers."""

from __future__ import annotations

from collections.abc import Callable

from puzzlesat.core import Result, Status
from puzzlesat.core.horizon import raise_horizon


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

"""Masyu's Result building: the presolve answer for trivial grids, and the notes a solve prints."""

from __future__ import annotations

import time
from typing import Any

from puzzlesat.core import Limits, Result, Status
from puzzlesat.core.uniqueness import record_uniqueness
from puzzlesat.domains.masyu.draw import draw_text
from puzzlesat.domains.masyu.formats import format_solution, to_url
from puzzlesat.domains.masyu.instance import Instance, Solution, solution_from_edges


def presolve(instance: Instance, limits: Limits) -> Result | None:
    """The engine's answer before any strategy: :func:`trivial_answer` for a grid without
    circles or too thin for a loop, else None (a strategy searches)."""
    if instance.circles and instance.rows >= 2 and instance.cols >= 2:
        return None
    return trivial_answer(instance, time.perf_counter(), bool(limits.options.get("unique")))


def trivial_answer(instance: Instance, start: float, unique: bool = False) -> Result:
    """The answer every strategy gives without search: no circles, or a grid too thin for a loop.

    Without circles any 2x2 square is a loop; it is unique only on a 2x2 grid.

    Args:
        instance: a grid with no circles, or fewer than 2 rows or columns.
        start: the strategy's start time (:func:`time.perf_counter`), for the wall time.
        unique: also report whether the answer is unique.
    """
    if instance.rows < 2 or instance.cols < 2:
        return Result(
            Status.INFEASIBLE,
            None,
            wall_time=time.perf_counter() - start,
            message="a loop needs at least 2 rows and 2 columns",
        )

    def square(r: int, c: int) -> Solution:
        return solution_from_edges([("h", r, c), ("h", r + 1, c), ("v", r, c), ("v", r, c + 1)])

    result = Result(Status.SOLVED, square(0, 0), wall_time=time.perf_counter() - start, message="no circles")
    if unique:
        other = None if instance.rows * instance.cols == 4 else square(0, 1) if instance.cols > 2 else square(1, 0)
        record_uniqueness(result, other is not None, other, noun="loop")
    return result


def notes(instance: Instance, result: Result, options: dict[str, Any]) -> list[str]:
    """What to show after an answer: the loop drawn in text (``draw``), the puzz.link URL
    (``url``) and the second loop of a puzzle that is not unique."""
    lines = []
    if options.get("draw"):
        lines.extend(draw_text(instance, result.solution).splitlines())
    if options.get("url"):
        lines.append(f"c puzz.link: {to_url(instance)}")
    other = result.second_solution
    if other is not None:
        lines.append("c a second loop (the puzzle is not unique):")
        lines.extend(format_solution(instance, other).splitlines())
        if options.get("draw"):
            lines.extend(draw_text(instance, other).splitlines())
    return lines

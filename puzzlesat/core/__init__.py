"""Core types shared by every puzzle: statuses, limits, results, errors and the registries.

A *puzzle* is a module in :mod:`puzzlesat.domains` that exposes a :class:`Puzzle` named
``PUZZLE`` (or a plugin's Puzzle: :mod:`puzzlesat.core.registry`).  A *strategy* is a
function ``solve(instance, limits, variant) -> Result`` that lives in ``models/``,
``encoders/`` or ``native/``, declared by a :class:`Strategy` at the top of its module;
puzzles name those declarations and their generator by dotted path, read on first use
(:class:`~puzzlesat.core.types.Declarations`), so that the domain modules never import the
formulation layers above them, and the formulation modules import their solver library only
when they run.  Each strategy declares the modes it serves (:attr:`Strategy.modes`); a
request for another is refused (:class:`UnsupportedRequest`).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from puzzlesat.core import registry
from puzzlesat.core.arguments import declared_types
from puzzlesat.core.deadline import DeadlineExceeded, backstop, expired, hard_deadline
from puzzlesat.core.errors import (
    ArgumentError,
    ArgumentTypeError,
    BackendUnavailable,
    InvalidInstanceError,
    InvalidSolutionError,
    ParseError,
    PluginError,
    PuzzlesatError,
    UnsupportedRequest,
)
from puzzlesat.core.interrupts import solver_interrupts
from puzzlesat.core.options import Option, OptionError
from puzzlesat.core.registry import available_puzzles, get_puzzle
from puzzlesat.core.run_options import for_run
from puzzlesat.core.text import check_length, content_lines, int_tokens, is_int, read_named, read_text
from puzzlesat.core.types import (
    TIME_LIMIT,
    Choice,
    Limits,
    Puzzle,
    Result,
    SolveFn,
    Status,
    Strategy,
    Target,
    load_target,
    split_strategy,
)

__all__ = [
    "Choice",
    "ArgumentError",
    "ArgumentTypeError",
    "BackendUnavailable",
    "DeadlineExceeded",
    "InvalidInstanceError",
    "InvalidSolutionError",
    "Limits",
    "Option",
    "OptionError",
    "ParseError",
    "PluginError",
    "Puzzle",
    "PuzzlesatError",
    "SAT_SOLVERS",
    "Result",
    "SolveFn",
    "Status",
    "Strategy",
    "TIME_LIMIT",
    "Target",
    "UnsupportedRequest",
    "available_puzzles",
    "check_length",
    "content_lines",
    "check_result",
    "get_puzzle",
    "int_tokens",
    "is_int",
    "load_target",
    "read_named",
    "read_text",
    "run_strategy",
    "split_strategy",
]

# pysat's solvers: the variants of the CNF strategies that solve in one call (the incremental
# ones name their own lists: Kissat takes no clauses between calls)
SAT_SOLVERS = (
    "cadical195",
    "cadical153",
    "kissat404",
    "glucose4",
    "glucose3",
    "maplechrono",
    "lingeling",
    "minisat22",
    "cadical300",
)


def run_strategy(
    puzzle: Puzzle, instance: Any, name: str | Choice, limits: Limits, *, overrun_stop: bool = True
) -> Result:
    """Run one strategy and pass its answer through the puzzle's verifier.

    The puzzle's :attr:`~Puzzle.presolve` answers first when it can (a trivial board, an
    impossibility proof): then no strategy runs, and the result names it all the same.  A
    solution the verifier rejects is turned into an ERROR result naming the problems: it is a
    bug in the strategy, never an answer.  Strategies stop at their time limit themselves;
    one still busy a little after it (building a large model, say) is stopped by a hard
    deadline and reported as UNKNOWN, unless ``overrun_stop`` is False (a portfolio child,
    whose supervisor kills it, C code and all).

    Args:
        puzzle: the puzzle.
        instance: a parsed instance.
        name: ``method[:variant][@key=value,...]`` (or that name resolved once,
            :meth:`Puzzle.choose`); options in the name override those of ``limits``.
        limits: time, seed, workers and options; the time counts from ``limits.started`` when
            the caller set it (the API's call), else from here; an option that this strategy does not
            declare is left out (a race hands the same options to every member), one it
            declares is converted to its type, and the others get their defaults.

    Returns:
        The verified Result, with ``strategy`` set to the full name.  A plugin's strategy that
        raises, or whose answer the verifier rejects, gives an ERROR Result naming the plugin.

    Raises:
        UnsupportedRequest: the options ask for a mode the strategy does not serve.
    """
    choice = puzzle.choose(name)
    strat, variant, name = choice.strategy, choice.variant, choice.name
    refused = puzzle.refusal(choice, limits.options)
    if refused:
        raise UnsupportedRequest(refused)
    plugin = registry.label(puzzle.name, strat.name)
    solve = strat.load()
    start = time.perf_counter()
    began = start if limits.started is None else min(start, limits.started)  # the caller's clock, if it runs
    limits = replace(limits, options=for_run(puzzle, choice, limits.options), started=began)
    try:
        overrun = None if limits.timeout is None or not overrun_stop else backstop(limits.timeout) - (start - began)
        with hard_deadline(overrun, f"{name} was running", limits.timeout), solver_interrupts():
            early = puzzle.presolve(instance, limits) if puzzle.presolve is not None else None
            result = early if early is not None else solve(instance, limits, variant)
    except Exception as exc:
        deadline = expired(exc)  # the timer fired, maybe inside a C call that raised its own error
        if deadline is not None:
            result = Result(Status.UNKNOWN, message=str(deadline))
        elif isinstance(exc, PluginError):  # a plugin's hook failed: the message names the plugin and the hook
            result = Result(Status.ERROR, message=str(exc))
            plugin = None
        elif plugin is None:
            raise  # a bug of puzzlesat's own: its traceback is wanted
        else:
            result = Result(Status.ERROR, message=f"crashed: {type(exc).__name__}: {exc}")
    if not isinstance(result, Result):
        result = Result(Status.ERROR, message=f"solve returned {type(result).__name__}, not a puzzlesat.Result")
    if not result.wall_time:
        result.wall_time = time.perf_counter() - start
    result.strategy = name
    if strat.parallel and isinstance(result.stats, dict):
        result.stats.setdefault("workers", limits.workers)
    result = check_result(puzzle, instance, result, limits.options)
    if plugin is not None and result.status is Status.ERROR and not result.message.startswith(plugin):
        result.message = f"{plugin}: {result.message}"
    return result


class VerifierFailed(PluginError):
    """A plugin's verifier that raised on an answer (the answer is rejected with its message)."""


def check_result(puzzle: Puzzle, instance: Any, result: Result, options: dict[str, Any] | None = None) -> Result:
    """Verify the solutions a result carries; a rejected one becomes an ERROR result.

    ``options``, the run's solve options, go to the puzzle's ``verify_run`` when it has one.
    """

    def rejected(message: str) -> Result:
        return Result(
            Status.ERROR, wall_time=result.wall_time, stats=result.stats, strategy=result.strategy, message=message
        )

    if result.solution is None:
        if result.status in (Status.SOLVED, Status.OPTIMAL, Status.FEASIBLE):
            return rejected("strategy claimed a solution but returned none")
        return result

    def verify(solution: Any, what: str) -> list[str]:
        if expected is not None and not isinstance(solution, expected):
            return [f"{what} is {type(solution).__name__}, not {expected.__module__}.{expected.__name__}"]
        try:
            if puzzle.verify_run is not None and options is not None:
                return puzzle.verify_run(instance, solution, options)
            return puzzle.verify(instance, solution)
        except PluginError as exc:  # the verifier is a plugin's, and it failed
            raise VerifierFailed(str(exc)) from None

    expected = declared_types(puzzle.verify)[1]  # the solution class the verifier is annotated with
    try:
        problems = verify(result.solution, "the answer")
        what = "the answer"
        if not problems and result.second_solution is not None:
            problems = verify(result.second_solution, "the second solution")
            what = "the second solution"
    except VerifierFailed as exc:
        return rejected(str(exc))
    if problems:
        return rejected(f"verifier rejected {what}: " + "; ".join(problems[:3]))
    return result

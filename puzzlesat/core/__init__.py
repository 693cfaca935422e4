"""Core types shared by every puzzle: statuses, limits, results, errors and the registries.

A *puzzle* is a module in :mod:`puzzlesat.domains` that exposes a :class:`Puzzle` named
``PUZZLE``.  A *strategy* is a function ``solve(instance, limits, variant) -> Result`` that
lives in ``models/``, ``encoders/`` or ``native/``; puzzles name their strategies and their
generator by dotted path, so that listing them never imports a solver library and the
domain modules never import the formulation layers above them.
"""

from __future__ import annotations

import enum
import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from puzzlesat.core.deadline import DeadlineExceeded, hard_deadline
from puzzlesat.core.errors import (
    ArgumentError,
    ArgumentTypeError,
    BackendUnavailable,
    InvalidInstanceError,
    InvalidSolutionError,
    ParseError,
    PuzzlesatError,
)
from puzzlesat.core.interrupts import solver_interrupts
from puzzlesat.core.options import Option, OptionError
from puzzlesat.core.options import resolve as resolve_options
from puzzlesat.core.text import check_length, content_lines, int_tokens, is_int, read_text

__all__ = [
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
    "Puzzle",
    "PuzzlesatError",
    "SAT_SOLVERS",
    "Result",
    "Status",
    "Strategy",
    "available_puzzles",
    "check_length",
    "content_lines",
    "check_result",
    "get_puzzle",
    "int_tokens",
    "is_int",
    "load_target",
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

PUZZLE_NAMES = ("eternity", "masyu", "pegsol", "blacken", "rubik")


class Status(enum.Enum):
    """How a strategy ended.  OPTIMAL and INFEASIBLE are claims backed by a proof."""

    SOLVED = "SOLVED"
    OPTIMAL = "OPTIMAL"
    FEASIBLE = "FEASIBLE"  # a verified answer to an optimisation, not proven the best
    INFEASIBLE = "INFEASIBLE"
    UNKNOWN = "UNKNOWN"
    ERROR = "ERROR"

    @property
    def is_final(self) -> bool:
        """True when the answer settles the question (a proof or, for decision puzzles, a model)."""
        return self in (Status.SOLVED, Status.OPTIMAL, Status.INFEASIBLE)


@dataclass(frozen=True)
class Limits:
    """What a strategy may use and how it should run.

    Attributes:
        timeout: wall time in seconds, None for no limit.
        seed: random seed for search order.
        workers: threads or processes the strategy may use (CP-SAT ``num_workers``).
        options: the puzzle's own solve flags (``Puzzle.solve_options``), e.g. ``unique``.
    """

    timeout: float | None = None
    seed: int = 0
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)

    def remaining(self, start: float) -> float | None:
        """Seconds left of the timeout, given the start time from :func:`time.perf_counter`."""
        if self.timeout is None:
            return None
        return max(0.0, self.timeout - (time.perf_counter() - start))


@dataclass
class Result:
    """One strategy's answer.

    Attributes:
        status: how the run ended.
        solution: the puzzle's Solution object, or None.
        objective: the value minimised, for optimisation puzzles.
        wall_time: seconds spent in the strategy (excluding numba compilation where reported).
        stats: method statistics, e.g. variables, clauses, conflicts, nodes, workers.
        strategy: the strategy name that produced it.
        message: a short human-readable note (errors, reasons for UNKNOWN).
        second_solution: another Solution, found when a strategy was asked to prove its
            answer unique and it is not (see :mod:`puzzlesat.core.uniqueness`); None otherwise.
        count: the number of solutions, when a strategy was asked to count them and searched
            to the end (then ``solution`` is one of them, or the status is INFEASIBLE for 0);
            None otherwise.  What counts as one solution is the puzzle's to say.
    """

    status: Status
    solution: Any = None
    objective: int | None = None
    wall_time: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    strategy: str = ""
    message: str = ""
    second_solution: Any = None
    count: int | None = None

    def to_json(self, puzzle: Puzzle, instance: Any) -> dict[str, Any]:
        """A JSON-ready dict; the solutions are given in the puzzle's text format."""
        second = self.second_solution
        return {
            "strategy": self.strategy,
            "status": self.status.value,
            "objective": self.objective,
            "wall_time": round(self.wall_time, 6),
            "stats": self.stats,
            "message": self.message,
            "solution": puzzle.format(instance, self.solution) if self.solution is not None else None,
            "second_solution": puzzle.format(instance, second) if second is not None else None,
            "count": self.count,
        }


SolveFn = Callable[[Any, Limits, "str | None"], Result]


@dataclass(frozen=True)
class Strategy:
    """A named way to solve one puzzle.

    Attributes:
        name: ``<method>`` as shown by ``puzzlesat list``; a variant follows a colon.
        target: ``module:function`` of the solve function, imported only when run.
        summary: one line for ``puzzlesat list``.
        variants: accepted variants (e.g. pysat solver names); empty = no variant.
        default_variant: used when the name has no ``:variant``.
        encoder: ``module:function`` returning an Encoding, for DIMACS export.
        model: ``module:function`` returning a CP-SAT model, for protobuf export.
        options: the ``-O KEY=VALUE`` options it reads (solving and export alike).
    """

    name: str
    target: str
    summary: str
    variants: tuple[str, ...] = ()
    default_variant: str | None = None
    encoder: str | None = None
    model: str | None = None
    options: tuple[Option, ...] = ()

    def load(self) -> SolveFn:
        """Import and return the solve function."""
        return load_target(self.target)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Puzzle:
    """Everything the CLI and the portfolio need to know about one puzzle.

    Attributes:
        name: the puzzle's CLI name.
        parse: ``(text, source) -> Instance``; raises ParseError naming source and line.
        format: ``(instance, solution or None) -> str`` in the seed's output format.
        parse_solution: ``(instance, text, source) -> Solution`` for ``check``.
        verify: ``(instance, solution) -> list of problems``; empty means accepted.
        generator: ``module:function`` of ``(options dict, seed) -> Instance``, imported only
            when called through :meth:`generate` (a generator may need a solver library).
        write_instance: ``Instance -> str`` in the input format.
        strategies: the named strategies, first is the default.
        portfolio: the strategy names raced by ``solve --portfolio`` by default.
        generator_options: the parameters of ``generate``; a default of None lets the
            generator choose.
        solve_options: the puzzle's own ``solve`` flags (``--unique``, ``--metric``), handed
            to every strategy in ``Limits.options`` beside the strategy's own options.
        after_solve: ``(instance, result, options) -> None``, run after a verified answer
            (e.g. draw the grid on stderr or into an SVG file); may be None.
        optimisation: True when the puzzle minimises an objective.
        instance_options: what completes an instance beside its file (eternity: ``hints``,
            a hints file), given to ``load`` and as flags of solve, check and export.
        amend: ``(instance, instance options) -> instance``, the instance they complete.
        check_options: the flags of ``check`` (eternity: ``score``, ``svg``).
        check: ``(instance, solution, check options) -> problems``, the verifier as ``check``
            runs it with its options (it may relax a rule, report or draw); None: ``verify``.
        verify_run: ``(instance, solution, solve options) -> problems``, the verifier of a
            solve run with those options (eternity's ``score`` accepts the mismatched edges
            of a legal board); None: ``verify``.
    """

    name: str
    parse: Callable[[str, str], Any]
    format: Callable[[Any, Any], str]
    parse_solution: Callable[[Any, str, str], Any]
    verify: Callable[[Any, Any], list[str]]
    generator: str
    write_instance: Callable[[Any], str]
    strategies: tuple[Strategy, ...]
    portfolio: tuple[str, ...] = ()
    generator_options: tuple[Option, ...] = ()
    solve_options: tuple[Option, ...] = ()
    after_solve: Callable[[Any, Result, dict[str, Any]], None] | None = None
    optimisation: bool = False
    instance_options: tuple[Option, ...] = ()
    amend: Callable[[Any, dict[str, Any]], Any] | None = None
    check_options: tuple[Option, ...] = ()
    check: Callable[[Any, Any, dict[str, Any]], list[str]] | None = None
    verify_run: Callable[[Any, Any, dict[str, Any]], list[str]] | None = None

    def generate(self, options: dict[str, Any], seed: int) -> Any:
        """A new instance from the generator; the same options and seed give the same one."""
        return load_target(self.generator)(options, seed)

    def strategy(self, name: str) -> tuple[Strategy, str | None]:
        """Look up ``method[:variant][@options]``; raises BackendUnavailable for unknown names."""
        method, _, variant = split_strategy(name)[0].partition(":")
        for strat in self.strategies:
            if strat.name == method:
                if variant and variant not in strat.variants:
                    raise BackendUnavailable(
                        f"unknown variant {variant!r} of {method!r}; expected one of: {', '.join(strat.variants)}"
                    )
                if not variant and strat.variants and strat.default_variant is None:
                    raise BackendUnavailable(f"strategy {method!r} needs a variant")
                return strat, variant or strat.default_variant
        names = ", ".join(s.name for s in self.strategies)
        raise BackendUnavailable(f"unknown strategy {name!r} for {self.name}; expected one of: {names}")

    def options(self, names: list[str], given: dict[str, Any]) -> dict[str, Any]:
        """Check options given for a run of these strategies; each must be declared by one of them.

        Returns, for one strategy, every option it and the puzzle declare, defaults filled in.
        For several (a race, a comparison), the puzzle's solve options with their defaults and
        only the strategies' options that were given: two strategies may declare one key with
        different types and defaults (pegsol's ``ordering``), and each run fills in its own
        (:func:`run_strategy`).

        Raises:
            OptionError: a key none of them declares (naming the valid keys), or a bad value.
        """
        strats = [self.strategy(name)[0] for name in names]
        declared = {opt.name: opt for s in strats for opt in s.options} | {o.name: o for o in self.solve_options}
        label = f"{self.name} {', '.join(s.name for s in strats)}"
        resolved = resolve_options(declared.values(), given, label)
        if len(strats) == 1:
            return resolved
        shared = {o.name for o in self.solve_options}
        return {k: v for k, v in resolved.items() if k in shared or k in given}


def split_strategy(name: str) -> tuple[str, dict[str, str]]:
    """``method[:variant][@key=value...]`` -> (``method[:variant]``, the options the name sets).

    Options in the name make one strategy with other settings a strategy of its own, e.g.
    for ``compare``: ``cnf-plan:cadical195@parallel=0@pagoda=1``.

    >>> split_strategy("cnf-plan:cadical195@parallel=0@pagoda=1")
    ('cnf-plan:cadical195', {'parallel': '0', 'pagoda': '1'})

    Raises:
        OptionError: an option that is not ``key=value``.
    """
    base, *pairs = name.split("@")
    options = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise OptionError(f"strategy {name!r}: expected @KEY=VALUE options, got {pair!r}")
        options[key.strip()] = value.strip()
    return base, options


def load_target(target: str) -> Any:
    """Import ``package.module:attribute`` and return the attribute."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def get_puzzle(name: str) -> Puzzle:
    """Return the Puzzle registered under ``name``; raises BackendUnavailable if unknown."""
    if name not in PUZZLE_NAMES:
        raise BackendUnavailable(f"unknown puzzle {name!r}; expected one of: {', '.join(PUZZLE_NAMES)}")
    try:
        module = importlib.import_module(f"puzzlesat.domains.{name}")
    except ModuleNotFoundError as exc:
        raise BackendUnavailable(f"puzzle {name!r} is not built yet") from exc
    return module.PUZZLE  # type: ignore[no-any-return]


def available_puzzles() -> list[Puzzle]:
    """Every puzzle whose module exists."""
    found = []
    for name in PUZZLE_NAMES:
        try:
            found.append(get_puzzle(name))
        except BackendUnavailable:
            continue
    return found


def run_strategy(puzzle: Puzzle, instance: Any, name: str, limits: Limits, *, overrun_stop: bool = True) -> Result:
    """Run one strategy and pass its answer through the puzzle's verifier.

    A solution the verifier rejects is turned into an ERROR result naming the problems: it is
    a bug in the strategy, never an answer.  Strategies stop at their time limit themselves;
    one still busy a little after it (building a large model, say) is stopped by a hard
    deadline and reported as UNKNOWN, unless ``overrun_stop`` is False (a portfolio child,
    whose supervisor kills it, C code and all).

    Args:
        puzzle: the puzzle.
        instance: a parsed instance.
        name: ``method[:variant][@key=value,...]``; options in the name override those of
            ``limits``.
        limits: time, seed, workers and options; an option that this strategy does not
            declare is left out (a race hands the same options to every member), one it
            declares is converted to its type, and the others get their defaults.

    Returns:
        The verified Result, with ``strategy`` set to the full name.
    """
    strat, variant = puzzle.strategy(name)
    solve = strat.load()
    own = {opt.name for opt in strat.options + puzzle.solve_options}
    named = split_strategy(name)[1]
    given = {k: v for k, v in limits.options.items() if k in own} | named
    limits = replace(limits, options=puzzle.options([name], given))
    start = time.perf_counter()
    try:
        overrun = None if limits.timeout is None or not overrun_stop else limits.timeout * 1.05 + 1.0
        with hard_deadline(overrun, f"{name} was running"), solver_interrupts():
            result = solve(instance, limits, variant)
    except DeadlineExceeded as exc:
        result = Result(Status.UNKNOWN, message=str(exc))
    if not result.wall_time:
        result.wall_time = time.perf_counter() - start
    result.strategy = strat.name + (f":{variant}" if variant else "") + name[len(split_strategy(name)[0]) :]
    return check_result(puzzle, instance, result, limits.options)


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

    def verify(solution: Any) -> list[str]:
        if puzzle.verify_run is not None and options is not None:
            return puzzle.verify_run(instance, solution, options)
        return puzzle.verify(instance, solution)

    problems = verify(result.solution)
    what = "the answer"
    if not problems and result.second_solution is not None:
        problems = verify(result.second_solution)
        what = "the second solution"
    if problems:
        return rejected(f"verifier rejected {what}: " + "; ".join(problems[:3]))
    return result

"""The entry point of one portfolio or compare child process.

The parent starts :func:`child_main` in a child process made by
:func:`puzzlesat.core.processes.start` (which ignores SIGINT, moves the child into its own
process group, has it die with the parent and caps its memory) with a :class:`ChildSpec` and
the sending end of a pipe.  The child sends ``("started", t)``, imports the puzzle and the
strategy, sends ``("loaded", t)``, runs :func:`puzzlesat.core.run_strategy` (which verifies the
answer) and sends ``("result", Result, t)``; ``t`` is :func:`time.time`, comparable across
processes.

This module imports nothing heavy: the solver libraries are imported by the strategy alone.
"""

from __future__ import annotations

import contextlib
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import Any

from puzzlesat.core import (
    Choice,
    Limits,
    Puzzle,
    PuzzlesatError,
    Result,
    Status,
    Strategy,
    get_puzzle,
    registry,
    split_strategy,
)
from puzzlesat.core.incumbent import Incumbent


@dataclass(frozen=True)
class ChildSpec:
    """Everything a child needs; pickled to the child by multiprocessing.

    Attributes:
        puzzle: a registered puzzle's name, or a picklable Puzzle object (tests' fixtures).
        instance: the parsed instance.
        name: the strategy ``method[:variant]``.
        seed: the random seed handed to the strategy.
        workers: threads the strategy may use (CP-SAT ``num_workers``).
        options: the puzzle's solve options (``Limits.options``).
        timeout: seconds the strategy may spend once loaded, or None.
        deadline: an absolute :func:`time.time` by which the strategy must answer, or None;
            the strategy's timeout is the smaller of the two budgets.
        memory_mb: the ``RLIMIT_DATA`` cap in MiB, or None.
        strategy: the strategy itself when a script registered it (the child cannot find it
            by name), else None.
        shared: the race's best answer so far (:attr:`Limits.shared`), or None.
        certify: a folder where the run certifies its claims (:func:`puzzlesat.core.certify.run`),
            its files named ``certify_prefix``-..., or None.
    """

    puzzle: str | Puzzle
    instance: Any
    name: str
    seed: int = 0
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    deadline: float | None = None
    memory_mb: int | None = None
    strategy: Strategy | None = None
    shared: Incumbent | None = None
    certify: str | None = None
    certify_prefix: str = "claim"


def puzzle_spec(puzzle: Puzzle) -> str | Puzzle:
    """How a puzzle travels to a child: by name when built in or installed, else pickled whole.

    Raises:
        PluginError: a script's puzzle that a child process cannot import.
    """
    if registry.origin(puzzle.name) != "script":
        with contextlib.suppress(Exception):
            if get_puzzle(puzzle.name) is puzzle:
                return puzzle.name
    registry.check_portable(puzzle, f"puzzle {puzzle.name}")
    return puzzle


def strategy_spec(puzzle: Puzzle, name: str) -> Strategy | None:
    """The strategy to send a child with ``name``: a script's (checked), None for one it finds itself.

    Raises:
        PluginError: a script's strategy that a child process cannot import.
    """
    method = split_strategy(name)[0].partition(":")[0]
    strat = registry.script_strategy(puzzle.name, method)
    if strat is not None:
        registry.check_portable(strat, f"strategy {method} for {puzzle.name}")
    return strat


def resolve_puzzle(spec: ChildSpec) -> Puzzle:
    """The Puzzle a spec names (registered puzzles travel by name, others pickled), with the
    strategy it carries, if any, among its own."""
    puzzle = get_puzzle(spec.puzzle) if isinstance(spec.puzzle, str) else spec.puzzle
    if spec.strategy is not None:
        puzzle = replace(puzzle, strategies=(*puzzle.strategies, spec.strategy))
    return puzzle


@dataclass(frozen=True)
class Loaded:
    """A child's puzzle and its strategy name resolved once (:func:`load_guarded`), the
    strategy imported: what :func:`run_child` runs."""

    puzzle: Puzzle
    choice: Choice


def run_child(spec: ChildSpec, loaded: Loaded) -> Result:
    """Run the loaded strategy in this process; every failure becomes an ERROR Result."""
    puzzle = loaded.puzzle
    start = time.time()
    budgets = [b for b in (spec.timeout, None if spec.deadline is None else spec.deadline - start) if b is not None]
    timeout = max(0.0, min(budgets)) if budgets else None
    limits = Limits(
        timeout=timeout, seed=spec.seed, workers=spec.workers, options=dict(spec.options), shared=spec.shared
    )
    from puzzlesat.core import run_strategy

    def run() -> Result:
        return run_strategy(puzzle, spec.instance, loaded.choice, limits, overrun_stop=False)  # the supervisor stops it

    if spec.certify is None:
        return run()
    from puzzlesat.core import certify

    return certify.run(puzzle, spec.instance, run, spec.certify, prefix=spec.certify_prefix, timeout=timeout)  # type: ignore[no-any-return]


def load_guarded(spec: ChildSpec) -> Loaded | Result:
    """Import the puzzle and the strategy, its name resolved once; the ERROR Result when they
    do not load."""
    try:
        puzzle = resolve_puzzle(spec)
        choice = puzzle.choose(spec.name)
        choice.strategy.load()
    except BaseException as exc:  # noqa: BLE001 - any failure is reported, never raised
        return failure(spec, exc)
    return Loaded(puzzle, choice)


def run_guarded(spec: ChildSpec, loaded: Loaded) -> Result:
    """:func:`run_child`, with every failure (out of memory, any exception) as an ERROR Result."""
    try:
        return run_child(spec, loaded)
    except BaseException as exc:  # noqa: BLE001 - any failure is reported, never raised
        return failure(spec, exc)


def failure(spec: ChildSpec, exc: BaseException) -> Result:
    """The ERROR Result for an exception raised while loading or running a strategy."""
    if isinstance(exc, MemoryError):
        return Result(Status.ERROR, strategy=spec.name, message=f"out of memory (cap {spec.memory_mb} MiB)")
    if isinstance(exc, PuzzlesatError):  # a plugin's hook failed, or it cannot load: the message says which
        return Result(Status.ERROR, strategy=spec.name, message=str(exc))
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return Result(Status.ERROR, strategy=spec.name, message=f"crashed: {last}")


def child_main(conn: Any, spec: ChildSpec) -> None:
    """The target of the child process; see the module docstring."""
    conn.send(("started", time.time()))
    loaded = load_guarded(spec)
    if isinstance(loaded, Loaded):
        conn.send(("loaded", time.time()))
        result = run_guarded(spec, loaded)
    else:
        result = loaded
    try:
        conn.send(("result", result, time.time()))
    except MemoryError:
        conn.send(
            (
                "result",
                Result(Status.ERROR, strategy=spec.name, message=f"out of memory (cap {spec.memory_mb} MiB)"),
                time.time(),
            )
        )
    except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable solution
        conn.send(
            ("result", Result(Status.ERROR, strategy=spec.name, message=f"cannot send the result: {exc}"), time.time())
        )
    conn.close()

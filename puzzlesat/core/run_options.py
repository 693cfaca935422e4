"""The options of a run, resolved here and nowhere else.

:func:`for_strategies` checks the options of a request at the edge (a solve, a race, a
comparison, an export) before any work; :func:`for_run` gives one run every option its
strategy reads, defaults filled in (the engine, in whichever process runs it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from puzzlesat.core.arguments import writable
from puzzlesat.core.options import Option, resolve
from puzzlesat.core.types import Choice, Puzzle, Strategy


def served(puzzle: Puzzle, strategy: Strategy, variant: str | None) -> tuple[Option, ...]:
    """The options a run of ``strategy`` (with ``variant``) serves: its own, then the puzzle's
    solve options but for the modes it does not serve (:attr:`Strategy.modes`)."""
    modes = [o for o in puzzle.solve_options if o.name not in puzzle.modes or strategy.serves(o.name, variant)]
    return strategy.options + tuple(modes)


def for_strategies(puzzle: Puzzle, names: Sequence[str | Choice], given: Mapping[str, Any]) -> dict[str, Any]:
    """Check the options given for a run of these strategies; each must be declared by one of
    them or be one of the puzzle's solve options.  An unknown one is refused naming those
    they serve (:func:`served`); a mode none of them serves is not unknown: the engine
    refuses the run that asks for it (:class:`~puzzlesat.core.UnsupportedRequest`).

    Returns, for one strategy, every option it and the puzzle declare, defaults filled in.
    For several (a race, a comparison), the puzzle's solve options with their defaults and
    only the strategies' options that were given: two strategies may declare one key with
    different types and defaults (pegsol's ``ordering``), and each run fills in its own
    (:func:`for_run`).

    Raises:
        BackendUnavailable: an unknown strategy or variant.
        OptionError: a key none of them declares (naming the valid keys), or a bad value.
        ArgumentError: a file an option writes (``checkpoint``) that cannot be written, or
            that is no regular file (:func:`~puzzlesat.core.arguments.writable`).
    """
    picked = [puzzle.choose(name) for name in names]
    strats = [choice.strategy for choice in picked]
    declared = {opt.name: opt for s in strats for opt in s.options} | {o.name: o for o in puzzle.solve_options}
    label = f"{puzzle.name} {', '.join(choice.asked for choice in picked)}"
    listed = {opt.name for c in picked for opt in served(puzzle, c.strategy, c.variant)}
    resolved = resolve(declared.values(), given, label, listed)
    for opt in declared.values():
        if opt.writes:
            writable(resolved.get(opt.name))
    if len(strats) == 1:
        return resolved
    shared = {o.name for o in puzzle.solve_options}
    return {k: v for k, v in resolved.items() if k in shared or k in given}


def for_run(puzzle: Puzzle, name: str | Choice, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every option one run of strategy ``name`` reads, defaults filled in: of the options
    given, those it or the puzzle declares (a race hands the same options to every member),
    then those its name sets (``method@key=value``), which override them.

    Raises:
        BackendUnavailable: an unknown strategy or variant.
        OptionError: a bad value, or an option in the name that the strategy does not declare.
    """
    choice = puzzle.choose(name)
    own = {opt.name for opt in choice.strategy.options + puzzle.solve_options}
    return for_strategies(puzzle, [choice], {k: v for k, v in given.items() if k in own} | choice.overrides)

"""The types every layer and every plugin shares: Status, Limits, Result, Strategy, Puzzle.

A plugin fills in a :class:`Puzzle` (a whole puzzle) or a :class:`Strategy` (a formulation
for an existing puzzle); ``docs/plugins.md`` is the contract.  The strategies plugins add to
a puzzle are looked up through :mod:`puzzlesat.core.registry`, which installs its lookup
here when it is imported (it imports these types, so they cannot import it).
"""

from __future__ import annotations

import enum
import importlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, overload

from puzzlesat.core.errors import ArgumentError, ArgumentTypeError, BackendUnavailable, PluginError, PuzzlesatError
from puzzlesat.core.incumbent import Incumbent
from puzzlesat.core.options import Option, OptionError


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
        shared: the best answer of a race this run is a member of
            (:class:`~puzzlesat.core.incumbent.Incumbent`), under ``--score`` or an
            optimisation: a strategy may offer its answers there and take the others' best as
            a bound or a hint; None outside a race.
        started: when the run began (:func:`time.perf_counter`), set by the engine as it calls
            the strategy: the time limit counts from there, so the strategy's own imports
            (numba's, ortools', seconds on a busy machine) are inside it.
    """

    timeout: float | None = None
    seed: int = 0
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    shared: Incumbent | None = None
    started: float | None = None

    def remaining(self, start: float) -> float | None:
        """Seconds left of the timeout, counted from ``start`` (:func:`time.perf_counter`) or
        from :attr:`started` when the run began earlier."""
        if self.timeout is None:
            return None
        begun = start if self.started is None else min(start, self.started)
        return max(0.0, self.timeout - (time.perf_counter() - begun))

    def deadline(self, start: float) -> float | None:
        """The :func:`time.perf_counter` time the answer is due (None: no limit); see :meth:`remaining`."""
        left = self.remaining(start)
        return None if left is None else time.perf_counter() + left


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
        puzzle, instance: the puzzle and the instance solved, set by the API's
            :func:`~puzzlesat.api.solve` and :func:`~puzzlesat.api.race` so that a result can
            draw itself (:meth:`_repr_svg_`); None in the results strategies return.
        certificates: how each claim a solution does not check ("no solution", "optimal",
            "unique") stands, when the run was asked to certify them
            (:class:`puzzlesat.core.certify.Certificate`); empty otherwise.
        boards: for a hunt at a fixed level (eternity's ``--score --target N``), the distinct
            boards of that level or better found by this run (Solutions, in the order found;
            at most a few thousand, every one is also written to ``--boards``); empty otherwise.
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
    certificates: list[Any] = field(default_factory=list)
    boards: list[Any] = field(default_factory=list)
    puzzle: Puzzle | None = field(default=None, repr=False, compare=False)
    instance: Any = field(default=None, repr=False, compare=False)

    def _repr_svg_(self) -> str | None:
        """The instance and this answer as an SVG picture (a notebook shows it), or None for a
        result that does not know its instance or a puzzle without a picture."""
        if self.puzzle is None or self.puzzle.draw is None or self.instance is None:
            return None
        return self.puzzle.draw_svg(self.instance, self.solution)

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


# the message of an UNKNOWN result whose time ran out, in every strategy (``compare`` and
# ``catalog`` tell a timeout from another UNKNOWN by it)
TIME_LIMIT = "time limit"

SolveFn = Callable[[Any, Limits, "str | None"], Result]
ENGINES = ("cpsat", "sat", "maxsat", "native", "plain", "other")  # :attr:`Strategy.engine`
Target = str | Callable[..., Any]  # ``module:function``, imported when used, or the function itself


@dataclass(frozen=True)
class Strategy:
    """A named way to solve one puzzle, and what it declares it can do.

    Attributes:
        name: ``<method>`` as shown by ``puzzlesat list``; a variant follows a colon.
        target: ``module:function`` of the solve function ``(instance, limits, variant) ->
            Result``, imported only when run (or the function itself, for a script's strategy).
        summary: one line for ``puzzlesat list``.
        variants: accepted variants (e.g. pysat solver names); empty = no variant.
        default_variant: used when the name has no ``:variant``.
        encoder: ``module:function`` ``(instance, options) -> Encoding``, for DIMACS export.
        model: ``module:function`` ``(instance, options) -> (CpModel, ...)``, for protobuf export.
        options: the ``-O KEY=VALUE`` options it reads (solving and export alike).
        modes: the puzzle's modes (:attr:`Puzzle.modes`: ``count``, ``score``, ``unique``,
            ``all``, ``extra``) it serves, ``mode:variant`` for one variant only (Kissat
            cannot count); a run asking for another is refused.
        puzzle: the puzzle it solves; needed by a plugin's strategy, optional for a
            puzzle's own (those sit in its :attr:`Puzzle.strategies`).
        engine: what searches (:data:`ENGINES`): ``cpsat`` (OR-Tools CP-SAT), ``sat`` (a
            pysat SAT solver), ``maxsat`` (RC2), ``native`` (a numba backtracker), ``plain``
            (plain Python) or ``other``.  Core sharing, certification labels and refusals read
            it, never the strategy's name.
        parallel: its one search splits over several workers (``--workers N``; CP-SAT's
            ``num_workers``), so a run may give it more than one core.
    """

    name: str
    target: Target
    summary: str
    variants: tuple[str, ...] = ()
    default_variant: str | None = None
    encoder: Target | None = None
    model: Target | None = None
    options: tuple[Option, ...] = ()
    modes: tuple[str, ...] = ()
    puzzle: str = ""
    engine: str = "other"
    parallel: bool = False

    def __post_init__(self) -> None:
        check_name("strategy", self.name)
        what = f"strategy {self.name!r}"
        check_target(what, "target", self.target)
        check_target(what, "encoder", self.encoder, optional=True)
        check_target(what, "model", self.model, optional=True)
        if self.engine not in ENGINES:
            raise ArgumentError(f"{what}: engine {self.engine!r} is not one of {', '.join(ENGINES)}")

    def load(self) -> SolveFn:
        """Import and return the solve function."""
        return load_target(self.target)  # type: ignore[no-any-return]

    def serves(self, mode: str, variant: str | None = None) -> bool:
        """True when it serves ``mode`` (with this variant; None: with some variant)."""
        if mode in self.modes:
            return True
        if variant is None:
            return any(m.partition(":")[0] == mode for m in self.modes)
        return f"{mode}:{variant}" in self.modes


class Declarations:
    """:attr:`Puzzle.strategies`: given as Strategy objects or ``module:attr`` names of
    declarations, read as Strategy objects.

    A name stands for a Strategy, or a sequence of them, declared at the top of the module
    that implements it (the built-in puzzles name theirs: ``puzzlesat.native.eternity.rowscan:STRATEGY``).
    The modules are imported when the strategies are first read (listing, choosing, option
    checking), not when the puzzle's module is: a domain module cannot import the formulations
    that import it, and ``import puzzlesat`` stays cheap.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = f"_{name}"

    @overload
    def __get__(self, puzzle: None, owner: Any) -> Declarations: ...

    @overload
    def __get__(self, puzzle: Puzzle, owner: Any) -> tuple[Strategy, ...]: ...

    def __get__(self, puzzle: Puzzle | None, owner: Any = None) -> tuple[Strategy, ...] | Declarations:
        if puzzle is None:
            raise AttributeError("strategies has no default")  # the dataclass field stays required
        given: tuple[Strategy | str, ...] = puzzle.__dict__[self.key]
        if any(isinstance(item, str) for item in given):
            resolved = tuple(strat for item in given for strat in _declared(puzzle.name, item))
            puzzle.__dict__[self.key] = resolved  # read once: the puzzle is frozen otherwise
            return resolved
        return given  # type: ignore[return-value]  # no names left: Strategy objects only

    def __set__(self, puzzle: Puzzle, value: Iterable[Strategy | str]) -> None:
        puzzle.__dict__[self.key] = tuple(value)


def _declared(puzzle: str, item: Strategy | str) -> tuple[Strategy, ...]:
    """The Strategy objects one item of :attr:`Puzzle.strategies` stands for.

    Raises:
        PluginError: a name that cannot be imported, or that names no Strategy of this puzzle.
    """
    if not isinstance(item, str):
        return (item,)
    try:
        value = load_target(item)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - one line naming the declaration
        raise PluginError(f"{puzzle}: strategies {item!r} cannot be imported: {type(exc).__name__}: {exc}") from None
    found = (value,) if isinstance(value, Strategy) else tuple(value) if isinstance(value, list | tuple) else ()
    if not found or not all(isinstance(s, Strategy) and s.puzzle in ("", puzzle) for s in found):
        raise PluginError(f"{puzzle}: {item!r} is not a Strategy of {puzzle} (or a sequence of them)")
    return found


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
            when called through :meth:`generate` (a generator may need a solver library);
            None for a puzzle without one.
        write_instance: ``Instance -> str`` in the input format.
        strategies: the named strategies, first is the default: Strategy objects, or
            ``module:attr`` names of them read on first use (:class:`Declarations`).
        portfolio: the strategy names raced by ``solve --portfolio`` by default.
        generator_options: the parameters of ``generate``; a default of None lets the
            generator choose.
        solve_options: the puzzle's own ``solve`` flags (``--unique``, ``--metric``), handed
            to every strategy in ``Limits.options`` beside the strategy's own options.
        notes: ``(instance, result, options) -> lines``, what to show on stderr after a verified
            answer (eternity's score, masyu's URL or second loop); the library returns the
            lines and the CLI prints them; may be None.  ``check`` calls it too, with a
            SOLVED result holding the answer checked and the check options.
        draw: ``module:function`` of ``(instance, solution or None) -> SVG text``, imported
            only when a picture is asked for (:meth:`draw_svg`); None for a puzzle without one.
        optimisation: True when the puzzle minimises an objective.
        instance_options: what completes an instance beside its file (eternity: ``hints``,
            a hints file), given to ``load`` and as flags of solve, check and export.
        amend: ``(instance, instance options) -> instance``, the instance they complete.
        check_options: the flags of ``check`` (eternity: ``score``).
        check: ``(instance, solution, check options) -> problems``, the verifier as ``check``
            runs it with its options (it may relax a rule); None: ``verify``.
        verify_run: ``(instance, solution, solve options) -> problems``, the verifier of a
            solve run with those options (eternity's ``score`` accepts the mismatched edges
            of a legal board); None: ``verify``.
        presolve: ``(instance, limits) -> Result or None``: the answer without search
            (trivial boards, impossibility proofs), which the engine gives before it runs
            any strategy (:func:`puzzlesat.core.run_strategy`); None when a strategy has to
            search.  Strategies may assume it found nothing.
        modes: the solve options that ask another question than the puzzle's plain one
            (eternity's ``count`` and ``score``, masyu's ``unique``, rubik's ``all`` and
            ``extra``): only the strategies that list one in :attr:`Strategy.modes` serve it.
        write_argument: ``module:function`` of ``instance -> dict or None``, an impossibility
            proof that is not a solver's (pegsol: parity, pagoda) as JSON-ready data, for
            ``solve --certify``; imported only when used.
        check_argument: ``module:function`` of ``(instance, data) -> problems``, re-checking
            such a proof (``check``).
    """

    name: str
    parse: Callable[[str, str], Any]
    format: Callable[[Any, Any], str]
    parse_solution: Callable[[Any, str, str], Any]
    verify: Callable[[Any, Any], list[str]]
    generator: Target | None
    write_instance: Callable[[Any], str]
    strategies: Declarations = Declarations()
    portfolio: tuple[str, ...] = ()
    generator_options: tuple[Option, ...] = ()
    solve_options: tuple[Option, ...] = ()
    notes: Callable[[Any, Result, dict[str, Any]], list[str]] | None = None
    draw: Target | None = None
    optimisation: bool = False
    instance_options: tuple[Option, ...] = ()
    amend: Callable[[Any, dict[str, Any]], Any] | None = None
    check_options: tuple[Option, ...] = ()
    check: Callable[[Any, Any, dict[str, Any]], list[str]] | None = None
    verify_run: Callable[[Any, Any, dict[str, Any]], list[str]] | None = None
    presolve: Callable[[Any, Limits], Result | None] | None = None
    modes: tuple[str, ...] = ()
    write_argument: Target | None = None
    check_argument: Target | None = None

    def __post_init__(self) -> None:
        check_name("puzzle", self.name)
        what = f"puzzle {self.name!r}"
        for name in ("parse", "format", "parse_solution", "verify", "write_instance"):
            check_target(what, name, getattr(self, name), functions_only=True)
        for name in ("notes", "amend", "check", "verify_run", "presolve"):
            check_target(what, name, getattr(self, name), optional=True, functions_only=True)
        for name in ("generator", "draw", "write_argument", "check_argument"):
            check_target(what, name, getattr(self, name), optional=True)

    def draw_svg(self, instance: Any, solution: Any = None) -> str:
        """An SVG picture of the instance and, when given, a solution of it.

        Raises:
            PuzzlesatError: the puzzle has no picture.
        """
        if self.draw is None:
            raise PuzzlesatError(f"{self.name} has no picture")
        return load_target(self.draw)(instance, solution)  # type: ignore[no-any-return]

    def generate(self, options: dict[str, Any], seed: int) -> Any:
        """A new instance from the generator; the same options and seed give the same one."""
        if self.generator is None:
            raise PuzzlesatError(f"{self.name} has no generator")
        return load_target(self.generator)(options, seed)

    def all_strategies(self) -> tuple[Strategy, ...]:
        """Its own strategies, then those that plugins and scripts add (:mod:`puzzlesat.core.registry`)."""
        return self.strategies + _plugin_strategies(self)

    def strategy(self, name: str) -> tuple[Strategy, str | None]:
        """Look up ``method[:variant][@options]``: the Strategy and its variant; raises
        BackendUnavailable for unknown names (:meth:`choose` keeps the name's options too)."""
        choice = self.choose(name)
        return choice.strategy, choice.variant

    def choose(self, name: str | Choice) -> Choice:
        """Resolve ``method[:variant][@key=value...]`` once, into what a run reads.

        A name that is not the puzzle's own is looked up among the plugins' strategies.

        Raises:
            BackendUnavailable: an unknown strategy or variant.
            OptionError: options in the name that are not ``key=value``.
        """
        if isinstance(name, Choice):
            return name
        base, overrides = split_strategy(name)
        method, _, variant = base.partition(":")
        own = any(strat.name == method for strat in self.strategies)
        for strat in self.strategies if own else self.all_strategies():
            if strat.name == method:
                if variant and variant not in strat.variants:
                    raise BackendUnavailable(
                        f"unknown variant {variant!r} of {method!r}; expected one of: {', '.join(strat.variants)}"
                    )
                if not variant and strat.variants and strat.default_variant is None:
                    raise BackendUnavailable(f"strategy {method!r} needs a variant")
                return Choice(strat, variant or strat.default_variant, overrides, name[len(base) :], base)
        names = ", ".join(s.name for s in self.all_strategies())
        raise BackendUnavailable(f"unknown strategy {name!r} for {self.name}; expected one of: {names}")

    def requested_modes(self, options: dict[str, Any]) -> list[str]:
        """The modes these solve options ask for (set to anything but off, 0 or the default)."""
        declared = {opt.name: opt for opt in self.solve_options}
        return [m for m in self.modes if options.get(m) and options.get(m) != getattr(declared.get(m), "default", None)]

    def refusal(self, name: str | Choice, options: dict[str, Any]) -> str | None:
        """Why strategy ``name`` cannot serve a run with these options, or None when it can."""
        choice = self.choose(name)
        strat, variant = choice.strategy, choice.variant
        missing = [m for m in self.requested_modes(options) if not strat.serves(m, variant)]
        if not missing:
            return None
        flags = " ".join("--" + m.replace("_", "-") for m in missing)
        label = strat.name + (f":{variant}" if variant else "")
        servers = [s.name for s in self.all_strategies() if all(s.serves(m) for m in missing)]
        alternative = f"; {', '.join(servers)} can" if servers else "; no strategy of this puzzle serves it"
        return f"{self.name} strategy {label} does not serve {flags}{alternative}"

    def serving(self, names: list[str], options: dict[str, Any]) -> tuple[list[str], list[str]]:
        """The names that serve these options, and the others (a race or comparison leaves them out)."""
        kept = [n for n in names if self.refusal(n, options) is None]
        return kept, [n for n in names if n not in kept]


@dataclass(frozen=True)
class Choice:
    """A strategy name resolved once (:meth:`Puzzle.choose`): what one run reads.

    Attributes:
        strategy: the declaration.
        variant: the variant run (the default one when the name gives none).
        overrides: the options the name sets (``method@key=value``).
        suffix: the name's ``@key=value...`` part as written, for the result's name.
        asked: ``method[:variant]`` as written (messages name what the user asked for).
    """

    strategy: Strategy
    variant: str | None
    overrides: dict[str, str]
    suffix: str = ""
    asked: str = ""

    @property
    def name(self) -> str:
        """The full name a result carries: ``method[:variant][@key=value...]``."""
        return self.strategy.name + (f":{self.variant}" if self.variant else "") + self.suffix


NAME_BREAKERS = ":@,"  # what a name cannot hold: the command line splits strategy names at them


def check_name(kind: str, name: Any) -> None:
    """Refuse a puzzle's or strategy's name that the command line could not name.

    Raises:
        ArgumentTypeError, ArgumentError: not a str; empty, with a space or one of ``:@,``, or
            starting with ``-``.
    """
    if not isinstance(name, str):
        raise ArgumentTypeError(f"{kind} name: expected a str, got {type(name).__name__}")
    if not name or name.startswith("-") or any(c.isspace() or c in NAME_BREAKERS for c in name):
        raise ArgumentError(
            f"{kind} name {name!r}: expected a non-empty name without spaces or {', '.join(NAME_BREAKERS)}, "
            "not starting with -"
        )


def check_target(what: str, field: str, value: Any, optional: bool = False, functions_only: bool = False) -> None:
    """Refuse a declaration's function that is neither a function nor ``module:function`` (or None when optional).

    Raises:
        ArgumentTypeError: naming the declaration and the field.
    """
    if (value is None and optional) or callable(value):
        return
    named = isinstance(value, str) and all(value.partition(":")[::2]) and not functions_only
    if not named:
        expected = "a function" if functions_only else "a function or 'module:function'"
        expected += " or None" if optional else ""
        raise ArgumentTypeError(f"{what}: {field} must be {expected}, got {value!r}")


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


def load_target(target: Target) -> Any:
    """Import ``package.module:attribute`` and return the attribute (a function is itself)."""
    if not isinstance(target, str):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _no_plugins(puzzle: Puzzle) -> tuple[Strategy, ...]:
    return ()


_plugin_strategies: Callable[[Puzzle], tuple[Strategy, ...]] = _no_plugins


def set_plugin_lookup(lookup: Callable[[Puzzle], tuple[Strategy, ...]]) -> None:
    """Install the registry's lookup of the strategies plugins and scripts add to a puzzle."""
    global _plugin_strategies
    _plugin_strategies = lookup

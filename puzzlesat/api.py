"""The library's verbs, the same ones the command line offers: load, solve, race, compare,
catalog, format, check, notes, draw, export, decode, generate, table_sets, build_tables,
kernel_builds and build_kernels; and the registry's: puzzles, strategies, register_puzzle,
register_strategy, plugin_problems.

The command line is a thin client of these functions, so a script gets exactly what the CLI
prints.  Nothing here imports a solver library until a verb needs it: ``import puzzlesat`` is
as cheap as ``puzzlesat list``.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from puzzlesat import core
from puzzlesat.core import Limits, Puzzle, PuzzlesatError, Result, Status, Strategy, progress, registry
from puzzlesat.core import arguments as check_arg
from puzzlesat.core.deadline import hard_deadline
from puzzlesat.core.errors import ArgumentError
from puzzlesat.core.interrupts import solver_interrupts
from puzzlesat.core.options import resolve as resolve_options
from puzzlesat.core.registry import problems as plugin_problems  # noqa: F401 - a public verb
from puzzlesat.core.registry import register_puzzle, register_strategy  # noqa: F401 - public verbs
from puzzlesat.core.run_options import for_strategies
from puzzlesat.core.text import MAX_FILE_BYTES, decode_text, read_text

if TYPE_CHECKING:
    from puzzlesat.native.aot import KernelBuild
    from puzzlesat.native.rubik.cache import TableSet
    from puzzlesat.portfolio.catalog import Entry
    from puzzlesat.portfolio.compare import Record

Source = str | os.PathLike[str] | TextIO
StrategyArg = str | Strategy


class _InstanceFields(NamedTuple):
    puzzle: Puzzle
    data: Any
    source: str


class Instance(_InstanceFields):
    """A parsed instance that carries its puzzle: every verb takes the puzzle from it, never
    looking a name up again.  A named tuple: immutable, cheap to make and to send.

    Attributes:
        puzzle: the :class:`~puzzlesat.core.Puzzle` (given a name, it is looked up once, here).
        data: the puzzle's own instance object (e.g. :class:`puzzlesat.domains.eternity.Instance`).
        source: where it came from, as error messages and tables name it.
    """

    __slots__ = ()

    def __new__(cls, puzzle: Puzzle | str, data: Any, source: str = "<text>") -> Instance:
        return super().__new__(cls, get_puzzle(puzzle), data, source)

    def __repr__(self) -> str:
        return f"Instance({self.puzzle.name!r}, {self.data!r}, {self.source!r})"

    @property
    def text(self) -> str:
        """The instance in the puzzle's input format."""
        return self.puzzle.write_instance(self.data)

    def _repr_svg_(self) -> str | None:
        """The instance as an SVG picture, as a notebook shows it (see :func:`draw`); None for a
        puzzle that has no picture."""
        return draw(self) if self.puzzle.draw is not None else None


def puzzles() -> list[str]:
    """The puzzles' names: the built-in ones, then installed plugins' and those a script registered.

    A plugin that fails to load is left out (:func:`plugin_problems` says why).

    >>> puzzles()[:5]
    ['eternity', 'masyu', 'pegsol', 'blacken', 'rubik']
    """
    return [p.name for p in core.available_puzzles()]


def strategies(puzzle: str | Puzzle) -> list[Strategy]:
    """A puzzle's strategies, the default first, plugins' after its own; each names its
    variants, declared options and the modes it serves."""
    return list(get_puzzle(puzzle).all_strategies())


def strategy_name(puzzle: Puzzle, strategy: StrategyArg) -> str:
    """The name to run: a Strategy object is registered for the puzzle first (once)."""
    if isinstance(strategy, Strategy):
        return register_strategy(strategy, puzzle.name).name
    return str(check_arg.text("strategy", strategy))


def strategy_names(puzzle: Puzzle, strategies: StrategyArg | Sequence[StrategyArg] | None) -> list[str] | None:
    """The names a race or comparison runs: a comma list, names or Strategy objects; None for the default."""
    if strategies is None:
        return None
    if isinstance(strategies, str):
        return [n.strip() for n in strategies.split(",") if n.strip()]
    if not isinstance(strategies, Strategy | Iterable):
        raise check_arg.ArgumentTypeError(
            f"strategies: expected names or Strategy objects (a list, or one str), got {check_arg.kind(strategies)}"
        )
    items = [strategies] if isinstance(strategies, Strategy) else list(strategies)
    for item in items:
        check_arg.typed("strategies", item, (str, Strategy), "names or Strategy objects (a list, or one str)")
    return [strategy_name(puzzle, item) for item in items if not isinstance(item, str) or item.strip()]


def load(puzzle: str | Puzzle, source: Source, **options: Any) -> Instance:
    """Read an instance of ``puzzle``.

    Args:
        puzzle: the puzzle's name, or the Puzzle itself.
        source: a path (a :class:`~pathlib.Path`, or a one-line string naming an existing file
            or ending in ``.txt``), an open text file, or the text itself (an instance file's
            contents, a masyu puzz.link URL, a rubik maneuver or facelet string).
        options: the puzzle's instance options (eternity: ``hints="hints.txt"``).

    Raises:
        PuzzlesatError: an unreadable file, or a ParseError naming the source and line.
        OptionError: an option the puzzle does not declare, or a bad value.
        ArgumentTypeError: a source that is neither a path, an open file nor text.
    """
    target = get_puzzle(puzzle)
    check_arg.source("source", source)
    resolved = resolve_options(target.instance_options, options, f"{target.name} instance")
    text, name = read_source(source)
    data = target.parse(text, name)
    if target.amend is not None:
        data = target.amend(data, resolved)
    return Instance(target, data, name)


def solve(
    instance: Instance,
    strategy: StrategyArg | None = None,
    *,
    timeout: float | None = None,
    seed: int = 0,
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
    on_progress: progress.Callback | None = None,
    certify: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Result:
    """Solve with one strategy in this process; the answer has passed the puzzle's verifier.

    Args:
        instance: from :func:`load` or :func:`generate`.
        strategy: ``method[:variant]``, or a Strategy object (registered for the puzzle);
            default the puzzle's first (``puzzlesat list``).
        timeout: seconds, None for no limit.
        seed: the search order's seed.
        workers: threads or processes the strategy may use; None: every core this process may
            run on for a strategy whose search splits (``Strategy.parallel``), else 1; 1 keeps
            one process (reproducible node counts).
        backend: ``local``, or ``ray``: eternity's native-rowscan spreads its ``workers`` over
            a Ray cluster (:mod:`puzzlesat.native.eternity.ray`).
        address: the Ray cluster's ``HOST:PORT``; None starts a local Ray instance.
        on_progress: called with a :class:`~puzzlesat.core.progress.Progress` as long work
            goes on (the cube's table builds and deep searches); the command line draws it.
        certify: a folder: each claim a solution does not check ("no solution", "optimal",
            "unique") gets its proof written there and checked before this returns
            (``result.certificates``; :mod:`puzzlesat.core.certify`).  Needs a DRAT checker:
            drat-trim on PATH, or ``pip install "puzzlesat[certify]"``.
        options: the strategy's declared options and the puzzle's solve flags
            (``unique=True``, ``metric="qtm"``, ``amo=False``; see :func:`strategies`).

    Raises:
        OptionError: an option the strategy does not declare (naming the valid ones) or a bad value.
        BackendUnavailable: an unknown strategy or variant.
        UnsupportedRequest: the options ask for a mode (``count``, ``score``, ...) the strategy
            does not serve.
        ArgumentTypeError, ArgumentError: an argument of the wrong type or value (the CLI's limits).
        ArgumentError: a backend other than ``local`` or ``ray``, or an address without ``ray``.
        PuzzlesatError: a backend the strategy cannot run on.
        PluginError: a plugin's strategy or puzzle failed (one line naming the plugin, the hook
            and the exception, or what its answer got wrong).
    """
    called = time.perf_counter()  # the time limit counts from the call: loading the strategy is inside it
    puzzle = instance_puzzle(instance)
    if strategy is None:
        default = puzzle.strategies or puzzle.all_strategies()
        if not default:
            raise core.BackendUnavailable(f"{puzzle.name} has no strategy")
        strategy = default[0].name
    choice = puzzle.choose(strategy_name(puzzle, strategy))  # resolved once for the whole run
    timeout = check_arg.timeout(timeout)
    seed = check_arg.declared(check_arg.SEED, seed)
    workers = check_arg.declared(check_arg.WORKERS, workers)
    options = for_strategies(puzzle, [choice], options)
    if workers is None:
        workers = check_arg.default_workers(choice.strategy.parallel)
    limits = Limits(timeout=timeout, seed=seed, workers=workers, options=options, started=called)
    backend = check_arg.declared(check_arg.BACKEND, backend)
    if check_arg.declared(check_arg.ADDRESS, address) and backend == "local":
        raise ArgumentError("address: needs backend='ray'")
    check_arg.cores("workers", limits.workers, backend)
    if certify is not None:
        check_arg.writable_folder("certify", check_arg.path("certify", certify))
    if backend == "ray":
        from puzzlesat.native.eternity import ray as eternity_ray

        run = partial(eternity_ray.solve, puzzle, instance.data, choice.name, limits, address)
    else:
        run = partial(core.run_strategy, puzzle, instance.data, choice, limits)
    with progress.reporting(on_progress):
        if certify is not None:
            from puzzlesat.core import certify as certifying

            done = certifying.run(puzzle, instance.data, run, certify, prefix=_prefix(instance), timeout=limits.timeout)
            return _knows(plugin_checked(puzzle, done), instance)
        return _knows(plugin_checked(puzzle, run()), instance)


def plugin_checked(puzzle: Puzzle, result: Result) -> Result:
    """The result of one run, unless a plugin's strategy failed: then its error, raised.

    Raises:
        PluginError: the ERROR a plugin's strategy ended with (its hook raised, exited or
            returned something else than a Result, or its answer was rejected), its message
            naming the plugin.
    """
    if result.status is Status.ERROR:
        method = core.split_strategy(result.strategy)[0].partition(":")[0]
        if registry.origin(puzzle.name, method) is not None:
            raise core.PluginError(result.message)
    return result


def unproved_claim(instance: Instance, result: Result) -> str | None:
    """The words for a "no solution" that only a plugin says, or None for an answer that stands.

    puzzlesat's own strategies claim INFEASIBLE from a proof (an exhausted search, a solver's
    refutation); a plugin's INFEASIBLE is its word, as an external solver's UNSATISFIABLE is
    for :func:`decode`, unless ``certify`` checked a proof of it.
    """
    puzzle = instance_puzzle(instance)
    if result.status is not Status.INFEASIBLE or (result.certificates and all(c.checked for c in result.certificates)):
        return None
    method = core.split_strategy(result.strategy)[0].partition(":")[0]
    who = registry.label(puzzle.name, method)
    if who is None:
        return None
    return f"INFEASIBLE claimed by {who}, not proved (solve --certify checks a proof the strategy records)"


def _prefix(instance: Instance) -> str:
    """The stem of an instance's certificate files: its file's name, else ``claim``."""
    return "claim" if instance.source.startswith(("<", "generated")) else Path(instance.source).stem


def _knows(result: Result, instance: Instance) -> Result:
    """The result, told its instance so that it can draw itself (``Result._repr_svg_``)."""
    result.puzzle, result.instance = instance.puzzle, instance.data
    return result


def race(
    instance: Instance,
    strategies: StrategyArg | Sequence[StrategyArg] | None = None,
    *,
    timeout: float | None = None,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    seed: int = 0,
    memory_limit: int | None = None,
    stream: TextIO | None = None,
    on_progress: progress.Callback | None = None,
    certify: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Result:
    """Race strategies in separate processes (the portfolio); the first verified answer wins.

    For an optimisation puzzle the first proven optimum wins, or else the best verified
    answer at the deadline.  Every process started is stopped before this returns.

    Args:
        instance: the instance.
        strategies: names or Strategy objects, or one comma-separated string; repeat a name
            to race seeds; default the puzzle's portfolio.  Only the members that serve the
            options' mode race; ``stream`` names those left out.
        timeout: seconds for the race.
        jobs: cores to share out; None for all.
        backend: ``local`` (child processes) or ``ray``.
        address: the Ray cluster's ``HOST:PORT``; None starts a local Ray instance.
        seed: the first member's seed (the others count up).
        memory_limit: MiB per child; None for an even share of the machine.
        stream: where the race's table goes, and a line per finished member unless
            ``on_progress`` is given; None for silence.
        on_progress: called with the race's live status and those lines
            (:class:`~puzzlesat.core.progress.Progress`).
        certify: a folder: every member certifies the claims it makes there, as :func:`solve`
            does, and a claim the winner could not certify is certified after the race by a
            member that can, when there is one (``result.certificates``; ``stream`` says which).
            Needs a DRAT checker: BackendUnavailable before any member starts without one.
        options: as for :func:`solve`; each must be declared by one of the members.
    """
    from puzzlesat.portfolio import race as portfolio

    puzzle = instance_puzzle(instance)
    names = strategy_names(puzzle, strategies)
    limits = Limits(timeout=check_arg.timeout(timeout), seed=check_arg.declared(check_arg.SEED, seed), options=options)
    out = io.StringIO() if check_arg.stream("stream", stream) is None else stream
    pool = backend_of(backend, address, jobs, memory_limit)
    folder = None
    if certify is not None:
        from puzzlesat.core import proofcheck

        check_arg.path("certify", certify)
        proofcheck.choose_checker()  # no checker: refused before any member starts
        folder = os.fspath(certify)
    with progress.reporting(on_progress):
        result = portfolio.solve_portfolio(
            puzzle, instance.data, names, limits, pool, stream=out, certify=folder, certify_prefix=_prefix(instance)
        )
        return _knows(result, instance)


@dataclass(frozen=True, init=False)
class Comparison:
    """The runs of :func:`compare`: one record per (instance, strategy), with the table and plot.

    Attributes:
        puzzle: the :class:`~puzzlesat.core.Puzzle` compared on (given a name, it is looked up once, here).
        records: one per run.
    """

    puzzle: Puzzle
    records: list[Record]

    def __init__(self, puzzle: Puzzle | str, records: list[Record]) -> None:
        object.__setattr__(self, "puzzle", get_puzzle(puzzle))
        object.__setattr__(self, "records", records)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def table(self, format: str = "markdown") -> str:
        """The table ``puzzlesat compare`` prints: ``markdown``, ``csv`` or ``json``."""
        from puzzlesat.portfolio import compare as comparing

        check_arg.declared(check_arg.TABLE_FORMAT, format)
        return comparing.render(self.records, format, self.puzzle.optimisation)

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Draw the cactus plot (solved runs against time per strategy) into a PNG file (or
        another format matplotlib draws, by the file's suffix)."""
        from puzzlesat.portfolio import compare as comparing

        comparing.cactus_plot(self.records, plot_path(path), self.puzzle.optimisation)


def require_matplotlib() -> None:
    """Raise a PuzzlesatError naming the extra to install when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PuzzlesatError("plotting needs matplotlib: pip install 'puzzlesat[plot]'") from None


def plot_path(path: Any) -> Path:
    """A plot's file, checked before any work: writable, and a format matplotlib draws
    (without a suffix: the same name with ``.png``, as matplotlib writes it).

    Raises:
        ArgumentError: a suffix matplotlib has no writer for (``.xyz``), or no such folder.
    """
    target = check_arg.path("path", path)
    require_matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = target.suffix[1:].lower()
    if suffix and suffix not in formats:
        raise ArgumentError(f"{path}: cannot draw a .{suffix} file; formats: {', '.join(sorted(formats))}")
    check_arg.writable(target)
    if not suffix:  # matplotlib would add .png itself: the name written is the name checked
        target = target.with_name(target.name + ".png")
        check_arg.writable(target)
    return target


def compare(
    puzzle: str | Puzzle,
    instances: Iterable[Instance | str | os.PathLike[str]],
    strategies: StrategyArg | Sequence[StrategyArg] | None = None,
    *,
    timeout: float | None,
    jobs: int | None = None,
    results: str | os.PathLike[str] | None = None,
    seed: int = 0,
    workers: int = 1,
    memory_limit: int | None = None,
    backend: str = "local",
    address: str | None = None,
    stream: TextIO | None = None,
    on_progress: progress.Callback | None = None,
    **options: Any,
) -> Comparison:
    """Run every strategy on every instance, each run in its own process under the same limit.

    Args:
        puzzle: the puzzle's name, or the Puzzle itself.
        instances: :class:`Instance` objects or paths.
        strategies: names or Strategy objects, or one comma-separated string; default every
            strategy (plugins' included).  Only those that serve the options' mode run;
            ``stream`` names those left out.
        timeout: seconds per run.
        jobs: runs at once (default 1; with Ray, as many as the cluster's CPUs allow).
        results: a JSON-lines file: runs found there are reused, new ones appended.
        seed, workers: of every run.
        memory_limit: MiB per run.
        backend, address: as for :func:`race`.
        stream: where a line per finished run goes unless ``on_progress`` is given; None for silence.
        on_progress: called with the runs done and those lines (:class:`~puzzlesat.core.progress.Progress`).
        options: as for :func:`solve`; each must be declared by one of the strategies.
    """
    from puzzlesat.portfolio import compare as comparing

    target = get_puzzle(puzzle)
    if isinstance(instances, str | os.PathLike | Instance) or not isinstance(instances, Iterable):
        raise check_arg.ArgumentTypeError(
            f"instances: expected a list of instances or paths, got {check_arg.kind(instances)}"
        )
    items = list(instances)
    for item in items:
        if not isinstance(item, Instance):
            check_arg.path("instances", item)
    loaded = [item if isinstance(item, Instance) else load(target, Path(item)) for item in items]
    for item in loaded:
        if item.puzzle.name != target.name:
            raise ArgumentError(f"{item.source}: a {item.puzzle.name} instance, not {target.name}")
    names = strategy_names(target, strategies)
    limits = Limits(
        timeout=check_arg.timeout(timeout),
        seed=check_arg.declared(check_arg.SEED, seed),
        workers=check_arg.declared(check_arg.RUN_WORKERS, workers),
        options=options,
    )
    pool = backend_of(backend, address, jobs, memory_limit)
    check_arg.cores("workers", limits.workers, pool.name)
    results_path = results_file(results, [item.source for item in loaded])
    stream = check_arg.stream("stream", stream)
    with progress.reporting(on_progress):
        records = comparing.compare(
            target,
            [(item.source, item.data) for item in loaded],
            names,
            limits,
            pool,
            results=results_path,
            stream=stream,
        )
    return Comparison(target, records)


CATALOG_PUZZLES = ("pegsol",)
"""The puzzles :func:`catalog` knows the problems of."""
CATALOG_BOARDS = ("english", "french", "german", "diamond", "rect")
CATALOG_BOARD = core.Option("board", str, "english", "the board", choices=CATALOG_BOARDS)
CATALOG_ROWS = core.Option("rows", int, None, "rows of a rect board", low=1)
CATALOG_COLS = core.Option("cols", int, None, "columns of a rect board", low=1)


@dataclass(frozen=True)
class Catalog:
    """The entries of :func:`catalog`, one per symmetry class of problems, with its table."""

    puzzle: str
    board: str
    entries: list[Entry]

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def summary(self) -> dict[str, int]:
        """The counts: problems, classes, and per verdict and reason in classes and problems."""
        from puzzlesat.portfolio import catalog as cataloguing

        return cataloguing.summary(self.entries)

    def table(self, format: str = "markdown") -> str:
        """The table ``puzzlesat catalog`` prints: ``markdown``, ``csv`` or ``json``."""
        from puzzlesat.portfolio import catalog as cataloguing

        check_arg.declared(check_arg.TABLE_FORMAT, format)
        return cataloguing.render(self.entries, format)


def catalog(
    puzzle: str,
    board: str = "english",
    *,
    rows: int | None = None,
    cols: int | None = None,
    timeout: float | None = 60.0,
    jobs: int | None = None,
    results: str | os.PathLike[str] | None = None,
    strategies: str | Sequence[str] | None = None,
    seed: int = 0,
    memory_limit: int | None = None,
    stream: TextIO | None = None,
    on_progress: progress.Callback | None = None,
) -> Catalog:
    """Every single vacancy -> single survivor problem of a peg solitaire board, one per
    symmetry class, each with its verdict (``solvable``, ``impossible`` or ``unknown``) and
    its evidence (a verified solution, a proof, or why it is unknown).

    Args:
        puzzle: ``pegsol``.
        board: ``english``, ``french``, ``german``, ``diamond`` or ``rect``.
        rows, cols: a rect board's size.
        timeout: seconds per problem and strategy; None for no limit.
        jobs: problems at once, each in its own process (default 1).
        results: a JSON-lines file (compare's): problems found there are reused, new ones appended.
        strategies: the chain, names or one comma-separated string; a problem goes to the next
            only while undecided (default ``native-dfs`` then ``cnf-plan:cadical195``).
        seed: of every run.
        memory_limit: MiB per run.
        stream: where the progress lines go unless ``on_progress`` is given; None for silence.
        on_progress: called with the progress (:class:`~puzzlesat.core.progress.Progress`).

    Raises:
        PuzzlesatError: a puzzle without a catalog, an unknown board or a bad size.
    """
    from puzzlesat.portfolio import catalog as cataloguing

    target = get_puzzle(puzzle)
    if target.name not in CATALOG_PUZZLES:
        raise ArgumentError(f"no catalog for {target.name}; catalogs exist for: {', '.join(CATALOG_PUZZLES)}")
    check_arg.declared(CATALOG_BOARD, board)
    rows, cols = check_arg.declared(CATALOG_ROWS, rows), check_arg.declared(CATALOG_COLS, cols)
    names = strategy_names(target, strategies) or cataloguing.CHAIN
    limits = Limits(timeout=check_arg.timeout(timeout), seed=check_arg.declared(check_arg.SEED, seed))
    pool = backend_of("local", None, jobs, memory_limit)
    results_path, stream = results_file(results, []), check_arg.stream("stream", stream)
    with progress.reporting(on_progress):
        entries = cataloguing.catalog(
            target, board, rows, cols, limits, pool, strategies=names, results=results_path, stream=stream
        )
    return Catalog(target.name, board, entries)


def format(instance: Instance, answer: Result | Any) -> str:
    """The answer as the original program prints it (exactly the CLI's stdout).

    Args:
        instance: the instance.
        answer: a :class:`Result` (nothing is printed for one without an answer; a
            count, ``solve(..., count=True)``, prints as one number), a solution object, or
            None for "no solution".

    Raises:
        ArgumentTypeError: an instance or an answer of the wrong type.
    """
    puzzle = instance_puzzle(instance)
    if isinstance(answer, Result):
        if answer.status not in (Status.SOLVED, Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE):
            return ""
        if answer.count is not None:
            return f"{answer.count}\n"
        answer = answer.solution
        if answer is not None:
            solution_of(puzzle, answer, "answer.solution", "a solution of {}")
    elif answer is not None:
        solution_of(puzzle, answer, "answer", "a Result, a solution of {} or None")
    return puzzle.format(instance.data, answer)


def check(instance: Instance, answer: Any, source: str = "<solution>", **options: Any) -> list[str]:
    """The verifier's findings on an answer; an empty list means it is accepted.

    Args:
        instance: the instance.
        answer: a solution object, text in the puzzle's output format, or a proof that there
            is none as ``solve --certify`` writes it for the puzzle (pegsol's ``NAME.json``).
        source: names the text in messages.
        options: the puzzle's check options (eternity: ``score=True`` accepts mismatched
            edges; :func:`draw` gives the picture of the board).

    Raises:
        ParseError: an answer text that does not follow the format, naming ``source`` and line.
        ArgumentTypeError: an instance or an answer of the wrong type.
    """
    puzzle = instance_puzzle(instance)
    check_arg.text("source", source)
    resolved = resolve_options(puzzle.check_options, options, f"{puzzle.name} check")
    if isinstance(answer, Result):
        answer = answer.solution
        if answer is not None:
            solution_of(puzzle, answer, "answer.solution", "a solution of {}")
    elif not isinstance(answer, str):
        solution_of(puzzle, answer, "answer", "a solution of {}, its text or a Result")
    if isinstance(answer, str) and puzzle.check_argument is not None and answer.lstrip().startswith("{"):
        from puzzlesat.core import certify

        return core.load_target(puzzle.check_argument)(instance.data, certify.read_argument(answer, source))  # type: ignore[no-any-return]
    solution = puzzle.parse_solution(instance.data, answer, source) if isinstance(answer, str) else answer
    if solution is None:
        return [
            "the answer says there is no solution: check verifies solutions, not that none exists "
            "(solve --certify writes and checks a proof of that)"
        ]
    if puzzle.check is not None:
        return puzzle.check(instance.data, solution, resolved)
    return puzzle.verify(instance.data, solution)


def notes(instance: Instance, answer: Result | Any, **options: Any) -> list[str]:
    """What the puzzle has to say about a verified answer, as lines for a person to read
    (eternity's ``c score N/MAX``, masyu's puzz.link URL, its loop drawn in text or a second
    loop); the command line prints them on stderr after ``solve`` and ``check``.

    Args:
        instance: the instance.
        answer: a :class:`Result` of :func:`solve` or :func:`race`, or a solution that
            :func:`check` accepted.
        options: the puzzle's solve or check options the answer was asked for with
            (``url=True``, ``score=True``).

    Raises:
        OptionError: an option that is neither a solve nor a check option of the puzzle.
        ArgumentTypeError: an instance or an answer of the wrong type.
    """
    puzzle = instance_puzzle(instance)
    resolved = resolve_options(puzzle.solve_options + puzzle.check_options, options, f"{puzzle.name} notes")
    if not isinstance(answer, Result):
        solution_of(puzzle, answer, "answer", "a Result or a solution of {}")
        answer = Result(Status.SOLVED, answer)
    if puzzle.notes is None or answer.solution is None:
        return []
    return puzzle.notes(instance.data, answer, resolved)


def draw(instance: Instance, answer: Result | Any = None, source: str = "<solution>") -> str:
    """An SVG picture of the instance and, when given, an answer drawn on it.

    Every puzzle draws: eternity's board, masyu's loop, the peg board after each jump,
    blacken's board with each move's number, the cube's net and the strip of its moves.
    Instances and results show the same picture in a notebook (``_repr_svg_``).

    Args:
        instance: the instance.
        answer: a :class:`Result` (one without a solution draws the instance alone), a
            solution object, text in the puzzle's output format, or None.
        source: names the text in messages.

    Raises:
        ParseError: answer text that is not in the puzzle's output format.
        ArgumentTypeError: an instance or an answer of the wrong type.
    """
    puzzle = instance_puzzle(instance)
    check_arg.text("source", source)
    if isinstance(answer, Result):
        answer = answer.solution
        if answer is not None:
            solution_of(puzzle, answer, "answer.solution", "a solution of {}")
    elif isinstance(answer, str):
        answer = puzzle.parse_solution(instance.data, answer, source)
    elif answer is not None:
        solution_of(puzzle, answer, "answer", "a Result, a solution of {}, its text or None")
    return puzzle.draw_svg(instance.data, answer)


EXPORT_FORMATS = ("dimacs", "wcnf", "cpsat")
EXPORT_FORMAT = core.Option(
    "format",
    str,
    "dimacs",
    "DIMACS CNF and its sidecar, weighted CNF for MaxSAT solvers, or the CP-SAT model",
    choices=EXPORT_FORMATS,
)


class Export(NamedTuple):
    """What :func:`export` wrote.

    Attributes:
        path: the DIMACS CNF or the CP-SAT model.
        sidecar: the JSON map that :func:`decode` reads (DIMACS only).
        variables, clauses: the CNF's size (DIMACS only).
    """

    path: Path
    sidecar: Path | None = None
    variables: int | None = None
    clauses: int | None = None


def export(
    instance: Instance,
    strategy: str,
    path: str | os.PathLike[str],
    format: str = "dimacs",
    *,
    timeout: float | None = None,
    **options: Any,
) -> Export:
    """Write the strategy's formula: DIMACS CNF with a JSON sidecar, or the CP-SAT model.

    Args:
        instance: the instance.
        strategy: a strategy with an encoder (``dimacs``) or a CP-SAT model (``cpsat``).
        path: the file to write (the sidecar is ``path + ".json"``).
        format: ``dimacs``, ``wcnf`` (weighted CNF for MaxSAT solvers: eternity's ``maxsat-rc2``)
            or ``cpsat`` (the model's protobuf, text if the name ends in .txt).
        timeout: seconds for building and writing the formula.
        options: the strategy's declared options (``horizon=6``, ``amo=False``).

    Raises:
        DeadlineExceeded: the formula took longer than ``timeout``.
        ArgumentError: a path that cannot be written (no such folder), an unknown format.
        ArgumentTypeError: an argument of the wrong type.
    """
    puzzle = instance_puzzle(instance)
    name = strategy_name(puzzle, strategy)
    strat, _ = puzzle.strategy(name)
    resolved = for_strategies(puzzle, [name], options)
    target = check_arg.path("path", path)
    check_arg.declared(EXPORT_FORMAT, format)
    check_arg.writable(target)
    if format != "cpsat":
        check_arg.writable(str(target) + ".json")
    with hard_deadline(check_arg.timeout(timeout), f"exporting {strat.name}"):
        if format in ("dimacs", "wcnf"):
            if strat.encoder is None:
                raise ArgumentError(f"strategy {strat.name!r} has no single CNF to export")
            from puzzlesat.encoders import dimacs

            encoding = core.load_target(strat.encoder)(instance.data, resolved)
            weighted = hasattr(encoding.cnf, "soft")
            if weighted != (format == "wcnf"):
                other = "wcnf" if weighted else "dimacs"
                raise ArgumentError(f"strategy {strat.name!r} exports --format {other}, not {format}")
            header = {"puzzle": puzzle.name, "strategy": strat.name, "options": {key: resolved[key] for key in options}}
            sidecar = dimacs.write(encoding, target, header, puzzle.write_instance(instance.data))
            return Export(target, sidecar, int(encoding.cnf.nv), dimacs.clause_count(encoding.cnf))
        if format == "cpsat":
            if strat.model is None:
                raise ArgumentError(f"strategy {strat.name!r} has no CP-SAT model to export")
            model = core.load_target(strat.model)(instance.data, resolved)[0]
            if not model.export_to_file(str(target)):
                raise PuzzlesatError(f"{target}: CP-SAT could not write the model")
            return Export(target)
    raise AssertionError(f"export format {format!r} has no writer")  # EXPORT_FORMATS lists the writers


class Decoded(NamedTuple):
    """An external solver's answer read back through a sidecar.

    Attributes:
        instance: the instance the sidecar holds.
        satisfiable: the solver's ``s`` line: True, False (UNSATISFIABLE), None (UNKNOWN).
        solution: the verified solution when satisfiable, else None.
        certificate: for UNSATISFIABLE with a proof given, the checker's verdict on it
            (:class:`puzzlesat.core.certify.Certificate`); else None.
    """

    instance: Instance
    satisfiable: bool | None
    solution: Any = None
    certificate: Any = None


def decode(
    sidecar: str | os.PathLike[str],
    answer: Source,
    puzzle: str | Puzzle | None = None,
    proof: str | os.PathLike[str] | None = None,
) -> Decoded:
    """Turn an external SAT solver's output (``s`` and ``v`` lines) into a verified solution.

    Args:
        sidecar: the ``.json`` file :func:`export` wrote beside the CNF.
        answer: the solver's output: a path, an open file, or the text.
        puzzle: when given, the sidecar must be for this puzzle.
        proof: the solver's DRAT proof of an UNSATISFIABLE answer: checked against the CNF
            re-encoded from the sidecar (not the file beside it, which may have changed), by
            drat-trim or dratify (:mod:`puzzlesat.core.certify`).

    Raises:
        ParseError: a sidecar that is not one :func:`export` wrote (each entry is checked:
            puzzle, strategy, options, instance, variable map), naming the file.
        PuzzlesatError: a sidecar for another puzzle or an encoding that has changed since, an
            unreadable answer, or a model the verifier rejects.
        ArgumentTypeError: an argument of the wrong type.
    """
    from puzzlesat.encoders import dimacs

    map_path = check_arg.path("sidecar", sidecar)
    check_arg.source("answer", answer)
    if proof is not None:
        check_arg.readable("proof", proof)
    expected = None if puzzle is None else get_puzzle(puzzle)
    data = dimacs.read_sidecar(map_path)
    target = sidecar_puzzle(map_path, data["puzzle"])
    if expected is not None and target.name != expected.name:
        raise ArgumentError(f"{map_path}: sidecar is for {data['puzzle']!r}, not {expected.name!r}")
    strat, options = sidecar_strategy(map_path, target, data)
    instance = Instance(target, target.parse(data["instance"], str(map_path)), str(map_path))
    text, source = read_source(answer)
    satisfiable, true_vars = dimacs.read_solver_output(text, source)
    if not satisfiable and (satisfiable is None or proof is None):
        return Decoded(instance, satisfiable)
    assert strat.encoder is not None  # sidecar_strategy refused a strategy without one
    encoding = core.load_target(strat.encoder)(instance.data, options)
    if int(encoding.cnf.nv) != data["variables"]:
        raise PuzzlesatError(
            f"{map_path}: the encoding has changed since export "
            f"({encoding.cnf.nv} variables now, {data['variables']} then)"
        )
    if not satisfiable:
        from puzzlesat.core import certify

        return Decoded(instance, False, certificate=certify.check_external(encoding.cnf.clauses, Path(proof or "")))
    names = encoding.named_vars()
    if names != dimacs.sidecar_keys(data):
        raise PuzzlesatError(f"{map_path}: the sidecar's variable map is not the encoding's")
    try:
        solution = encoding.decode({names[v] for v in true_vars if v in names})
    except (ValueError, KeyError, IndexError) as exc:  # a model that describes no answer at all
        raise PuzzlesatError(f"{source}: the model does not describe a {target.name} answer ({exc})") from None
    problems = target.verify(instance.data, solution)
    if problems:
        raise PuzzlesatError(f"{source}: decoded answer fails the verifier: {problems[0]}")
    return Decoded(instance, True, solution)


def sidecar_puzzle(path: Path, name: str) -> Puzzle:
    """The puzzle a sidecar names; an unknown one is a ParseError naming the file."""
    try:
        return core.get_puzzle(name)
    except PuzzlesatError as exc:
        raise core.ParseError(f"{path}: sidecar entry 'puzzle': {exc}") from None


def sidecar_strategy(path: Path, puzzle: Puzzle, data: dict[str, Any]) -> tuple[Strategy, dict[str, Any]]:
    """The strategy a sidecar names and its options, each checked as export wrote them.

    Raises:
        ParseError: an unknown strategy, one without a CNF encoding, or options it does not
            declare, naming the file.
    """
    try:
        strat, _ = puzzle.strategy(data["strategy"])
    except PuzzlesatError as exc:
        raise core.ParseError(f"{path}: sidecar entry 'strategy': {exc}") from None
    if strat.encoder is None:
        raise core.ParseError(f"{path}: sidecar strategy {strat.name!r} has no CNF encoding to decode with")
    try:
        return strat, for_strategies(puzzle, [strat.name], data["options"])
    except PuzzlesatError as exc:
        raise core.ParseError(f"{path}: sidecar entry 'options': {exc}") from None


def generate(puzzle: str | Puzzle, seed: int = 0, **params: Any) -> Instance:
    """A new instance from the puzzle's generator (``puzzlesat generate P --help`` lists the params).

    Raises:
        OptionError: a parameter the generator does not declare, or a value out of its bounds.
        InvalidInstanceError: parameters that no instance fits, naming them.
    """
    target = get_puzzle(puzzle)
    seed = check_arg.declared(check_arg.SEED, seed)
    options = resolve_options(target.generator_options, params, f"{target.name} generator")
    with solver_interrupts():
        data = target.generate(options, seed)
    return Instance(target, data, f"generated {target.name} seed {seed}")


TABLE_PUZZLES = ("rubik",)  # the puzzles whose solvers keep tables in the cache folder
TABLE_METRIC = core.Option(
    "metric", str, "htm", "the cube's metric: half turns or quarter turns", choices=("htm", "qtm")
)


def table_sets(puzzle: str | Puzzle = "rubik") -> list[TableSet]:
    """The table sets a puzzle's solver keeps in the cache folder, built, partly built or not.

    Raises:
        PuzzlesatError: a puzzle that keeps no tables.
    """
    _keeps_tables(puzzle)
    from puzzlesat.native.rubik import cache as rubik_cache

    return rubik_cache.statuses()


def build_tables(
    puzzle: str | Puzzle = "rubik",
    name: str | None = None,
    metric: str = "htm",
    *,
    on_progress: progress.Callback | None = None,
) -> TableSet:
    """Build a table set now, ahead of the solves that need it (a stopped build is resumed).

    Args:
        puzzle: ``rubik``.
        name: the set; default the one ``tables=auto`` solves grow into (the largest that fits
            the memory cap: ``phase1`` without one).
        metric: ``htm`` or ``qtm``.
        on_progress: called with a :class:`~puzzlesat.core.progress.Progress` as the build
            goes on (the share done and the time left); the command line draws it.

    Raises:
        PuzzlesatError: a puzzle that keeps no tables, or a cache folder that cannot be written.
        OptionError: an unknown set or metric.
    """
    _keeps_tables(puzzle)
    metric = check_arg.declared(TABLE_METRIC, metric)
    if name is not None:
        check_arg.text("name", name)
    from puzzlesat.native.rubik import cache as rubik_cache
    from puzzlesat.native.rubik import ida as rubik

    with progress.reporting(on_progress):
        return rubik_cache.build(name or rubik.tables_for(rubik.memory_cap_mb()), metric)


def kernel_builds() -> list[KernelBuild]:
    """The kernels compiled ahead of time (:mod:`puzzlesat.native.aot`): built, stale or absent."""
    from puzzlesat.native import aot

    return aot.statuses()


def build_kernels(names: Sequence[str] = (), *, on_progress: progress.Callback | None = None) -> list[KernelBuild]:
    """Compile kernels ahead of time into the cache folder (every set by default; about
    :data:`~puzzlesat.native.aot.BUILD_SECONDS` seconds each): a solve then loads them without
    numba or numpy, and falls back on numba's JIT when they are absent or stale.

    Args:
        names: the sets (``eternity``); default every one.
        on_progress: told a line as each set's build starts and ends.

    Raises:
        ArgumentTypeError: ``names`` is not a sequence of str.
        ArgumentError: an unknown set.
        PuzzlesatError: no C compiler, or a cache folder that cannot be written.
    """
    from puzzlesat.native import aot

    check_arg.typed("names", names, (list, tuple), "a list or tuple of str")
    for name in names:  # every name checked before anything is built
        check_arg.text("names", name)
        if name not in aot.KERNEL_SETS:
            raise ArgumentError(f"names: no kernels called {name!r}; expected one of: {', '.join(aot.KERNEL_SETS)}")
    built = []
    with progress.reporting(on_progress):
        for name in names or aot.KERNEL_SETS:
            progress.line(f"c building the {name} kernels (about {aot.BUILD_SECONDS} s of CPU)")
            built.append(aot.build(name))
            progress.line(f"c {name} kernels built: {built[-1].path}")
    return built


def _keeps_tables(puzzle: str | Puzzle) -> None:
    target = get_puzzle(puzzle).name
    if target not in TABLE_PUZZLES:
        raise PuzzlesatError(f"{target} keeps no tables; only {', '.join(TABLE_PUZZLES)} does")


def read_source(source: Source) -> tuple[str, str]:
    """The text of a source and the name messages give it (a path, an open file or the text itself).

    Files and streams are read as UTF-8, at most :data:`~puzzlesat.core.text.MAX_FILE_BYTES` of them.
    """
    if not isinstance(source, str | os.PathLike):
        check_arg.source("source", source)
        name = getattr(source, "name", "<stream>")
        name = name if isinstance(name, str) else "<stream>"
        raw = getattr(source, "buffer", None)  # a text stream's bytes: decoded here, line named on error
        try:
            data = (raw if raw is not None else source).read(MAX_FILE_BYTES + 1)
        except (OSError, ValueError) as exc:  # a closed file, or one open for writing only
            raise ArgumentError(f"{name}: cannot read: {exc}") from None
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        if not isinstance(data, bytes):
            raise check_arg.ArgumentTypeError(f"source: its read() gave {check_arg.kind(data)}, not text or bytes")
        return decode_text(data, name), name
    if isinstance(source, str) and not _names_a_file(source):
        return source, "<text>"
    check_arg.path("source", source)
    try:
        return read_text(source, str(source)), str(source)
    except OSError as exc:
        raise ArgumentError(f"{source}: cannot read: {exc.strerror or exc}") from None


def _names_a_file(text: str) -> bool:
    """A one-line string that names an existing file, or looks like a file name (``.txt``)."""
    if "\n" in text or "://" in text or "\x00" in text:
        return False
    return Path(text).is_file() or text.endswith((".txt", ".sol", ".out", ".json", ".cnf"))


# -- the arguments' checks that need this module's types (the others: core.arguments) ------


def get_puzzle(puzzle: Any) -> Puzzle:
    """The puzzle of a ``puzzle`` argument: a Puzzle is itself, a name is looked up."""
    if isinstance(puzzle, Puzzle):
        return registry.registered(puzzle)
    check_arg.text("puzzle", puzzle)
    return core.get_puzzle(puzzle)


def instance_puzzle(instance: Any) -> Puzzle:
    """The puzzle of an ``instance`` argument: an :class:`Instance` holding that puzzle's data."""
    check_arg.typed("instance", instance, Instance, "a puzzlesat Instance (from load or generate)")
    puzzle = instance.puzzle
    expected, _ = check_arg.declared_types(puzzle.verify)
    if expected is not None and not isinstance(instance.data, expected):
        raise check_arg.ArgumentTypeError(
            f"instance: holds {check_arg.kind(instance.data)}, not a {puzzle.name} instance"
        )
    return puzzle


def solution_of(puzzle: Puzzle, answer: Any, name: str, expected: str) -> None:
    """Refuse an answer that is not the puzzle's solution object (``expected`` names what is taken)."""
    _, solution = check_arg.declared_types(puzzle.verify)
    if solution is not None and not isinstance(answer, solution):
        raise check_arg.ArgumentTypeError(
            f"{name}: expected {expected.format(puzzle.name)}, got {check_arg.kind(answer)}"
        )


def backend_of(backend: Any, address: Any, jobs: Any, memory_limit: Any) -> Any:
    """The :class:`~puzzlesat.portfolio.backends.Backend` of a race or a comparison, its arguments checked."""
    from puzzlesat.portfolio.backends import Backend

    name = check_arg.declared(check_arg.BACKEND, backend)
    check_arg.declared(check_arg.ADDRESS, address)
    cores = check_arg.declared(check_arg.JOBS, jobs)
    check_arg.cores("jobs", cores, name)
    return Backend(name, address, jobs=cores, memory_mb=check_arg.declared(check_arg.MEMORY_LIMIT, memory_limit))


def results_file(results: Any, inputs: Iterable[str]) -> Path | None:
    """A ``results`` argument: a JSON-lines file that can be written and is none of the inputs."""
    if results is None:
        return None
    target = check_arg.path("results", results)
    check_arg.writable(target)
    check_arg.distinct([("results", target)], [("the instance", name) for name in inputs if os.path.isfile(name)])
    return target

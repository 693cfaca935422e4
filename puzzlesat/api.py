"""The library's verbs, the same ones the command line offers: load, solve, race, compare,
catalog, format, check, export, decode, generate, table_sets and build_tables.

The command line is a thin client of these functions, so a script gets exactly what the CLI
prints.  Nothing here imports a solver library until a verb needs it: ``import puzzlesat`` is
as cheap as ``puzzlesat list``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from puzzlesat import core
from puzzlesat.core import Limits, Puzzle, PuzzlesatError, Result, Status, Strategy
from puzzlesat.core.deadline import hard_deadline
from puzzlesat.core.options import resolve as resolve_options
from puzzlesat.core.text import MAX_FILE_BYTES, decode_text, read_text

if TYPE_CHECKING:
    from puzzlesat.native.rubik_cache import TableSet
    from puzzlesat.portfolio.catalog import Entry
    from puzzlesat.portfolio.compare import Record

Source = str | os.PathLike[str] | TextIO


class Instance(NamedTuple):
    """A parsed instance that remembers its puzzle.

    Attributes:
        puzzle: the puzzle's name (``eternity``, ``masyu``, ...).
        data: the puzzle's own instance object (e.g. :class:`puzzlesat.domains.eternity.Instance`).
        source: where it came from, as error messages and tables name it.
    """

    puzzle: str
    data: Any
    source: str = "<text>"

    @property
    def text(self) -> str:
        """The instance in the puzzle's input format."""
        return self._puzzle.write_instance(self.data)

    @property
    def _puzzle(self) -> Puzzle:
        return core.get_puzzle(self.puzzle)


def puzzles() -> list[str]:
    """The puzzles' names.

    >>> puzzles()
    ['eternity', 'masyu', 'pegsol', 'blacken', 'rubik']
    """
    return [p.name for p in core.available_puzzles()]


def strategies(puzzle: str) -> list[Strategy]:
    """A puzzle's strategies, the default first; each names its variants and declared options."""
    return list(core.get_puzzle(puzzle).strategies)


def load(puzzle: str, source: Source, **options: Any) -> Instance:
    """Read an instance of ``puzzle``.

    Args:
        puzzle: the puzzle's name.
        source: a path (a :class:`~pathlib.Path`, or a one-line string naming an existing file
            or ending in ``.txt``), an open text file, or the text itself (an instance file's
            contents, a masyu puzz.link URL, a rubik maneuver or facelet string).
        options: the puzzle's instance options (eternity: ``hints="hints.txt"``).

    Raises:
        PuzzlesatError: an unreadable file, or a ParseError naming the source and line.
        OptionError: an option the puzzle does not declare, or a bad value.
    """
    target = core.get_puzzle(puzzle)
    resolved = resolve_options(target.instance_options, options, f"{puzzle} instance")
    text, name = read_source(source)
    data = target.parse(text, name)
    if target.amend is not None:
        data = target.amend(data, resolved)
    return Instance(target.name, data, name)


def solve(
    instance: Instance,
    strategy: str | None = None,
    *,
    timeout: float | None = None,
    seed: int = 0,
    workers: int = 1,
    **options: Any,
) -> Result:
    """Solve with one strategy in this process; the answer has passed the puzzle's verifier.

    Args:
        instance: from :func:`load` or :func:`generate`.
        strategy: ``method[:variant]``; default the puzzle's first (``puzzlesat list``).
        timeout: seconds, None for no limit.
        seed: the search order's seed.
        workers: threads or processes the strategy may use.
        options: the strategy's declared options and the puzzle's solve flags
            (``unique=True``, ``metric="qtm"``, ``amo=False``; see :func:`strategies`).

    Raises:
        OptionError: an option the strategy does not declare (naming the valid ones) or a bad value.
        BackendUnavailable: an unknown strategy or variant.
    """
    puzzle = instance._puzzle
    name = puzzle.strategies[0].name if strategy is None else strategy
    limits = Limits(timeout=timeout, seed=seed, workers=workers, options=puzzle.options([name], options))
    return core.run_strategy(puzzle, instance.data, name, limits)


def race(
    instance: Instance,
    strategies: str | Sequence[str] | None = None,
    *,
    timeout: float | None = None,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    seed: int = 0,
    memory_limit: int | None = None,
    stream: TextIO | None = None,
    **options: Any,
) -> Result:
    """Race strategies in separate processes (the portfolio); the first verified answer wins.

    For an optimisation puzzle the first proven optimum wins, or else the best verified
    answer at the deadline.  Every process started is stopped before this returns.

    Args:
        instance: the instance.
        strategies: names, or one comma-separated string; repeat a name to race seeds;
            default the puzzle's portfolio.
        timeout: seconds for the race.
        jobs: cores to share out; None for all.
        backend: ``local`` (child processes) or ``ray``.
        address: the Ray cluster's ``HOST:PORT``; None starts a local Ray instance.
        seed: the first member's seed (the others count up).
        memory_limit: MiB per child; None for an even share of the machine.
        stream: where the live status and the race's table go; None for silence.
        options: as for :func:`solve`; each must be declared by one of the members.
    """
    from puzzlesat.portfolio import race as portfolio
    from puzzlesat.portfolio.backends import Backend

    puzzle = instance._puzzle
    text = strategies if isinstance(strategies, str) or strategies is None else ",".join(strategies)
    names = portfolio.portfolio_names(puzzle, text)
    limits = Limits(timeout=timeout, seed=seed, options=puzzle.options(names, options))
    out = io.StringIO() if stream is None else stream
    pool = Backend(backend, address, jobs=jobs, memory_mb=memory_limit)
    return portfolio.solve_portfolio(puzzle, instance.data, text, limits, pool, stream=out)


@dataclass(frozen=True)
class Comparison:
    """The runs of :func:`compare`: one record per (instance, strategy), with the table and plot."""

    puzzle: str
    records: list[Record]

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def table(self, format: str = "markdown") -> str:
        """The table ``puzzlesat compare`` prints: ``markdown``, ``csv`` or ``json``."""
        from puzzlesat.portfolio import compare as comparing

        if format not in comparing.FORMATS:
            raise PuzzlesatError(f"unknown format {format!r}; expected one of: {', '.join(comparing.FORMATS)}")
        return comparing.render(self.records, format, core.get_puzzle(self.puzzle).optimisation)

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Draw the cactus plot (solved runs against time per strategy) into a PNG file."""
        from puzzlesat.portfolio import compare as comparing

        require_matplotlib()
        comparing.cactus_plot(self.records, Path(path), core.get_puzzle(self.puzzle).optimisation)


def require_matplotlib() -> None:
    """Raise a PuzzlesatError naming the extra to install when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PuzzlesatError("plotting needs matplotlib: pip install 'puzzlesat[plot]'") from None


def compare(
    puzzle: str,
    instances: Iterable[Instance | str | os.PathLike[str]],
    strategies: str | Sequence[str] | None = None,
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
    **options: Any,
) -> Comparison:
    """Run every strategy on every instance, each run in its own process under the same limit.

    Args:
        puzzle: the puzzle's name.
        instances: :class:`Instance` objects or paths.
        strategies: names or one comma-separated string; default every strategy.
        timeout: seconds per run.
        jobs: runs at once (default 1; with Ray, as many as the cluster's CPUs allow).
        results: a JSON-lines file: runs found there are reused, new ones appended.
        seed, workers: of every run.
        memory_limit: MiB per run.
        backend, address: as for :func:`race`.
        stream: where the progress bar goes; None for silence.
        options: as for :func:`solve`; each must be declared by one of the strategies.
    """
    from puzzlesat.portfolio import compare as comparing
    from puzzlesat.portfolio.backends import Backend

    target = core.get_puzzle(puzzle)
    loaded = [item if isinstance(item, Instance) else load(puzzle, Path(item)) for item in instances]
    for item in loaded:
        if item.puzzle != target.name:
            raise PuzzlesatError(f"{item.source}: a {item.puzzle} instance, not {target.name}")
    names = [n.strip() for n in strategies.split(",") if n.strip()] if isinstance(strategies, str) else strategies
    names = list(names) if names else comparing.default_strategies(target)
    records = comparing.compare(
        target,
        [(item.source, item.data) for item in loaded],
        names,
        Limits(timeout=timeout, seed=seed, workers=workers, options=target.options(names, options)),
        Backend(backend, address, jobs=jobs, memory_mb=memory_limit),
        results=Path(results) if results is not None else None,
        stream=stream,
    )
    return Comparison(target.name, records)


CATALOG_PUZZLES = ("pegsol",)
"""The puzzles :func:`catalog` knows the problems of."""


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
        stream: where the progress lines go; None for silence.

    Raises:
        PuzzlesatError: a puzzle without a catalog, an unknown board or a bad size.
    """
    from puzzlesat.portfolio import catalog as cataloguing
    from puzzlesat.portfolio.backends import Backend

    target = core.get_puzzle(puzzle)
    if target.name not in CATALOG_PUZZLES:
        raise PuzzlesatError(f"no catalog for {target.name}; catalogs exist for: {', '.join(CATALOG_PUZZLES)}")
    names = [n.strip() for n in strategies.split(",") if n.strip()] if isinstance(strategies, str) else strategies
    names = list(names) if names else list(cataloguing.CHAIN)
    for name in names:
        target.strategy(name)
    entries = cataloguing.catalog(
        board,
        rows,
        cols,
        Limits(timeout=timeout, seed=seed),
        Backend(jobs=jobs, memory_mb=memory_limit),
        strategies=names,
        results=Path(results) if results is not None else None,
        stream=stream,
    )
    return Catalog(target.name, board, entries)


def format(instance: Instance, answer: Result | Any) -> str:
    """The answer as the original program prints it (exactly the CLI's stdout).

    Args:
        instance: the instance.
        answer: a :class:`Result` (nothing is printed for one without an answer; a
            count, ``solve(..., count=True)``, prints as one number), a solution object, or
            None for "no solution".
    """
    puzzle = instance._puzzle
    if isinstance(answer, Result):
        if answer.status not in (Status.SOLVED, Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE):
            return ""
        if answer.count is not None:
            return f"{answer.count}\n"
        answer = answer.solution
    return puzzle.format(instance.data, answer)


def check(instance: Instance, answer: Any, source: str = "<solution>", **options: Any) -> list[str]:
    """The verifier's findings on an answer; an empty list means it is accepted.

    Args:
        instance: the instance.
        answer: a solution object, or text in the puzzle's output format.
        source: names the text in messages.
        options: the puzzle's check options (eternity: ``score=True`` accepts mismatched
            edges and prints the score on stderr, ``svg="board.svg"`` draws the board).
    """
    puzzle = instance._puzzle
    resolved = resolve_options(puzzle.check_options, options, f"{puzzle.name} check")
    solution = puzzle.parse_solution(instance.data, answer, source) if isinstance(answer, str) else answer
    if solution is None:
        return ["claims no solution; only a solver's proof can check that"]
    if puzzle.check is not None:
        return puzzle.check(instance.data, solution, resolved)
    return puzzle.verify(instance.data, solution)


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
    """
    puzzle = instance._puzzle
    strat, _ = puzzle.strategy(strategy)
    resolved = puzzle.options([strategy], options)
    target = Path(path)
    with hard_deadline(timeout, f"exporting {strat.name}"):
        if format in ("dimacs", "wcnf"):
            if strat.encoder is None:
                raise PuzzlesatError(f"strategy {strat.name!r} has no single CNF to export")
            from puzzlesat.encoders import dimacs

            encoding = core.load_target(strat.encoder)(instance.data, resolved)
            weighted = hasattr(encoding.cnf, "soft")
            if weighted != (format == "wcnf"):
                other = "wcnf" if weighted else "dimacs"
                raise PuzzlesatError(f"strategy {strat.name!r} exports --format {other}, not {format}")
            header = {"puzzle": puzzle.name, "strategy": strat.name, "options": {key: resolved[key] for key in options}}
            sidecar = dimacs.write(encoding, target, header, puzzle.write_instance(instance.data))
            return Export(target, sidecar, int(encoding.cnf.nv), dimacs.clause_count(encoding.cnf))
        if format == "cpsat":
            if strat.model is None:
                raise PuzzlesatError(f"strategy {strat.name!r} has no CP-SAT model to export")
            model = core.load_target(strat.model)(instance.data, resolved)[0]
            if not model.export_to_file(str(target)):
                raise PuzzlesatError(f"{target}: CP-SAT could not write the model")
            return Export(target)
    raise PuzzlesatError(f"unknown export format {format!r}; expected dimacs, wcnf or cpsat")


class Decoded(NamedTuple):
    """An external solver's answer read back through a sidecar.

    Attributes:
        instance: the instance the sidecar holds.
        satisfiable: the solver's ``s`` line: True, False (UNSATISFIABLE), None (UNKNOWN).
        solution: the verified solution when satisfiable, else None.
    """

    instance: Instance
    satisfiable: bool | None
    solution: Any = None


def decode(sidecar: str | os.PathLike[str], answer: Source, puzzle: str | None = None) -> Decoded:
    """Turn an external SAT solver's output (``s`` and ``v`` lines) into a verified solution.

    Args:
        sidecar: the ``.json`` file :func:`export` wrote beside the CNF.
        answer: the solver's output: a path, an open file, or the text.
        puzzle: when given, the sidecar must be for this puzzle.

    Raises:
        PuzzlesatError: a sidecar for another puzzle or an encoding that has changed since, an
            unreadable answer, or a model the verifier rejects.
    """
    from puzzlesat.encoders import dimacs

    map_path = Path(sidecar)
    data = dimacs.read_sidecar(map_path)
    target = core.get_puzzle(data["puzzle"] if puzzle is None else puzzle)
    if data["puzzle"] != target.name:
        raise PuzzlesatError(f"{map_path}: sidecar is for {data['puzzle']!r}, not {target.name!r}")
    instance = Instance(target.name, target.parse(data["instance"], str(map_path)), str(map_path))
    text, source = read_source(answer)
    satisfiable, true_vars = dimacs.read_solver_output(text, source)
    if not satisfiable:
        return Decoded(instance, satisfiable)
    strat, _ = target.strategy(data["strategy"])
    assert strat.encoder is not None
    options = target.options([strat.name], data.get("options", {}))
    encoding = core.load_target(strat.encoder)(instance.data, options)
    if int(encoding.cnf.nv) != int(data["variables"]):
        raise PuzzlesatError(
            f"{map_path}: the encoding has changed since export "
            f"({encoding.cnf.nv} variables now, {data['variables']} then)"
        )
    names = dimacs.sidecar_keys(data)
    try:
        solution = encoding.decode({names[v] for v in true_vars if v in names})
    except (ValueError, KeyError, IndexError) as exc:  # a model that describes no answer at all
        raise PuzzlesatError(f"{source}: the model does not describe a {target.name} answer ({exc})") from None
    problems = target.verify(instance.data, solution)
    if problems:
        raise PuzzlesatError(f"{source}: decoded answer fails the verifier: {problems[0]}")
    return Decoded(instance, True, solution)


def generate(puzzle: str, seed: int = 0, **params: Any) -> Instance:
    """A new instance from the puzzle's generator (``puzzlesat generate P --help`` lists the params)."""
    target = core.get_puzzle(puzzle)
    options = resolve_options(target.generator_options, params, f"{puzzle} generator")
    return Instance(target.name, target.generate(options, seed), f"generated {puzzle} seed {seed}")


TABLE_PUZZLES = ("rubik",)  # the puzzles whose solvers keep tables in the cache folder


def table_sets(puzzle: str = "rubik") -> list[TableSet]:
    """The table sets a puzzle's solver keeps in the cache folder, built, partly built or not.

    Raises:
        PuzzlesatError: a puzzle that keeps no tables.
    """
    _keeps_tables(puzzle)
    from puzzlesat.native import rubik_cache

    return rubik_cache.statuses()


def build_tables(
    puzzle: str = "rubik", name: str | None = None, metric: str = "htm", progress: bool = True
) -> TableSet:
    """Build a table set now, ahead of the solves that need it (a stopped build is resumed).

    Args:
        puzzle: ``rubik``.
        name: the set; default the one ``tables=auto`` solves grow into (the largest that fits
            the memory cap: ``phase1`` without one).
        metric: ``htm`` or ``qtm``.
        progress: a progress bar with the time left on stderr.

    Raises:
        PuzzlesatError: a puzzle that keeps no tables, or a cache folder that cannot be written.
        OptionError: an unknown set or metric.
    """
    _keeps_tables(puzzle)
    from puzzlesat.native import rubik, rubik_cache

    return rubik_cache.build(name or rubik.tables_for(rubik.memory_cap_mb()), metric, quiet=not progress)


def _keeps_tables(puzzle: str) -> None:
    target = core.get_puzzle(puzzle).name
    if target not in TABLE_PUZZLES:
        raise PuzzlesatError(f"{target} keeps no tables; only {', '.join(TABLE_PUZZLES)} does")


def read_source(source: Source) -> tuple[str, str]:
    """The text of a source and the name messages give it (a path, an open file or the text itself).

    Files and streams are read as UTF-8, at most :data:`~puzzlesat.core.text.MAX_FILE_BYTES` of them.
    """
    if not isinstance(source, str | os.PathLike):
        name = getattr(source, "name", "<stream>")
        name = name if isinstance(name, str) else "<stream>"
        raw = getattr(source, "buffer", None)  # a text stream's bytes: decoded here, line named on error
        if raw is not None:
            return decode_text(raw.read(MAX_FILE_BYTES + 1), name), name
        return decode_text(source.read(MAX_FILE_BYTES + 1).encode("utf-8", "surrogateescape"), name), name
    if isinstance(source, str) and not _names_a_file(source):
        return source, "<text>"
    try:
        return read_text(source, str(source)), str(source)
    except OSError as exc:
        raise PuzzlesatError(f"{source}: cannot read: {exc.strerror or exc}") from None


def _names_a_file(text: str) -> bool:
    """A one-line string that names an existing file, or looks like a file name (``.txt``)."""
    if "\n" in text or "://" in text:
        return False
    return Path(text).is_file() or text.endswith((".txt", ".sol", ".out", ".json", ".cnf"))

"""``puzzlesat compare``: every strategy on every instance, each run in its own process.

Every run gets the same time limit (counted from the moment the child has imported its
strategy, so import costs do not eat into it) and the same memory cap; ``jobs`` runs go at
once.  Each finished run is appended to an optional JSON-lines results file straight away,
and a later call with the same file skips the runs already there (same puzzle, instance
name, strategy, timeout, seed, workers and options), so a long comparison survives an
interruption.

Tables: markdown (instances by strategies, the fastest per row in bold, then the number
solved and the PAR-2 score), CSV or JSON (one row per run).  :func:`cactus_plot` draws the
number of instances solved against time, one line per strategy (needs matplotlib, the
``plot`` extra).
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from puzzlesat.core import (
    TIME_LIMIT,
    Limits,
    ParseError,
    Puzzle,
    PuzzlesatError,
    Result,
    Status,
    certify,
    get_puzzle,
    progress,
)
from puzzlesat.core.arguments import TABLE_FORMATS
from puzzlesat.core.run_options import for_run, for_strategies
from puzzlesat.core.text import load_json, read_text
from puzzlesat.portfolio.backends import Backend, open_pool
from puzzlesat.portfolio.child import ChildSpec, puzzle_spec, strategy_spec
from puzzlesat.portfolio.race import serving
from puzzlesat.portfolio.report import key_stats


@dataclass
class Record:
    """One strategy's run on one instance.

    Attributes:
        puzzle: the puzzle's name.
        instance: the instance file as given on the command line.
        strategy: ``method[:variant]``.
        status: a :class:`Status` value.
        time: seconds the strategy itself reported (None if it never answered).
        elapsed: seconds from spawn to outcome, process start-up and imports included.
        objective: the objective, for optimisation puzzles.
        stats: the strategy's statistics.
        message: a note (errors, timeouts).
        timeout: the time limit of the comparison.
        seed: the seed of the comparison.
        answer: the answer in the puzzle's output format, when the comparison keeps answers.
        workers: the workers each run had.
        options: the puzzle's and the strategies' options the comparison gave every run.
    """

    puzzle: str
    instance: str
    strategy: str
    status: str
    time: float | None
    elapsed: float | None
    objective: int | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    timeout: float | None = None
    seed: int = 0
    answer: str | None = None
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)

    def solved(self, optimisation: bool) -> bool:
        """True for a settled answer: a model (a proven optimum for optimisation) or a proof of none."""
        if self.status in (Status.OPTIMAL.value, Status.INFEASIBLE.value):
            return True
        return self.status == Status.SOLVED.value and not optimisation

    def claim(self, optimisation: bool) -> str:
        """What this run's "no solution", "optimal" or "unique" rests on ("" when it claims none)."""
        if not certify.claims(self.status, self.stats, optimisation, self.objective):
            return ""
        try:
            engine = certify.engine_of(get_puzzle(self.puzzle), self.strategy)
        except PuzzlesatError:
            engine = ("other", None)
        return certify.basis(*engine, self.stats, self.message)

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """A record from one line of a results file, every field checked.

        Raises:
            ValueError: not an object with the record's fields, of their types and ranges,
                naming the first field that is not.
        """
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        for key in ("puzzle", "instance", "strategy", "status"):
            if not isinstance(data.get(key), str):
                raise ValueError(f"no text field {key!r}")
        if data["status"] not in STATUSES:
            raise ValueError(f"field 'status' is {data['status']!r}, not one of {', '.join(STATUSES)}")
        for key in ("answer", "message"):
            if not isinstance(data.get(key, ""), str | None):
                raise ValueError(f"field {key!r} is not text")
        for key in ("time", "elapsed", "timeout"):
            value = data.get(key)
            if value is not None and not (_is_number(value) and math.isfinite(value) and value >= 0):
                raise ValueError(f"field {key!r} is not a number of seconds")
        for key, low in (("objective", None), ("seed", 0), ("workers", 1)):
            value = data.get(key, low)
            if value is not None and not (
                _is_number(value) and isinstance(value, int) and (low is None or value >= low)
            ):
                raise ValueError(f"field {key!r} is not a whole number" + ("" if low is None else f" >= {low}"))
        for key in ("stats", "options"):
            if not isinstance(data.get(key, {}), dict):
                raise ValueError(f"field {key!r} is not an object")
        names = cls.__dataclass_fields__.keys()
        return cls(**{k: v for k, v in data.items() if k in names})


STATUSES = tuple(status.value for status in Status)
# a record is under a kilobyte: a quarter of a million runs
RESULTS_BYTES = 1 << 28


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def default_strategies(puzzle: Puzzle) -> list[str]:
    """Every strategy that runs without naming a variant."""
    return [s.name for s in puzzle.all_strategies() if not s.variants or s.default_variant]


def load_results(path: Path) -> list[Record]:
    """The records of a JSON-lines results file; a torn record (an interrupted write) is skipped.

    Raises:
        ParseError: no regular file, an unreadable one or one past :data:`RESULTS_BYTES`, a
            line that is not UTF-8, not JSON within the bounds of
            :func:`~puzzlesat.core.text.load_json`, or not a record, naming the file and line.
    """
    if not path.exists():
        return []
    try:
        lines = read_text(path, str(path), RESULTS_BYTES).splitlines()
    except OSError as exc:
        raise ParseError(f"{path}: cannot read the results file: {exc.strerror or exc}") from None
    records = []
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = load_json(raw, f"{path}:{lineno}")
        except ParseError:
            if raw.lstrip().startswith('{"') and not raw.rstrip().endswith("}"):
                continue  # torn by an interrupted write; later runs append after it
            raise
        try:
            records.append(Record.from_json(data))
        except ValueError as exc:
            raise ParseError(f"{path}:{lineno}: not a results record ({exc})") from None
    return records


def compare(
    puzzle: Puzzle,
    instances: Sequence[tuple[str, Any]],
    strategies: Sequence[str] | None = None,
    limits: Limits | None = None,
    backend: Backend | None = None,
    *,
    results: Path | None = None,
    stream: TextIO | None = None,
    answers: bool = False,
    label: str = "compare",
) -> list[Record]:
    """Run every strategy on every instance, each run isolated in its own process.

    Args:
        puzzle: the puzzle.
        instances: ``(name, parsed instance)`` pairs; the name identifies it in tables and the
            results file.
        strategies: names ``method[:variant]``; default :func:`default_strategies`.
        limits: every run's ``timeout`` (after the child's imports; None for no limit),
            ``seed``, ``workers`` (CP-SAT ``num_workers``; with Ray, the task's ``num_cpus``)
            and the ``options`` given, checked here and handed to every run (each reads its
            own).  Default: ``Limits(timeout=60.0)``.
        backend: where the runs go; its ``jobs`` are the runs at once (None: 1 locally, and
            with Ray the whole grid at once, as many as the cluster's CPUs allow), its
            ``memory_mb`` the per-child cap (default
            :func:`~puzzlesat.portfolio.backends.default_memory_mb` for ``jobs`` children).
            Default: local.
        results: a JSON-lines file; existing matching runs are reused, new ones appended.
        stream: where the progress lines go when no progress callback is installed
            (:mod:`puzzlesat.core.progress`); None: only to that callback, if any.
        answers: keep each verified answer in its record (``Record.answer``, the puzzle's
            output format), e.g. for a catalog that replays them.
        label: what the progress lines name (``c catalog 3/8: ...`` for a catalog's runs).

    Returns:
        One record per (instance, strategy), in input order, reused ones included.

    Raises:
        BackendUnavailable: an unknown strategy name, before anything runs.
        OptionError: an option none of the strategies declares, or a bad value.
        UnsupportedRequest: no strategy serves the mode the options ask for (those that do
            not are left out, and a progress line says so).
        PluginError: a script's strategy or puzzle that a child process cannot import.
        PuzzlesatError: an unknown backend, or Ray not installed.
    """
    with progress.reporting(progress.fallback(stream)):
        return _compare(puzzle, instances, strategies, limits, backend, results, answers, label)


def _compare(
    puzzle: Puzzle,
    instances: Sequence[tuple[str, Any]],
    strategies: Sequence[str] | None,
    limits: Limits | None,
    backend: Backend | None,
    results: Path | None,
    answers: bool,
    label: str,
) -> list[Record]:
    names = list(strategies) if strategies else default_strategies(puzzle)
    limits = limits or Limits(timeout=60.0)
    limits = replace(limits, options=for_strategies(puzzle, names, limits.options))
    for name in names:
        for_run(puzzle, name, {})  # options in the name: declared, well typed
    names = serving(puzzle, names, limits.options)
    backend = backend or Backend()
    timeout, seed, workers = limits.timeout, limits.seed, limits.workers
    options = _jsonable(limits.options)  # as a results file holds them
    sent = {name: strategy_spec(puzzle, name) for name in names}
    jobs = backend.jobs
    if backend.name == "local":
        jobs = max(1, jobs or 1)
    memory_mb = backend.memory_cap(jobs or 1)
    done: dict[tuple[str, str], Record] = {}
    same = (puzzle.name, timeout, seed, workers, options)  # what a reused run must share
    if results is not None:
        for rec in load_results(results):
            if (rec.puzzle, rec.timeout, rec.seed, rec.workers, rec.options) == same:
                done[rec.instance, rec.strategy] = rec
    wanted = [(path, inst, name) for path, inst in instances for name in names]
    pending = [item for item in wanted if (item[0], item[2]) not in done]
    jobs = max(1, jobs or len(pending))
    tally = Tally(len(wanted), len(wanted) - len(pending), label)
    out = None
    if results is not None and pending:
        results.parent.mkdir(parents=True, exist_ok=True)
        torn = results.exists() and results.stat().st_size > 0 and not results.read_bytes().endswith(b"\n")
        out = results.open("a")
        if torn:  # an interrupted write: end its line so the next record starts clean
            out.write("\n")
    spec_puzzle = puzzle_spec(puzzle)
    try:
        if pending:  # nothing to run: no backend to start (Ray takes seconds to start)
            with open_pool(puzzle, backend) as sup:
                queue = list(pending)
                labels: dict[str, tuple[str, Any, str]] = {}
                while queue or sup.active:
                    while queue and len(sup.active) < jobs:
                        path, inst, name = queue.pop(0)
                        spec = ChildSpec(
                            spec_puzzle,
                            inst,
                            name,
                            seed,
                            limits.workers,
                            dict(limits.options),
                            timeout,
                            None,
                            memory_mb,
                            sent[name],
                        )
                        run = sup.start(f"{len(labels)}", spec)
                        labels[run.label] = (path, inst, name)
                    for run in sup.poll(0.25):
                        assert run.result is not None
                        path, inst, name = labels[run.label]
                        res = run.result
                        answered = run.note not in ("timeout", "crashed", "memory")
                        rec = Record(
                            puzzle.name,
                            path,
                            name,
                            res.status.value,
                            round(res.wall_time, 4) if answered else None,
                            None if run.elapsed is None else round(run.elapsed, 4),
                            res.objective,
                            _jsonable(res.stats),
                            res.message,
                            timeout,
                            seed,
                            _answer(puzzle, inst, res) if answers else None,
                            workers,
                            options,
                        )
                        done[path, name] = rec
                        if out is not None:
                            out.write(json.dumps(asdict(rec)) + "\n")
                            out.flush()
                        tally.advance(rec, puzzle.optimisation)
                    tally.report()
    finally:
        tally.close()
        if out is not None:
            out.close()
    return [done[path, name] for path, _, name in wanted if (path, name) in done]


def _answer(puzzle: Puzzle, instance: Any, result: Result) -> str | None:
    if result.status not in (Status.SOLVED, Status.OPTIMAL) or result.solution is None:
        return None
    return puzzle.format(instance, result.solution)


def _jsonable(stats: dict[str, Any]) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for key, value in stats.items():
        if isinstance(value, bool | int | float | str) or value is None:
            clean[str(key)] = value
        else:
            clean[str(key)] = str(value)
    return clean


class Tally:
    """A comparison's progress: a line per finished run and the runs done, as progress reports."""

    def __init__(self, total: int, already: int, label: str = "compare") -> None:
        self.label = label  # the verb whose runs these are: ``compare``, ``catalog``
        self.total = total
        self.count = already
        self.solved = 0
        self.errors = 0
        self.start = time.monotonic()
        if already:
            progress.line(f"c {label}: {already} of {total} runs taken from the results file")

    def advance(self, rec: Record, optimisation: bool) -> None:
        """Count a finished run."""
        self.count += 1
        self.solved += rec.solved(optimisation)
        self.errors += rec.status == Status.ERROR.value
        took = "-" if rec.time is None else f"{rec.time:.2f}s"
        text = (
            f"c {self.label} {self.count}/{self.total}: {rec.instance} {rec.strategy} {rec.status} {took} {rec.message}"
        )
        progress.line(text.rstrip())

    def report(self) -> None:
        """Report the runs done so far."""
        progress.update(
            self.label,
            self.count / max(1, self.total),
            f"{self.count}/{self.total} runs, {self.solved} solved, {self.errors} errors, "
            f"{time.monotonic() - self.start:.0f}s",
        )

    def close(self) -> None:
        """The comparison is over."""
        progress.end()


# -- tables --------------------------------------------------------------------------------


def _short_names(records: Sequence[Record]) -> dict[str, str]:
    paths = list(dict.fromkeys(r.instance for r in records))
    names = [Path(p).name for p in paths]
    if len(set(names)) == len(names):
        return dict(zip(paths, names, strict=True))
    return {p: p for p in paths}


def _cell(rec: Record | None, optimisation: bool) -> str:
    if rec is None:
        return ""
    if rec.solved(optimisation):
        text = f"{rec.time:.2f}" if rec.time is not None else "?"
        if rec.status == Status.INFEASIBLE.value:
            text += " (unsat)"
        elif optimisation and rec.objective is not None:
            text += f" (obj {rec.objective})"
        return text
    if rec.status == Status.SOLVED.value and rec.objective is not None:
        return f"obj {rec.objective}, no proof"
    if rec.status == Status.ERROR.value:
        return "ERROR"
    if rec.time is None or (rec.timeout is not None and rec.time >= 0.9 * rec.timeout):
        return "timeout"
    return "timeout" if TIME_LIMIT in rec.message or "timeout" in rec.message else "unknown"


def par2(records: Sequence[Record], optimisation: bool, timeout: float | None) -> float | None:
    """Mean time with every unsolved run counted as twice the timeout (PAR-2).

    >>> recs = [Record("p", "a", "s", "SOLVED", 1.0, 1.0), Record("p", "b", "s", "UNKNOWN", None, 9.0)]
    >>> par2(recs, False, 10.0)
    10.5
    """
    if not records or timeout is None:
        return None
    times = [r.time if r.solved(optimisation) and r.time is not None else 2 * timeout for r in records]
    return sum(times) / len(times)


def render(records: Sequence[Record], fmt: str = "markdown", optimisation: bool = False) -> str:
    """The comparison as a markdown table, CSV or JSON.

    Raises:
        PuzzlesatError: an unknown format.
    """
    if fmt == "json":
        return json.dumps([asdict(r) | {"claim": r.claim(optimisation)} for r in records], indent=1) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["instance", "strategy", "status", "time", "elapsed", "objective", "stats", "message", "claim"])
        for r in records:
            writer.writerow(
                [
                    r.instance,
                    r.strategy,
                    r.status,
                    "" if r.time is None else r.time,
                    "" if r.elapsed is None else r.elapsed,
                    "" if r.objective is None else r.objective,
                    key_stats(r.stats, limit=len(r.stats)),
                    r.message,
                    r.claim(optimisation),
                ]
            )
        return buf.getvalue()
    if fmt != "markdown":
        raise PuzzlesatError(f"unknown format {fmt!r}; expected one of: {', '.join(TABLE_FORMATS)}")
    strategies = list(dict.fromkeys(r.strategy for r in records))
    short = _short_names(records)
    table: dict[tuple[str, str], Record] = {(r.instance, r.strategy): r for r in records}
    lines = ["| instance | " + " | ".join(strategies) + " |", "|---|" + "---:|" * len(strategies)]
    for path in short:
        row = [table.get((path, s)) for s in strategies]
        times = [c.time for c in row if c is not None and c.solved(optimisation) and c.time is not None]
        best = min(times) if times else None
        cells = []
        for cell in row:
            text = _cell(cell, optimisation)
            if cell is not None and best is not None and cell.time == best and cell.solved(optimisation):
                text = f"**{text}**"
            cells.append(text)
        lines.append(f"| {short[path]} | " + " | ".join(cells) + " |")
    per = {s: [r for r in records if r.strategy == s] for s in strategies}
    lines.append(
        "| solved | "
        + " | ".join(f"{sum(r.solved(optimisation) for r in per[s])}/{len(per[s])}" for s in strategies)
        + " |"
    )
    timeouts = {r.timeout for r in records}
    timeout = timeouts.pop() if len(timeouts) == 1 else None
    scores = [par2(per[s], optimisation, timeout) for s in strategies]
    if any(score is not None for score in scores):
        lines.append("| PAR-2 (s) | " + " | ".join("" if x is None else f"{x:.2f}" for x in scores) + " |")
    solved_times = {s: [r.time for r in per[s] if r.solved(optimisation) and r.time is not None] for s in strategies}
    lines.append(
        "| median solved (s) | "
        + " | ".join(f"{statistics.median(solved_times[s]):.2f}" if solved_times[s] else "" for s in strategies)
        + " |"
    )
    bases = {s: _bases(per[s], optimisation) for s in strategies}
    if any(bases.values()):
        lines.append("| claims rest on | " + " | ".join(bases[s] for s in strategies) + " |")
    return "\n".join(lines) + "\n"


def _bases(records: Sequence[Record], optimisation: bool) -> str:
    """What a strategy's claims rest on, each basis once with its count: ``2 exhausted search``."""
    counts: dict[str, int] = {}
    for rec in records:
        basis = rec.claim(optimisation).split(",")[0].split(" (")[0]
        if basis:
            counts[basis] = counts.get(basis, 0) + 1
    return "; ".join(f"{n} {basis}" for basis, n in counts.items())


def cactus_plot(records: Sequence[Record], path: Path, optimisation: bool = False, title: str = "") -> None:
    """Draw instances solved against time, one line per strategy, into a PNG (or any format
    matplotlib knows from the suffix).

    Raises:
        PuzzlesatError: matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PuzzlesatError("--plot needs matplotlib: pip install 'puzzlesat[plot]'") from None
    strategies = list(dict.fromkeys(r.strategy for r in records))
    instances = len({r.instance for r in records})
    fig, ax = plt.subplots(figsize=(7, 4.5))
    solved_times = {
        name: sorted(r.time for r in records if r.strategy == name and r.solved(optimisation) and r.time is not None)
        for name in strategies
    }
    every = [t for times in solved_times.values() for t in times]
    timeouts = {r.timeout for r in records if r.timeout is not None}
    left = max(1e-3, min(every) / 2) if every else 1e-3
    right = max([*every, *timeouts, left * 10]) * 1.2
    for name in strategies:
        times = [max(t, left) for t in solved_times[name]]
        ax.step(
            [left, *times, right],
            [0, *range(1, len(times) + 1), len(times)],
            where="post",
            label=f"{name} ({len(times)})",
            linewidth=1.8,
        )
    if timeouts:
        ax.axvline(max(timeouts), color="grey", linestyle=":", linewidth=1, label="time limit")
    ax.set_xscale("log")
    ax.set_xlim(left, right)
    ax.set_xlabel("time per instance (s)")
    ax.set_ylabel("instances solved")
    ax.set_ylim(0, instances + 0.5)
    ax.set_title(title or f"{records[0].puzzle if records else ''}: {instances} instances")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

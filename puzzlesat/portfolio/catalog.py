"""``puzzlesat catalog pegsol``: every single vacancy -> single survivor problem of a board,
one per symmetry class, with its verdict and the evidence for it.

The proofs (peg count, position-class parity, pagoda; see
:mod:`puzzlesat.domains.pegsol.catalog`) take milliseconds and run here, in the parent.  Of a
problem and its reverse (finish -> start: the same game played backwards) only the first is
searched, and the other takes its answer, replayed backwards.  The problems left are a
:func:`~puzzlesat.portfolio.compare.compare` grid with a chain of strategies: each goes to the
first (``native-dfs``), and only those it leaves undecided go to the next
(``cnf-plan:cadical195``).  Every run is its own process under the per-problem time limit,
``jobs`` at once, and the runs go to the compare results file, so an interrupted catalog
resumes where it stopped, and a rerun with a longer limit retries only the undecided problems.

Each entry's evidence is checked here in the parent: a solution is replayed by the
verifier, a pagoda proof is written out with its weights (the LP's answer re-checked in
exact fractions), an exhausted search names its node count.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

from puzzlesat.core import TIME_LIMIT, Limits, Puzzle, PuzzlesatError, Status, progress
from puzzlesat.core.arguments import TABLE_FORMATS
from puzzlesat.domains import pegsol
from puzzlesat.domains.pegsol.catalog import (
    Map,
    Problem,
    board_cells,
    cell_text,
    problem_instance,
    problems,
    proof,
    reverse,
    reversed_solution,
)
from puzzlesat.portfolio.backends import Backend
from puzzlesat.portfolio.compare import Record, compare, load_results

CHAIN = ("native-dfs", "cnf-plan:cadical195")
CSV_COLUMNS = ("start", "finish", "verdict", "evidence", "seconds")


@dataclass
class Entry:
    """One problem of a catalog (the representative of its symmetry class).

    Attributes:
        start: the start's vacancy, ``r:c`` 0-based.
        finish: the survivor's cell.
        orbit: the problems in its symmetry class.
        verdict: ``solvable``, ``impossible``, or ``unknown`` (not settled in time, or failed).
        reason: ``solution``; ``count``, ``parity``, ``pagoda`` or ``search`` for a proof;
            for ``unknown``, the last strategy's status (``timeout``, ``error``, ...).
        evidence: the jumps of a verified solution, the proof, or why it is unknown.
        seconds: the deciding proof's or strategy's own time (the runs' total when unknown).
        strategy: ``proofs`` or the strategy that settled it (the last one tried when unknown).
    """

    start: str
    finish: str
    orbit: int
    verdict: str
    reason: str
    evidence: str
    seconds: float | None
    strategy: str


def problem_name(board: str, rows: int, cols: int, problem: Problem) -> str:
    """How a problem is named in the results file and the progress lines, e.g. ``english 3:3>3:3``."""
    tag = f"rect{rows}x{cols}" if board == "rect" else board
    return f"{tag} {cell_text(problem.start)}>{cell_text(problem.finish)}"


def catalog(
    puzzle: Puzzle,
    board: str,
    rows: int | None = None,
    cols: int | None = None,
    limits: Limits | None = None,
    backend: Backend | None = None,
    *,
    strategies: Sequence[str] = CHAIN,
    results: Path | None = None,
    stream: TextIO | None = None,
) -> list[Entry]:
    """Settle every problem of the board, one per symmetry class, in row-major order.

    Args:
        puzzle: peg solitaire's Puzzle, whose strategies the chain names.
        board: ``english``, ``french``, ``german``, ``diamond`` or ``rect``.
        rows, cols: a rect board's size.
        limits: each run's ``timeout`` (None: no limit) and ``seed``.  Default 60 s.
        backend: its ``jobs`` are the runs at once.
        strategies: the chain; a problem goes to the next strategy only while undecided.
        results: the compare results file (JSON lines): a problem settled there (solved or
            refuted, under any time limit) is reused, as are the undecided runs made under
            the same time limit and seed; new runs are appended.
        stream: where the progress lines go when no progress callback is installed
            (:mod:`puzzlesat.core.progress`); None: only to that callback, if any.

    Raises:
        InvalidInstanceError: an unknown board or a bad size.
        BackendUnavailable: a strategy of the chain that the puzzle does not have (before any run).
    """
    for name in strategies:
        puzzle.strategy(name)
    with progress.reporting(progress.fallback(stream)):
        return _catalog(puzzle, board, rows, cols, limits, backend, strategies, results)


def _catalog(
    puzzle: Puzzle,
    board: str,
    rows: int | None,
    cols: int | None,
    limits: Limits | None,
    backend: Backend | None,
    strategies: Sequence[str],
    results: Path | None,
) -> list[Entry]:
    limits = limits or Limits(timeout=60.0)
    height, width, cells = board_cells(board, rows, cols)
    items = [
        (problem_name(board, height, width, p), p, problem_instance(height, width, cells, p.start, p.finish))
        for p in problems(height, width, cells)
    ]
    settled: dict[str, Entry] = {}
    for name, p, inst in items:  # the proofs take milliseconds: here, not in a process each
        began = time.perf_counter()
        found = proof(inst)
        if found is not None:
            seconds = round(time.perf_counter() - began, 4)
            settled[name] = _entry(p, "impossible", found[0], found[1], seconds, "proofs")
    pending = [item for item in items if item[0] not in settled]
    runs: dict[str, list[Record]] = {name: [] for name, _, _ in pending}
    if results is not None:  # a settled answer holds whatever the time limit it was found under
        for rec in load_results(results):
            if rec.puzzle == puzzle.name and rec.instance in runs and rec.strategy in strategies and rec.solved(False):
                runs[rec.instance] = [rec]
    # of a problem and its reverse, one is searched and the other takes its answer
    by_pair = {(p.start, p.finish): name for name, p, _ in items}
    problem_of = {name: p for name, p, _ in items}
    left = {name for name, _, _ in pending}
    reversals: dict[str, tuple[str, Map]] = {}
    for name, p, _ in pending:
        start, finish, back = reverse(height, width, cells, p)
        other = by_pair[start, finish]
        # the first of the two is searched, unless only the other is settled in the results file
        first = other not in reversals and name not in reversals and other in left and other != name
        if first and runs[other] and not runs[name]:
            reversals[name] = (other, back)
        elif first:
            reversals[other] = (name, reverse(height, width, cells, problem_of[other])[2])
    pending = [item for item in pending if item[0] not in reversals]
    searched = len(pending)
    pending = [item for item in pending if not runs[item[0]]]
    progress.line(
        f"c catalog: {len(items)} classes of {sum(p.orbit for _, p, _ in items)} problems, "
        f"{len(settled)} ruled out by proofs, {len(reversals)} answered by their reverses, "
        f"{searched - len(pending)} settled in the results file, {len(pending)} to search"
    )
    for strategy in strategies:
        if not pending:
            break
        records = compare(
            puzzle,
            [(name, inst) for name, _, inst in pending],
            [strategy],
            limits,
            backend,
            results=results,
            answers=True,
            label="catalog",
        )
        for rec in records:
            runs[rec.instance].append(rec)
        pending = [item for item in pending if not runs[item[0]] or not runs[item[0]][-1].solved(False)]
    for name, p, inst in items:
        if name not in settled and name not in reversals:
            settled[name] = entry(p, inst, runs[name])
    for name, p, inst in items:
        if name in reversals:
            other, back = reversals[name]
            settled[name] = reversed_entry(p, inst, settled[other], back)
    return [settled[name] for name, _, _ in items]


def reversed_entry(problem: Problem, instance: pegsol.Instance, other: Entry, back: Map) -> Entry:
    """A problem's entry from its reverse's (see :func:`puzzlesat.domains.pegsol.catalog.reverse`): the reverse's
    solution played backwards and replayed by the verifier, or the reverse's proof or doubt."""
    source = f"{other.strategy}, reversed"
    if other.verdict == "solvable":
        found = pegsol.parse_solution(instance, "\n".join(other.evidence.split()))
        assert found is not None
        solution = reversed_solution(found, back)
        faults = pegsol.verify(instance, solution)
        if faults:
            evidence = f"the verifier rejects the reversed answer: {faults[0]}"
            return _entry(problem, "unknown", "error", evidence, other.seconds, source)
        return _entry(problem, "solvable", "solution", " ".join(map(str, solution.moves)), other.seconds, source)
    evidence = f"as its reverse {other.start}>{other.finish} (the same game played backwards): {other.evidence}"
    return _entry(problem, other.verdict, other.reason, evidence, other.seconds, source)


def _entry(problem: Problem, verdict: str, reason: str, evidence: str, seconds: float | None, strategy: str) -> Entry:
    return Entry(
        cell_text(problem.start), cell_text(problem.finish), problem.orbit, verdict, reason, evidence, seconds, strategy
    )


def entry(problem: Problem, instance: pegsol.Instance, runs: list[Record]) -> Entry:
    """A problem's entry from its search runs (the last one decides), its evidence checked here."""
    if not runs:
        return _entry(problem, "unknown", "not-run", "no strategy ran", None, "")
    rec = runs[-1]
    if rec.status == Status.SOLVED.value:
        solution = pegsol.parse_solution(instance, rec.answer or "")
        faults = ["no solution kept"] if solution is None else pegsol.verify(instance, solution)
        if faults:
            evidence = f"the verifier rejects the answer: {faults[0]}"
            return _entry(problem, "unknown", "error", evidence, rec.time, rec.strategy)
        assert solution is not None
        return _entry(problem, "solvable", "solution", " ".join(map(str, solution.moves)), rec.time, rec.strategy)
    if rec.status == Status.INFEASIBLE.value:
        found = proof(instance) if not rec.stats.get("nodes") else None
        if found is not None:  # a strategy's own proofs (the catalog's found none before it)
            return _entry(problem, "impossible", found[0], found[1], rec.time, rec.strategy)
        nodes = rec.stats.get("nodes")
        what = f"exhausted search ({rec.strategy}): {nodes} nodes" if nodes else f"{rec.strategy}: {rec.message}"
        return _entry(problem, "impossible", "search", what, rec.time, rec.strategy)
    total = sum(r.elapsed or 0.0 for r in runs)
    timed_out = TIME_LIMIT in rec.message or "timeout" in rec.message  # the older word, in results files
    reason = "timeout" if timed_out or rec.time is None else rec.status.lower()
    tried = ", ".join(r.strategy for r in runs)
    return _entry(
        problem, "unknown", reason, f"{reason} ({tried}): {rec.message}".rstrip(": "), round(total, 4), rec.strategy
    )


def summary(entries: Sequence[Entry]) -> dict[str, int]:
    """The counts: problems (every pair), orbits, and per verdict and reason both in orbits and problems."""
    out = {"problems": sum(e.orbit for e in entries), "orbits": len(entries)}
    for key, weight in (("orbits", False), ("problems", True)):
        counts: Counter[str] = Counter()
        for e in entries:
            n = e.orbit if weight else 1
            counts[e.verdict] += n
            if e.verdict != "solvable":
                counts[f"{e.verdict} ({e.reason})"] += n
        for name, n in sorted(counts.items()):
            out[f"{name} {key}"] = n
    return out


def render(entries: Sequence[Entry], fmt: str = "markdown") -> str:
    """The catalog as markdown (the counts, then one row per class), CSV or JSON.

    CSV has exactly the columns ``start,finish,verdict,evidence,seconds``.

    Raises:
        PuzzlesatError: an unknown format.
    """
    if fmt == "json":
        return json.dumps([asdict(e) for e in entries], indent=1) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for e in entries:
            writer.writerow([e.start, e.finish, e.verdict, e.evidence, "" if e.seconds is None else e.seconds])
        return buf.getvalue()
    if fmt != "markdown":
        raise PuzzlesatError(f"unknown format {fmt!r}; expected one of: {', '.join(TABLE_FORMATS)}")
    counts = summary(entries)
    lines = ["| count | classes | problems |", "|---|---:|---:|"]
    lines.append(f"| all | {counts['orbits']} | {counts['problems']} |")
    for key in counts:
        if key.endswith(" orbits"):
            name = key[: -len(" orbits")]
            lines.append(f"| {name} | {counts[key]} | {counts[name + ' problems']} |")
    lines += ["", "| start | finish | class size | verdict | evidence | seconds |", "|---|---|---:|---|---|---:|"]
    for e in entries:
        seconds = "" if e.seconds is None else f"{e.seconds:.3f}"
        evidence = e.evidence.replace("|", "\\|")
        lines.append(f"| {e.start} | {e.finish} | {e.orbit} | {e.verdict} | {evidence} | {seconds} |")
    return "\n".join(lines) + "\n"

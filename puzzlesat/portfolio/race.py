"""The race policy: several strategies on one instance in separate processes, the first
verified answer wins.

For decision puzzles the first SOLVED or INFEASIBLE answer wins; for optimisation puzzles the
first OPTIMAL (or INFEASIBLE) answer wins, otherwise the best verified objective once every
member has answered or the deadline passed.  The members share the cores: CP-SAT members get
the spare ones as ``num_workers``, repeats of a name race with the next seeds.  The runs go to
a pool of :mod:`puzzlesat.portfolio.backends` (local processes or Ray), the losers are stopped
as whole process trees, and :mod:`puzzlesat.portfolio.report` shows the race and its table.
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TextIO

from puzzlesat.core import BackendUnavailable, Limits, Puzzle, Result, Status, UnsupportedRequest, progress
from puzzlesat.core.run_options import for_strategies
from puzzlesat.portfolio.backends import Backend, open_pool
from puzzlesat.portfolio.child import ChildSpec, puzzle_spec, strategy_spec
from puzzlesat.portfolio.report import describe, format_table, status_text
from puzzlesat.portfolio.runs import Outcome, RaceResult, Run


def share_cores(names: Sequence[str], jobs: int) -> list[int]:
    """Workers per member: 1 for each non-CP-SAT member, the rest of the cores split among CP-SAT.

    >>> share_cores(["native-rowscan", "cpsat-table", "cnf-heule"], 8)
    [1, 6, 1]
    >>> share_cores(["cpsat-a", "cpsat-b", "native"], 2)
    [1, 1, 1]
    """
    cpsat = sum(1 for n in names if n.startswith("cpsat"))
    if not cpsat:
        return [1] * len(names)
    per = max(1, (jobs - (len(names) - cpsat)) // cpsat)
    return [per if n.startswith("cpsat") else 1 for n in names]


def label_members(names: Sequence[str], seed: int) -> list[tuple[str, str, int]]:
    """``(label, name, seed)`` per member; repeats of a name race with seeds seed, seed+1, ...

    >>> label_members(["native", "cpsat", "native"], 7)
    [('native', 'native', 7), ('cpsat', 'cpsat', 7), ('native#2', 'native', 8)]
    """
    seen: Counter[str] = Counter()
    members = []
    for name in names:
        k = seen[name]
        seen[name] += 1
        members.append((name if k == 0 else f"{name}#{k + 1}", name, seed + k))
    return members


def portfolio_names(puzzle: Puzzle, names: str | Sequence[str] | None) -> list[str]:
    """The members to race: the names given (a list, or a comma list as ``--portfolio`` takes
    it), else the puzzle's default set.

    Raises:
        BackendUnavailable: an empty portfolio.
    """
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    if names:
        members = list(names)
    elif puzzle.portfolio:
        members = list(puzzle.portfolio)
    else:
        members = [s.name for s in puzzle.all_strategies() if not s.variants or s.default_variant]
    if not members:
        raise BackendUnavailable(f"no strategies to race for {puzzle.name}")
    return members


def serving(puzzle: Puzzle, names: Sequence[str], options: dict[str, Any]) -> list[str]:
    """The members that serve these options; the others are left out, in one progress line.

    Raises:
        UnsupportedRequest: none of them serves the request.
    """
    kept, left = puzzle.serving(list(names), options)
    modes = " ".join("--" + m.replace("_", "-") for m in puzzle.requested_modes(options))
    left = list(dict.fromkeys(left))
    if not kept:
        raise UnsupportedRequest(f"{puzzle.name}: none of {', '.join(left)} serves {modes}")
    if left:
        progress.line(f"c left out {', '.join(left)}: not serving {modes}")
    return kept


def _better(a: Result, b: Result | None) -> bool:
    if b is None:
        return True
    inf = math.inf
    return (a.objective if a.objective is not None else inf) < (b.objective if b.objective is not None else inf)


def race(
    puzzle: Puzzle,
    instance: Any,
    names: Sequence[str] | None = None,
    limits: Limits | None = None,
    backend: Backend | None = None,
    *,
    stream: TextIO | None = None,
) -> RaceResult:
    """Race strategies on one instance, each in its own process; the first verified answer wins.

    Args:
        puzzle: the puzzle (a registered one, or any picklable Puzzle object).
        instance: a parsed instance.
        names: strategy names ``method[:variant]``; a name may repeat (each repeat gets the
            next seed).  Default: the puzzle's ``portfolio``.
        limits: ``timeout`` for the whole race, start-up included (None for no limit), the
            first member's ``seed`` and the ``options`` given for the race, checked here and
            handed to every member (each reads its own); ``workers`` is ignored: the members
            share ``backend.jobs`` cores.  Default: ``Limits()``.
        backend: where the members run, the cores they share (default: the machine's, the
            cluster's with Ray), the memory cap and the losers' SIGTERM grace.  Default: local.
        stream: where a line per finished member goes when no progress callback is installed
            (:mod:`puzzlesat.core.progress`: the live status and those lines); None: only to
            that callback, if any.

    Returns:
        A RaceResult; ``result`` has been verified in the parent.  The timeout counts from
        the first member's start, after connecting to Ray.

    Raises:
        BackendUnavailable: an unknown strategy name (before any process starts).
        OptionError: an option none of the members declares, or a bad value.
        UnsupportedRequest: no member serves the mode the options ask for (the members that
            do not serve it are left out, and a progress line says so).
        PluginError: a script's strategy or puzzle that a child process cannot import.
        PuzzlesatError: an unknown backend, or Ray not installed.
        KeyboardInterrupt: re-raised after every child has been stopped.
    """
    names = portfolio_names(puzzle, names)
    limits = limits or Limits()
    limits = replace(limits, options=for_strategies(puzzle, names, limits.options))
    backend = backend or Backend()
    with progress.reporting(progress.fallback(stream)):
        return _race(puzzle, instance, serving(puzzle, names, limits.options), limits, backend)


def _race(puzzle: Puzzle, instance: Any, names: list[str], limits: Limits, backend: Backend) -> RaceResult:
    members = label_members(names, limits.seed)
    spec_puzzle = puzzle_spec(puzzle)
    sent = {name: strategy_spec(puzzle, name) for name in names}
    winner: Run | None = None
    best: Run | None = None
    runs: list[Run] = []
    memory_mb = backend.memory_cap(len(names))
    with open_pool(puzzle, backend) as sup:
        jobs = backend.jobs or sup.cpus
        workers = share_cores(names, jobs)
        sup.fit(sum(workers))
        start = time.time()
        deadline = None if limits.timeout is None else start + limits.timeout
        try:
            for (label, name, member_seed), count in zip(members, workers, strict=True):
                spec = ChildSpec(
                    spec_puzzle,
                    instance,
                    name,
                    member_seed,
                    count,
                    dict(limits.options),
                    None,
                    deadline,
                    memory_mb,
                    sent[name],
                )
                runs.append(sup.start(label, spec))
            while sup.active and winner is None:
                for run in sup.poll(0.2):
                    result = run.result
                    assert result is not None
                    progress.line(f"c {run.label}: {describe(result, run.note)} after {time.time() - start:.2f}s")
                    if result.status is Status.INFEASIBLE or result.status is Status.OPTIMAL:
                        winner = run
                    elif result.status is Status.SOLVED:
                        if not puzzle.optimisation:
                            winner = run
                        elif best is None or _better(result, best.result):
                            best = run
                    if winner is not None:
                        break
                progress.update(status_text(runs, start))
            if winner is None:
                winner = best
        finally:
            progress.end()
        decided = time.time()
        sup.close("stopped")
    outcomes = []
    for run in runs:
        result = run.result or Result(Status.UNKNOWN, strategy=run.spec.name, message="no outcome")
        outcomes.append(
            Outcome(
                run.label,
                run.spec.name,
                run.spec.seed,
                run.spec.workers,
                result,
                run.note,
                None if run.finished is None else run.finished - start,
                run.startup,
                run.load,
                run is winner,
                run.pid,
                run.host,
            )
        )
    if winner is not None and winner.result is not None:
        final = winner.result
        final.strategy = (final.strategy or winner.spec.name) + winner.label[len(winner.spec.name) :]
    else:
        statuses = {o.result.status for o in outcomes}
        status = Status.ERROR if statuses == {Status.ERROR} else Status.UNKNOWN
        summary = ", ".join(f"{o.label}: {describe(o.result, o.note)}" for o in outcomes)
        final = Result(
            status, strategy="portfolio", wall_time=decided - start, message=f"no member answered ({summary})"
        )
    return RaceResult(final, outcomes, decided - start, jobs, memory_mb, backend.name)


def solve_portfolio(
    puzzle: Puzzle,
    instance: Any,
    members: str | Sequence[str] | None,
    limits: Limits,
    backend: Backend | None = None,
    *,
    stream: TextIO | None = None,
) -> Result:
    """``puzzlesat solve P FILE --portfolio [S1,S2,...]``: race, print the table, return the answer.

    Args:
        puzzle: the puzzle.
        instance: the parsed instance.
        members: the strategy names, or a comma list; empty or None for the puzzle's set.
        limits: timeout, first seed and the options given (see :func:`race`).
        backend: where the members run, the cores they share and their memory cap.
        stream: where progress and the table go (default stderr).
    """
    stream = sys.stderr if stream is None else stream
    outcome = race(puzzle, instance, members, limits, backend, stream=stream)
    stream.write(format_table(outcome))
    stream.flush()
    result = outcome.result
    result.stats = {**result.stats, "portfolio_time": round(outcome.wall_time, 3)}
    return result

"""The race policy: several strategies on one instance, the first verified answer wins.

The first member (the best predicted) searches alone in this process for :data:`HEAD_START`
seconds, as the exact split of ``native-rowscan --workers`` does; a sub-second board ends
there, with no process started.  Otherwise every member runs in its own process, but for a
lone member (the only one serving the request, or a portfolio of one), which searches here
for all its time: a race of one would gain nothing from a process.  For decision
puzzles the first SOLVED or INFEASIBLE answer wins; under ``--score`` and for optimisation
puzzles the first proof (OPTIMAL, INFEASIBLE) wins, otherwise the best verified answer any
member holds once every member has answered or the deadline passed, including one a stopped
member had shared (:class:`~puzzlesat.core.incumbent.Incumbent`, through which the members
also take each other's best as a bound or hint).  The members share the cores by their
declarations (:func:`share_cores`), repeats of a name race with the next seeds.  The runs go
to a pool of :mod:`puzzlesat.portfolio.backends` (local processes or Ray), the losers are
stopped as whole process trees, and :mod:`puzzlesat.portfolio.report` shows the race, its
table and what the answer rests on.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from puzzlesat.core import (
    BackendUnavailable,
    Limits,
    Puzzle,
    Result,
    Status,
    UnsupportedRequest,
    check_result,
    progress,
)
from puzzlesat.core.incumbent import Incumbent
from puzzlesat.core.run_options import for_strategies
from puzzlesat.portfolio.backends import Backend, open_pool
from puzzlesat.portfolio.child import ChildSpec, puzzle_spec, strategy_spec
from puzzlesat.portfolio.report import describe, format_table, status_text
from puzzlesat.portfolio.runs import ALONE, Outcome, RaceResult, Run

# modes whose answers improve with time (eternity's --score): a head start settles them only on
# boards a first look solves, and costs every other board its member's load in this process
ANYTIME_MODES = ("score",)
HEAD_START = 0.2  # seconds the first member searches alone before the others start (as the exact split does)
# seconds a head start may overrun its clock before it is cut short: more than a first numba
# compilation (6 s measured for eternity's kernels) or a CP-SAT import, which a cut would break off
HEAD_GRACE = 10.0


def share_cores(kinds: Sequence[tuple[str, bool]], jobs: int) -> list[int]:
    """Cores per member, by each one's declared ``(engine, parallel)``
    (:attr:`~puzzlesat.core.types.Strategy.engine`, :attr:`~puzzlesat.core.types.Strategy.parallel`):
    one for each member whose search does not split, the rest shared evenly among those whose
    search splits, CP-SAT members first for what does not divide evenly.

    >>> share_cores([("native", True), ("cpsat", True), ("sat", False)], 8)
    [3, 4, 1]
    >>> share_cores([("native", True)], 2)
    [2]
    >>> share_cores([("cpsat", True), ("cpsat", True), ("native", False)], 2)
    [1, 1, 1]
    """
    fixed = sum(1 for _, parallel in kinds if not parallel)
    splitting = sorted((i for i, (_, parallel) in enumerate(kinds) if parallel), key=lambda i: kinds[i][0] != "cpsat")
    cores = [1] * len(kinds)
    if splitting:
        per, extra = divmod(max(len(splitting), jobs - fixed), len(splitting))
        for k, i in enumerate(splitting):
            cores[i] = per + (1 if k < extra else 0)
    return cores


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


def _objective(result: Result) -> float:
    return result.objective if result.objective is not None else math.inf


def _role(puzzle: Puzzle, result: Result) -> str:
    """``win`` for an answer that ends the race, ``best`` for one that may be beaten, else ``""``.

    A proof (INFEASIBLE, OPTIMAL) ends it, and so does a solution of a decision puzzle's plain
    question; an unproven answer to an optimisation or to ``--score`` (FEASIBLE) is the best
    until a better one or a proof comes.
    """
    if result.status in (Status.INFEASIBLE, Status.OPTIMAL):
        return "win"
    if result.status is Status.SOLVED:
        return "best" if puzzle.optimisation else "win"
    if result.status is Status.FEASIBLE and result.solution is not None:
        return "best"
    return ""


def race(
    puzzle: Puzzle,
    instance: Any,
    names: Sequence[str] | None = None,
    limits: Limits | None = None,
    backend: Backend | None = None,
    *,
    stream: TextIO | None = None,
    head_start: float = HEAD_START,
    certify: str | None = None,
    certify_prefix: str = "claim",
    share: bool = True,
) -> RaceResult:
    """Race strategies on one instance, each in its own process; the first verified answer wins.

    The first member (the best predicted: the puzzle's portfolio lists its members best first)
    searches alone in this process for ``head_start`` seconds; only when that has not settled
    the question are the members started, each in its own process.  Under ``--score`` or an
    optimisation the race's answer is the best verified one any member holds at the deadline
    (or the first proof), and the members share their best answers as they go
    (:class:`~puzzlesat.core.incumbent.Incumbent` in :attr:`Limits.shared`).

    Args:
        puzzle: the puzzle (a registered one, or any picklable Puzzle object).
        instance: a parsed instance.
        names: strategy names ``method[:variant]``; a name may repeat (each repeat gets the
            next seed).  Default: the puzzle's ``portfolio``.
        limits: ``timeout`` for the whole race, head start and process start-up included (None
            for no limit), the first member's ``seed`` and the ``options`` given for the race,
            checked here and handed to every member (each reads its own); ``workers`` is
            ignored: the members share ``backend.jobs`` cores by their declarations
            (:func:`share_cores`).  Default: ``Limits()``.
        backend: where the members run, the cores they share (default: the machine's, the
            cluster's with Ray), the memory cap and the losers' SIGTERM grace.  Default: local.
        stream: where a line per finished member goes when no progress callback is installed
            (:mod:`puzzlesat.core.progress`: the live status and those lines); None: only to
            that callback, if any.
        head_start: seconds the first member searches alone here first; 0 for none (every
            member in its own process from the start), and none under :data:`ANYTIME_MODES`
            or with Ray (every member runs on the cluster that was asked for).  A lone member
            searches here for all its time (on ``backend.jobs`` cores when its search splits),
            unless ``head_start`` is 0 or ``backend.memory_mb`` caps a child.
        certify: a folder where every member certifies the claims it makes
            (:func:`puzzlesat.core.certify.run`, files ``certify_prefix-LABEL-...``); None: no
            certificates.
        share: the members share their best answers as they go; False races them apart (the
            race still keeps the best answer any of them returns), to measure what sharing buys.

    Returns:
        A RaceResult; ``result`` has been verified in the parent.  The timeout counts from
        the head start, after connecting to Ray.

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
        kept = serving(puzzle, names, limits.options)
        if certify is not None:
            progress.line(
                f"c certify: every member certifies the claims it makes ({certify}); "
                "a claim the winner cannot certify is certified after the race by a member that can"
            )
        with tempfile.TemporaryDirectory(prefix="puzzlesat-race-") as folder:
            shared = Incumbent(Path(folder) / "best")
            policy = _Policy(puzzle, instance, limits, shared if share else None, certify, certify_prefix)
            return policy.run(kept, backend, head_start)


class _Policy:
    """One race: the head start, the members' processes, and the best answer any of them holds."""

    def __init__(
        self,
        puzzle: Puzzle,
        instance: Any,
        limits: Limits,
        shared: Incumbent | None,
        certify: str | None,
        certify_prefix: str,
    ) -> None:
        self.puzzle = puzzle
        self.instance = instance
        self.limits = limits
        self.shared = shared
        self.certify = certify
        self.certify_prefix = certify_prefix
        self.start = time.time()
        self.deadline = None if limits.timeout is None else self.start + limits.timeout
        self.head_seconds = 0.0

    def run(self, names: list[str], backend: Backend, head_start: float) -> RaceResult:
        members = label_members(names, self.limits.seed)
        head: Outcome | None = None
        raced: RaceResult | None = None
        anytime = [m for m in self.puzzle.requested_modes(self.limits.options) if m in ANYTIME_MODES]
        if len(members) == 1 and head_start > 0 and backend.name == "local" and backend.memory_mb is None:
            lone = self.alone(*members[0], backend)
            lone.winner = _role(self.puzzle, lone.result) != ""
            final = lone.result if lone.winner else None
            raced = self.answer(final, [lone], time.time(), lone.workers, None, backend.name, [])
        elif head_start > 0 and not anytime and backend.name == "local":  # Ray: every member on the cluster
            head = self.head_start(*members[0], head_start)
            self.head_seconds = time.time() - self.start
            role = _role(self.puzzle, head.result)
            if role == "win":
                head.winner = True
                skipped = [label for label, _, _ in members[1:]]
                raced = self.answer(head.result, [head], time.time(), 1, None, backend.name, skipped)
            elif role != "best":
                head = None  # nothing to keep: the table shows the members' own runs
            elif head.result.objective is not None and self.shared is not None:
                self.shared.offer(head.result.objective, head.result.solution)
        if raced is None:
            raced = self.processes(members, backend, head)
        if self.certify is not None and raced.winner is not None:
            self.certify_after(raced, names)
        return raced

    def certify_after(self, raced: RaceResult, names: list[str]) -> None:
        """A claim the winner left uncertified (a native search keeps no proof trace), proved
        again by the first member that writes DRAT proofs, in the time left; the answer's
        certificates become that run's when it makes the same claim, an ERROR when it contradicts it."""
        from puzzlesat.core import certify, run_strategy

        result, winner = raced.result, raced.winner
        assert winner is not None
        if all(cert.checked for cert in result.certificates):
            return
        provers = [n for n in names if n != winner.name and _writes_proofs(self.puzzle, n)]
        if not provers:
            progress.line(f"c certify: no member writes proofs; {winner.label}'s claim stays uncertified")
            return
        name = provers[0]
        left = None if self.deadline is None else self.deadline - time.time()
        if left is not None and left <= 0:
            progress.line(f"c certify: no time left to certify {winner.label}'s claim with {name}")
            return
        progress.line(f"c certify: {winner.label}'s claim is certified after the race by {name}")
        limits = replace(self.limits, timeout=left, workers=1, shared=None)
        again = certify.run(
            self.puzzle,
            self.instance,
            lambda: run_strategy(self.puzzle, self.instance, name, limits),
            self.certify,  # type: ignore[arg-type]
            prefix=self.prefix(name),
            timeout=left,
        )
        same = again.status is result.status and again.objective == result.objective
        if same:
            result.certificates = again.certificates
            raced.proof = basis_of(self.puzzle, result, winner.name) + f", the proof written by {name}"
        elif again.status in (Status.UNKNOWN, Status.ERROR):
            progress.line(f"c certify: {name} did not settle it ({again.status.value}: {again.message})")
        else:
            raced.result = Result(
                Status.ERROR,
                strategy=result.strategy,
                wall_time=result.wall_time,
                message=f"members disagree: {winner.label} {result.status.value}, {name} {again.status.value}",
            )
            raced.proof = ""

    def head_start(self, label: str, name: str, seed: int, seconds: float) -> Outcome:
        """The first member, alone in this process for ``seconds`` (less when the race ends sooner).

        The run is stopped by its own clock; one still busy :data:`HEAD_GRACE` seconds after
        it (a model still being built) is cut short and the race goes on without its answer.
        """
        from puzzlesat.core import run_strategy
        from puzzlesat.core.deadline import DeadlineExceeded, hard_deadline

        left = None if self.deadline is None else max(0.0, self.deadline - time.time())
        budget = seconds if left is None else min(seconds, left)
        limits = replace(self.limits, timeout=budget, seed=seed, workers=1, shared=self.member(label))
        progress.update(f"portfolio: {label} searches alone for {budget:.2f}s")

        def run() -> Result:
            return run_strategy(self.puzzle, self.instance, name, limits, overrun_stop=False)

        began = time.time()
        try:
            cut = budget + HEAD_GRACE if left is None else min(left, budget + HEAD_GRACE)
            with hard_deadline(max(cut, budget), f"{label} had its head start"):
                if self.certify is None:
                    result = run()
                else:
                    from puzzlesat.core import certify

                    result = certify.run(
                        self.puzzle, self.instance, run, self.certify, prefix=self.prefix(label), timeout=left
                    )
        except DeadlineExceeded as exc:
            result = Result(Status.UNKNOWN, strategy=name, message=str(exc))
        except Exception as exc:  # noqa: BLE001 - a member's failure is an outcome, never the race's
            result = Result(Status.ERROR, strategy=name, message=f"crashed: {type(exc).__name__}: {exc}")
        elapsed = time.time() - began
        progress.line(f"c {label}: {result.status.value} after its head start of {elapsed:.2f}s")
        return Outcome(f"{label} (head start)", name, seed, 1, result, "", time.time() - self.start, None, None)

    def alone(self, label: str, name: str, seed: int, backend: Backend) -> Outcome:
        """A lone member (the only one serving the request, or a portfolio of one), searched in
        this process on all the race's cores for all its time, as ``solve -s`` would: a race of
        one gains nothing from a process but its start-up.  (A memory cap asked for is a
        child's: with one, the lone member runs in a process.)"""
        from puzzlesat.core import run_strategy

        strat = self.puzzle.strategy(name)[0]
        cores = share_cores([(strat.engine, strat.parallel)], backend.jobs or len(os.sched_getaffinity(0)))[0]
        left = None if self.deadline is None else max(0.0, self.deadline - time.time())
        limits = replace(self.limits, timeout=left, seed=seed, workers=cores, shared=None)
        progress.line(f"c {label} searches alone in this process on {cores} core(s): nothing to race")

        def run() -> Result:
            return run_strategy(self.puzzle, self.instance, name, limits)

        try:
            if self.certify is None:
                result = run()
            else:
                from puzzlesat.core import certify

                result = certify.run(
                    self.puzzle, self.instance, run, self.certify, prefix=self.prefix(label), timeout=left
                )
        except Exception as exc:  # noqa: BLE001 - a member's failure is an outcome, never the race's
            result = Result(Status.ERROR, strategy=name, message=f"crashed: {type(exc).__name__}: {exc}")
        return Outcome(f"{label}{ALONE}", name, seed, cores, result, "", time.time() - self.start, None, None)

    def member(self, label: str) -> Incumbent | None:
        """The shared best answer as one member sees it (its offers signed with its label)."""
        return None if self.shared is None else self.shared.as_member(label)

    def prefix(self, label: str) -> str:
        """The certificate files' stem for one member."""
        return f"{self.certify_prefix}-{label}".replace("#", "-").replace(":", "-")

    def processes(self, members: list[tuple[str, str, int]], backend: Backend, head: Outcome | None) -> RaceResult:
        """Every member in its own process until one settles the question or the time is up."""
        puzzle, limits = self.puzzle, self.limits
        names = [name for _, name, _ in members]
        spec_puzzle = puzzle_spec(puzzle)
        sent = {name: strategy_spec(puzzle, name) for name in names}
        kinds = [(strat.engine, strat.parallel) for strat in (puzzle.strategy(name)[0] for name in names)]
        winner: Run | None = None
        best: Run | Outcome | None = head if head is not None and _role(puzzle, head.result) == "best" else None
        runs: list[Run] = []
        memory_mb = backend.memory_cap(len(names))
        with open_pool(puzzle, backend) as sup:
            jobs = backend.jobs or sup.cpus
            workers = share_cores(kinds, jobs)
            sup.fit(sum(workers))
            try:
                for (label, name, member_seed), count in zip(members, workers, strict=True):
                    spec = ChildSpec(
                        spec_puzzle,
                        self.instance,
                        name,
                        member_seed,
                        count,
                        dict(limits.options),
                        None,
                        self.deadline,
                        memory_mb,
                        sent[name],
                        self.member(label),
                        self.certify,
                        self.prefix(label),
                    )
                    runs.append(sup.start(label, spec))
                while sup.active and winner is None:
                    for run in sup.poll(0.2):
                        result = run.result
                        assert result is not None
                        progress.line(
                            f"c {run.label}: {describe(result, run.note)} after {time.time() - self.start:.2f}s"
                        )
                        role = _role(puzzle, result)
                        if role == "win":
                            winner = run
                            break
                        if role == "best" and (
                            best is None or best.result is None or _objective(result) < _objective(best.result)
                        ):
                            best = run
                            if result.objective is not None and self.shared is not None:
                                self.shared.offer(result.objective, result.solution)
                    progress.update(status_text(runs, self.start))
            finally:
                progress.end()
            decided = time.time()
            sup.close("stopped")
        outcomes = [] if head is None else [head]
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
                    None if run.finished is None else run.finished - self.start,
                    run.startup,
                    run.load,
                    False,
                    run.pid,
                    run.host,
                )
            )
        chosen: Run | Outcome | None = winner or best
        final = None
        if chosen is not None:
            index = 0 if chosen is head else next(i for i, run in enumerate(runs) if run is chosen) + (head is not None)
            outcomes[index].winner = True
            final = outcomes[index].result
        if winner is None:
            final = self.held(final, outcomes)
        return self.answer(final, outcomes, decided, jobs, memory_mb, backend.name, [])

    def held(self, best: Result | None, outcomes: list[Outcome]) -> Result | None:
        """The best answer shared by a member, when none of the answers in hand beats it (its
        member was stopped before it answered), verified here; else ``best``."""
        entry = None if self.shared is None else self.shared.best()
        if entry is None or (best is not None and _objective(best) <= entry.objective):
            return best
        status = Status.SOLVED if self.puzzle.optimisation else Status.FEASIBLE
        holder = next((o for o in outcomes if o.label.removesuffix(" (head start)") == entry.source), None)
        found = Result(
            status,
            entry.solution,
            objective=entry.objective,
            strategy=entry.source if holder is None else holder.name,
            message="its best answer, shared before it was stopped",
        )
        checked = check_result(self.puzzle, self.instance, found, self.limits.options)
        if checked.status is not status:
            return best
        for outcome in outcomes:
            outcome.winner = outcome is holder
        return checked

    def answer(
        self,
        final: Result | None,
        outcomes: list[Outcome],
        decided: float,
        jobs: int,
        memory_mb: int | None,
        backend: str,
        skipped: list[str],
    ) -> RaceResult:
        """The race's result: the winner's answer, else UNKNOWN (ERROR when every member failed)."""
        winner = next((o for o in outcomes if o.winner), None)
        if final is not None:
            if winner is not None:
                label = winner.label.removesuffix(" (head start)").removesuffix(ALONE)
                final.strategy = (final.strategy or winner.name) + label[len(winner.name) :]
        else:
            statuses = {o.result.status for o in outcomes}
            status = Status.ERROR if statuses == {Status.ERROR} else Status.UNKNOWN
            summary = ", ".join(f"{o.label}: {describe(o.result, o.note)}" for o in outcomes)
            final = Result(
                status,
                strategy="portfolio",
                wall_time=decided - self.start,
                message=f"no member answered ({summary})",
            )
        proof = basis_of(self.puzzle, final, winner.name if winner else "")
        return RaceResult(
            final, outcomes, decided - self.start, jobs, memory_mb, backend, proof, skipped, self.head_seconds
        )


def _writes_proofs(puzzle: Puzzle, name: str) -> bool:
    """True for a member whose claims come with DRAT proofs (a SAT strategy on a proof-logging solver)."""
    from puzzlesat.core import certify

    strat, variant = puzzle.strategy(name)
    return strat.engine == "sat" and (variant or "cadical195") in certify.PROOF_SOLVERS


def basis_of(puzzle: Puzzle, result: Result, name: str) -> str:
    """What the race's answer rests on, in a few words: its certificates, the winner's proof
    (:func:`puzzlesat.core.certify.basis`), or a verified solution."""
    from puzzlesat.core import certify

    if result.certificates:
        return "; ".join(f"{cert.kind}: {cert.status}, {cert.how}" for cert in result.certificates)
    scored = puzzle.optimisation or result.status is Status.OPTIMAL  # --score's optimum is a claim too
    claims = certify.claims(result.status.value, result.stats, scored, result.objective)
    if claims:
        return f"{', '.join(claims)}: {certify.basis(*certify.engine_of(puzzle, name), result.stats, result.message)}"
    if result.status is Status.FEASIBLE or (puzzle.optimisation and result.status is Status.SOLVED):
        return "a verified answer, not proven the best"
    if result.status is Status.SOLVED:
        return "a verified solution"
    return ""


def solve_portfolio(
    puzzle: Puzzle,
    instance: Any,
    members: str | Sequence[str] | None,
    limits: Limits,
    backend: Backend | None = None,
    *,
    stream: TextIO | None = None,
    certify: str | None = None,
    certify_prefix: str = "claim",
) -> Result:
    """``puzzlesat solve P FILE --portfolio [S1,S2,...]``: race, print the table, return the answer.

    Args:
        puzzle: the puzzle.
        instance: the parsed instance.
        members: the strategy names, or a comma list; empty or None for the puzzle's set.
        limits: timeout, first seed and the options given (see :func:`race`).
        backend: where the members run, the cores they share and their memory cap.
        stream: where progress and the table go (default stderr).
        certify, certify_prefix: as for :func:`race`.
    """
    stream = sys.stderr if stream is None else stream
    outcome = race(
        puzzle, instance, members, limits, backend, stream=stream, certify=certify, certify_prefix=certify_prefix
    )
    stream.write(format_table(outcome))
    stream.flush()
    result = outcome.result
    result.stats = {**result.stats, "portfolio_time": round(outcome.wall_time, 3)}
    return result

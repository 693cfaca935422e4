"""What the parent knows of each strategy run: :class:`Run` while it goes, :class:`Outcome` and
:class:`RaceResult` once a race is decided, and :func:`verified`, the parent's own check of an
answer.  Shared by the backends (:mod:`~puzzlesat.portfolio.supervisor`,
:mod:`~puzzlesat.portfolio.ray_backend`), the race policy and the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from puzzlesat.core import Puzzle, Result, Status, check_result
from puzzlesat.portfolio.child import ChildSpec

ALONE = " (alone)"  # a lone member's label suffix: it searched in the race's process, nothing raced


@dataclass
class Run:
    """One child process and what it reported; times are :func:`time.time` values.

    Attributes:
        label: the member's name in tables (``name`` or ``name#k`` for a repeat).
        spec: what the child was asked to do.
        spawned: when the parent started the process.
        started: when the child reached its entry point (interpreter and spawn bootstrap done).
        loaded: when the child had imported the puzzle and the strategy's module.
        finished: when the parent learnt the outcome.
        result: the verified Result (ERROR for a crash, UNKNOWN for a stopped child).
        note: ``""``, ``"stopped"``, ``"timeout"``, ``"memory"``, ``"crashed"`` or ``"interrupted"``.
        peak_rss_mb: the largest resident size of the child's tree seen by the parent.
        pid: the process running the strategy (the child; a Ray worker with ``--backend ray``).
        host: the machine it runs on.
    """

    label: str
    spec: ChildSpec
    process: Any = None
    conn: Any = None
    spawned: float = 0.0
    started: float | None = None
    loaded: float | None = None
    finished: float | None = None
    result: Result | None = None
    note: str = ""
    peak_rss_mb: float = 0.0
    pid: int | None = None
    host: str = ""

    @property
    def startup(self) -> float | None:
        """Seconds from spawn to the child's entry point."""
        return None if self.started is None else self.started - self.spawned

    @property
    def load(self) -> float | None:
        """Seconds the child spent importing the puzzle and strategy modules."""
        return None if self.loaded is None or self.started is None else self.loaded - self.started

    @property
    def elapsed(self) -> float | None:
        """Seconds from spawn to the outcome, as the parent saw it."""
        return None if self.finished is None else self.finished - self.spawned


def verified(puzzle: Puzzle, result: Any, run: Run) -> Result:
    """A member's answer checked again here; notes on the run why an ERROR came about."""
    if not isinstance(result, Result):
        return Result(Status.ERROR, strategy=run.spec.name, message=f"member sent {type(result).__name__}")
    checked = check_result(puzzle, run.spec.instance, result, run.spec.options)
    if checked.status is Status.ERROR and run.note == "":
        if checked.message.startswith("verifier"):
            run.note = "rejected"
        elif checked.message.startswith("out of memory"):
            run.note = "memory"
    return checked


@dataclass
class Outcome:
    """How one member of a race ended; times in seconds.

    Attributes:
        label: ``name`` or ``name#k``.
        name: the strategy ``method[:variant]``.
        seed: the seed it ran with.
        workers: the cores it was given.
        result: its verified Result.
        note: see :class:`Run`.
        elapsed: race start to outcome, as the parent saw it.
        startup: spawn to the child's entry point.
        load: the child's imports of puzzle and strategy.
        winner: True for the answer the race returned.
        pid: the process that ran it.
        host: the machine it ran on.
    """

    label: str
    name: str
    seed: int
    workers: int
    result: Result
    note: str
    elapsed: float | None
    startup: float | None
    load: float | None
    winner: bool = False
    pid: int | None = None
    host: str = ""


@dataclass
class RaceResult:
    """The race's answer and every member's outcome.

    Attributes:
        result: the winning Result (its ``strategy`` is the winner's label), or an UNKNOWN or
            ERROR result when no member answered.
        outcomes: one per member, in the order given.
        wall_time: seconds from the first spawn to the decision.
        jobs: the cores shared among the members.
        memory_mb: the per-child memory cap (None: none).
        backend: ``local`` or ``ray``.
        proof: what the answer rests on, in a few words (``no solution: exhausted search, 812
            nodes``, ``a verified solution``); "" without an answer.
        skipped: the members never started, because the head start settled the question.
        head_start: seconds the first member searched alone in the parent before the others
            started (its row is in ``outcomes`` when it answered); 0 for none.
    """

    result: Result
    outcomes: list[Outcome] = field(default_factory=list)
    wall_time: float = 0.0
    jobs: int = 1
    memory_mb: int | None = None
    backend: str = "local"
    proof: str = ""
    skipped: list[str] = field(default_factory=list)
    head_start: float = 0.0

    @property
    def winner(self) -> Outcome | None:
        """The winning member's outcome, if any."""
        return next((o for o in self.outcomes if o.winner), None)

"""The portfolio race: several strategies in separate processes, the first verified answer wins.

:class:`Supervisor` owns the child processes (multiprocessing *spawn*, one pipe each; see
:mod:`puzzlesat.portfolio.child`).  It watches each child's pipe *and* its exit, so a child
that dies on start-up or is killed by a signal is reported instead of leaving the parent
waiting; it enforces each child's hard deadline and memory cap, verifies every answer with
the puzzle's verifier, and stops children as whole process trees: SIGTERM to the child's
process group and its descendants, a short grace, then SIGKILL.  Ctrl-C in the parent
(KeyboardInterrupt) goes through the same path, and children kill themselves when the parent
dies (``PR_SET_PDEATHSIG`` and a watchdog thread).

:func:`race` applies the race policy on top: for decision puzzles the first SOLVED or
INFEASIBLE answer wins; for optimisation puzzles the first OPTIMAL (or INFEASIBLE) answer wins,
otherwise the best verified objective once every child has answered or the deadline passed.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing import connection
from typing import Any, Protocol, TextIO

import psutil

from puzzlesat.core import BackendUnavailable, Limits, Puzzle, PuzzlesatError, Result, Status, check_result
from puzzlesat.portfolio.child import ChildSpec, child_main

KEY_STATS = ("nodes", "conflicts", "branches", "decisions", "propagations", "variables", "clauses")
MIB = 1024 * 1024


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


def default_memory_mb(children: int) -> int:
    """A per-child memory cap: 80% of the machine's memory shared by the children, at least 512 MiB."""
    total = psutil.virtual_memory().total
    return max(512, int(total * 0.8 / max(1, children) / MIB))


def default_start_method() -> str:
    """``$PUZZLESAT_START_METHOD`` (``spawn`` or ``fork``), else ``spawn``."""
    return os.environ.get("PUZZLESAT_START_METHOD", "spawn") or "spawn"


def portfolio_names(puzzle: Puzzle, text: str | None) -> list[str]:
    """The members a ``--portfolio`` value names: a comma list, or the puzzle's default set.

    Raises:
        BackendUnavailable: an unknown strategy or variant, or an empty portfolio.
    """
    if text:
        names = [n.strip() for n in text.split(",") if n.strip()]
    elif puzzle.portfolio:
        names = list(puzzle.portfolio)
    else:
        names = [s.name for s in puzzle.strategies if not s.variants or s.default_variant]
    if not names:
        raise BackendUnavailable(f"no strategies to race for {puzzle.name}")
    for name in names:
        puzzle.strategy(name)  # raises for unknown names before any process starts
    return names


def signal_name(code: int) -> str:
    """``SIGSEGV`` for a negative exit code -11, ``exit code 3`` for 3."""
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


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


class Supervisor:
    """Starts strategy runs in child processes and watches them.

    Use as a context manager: leaving it (normally, on an exception or on Ctrl-C) stops every
    child that is still running and reaps every process, so none is left behind.

    Args:
        puzzle: the puzzle, for verifying answers in the parent (against each run's instance).
        grace: seconds between SIGTERM and SIGKILL when stopping a child.
        answer_grace: seconds a child may overrun its timeout before it is killed.
        load_allowance: seconds allowed for start-up and imports in a run with a relative timeout.
        start_method: ``"spawn"`` (a fresh interpreter per child, the default) or ``"fork"``
            (no interpreter start-up; used only while this process runs a single thread,
            Python or native, since forking a threaded process can deadlock; else spawn).
    """

    def __init__(
        self,
        puzzle: Puzzle,
        grace: float = 0.5,
        answer_grace: float = 2.0,
        load_allowance: float = 60.0,
        start_method: str = "spawn",
    ) -> None:
        self.puzzle = puzzle
        self.grace = grace
        self.answer_grace = answer_grace
        self.load_allowance = load_allowance
        if start_method == "fork" and (threading.active_count() > 1 or psutil.Process().num_threads() > 1):
            start_method = "spawn"  # threads (Python or native) exist: forking could deadlock
        if start_method not in ("spawn", "fork"):
            raise ValueError(f"start_method must be 'spawn' or 'fork', got {start_method!r}")
        self.start_method = start_method
        self.ctx: Any = multiprocessing.get_context(start_method)
        self.active: list[Run] = []
        self.exiting: list[Run] = []
        self._last_rss_check = 0.0
        from multiprocessing import resource_tracker

        tracker = getattr(resource_tracker, "_resource_tracker", None)
        self._tracker_was_running = tracker is None or getattr(tracker, "_pid", None) is not None

    def __enter__(self) -> Supervisor:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        note = "interrupted" if exc_type is KeyboardInterrupt else "stopped"
        self.close(note)

    # -- starting -------------------------------------------------------------------------

    def start(self, label: str, spec: ChildSpec) -> Run:
        """Spawn one child for ``spec``; returns its Run at once."""
        reader, writer = self.ctx.Pipe(duplex=False)
        run = Run(label, spec)
        process = self.ctx.Process(target=child_main, args=(writer, spec), name=f"puzzlesat:{label}", daemon=False)
        run.process, run.conn = process, reader
        if self.start_method == "fork":  # a forked child would print our unflushed buffers again
            sys.stdout.flush()
            sys.stderr.flush()
        run.spawned = time.time()
        self.active.append(run)  # before start: a Ctrl-C right after the fork still finds it
        try:
            with _without_main(not _needs_main(spec)):
                process.start()
        except BaseException:
            if process.pid is None:
                self.active.remove(run)
                reader.close()
            raise
        finally:
            writer.close()
        run.pid = process.pid
        return run

    @property
    def cpus(self) -> int:
        """The cores of this machine."""
        return os.cpu_count() or 1

    def fit(self, cpus: int) -> None:
        """Runs that start together and want ``cpus`` cores in all: local children share the cores
        through the OS scheduler, so there is nothing to do (see the Ray backend's ``fit``)."""

    def hard_deadline(self, run: Run) -> float | None:
        """When the parent kills a run that has not answered."""
        spec = run.spec
        ends = []
        if spec.deadline is not None:
            ends.append(spec.deadline + self.answer_grace)
        if spec.timeout is not None:
            base = run.loaded if run.loaded is not None else run.spawned + self.load_allowance
            ends.append(base + spec.timeout + max(self.answer_grace, 0.05 * spec.timeout))
        return min(ends) if ends else None

    # -- watching -------------------------------------------------------------------------

    def poll(self, timeout: float) -> list[Run]:
        """Wait up to ``timeout`` seconds; return the runs whose outcome became known."""
        self._reap_exiting()
        if not self.active:
            return []
        now = time.time()
        deadlines = [d for d in (self.hard_deadline(r) for r in self.active) if d is not None]
        if deadlines:
            timeout = min(timeout, max(0.0, min(deadlines) - now))
        handles: dict[Any, Run] = {}
        for run in self.active:
            handles[run.conn] = run
            handles[run.process.sentinel] = run
        ready = connection.wait(list(handles), timeout)
        done: list[Run] = []
        for run in {id(handles[h]): handles[h] for h in ready}.values():
            self._drain(run)
            if run.result is None and not run.process.is_alive():
                self._drain(run)
                if run.result is None:
                    self._crashed(run)
            if run.result is not None:
                done.append(run)
        for run in self.active:
            if run.result is None and run not in done:
                if not run.process.is_alive():
                    self._drain(run)
                    if run.result is None:
                        self._crashed(run)
                    done.append(run)
        now = time.time()
        for run in self.active:
            deadline = self.hard_deadline(run)
            if run.result is None and deadline is not None and now >= deadline:
                self._kill([run])
                run.note = "timeout"
                run.result = Result(
                    Status.UNKNOWN,
                    strategy=run.spec.name,
                    message=f"killed: no answer {now - run.spawned:.1f}s after spawn",
                )
                done.append(run)
        if now - self._last_rss_check >= 0.25:
            self._last_rss_check = now
            for run in self.active:
                if run.result is None and self._over_memory(run):
                    self._kill([run])
                    run.note = "memory"
                    run.result = Result(
                        Status.ERROR,
                        strategy=run.spec.name,
                        message=f"memory cap exceeded: resident {run.peak_rss_mb:.0f} MiB, "
                        f"cap {run.spec.memory_mb} MiB",
                    )
                    done.append(run)
        for run in done:
            if run in self.active:
                run.finished = run.finished or time.time()
                self.active.remove(run)
                self.exiting.append(run)
        return done

    def _drain(self, run: Run) -> None:
        """Read every message the child has sent so far."""
        try:
            while run.result is None and run.conn.poll():
                message = run.conn.recv()
                kind = message[0]
                if kind == "started":
                    run.started = message[1]
                elif kind == "loaded":
                    run.loaded = message[1]
                elif kind == "result":
                    run.finished = time.time()
                    run.result = self._verified(message[1], run)
        except (EOFError, OSError):
            return

    def _verified(self, result: Any, run: Run) -> Result:
        return verified(self.puzzle, result, run)

    def _crashed(self, run: Run) -> None:
        run.process.join(0.5)
        code = run.process.exitcode
        what = signal_name(code) if code is not None else "lost contact"
        hint = " (out of memory?)" if code == -signal.SIGKILL else ""
        run.note = "crashed"
        run.result = Result(Status.ERROR, strategy=run.spec.name, message=f"child died: {what}{hint}")
        run.finished = time.time()

    def _over_memory(self, run: Run) -> bool:
        """Watch the tree's resident memory as a backstop to the child's RLIMIT_DATA."""
        try:
            proc = psutil.Process(run.process.pid)
            rss = proc.memory_info().rss
            for child in proc.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    rss += child.memory_info().rss
        except psutil.Error:
            return False
        run.peak_rss_mb = max(run.peak_rss_mb, rss / MIB)
        cap = run.spec.memory_mb
        # RSS also counts shared libraries that RLIMIT_DATA does not: leave them room
        return cap is not None and rss > (1.5 * cap + 256) * MIB

    # -- stopping -------------------------------------------------------------------------

    def stop(self, runs: Sequence[Run], note: str, message: str) -> None:
        """Stop runs that have not answered; their result becomes UNKNOWN with ``message``."""
        runs = [r for r in runs if r in self.active]
        self._kill(runs)
        now = time.time()
        for run in runs:
            if run.result is None:
                self._drain(run)
            if run.result is None:
                run.note = note
                run.result = Result(Status.UNKNOWN, strategy=run.spec.name, message=message)
            run.finished = run.finished or now
            self.active.remove(run)
            self.exiting.append(run)

    def _kill(self, runs: Sequence[Run]) -> None:
        """SIGTERM each run's process group and descendants, a grace, then SIGKILL; reap."""
        trees: list[tuple[Run, list[psutil.Process]]] = []
        for run in runs:
            if run.process.pid is None or run.process.exitcode is not None:
                continue
            try:
                descendants = psutil.Process(run.process.pid).children(recursive=True)
            except psutil.Error:
                descendants = []
            trees.append((run, descendants))
            _signal_tree(run.process.pid, descendants, signal.SIGTERM)
        end = time.monotonic() + self.grace
        for run, _ in trees:
            run.process.join(max(0.0, end - time.monotonic()))
        leftovers: list[psutil.Process] = []
        for run, descendants in trees:
            if run.process.exitcode is None:
                _signal_tree(run.process.pid, descendants, signal.SIGKILL)
            else:
                for proc in descendants:
                    with contextlib.suppress(psutil.Error):
                        proc.kill()
            leftovers.extend(descendants)
        for run, _ in trees:
            run.process.join(5.0)
        with contextlib.suppress(psutil.Error):
            psutil.wait_procs(leftovers, timeout=1.0)

    def _reap_exiting(self) -> None:
        for run in list(self.exiting):
            if run.process.exitcode is not None or not run.process.is_alive():
                self._release(run)
                self.exiting.remove(run)

    def _release(self, run: Run) -> None:
        run.process.join(1.0)
        with contextlib.suppress(OSError, ValueError):
            run.conn.close()
        with contextlib.suppress(ValueError):
            run.process.close()

    def close(self, note: str = "stopped") -> None:
        """Stop every child still running, reap all processes, and stop the resource tracker we started."""
        message = "interrupted (Ctrl-C)" if note == "interrupted" else "stopped: the race was decided"
        self.stop(list(self.active), note, message)
        # children that answered exit on their own; give them a moment, then force them
        end = time.monotonic() + max(self.grace, 1.0)
        for run in self.exiting:
            run.process.join(max(0.0, end - time.monotonic()))
        self._kill([r for r in self.exiting if r.process.exitcode is None])
        for run in self.exiting:
            self._release(run)
        self.exiting.clear()
        if not self._tracker_was_running:
            from multiprocessing import resource_tracker

            with contextlib.suppress(Exception):
                resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]


def _needs_main(spec: ChildSpec) -> bool:
    """True when the puzzle travels pickled and its functions live in the parent's ``__main__``."""
    return isinstance(spec.puzzle, Puzzle) and getattr(spec.puzzle.parse, "__module__", "") == "__main__"


@contextlib.contextmanager
def _without_main(active: bool) -> Iterator[None]:
    """Spawn a child without re-running the parent's ``__main__`` module in it.

    multiprocessing's spawn imports the parent's main script in every child, which costs
    start-up time and breaks for scripts without a ``__main__`` guard or read from stdin.
    The child's entry point lives in this package, so the main module is not needed.
    """
    if not active:
        yield
        return
    from multiprocessing import spawn

    original = spawn.get_preparation_data

    def prepare(name: str) -> dict[str, Any]:
        data = original(name)
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
        return data

    spawn.get_preparation_data = prepare  # type: ignore[assignment]
    try:
        yield
    finally:
        spawn.get_preparation_data = original  # type: ignore[assignment]


def verified(puzzle: Puzzle, result: Any, run: Run) -> Result:
    """A member's answer checked again here; notes on the run why an ERROR came about."""
    if not isinstance(result, Result):
        return Result(Status.ERROR, strategy=run.spec.name, message=f"member sent {type(result).__name__}")
    checked = check_result(puzzle, run.spec.instance, result)
    if checked.status is Status.ERROR and run.note == "":
        if checked.message.startswith("verifier"):
            run.note = "rejected"
        elif checked.message.startswith("out of memory"):
            run.note = "memory"
    return checked


def _signal_tree(pid: int, descendants: Sequence[psutil.Process], sig: int) -> None:
    with contextlib.suppress(OSError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    for proc in descendants:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)


# -- backends ------------------------------------------------------------------------------

BACKENDS = ("local", "ray")


class Pool(Protocol):
    """What :func:`race` and :func:`~puzzlesat.portfolio.compare.compare` need from a backend:
    :class:`Supervisor` (local processes) or :class:`~puzzlesat.portfolio.ray_backend.RaySupervisor`."""

    active: list[Run]

    @property
    def cpus(self) -> int:
        """The cores available to the runs."""

    def start(self, label: str, spec: ChildSpec) -> Run:
        """Start one run."""

    def fit(self, cpus: int) -> None:
        """The runs about to start want ``cpus`` cores in all and must all start at once."""

    def poll(self, timeout: float) -> list[Run]:
        """Wait up to ``timeout`` seconds; the runs whose outcome became known."""

    def close(self, note: str = "stopped") -> None:
        """Stop every run still going; nothing is left behind."""

    def __enter__(self) -> Pool:
        """Itself."""

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        """Close (``interrupted`` on Ctrl-C)."""


def open_pool(
    puzzle: Puzzle,
    backend: str = "local",
    address: str | None = None,
    *,
    grace: float = 0.5,
    start_method: str | None = None,
    stream: TextIO | None = None,
) -> Pool:
    """The backend that runs strategies: ``local`` processes or ``ray`` tasks.

    Args:
        puzzle: the puzzle (answers are verified against it).
        backend: ``local`` or ``ray``.
        address: a Ray cluster's ``HOST:PORT``; None starts a local Ray instance (``ray`` only).
        grace: seconds between SIGTERM and SIGKILL when stopping a local child.
        start_method: ``spawn`` or ``fork`` for local children; default :func:`default_start_method`.
        stream: where the Ray backend reports how long connecting took; None for silence.

    Raises:
        PuzzlesatError: an unknown backend, ``address`` without ``ray``, or Ray not installed.
    """
    if backend == "ray":
        from puzzlesat.portfolio.ray_backend import RaySupervisor

        return RaySupervisor(puzzle, address=address, stream=stream)
    if backend != "local":
        raise PuzzlesatError(f"unknown backend {backend!r}; expected one of: {', '.join(BACKENDS)}")
    if address:
        raise PuzzlesatError("--address needs --backend ray")
    return Supervisor(puzzle, grace=grace, start_method=start_method or default_start_method())


# -- the race ------------------------------------------------------------------------------


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
    """

    result: Result
    outcomes: list[Outcome] = field(default_factory=list)
    wall_time: float = 0.0
    jobs: int = 1
    memory_mb: int | None = None
    backend: str = "local"

    @property
    def winner(self) -> Outcome | None:
        """The winning member's outcome, if any."""
        return next((o for o in self.outcomes if o.winner), None)


def _better(a: Result, b: Result | None) -> bool:
    if b is None:
        return True
    inf = math.inf
    return (a.objective if a.objective is not None else inf) < (b.objective if b.objective is not None else inf)


def race(
    puzzle: Puzzle,
    instance: Any,
    names: Sequence[str] | None = None,
    *,
    timeout: float | None = None,
    seed: int = 0,
    jobs: int | None = None,
    options: dict[str, Any] | None = None,
    memory_mb: int | None = None,
    grace: float = 0.5,
    stream: TextIO | None = None,
    start_method: str | None = None,
    backend: str = "local",
    address: str | None = None,
) -> RaceResult:
    """Race strategies on one instance, each in its own process; the first verified answer wins.

    Args:
        puzzle: the puzzle (a registered one, or any picklable Puzzle object).
        instance: a parsed instance.
        names: strategy names ``method[:variant]``; a name may repeat (each repeat gets the
            next seed).  Default: the puzzle's ``portfolio``.
        timeout: seconds for the whole race, start-up included; None for no limit.
        seed: the first member's seed.
        jobs: cores shared among the members (CP-SAT members get the spare ones as
            ``num_workers``); default: the machine's CPU count (the cluster's with Ray).
        options: the puzzle's solve options, handed to every strategy.
        memory_mb: per-child cap in MiB; default :func:`default_memory_mb` (none with Ray,
            whose memory monitor stops tasks that exhaust a node).
        grace: seconds between SIGTERM and SIGKILL for the losers.
        stream: where the live status line goes (if a terminal) or one line per finished
            member; None for silence.
        start_method: see :class:`Supervisor`; default :func:`default_start_method`.
        backend: ``local`` (child processes) or ``ray`` (one Ray task per member; see
            :mod:`puzzlesat.portfolio.ray_backend`).
        address: the Ray cluster to join; None starts a local Ray instance.

    Returns:
        A RaceResult; ``result`` has been verified in the parent.  The timeout counts from
        the first member's start, after connecting to Ray.

    Raises:
        BackendUnavailable: an unknown strategy name (before any process starts).
        PuzzlesatError: an unknown backend, or Ray not installed.
        KeyboardInterrupt: re-raised after every child has been stopped.
    """
    names = list(names) if names else portfolio_names(puzzle, None)
    for name in names:
        puzzle.strategy(name)
    members = label_members(names, seed)
    spec_puzzle = puzzle_spec(puzzle)
    line = StatusLine(stream)
    winner: Run | None = None
    best: Run | None = None
    runs: list[Run] = []
    with open_pool(puzzle, backend, address, grace=grace, start_method=start_method, stream=stream) as sup:
        jobs = jobs or sup.cpus
        if backend == "local":
            memory_mb = memory_mb or default_memory_mb(len(names))
        workers = share_cores(names, jobs)
        sup.fit(sum(workers))
        start = time.time()
        deadline = None if timeout is None else start + timeout
        try:
            for (label, name, member_seed), count in zip(members, workers, strict=True):
                spec = ChildSpec(
                    spec_puzzle,
                    instance,
                    name,
                    member_seed,
                    count,
                    dict(options or {}),
                    None,
                    deadline,
                    memory_mb,
                    os.getpid(),
                )
                runs.append(sup.start(label, spec))
            while sup.active and winner is None:
                for run in sup.poll(0.2):
                    result = run.result
                    assert result is not None
                    line.note(f"{run.label}: {_describe(result, run.note)} after {time.time() - start:.2f}s")
                    if result.status is Status.INFEASIBLE or result.status is Status.OPTIMAL:
                        winner = run
                    elif result.status is Status.SOLVED:
                        if not puzzle.optimisation:
                            winner = run
                        elif best is None or _better(result, best.result):
                            best = run
                    if winner is not None:
                        break
                line.update(_status_text(runs, start))
            if winner is None:
                winner = best
        finally:
            line.clear()
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
        summary = ", ".join(f"{o.label}: {_describe(o.result, o.note)}" for o in outcomes)
        final = Result(
            status, strategy="portfolio", wall_time=decided - start, message=f"no member answered ({summary})"
        )
    return RaceResult(final, outcomes, decided - start, jobs, memory_mb, backend)


def puzzle_spec(puzzle: Puzzle) -> str | Puzzle:
    """How a puzzle travels to a child: by name when registered, else pickled whole."""
    from puzzlesat.core import PUZZLE_NAMES, get_puzzle

    if puzzle.name in PUZZLE_NAMES:
        with contextlib.suppress(Exception):
            if get_puzzle(puzzle.name) is puzzle:
                return puzzle.name
    return puzzle


def _describe(result: Result, note: str) -> str:
    if note in ("stopped", "interrupted", "timeout"):
        return note
    return result.status.value


def _status_text(runs: Sequence[Run], start: float) -> str:
    parts = []
    for run in runs:
        if run.result is not None:
            state = _describe(run.result, run.note)
        elif run.loaded is not None:
            state = "solving"
        elif run.started is not None:
            state = "loading"
        else:
            state = "starting"
        parts.append(f"{run.label}: {state}")
    return f"portfolio {time.time() - start:6.1f}s | " + " | ".join(parts)


class StatusLine:
    """A live line on a terminal (redrawn in place), or one plain line per event otherwise."""

    def __init__(self, stream: TextIO | None, interval: float = 0.5) -> None:
        self.stream = stream
        self.live = bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())
        self.interval = interval
        self._last = 0.0
        self._shown = False

    def update(self, text: str) -> None:
        """Redraw the live line (terminals only, at most every ``interval`` seconds)."""
        if not self.live or self.stream is None or time.monotonic() - self._last < self.interval:
            return
        self._last = time.monotonic()
        width = _columns() - 1
        self.stream.write("\r" + text[:width] + "\x1b[K")
        self.stream.flush()
        self._shown = True

    def note(self, text: str) -> None:
        """A line that stays: printed above the live line."""
        if self.stream is None:
            return
        self.clear()
        self.stream.write(f"c {text}\n")
        self.stream.flush()
        self._last = 0.0

    def clear(self) -> None:
        """Erase the live line."""
        if self._shown and self.stream is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def _columns() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError):
        return 100


def compact(value: Any) -> str:
    """Short numbers for tables.

    >>> compact(1234567), compact(98765), compact(12), compact(0.5)
    ('1.2M', '98.8k', '12', '0.5')
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if abs(value) >= 1e6:
        return f"{value / 1e6:.1f}M"
    if abs(value) >= 1e4:
        return f"{value / 1e3:.1f}k"
    return f"{value:g}" if isinstance(value, float) else str(value)


def key_stats(stats: dict[str, Any], limit: int = 3) -> str:
    """The most telling statistics, ``k=v`` separated by spaces."""
    picked = [f"{k}={compact(stats[k])}" for k in KEY_STATS if k in stats][:limit]
    return " ".join(picked)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def format_table(race_result: RaceResult) -> str:
    """The end-of-race table: one row per member, the winner marked ``*``."""
    header: tuple[str, ...] = (
        "",
        "strategy",
        "seed",
        "cores",
        "status",
        "solve",
        "elapsed",
        "start-up",
        "import",
        "stats",
    )
    remote = race_result.backend != "local"
    if remote:
        header = (*header[:-1], "host", "stats")
    rows = [header]
    for o in race_result.outcomes:
        status = o.result.status.value
        if o.note in ("stopped", "timeout", "interrupted", "memory", "crashed", "rejected"):
            status += f" ({o.note})"
        if o.result.objective is not None:
            status += f" obj={o.result.objective}"
        solve = o.result.wall_time if o.result.wall_time else None
        stats = key_stats(o.result.stats)
        if o.result.status is Status.ERROR and o.result.message:
            stats = (stats + "  " if stats else "") + o.result.message[:80]
        row = (
            "*" if o.winner else "",
            o.label,
            str(o.seed),
            str(o.workers),
            status,
            _seconds(solve),
            _seconds(o.elapsed),
            _seconds(o.startup),
            _seconds(o.load),
        )
        rows.append((*row, o.host, stats) if remote else (*row, stats))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    startups = [o.startup for o in race_result.outcomes if o.startup is not None]
    cap = "no memory cap" if race_result.memory_mb is None else f"memory cap {race_result.memory_mb} MiB/child"
    where = "" if race_result.backend == "local" else f" ({race_result.backend})"
    summary = (
        f"portfolio: {len(race_result.outcomes)} members on {race_result.jobs} cores{where}, "
        f"{cap}, decided in {race_result.wall_time:.2f}s"
    )
    if startups:
        what = "process" if race_result.backend == "local" else "task"
        summary += f", {what} start-up {min(startups):.2f}-{max(startups):.2f}s"
    return "\n".join(["c " + summary, *("c " + line for line in lines)]) + "\n"


def solve_portfolio(
    puzzle: Puzzle,
    instance: Any,
    members: str | None,
    limits: Limits,
    jobs: int | None,
    memory_mb: int | None,
    stream: TextIO | None = None,
    backend: str = "local",
    address: str | None = None,
) -> Result:
    """``puzzlesat solve P FILE --portfolio [S1,S2,...]``: race, print the table, return the answer.

    Args:
        puzzle: the puzzle.
        instance: the parsed instance.
        members: the ``--portfolio`` value: a comma list, or empty/None for the puzzle's set.
        limits: timeout, first seed and the puzzle's options (``workers`` is ignored: the
            cores are shared out from ``jobs``).
        jobs: cores to share; None for all.
        memory_mb: per-child cap in MiB; None for the default.
        stream: where progress and the table go (default stderr).
        backend: ``local`` or ``ray``.
        address: the Ray cluster's ``HOST:PORT``; None starts a local Ray instance.
    """
    stream = sys.stderr if stream is None else stream
    names = portfolio_names(puzzle, members)
    outcome = race(
        puzzle,
        instance,
        names,
        timeout=limits.timeout,
        seed=limits.seed,
        jobs=jobs,
        options=limits.options,
        memory_mb=memory_mb,
        stream=stream,
        backend=backend,
        address=address,
    )
    stream.write(format_table(outcome))
    stream.flush()
    result = outcome.result
    result.stats = {**result.stats, "portfolio_time": round(outcome.wall_time, 3)}
    return result

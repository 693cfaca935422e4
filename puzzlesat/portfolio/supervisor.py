"""Local child processes for the portfolio and ``compare``: start them, watch them, stop them.

:class:`Supervisor` starts each strategy run with :func:`puzzlesat.core.processes.start` (its
own process group, dying with the parent, a memory cap; the child runs
:func:`puzzlesat.portfolio.child.child_main` and reports through a pipe).  It watches each
child's pipe *and* its exit, so a child that dies on start-up or is killed by a signal is
reported instead of leaving the parent waiting; it enforces each child's hard deadline and
memory cap, verifies every answer with the puzzle's verifier, and stops children as whole
process trees (:func:`puzzlesat.core.processes.stop_trees`).  Ctrl-C in the parent
(KeyboardInterrupt) goes through the same path.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Sequence
from multiprocessing import connection
from typing import Any

import psutil

from puzzlesat.core import Puzzle, Result, Status, Strategy, processes, registry
from puzzlesat.portfolio.child import ChildSpec, child_main
from puzzlesat.portfolio.runs import Run, verified

MIB = 1024 * 1024


def signal_name(code: int) -> str:
    """``SIGSEGV`` for a negative exit code -11, ``exit code 3`` for 3."""
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


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
        reader, writer = multiprocessing.Pipe(duplex=False)
        run = Run(label, spec, conn=reader, spawned=time.time())
        try:
            run.process = processes.start(
                child_main,
                (writer, spec),
                name=f"puzzlesat:{label}",
                method=self.start_method,
                memory_mb=spec.memory_mb,
                keep_main=_needs_main(spec),
            )
        except BaseException:
            reader.close()
            raise
        finally:
            writer.close()
        run.pid = run.process.pid
        self.active.append(run)
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
        """Stop each run's process tree (SIGTERM, a grace, SIGKILL) and reap it."""
        processes.stop_trees([run.process for run in runs], self.grace)

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
    """True when the puzzle or the strategy travels pickled and has functions in the parent's
    ``__main__`` (a script's top-level ``solve``): the child then runs that script again,
    as multiprocessing does, to find them."""
    sent = [obj for obj in (spec.puzzle, spec.strategy) if isinstance(obj, Puzzle | Strategy)]
    return any(registry.defined_in_main(obj) for obj in sent)

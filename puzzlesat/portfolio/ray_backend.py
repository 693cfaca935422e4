"""Ray as the engine of ``compare`` and ``solve --portfolio`` (``--backend ray [--address ADDR]``).

Each strategy run is one Ray task, :func:`ray_task`, with its own ``num_cpus`` (the run's
CP-SAT ``num_workers``).  The task is a streaming generator that reports like a local child
(:mod:`puzzlesat.portfolio.child`, whose loading and guarded running it reuses):
``("started", pid, host, node_id, t)``, ``("loaded", t)``, then ``("result", Result)``; its answer
has been verified in the worker and :class:`RaySupervisor` verifies it again in the driver.

- Tasks run with ``max_calls=1`` (a fresh worker process per run, as isolated as a local
  child: no solver state, signal handler or memory cap survives into the next run) and
  ``max_retries=0``: a worker that dies (``os._exit``, a segfault, Ray's memory monitor) is
  reported as an ERROR once, never run again.
- Stopping a run is ``ray.cancel(ref, force=True)``, which kills the worker process (Ray
  starts each worker in its own process group, so the strategy's own child processes go with
  it).  For workers on the driver's node the supervisor then waits until the process is
  really gone.
- Timeouts are enforced by the driver: a run that has not answered ``timeout`` seconds after
  loading its strategy (plus a grace) is cancelled.  Runs still waiting for a free CPU are
  never cancelled by their timeout, only by a race's overall deadline.
- :meth:`RaySupervisor.fit` lets the members of a race start together on a cluster with
  fewer CPUs than they ask for: their ``num_cpus`` are scaled down (fractional CPUs) and
  spread over the nodes, the way local children share the cores.

``import ray`` happens only when ``--backend ray`` is asked for; without the ``ray`` extra
:func:`~puzzlesat.core.ray.import_ray` raises a one-line :class:`~puzzlesat.core.PuzzlesatError`.
Without an address :func:`~puzzlesat.core.ray.connect` starts a local Ray instance (which takes seconds); with
one it joins the running cluster, whose nodes must all have puzzlesat installed.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import socket
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import psutil

from puzzlesat.core import Puzzle, Result, Status, progress
from puzzlesat.core.processes import cap_memory
from puzzlesat.core.ray import connect, import_ray
from puzzlesat.portfolio.child import ChildSpec, Loaded, load_guarded, run_guarded
from puzzlesat.portfolio.runs import Run, verified


def ray_task(spec: ChildSpec) -> Iterator[tuple[Any, ...]]:
    """One strategy run inside a Ray worker; see the module docstring for what it yields."""
    import ray

    cap_memory(spec.memory_mb)
    yield ("started", os.getpid(), socket.gethostname(), ray.get_runtime_context().get_node_id(), time.time())
    loaded = load_guarded(spec)
    if isinstance(loaded, Loaded):
        yield ("loaded", time.time())
        result = run_guarded(spec, loaded)
    else:
        result = loaded
    try:
        pickle.dumps(result)
    except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable solution
        result = Result(Status.ERROR, strategy=spec.name, message=f"cannot send the result: {exc}")
    yield ("result", result)


_REMOTE: dict[str, Any] = {}


def _remote_task(ray: ModuleType) -> Any:
    """:func:`ray_task` as a Ray remote function (made once, on first use)."""
    if "task" not in _REMOTE:
        _REMOTE["task"] = ray.remote(max_retries=0, max_calls=1, num_returns="streaming")(ray_task)
    return _REMOTE["task"]


@dataclass
class RayRun(Run):
    """A :class:`~puzzlesat.portfolio.runs.Run` whose ``process`` is the task's generator.

    ``spawned`` is when the task was submitted; ``started`` and ``loaded`` are when the
    driver learnt of them (driver clock: the nodes' clocks may differ).

    Attributes:
        node_id: the Ray node the task runs on.
        cancelled: True once ``ray.cancel`` was called on it.
        worker_started: the task's start by the worker's clock.
    """

    node_id: str = ""
    cancelled: bool = False
    worker_started: float | None = None

    @property
    def elapsed(self) -> float | None:
        """Seconds from the task's start on a worker to the outcome (time queued for a CPU excluded)."""
        if self.finished is None:
            return None
        return self.finished - (self.started if self.started is not None else self.spawned)


class RaySupervisor:
    """Runs strategies as Ray tasks; the Ray counterpart of :class:`~puzzlesat.portfolio.supervisor.Supervisor`.

    Use as a context manager: leaving it cancels every task still running (forcefully: the
    workers are killed) and shuts Ray down if this supervisor started it.

    Args:
        puzzle: the puzzle, for verifying answers in the driver.
        address: the cluster's ``HOST:PORT``; None starts (or reuses) a local Ray instance.
        num_cpus: CPUs of a local instance; default: this machine's.
        answer_grace: seconds a task may overrun its timeout before it is cancelled.
        load_allowance: seconds allowed for worker start-up and imports in a run with a
            relative timeout.
    """

    def __init__(
        self,
        puzzle: Puzzle,
        address: str | None = None,
        num_cpus: int | None = None,
        answer_grace: float = 2.0,
        load_allowance: float = 60.0,
    ) -> None:
        self.ray = import_ray()
        self.puzzle = puzzle
        self.answer_grace = answer_grace
        self.load_allowance = load_allowance
        began = time.monotonic()
        self._owned = connect(address, num_cpus)
        self.connect_time = time.monotonic() - began
        self.remote = _remote_task(self.ray)
        self.node_id = self.ray.get_runtime_context().get_node_id()
        nodes = [n for n in self.ray.nodes() if n.get("Alive")]
        self._cpus = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self.node_cpus = max([float(n.get("Resources", {}).get("CPU", 0)) for n in nodes] + [1.0])
        self.scale = 1.0
        self.spread = False
        self.active: list[Run] = []
        self.cancelled: list[RayRun] = []
        how = "joined the Ray cluster at " + address if address else "started a local Ray instance"
        if not self._owned:
            how = "using the running Ray session"
        progress.line(
            f"c ray: {how} ({len(nodes)} node{'s' if len(nodes) != 1 else ''}, {self._cpus} CPUs) "
            f"in {self.connect_time:.2f}s"
        )

    def __enter__(self) -> RaySupervisor:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close("interrupted" if exc_type is KeyboardInterrupt else "stopped")

    @property
    def cpus(self) -> int:
        """The cluster's CPUs."""
        return self._cpus

    def fit(self, cpus: int) -> None:
        """The runs about to start (a race's members) want ``cpus`` in all and must start at once:
        scale their ``num_cpus`` down to fit the cluster and spread them over the nodes."""
        self.scale = min(1.0, self._cpus / max(1, cpus))
        self.spread = True

    def num_cpus(self, spec: ChildSpec) -> float:
        """The CPUs a run asks Ray for: its workers (at most one node's CPUs), scaled by :meth:`fit`."""
        wanted = min(float(spec.workers), self.node_cpus) * self.scale
        return max(0.01, math.floor(wanted * 10_000) / 10_000)  # Ray counts 1e-4 CPU: round down to fit

    # -- starting -------------------------------------------------------------------------

    def start(self, label: str, spec: ChildSpec) -> Run:
        """Submit one task for ``spec``; returns its run at once."""
        options: dict[str, Any] = {"num_cpus": self.num_cpus(spec)}
        if self.spread:
            options["scheduling_strategy"] = "SPREAD"
        run = RayRun(label, spec)
        run.spawned = time.time()
        run.process = self.remote.options(**options).remote(spec)
        self.active.append(run)
        return run

    def hard_deadline(self, run: Run) -> float | None:
        """When the driver cancels a run that has not answered (None: not yet known)."""
        spec = run.spec
        ends = []
        if spec.deadline is not None:
            ends.append(spec.deadline + self.answer_grace)
        if spec.timeout is not None and run.started is not None:
            base = run.loaded if run.loaded is not None else run.started + self.load_allowance
            ends.append(base + spec.timeout + max(self.answer_grace, 0.05 * spec.timeout))
        return min(ends) if ends else None

    # -- watching -------------------------------------------------------------------------

    def poll(self, timeout: float) -> list[Run]:
        """Wait up to ``timeout`` seconds; return the runs whose outcome became known."""
        if not self.active:
            return []
        now = time.time()
        deadlines = [d for d in (self.hard_deadline(r) for r in self.active) if d is not None]
        if deadlines:
            timeout = min(timeout, max(0.0, min(deadlines) - now))
        gens = {r.process: r for r in self.active}
        ready, _ = self.ray.wait(list(gens), num_returns=1, timeout=timeout)
        if ready:
            ready, _ = self.ray.wait(list(gens), num_returns=len(gens), timeout=0)
        done: list[Run] = []
        for gen in ready:
            run = gens[gen]
            self._drain(run)
            if run.result is not None:
                done.append(run)
        now = time.time()
        for run in self.active:
            deadline = self.hard_deadline(run)
            if run.result is None and deadline is not None and now >= deadline:
                self._cancel(run)
                run.note = "timeout"
                began = run.started if run.started is not None else run.spawned
                run.result = Result(
                    Status.UNKNOWN,
                    strategy=run.spec.name,
                    message=f"cancelled: no answer {now - began:.1f}s after the task started",
                )
                done.append(run)
        for run in done:
            if run in self.active:
                run.finished = run.finished or time.time()
                self.active.remove(run)
        return done

    def _drain(self, run: Run) -> None:
        """Read every message the task has yielded so far (never blocks)."""
        ray = self.ray
        while run.result is None:
            ready, _ = ray.wait([run.process], timeout=0)
            if not ready:
                return
            try:
                ref = next(run.process)
                message = ray.get(ref)
            except StopIteration:
                self._failed(run, "crashed", "the task ended without an answer")
                return
            except Exception as exc:  # noqa: BLE001 - Ray's errors, all reported
                self._failed(run, *_explain(ray, exc))
                return
            kind = message[0]
            if kind == "started":
                run.started = time.time()
                run.pid, run.host = message[1], message[2]
                if isinstance(run, RayRun):
                    run.node_id, run.worker_started = message[3], message[4]
            elif kind == "loaded":
                # the import time as the worker measured it (the driver may read both at once)
                base = run.started if run.started is not None else time.time()
                worker_started = run.worker_started if isinstance(run, RayRun) else None
                run.loaded = base + max(0.0, message[1] - worker_started) if worker_started else time.time()
            elif kind == "result":
                run.finished = time.time()
                run.result = verified(self.puzzle, message[1], run)

    def _failed(self, run: Run, note: str, message: str) -> None:
        run.note = note
        run.result = Result(Status.ERROR, strategy=run.spec.name, message=message)
        run.finished = time.time()

    # -- stopping -------------------------------------------------------------------------

    def _cancel(self, run: Run) -> None:
        assert isinstance(run, RayRun)
        if not run.cancelled:
            with contextlib.suppress(Exception):
                self.ray.cancel(run.process, force=True)
            run.cancelled = True
            self.cancelled.append(run)

    def stop(self, runs: Sequence[Run], note: str, message: str) -> None:
        """Cancel runs that have not answered; their result becomes UNKNOWN with ``message``."""
        now = time.time()
        for run in [r for r in runs if r in self.active]:
            self._drain(run)
            if run.result is None:
                self._cancel(run)
                run.note = note
                run.result = Result(Status.UNKNOWN, strategy=run.spec.name, message=message)
            run.finished = run.finished or now
            self.active.remove(run)

    def close(self, note: str = "stopped", wait: float = 10.0) -> None:
        """Cancel every task still running, wait until the cancelled workers are gone, and shut
        Ray down if this supervisor started it."""
        message = "interrupted (Ctrl-C)" if note == "interrupted" else "stopped: the race was decided"
        try:
            self.stop(list(self.active), note, message)
            self._confirm(self.cancelled, wait)
            self.cancelled.clear()
        finally:
            if self._owned:
                self._owned = False
                self.ray.shutdown()

    def _confirm(self, runs: Sequence[RayRun], wait: float) -> None:
        """Wait until each cancelled task has ended and, on this node, its worker process is gone."""
        end = time.monotonic() + wait
        for run in runs:
            while time.monotonic() < end:
                ready, _ = self.ray.wait([run.process], timeout=max(0.0, end - time.monotonic()))
                if not ready:
                    break
                try:
                    self.ray.get(next(run.process))
                except Exception:  # noqa: BLE001 - StopIteration or the cancellation error: it ended
                    break
        procs = []
        for run in runs:
            if run.pid is not None and run.node_id == self.node_id:
                with contextlib.suppress(psutil.Error):
                    procs.append(psutil.Process(run.pid))
        _, alive = psutil.wait_procs(procs, timeout=max(0.1, end - time.monotonic()))
        for proc in alive:  # Ray did not kill it in time: do it ourselves
            with contextlib.suppress(psutil.Error):
                if "ray" in " ".join(proc.cmdline()).lower():
                    proc.kill()
        psutil.wait_procs(alive, timeout=2.0)


def _explain(ray: ModuleType, exc: BaseException) -> tuple[str, str]:
    """``(note, message)`` for an error Ray raised instead of a task's message."""
    errors = ray.exceptions
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, getattr(errors, "OutOfMemoryError", ())):
        return "memory", f"killed by Ray's memory monitor: {first}"
    if isinstance(exc, errors.WorkerCrashedError):
        return "crashed", "worker died unexpectedly (a crash, a signal or the OOM killer)"
    if isinstance(exc, getattr(errors, "NodeDiedError", ())):
        return "crashed", f"node died: {first}"
    if isinstance(exc, errors.TaskCancelledError):
        return "stopped", "cancelled"
    if isinstance(exc, errors.RayTaskError):
        cause = getattr(exc, "cause", None)
        said = str(cause).strip().splitlines()[0] if cause is not None and str(cause).strip() else ""
        text = f"{type(cause).__name__}: {said}" if cause is not None else first
        return "crashed", f"task failed: {text}"[:300]
    return "crashed", f"{type(exc).__name__}: {first}"[:300]

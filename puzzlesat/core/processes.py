"""Child processes that die with their parent and are stopped with their whole process tree.

Every process puzzlesat starts goes through :func:`start`: the portfolio's members, the workers
of the parallel native searches (:class:`TaskPool`: Rubik, pegsol, blacken, and eternity's
exact and best-score searches) and the one-shot Kissat child.  A child started here

1. is a :mod:`multiprocessing` process (*spawn* unless asked otherwise), so its target and
   arguments are pickled, multiprocessing's queues, values and events can be handed to it, and
   it is not daemonic: it may start children of its own (a portfolio member running Kissat);
2. ignores SIGINT: the parent handles Ctrl-C and stops its children itself, so no child prints
   a KeyboardInterrupt traceback;
3. leaves the parent's process group (``os.setsid``), so that one ``killpg`` reaches the child
   and every process it starts;
4. asks the kernel to SIGKILL it when the parent dies (``PR_SET_PDEATHSIG`` on Linux; SIGKILL
   of the parent included), and runs a watchdog thread that kills its own process group when
   it sees the parent gone (elsewhere, or when the kernel's signal is lost);
5. optionally caps its memory with ``RLIMIT_DATA`` (heap and private mappings; ``RLIMIT_AS``
   would count the address space that thread-heavy solvers reserve but never touch).

:func:`stop_trees` stops children as whole trees: SIGTERM to each child's process group and to
its descendants, a grace, then SIGKILL, and every process reaped.  This module imports only
the standard library and psutil.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.process import BaseProcess
from typing import Any

import psutil

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_INTERVAL = 0.5  # seconds between the watchdog's looks at the parent


def start(
    target: Callable[..., object],
    args: tuple[Any, ...] = (),
    *,
    name: str | None = None,
    method: str = "spawn",
    memory_mb: int | None = None,
    keep_main: bool = False,
) -> BaseProcess:
    """Start ``target(*args)`` in a child process that dies with this one (see the module docstring).

    Args:
        target: a module-level function (pickled by name under *spawn*).
        args: its arguments; multiprocessing's queues, values and events may be among them.
        name: the process's name.
        method: ``spawn`` (a fresh interpreter) or ``fork``.
        memory_mb: the child's ``RLIMIT_DATA`` cap in MiB; None for none.
        keep_main: run the parent's ``__main__`` module again in a spawned child, which only a
            target or argument defined in that module needs (see :func:`_without_main`).

    Returns:
        The started process; stop it with :func:`stop_trees`.
    """
    ctx: Any = multiprocessing.get_context(method)
    process = ctx.Process(target=_bootstrap, args=(target, args, os.getpid(), memory_mb), name=name, daemon=False)
    if method == "fork":  # a forked child would print our unflushed buffers again
        sys.stdout.flush()
        sys.stderr.flush()
    try:
        with _without_main(method == "spawn" and not keep_main):
            process.start()
    except BaseException:  # e.g. Ctrl-C right after the fork: leave nothing behind
        if process.pid is not None:
            stop_trees([process])
        raise
    return process


def _bootstrap(target: Callable[..., object], args: tuple[Any, ...], parent_pid: int, memory_mb: int | None) -> None:
    """The child's side of :func:`start`: steps 2 to 5 of the module docstring, then the target.

    A failure the target does not turn into a result itself is one line on stderr and exit
    code 1 (which the parent reports), never a traceback on the user's terminal.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):  # already a session leader
        os.setsid()
    die_with_parent(parent_pid)
    try:
        cap_memory(memory_mb)
        target(*args)
    except Exception as exc:
        name = multiprocessing.current_process().name
        print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


def die_with_parent(parent_pid: int) -> None:
    """Have this process, a process group leader, killed with its group when ``parent_pid`` dies.

    The kernel SIGKILLs this process when its parent dies (Linux), and a daemon thread polls
    ``os.getppid()`` and SIGKILLs this process group when the parent has changed.  Exits at
    once if the parent is already gone.
    """
    killed_with_parent(parent_pid)

    def watch() -> None:
        while True:
            time.sleep(WATCH_INTERVAL)
            if os.getppid() != parent_pid:
                try:  # our own process group: this process and anything it started
                    os.killpg(os.getpgid(0), signal.SIGKILL)
                finally:
                    os._exit(1)

    threading.Thread(target=watch, name="puzzlesat-parent-watch", daemon=True).start()


def killed_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when ``parent_pid``, its parent, dies (Linux;
    elsewhere nothing); exits at once if the parent is already gone.  The request survives
    ``exec``, so it also serves as the ``preexec_fn`` of a :mod:`subprocess` child."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - exotic libc
            pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def cap_memory(memory_mb: int | None) -> None:
    """Cap this process's heap and private mappings (``RLIMIT_DATA``) at ``memory_mb`` MiB."""
    if not memory_mb:
        return
    import resource

    limit = int(memory_mb) * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ValueError, OSError, OverflowError):  # a hard limit already lower, or one past a C long: none
        pass


@contextlib.contextmanager
def _without_main(active: bool) -> Iterator[None]:
    """Spawn a child without running the parent's ``__main__`` module in it again.

    multiprocessing's spawn imports the parent's main script in every child, which costs
    start-up time and breaks for scripts without a ``__main__`` guard or read from stdin.
    Targets live in this package, so the main module is not needed.
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


def descendants(process: BaseProcess) -> list[psutil.Process]:
    """The processes ``process`` has started, recursively (empty once it has gone)."""
    if process.pid is None:
        return []
    try:
        return list(psutil.Process(process.pid).children(recursive=True))
    except psutil.Error:
        return []


def signal_tree(pid: int, descendants: Sequence[psutil.Process], sig: int) -> None:
    """Send ``sig`` to the process group led by ``pid`` (or to ``pid`` alone, before the child has
    left our group) and to each of ``descendants`` (which may have left the group)."""
    with contextlib.suppress(OSError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    for proc in descendants:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)


def stop_trees(processes: Sequence[BaseProcess], grace: float = 0.5) -> None:
    """Stop children started by :func:`start` with everything they started, and reap them.

    SIGTERM to each running child's tree, up to ``grace`` seconds for them to exit, then
    SIGKILL to the trees still there; the descendants of a child that exited are killed too.
    """
    trees: list[tuple[BaseProcess, list[psutil.Process]]] = []
    for process in processes:
        if process.pid is None or process.exitcode is not None:
            continue
        tree = descendants(process)
        trees.append((process, tree))
        signal_tree(process.pid, tree, signal.SIGTERM)
    end = time.monotonic() + grace
    for process, _ in trees:
        process.join(max(0.0, end - time.monotonic()))
    leftovers: list[psutil.Process] = []
    for process, tree in trees:
        if process.exitcode is None:
            assert process.pid is not None
            signal_tree(process.pid, tree, signal.SIGKILL)
        else:
            for proc in tree:
                with contextlib.suppress(psutil.Error):
                    proc.kill()
        leftovers.extend(tree)
    for process, _ in trees:
        process.join(5.0)
    with contextlib.suppress(psutil.Error):
        psutil.wait_procs(leftovers, timeout=1.0)


class WorkerDied(ChildProcessError):
    """A :class:`TaskPool` worker ended while the pool still had work for it."""


class TaskPool:
    """A few worker processes started by :func:`start` that run tasks from a queue.

    The counterpart of ``multiprocessing.Pool(workers, init, initargs).imap_unordered`` whose
    workers die with the parent and are stopped as whole trees; use as a context manager.
    Each :meth:`submit` starts a new batch: the tasks of an earlier batch still queued are
    skipped and their results dropped; :meth:`extend` adds tasks to the current batch.  A task
    may also send news before it ends (:func:`report`: a better answer, a piece of work to hand
    out, progress), which :meth:`next` returns like a result, and may ask whether the pool is
    :func:`hungry` (a worker waits with no task queued for it) to split its work.  Values to
    share with every task (a bound, a stop event: ``multiprocessing`` objects that only pass
    to a process at its start) go in ``initargs``.

    Args:
        workers: the number of processes.
        init: run once in each worker with ``initargs`` (e.g. to load tables); None for nothing.
        method: ``spawn`` or ``fork``.
        name: the workers' names, numbered.
    """

    def __init__(
        self,
        workers: int,
        init: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
        method: str = "spawn",
        name: str = "puzzlesat-worker",
    ) -> None:
        ctx = multiprocessing.get_context(method)
        self.tasks: Any = ctx.Queue()
        self.results: Any = ctx.Queue()
        self.batch: Any = ctx.Value("q", 0)
        self.waiting: Any = ctx.Value("q", 0)  # workers waiting for a task
        self.queued: Any = ctx.Value("q", 0)  # tasks put and not yet taken
        shared = (self.tasks, self.results, self.batch, self.waiting, self.queued)
        self.processes = [
            start(_serve, (init, initargs, *shared), name=f"{name}-{i}", method=method) for i in range(workers)
        ]

    def __enter__(self) -> TaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def submit(self, func: Callable[[Any], Any], items: Sequence[Any]) -> None:
        """Queue ``func(item)`` for each item as a new batch; :meth:`next` returns their results."""
        with self.batch.get_lock():
            self.batch.value += 1
        self.extend(func, items)

    def extend(self, func: Callable[[Any], Any], items: Sequence[Any]) -> None:
        """Queue ``func(item)`` for each item in the current batch (more work found as it runs)."""
        batch = self.batch.value
        with self.queued.get_lock():
            self.queued.value += len(items)
        for item in items:
            self.tasks.put((batch, func, item))

    def hungry(self) -> bool:
        """True when more workers wait for a task than tasks are queued."""
        return bool(self.waiting.value > self.queued.value)

    def next(self, timeout: float | None = None) -> Any:
        """The next result of the current batch, in the order they finish.

        Raises:
            TimeoutError: none came within ``timeout`` seconds.
            WorkerDied: a worker has ended.
            Exception: what a task raised, raised again here.
        """
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = 0.2 if end is None else min(0.2, max(0.0, end - time.monotonic()))
            try:
                batch, ok, value = self.results.get(timeout=wait)
            except queue.Empty:
                dead = [p for p in self.processes if not p.is_alive()]
                if dead:
                    raise WorkerDied(f"a worker ended (exit code {dead[0].exitcode})") from None
                if end is not None and time.monotonic() >= end:
                    raise TimeoutError(f"no result within {timeout} s") from None
                continue
            if batch != self.batch.value:
                continue
            if not ok:
                raise value
            return value

    def close(self) -> None:
        """Stop every worker with its tree; queued tasks are dropped."""
        stop_trees(self.processes)
        for q in (self.tasks, self.results):
            q.cancel_join_thread()  # nobody reads the queued tasks any more: exit without flushing them
            q.close()


class _Worker:
    """In a :class:`TaskPool` worker: the pool's queues and counters, and the running task's batch."""

    def __init__(self, results: Any, waiting: Any, queued: Any) -> None:
        self.results = results
        self.waiting = waiting
        self.queued = queued
        self.batch = 0


_WORKER: _Worker | None = None  # set in a TaskPool worker


def _in_pool(name: str) -> _Worker:
    if _WORKER is None:
        raise RuntimeError(f"{name}() is for the tasks of a TaskPool")
    return _WORKER


def report(value: Any) -> None:
    """Send ``value`` to the parent now, as one more result of the TaskPool task this worker runs."""
    worker = _in_pool("report")
    worker.results.put((worker.batch, True, value))


def hungry() -> bool:
    """In a TaskPool task: True when more workers wait for a task than tasks are queued, so
    that a piece of this task's work would be taken at once (:meth:`TaskPool.hungry`)."""
    worker = _in_pool("hungry")
    return bool(worker.waiting.value > worker.queued.value)


def _serve(
    init: Callable[..., object] | None,
    initargs: tuple[Any, ...],
    tasks: Any,
    results: Any,
    batch: Any,
    waiting: Any,
    queued: Any,
) -> None:
    """A :class:`TaskPool` worker: ``init`` once, then tasks of the current batch until killed."""
    global _WORKER
    if init is not None:
        init(*initargs)
    _WORKER = worker = _Worker(results, waiting, queued)
    while True:
        with waiting.get_lock():
            waiting.value += 1
        task_batch, func, item = tasks.get()
        with waiting.get_lock():
            waiting.value -= 1
        with queued.get_lock():
            queued.value -= 1
        if task_batch != batch.value:
            continue
        worker.batch = task_batch
        try:
            results.put((task_batch, True, func(item)))
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
            results.put((task_batch, False, exc))
